/*
 * Layer rt/exec/ — running ready tasks on CPUs: workers (worker.c), work-
 * stealing deques (deque.c), object and buffer pools (pool.c), ready queues
 * (taskq.h, prioq.c), the CPU scheduling policies (sched_policy.h: sched_ws.c,
 * sched_fifo.c, sched_prio.c) and the handoff of completions from non-worker
 * threads (handoff.c).  It may call base/, core/ (to run and complete tasks)
 * and obs/; it may not include gpu/ or mpi/: the executors of the layers above
 * (CUDA workers) are known to it only through tamm__workers_start.
 */
/*
 * worker.h — CPU workers: one thread per core (the top-level thread is worker
 * 0 and helps while it waits), idle sleep on a futex with no lost wake-ups,
 * and the help-while-waiting loop with deadlock detection.
 */
#ifndef TAMM_WORKER_H
#define TAMM_WORKER_H

#include "deque.h"
#include "pool.h"
#include "task.h"
#include <pthread.h>
#include <stdint.h>

/* A recorded event (TAMM_TRACE / TAMM_DAG; trace.h): a task on a CPU worker, a
 * task or write-back batch on a GPU stream, a host-device copy. */
typedef enum { TAMM_TEV_TASK = 0, TAMM_TEV_GPU_TASK, TAMM_TEV_GPU_FLUSH, TAMM_TEV_COPY } tamm_tev_kind;
typedef struct tamm_trace_ev {
    uint64_t id, t0, t1;   /* the task (0: none); start and end, ns */
    uint64_t bytes;        /* a copy's */
    char *name;            /* a copy's ("H2D A[3]", malloc'd); NULL otherwise */
    int kind;              /* tamm_tev_kind */
    int track;             /* GPU events: the stream (-1: the copy stream) */
} tamm_trace_ev;

typedef struct tamm_worker {
    int id;
    pthread_t thread;
    tamm_deque dq;
    uint64_t rng;
    tamm_pool_cache task_cache, epoch_cache;
    tamm_buf_cache bufs;
    /* statistics (written by the owner; read at finalize) */
    atomic_ullong ntasks;
    atomic_long top_done;      /* top-level tasks completed on this worker */
    atomic_ullong nsubmitted;  /* tasks submitted from this worker (statistics) */
    uint64_t busy_ns, idle_ns, nsteals, nsleeps;
    /* trace events (only when tracing) */
    tamm_trace_ev *ev;
    size_t nev, capev;
    tamm_ctx *cur_ctx;         /* context of the task running on this worker */
    tamm_held held;            /* epoch count-downs held back (CPU workers; dag.h) */
    int steal_min;             /* work stealing takes from a deque holding at least this many (0 or 1: any) */
    int wait_depth;            /* taskwaits of task functions under way on this worker, nested */
} __attribute__((aligned(TAMM_CACHELINE))) tamm_worker;

extern _Thread_local tamm_worker *tamm__tls_worker;

/* How deep taskwaits of task functions may nest on one worker's stack (each
 * waiting task runs other tasks on top of its own frames). */
#define TAMM_MAX_TASKWAIT_DEPTH 512

/** Start n CPU workers (worker 0 is the calling thread).  `others` entries of
 *  workers[] follow theirs for the executors of the layers above (one per CUDA
 *  worker, gpu/cuda_worker.c, which starts them), and others_busy (NULL when
 *  others is 0) says whether those executors still hold work: the deadlock
 *  detection of the help loop asks it before it reports TAMM_EDEADLOCK. */
int tamm__workers_start(int n, int others, int (*others_busy)(void));
void tamm__workers_stop(void);
/** Make a queued task visible to sleeping workers. */
void tamm__wake_one(void);
void tamm__wake_all(void);
/** Run tasks until cond(arg) holds.  Returns TAMM_OK, or TAMM_EDEADLOCK when
 *  no task can ever run again and cond is still false. */
int tamm__help_until(int (*cond)(void *), void *arg);
/** The same for a wait inside a running task (a taskwait in a task function):
 *  it does not raise top_waiting (the top-level thread's flag), and the caller
 *  counts itself in tamm__rt.nested_waiting, which completions of children
 *  read to wake it. */
int tamm__help_until_nested(int (*cond)(void *), void *arg);
/** The submission throttle: w, the submitting thread, runs tasks until at
 *  most `lim` top-level tasks are pending (`pending` now).  It never waits
 *  idle when nothing can run, and it leaves another worker's lone ready task
 *  to that worker while the workers make progress: taking it would only move
 *  a chain of dependent tasks, and its data, to this thread. */
void tamm__help_throttle(tamm_worker *w, long pending, long lim);
/** Apply the epoch count-downs w holds: before w leaves the runtime or waits. */
static inline void tamm__worker_flush(tamm_worker *w)
{
    if (w->held.epoch) tamm__dag_flush(&w->held);
}

#endif
