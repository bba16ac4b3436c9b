/*
 * Layer rt/core/ — the core, which knows no device and no rank: tensors and
 * blocks (tensor.c), tasks (task.c), the submission FSM and the DAG (dep_fsm.c,
 * dag.c), permissions (perm.c), the execution FSM (block_fsm.c), buffers
 * (buffer.c), transfers between memory units (xfer.c), the host memory unit
 * (hostmem.c, memlimit.c, spill.c, and the object and buffer caches of pool.c), fences
 * (fence.c), streaming scopes (scope.c), where a top-level task is diverted
 * (divert.c), the access checker (check.c), the deadlock report (stuck.c)
 * and the core's part of the lifecycle (runtime.c).
 * It includes only base/ besides itself.  The CPU executors (exec/) implement
 * the executor interface it declares (executor.h), bound at link time; the
 * layers above reach it through the interfaces of layer.h (memory units,
 * executors, the submission filter, per-tensor hooks, the recorder), which
 * they install at tamm_init (rt/init/tamm.c, the one file that knows every
 * layer).  It links to nothing only gpu/, mpi/ or obs/ define.
 */
/*
 * runtime.h — the runtime's global state (one per process) and the helpers
 * the modules share.  Everything here is set up by tamm_init and torn down by
 * tamm_finalize (runtime.c).
 */
#ifndef TAMM_RUNTIME_H
#define TAMM_RUNTIME_H

#include "config.h"
#include "executor.h"
#include "pool.h"
#include <pthread.h>

/* An idle worker's polling rounds (tamm__pause each, ~10-40 us in all) before it sleeps; a few
 * when the node's polling threads outnumber its cores (tamm__runtime.spin_rounds). */
#define TAMM_SPIN_ROUNDS 4000
#define TAMM_SPIN_SHARED 64

typedef struct tamm__runtime {
    int initialised;
    tamm__config cfg;
    int rank, nranks;              /* this process in the run, and the run's processes (from the MPI layer) */
    int nworkers;
    int nthreads;                  /* entries of workers[]: the CPU workers, then one per CUDA worker */
    tamm__worker *workers;
    const tamm__sched_ops *sched;
    int recording;                 /* TAMM_DAG or TAMM_TRACE: record edges */
    uint64_t t0;                   /* init time, for traces */
    pthread_mutex_t tensors_lock;
    struct tamm_tensor *tensors;   /* live tensors */
    long throttle;                 /* top-level tasks in flight before the submitter helps */
    int spin_rounds;               /* an idle worker's polling rounds before it sleeps (tamm__core_start) */
    /* Lines by writer, so that no thread's per-task write evicts a line another
     * thread reads per task.  Read on every ready / top-level completion, written
     * only around sleeps: */
    _Alignas(TAMM_CACHELINE) atomic_int top_waiting; /* the top-level thread sleeps in a wait */
    atomic_int nested_waiting;     /* threads waiting for a task's count to fall to its own: a taskwait of a
                                    * task function (tamm_cc_taskwait), an undeferred task's submitter */
    atomic_int nsleepers;
    atomic_int stop;
    atomic_int xf_armed;           /* an execution fence waits for its count of completions (fence.h) */
    /* written by wakers */
    _Alignas(TAMM_CACHELINE) atomic_uint wake_seq;   /* futex word for idle workers */
    /* written by the top-level thread on every submission */
    _Alignas(TAMM_CACHELINE) atomic_long top_submitted; /* top-level tasks submitted */
    atomic_ullong next_id;
    /* written when batches of objects change threads */
    _Alignas(TAMM_CACHELINE) tamm__pool task_pool;
    _Alignas(TAMM_CACHELINE) tamm__pool epoch_pool;
    /* statistics */
    _Alignas(TAMM_CACHELINE) atomic_ullong bytes_h2h; /* bytes copied host<->host by transfers */
    atomic_ullong inplace_acc, private_acc;
    atomic_ullong nsentinels;      /* bodiless top-level waits on blocks (tamm_block, tamm_wait_on, gather...) */
    atomic_ullong nskipped;        /* tasks not run because of an error (a failed GPU, no GPU can take it) */
    atomic_ullong nwithheld;       /* tasks submitted without their CUDA variant: a check of its kernel failed
                                      (tamm_task_opts.cuda_withheld) */
} tamm__runtime;

extern tamm__runtime tamm__rt;

/* The core's steps of the lifecycle; rt/init/tamm.c calls them around
 * starting and stopping the layers (tamm_init, tamm_finalize). */
/** tamm_init, once the configuration is read and the ranks are known: the
 *  global state, pools, trace. */
void tamm__core_start(const tamm__config *cfg, int rank, int nranks);
/** tamm_wait_all for the runtime's own callers (no error marked seen). */
int tamm__wait_all(void);
/** tamm_finalize, first: every top-level task and execution fence done (an error, or TAMM_OK). */
int tamm__core_quiesce(void);
/** tamm_finalize, once the workers stopped: tensors, fences, the spill file,
 *  the workers' deques and caches freed.  Returns nonzero if tasks that can
 *  never run remain (their records and tensors are then kept). */
int tamm__core_release(void);
/** tamm_finalize, last: pools and workers freed, the runtime uninitialised;
 *  returns rc, or else the error recorded for the program. */
int tamm__core_end(int rc, int deadlocked);

/** The calling thread's worker, or worker 0's caches for a foreign thread. */
static inline tamm__worker *tamm__self(void) { return tamm__tls_worker; }

/** Top-level tasks not yet complete: submitted minus the per-worker completion
 *  counts (no shared counter is written per task). */
static inline long tamm__top_pending(void)
{
    long done = 0;
    for (int i = 0; i < tamm__rt.nthreads; i++)
        done += atomic_load_explicit(&tamm__rt.workers[i].top_done, memory_order_acquire);
    return atomic_load_explicit(&tamm__rt.top_submitted, memory_order_relaxed) - done;
}

#endif
