/*
 * taskq.h — a locked FIFO of ready tasks, linked through tamm__task_s.next:
 * the eager FIFO policy's queue and the work-stealing policy's queue for tasks
 * made ready outside a worker.  Header-only.
 */
#ifndef TAMM_TASKQ_H
#define TAMM_TASKQ_H

#include "task.h"
#include <pthread.h>

typedef struct tamm__taskq {
    pthread_mutex_t lock;
    tamm__task_s *head, *tail;
    atomic_long n;              /* read without the lock to skip an empty queue */
} tamm__taskq;

#define TAMM_TASKQ_INIT { PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0 }

static inline void tamm__taskq_reset(tamm__taskq *q)
{
    q->head = q->tail = NULL;
    atomic_store(&q->n, 0);
}

static inline void tamm__taskq_push(tamm__taskq *q, tamm__task_s *t)
{
    t->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->tail) q->tail->next = t; else q->head = t;
    q->tail = t;
    atomic_fetch_add(&q->n, 1);
    pthread_mutex_unlock(&q->lock);
}

/* Queue t behind every task of its priority or a higher one and before the first of a lower
 * one: a FIFO when the priorities are equal (the tail is looked at first, so that case costs
 * what tamm__taskq_push costs); a CUDA worker's queue, whose tasks the GPU takes in order. */
static inline void tamm__taskq_push_prio(tamm__taskq *q, tamm__task_s *t)
{
    t->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (!q->tail || q->tail->priority >= t->priority) {
        if (q->tail) q->tail->next = t; else q->head = t;
        q->tail = t;
    } else if (q->head->priority < t->priority) {
        t->next = q->head;
        q->head = t;
    } else {
        tamm__task_s *p = q->head; /* the last task of t's priority or a higher one */
        while (p->next->priority >= t->priority) p = p->next;
        t->next = p->next;
        p->next = t;
    }
    atomic_fetch_add(&q->n, 1);
    pthread_mutex_unlock(&q->lock);
}

static inline tamm__task_s *tamm__taskq_pop(tamm__taskq *q)
{
    if (atomic_load_explicit(&q->n, memory_order_relaxed) == 0) return NULL;
    pthread_mutex_lock(&q->lock);
    tamm__task_s *t = q->head;
    if (t) {
        q->head = t->next;
        if (!q->head) q->tail = NULL;
        atomic_fetch_sub(&q->n, 1);
    }
    pthread_mutex_unlock(&q->lock);
    return t;
}

static inline int tamm__taskq_empty(tamm__taskq *q) { return atomic_load(&q->n) == 0; }

#endif
