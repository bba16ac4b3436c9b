/* sched_fifo.c — eager FIFO: one central queue, tasks run in the order they
 * became ready (StarPU's "eager"). */
#include "runtime.h"
#include "sched_policy.h"
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tamm_task_s *head, *tail;
static atomic_long count;

static void fifo_init(int n) { (void)n; head = tail = NULL; atomic_store(&count, 0); }
static void fifo_fini(void) {}

static void fifo_push(tamm_worker *w, tamm_task_s *t)
{
    (void)w;
    t->next = NULL;
    pthread_mutex_lock(&lock);
    if (tail) tail->next = t; else head = t;
    tail = t;
    atomic_fetch_add(&count, 1);
    pthread_mutex_unlock(&lock);
}

static tamm_task_s *fifo_pop(tamm_worker *w)
{
    (void)w;
    if (atomic_load_explicit(&count, memory_order_relaxed) == 0) return NULL;
    pthread_mutex_lock(&lock);
    tamm_task_s *t = head;
    if (t) {
        head = t->next;
        if (!head) tail = NULL;
        atomic_fetch_sub(&count, 1);
    }
    pthread_mutex_unlock(&lock);
    return t;
}

static int fifo_empty(void) { return atomic_load(&count) == 0; }

const tamm_sched_ops tamm__sched_fifo = { "fifo", fifo_init, fifo_fini, fifo_push, fifo_pop, fifo_empty };
