/*
 * prioq.h — a locked binary heap of ready tasks: the highest priority first,
 * equal priorities in the order they were pushed.  The queue of the prio
 * policy, and the work-stealing policy's queue for tasks with a priority.
 */
#ifndef TAMM_PRIOQ_H
#define TAMM_PRIOQ_H

#include "task.h"
#include <pthread.h>

typedef struct tamm__prioq_ent tamm__prioq_ent;

typedef struct tamm__prioq {
    pthread_mutex_t lock;
    tamm__prioq_ent *heap;
    size_t n, cap;
    uint64_t seq;               /* push order, for FIFO among equal priorities */
    atomic_long count;          /* read without the lock to skip an empty queue */
} tamm__prioq;

#define TAMM_PRIOQ_INIT { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0 }

/** Empty the queue (tasks in it are forgotten, its memory kept). */
void tamm__prioq_reset(tamm__prioq *q);
/** Free the queue's memory. */
void tamm__prioq_free(tamm__prioq *q);
/** Queue t by t->priority. */
void tamm__prioq_push(tamm__prioq *q, tamm__task_s *t);
/** Approximately (without the lock): the number of queued tasks. */
static inline long tamm__prioq_count(tamm__prioq *q)
{
    return atomic_load_explicit(&q->count, memory_order_relaxed);
}
/** Under the lock: the first task, or NULL if the queue is empty. */
tamm__task_s *tamm__prioq_take(tamm__prioq *q);
/** The first task, or NULL if the queue is empty; an empty queue costs one
 *  read of its count (no call, no lock: the work-stealing policy asks on
 *  every pop). */
static inline tamm__task_s *tamm__prioq_pop(tamm__prioq *q)
{
    return tamm__prioq_count(q) ? tamm__prioq_take(q) : NULL;
}

/** Nothing is queued (a sequentially consistent read, for the idle checks). */
static inline int tamm__prioq_empty(tamm__prioq *q) { return atomic_load(&q->count) == 0; }

#endif
