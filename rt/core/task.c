/*
 * task.c — task submission (validation, permission checks against the
 * parent, dependence registration), readiness, running a variant, and
 * completion (leaving epochs, signalling fences, completing parents), and
 * continuations (see task.h).
 */
#include "task.h"
#include "buffer.h"
#include "error.h"
#include "fence.h"
#include "layer.h"
#include "memlimit.h"
#include "perm.h"
#include "divert.h"
#include "runtime.h"
#include "tensor.h"
#include "stuck.h"
#include "tamm_assert.h"
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* allocation                                                            */
/* ------------------------------------------------------------------ */
static tamm__task_s *task_alloc(void)
{
    tamm__worker *w = tamm__self();
    tamm__task_s *t = tamm__pool_get(&tamm__rt.task_pool, &w->task_cache);
    return t;
}

static void task_free(tamm__task_s *t)
{
    if (t->flags & TAMM_TF_HEAP_DEPS) free(t->dep);
    if (t->flags & TAMM_TF_HEAP_ARGS) free(t->args);
    if (t->flags & TAMM_TF_SIGNALS) free(t->signal);
    tamm__worker *w = tamm__self();
    tamm__pool_put(&tamm__rt.task_pool, &w->task_cache, t);
}

/* ------------------------------------------------------------------ */
/* errors: base/error.c is told the task's label and location           */
/* ------------------------------------------------------------------ */
int tamm__error(const tamm__task_s *t, int err, const char *fmt, ...)
{
    tamm__where where;
    if (t) {
        where.label = t->label;
        where.file = t->file;
        where.line = t->line;
    }
    va_list ap;
    va_start(ap, fmt);
    int rc = tamm__verror(t ? &where : NULL, err, fmt, ap);
    va_end(ap);
    return rc;
}

/* ------------------------------------------------------------------ */
/* permissions                                                           */
/* ------------------------------------------------------------------ */
tamm__dep *tamm__task_dep_for(tamm__task_s *t, const tamm_tensor *T, long lin)
{
    for (int i = 0; i < t->ndep; i++)
        if (t->dep[i].T == T && (t->dep[i].lin == lin || t->dep[i].lin < 0))
            return &t->dep[i];
    return NULL;
}

/* Does a parent's permission p allow a child's permission c? (the permission table) */
static int child_within(unsigned c, unsigned p)
{
    if ((c & TAMM_READ) && !(p & (TAMM_READ | TAMM_WRITE))) return 0;
    if ((c & TAMM_WRITE) && !(p & TAMM_WRITE)) return 0;
    if ((c & TAMM_ACCUM) && !(p & (TAMM_ACCUM | TAMM_WRITE))) return 0;
    return 1;
}

/* ------------------------------------------------------------------ */
/* validation                                                            */
/* ------------------------------------------------------------------ */
/* The indices of a ref that holds something other than block numbers in
 * range: each a block, TAMM_ALL or a valid TAMM_RANGE, else TAMM_ERANGE, in the
 * user's terms (tammcc passes the reference as written) for a block number
 * outside the tensor (out of line: check_ref is on the submission path of
 * every task). */
static TAMM_NOINLINE int check_indices(const tamm__task_s *t, const tamm_ref *r, int i, const char *const *texts)
{
    const char *src = texts ? texts[i] : NULL; /* tammcc's text of the ref (tamm_task.ref_text) */
    for (int d = 0; d < r->nidx; d++)
        if (!tamm__idx_valid(r->tensor, d, r->idx[d])) {
            if (r->idx[d] > -(1L << 60)) { /* a block number: the reference as written, or the ref's number */
                char what[32];
                snprintf(what, sizeof what, "ref %d: ", i);
                return tamm__range_error(t, src ? "" : what, r->tensor, r->idx, r->nidx, 1, src);
            }
            char why[200]; /* a malformed slice or range */
            return tamm__error(t, TAMM_ERANGE, "ref %d on '%s': %s", i, r->tensor->name,
                               tamm__idx_problem(r->tensor, d, r->idx[d], why, sizeof why));
        }
    return TAMM_OK;
}

/* A ref whose number of indices is not the tensor's number of dimensions; with
 * tammcc's text of the ref (a block fetched in a pragma body: tamm_block(A, i)
 * on a 2-D tensor), the block as written. */
static TAMM_NOINLINE int nidx_error(const tamm__task_s *t, const tamm_ref *r, int i, const char *const *texts)
{
    const tamm_tensor *T = r->tensor;
    const char *src = texts ? texts[i] : NULL;
    if (src)
        return tamm__error(t, TAMM_EINVAL, "block %s has %d ind%s, but the tensor '%s' has %d dimensions (write %d "
                           "indices, one per dimension)", src, r->nidx, r->nidx == 1 ? "ex" : "ices", T->name,
                           T->ndim, T->ndim);
    return tamm__error(t, TAMM_EINVAL, "ref %d on '%s' has %d indices, the tensor has %d dimensions (%d indices "
                       "expected, or 0 for the whole tensor)", i, T->name, r->nidx, T->ndim, T->ndim);
}

