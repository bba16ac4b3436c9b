/* fence.c — user fences (see fence.h) and their public API. */
#include "fence.h"
#include "divert.h"
#include "scope.h"
#include "executor.h"
#include "error.h"
#include "runtime.h"
#include "task.h"
#include "stuck.h"
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static tamm_fence *live;
static int ncreated; /* fences created since tamm_init: their numbers in messages */

tamm_fence *tamm_fence_create(void)
{
    if (!tamm__rt.initialised) return NULL;
    tamm_fence *f = tamm__xcalloc(1, sizeof *f);
    tamm__spin_init(&f->lock);
    pthread_mutex_lock(&live_lock);
    f->next_live = live;
    f->num = ++ncreated;
    live = f;
    pthread_mutex_unlock(&live_lock);
    if (tamm__fence_filter) tamm__fence_filter->created(f);
    return f;
}

int tamm__fence_add_waiter(tamm_fence *f, tamm__task_s *t)
{
    tamm__spin_lock(&f->lock);
    if (f->signalled) {
        tamm__spin_unlock(&f->lock);
        return 0;
    }
    if (f->nw == f->capw) {
        f->capw = f->capw ? f->capw * 2 : 4;
        f->waiters = tamm__xrealloc(f->waiters, (size_t)f->capw * sizeof *f->waiters);
    }
    f->waiters[f->nw++] = t;
    atomic_fetch_add(&t->deps, 1);
    tamm__spin_unlock(&f->lock);
    return 1;
}

void tamm__fence_add_signaller(tamm_fence *f)
{
    tamm__spin_lock(&f->lock);
    f->registered++;
    if (f->pending++ == 0) f->signalled = 0; /* re-armed by a new signaller */
    tamm__spin_unlock(&f->lock);
}

void tamm__fence_signal(tamm_fence *f)
{
    tamm__spin_lock(&f->lock);
    int fire = --f->pending == 0;
    tamm__task_s **w = NULL;
    int n = 0;
    if (fire) {
        f->signalled = 1;
        w = f->waiters;
        n = f->nw;
        f->waiters = NULL;
        f->nw = f->capw = 0;
    }
    tamm__spin_unlock(&f->lock);
    for (int i = 0; i < n; i++) tamm__task_dep_satisfied(w[i]);
    free(w);
    if (fire) tamm__wake_all();
}

static int fence_reached(void *arg)
{
    tamm_fence *f = arg;
    tamm__spin_lock(&f->lock);
    int s = f->signalled;
    tamm__spin_unlock(&f->lock);
    return s;
}

static int fence_wait(tamm_fence *f);
int tamm_fence_wait(tamm_fence *f)
{
    int rc = fence_wait(f);
    if (rc) tamm__error_seen(); /* a wait the program called returned it */
    return rc;
}

static int fence_wait(tamm_fence *f)
{
    if (!tamm__rt.initialised) return TAMM_ESTATE;
    tamm__worker *w = tamm__self();
    if (w && w->cur_ctx) /* a task never blocks its worker (docs/language.md "Taskwait and continuations") */
        return tamm__error(w->cur_ctx->task, TAMM_ESTATE, "tamm_fence_wait inside a task: a task never blocks its "
                                                         "worker; give the task a wait(f) clause instead");
    if (!f) return tamm__error(NULL, TAMM_EINVAL, "tamm_fence_wait(NULL)");
    if (TAMM_UNLIKELY(tamm__submit_divert) && w) (void)tamm__scope_flush(); /* kept streaming tasks */
    if (tamm__fence_filter) tamm__fence_filter->wait(f); /* signallers on other ranks tell this one */
    tamm__spin_lock(&f->lock);
    int none = f->registered == 0;
    tamm__spin_unlock(&f->lock);
    if (none)
        return tamm__error(NULL, TAMM_EDEADLOCK, "tamm_fence_wait on a fence that no submitted task signals");
    int rc = tamm__help_until(fence_reached, f);
    tamm__deadlock_detail(rc);
    if (rc) return tamm__error(NULL, rc, "tamm_fence_wait: the tasks that signal the fence can never run");
    return tamm__error_take();
}

int tamm_fence_destroy(tamm_fence *f)
{
    if (!f) return TAMM_EINVAL;
    tamm__spin_lock(&f->lock);
    int busy = f->pending > 0 || f->nw > 0;
    tamm__spin_unlock(&f->lock);
    if (busy) {
        int rc = tamm__help_until(fence_reached, f);
        tamm__deadlock_detail(rc);
        if (rc) return tamm__error(NULL, rc, "tamm_fence_destroy: tasks still wait on the fence and can never run");
    }
    pthread_mutex_lock(&live_lock);
    for (tamm_fence **p = &live; *p; p = &(*p)->next_live)
        if (*p == f) { *p = f->next_live; break; }
    pthread_mutex_unlock(&live_lock);
    free(f->waiters);
    free(f->flow);
    if (f->mine) { free(f->mine->waiters); free(f->mine); }
    free(f);
    return TAMM_OK;
}

void tamm__fence_free_all(void)
{
    pthread_mutex_lock(&live_lock);
    while (live) {
        tamm_fence *n = live->next_live;
        free(live->waiters);
        free(live->flow);
        if (live->mine) { free(live->mine->waiters); free(live->mine); }
        free(live);
        live = n;
    }
    ncreated = 0;
    pthread_mutex_unlock(&live_lock);
}

