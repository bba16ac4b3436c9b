/* fence.c — user fences (see fence.h) and their public API. */
#include "fence.h"
#include "worker.h"
#include "error.h"
#include "mpi_flow.h"
#include "runtime.h"
#include "task.h"
#include <stdio.h>
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
    if (tamm__flow_on) tamm__flow_fence_created(f);
    return f;
}

int tamm__fence_add_waiter(tamm_fence *f, tamm_task_s *t)
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
    tamm_task_s **w = NULL;
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
    tamm_worker *w = tamm__self();
    if (w && w->cur_ctx) /* SPEC 8: a task never blocks its worker */
        return tamm__error(w->cur_ctx->task, TAMM_ESTATE, "tamm_fence_wait inside a task: a task never blocks its "
                                                         "worker; give the task a wait(f) clause instead");
    if (!f) return tamm__error(NULL, TAMM_EINVAL, "tamm_fence_wait(NULL)");
    if (tamm__flow_on) tamm__flow_fence_wait(f); /* signallers on other ranks tell this one */
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

int tamm__fence_waited_by(const tamm_task_s *t, char *buf, size_t n, tamm_fence **f_out)
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
