/*
 * Layer rt/gpu/ — GPUs: the device interface and its backends (memunit.h,
 * devops_cuda.c, devops_emu.c), each GPU's memory as a memory unit
 * (cuda_unit.c), the CUDA workers that execute ready tasks (cuda_worker.c)
 * and the device-selection policies (sched_gpu.c).  It may call base/, core/
 * and exec/; it knows nothing of mpi/ (and mpi/ nothing of it), and obs/ only
 * as the recorder tamm_init installs (tamm__gpu_recorder).
 */
/*
 * gpu.h — the state of GPUs inside the runtime, shared by the memory unit
 * (cuda_unit.c), the CUDA workers (cuda_worker.c) and the device-selection
 * policies (sched_gpu.c).  docs/runtime.md ("GPUs") describes the design.
 *
 * Each GPU has one CUDA worker thread that owns its streams and is the only
 * thread issuing work to the device.  Work is issued in records: a record is
 * a batch of stream operations ending in an event (one task's transfers and
 * kernels on a task stream, or flushes and evictions on the copy stream);
 * when the worker's progress loop sees the event complete it finishes the
 * record's items (write-backs, sums at the home), wakes the tasks waiting for
 * them, and completes the task.
 */
#ifndef TAMM_GPU_H
#define TAMM_GPU_H

#include "config.h"
#include "hostmem.h"
#include "layer.h"
#include "memunit.h"
#include "task.h"
#include "taskq.h"
#include <pthread.h>
#include <stdio.h>

#define TAMM_MAX_GPUS 8
#define TAMM_GPU_PER_STREAM 2    /* tasks in flight per stream */

/* deferred release of a GPU buffer record (tamm__bufrec.flags, beside TAMM_BR_*) */
enum { TAMM_BR_GPU_PUT = 8, TAMM_BR_GPU_ADD = 16, TAMM_BR_GPU_CANCEL = 32 };

/* what a record's completion finishes for one block */
typedef enum { TAMM_PI_PUT, TAMM_PI_ACCALL, TAMM_PI_COMMIT_PUT, TAMM_PI_COMMIT_ADD } tamm__pi_kind;
typedef struct tamm__pitem {
    tamm__pi_kind kind;
    struct tamm_tensor *T;
    long lin;
    tamm__ublk *u;          /* the copy a PUT / ACCALL flushes (NULL: a private buffer's commit) */
    void *staging;         /* ACCALL / COMMIT_*: the data, in pinned host memory */
    size_t bytes;
} tamm__pitem;

/* a home a record holds under TAMM_MEMORY_LIMIT until it completes (tamm__ml_hold), with the
 * bytes of a staging buffer beside it */
typedef struct tamm__phold { struct tamm_tensor *T; long lin; size_t extra; } tamm__phold;

/* a copy a record issued (recording only: TAMM_TRACE / TAMM_DAG) */
typedef enum { TAMM_CP_H2D, TAMM_CP_D2H, TAMM_CP_D2D } tamm__cp_dir;
typedef struct tamm__tcopy { uint64_t t; size_t bytes; struct tamm_tensor *T; long lin; int dir; } tamm__tcopy;

typedef struct tamm__pend {
    struct tamm__unit_run unit;    /* first: ctx->unit of a task running on the GPU (layer.h) */
    void *ev;
    uint64_t seq;                 /* bumped each time the record completes */
    int stream;                   /* task stream index, or -1: the copy stream */
    int closed;                   /* event recorded */
    int home_reads;               /* Gets from a home into a buffer the task only reads (early_end) */
    int ahead;                    /* ordered on the device after a task record still in flight */
    struct tamm__pend *next;       /* FIFO of its stream, or the free list */
    tamm__task_s *task;            /* NULL for a flush batch */
    tamm_ctx ctx;                 /* the task's buffers */
    size_t reserved;              /* bytes admitted against the memory limit */
    uint64_t t_issue;
    double est_ns;                /* the policy's estimate, taken back at completion */
    tamm__pitem *items; int nitems, capitems;
    tamm__task_s **waiters; int nwaiters, capwaiters;
    tamm__tcopy *tcopies; int ntcopies, captcopies; /* recording: the copies issued, in order */
    tamm__phold *holds; int nholds, capholds;       /* TAMM_MEMORY_LIMIT: the homes its copies use */
} tamm__pend;