int tamm__valid_on(const tamm__task_s *where, int rank)
{
    int n = tamm__rt.nranks;
    if (rank >= -1 && rank < n) return TAMM_OK;
    return tamm__error(where, TAMM_EINVAL, "on(%d): the run has %d rank%s (0 to %d; -1: the owner of the first block "
                                           "written)", rank, n, n == 1 ? "" : "s", n - 1);
}

static int check_ref(const tamm__task_s *t, const tamm_ref *r, int i, const char *const *texts)
{
    int allow_destroyed = (t->flags & TAMM_TF_DESTROY) != 0;
    if (!r->tensor)
        return tamm__error(t, TAMM_EINVAL, "ref %d names no tensor (NULL)", i);
    const tamm_tensor *T = r->tensor;
    if (!allow_destroyed && atomic_load_explicit(&((tamm_tensor *)T)->destroyed, memory_order_relaxed))
        return tamm__error(t, TAMM_EINVAL, "ref %d names tensor '%s', which was destroyed", i, T->name);
    if (r->nidx != 0 && r->nidx != T->ndim) return nidx_error(t, r, i, texts);
    /* plain blocks: one unsigned compare each; slices, ranges and errors out of line */
    int d = 0;
    while (d < r->nidx && (unsigned long)r->idx[d] < (unsigned long)T->nblocks[d]) d++;
    if (TAMM_UNLIKELY(d < r->nidx)) {
        int rc = check_indices(t, r, i, texts);
        if (rc) return rc;
    }
    unsigned known = 7u | TAMM_TEMP | TAMM_CANCELLABLE | TAMM_PERMISSION_ONLY;
    if (r->mode & ~known)
        return tamm__error(t, TAMM_EINVAL, "ref %d on '%s': unknown mode bits 0x%x", i, T->name, r->mode & ~known);
    if (!(r->mode & TAMM_TEMP) && !(r->mode & 7u))
        return tamm__error(t, TAMM_EINVAL, "ref %d on '%s': no access mode (READ, WRITE, READWRITE or ACCUM)", i,
                           T->name);
    if ((r->mode & TAMM_CANCELLABLE) && !(r->mode & (TAMM_WRITE | TAMM_ACCUM)))
        return tamm__error(t, TAMM_EINVAL, "ref %d on '%s': only write, readwrite and accum can be cancellable", i,
                           T->name);
    return TAMM_OK;
}

/* ------------------------------------------------------------------ */
/* dependence entries                                                    */
/* ------------------------------------------------------------------ */
/* what a ref contributes to a dependence record: its mode bits and the cancellable flag */
#define PERMBITS(mode) ((mode) & (7u | TAMM_CANCELLABLE))

typedef struct { tamm__dep *v; int n, cap; int heap; } depvec;

/* An accumulation into a tensor with reproducible accumulation is ordered:
 * exclusive in submission order, on the block itself (TAMM__PERM_ORDERED). */
static inline unsigned ordered_bits(tamm__task_s *t, const tamm_tensor *T, unsigned perm)
{
    if (TAMM_UNLIKELY((perm & TAMM_ACCUM) && T->ordered)) {
        t->flags |= TAMM_TF_ORDERED;
        perm |= TAMM__PERM_ORDERED;
    }
    return perm;
}

static void dep_add(depvec *dv, tamm__task_s *t, tamm_tensor *T, long lin, unsigned perm)
{
    perm = ordered_bits(t, T, perm);
    for (int i = 0; i < dv->n; i++)
        if (dv->v[i].T == T && dv->v[i].lin == lin) {
            dv->v[i].perm |= perm;
            return;
        }
    if (dv->n == dv->cap) {
        int nc = dv->cap * 2;
        tamm__dep *nv = tamm__xmalloc((size_t)nc * sizeof *nv);
        memcpy(nv, dv->v, (size_t)dv->n * sizeof *nv);
        if (dv->heap) free(dv->v);
        dv->v = nv;
        dv->cap = nc;
        dv->heap = 1;
    }
    tamm__dep *d = &dv->v[dv->n++];
    d->epoch = NULL;
    d->task = t;
    d->next_waiter = NULL;
    d->T = T;
    d->lin = lin;
    d->perm = perm;
}

/* A cursor over the blocks a block, slice or range ref covers, in row-major
 * order; lo and hi are inclusive. */
typedef struct { const tamm_tensor *T; long idx[TAMM_MAX_DIMS], lo[TAMM_MAX_DIMS], hi[TAMM_MAX_DIMS]; int done; } ref_iter;

static void ref_iter_init(ref_iter *it, const tamm_ref *r)
{
    const tamm_tensor *T = it->T = r->tensor;
    for (int d = 0; d < T->ndim; d++) {
        long lo, hi;
        tamm__idx_span(T, d, r->idx[d], &lo, &hi);
        it->lo[d] = lo;
        it->hi[d] = hi - 1;
        it->idx[d] = lo;
    }
    it->done = 0;
}

