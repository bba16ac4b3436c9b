/*
 * config.h — the runtime's configuration, read from TAMM_* environment
 * variables at tamm_init and validated (an invalid value names the variable).
 */
#ifndef TAMM_CONFIG_H
#define TAMM_CONFIG_H

#include <stddef.h>

typedef enum { TAMM_SCHED_WS = 0, TAMM_SCHED_FIFO, TAMM_SCHED_PRIO } tamm__sched_kind;
typedef enum { TAMM_ONERR_ABORT = 0, TAMM_ONERR_RETURN } tamm__onerr_kind;
/* Device-selection policies for tasks that can run on a GPU (rt/gpu/sched_gpu.c). */
typedef enum { TAMM_GPOL_EFT = 0, TAMM_GPOL_RR, TAMM_GPOL_STREAM, TAMM_GPOL_MINSIZE, TAMM_GPOL_MINMIN,
               TAMM_GPOL_MINMAX, TAMM_GPOL_COUNT } tamm_gpu_policy;

typedef struct tamm__config {
    int num_workers;           /* TAMM_NUM_WORKERS (default: cores) */
    int cores;                 /* the machine's online cores (sysconf), at least 1 */
    int num_gpus;              /* TAMM_NUM_GPUS (-1: all found) */
    tamm__sched_kind sched;     /* TAMM_SCHED: the CPU queueing policy */
    tamm_gpu_policy gpu_sched; /* TAMM_SCHED: the device-selection policy */
    int fake_gpus;             /* TAMM_CUDA_EMU (alias TAMM_CUDA_FAKE): emulated GPUs (tests, devops_emu.c) */
    unsigned emu_delay_us;     /* TAMM_CUDA_EMU_DELAY: random delay before each stream operation, 0..us */
    unsigned long long emu_seed; /* TAMM_CUDA_EMU_SEED */
    size_t emu_memory;         /* TAMM_CUDA_EMU_MEMORY: each emulated device's memory (0: 1 GiB) */
    long emu_skip_wait;        /* TAMM_CUDA_EMU_SKIP_WAIT: 0 none, n the n-th stream wait, -1 all (test hook) */
    unsigned emu_kernel_timeout; /* TAMM_CUDA_EMU_KERNEL_TIMEOUT: seconds a kernel may run (0: no limit; default 60) */
    int cuda_streams;          /* TAMM_CUDA_STREAMS: task streams per GPU (default 4) */
    int cuda_early;            /* TAMM_CUDA_EARLY: a GPU task's successors may start before it completes (default 1) */
    int cuda_prefetch;         /* TAMM_CUDA_PREFETCH: queued GPU tasks' inputs copied in ahead of issue (default 1) */
    int sequential;            /* TAMM_SEQUENTIAL */
    tamm__onerr_kind on_error;  /* TAMM_ON_ERROR */
    int stats;                 /* TAMM_STATS */
    int hugepages;             /* TAMM_HUGEPAGES: large block homes on huge pages (default 1) */
    int check_access;          /* TAMM_CHECK_ACCESS: verify read and write accesses (check.c) */
    int reproducible;          /* TAMM_REPRODUCIBLE: accumulations into floating-point tensors in submission order */
    const char *trace_file;    /* TAMM_TRACE, NULL if unset */
    const char *dag_file;      /* TAMM_DAG, NULL if unset */
    size_t memory_limit;       /* TAMM_MEMORY_LIMIT, 0: none */
    size_t cuda_memory_limit;  /* TAMM_CUDA_MEMORY_LIMIT, 0: none */
    double cuda_memory_pct;    /* when given as a percentage */
    int cuda_dev_mode;         /* TAMM_CUDA_DEVICES: TAMM_CDEV_LOCAL (default), _ALL or _LIST */
    int cuda_dev_list[8], cuda_ndev_list; /* TAMM_CDEV_LIST: the device ordinals, in order */
    int local_rank, local_size; /* this process among the ranks on its node (0 and 1 without MPI); set
                                   by tamm_init from the MPI layer, read by the GPU layer's mapping
                                   and by the idle workers' polling (tamm__core_start) */
} tamm__config;

/* TAMM_CUDA_DEVICES: which GPUs a rank uses (gpu/cuda_worker.c, tamm__gpu_map) */
enum { TAMM_CDEV_LOCAL = 0, TAMM_CDEV_ALL, TAMM_CDEV_LIST };

/** Fill cfg from the environment; on an invalid value print a message naming
 *  the variable and return TAMM_EINVAL. */
int tamm__config_read(tamm__config *cfg);

/** Parse a byte size: digits with optional K/M/G/T suffix (binary), or "N%"
 *  (then *pct is set and the result is 0).  Returns 0 on success, -1 if invalid. */
int tamm__parse_size(const char *s, size_t *out, double *pct);

/** Parse a TAMM_SCHED value: one CPU policy (ws, fifo, prio), one device
 *  policy (eft, round-robin, stream-aware, min-transfer-size,
 *  minmin-transfer-time, minmax-transfer-time), or both separated by a comma.
 *  Returns 0, or -1 if a name is unknown or a class is given twice. */
int tamm__parse_sched(const char *s, tamm__sched_kind *cpu, tamm_gpu_policy *gpu);
/** The TAMM_SCHED name of a device policy. */
const char *tamm__gpu_policy_name(tamm_gpu_policy p);

#endif
