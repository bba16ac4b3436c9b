/* sched_prio.c — central priority queue: the ready task with the highest
 * priority runs first; equal priorities run in the order they became ready. */
#include "prioq.h"
#include "runtime.h"
#include "executor.h"

static tamm__prioq q = TAMM_PRIOQ_INIT;

static void prio_init(int nw) { (void)nw; tamm__prioq_reset(&q); }
static void prio_fini(void) { tamm__prioq_free(&q); }
static void prio_push(tamm__worker *w, tamm__task_s *t) { (void)w; tamm__prioq_push(&q, t); }
static tamm__task_s *prio_pop(tamm__worker *w) { (void)w; return tamm__prioq_pop(&q); }
static int prio_empty(void) { return tamm__prioq_empty(&q); }

const tamm__sched_ops tamm__sched_prio = { "prio", prio_init, prio_fini, prio_push, prio_pop, prio_empty };