/* The current block's linear number, or -1 when the cursor is past the end. */
static long ref_iter_next(ref_iter *it)
{
    if (it->done) return -1;
    const tamm_tensor *T = it->T;
    long lin = tamm__block_lin(T, it->idx, T->ndim);
    int d = T->ndim - 1;
    while (d >= 0 && it->idx[d] == it->hi[d]) { it->idx[d] = it->lo[d]; d--; }
    if (d < 0) it->done = 1;
    else it->idx[d]++;
    return lin;
}

/* Expand a slice or range into its blocks (so refs to disjoint ranges share
 * no record and do not depend on each other). */
static void dep_add_slice(depvec *dv, tamm__task_s *t, const tamm_ref *r)
{
    ref_iter it;
    ref_iter_init(&it, r);
    for (long lin; (lin = ref_iter_next(&it)) >= 0;)
        dep_add(dv, t, r->tensor, lin, PERMBITS(r->mode));
}

/* The records go to `inl` (room for `cap`) while they fit, else to the heap. */
static void build_deps(tamm__task_s *t, const tamm_ref *refs, int nrefs, tamm__dep *inl, int cap)
{
    depvec dv = { inl, 0, cap, 0 };
    /* whole-tensor refs first: other refs to the same tensor fold into them */
    for (int i = 0; i < nrefs; i++) {
        const tamm_ref *r = &refs[i];
        if ((r->mode & TAMM_TEMP) || r->nidx != 0) continue;
        dep_add(&dv, t, r->tensor, -1, PERMBITS(r->mode));
        t->flags |= TAMM_TF_COARSE;
    }
    for (int i = 0; i < nrefs; i++) {
        const tamm_ref *r = &refs[i];
        if ((r->mode & TAMM_TEMP) || r->nidx == 0) continue;
        int whole = 0;
        if (t->flags & TAMM_TF_COARSE)
            for (int k = 0; k < dv.n; k++)
                if (dv.v[k].lin < 0 && dv.v[k].T == r->tensor) {
                    dv.v[k].perm |= ordered_bits(t, r->tensor, PERMBITS(r->mode));
                    whole = 1;
                    break;
                }
        if (whole) continue;
        int slice = 0; /* a TAMM_ALL or TAMM_RANGE index (validated: no other index is negative) */
        for (int d = 0; d < r->nidx; d++)
            if (r->idx[d] < 0) slice = 1;
        if (slice)
            dep_add_slice(&dv, t, r);
        else
            dep_add(&dv, t, r->tensor, tamm__block_lin_checked(r->tensor, r->idx), PERMBITS(r->mode));
    }
    t->dep = dv.v;
    t->ndep = dv.n;
    if (dv.heap) t->flags |= TAMM_TF_HEAP_DEPS;
}

static int parent_refuses(tamm__task_s *t, tamm__task_s *p, tamm_tensor *T, long lin, unsigned c)
{
    if (lin < 0) { /* a whole-tensor child: every block must be within the parent's permission there */
        for (long b = 0; b < T->nblk; b++) {
            int rc = parent_refuses(t, p, T, b, c);
            if (rc) return rc;
        }
        return TAMM_OK;
    }
    unsigned pp = tamm__task_perm(p, T, lin, NULL);
    if (child_within(c, pp)) return TAMM_OK;
    char bn[128];
    tamm__block_name(T, lin, bn, sizeof bn);
    return tamm__error(t, TAMM_EPERM,
                       "nested task asks %s permission on %s, but its parent '%s' (%s:%d) has %s permission there",
                       tamm__perm_name(c), bn, p->label ? p->label : "(unlabelled)", p->file ? p->file : "?", p->line,
                       tamm__perm_name(pp));
}

/* Every ref of the child (before folding) must lie within the parent's permissions. */
static int check_within_parent(tamm__task_s *t, tamm__task_s *p, const tamm_ref *refs, int nrefs)
{
    for (int i = 0; i < nrefs; i++) {
        const tamm_ref *r = &refs[i];
        if (r->mode & TAMM_TEMP) continue;
        unsigned c = r->mode & 7u;
        tamm_tensor *T = r->tensor;
        int rc = TAMM_OK;
        if (r->nidx == 0) {
            rc = parent_refuses(t, p, T, -1, c);
        } else {
            ref_iter it;
            ref_iter_init(&it, r);
            for (long lin; !rc && (lin = ref_iter_next(&it)) >= 0;)
                rc = parent_refuses(t, p, T, lin, c);
        }
        if (rc) return rc;
    }
    return TAMM_OK;
}

/* ------------------------------------------------------------------ */
/* readiness                                                             */
/* ------------------------------------------------------------------ */
static void task_ready(tamm__task_s *t);

void tamm__task_dep_satisfied(tamm__task_s *t)
{
    int was = atomic_fetch_sub_explicit(&t->deps, 1, memory_order_acq_rel);
    TAMM_ASSERT(was >= 1); /* one start condition more satisfied than t waited for */
    if (was == 1)
        task_ready(t);
}

