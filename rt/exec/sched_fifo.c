/* sched_fifo.c — eager FIFO: one central queue, tasks run in the order they
 * became ready (StarPU's "eager"). */
#include "runtime.h"
#include "executor.h"
#include "taskq.h"

static tamm__taskq q = TAMM_TASKQ_INIT;

static void fifo_init(int n) { (void)n; tamm__taskq_reset(&q); }
static void fifo_fini(void) {}
static void fifo_push(tamm__worker *w, tamm__task_s *t) { (void)w; tamm__taskq_push(&q, t); }
static tamm__task_s *fifo_pop(tamm__worker *w) { (void)w; return tamm__taskq_pop(&q); }
static int fifo_empty(void) { return tamm__taskq_empty(&q); }

const tamm__sched_ops tamm__sched_fifo = { "fifo", fifo_init, fifo_fini, fifo_push, fifo_pop, fifo_empty };
