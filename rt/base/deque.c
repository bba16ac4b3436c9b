/* deque.c — Chase-Lev work-stealing deque (see deque.h). */
#include "deque.h"
#include "util.h"
#include <stdlib.h>

static tamm__deque_arr *arr_new(size_t cap)
{
    tamm__deque_arr *a = tamm__xmalloc(sizeof *a + cap * sizeof(a->slot[0]));
    a->mask = cap - 1;
    a->older = NULL;
    for (size_t i = 0; i < cap; i++)
        atomic_init(&a->slot[i], NULL);
    return a;
}

void tamm__deque_init(tamm__deque *q, size_t cap)
{
    atomic_init(&q->top, 0);
    atomic_init(&q->bottom, 0);
    atomic_init(&q->arr, arr_new(cap));
    q->top_seen = 0;
}

void tamm__deque_destroy(tamm__deque *q)
{
    tamm__deque_arr *a = atomic_load(&q->arr);
    while (a) {
        tamm__deque_arr *o = a->older;
        free(a);
        a = o;
    }
    atomic_store(&q->arr, NULL);
}

void tamm__deque_push(tamm__deque *q, struct tamm__task_s *t)
{
    long b = atomic_load_explicit(&q->bottom, memory_order_relaxed);
    tamm__deque_arr *a = atomic_load_explicit(&q->arr, memory_order_relaxed);
    /* top only grows, so an old look that leaves room is enough (and keeps the
     * owner off the line the thieves write) */
    long tp = q->top_seen;
    if (TAMM_UNLIKELY(b - tp > (long)a->mask))
        q->top_seen = tp = atomic_load_explicit(&q->top, memory_order_acquire);
    if (TAMM_UNLIKELY(b - tp > (long)a->mask)) {
        tamm__deque_arr *n = arr_new((a->mask + 1) * 2);
        for (long i = tp; i < b; i++)
            atomic_store_explicit(&n->slot[i & (long)n->mask],
                                  atomic_load_explicit(&a->slot[i & (long)a->mask], memory_order_relaxed),
                                  memory_order_relaxed);
        n->older = a;
        atomic_store_explicit(&q->arr, n, memory_order_release);
        a = n;
    }
    atomic_store_explicit(&a->slot[b & (long)a->mask], t, memory_order_relaxed);
    atomic_store_explicit(&q->bottom, b + 1, memory_order_release);
}

struct tamm__task_s *tamm__deque_pop(tamm__deque *q)
{
    tamm__deque_arr *a = atomic_load_explicit(&q->arr, memory_order_relaxed);
    for (;;) {
        long b = atomic_load_explicit(&q->bottom, memory_order_relaxed) - 1;
        atomic_store_explicit(&q->bottom, b, memory_order_seq_cst);
        long t = atomic_load_explicit(&q->top, memory_order_seq_cst);
        q->top_seen = t;
        if (TAMM_LIKELY(t + TAMM_DEQUE_BATCH <= b)) /* beyond any batch's reach */
            return atomic_load_explicit(&a->slot[b & (long)a->mask], memory_order_relaxed);
        atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
        if (t > b) return NULL; /* empty */
        /* within a batch's reach: take the oldest, as a thief would */
        struct tamm__task_s *x = atomic_load_explicit(&a->slot[t & (long)a->mask], memory_order_relaxed);
        if (atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1, memory_order_seq_cst,
                                                    memory_order_relaxed)) {
            q->top_seen = t + 1;
            return x;
        }
        /* a thief moved top: look again */
    }
}

int tamm__deque_steal_batch(tamm__deque *q, struct tamm__task_s **out, int max)
{
    long t = atomic_load_explicit(&q->top, memory_order_seq_cst);
    long b = atomic_load_explicit(&q->bottom, memory_order_seq_cst);
    if (t >= b)
        return 0;
    long n = (b - t + 1) / 2;
    if (n > max) n = max;
    if (n > TAMM_DEQUE_BATCH) n = TAMM_DEQUE_BATCH;
    tamm__deque_arr *a = atomic_load_explicit(&q->arr, memory_order_acquire);
    /* read before the claim: once top moves the owner may reuse the slots */
    for (long i = 0; i < n; i++)
        out[i] = atomic_load_explicit(&a->slot[(t + i) & (long)a->mask], memory_order_relaxed);
    if (!atomic_compare_exchange_strong_explicit(&q->top, &t, t + n, memory_order_seq_cst, memory_order_relaxed))
        return 0;
    return (int)n;
}

struct tamm__task_s *tamm__deque_steal(tamm__deque *q)
{
    struct tamm__task_s *x;
    return tamm__deque_steal_batch(q, &x, 1) ? x : NULL;
}

long tamm__deque_size(tamm__deque *q)
{
    long b = atomic_load_explicit(&q->bottom, memory_order_relaxed);
    long t = atomic_load_explicit(&q->top, memory_order_relaxed);
    return b > t ? b - t : 0;
}
