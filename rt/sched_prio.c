/* sched_prio.c — central priority queue: the ready task with the highest
 * priority runs first; equal priorities run in the order they became ready. */
#include "runtime.h"
#include "sched_policy.h"
#include <pthread.h>
#include <stdlib.h>

typedef struct { tamm_task_s *t; int prio; uint64_t seq; } ent;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ent *heap;
static size_t n, cap;
static uint64_t seq;
static atomic_long count;

static int before(const ent *a, const ent *b) { return a->prio > b->prio || (a->prio == b->prio && a->seq < b->seq); }

static void prio_init(int nw) { (void)nw; n = 0; seq = 0; atomic_store(&count, 0); }
static void prio_fini(void) { free(heap); heap = NULL; n = cap = 0; }

static void prio_push(tamm_worker *w, tamm_task_s *t)
{
    (void)w;
    pthread_mutex_lock(&lock);
    if (n == cap) {
        cap = cap ? cap * 2 : 1024;
        heap = tamm__xrealloc(heap, cap * sizeof *heap);
    }
    size_t i = n++;
    ent e = { t, t->priority, seq++ };
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &heap[p])) break;
        heap[i] = heap[p];
        i = p;
    }
    heap[i] = e;
    atomic_fetch_add(&count, 1);
    pthread_mutex_unlock(&lock);
}

static tamm_task_s *prio_pop(tamm_worker *w)
{
    (void)w;
    if (atomic_load_explicit(&count, memory_order_relaxed) == 0) return NULL;
    pthread_mutex_lock(&lock);
    tamm_task_s *t = NULL;
    if (n > 0) {
        t = heap[0].t;
        ent last = heap[--n];
        size_t i = 0;
        for (;;) {
            size_t c = 2 * i + 1;
            if (c >= n) break;
            if (c + 1 < n && before(&heap[c + 1], &heap[c])) c++;
            if (!before(&heap[c], &last)) break;
            heap[i] = heap[c];
            i = c;
        }
        if (n > 0) heap[i] = last;
        atomic_fetch_sub(&count, 1);
    }
    pthread_mutex_unlock(&lock);
    return t;
}

static int prio_empty(void) { return atomic_load(&count) == 0; }

const tamm_sched_ops tamm__sched_prio = { "prio", prio_init, prio_fini, prio_push, prio_pop, prio_empty };
