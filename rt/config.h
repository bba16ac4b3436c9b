/*
 * config.h — the runtime's configuration, read from TAMM_* environment
 * variables at tamm_init and validated (an invalid value names the variable).
 */
#ifndef TAMM_CONFIG_H
#define TAMM_CONFIG_H

#include <stddef.h>

typedef enum { TAMM_SCHED_WS = 0, TAMM_SCHED_FIFO, TAMM_SCHED_PRIO } tamm_sched_kind;
typedef enum { TAMM_ONERR_ABORT = 0, TAMM_ONERR_RETURN } tamm_onerr_kind;

typedef struct tamm_config {
    int num_workers;           /* TAMM_NUM_WORKERS (default: cores) */
    int num_gpus;              /* TAMM_NUM_GPUS (-1: all found) */
    tamm_sched_kind sched;     /* TAMM_SCHED */
    int sequential;            /* TAMM_SEQUENTIAL */
    tamm_onerr_kind on_error;  /* TAMM_ON_ERROR */
    int stats;                 /* TAMM_STATS */
    const char *trace_file;    /* TAMM_TRACE, NULL if unset */
    const char *dag_file;      /* TAMM_DAG, NULL if unset */
    size_t memory_limit;       /* TAMM_MEMORY_LIMIT, 0: none */
    size_t cuda_memory_limit;  /* TAMM_CUDA_MEMORY_LIMIT, 0: none */
    double cuda_memory_pct;    /* when given as a percentage */
} tamm_config;

/** Fill cfg from the environment; on an invalid value print a message naming
 *  the variable and return TAMM_EINVAL. */
int tamm__config_read(tamm_config *cfg);

/** Parse a byte size: digits with optional K/M/G/T suffix (binary), or "N%"
 *  (then *pct is set and the result is 0).  Returns 0 on success, -1 if invalid. */
int tamm__parse_size(const char *s, size_t *out, double *pct);

#endif
