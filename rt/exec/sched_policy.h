/*
 * sched_policy.h — pluggable scheduling policies (TAMM_SCHED): where a ready task is
 * queued and which task an idle worker takes.
 *   ws   locality-aware work stealing (default): LIFO on the worker that made
 *        the task ready, FIFO steals from random victims; tasks with a
 *        priority above 0 in a shared priority queue served first;
 *   fifo eager central FIFO queue;
 *   prio central priority queue (highest priority first, FIFO among equals).
 */
#ifndef TAMM_SCHED_POLICY_H
#define TAMM_SCHED_POLICY_H

#include "task.h"

struct tamm_worker;

typedef struct tamm_sched_ops {
    const char *name;
    void (*init)(int nworkers);
    void (*fini)(void);
    /** Queue a ready task; w is the calling worker (NULL: not a worker thread). */
    void (*push)(struct tamm_worker *w, tamm_task_s *t);
    /** Take a task for worker w, or NULL. */
    tamm_task_s *(*pop)(struct tamm_worker *w);
    /** Approximately: nothing is queued anywhere. */
    int (*empty)(void);
} tamm_sched_ops;

extern const tamm_sched_ops tamm__sched_ws, tamm__sched_fifo, tamm__sched_prio;

#endif
