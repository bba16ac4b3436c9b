/*
 * executor.h — what the core requires of the executors of ready tasks, and
 * what it knows of them.  The CPU executors (rt/exec/: workers, the help loop,
 * the scheduling policies) implement it; the core declares it, so the
 * dependency points from exec/ to the core.  It is bound at link time, not
 * through a table installed at run time, because the hot path crosses it on
 * every task (queue a ready task, wake a worker, find the running worker):
 * no indirect call beyond the policy's push and pop.  tests/layering.sh checks
 * that the core uses no symbol of exec/ that this header does not declare.
 *
 *   the worker record   one per thread that runs tasks (CPU workers, then one
 *                       per executor of the layers above, e.g. a CUDA
 *                       worker): its deque, object caches, statistics, the
 *                       context of the task it runs, held epoch count-downs.
 *   waking and helping  a queued task is made visible to sleeping workers
 *                       (wake); a thread that waits runs tasks meanwhile
 *                       (help_until, help_throttle) and learns of a deadlock.
 *   policies            TAMM_SCHED: where a ready task is queued and which
 *                       task an idle worker takes (tamm__sched_ops).
 */
#ifndef TAMM_EXECUTOR_H
#define TAMM_EXECUTOR_H

#include "dag.h"
#include "deque.h"
#include "pool.h"
#include "task.h"
#include <pthread.h>
#include <stdint.h>

/* A recorded event (TAMM_TRACE / TAMM_DAG; trace.h): a task on a CPU worker, a
 * task or write-back batch on a GPU stream, a host-device copy. */
typedef enum { TAMM_TEV_TASK = 0, TAMM_TEV_GPU_TASK, TAMM_TEV_GPU_FLUSH, TAMM_TEV_COPY } tamm__tev_kind;
typedef struct tamm__trace_ev {
    uint64_t id, t0, t1;   /* the task (0: none); start and end, ns */
    uint64_t bytes;        /* a copy's */
    char *name;            /* a copy's ("H2D A[3]", malloc'd); NULL otherwise */
    int kind;              /* tamm__tev_kind */
    int track;             /* GPU events: the stream (-1: the copy stream) */
} tamm__trace_ev;

typedef struct tamm__worker {
    int id;
    pthread_t thread;
    tamm__deque dq;
    uint64_t rng;
    tamm__pool_cache task_cache, epoch_cache;
    tamm__buf_cache bufs;
    /* statistics (written by the owner; read at finalize) */
    atomic_ullong ntasks;
    atomic_long top_done;      /* top-level tasks completed on this worker */
    atomic_ullong nsubmitted;  /* tasks submitted from this worker (statistics) */
    uint64_t busy_ns, idle_ns, nsteals, nsleeps;
    uint64_t nlate; /* waits that ended by their slice's timeout with their condition met (TAMM_STATS) */
    /* trace events (only when tracing) */
    tamm__trace_ev *ev;
    size_t nev, capev;
    tamm_ctx *cur_ctx;         /* context of the task running on this worker */
    tamm__held held;            /* epoch count-downs held back (CPU workers; dag.h) */
    int steal_min;             /* work stealing takes from a deque holding at least this many (0 or 1: any) */
    int wait_depth;            /* taskwaits of task functions under way on this worker, nested */
} __attribute__((aligned(TAMM_CACHELINE))) tamm__worker;

extern _Thread_local tamm__worker *tamm__tls_worker;

/* How deep taskwaits of task functions may nest on one worker's stack (each
 * waiting task runs other tasks on top of its own frames). */
#define TAMM_MAX_TASKWAIT_DEPTH 512

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
void tamm__help_throttle(tamm__worker *w, long pending, long lim);
/** Apply the epoch count-downs w holds: before w leaves the runtime or waits. */
static inline void tamm__worker_flush(tamm__worker *w)
{
    if (w->held.epoch) tamm__dag_flush(&w->held);
}

/* ------------------------------------------------------------------ */
/* scheduling policies (TAMM_SCHED; exec/sched_*.c): where a ready task is
 * queued and which task an idle worker takes.
 *   ws   locality-aware work stealing (default): LIFO on the worker that made
 *        the task ready, FIFO steals from random victims; tasks with a
 *        priority above 0 in a shared priority queue served first;
 *   fifo eager central FIFO queue;
 *   prio central priority queue (highest priority first, FIFO among equals).
 * ------------------------------------------------------------------ */
typedef struct tamm__sched_ops {
    const char *name;
    void (*init)(int nworkers);
    void (*fini)(void);
    /** Queue a ready task; w is the calling worker (NULL: not a worker thread). */
    void (*push)(struct tamm__worker *w, tamm__task_s *t);
    /** Take a task for worker w, or NULL. */
    tamm__task_s *(*pop)(struct tamm__worker *w);
    /** Approximately: nothing is queued anywhere. */
    int (*empty)(void);
} tamm__sched_ops;

extern const tamm__sched_ops tamm__sched_ws, tamm__sched_fifo, tamm__sched_prio;

#endif