/* Submission is over: replace the guard by the epochs t waits for. */
static inline void drop_guard(tamm__task_s *t)
{
    TAMM_ASSERT(t->nwait >= 0 && t->nwait < TAMM_DEPS_GUARD);
    int n = TAMM_DEPS_GUARD - t->nwait;
    int was = atomic_fetch_sub_explicit(&t->deps, n, memory_order_acq_rel);
    TAMM_ASSERT(was >= n); /* the guard is still there: no condition was satisfied twice */
    if (was == n)
        task_ready(t);
}

int tamm__task_extra;
const tamm__route_ops *tamm__route;

static void record_no_node(uint64_t id, const char *label, uint64_t parent) { (void)id; (void)label; (void)parent; }
static void record_no_event(struct tamm__worker *w, uint64_t id, uint64_t t0, uint64_t t1)
{
    (void)w; (void)id; (void)t0; (void)t1;
}
static void record_no_io(int write, const tamm_tensor *T, long lin, size_t bytes, int by, uint64_t task, uint64_t t0,
                         uint64_t t1)
{
    (void)write; (void)T; (void)lin; (void)bytes; (void)by; (void)task; (void)t0; (void)t1;
}
static void record_no_withheld(uint64_t id, const char *why) { (void)id; (void)why; }
static const tamm__record_ops record_nothing = { record_no_node, record_no_event, record_no_io, record_no_withheld };
const tamm__record_ops *tamm__recorder = &record_nothing;

void tamm__recorder_install(const tamm__record_ops *ops) { tamm__recorder = ops ? ops : &record_nothing; }
const char *tamm__no_device_why = "";

void tamm__route_install(const tamm__route_ops *ops)
{
    tamm__route = ops;
    if (ops) tamm__task_extra |= TAMM_EXTRA_ROUTE;
    else tamm__task_extra &= ~TAMM_EXTRA_ROUTE;
}

static inline void task_push(tamm__task_s *t)
{
    tamm__worker *w = tamm__self();
    tamm__rt.sched->push(w, t);
    if (atomic_load_explicit(&tamm__rt.nsleepers, memory_order_seq_cst) > 0)
        tamm__wake_one();
}

static void task_ready(tamm__task_s *t)
{
    if (TAMM_UNLIKELY(t->flags & TAMM_TF_COLLECTIVE)) {
        /* collectives run on CPU workers, once every rank is ready for them */
        if (tamm__flow_on && !(t->flags & TAMM_TF_AGREED)) {
            tamm__flow->collective_ready(t);
            return;
        }
        t->est_ns = 0; /* not routed, but counted as a CPU task when GPUs exist */
        goto push;
    }
    if (TAMM_UNLIKELY(tamm__task_extra)) {
        /* an executor of a layer (a GPU's), or it waits for a flush */
        if ((tamm__task_extra & TAMM_EXTRA_ROUTE) && tamm__route->route(t)) return;
        /* under TAMM_MEMORY_LIMIT: only when its blocks fit beside those of running tasks */
        if (tamm__ml_on && !tamm__ml_admit(t)) return;
    }
    if (TAMM_UNLIKELY(t->flags & TAMM_TF_SENTINEL)) {
        atomic_store_explicit(&t->ready_flag, 1, memory_order_release);
        tamm__wake_all();
        return;
    }
push:
    task_push(t);
}

void tamm__task_push(tamm__task_s *t)
{
    /* from a thread that is no CPU worker (the I/O thread, a GPU's worker releasing memory):
     * the shared queue, which every CPU worker takes from (a GPU worker's own deque is never
     * stolen from) */
    tamm__worker *w = tamm__self();
    if (w && w->id < tamm__rt.nworkers) {
        task_push(t);
        return;
    }
    tamm__rt.sched->push(NULL, t);
    if (atomic_load_explicit(&tamm__rt.nsleepers, memory_order_seq_cst) > 0)
        tamm__wake_one();
}

/* ------------------------------------------------------------------ */
/* continuations                                                         */
/* ------------------------------------------------------------------ */
/* Slot `slot` of p was armed and has drained: every child counted in it has
 * completed.  Called by exactly one thread per arming (the one whose update
 * took the slot to TAMM_KIDS_ARMED + 0), which resets the slot and makes the
 * continuation ready.  The slot is reset before `cont` is cleared: p's body
 * reuses it only after seeing `cont` NULL. */
static void cont_fire(tamm__task_s *p, unsigned slot)
{
    TAMM_ASSERT(slot < 2);
    TAMM_ASSERT(atomic_load_explicit(&p->kids[slot], memory_order_relaxed) == TAMM_KIDS_ARMED);
    atomic_store_explicit(&p->kids[slot], 0, memory_order_relaxed);
    tamm__task_s *k = atomic_exchange_explicit(&p->cont, NULL, memory_order_acq_rel);
    TAMM_ASSERT(k != NULL); /* an armed slot has a continuation waiting for it */
    tamm__task_dep_satisfied(k);
}

