/* sched_ws.c — locality-aware work stealing, the default policy: a task made
 * ready by a worker goes to that worker's deque (LIFO: its data is in cache);
 * idle workers steal the oldest tasks of a random victim, half of its deque
 * up to a batch at a time.  Tasks with a priority above 0 (the priority
 * clause: the critical path of a factorisation) go to one shared priority
 * queue instead, which every worker serves before its deque. */
#include "prioq.h"
#include "runtime.h"
#include "executor.h"
#include "taskq.h"

static tamm__taskq inject = TAMM_TASKQ_INIT; /* tasks made ready outside a worker */
static tamm__prioq urgent = TAMM_PRIOQ_INIT; /* ready tasks with priority > 0 */

static void ws_init(int n) { (void)n; tamm__taskq_reset(&inject); tamm__prioq_reset(&urgent); }
static void ws_fini(void) { tamm__prioq_free(&urgent); }

static void ws_push(tamm__worker *w, tamm__task_s *t)
{
    if (TAMM_UNLIKELY(t->priority > 0)) {
        tamm__prioq_push(&urgent, t);
        return;
    }
    if (TAMM_LIKELY(w != NULL)) {
        tamm__deque_push(&w->dq, t);
        return;
    }
    tamm__taskq_push(&inject, t);
}

static inline uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return *s = x;
}

static tamm__task_s *ws_pop(tamm__worker *w)
{
    tamm__task_s *t = tamm__prioq_pop(&urgent);
    if (TAMM_UNLIKELY(t != NULL)) return t;
    t = tamm__deque_pop(&w->dq);
    if (t) return t;
    int n = tamm__rt.nworkers;
    if (n > 1) {
        int start = (int)(xorshift(&w->rng) % (uint64_t)n);
        for (int k = 0; k < n; k++) {
            int v = (start + k) % n;
            if (v == w->id) continue;
            if (TAMM_UNLIKELY(w->steal_min > 1) && tamm__deque_size(&tamm__rt.workers[v].dq) < w->steal_min)
                continue; /* the submission throttle leaves lone tasks to their worker */
            tamm__task_s *got[TAMM_DEQUE_BATCH];
            int ngot = tamm__deque_steal_batch(&tamm__rt.workers[v].dq, got, TAMM_DEQUE_BATCH);
            if (ngot) {
                /* run the oldest; the others go to w's deque (where thieves can
                 * still take them), newest first so that w pops them in order,
                 * and their records start moving to this core now */
                w->nsteals++;
                for (int i = ngot - 1; i >= 0; i--) {
                    tamm__task_prefetch(got[i]);
                    if (i) tamm__deque_push(&w->dq, got[i]);
                }
                return got[0];
            }
        }
    }
    return tamm__taskq_pop(&inject);
}

static int ws_empty(void)
{
    for (int i = 0; i < tamm__rt.nworkers; i++)
        if (tamm__deque_size(&tamm__rt.workers[i].dq) > 0) return 0;
    return tamm__taskq_empty(&inject) && tamm__prioq_empty(&urgent);
}

const tamm__sched_ops tamm__sched_ws = { "ws", ws_init, ws_fini, ws_push, ws_pop, ws_empty };