typedef struct tamm__flushreq { struct tamm_tensor *T; long lin; tamm__task_s *t; } tamm__flushreq;

typedef struct tamm__gpu {
    int id, dev;                  /* unit id - 1, device ordinal */
    int share;                    /* ranks of this node using the device (its memory is split among them) */
    int nstreams;                 /* task streams in use */
    tamm__devinfo info;
    size_t limit;                 /* bytes of device memory for block buffers */
    double bw_h2d, bw_d2h;        /* measured, bytes per ns */
    /* owned by the worker thread */
    void *stream[TAMM_GPU_STREAMS], *copy_stream;
    void *blas[TAMM_GPU_STREAMS];
    void *solver[TAMM_GPU_STREAMS];          /* cuSOLVER handles, made on first use (tamm_cusolver_handle) */
    unsigned char solver_failed[TAMM_GPU_STREAMS];
    tamm__pend *fifo_head[TAMM_GPU_STREAMS + 1], *fifo_tail[TAMM_GPU_STREAMS + 1]; /* [STREAMS]: copy */
    int inflight[TAMM_GPU_STREAMS];
    tamm__pend *batch;             /* the open flush batch on the copy stream */
    tamm__pend *free_recs;
    uint64_t last_done[TAMM_GPU_STREAMS + 1]; /* [STREAMS]: copy */
    tamm__task_s *held;            /* popped, waiting for memory to be admitted */
    /* TAMM_MEMORY_LIMIT, each list linked by next: */
    tamm__task_s *hw_head, *hw_tail; /* refused by the host's memory limit, tried again (in order) once
                                       memory was given back; the queue goes on meanwhile (a nested
                                       task behind may be what frees that memory) */
    int hw_retry;                 /* of hw, how many at its head to try again this round */
    tamm__task_s *rd_head, *rd_tail; /* admitted on the host, waiting for homes read back */
    unsigned mem_seen;            /* tamm__gpus.mem_gen when hw was last tried */
    unsigned rd_seen;             /* tamm__gpus.mem_gen when no task of rd was ready */
    atomic_int nwaiting;          /* held, in hw or in rd (the deadlock detector's view) */
    void *wb[2];                  /* TAMM_MEMORY_LIMIT: write-backs without a hold (tamm__ml_store) */
    void *wb_ev;                  /* their copies' event */
    /* guarded by lock: the unit's copies, LRU, accounting */
    pthread_mutex_t lock;
    tamm__ublk lru;                /* sentinel of the LRU ring (next: least recently used) */
    size_t used, reserved, peak;
    void **frees; int nfrees, capfrees;   /* buffers of freed tensors, released by the worker */
    /* queues fed by other threads */
    tamm__taskq q;
    pthread_mutex_t req_lock;
    tamm__flushreq *reqs; int nreqs, capreqs;
    tamm__flushreq *spare; int capspare;   /* the worker's copy of reqs while it serves them (swapped) */
    pthread_cond_t cond;          /* the worker sleeps here when idle (with req_lock) */
    atomic_int sleeping;
    /* shared counters (read by policies) */
    atomic_int queued, running;   /* tasks in q, tasks issued and not complete */
    _Atomic double busy_ns;       /* estimated work queued or running */
    atomic_ullong ntasks, bytes_h2d, bytes_d2h, nevict, hits, misses;
    atomic_ullong nearly;         /* tasks whose dependences ended at issue (their successors could start) */
    atomic_ullong nahead;         /* tasks issued behind a task still in flight, ordered by the device */
    atomic_ullong npf, npf_used;  /* blocks prefetched for queued tasks; of them, used by a task without a Get */
    atomic_int fatal;             /* a device call failed: the GPU takes no more work */
    atomic_int live_recs;         /* records issued and not complete (tasks and flush batches) */
    pthread_t thread;
    struct tamm__worker *w;
} tamm__gpu;

typedef struct tamm__gpus_t {
    int n;                        /* GPUs in use (0: CPU only) */
    const tamm__devops *ops;
    tamm__gpu *g;
    atomic_int stop;
    atomic_int cpu_running;       /* tasks dispatched to CPU workers and not finished (EFT) */
    _Atomic double cpu_busy_ns;
    atomic_uint rr;               /* round-robin cursor */
    atomic_uint mem_gen;          /* bumped when host memory may have become free (tamm__ml_wake) */
    char why_none[256];           /* why there is no device */
    int blas_ok;                  /* every task stream of every GPU has a cuBLAS handle */
    atomic_int lib_state[2];      /* cuBLAS, cuSOLVER for CUDA variants: 0 not asked yet, 1 usable, 2 not (tamm_cuda_libs) */
    char libs_why[2][256];        /* why cuBLAS, cuSOLVER cannot be used */
} tamm__gpus_t;