/* ------------------------------------------------------------------ */
/* completion                                                            */
/* ------------------------------------------------------------------ */
/* held: where a CPU worker's run loop holds count-downs back (dag.h), or
 * NULL where nothing would apply them (other threads and paths).  Only
 * tamm__task_run passes it, after prefetching the first
 * TAMM_TASK_INLINE_REFS epochs of t (tamm__dag_prefetch_completion). */
static void task_complete(tamm__task_s *t, tamm__held *held)
{
    int from = held ? TAMM_TASK_INLINE_REFS : 1;
    for (;;) {
        int ndep = t->ndep; /* 0 after tamm__task_end_deps: nothing to end here */
        /* the epochs were last written by other threads: fetch them together
         * (the first is needed at once; a run fetched its own already) */
        for (int i = from; i < ndep; i++)
            TAMM_PREFETCHW(t->dep[i].epoch);
        for (int i = 0; i < ndep; i++) {
            if (held) tamm__dag_release_held(&t->dep[i], held);
            else tamm__dag_release(&t->dep[i]);
        }
        if (TAMM_UNLIKELY(t->flags & TAMM_TF_SIGNALS))
            for (int i = 0; i < t->nsignal; i++)
                tamm__fence_signal(t->signal[i]);
        if (t->children) {
            tamm__domain_free(t->children);
            t->children = NULL;
        }
        if (t->flags & TAMM_TF_DESTROY)
            tamm__tensor_free(t->destroy_tensor);
        tamm__task_s *parent = t->parent;
        unsigned slot = (t->flags & TAMM_TF_KSLOT1) ? 1u : 0u;
        task_free(t);
        if (parent) {
            /* before parent->pending: parent (and a continuation of it) stay alive */
            unsigned kids = atomic_fetch_sub_explicit(&parent->kids[slot], 1, memory_order_acq_rel);
            TAMM_ASSERT((kids & ~TAMM_KIDS_ARMED) >= 1); /* t was counted in this slot */
            if (TAMM_UNLIKELY(kids == TAMM_KIDS_ARMED + 1))
                cont_fire(parent, slot);
            int was = atomic_fetch_sub_explicit(&parent->pending, 1, memory_order_acq_rel);
            TAMM_ASSERT(was >= 1); /* the parent counts each live child once */
            if (was == 1) {
                t = parent; /* nothing prefetched its epochs */
                from = 1;
                continue;
            }
            /* the last child of a body that may wait for its children (tamm_cc_taskwait), or of an
             * undeferred task whose submitter waits */
            if (TAMM_UNLIKELY(was == 2) && atomic_load_explicit(&tamm__rt.nested_waiting, memory_order_seq_cst))
                tamm__wake_all();
        } else {
            tamm__worker *w = tamm__self();
            atomic_store_explicit(&w->top_done, atomic_load_explicit(&w->top_done, memory_order_relaxed) + 1,
                                  memory_order_release);
            if (atomic_load_explicit(&tamm__rt.top_waiting, memory_order_seq_cst))
                tamm__wake_all();
            /* an execution fence counts the completions before it (fence.h) */
            if (TAMM_UNLIKELY(atomic_load_explicit(&tamm__rt.xf_armed, memory_order_relaxed)))
                tamm__xfence_poll();
        }
        return;
    }
}

static inline void body_done_held(tamm__task_s *t, tamm__held *held)
{
    int was = atomic_fetch_sub_explicit(&t->pending, 1, memory_order_acq_rel);
    TAMM_ASSERT(was >= 1); /* the body or a hold ended twice */
    if (was == 1)
        task_complete(t, held);
    else if (TAMM_UNLIKELY(was == 2) && atomic_load_explicit(&tamm__rt.nested_waiting, memory_order_seq_cst))
        tamm__wake_all(); /* an undeferred task's submitter may sleep until only its hold is left */
}

static inline void body_done(tamm__task_s *t) { body_done_held(t, NULL); }

void tamm__task_finish_sentinel(tamm__task_s *t) { body_done(t); }
void tamm__task_hold(tamm__task_s *t) { atomic_fetch_add_explicit(&t->pending, 1, memory_order_relaxed); }
void tamm__task_unhold(tamm__task_s *t) { body_done(t); }
void tamm__task_make_ready(tamm__task_s *t) { task_ready(t); }
void tamm__task_body_done(tamm__task_s *t) { body_done(t); }

void tamm__task_end_deps(tamm__task_s *t)
{
    TAMM_ASSERT(!(t->flags & TAMM_TF_DEPS_ENDED)); /* ending them twice would count its epochs down twice */
    t->flags |= TAMM_TF_DEPS_ENDED; /* before: a successor may complete first, never t's completion */
    for (int i = 0; i < t->ndep; i++) tamm__dag_release(&t->dep[i]);
    t->ndep = 0; /* so task_complete ends nothing twice, at no cost to tasks that never end early */
}