int tamm__fence_waited_by(const tamm__task_s *t, char *buf, size_t n, tamm_fence **f_out)
{
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (tamm_fence *f = live; f && !found; f = f->next_live) {
        tamm__spin_lock(&f->lock);
        for (int i = 0; i < f->nw && !found; i++)
            if (f->waiters[i] == t) {
                found = 1;
                *f_out = f;
                if (!f->registered)
                    snprintf(buf, n, "fence #%d, which no task signals", f->num);
                else
                    snprintf(buf, n, "fence #%d, which %d task%s still %s to signal", f->num, f->pending,
                             f->pending == 1 ? "" : "s", f->pending == 1 ? "has" : "have");
            }
        tamm__spin_unlock(&f->lock);
    }
    pthread_mutex_unlock(&live_lock);
    return found;
}

/* ------------------------------------------------------------------ */
/* execution fences (fence.h)                                           */
/* ------------------------------------------------------------------ */
struct tamm__xfence {
    tamm_fence gate;               /* what the tasks after it wait for; signalled when it fires */
    long target;                   /* top-level tasks submitted before it */
    int reached;                   /* (xf_lock) its count was reached: agreement under way, or fired */
    struct tamm__xfence *next;      /* (xf_lock) the queue of fences not yet fired, oldest first */
    struct tamm__xfence *all_next;  /* (top-level thread) every fence not yet freed */
};

tamm_fence *tamm__xf_gate;
static pthread_mutex_t xf_lock = PTHREAD_MUTEX_INITIALIZER;
static tamm__xfence *xf_head, *xf_tail;
static atomic_long xf_target;      /* the armed fence's target */
static tamm__xfence *xf_all;

/* Top-level tasks completed: the per-worker counts (as tamm__top_pending). */
static long top_done_sum(void)
{
    long done = 0;
    for (int i = 0; i < tamm__rt.nthreads; i++)
        done += atomic_load_explicit(&tamm__rt.workers[i].top_done, memory_order_acquire);
    return done;
}

static void xf_arm(tamm__xfence *x) /* under xf_lock */
{
    atomic_store_explicit(&xf_target, x->target, memory_order_relaxed);
    atomic_store_explicit(&tamm__rt.xf_armed, 1, memory_order_seq_cst);
}

/* Every rank has reached x: the tasks after it may start; arm the next. */
static void xf_fire(tamm__xfence *x)
{
    pthread_mutex_lock(&xf_lock);
    xf_head = x->next;
    if (!xf_head) xf_tail = NULL;
    tamm__xfence *n = xf_head;
    if (n) xf_arm(n);
    pthread_mutex_unlock(&xf_lock);
    tamm__fence_signal(&x->gate); /* x may be freed from here on (by the top-level thread) */
    if (n) tamm__xfence_poll();
}

const tamm__fence_filter_t *tamm__fence_filter;

void tamm__xfence_agreed(tamm__xfence *x) { xf_fire(x); }

void tamm__xfence_poll(void)
{
    /* pairs with the fence of the thread that armed it (after its store of
     * xf_armed): either it sees this thread's completion count, or this
     * thread sees the fence armed */
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&tamm__rt.xf_armed, memory_order_relaxed)) return;
    long target = atomic_load_explicit(&xf_target, memory_order_relaxed);
    if (top_done_sum() < target) return;
    pthread_mutex_lock(&xf_lock);
    tamm__xfence *x = xf_head;
    if (!x || x->reached || x->target != target) { /* another thread got there first */
        pthread_mutex_unlock(&xf_lock);
        return;
    }
    x->reached = 1;
    atomic_store_explicit(&tamm__rt.xf_armed, 0, memory_order_relaxed);
    pthread_mutex_unlock(&xf_lock);
    if (tamm__fence_filter) { /* several ranks: fire when every rank has reached it */
        tamm__fence_filter->reached(x);
    } else {
        xf_fire(x);
    }
}

int tamm__xfence_fired(tamm__xfence *x) { return fence_reached(&x->gate); }

int tamm__xfence_all_fired(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&xf_lock);
    int none = xf_head == NULL;
    pthread_mutex_unlock(&xf_lock);
    return none;
}

/* Free the fences that have fired and no longer gate submissions. */
static void xf_sweep(int all)
{
    for (tamm__xfence **p = &xf_all; *p;) {
        tamm__xfence *x = *p;
        if (all || (&x->gate != tamm__xf_gate && tamm__xfence_fired(x))) {
            *p = x->all_next;
            free(x->gate.waiters);
            free(x);
        } else {
            p = &x->all_next;
        }
    }
}

tamm__xfence *tamm__xfence_new(void)
{
    xf_sweep(0);
    /* several ranks: open accumulation runs close before it (their messages
     * are tasks before it), and it is an event of the stream */
    if (tamm__fence_filter) tamm__fence_filter->xfence();
    tamm__xfence *x = tamm__xcalloc(1, sizeof *x);
    tamm__spin_init(&x->gate.lock);
    x->gate.registered = x->gate.pending = 1;
    x->target = atomic_load_explicit(&tamm__rt.top_submitted, memory_order_relaxed);
    x->all_next = xf_all;
    xf_all = x;
    pthread_mutex_lock(&xf_lock);
    int arm = xf_head == NULL;
    if (arm) xf_head = x;
    else xf_tail->next = x;
    xf_tail = x;
    if (arm) xf_arm(x);
    pthread_mutex_unlock(&xf_lock);
    tamm__xf_gate = &x->gate;
    if (arm) tamm__xfence_poll(); /* everything before it may have completed already */
    return x;
}

void tamm__xfence_gate(tamm__task_s *t)
{
    if (!tamm__fence_add_waiter(tamm__xf_gate, t)) tamm__xf_gate = NULL; /* it has fired */
}

void tamm__xfence_reset(void)
{
    pthread_mutex_lock(&xf_lock);
    xf_head = xf_tail = NULL;
    atomic_store(&xf_target, 0);
    pthread_mutex_unlock(&xf_lock);
    tamm__xf_gate = NULL;
    xf_sweep(1);
}