extern tamm__gpus_t tamm__gpus;

/* ---- cuda_unit.c: one GPU's memory ---- */
void tamm__unit_init(tamm__gpu *g);
void tamm__unit_fini(tamm__gpu *g);
/** get_buf of a task running on GPU g (rec: its record, stream s). */
void *tamm__unit_get(tamm__gpu *g, tamm__pend *rec, tamm_ctx *ctx, struct tamm_tensor *T, long lin, int req, int implicit,
                     int canc);
/** tamm_cuda_scratch of the task of record rec: bytes of device memory within the limit, freed in
 *  stream order when the task ends; NULL (the task's error reported) when there is no room. */
void *tamm__unit_scratch(tamm__gpu *g, tamm__pend *rec, size_t bytes);
/** release of buffer r of a task running on a GPU: checked now, applied at the task's end. */
int tamm__unit_release(tamm_ctx *ctx, tamm__bufrec *r, int how);
/** The task's variant has returned: leaks, commits of private buffers (device work on its stream). */
void tamm__unit_task_end(tamm__gpu *g, tamm__pend *rec);
/** The task's event is recorded: apply its deferred releases. */
void tamm__unit_task_released(tamm__gpu *g, tamm__pend *rec);
/** Serve a flush request (worker thread); returns 0 if it must wait (the copy is in use). */
int tamm__unit_flush(tamm__gpu *g, tamm__flushreq *r);
/** A record completed: finish its items. */
void tamm__unit_complete(tamm__gpu *g, tamm__pend *rec);
/** Record the open flush batch's event and queue it (worker thread). */
void tamm__unit_close_batch(tamm__gpu *g);
/** Release the buffers of freed tensors (worker thread). */
void tamm__unit_drain_frees(tamm__gpu *g);
/** Prefetch (worker thread): copy block (T, lin), which a task queued on g reads, from its
 *  current home into g on the copy stream, when g holds no current copy and has room without
 *  evicting anything.  Returns 1 if a copy was issued. */
int tamm__unit_prefetch(tamm__gpu *g, struct tamm_tensor *T, long lin);
/** The task stream of a task in flight on g that ended its dependences early and last wrote
 *  a block of t's (GrCUDA: t goes on its parent's stream, ordered without an event wait), or -1. */
int tamm__unit_parent_stream(tamm__gpu *g, const tamm__task_s *t);
/** A block of t's has a copy on g still being filled from its home (a prefetch in flight):
 *  t must not end its dependences early (a writer of that home would race the copy). */
int tamm__unit_home_busy(tamm__gpu *g, const tamm__task_s *t);
/** Bytes of a task's blocks (its footprint on a device). */
size_t tamm__task_footprint(const tamm__task_s *t);
/** TAMM_MEMORY_LIMIT: whether a task about to start on g reads the home of dep d (a tamm_ml_want). */
int tamm__unit_wants_home(void *g, const tamm__dep *d);
/** TAMM_MEMORY_LIMIT: g's buffers for write-backs without a hold, and their event (tamm__gpu_start / _stop). */
int tamm__unit_wb_init(tamm__gpu *g);
void tamm__unit_wb_fini(tamm__gpu *g);

/* ---- cuda_worker.c ---- */
/** Rank-to-GPU mapping (docs/runtime.md, "GPUs under MPI"), pure: the device ordinals a rank uses
 *  into dev[] (at most TAMM_MAX_GPUS; returns how many) and, for each, into share[] how many
 *  ranks of the node use it.  ndev: devices found; lrank, lsize: the rank among the lsize ranks of
 *  its node; mode, list, nlist: TAMM_CUDA_DEVICES (TAMM_CDEV_*).  Returns -1 when the list names a
 *  device that was not found (*bad: that device). */
