/*
 * stuck.c — what a deadlock report says: each task that can never run, and
 * what it waits for (a fence, a block held by an earlier task, its earlier
 * siblings, its children).
 *
 * Called only when the help loop has found every worker idle with nothing
 * queued (TAMM_EDEADLOCK), so nothing moves while it looks.  There is no list
 * of live tasks (keeping one would cost every submission and completion): the
 * report walks the task pool's slabs, which start zeroed.  A task that waits
 * has start conditions left (0 < deps < TAMM_DEPS_GUARD; finished tasks and
 * unused objects have 0, a task freed by a failed submission the guard); a
 * task whose body has returned, or that runs a taskwait, but whose children
 * have not completed has deps 0 and pending >= 1 (nothing else runs).  The acquire loads of those
 * counters order the reads of the task's other fields after their writes.
 */
#include "dag.h"
#include "error.h"
#include "fence.h"
#include "runtime.h"
#include "stuck.h"
#include "task.h"
#include "tensor.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LISTED 20

typedef struct {
    tamm__task_s **v;
    int n, cap;
} tvec;

static void collect(void *obj, void *arg)
{
    tvec *s = arg;
    tamm__task_s *t = obj;
    int deps = atomic_load_explicit(&t->deps, memory_order_acquire);
    int pending = atomic_load_explicit(&t->pending, memory_order_acquire);
    if (!((deps > 0 && deps < TAMM_DEPS_GUARD) || (deps == 0 && pending >= 1))) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = tamm__xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
    }
    s->v[s->n++] = t;
}

typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static void add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = (b->n + (size_t)k + 1) * 2;
        b->s = tamm__xrealloc(b->s, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

/* "task 'label' (file:line)", "task 'label'", or the top level's wait */
static void name_task(sbuf *b, const tamm__task_s *t)
{
    if (t->flags & TAMM_TF_SENTINEL) {
        add(b, "the top level's %s", t->label ? t->label : "wait");
        return;
    }
    add(b, "task '%s'", t->label ? t->label : "(unlabelled)");
    if (t->file) add(b, " (%s:%d)", t->file, t->line);
}

/* "block A[1][2]" (the tensor's creation name) or "the whole tensor 'A'" */
static void name_block(sbuf *b, const tamm_tensor *T, long lin)
{
    if (lin < 0) {
        add(b, "the whole tensor '%s'", T->name);
        return;
    }
    long idx[TAMM_MAX_DIMS];
    tamm__block_idx(T, lin, idx);
    add(b, "block %s", T->name);
    for (int d = 0; d < T->ndim; d++) add(b, "[%ld]", idx[d]);
}

/* the stuck task (other than t) in the epoch just before d's, or NULL */
static const tamm__task_s *holder(const tvec *s, const tamm__task_s *t, const tamm__dep *d)
{
    for (int i = 0; i < s->n; i++) {
        const tamm__task_s *u = s->v[i];
        if (u == t) continue;
        for (int k = 0; k < u->ndep; k++)
            if (u->dep[k].T == d->T && tamm__dag_dep_follows(d, &u->dep[k])) return u;
    }
    return NULL;
}

/* a stuck task that signals f, or NULL */
static const tamm__task_s *signaller(const tvec *s, const tamm_fence *f)
{
    for (int i = 0; i < s->n; i++) {
        const tamm__task_s *u = s->v[i];
        if (!(u->flags & TAMM_TF_SIGNALS)) continue;
        for (int k = 0; k < u->nsignal; k++)
            if (u->signal[k] == f) return u;
    }
    return NULL;
}

/* One line: the task and everything it is known to wait for. */
static void describe(sbuf *b, const tvec *s, const tamm__task_s *t)
{
    add(b, "  ");
    name_task(b, t);
    int deps = atomic_load_explicit(&t->deps, memory_order_acquire);
    if (deps == 0) { /* its start conditions are met: it waits for its children */
        int kids = 0;
        for (int i = 0; i < s->n; i++) kids += s->v[i]->parent == t;
        if (kids) add(b, " waits for its %d stuck child task%s\n", kids, kids == 1 ? "" : "s");
        else add(b, " waits for its child tasks\n");
        return;
    }
    int said = 0;
    char fb[160];
    tamm_fence *f = NULL;
    if (tamm__fence_waited_by(t, fb, sizeof fb, &f)) {
        add(b, " waits for %s", fb);
        const tamm__task_s *u = signaller(s, f);
        if (u) {
            add(b, " (");
            name_task(b, u);
            add(b, ", which is stuck too)");
        }
        said = 1;
    }
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (tamm__dag_dep_started(d)) continue;
        add(b, said ? "; for " : " waits for ");
        name_block(b, d->T, d->lin);
        const tamm__task_s *u = holder(s, t, d);
        if (u) {
            add(b, ", held until ");
            name_task(b, u);
            add(b, " completes");
        } else {
            add(b, ", which earlier tasks still hold");
        }
        said = 1;
    }
    if ((t->flags & TAMM_TF_CONT) && t->parent &&
        atomic_load_explicit(&t->parent->cont, memory_order_acquire) == t) {
        add(b, said ? "; for " : " waits for ");
        add(b, "the tasks that ");
        name_task(b, t->parent);
        add(b, " submitted before this continuation (a taskwait)");
        said = 1;
    }
    if (!said) add(b, " waits for a condition no task on this rank can satisfy");
    add(b, "\n");
}

/* the order of the list: tasks that wait for fences (the usual root cause)
 * first, then the others, then parents waiting for children */
static int rank_of(const tamm__task_s *t)
{
    if (atomic_load_explicit(&t->deps, memory_order_acquire) == 0) return 2;
    char fb[160];
    tamm_fence *f;
    return tamm__fence_waited_by(t, fb, sizeof fb, &f) ? 0 : 1;
}

char *tamm__stuck_report(void)
{
    tvec s = { 0 };
    tamm__pool_each(&tamm__rt.task_pool, collect, &s);
    if (!s.n) {
        free(s.v);
        return NULL;
    }
    sbuf b = { 0 };
    add(&b, "  the %d stuck task%s and what %s for:\n", s.n, s.n == 1 ? "" : "s", s.n == 1 ? "it waits" : "they wait");
    int listed = 0;
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < s.n; i++)
            if (rank_of(s.v[i]) == r && listed++ < MAX_LISTED) describe(&b, &s, s.v[i]);
    if (s.n > MAX_LISTED) add(&b, "  ... and %d more\n", s.n - MAX_LISTED);
    free(s.v);
    return b.s;
}

void tamm__deadlock_detail(int rc)
{
    if (rc == TAMM_EDEADLOCK) tamm__error_detail(tamm__stuck_report());
}
