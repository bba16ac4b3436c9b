/* sched_ws.c — locality-aware work stealing, the default policy: a task made
 * ready by a worker goes to that worker's deque (LIFO: its data is in cache);
 * idle workers steal the oldest task of a random victim. */
#include "runtime.h"
#include "sched_policy.h"
#include <pthread.h>

static pthread_mutex_t inject_lock = PTHREAD_MUTEX_INITIALIZER;
static tamm_task_s *inject_head, *inject_tail;
static atomic_int inject_n;

static void ws_init(int n) { (void)n; inject_head = inject_tail = NULL; atomic_store(&inject_n, 0); }
static void ws_fini(void) {}

static void ws_push(tamm_worker *w, tamm_task_s *t)
{
    if (TAMM_LIKELY(w != NULL)) {
        tamm__deque_push(&w->dq, t);
        return;
    }
    t->next = NULL;
    pthread_mutex_lock(&inject_lock);
    if (inject_tail) inject_tail->next = t; else inject_head = t;
    inject_tail = t;
    atomic_fetch_add(&inject_n, 1);
    pthread_mutex_unlock(&inject_lock);
}

static inline uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return *s = x;
}

static tamm_task_s *ws_pop(tamm_worker *w)
{
    tamm_task_s *t = tamm__deque_pop(&w->dq);
    if (t) return t;
    int n = tamm__rt.nworkers;
    if (n > 1) {
        int start = (int)(xorshift(&w->rng) % (uint64_t)n);
        for (int k = 0; k < n; k++) {
            int v = (start + k) % n;
            if (v == w->id) continue;
            t = tamm__deque_steal(&tamm__rt.workers[v].dq);
            if (t) { w->nsteals++; return t; }
        }
    }
    if (atomic_load_explicit(&inject_n, memory_order_relaxed) > 0) {
        pthread_mutex_lock(&inject_lock);
        t = inject_head;
        if (t) {
            inject_head = t->next;
            if (!inject_head) inject_tail = NULL;
            atomic_fetch_sub(&inject_n, 1);
        }
        pthread_mutex_unlock(&inject_lock);
    }
    return t;
}

static int ws_empty(void)
{
    for (int i = 0; i < tamm__rt.nworkers; i++)
        if (tamm__deque_size(&tamm__rt.workers[i].dq) > 0) return 0;
    return atomic_load(&inject_n) == 0;
}

const tamm_sched_ops tamm__sched_ws = { "ws", ws_init, ws_fini, ws_push, ws_pop, ws_empty };