int tamm__gpu_map(int ndev, int lrank, int lsize, int mode, const int *list, int nlist, int *dev, int *share, int *bad);
/** Discover GPUs (before the workers start) / start their workers / stop / free. */
int tamm__gpu_init(const tamm__config *cfg);
int tamm__gpu_start(void);
void tamm__gpu_stop(void);
void tamm__gpu_fini(void);
/** The GPU layer's part of the core's interfaces (layer.h), installed by
 *  tamm__gpu_init when GPUs are in use and removed by tamm__gpu_fini: the
 *  memory-unit operations of ctx->unit, the router of ready tasks, the
 *  per-tensor device state, pinned homes (hostmem.h), tamm__homes_shared. */
extern const tamm__unit_ops tamm__gpu_unit_ops;
extern const tamm__home_ops tamm__pinned_homes;
void tamm__gpu_stats(FILE *f);
/** t is ready: 1 if dispatch took it (a GPU's queue, or parked for flushes); 0: the caller queues it for the CPU. */
int tamm__gpu_route(tamm__task_s *t);
/** get_buf inside a task running on a GPU (never NULL but for lack of memory). */
void *tamm__gpu_get_buf(tamm_ctx *ctx, struct tamm_tensor *T, long lin, int req, int implicit, int canc);
/** A task dispatched to the CPU has run for ns. */
void tamm__gpu_cpu_ran(tamm__task_s *t, uint64_t ns);
/** GPU work is queued, in flight, or waiting for a flush (the deadlock detector's view). */
int tamm__gpu_busy(void);
/** The observer of the GPUs' records (obs/: a slice per task or batch of write-backs on its
 *  stream's track, with the copies it issued), installed by tamm_init; NULL: none.  Called on
 *  the CUDA worker's thread when record r of GPU g has run from `from` to `to` (ns), only while
 *  tamm__rt.recording (TAMM_TRACE or TAMM_DAG). */
extern void (*tamm__gpu_recorder)(tamm__gpu *g, tamm__pend *r, uint64_t from, uint64_t to);
tamm__pend *tamm__rec_get(tamm__gpu *g);
/** Report a failed device call on GPU g (the GPU stops taking work). */
void tamm__gpu_fail(tamm__gpu *g, const tamm__task_s *t, const char *what);

/* ---- sched_gpu.c: device selection ---- */
typedef struct tamm__pick_in {
    int ngpu;
    int has_cpu, has_gpu;         /* the task's variants */
    int fits[TAMM_MAX_GPUS];      /* the task's blocks fit in GPU g's limit */
    double xfer_min[TAMM_MAX_GPUS], xfer_max[TAMM_MAX_GPUS]; /* transfer time estimates, ns */
    double xfer_cpu;              /* ns to bring dirty blocks back to the host */
    size_t missing[TAMM_MAX_GPUS];/* bytes to move to GPU g */
    int busy[TAMM_MAX_GPUS];      /* tasks queued or running on GPU g */
    double avail[TAMM_MAX_GPUS];  /* ns until GPU g has done what it was given */
    double cpu_avail;             /* ns until a CPU worker is free */
    double dur_gpu, dur_cpu;      /* measured durations of this kind of task, ns (< 0: unknown) */
    int cpu_idle;                 /* a CPU worker is idle */
    unsigned rr;                  /* round-robin cursor */
} tamm__pick_in;

#define TAMM_EFT_DEFAULT_NS 10000.0 /* a duration never measured on either kind */
/** EFT's duration of the task on a GPU (gpu = 1) or the CPU. */
double tamm__eft_duration(const tamm__pick_in *in, int gpu);
/** Pure: the unit for a task (0: the CPU, g + 1: GPU g), or -1 when it can run nowhere. */
int tamm__gpu_pick(tamm_gpu_policy p, const tamm__pick_in *in);
/** Measurements: a task of this label and size took ns on unit (0: the CPUs, g + 1: GPU g).
 *  The first run on each GPU is not recorded: it loads (and may JIT-compile) the kernels,
 *  a cost the later runs do not pay. */
void tamm__perf_record(const char *label, size_t bytes, int unit, double ns);
/** The mean duration measured on a kind of unit (0: CPU, 1: GPU), or -1. */
double tamm__perf_estimate(const char *label, size_t bytes, int kind);
void tamm__perf_reset(void);
/** Fill in for t (reads the block states racily: a heuristic). */
void tamm__gpu_pick_input(const tamm__task_s *t, size_t footprint, tamm__pick_in *in);

#endif