void tamm__task_run(tamm__worker *w, tamm__task_s *t)
{
    /* t was written by the submitting thread: fetch what the body and the
     * buffer calls read, together rather than one miss after another */
    TAMM_PREFETCH(t->args);
    TAMM_PREFETCH(t->dep);
    TAMM_PREFETCH((char *)t->dep + 64);
    int npf = t->ndep < TAMM_TASK_INLINE_REFS ? t->ndep : TAMM_TASK_INLINE_REFS;
    for (int i = 0; i < npf; i++) /* the blocks the body will lock */
        if (t->dep[i].lin >= 0) TAMM_PREFETCHW(&t->dep[i].T->blocks[t->dep[i].lin].lock);
    tamm__dag_prefetch_completion(t->dep, npf);
    /* count-downs held on an epoch t is not a member of are applied first:
     * t's body may run long (a member's cannot complete the epoch before t) */
    if (w->held.epoch && (t->ndep == 0 || t->dep[0].epoch != w->held.epoch))
        tamm__dag_flush(&w->held);
    tamm_ctx ctx;
    ctx.task = t;
    ctx.w = w;
    ctx.n = 0;
    ctx.nimplicit = 0;
    ctx.cap = TAMM_CTX_INLINE_BUFS;
    ctx.recs = ctx.inl;
    ctx.unit = NULL;
    tamm_ctx *prev = w->cur_ctx;
    w->cur_ctx = &ctx;
    int tracing = tamm__rt.recording, extra = tamm__task_extra;
    uint64_t t0 = tracing || extra ? tamm__now_ns() : 0;
    if (t->cpu) {
        t->cpu(&ctx, t->args);
    } else {
        tamm__error(t, TAMM_ENOTSUP, "the task has only a CUDA variant and this run has no GPU (%s)",
                    tamm__no_device_why[0] ? tamm__no_device_why : "no device");
    }
    if (ctx.n) tamm__ctx_end(&ctx);
    if (TAMM_UNLIKELY(extra) && (t->flags & TAMM_TF_MLRES)) tamm__ml_done(t); /* its pins (TAMM_MEMORY_LIMIT) */
    if (ctx.recs != ctx.inl) free(ctx.recs);
    w->cur_ctx = prev;
    if (tracing) tamm__recorder->event(w, t->id, t0, tamm__now_ns());
    if (TAMM_UNLIKELY(extra & TAMM_EXTRA_ROUTE)) tamm__route->cpu_ran(t, tamm__now_ns() - t0);
    atomic_store_explicit(&w->ntasks, atomic_load_explicit(&w->ntasks, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    body_done_held(t, w->id < tamm__rt.nworkers ? &w->held : NULL);
}

/* ------------------------------------------------------------------ */
/* submission                                                            */
/* ------------------------------------------------------------------ */
/* The task's description and references are valid (errors name `where`). */
static __attribute__((always_inline)) inline int check_task(const tamm__task_s *where, const tamm_task *u,
                                                            unsigned flags)
{
    int rc = TAMM_OK;
    if (!(flags & TAMM_TF_SENTINEL) && !u->cpu && !u->cuda)
        rc = tamm__error(where, TAMM_EINVAL, "task has no variant (cpu and cuda are both NULL)");
    else if (u->nrefs < 0 || (u->nrefs > 0 && !u->refs))
        rc = tamm__error(where, TAMM_EINVAL, "task has %d refs but refs is %s", u->nrefs, u->refs ? "set" : "NULL");
    else if (u->args_size > 0 && !u->args)
        rc = tamm__error(where, TAMM_EINVAL, "task has args_size %zu but args is NULL", u->args_size);
    else if (TAMM_UNLIKELY(u->rank != -1))
        rc = tamm__valid_on(where, u->rank);
    for (int i = 0; rc == TAMM_OK && i < u->nrefs; i++)
        rc = check_ref(where, &u->refs[i], i, u->ref_text);
    return rc;
}

int tamm__task_check(const tamm_task *u, unsigned flags)
{
    if (!u) return tamm__error(NULL, TAMM_EINVAL, "tamm_submit: NULL task");
    tamm__task_s where = { .label = u->label, .file = u->file, .line = u->line, .flags = flags };
    return check_task(&where, u, flags);
}

static int only_hold_left(void *arg)
{
    tamm__task_s *t = arg;
    return atomic_load_explicit(&t->pending, memory_order_acquire) == 1;
}

int tamm__submit(tamm_ctx *ctx, const tamm_task *u, const tamm_task_opts *o, unsigned flags, tamm__task_s **out)
{
    if (!tamm__rt.initialised) {
        return tamm__not_init("tamm_submit");
    }
    tamm__worker *w = tamm__self();
    if (!w)
        return tamm__error(NULL, TAMM_ESTATE, "tamm_submit called from a thread that is neither the thread "
                                              "that called tamm_init nor a task");
    if (!ctx) ctx = w->cur_ctx; /* a submission from inside a running task nests in it */
    if (TAMM_UNLIKELY(tamm__submit_divert) && !ctx && !(flags & (TAMM_TF_INTERNAL | TAMM_TF_SENTINEL)))
        return tamm__divert_submit(u, o, flags, out); /* several ranks: the sequential task flow; or a streaming
                                                        * scope keeps top-level tasks (scope.c) */
    if (!u) return tamm__error(ctx ? ctx->task : NULL, TAMM_EINVAL, "tamm_submit: NULL task");

    tamm__task_s *t = task_alloc();
    t->cpu = u->cpu;
    t->cuda = u->cuda;
    t->label = u->label;
    t->file = u->file;
    t->line = u->line;
    t->priority = u->priority;
    t->flags = flags;
    t->parent = ctx ? ctx->task : NULL;
    t->children = NULL;
    t->ndep = 0;
    t->dep = NULL;
    t->args = t->inl;
    t->next = NULL;
    if (flags & TAMM_TF_SENTINEL) atomic_init(&t->ready_flag, 0);
    /* the guard; a continuation also waits for its earlier siblings (cont_fire) */
    atomic_init(&t->deps, TAMM_DEPS_GUARD);
    t->nwait = (flags & TAMM_TF_CONT) ? 1 : 0;
    atomic_init(&t->pending, 1);
    atomic_init(&t->kids[0], 0);
    atomic_init(&t->kids[1], 0);
    t->kcur = 0;
    atomic_init(&t->cont, NULL);
    t->id = tamm__rt.recording ? atomic_fetch_add(&tamm__rt.next_id, 1) + 1 : 0;

    int rc = check_task(t, u, flags);
    if (rc) {
        task_free(t);
        return rc;
    }
    /* copy the arguments; refs become dependence records, placed after them */
    size_t aroom = 0;
    if (u->args_size > TAMM_TASK_INLINE_ARGS) {
        t->args = tamm__xmalloc(u->args_size);
        t->flags |= TAMM_TF_HEAP_ARGS;
    } else {
        aroom = (u->args_size + 15) & ~(size_t)15;
    }
    if (u->args_size) memcpy(t->args, u->args, u->args_size);
    build_deps(t, u->refs, u->nrefs, (tamm__dep *)(t->inl + aroom),
               (int)((TAMM_TASK_INLINE_BYTES - aroom) / sizeof(tamm__dep)));

    if (t->parent && (rc = check_within_parent(t, t->parent, u->refs, u->nrefs))) {
        task_free(t);
        return rc;
    }
    /* fences */
    if (o && o->nsignal > 0) {
        t->signal = tamm__xmalloc((size_t)o->nsignal * sizeof *t->signal);
        t->nsignal = 0;
        t->flags |= TAMM_TF_SIGNALS;
        for (int i = 0; i < o->nsignal; i++) {
            if (!o->signal[i]) { rc = tamm__error(t, TAMM_EINVAL, "signal fence %d is NULL", i); break; }
            t->signal[t->nsignal++] = o->signal[i];
        }
    }
    if (o && rc == TAMM_OK)
        for (int i = 0; i < o->nwait; i++)
            if (!o->wait || !o->wait[i]) rc = tamm__error(t, TAMM_EINVAL, "wait fence %d is NULL", i);
    if (rc) {
        task_free(t);
        return rc;
    }
    if (o && o->collective) t->flags |= TAMM_TF_COLLECTIVE;
    if (flags & TAMM_TF_DESTROY) t->destroy_tensor = u->refs[0].tensor;

    /* from here on the task exists */
    tamm__domain *dom = NULL;
    if (t->parent) {
        tamm__task_s *p = t->parent;
        if (TAMM_UNLIKELY(ctx->nimplicit)) tamm__ctx_drop_implicit(ctx);
        atomic_fetch_add_explicit(&p->pending, 1, memory_order_relaxed);
        int closed = -1;
        if (TAMM_UNLIKELY(flags & TAMM_TF_CONT)) {
            /* close the open slot for t to wait on; t and later children use the other */
            closed = p->kcur;
            p->kcur ^= 1;
            atomic_store_explicit(&p->cont, t, memory_order_relaxed);
        }
        TAMM_ASSERT(p->kcur == 0 || p->kcur == 1);
        if (p->kcur) t->flags |= TAMM_TF_KSLOT1;
        atomic_fetch_add_explicit(&p->kids[p->kcur], 1, memory_order_relaxed);
        /* arm the closed slot (publishing cont); if it was empty, t waits for nobody */
        if (TAMM_UNLIKELY(closed >= 0) &&
            atomic_fetch_add_explicit(&p->kids[closed], TAMM_KIDS_ARMED, memory_order_acq_rel) == 0)
            cont_fire(p, (unsigned)closed);
        if (!t->parent->children) t->parent->children = tamm__domain_new();
        dom = t->parent->children;
    } else {
        atomic_store_explicit(&tamm__rt.top_submitted,
                              atomic_load_explicit(&tamm__rt.top_submitted, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        if (TAMM_UNLIKELY(tamm__xf_gate != NULL)) tamm__xfence_gate(t); /* after an execution fence */
    }
    atomic_store_explicit(&w->nsubmitted, atomic_load_explicit(&w->nsubmitted, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (o && o->cuda_withheld) /* TAMM_STATS: kept off the GPUs by its kernel's checks */
        atomic_fetch_add_explicit(&tamm__rt.nwithheld, 1, memory_order_relaxed);
    if (TAMM_UNLIKELY(tamm__rt.recording)) {
        tamm__recorder->node(t->id, t->label, t->parent ? t->parent->id : 0);
        if (o && o->cuda_withheld) tamm__recorder->withheld(t->id, o->cuda_withheld);
    }
    if (!dom) /* the chains' newest epochs were last written by the workers: fetch them together */
        for (int i = 0; i < t->ndep; i++)
            if (t->dep[i].lin >= 0) TAMM_PREFETCHW(t->dep[i].T->chains[t->dep[i].lin].cur);
    for (int i = 0; i < t->ndep; i++)
        tamm__dag_register(dom, t, t->dep[i].T, t->dep[i].lin, t->dep[i].perm, &t->dep[i]);
    if (t->flags & TAMM_TF_SIGNALS)
        for (int i = 0; i < t->nsignal; i++)
            tamm__fence_add_signaller(t->signal[i]);
    if (o)
        for (int i = 0; i < o->nwait; i++)
            tamm__fence_add_waiter(o->wait[i], t);

    /* TAMM_SEQUENTIAL runs tasks inline, but not a message's local side: its
     * other end may only be reached later in the other rank's stream */
    int undeferred = (o && o->undeferred) || (tamm__rt.cfg.sequential && !(flags & TAMM_TF_PSEUDO));
    if (out) *out = t;
    if (flags & TAMM_TF_SENTINEL) { /* counted for TAMM_STATS: submitted, but no body to run */
        atomic_fetch_add_explicit(&tamm__rt.nsentinels, 1, memory_order_relaxed);
        drop_guard(t);
        return TAMM_OK;
    }
    if (undeferred) {
        /* hold t: it cannot complete (nor be freed) until we drop the hold,
         * after its body has returned and its children have completed */
        atomic_fetch_add_explicit(&t->pending, 1, memory_order_relaxed);
        /* counted as a waiter, so that the thread ending t's body or its last child wakes this one
         * (another worker's or a GPU's, when this thread sleeps) rather than its sleep's timeout */
        atomic_fetch_add_explicit(&tamm__rt.nested_waiting, 1, memory_order_seq_cst);
        drop_guard(t);
        rc = tamm__help_until(only_hold_left, t);
        TAMM_COUNT_DOWN(&tamm__rt.nested_waiting, memory_order_seq_cst);
        tamm__deadlock_detail(rc);
        if (rc)
            return tamm__error(t, rc, "undeferred task can never run: its dependences are never satisfied");
        body_done(t);
        return TAMM_OK;
    }
    int top = t->parent == NULL;
    drop_guard(t); /* t may run and vanish from here on */
    if (top && tamm__rt.throttle > 0 && (atomic_load_explicit(&tamm__rt.top_submitted, memory_order_relaxed) & 63) == 0) {
        long pending = tamm__top_pending();
        if (pending > tamm__rt.throttle) /* too many tasks in flight: the submitter runs some */
            tamm__help_throttle(w, pending, tamm__rt.throttle / 2);
    }
    return TAMM_OK;
}

/* ------------------------------------------------------------------ */
/* continuations                                                         */
/* ------------------------------------------------------------------ */
int tamm_submit_continuation(tamm_ctx *ctx, const tamm_task *u, const tamm_task_opts *o)
{
    if (!tamm__rt.initialised) {
        return tamm__not_init("tamm_submit_continuation");
    }
    /* errors name the continuation (it does not exist yet) */
    tamm__task_s where = { .label = u ? u->label : NULL, .file = u ? u->file : NULL, .line = u ? u->line : 0 };
    tamm__worker *w = tamm__self();
    if (!ctx || !w || ctx != w->cur_ctx || !ctx->task)
        return tamm__error(&where, TAMM_ESTATE,
                           "tamm_submit_continuation needs the context of the task running on this thread (%s)",
                           !ctx ? "ctx is NULL" : "ctx is not the running task's context");
    tamm__task_s *p = ctx->task;
    /* only p's body arms p->cont; it is cleared when the continuation is made ready */
    if (atomic_load_explicit(&p->cont, memory_order_acquire))
        return tamm__error(&where, TAMM_ESTATE,
                           "task '%s' (%s:%d) submits a continuation while its previous continuation still waits "
                           "for the children submitted before it (one continuation may wait at a time)",
                           p->label ? p->label : "(unlabelled)", p->file ? p->file : "?", p->line);
    return tamm__submit(ctx, u, o, TAMM_TF_CONT, NULL);
}

int tamm_task_error(tamm_ctx *ctx, int err, const char *msg)
{
    if (!ctx || !ctx->task) return tamm__error(NULL, TAMM_ESTATE, "tamm_task_error outside a task: %s", msg ? msg : "");
    return tamm__error(ctx->task, err < 0 ? err : TAMM_EDEVICE, "%s", msg ? msg : "the task's variant failed");
}
