/* prioq.c — the locked priority heap of ready tasks (prioq.h). */
#include "prioq.h"
#include "util.h"
#include <stdlib.h>

struct tamm__prioq_ent { tamm__task_s *t; int prio; uint64_t seq; };

static int before(const tamm__prioq_ent *a, const tamm__prioq_ent *b)
{
    return a->prio > b->prio || (a->prio == b->prio && a->seq < b->seq);
}

void tamm__prioq_reset(tamm__prioq *q)
{
    q->n = 0;
    q->seq = 0;
    atomic_store(&q->count, 0);
}

void tamm__prioq_free(tamm__prioq *q)
{
    free(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
    atomic_store(&q->count, 0);
}

void tamm__prioq_push(tamm__prioq *q, tamm__task_s *t)
{
    pthread_mutex_lock(&q->lock);
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 1024;
        q->heap = tamm__xrealloc(q->heap, q->cap * sizeof *q->heap);
    }
    size_t i = q->n++;
    tamm__prioq_ent e = { t, t->priority, q->seq++ };
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &q->heap[p])) break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = e;
    atomic_fetch_add(&q->count, 1);
    pthread_mutex_unlock(&q->lock);
}

tamm__task_s *tamm__prioq_take(tamm__prioq *q)
{
    pthread_mutex_lock(&q->lock);
    tamm__task_s *t = NULL;
    if (q->n > 0) {
        t = q->heap[0].t;
        tamm__prioq_ent last = q->heap[--q->n];
        size_t i = 0;
        for (;;) {
            size_t c = 2 * i + 1;
            if (c >= q->n) break;
            if (c + 1 < q->n && before(&q->heap[c + 1], &q->heap[c])) c++;
            if (!before(&q->heap[c], &last)) break;
            q->heap[i] = q->heap[c];
            i = c;
        }
        if (q->n > 0) q->heap[i] = last;
        atomic_fetch_sub(&q->count, 1);
    }
    pthread_mutex_unlock(&q->lock);
    return t;
}
