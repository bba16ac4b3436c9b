/* buffer.c — get_buf / release inside tasks, over the execution FSM (see buffer.h). */
#include "buffer.h"
#include "block_fsm.h"
#include "check.h"
#include "error.h"
#include "layer.h"
#include "memlimit.h"
#include "perm.h"
#include "runtime.h"
#include "tensor.h"
#include "xfer.h"
#include "tamm_assert.h"
#define TAMM__IN_RUNTIME /* tamm_cc.h's enums, not its constructor */
#include <tamm_cc.h>
#include <stdio.h>
#include <string.h>

int tamm__homes_shared; /* layer.h */

/* A task running on another memory unit (ctx->unit, layer.h): its operations.
 * Out of line, so that the host path's test of ctx->unit stays one compare. */
static TAMM_NOINLINE void *unit_get(tamm_ctx *ctx, tamm_tensor *T, long lin, int req, int implicit, int canc)
{
    return ctx->unit->ops->get(ctx, T, lin, req, implicit, canc);
}

static TAMM_NOINLINE int unit_release(tamm_ctx *ctx, tamm__bufrec *r, int how)
{
    return ctx->unit->ops->release(ctx, r, how);
}

static const char *req_name[] = { "tamm_get_buf_read", "tamm_get_buf_write", "tamm_get_buf_readwrite",
                                  "tamm_get_buf_accum", "tamm_get_buf_tmp", "tamm_get_buf_cwrite",
                                  "tamm_get_buf_creadwrite", "tamm_block" };

tamm__bufrec *tamm__ctx_rec_add(tamm_ctx *ctx)
{
    if (ctx->n == ctx->cap) {
        int nc = ctx->cap * 2;
        tamm__bufrec *nr = tamm__xmalloc((size_t)nc * sizeof *nr);
        memcpy(nr, ctx->recs, (size_t)ctx->n * sizeof *nr);
        if (ctx->recs != ctx->inl) free(ctx->recs);
        ctx->recs = nr;
        ctx->cap = nc;
    }
    return &ctx->recs[ctx->n++];
}

static void *private_buf(tamm_ctx *ctx, size_t bytes, int zero)
{
    void *b = tamm__buf_get(ctx && ctx->w ? &ctx->w->bufs : NULL, bytes);
    if (!b) return NULL;
    if (zero) memset(b, 0, bytes);
    return b;
}

static void private_free(tamm_ctx *ctx, void *b, size_t bytes)
{
    tamm__buf_put(ctx && ctx->w ? &ctx->w->bufs : NULL, b, bytes);
}

/* Issue the actions of an FSM step between the host unit and the home: the
 * same memory on the owner rank, so Get, Put and AccAll complete at once. */
static TAMM_NOINLINE void host_actions(tamm_tensor *T, long lin, tamm__unit_state *u, unsigned actions)
{
    tamm__block_s *b = &T->blocks[lin];
    size_t bytes = b->bytes;
    if (actions & TAMM_ACT_ALLOCATE)
        u->buf = tamm__block_home(T, lin); /* the host unit of the owner rank is the home */
    /* leaving _Dirty / _DirtyAcc: under a memory limit the home now differs from its spilled copy */
    if (TAMM_UNLIKELY(T->ml) && (actions & (TAMM_ACT_ACCALL | TAMM_ACT_PUT))) tamm__ml_dirty(T, lin);
    if (actions & TAMM_ACT_ACCALL) tamm__xfer_host(TAMM_XK_COPY, b->home, u->buf, bytes, T->dtype);
    if (actions & TAMM_ACT_PUT) tamm__xfer_host(TAMM_XK_PUT, b->home, u->buf, bytes, T->dtype);
    if (actions & TAMM_ACT_GET) tamm__xfer_host(TAMM_XK_GET, u->buf, b->home, bytes, T->dtype);
}

/* Apply an operation to the host unit's FSM of block lin.  Block lock held, or
 * the caller is the block's sole holder (fsm_release: TAMM_BR_SOLE, no children).
 * Returns the step result; on OK the unit's buffer is the home.  On failure
 * the unit is left in the state the failing step saw (tamm__blk_why of it
 * explains the failure). */
static inline tamm__blk_result host_fsm(tamm_tensor *T, long lin, tamm__blk_op op)
{
    tamm__unit_state *u = &T->blocks[lin].units[0];
    for (;;) {
        TAMM_ASSERT(tamm__blk_consistent(u->state, u->rc));
        tamm__blk_step_t st = tamm__blk_step((tamm__blk_state)u->state, u->rc, u->pending, op);
        if (st.result != TAMM_BLK_OK) return st.result;
        /* the table re-applies an op only after Unalloc's Allocate; the home is the host unit's memory */
        TAMM_ASSERT(!st.again || (u->state == TAMM_BS_UNALLOC && st.next == TAMM_BS_UNI));
        TAMM_ASSERT(tamm__blk_consistent(st.next, st.rc));
        if (st.actions) host_actions(T, lin, u, st.actions);
        TAMM_ASSERT(st.next == TAMM_BS_UNALLOC || u->buf != NULL); /* a unit with memory has its buffer */
        u->state = (unsigned char)st.next;
        u->rc = st.rc;
        if (!st.again) return TAMM_BLK_OK;
    }
}

/* Why host_fsm(op) failed, from the unit's state.  As host_fsm: block lock held, or the sole holder. */
static TAMM_COLD void host_why(tamm_tensor *T, long lin, tamm__blk_op op, char *why, int nwhy)
{
    tamm__unit_state *u = &T->blocks[lin].units[0];
    tamm__blk_why((tamm__blk_state)u->state, u->rc, u->pending, op, why, nwhy);
}

const char *tamm__buf_kind_name(int k)
{
    static const char *n[] = { "read", "write", "readwrite", "accum", "accum", "tmp", "cwrite", "creadwrite", "scratch" };
    return n[k];
}

/* May t accumulate into block lin in place?  Only if no other task can touch
 * the block meanwhile: at every level from t up to the top, the task holds
 * the block exclusively (write or read+accumulate permission) or is the only
 * member left of a sealed accumulation set.  When other memory units sum into
 * homes (shared: tamm__homes_shared, GPUs), only the first: a sealed set's last
 * member may see another unit's partial sum land in the home meanwhile (its
 * dispatch does not wait for them), while a task holding the block exclusively
 * had every one flushed before it started.  In place matters beyond speed: a
 * task that also reads or writes the block (tamm_block of it, an index that
 * varies in the body) must see its own accumulation there, in program order. */
static int acc_exclusive(tamm__task_s *t, tamm_tensor *T, long lin, int shared)
{
    for (tamm__task_s *a = t; a; a = a->parent) {
        tamm__dep *d = tamm__task_dep_for(a, T, lin);
        if (!d) return 0;
        if (d->perm & (TAMM_READ | TAMM_WRITE | TAMM__PERM_ORDERED)) continue; /* exclusive at this level */
        if (shared || d->lin != lin || !tamm__dag_sole_member(d)) return 0;
    }
    return 1;
}

/* A cancellable accumulation into a tensor with reproducible accumulation
 * (exclusive: TAMM__PERM_ORDERED) is folded: its private buffer starts as a
 * copy of the block and commits by copy, so every element sees the additions
 * of the plain build in its order (a zeroed partial sum added at the end
 * would round x + (a1 + a2) instead of (x + a1) + a2). */
static inline int folded_acc(const tamm_tensor *T, int canc)
{
    return canc && T->ordered;
}

/* Copy block lin's home into a private buffer (creadwrite, folded accumulation). */
static void copy_home(tamm_tensor *T, long lin, void *dst, size_t bytes)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    void *home = tamm__block_home(T, lin);
    if (T->ml) tamm__xfer_host(TAMM_XK_GET, dst, home, bytes, T->dtype); /* before an eviction */
    tamm__spin_unlock(&b->lock);
    if (!T->ml) tamm__xfer_host(TAMM_XK_GET, dst, home, bytes, T->dtype);
}

static void *scratch(tamm_ctx *ctx, tamm_tensor *T, long lin)
{
    size_t bytes = T && lin >= 0 ? T->blocks[lin].bytes : 64;
    void *b = private_buf(ctx, bytes, 1);
    tamm__bufrec *r = tamm__ctx_rec_add(ctx);
    r->ptr = b;
    r->T = T;
    r->lin = lin;
    r->bytes = bytes;
    r->kind = TAMM_BK_SCRATCH;
    r->flags = 0;
    return b;
}

static void *get_buf_slow(tamm_ctx *ctx, tamm_tensor *T, const long *idx, int nidx, tamm__bufreq req);
static tamm__bufrec *find_held(tamm_ctx *ctx, tamm_tensor *T, long lin);
static void *share_held(tamm_ctx *ctx, tamm__bufrec *r, tamm__bufreq req, int claim);
static int rw_allowed(unsigned perm);

/* Whether t is the only thread that can touch the host state of a block it
 * holds with permission perm, so that its FSM steps need not lock the block:
 * a top-level task with write permission is the one member of its epoch, the
 * epochs before it have completed (their releases happen before it starts)
 * and the ones after it wait; no child of t exists to share the block; and
 * with neither GPUs nor other ranks nor a host memory limit (T->nosole) no
 * transfer, eviction or message works on the block beside the tasks. */
static inline int sole_user(const tamm__task_s *t, const tamm_tensor *T, unsigned perm)
{
    return (perm & TAMM_WRITE) && !t->parent && !t->children && !tamm__homes_shared && !T->nosole;
}

/* The common case, read / write / readwrite of a block the task may use and
 * the FSM allows, without the generic request handling; anything else (and
 * every error) goes to get_buf_slow, which sees the same state (a refused
 * FSM step changes nothing). */
static inline void *get_buf_lin(tamm_ctx *ctx, tamm_tensor *T, const long *idx, int nidx, long lin, tamm__bufreq req)
{
    if (TAMM_LIKELY(lin >= 0 && !ctx->unit && (unsigned)req <= TAMM_REQ_RW && ctx->n < ctx->cap)) {
        unsigned perm = tamm__task_perm_bits(ctx->task, T, lin);
        tamm__op op = req == TAMM_REQ_READ ? TAMM_OP_READ : req == TAMM_REQ_WRITE ? TAMM_OP_WRITE : TAMM_OP_RW;
        /* a block the task may cancel takes the slow path: no modifying buffer of it may be the
         * block's memory (see get_buf_slow) */
        if (TAMM_LIKELY(!(perm & TAMM_CANCELLABLE) && tamm__perm_allows(op, perm))) {
            tamm__blk_op fop = req == TAMM_REQ_READ ? TAMM_BOP_READ : req == TAMM_REQ_WRITE ? TAMM_BOP_WRITE : TAMM_BOP_RW;
            tamm__block_s *b = &T->blocks[lin];
            tamm__blk_result r;
            void *ptr;
            unsigned sole = 0;
            tamm__held *h = ctx->w ? &ctx->w->held : NULL;
            if (fop == TAMM_BOP_READ && h && h->rT == T && h->rlin == lin) {
                /* the worker's kept reference becomes this read's: no lock, and
                 * the block stays _Ready with its buffer while RC > 0 */
                h->rT = NULL;
                r = TAMM_BLK_OK;
                ptr = b->units[0].buf;
            } else {
                if (sole_user(ctx->task, T, perm)) sole = TAMM_BR_SOLE;
                else tamm__spin_lock(&b->lock);
                r = host_fsm(T, lin, fop);
                ptr = b->units[0].buf;
                if (!sole) tamm__spin_unlock(&b->lock);
            }
            if (TAMM_LIKELY(r == TAMM_BLK_OK)) { /* ptr is the home: allocated, never NULL */
                tamm__bufrec *rec = &ctx->recs[ctx->n++];
                rec->ptr = ptr;
                rec->T = T;
                rec->lin = lin;
                rec->bytes = b->bytes;
                rec->kind = (unsigned char)(req == TAMM_REQ_READ ? TAMM_BK_READ : req == TAMM_REQ_WRITE ? TAMM_BK_WRITE : TAMM_BK_RW);
                rec->flags = (unsigned char)sole;
                rec->shares = 0;
                if (TAMM_UNLIKELY(tamm__check_on)) tamm__check_acquire(ctx, rec);
                return ptr;
            }
        }
    }
    return get_buf_slow(ctx, T, idx, nidx, req);
}

/* the source text of the block reference being served by tamm__get_buf_src, for its range error */
static _Thread_local const char *use_src;

void *tamm__get_buf_src(tamm_ctx *ctx, tamm_tensor *T, const long *idx, int nidx, tamm__bufreq req, const char *src)
{
    const char *outer = use_src;
    use_src = src;
    void *p = tamm__get_buf(ctx, T, idx, nidx, req);
    use_src = outer;
    return p;
}

void *tamm__get_buf(tamm_ctx *ctx, tamm_tensor *T, const long *idx, int nidx, tamm__bufreq req)
{
    if (TAMM_LIKELY(ctx && T && idx && nidx == T->ndim))
        return get_buf_lin(ctx, T, idx, nidx, tamm__block_lin(T, idx, nidx), req);
    return get_buf_slow(ctx, T, idx, nidx, req);
}

static TAMM_NOINLINE void *get_buf_slow(tamm_ctx *ctx, tamm_tensor *T, const long *idx, int nidx, tamm__bufreq req)
{
    if (!ctx) {
        tamm__error(NULL, TAMM_ESTATE, "%s needs the context of a running task (ctx is NULL)", req_name[req]);
        return NULL;
    }
    tamm__task_s *t = ctx->task;
    if (!T || !idx) {
        tamm__error(t, TAMM_EINVAL, "%s: %s is NULL", req_name[req], T ? "the block index" : "the tensor");
        return scratch(ctx, NULL, -1);
    }
    long lin = tamm__block_lin(T, idx, nidx);
    int plain = nidx == T->ndim; /* block numbers only (no slice or range encoding) */
    for (int d = 0; d < nidx && plain; d++) plain = idx[d] > -(1L << 60);
    if (lin < 0 && plain) { /* in the user's terms: the tensor's ranges, and the source text if known */
        char what[64];
        snprintf(what, sizeof what, "%s: ", req == TAMM_REQ_IMPLICIT ? "tamm_block" : req_name[req]);
        tamm__range_error(t, use_src ? "" : what, T, idx, nidx, 0, use_src);
        return scratch(ctx, NULL, -1);
    }
    if (lin < 0) {
        char ib[160];
        int o = 0;
        for (int d = 0; d < nidx && d < TAMM_MAX_DIMS && o < 120; d++) { /* a slice or range shows as ':' or lo:hi */
            char v[48];
            o += snprintf(ib + o, sizeof ib - (size_t)o, "%s%s", d ? "," : "", tamm__idx_text(idx[d], v, sizeof v));
        }
        ib[o] = 0;
        tamm__error(t, TAMM_ERANGE, "%s: block [%s] is not a block of '%s' (%d dims, %ld blocks)", req_name[req],
                    ib, T->name, T->ndim, T->nblk);
        return scratch(ctx, NULL, -1);
    }
    char bn[128];
    int canc = 0;
    unsigned perm = tamm__task_perm(t, T, lin, &canc);
    int implicit = req == TAMM_REQ_IMPLICIT;
    if (implicit) {
        if (perm & TAMM_WRITE) req = TAMM_REQ_RW;
        else if ((perm & TAMM_READ) && (perm & TAMM_ACCUM)) req = TAMM_REQ_RW;
        else if (perm & TAMM_READ) req = TAMM_REQ_READ;
        else if (perm & TAMM_ACCUM) req = TAMM_REQ_ACC;
        else req = TAMM_REQ_READ; /* fails the check below with a clear message */
    }
    static const tamm__op req_op[] = { TAMM_OP_READ, TAMM_OP_WRITE, TAMM_OP_RW, TAMM_OP_ACC,
                                      TAMM_OP_TMP, TAMM_OP_WRITE, TAMM_OP_RW };
    if (!tamm__perm_allows(req_op[req], perm) && !(implicit && req == TAMM_REQ_RW && rw_allowed(perm))) {
        tamm__error(t, TAMM_EPERM, "%s on %s: the task has %s permission on that block", implicit ? "tamm_block" : req_name[req],
                    tamm__block_name(T, lin, bn, sizeof bn), tamm__perm_name(perm));
        return scratch(ctx, T, lin);
    }
    tamm__bufrec *held = implicit ? find_held(ctx, T, lin) : NULL;
    if (held) { /* a block the task holds already: the same buffer */
        void *ptr = share_held(ctx, held, req, 0);
        if (ptr) return ptr;
    }
    /* Under a cancellable permission (a TAMM_CANCELLABLE ref: the clauses cwrite, creadwrite) a
     * modifying buffer is never the block's memory, whatever function asked for it: write is
     * served as cwrite, readwrite and tamm_block as creadwrite, so that tamm_release_cancel /
     * tamm_cancel can drop what the task wrote (docs/runtime.md, "Cancellation"). */
    if (canc && (req == TAMM_REQ_WRITE || req == TAMM_REQ_RW))
        req = req == TAMM_REQ_WRITE ? TAMM_REQ_CWRITE : TAMM_REQ_CRW;
    if (ctx->unit) return unit_get(ctx, T, lin, req, implicit, canc); /* another memory unit (a GPU's) */
    tamm__block_s *b = &T->blocks[lin];
    size_t bytes = b->bytes;
    tamm__bufkind kind;
    void *ptr = NULL;
    char why[160];
    tamm__blk_op fop = TAMM_BOP_READ;
    switch (req) {
    case TAMM_REQ_READ: kind = TAMM_BK_READ; fop = TAMM_BOP_READ; break;
    case TAMM_REQ_WRITE: kind = TAMM_BK_WRITE; fop = TAMM_BOP_WRITE; break;
    case TAMM_REQ_RW: kind = TAMM_BK_RW; fop = TAMM_BOP_RW; break;
    case TAMM_REQ_ACC: {
        /* the FSM's ACC needs RC == 0 in this unit: not while the task holds the block */
        for (int i = 0; i < ctx->n; i++) {
            tamm__bufrec *h = &ctx->recs[i];
            if (h->T == T && h->lin == lin && !(h->flags & TAMM_BR_RELEASED) && h->kind <= TAMM_BK_ACC_PRIVATE) {
                tamm__error(t, TAMM_EFSM, "%s on %s: ACC needs RC == 0, but the task still holds the block's %s buffer "
                            "(release it first)", implicit ? "tamm_block" : req_name[req],
                            tamm__block_name(T, lin, bn, sizeof bn), tamm__buf_kind_name(h->kind));
                return scratch(ctx, T, lin);
            }
        }
        kind = TAMM_BK_ACC_PRIVATE;
        if (!canc && acc_exclusive(t, T, lin, tamm__homes_shared)) {
            tamm__spin_lock(&b->lock);
            if (host_fsm(T, lin, TAMM_BOP_ACC) == TAMM_BLK_OK) {
                kind = TAMM_BK_ACC_INPLACE;
                ptr = b->units[0].buf;
            }
            tamm__spin_unlock(&b->lock);
        }
        if (kind == TAMM_BK_ACC_PRIVATE && folded_acc(T, canc)) {
            ptr = private_buf(ctx, bytes, 0); /* the block so far: the task's sums go on top, in order */
            if (ptr) copy_home(T, lin, ptr, bytes);
            atomic_fetch_add_explicit(&tamm__rt.private_acc, 1, memory_order_relaxed);
        } else if (kind == TAMM_BK_ACC_PRIVATE) {
            ptr = private_buf(ctx, bytes, 1);
            atomic_fetch_add_explicit(&tamm__rt.private_acc, 1, memory_order_relaxed);
        } else {
            atomic_fetch_add_explicit(&tamm__rt.inplace_acc, 1, memory_order_relaxed);
        }
        goto record;
    }
    case TAMM_REQ_TMP:
        kind = TAMM_BK_TMP;
        ptr = private_buf(ctx, bytes, 0);
        goto record;
    case TAMM_REQ_CWRITE:
        kind = TAMM_BK_CWRITE;
        ptr = private_buf(ctx, bytes, 0);
        goto record;
    case TAMM_REQ_CRW:
        kind = TAMM_BK_CRW;
        ptr = private_buf(ctx, bytes, 0);
        if (ptr) copy_home(T, lin, ptr, bytes);
        goto record;
    default:
        kind = TAMM_BK_READ;
        break;
    }
    tamm__spin_lock(&b->lock);
    tamm__blk_result r = host_fsm(T, lin, fop);
    ptr = b->units[0].buf;
    if (TAMM_UNLIKELY(r != TAMM_BLK_OK)) host_why(T, lin, fop, why, sizeof why);
    tamm__spin_unlock(&b->lock);
    if (r != TAMM_BLK_OK) {
        tamm__error(t, TAMM_EFSM, "%s on %s: %s (a block can be held once for writing in a task)",
                    implicit ? "tamm_block" : req_name[req], tamm__block_name(T, lin, bn, sizeof bn), why);
        return scratch(ctx, T, lin);
    }
record:
    if (!ptr) {
        tamm__error(t, TAMM_ENOMEM, "%s on %s: cannot allocate %zu bytes", req_name[req],
                    tamm__block_name(T, lin, bn, sizeof bn), bytes);
        return NULL;
    }
    tamm__bufrec *rec = tamm__ctx_rec_add(ctx);
    rec->ptr = ptr;
    rec->T = T;
    rec->lin = lin;
    rec->bytes = bytes;
    rec->kind = (unsigned char)kind;
    rec->flags = (unsigned char)((implicit ? TAMM_BR_IMPLICIT : 0) | (canc ? TAMM_BR_CANCELLABLE : 0));
    rec->shares = 0;
    ctx->nimplicit += implicit;
    if (TAMM_UNLIKELY(tamm__check_on)) tamm__check_acquire(ctx, rec);
    return ptr;
}

/* commit a private buffer into the block's home, by copy or by sum */
static void commit_private(tamm_tensor *T, long lin, const void *src, size_t bytes, int add)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    void *home = tamm__block_home(T, lin);
    tamm__xfer_host(add ? TAMM_XK_ACCALL : TAMM_XK_PUT, home, src, bytes, T->dtype);
    if (T->ml) tamm__ml_dirty(T, lin);
    tamm__spin_unlock(&b->lock);
}

/* Keep the reference of read r on the worker (dag.h tamm__held) rather than
 * release it, when the task is a top-level member of the read set whose
 * count-downs the worker holds, through a dependence on exactly r's block:
 * whoever comes next for the block waits for that epoch, and the flush that
 * completes it drops the reference first.  Not for a nested task: its parent
 * goes on when the children have completed, epoch or not; nor under a host
 * memory limit. */
static inline int keep_read(tamm_ctx *ctx, const tamm__bufrec *r)
{
    tamm__held *h = ctx->w ? &ctx->w->held : NULL;
    const tamm__task_s *t = ctx->task;
    if (!h || h->rT || !h->epoch || t->parent || t->ndep == 0) return 0;
    const tamm__dep *d = &t->dep[0];
    if (d->epoch != h->epoch || d->T != r->T || d->lin != r->lin || (d->perm & (TAMM_WRITE | TAMM_ACCUM))) return 0;
    /* under TAMM_MEMORY_LIMIT the task's pins go when its body returns: a reference kept past
     * them would hold a home that neither a reservation covers nor an eviction can take */
    if (TAMM_UNLIKELY(r->T->ml != NULL)) return 0;
    h->rT = r->T;
    h->rlin = r->lin;
    return 1;
}

void tamm__buf_drop_read(tamm_tensor *T, long lin)
{
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    tamm__blk_result res = host_fsm(T, lin, TAMM_BOP_RELEASE); /* _Ready, RC > 0: cannot fail */
    tamm__spin_unlock(&b->lock);
    if (TAMM_UNLIKELY(res != TAMM_BLK_OK))
        tamm__error(NULL, TAMM_EFSM, "internal: the read reference a worker kept on %s was not releasable",
                    T->name);
}

static TAMM_COLD int fsm_release_failed(tamm_ctx *ctx, tamm__bufrec *r, const char *why)
{
    char bn[128];
    return tamm__error(ctx->task, TAMM_EFSM, "release of %s: %s", tamm__block_name(r->T, r->lin, bn, sizeof bn), why);
}

static inline int fsm_release(tamm_ctx *ctx, tamm__bufrec *r, tamm__blk_op op)
{
    char why[160];
    tamm__block_s *b = &r->T->blocks[r->lin];
    int lock = !(r->flags & TAMM_BR_SOLE) || ctx->task->children; /* a child may share it now */
    if (lock) tamm__spin_lock(&b->lock);
    tamm__blk_result res = host_fsm(r->T, r->lin, op);
    if (TAMM_UNLIKELY(res != TAMM_BLK_OK)) host_why(r->T, r->lin, op, why, sizeof why);
    if (lock) tamm__spin_unlock(&b->lock);
    if (TAMM_UNLIKELY(res != TAMM_BLK_OK)) return fsm_release_failed(ctx, r, why);
    return TAMM_OK;
}

const char *tamm__rel_name(tamm__relkind how)
{
    return how == TAMM_REL_PUT ? "tamm_release_put" : how == TAMM_REL_ADD ? "tamm_release_add" : "tamm_release_cancel";
}


/* How r commits when the program does not say: accumulations by sum, the rest by copy. */
static inline tamm__relkind commit_how(const tamm__bufrec *r)
{
    return r->kind == TAMM_BK_ACC_INPLACE || r->kind == TAMM_BK_ACC_PRIVATE ? TAMM_REL_ADD : TAMM_REL_PUT;
}

/* The effect of releasing r by `how`; marks it released and frees private memory. */
static int release_effect(tamm_ctx *ctx, tamm__bufrec *r, tamm__relkind how)
{
    tamm__task_s *t = ctx->task;
    char bn[128];
    int rc = TAMM_OK;
    r->flags |= TAMM_BR_RELEASED;
    switch ((tamm__bufkind)r->kind) {
    case TAMM_BK_READ:
        if (how == TAMM_REL_ADD)
            rc = tamm__error(t, TAMM_EBUF, "tamm_release_add on the read buffer of %s (use tamm_release_put or tamm_release_cancel)",
                             tamm__block_name(r->T, r->lin, bn, sizeof bn));
        { int r2 = fsm_release(ctx, r, how == TAMM_REL_CANCEL ? TAMM_BOP_CANCEL : TAMM_BOP_RELEASE); if (!rc) rc = r2; }
        return rc;
    case TAMM_BK_WRITE:
    case TAMM_BK_RW:
    case TAMM_BK_ACC_INPLACE: {
        int want_add = r->kind == TAMM_BK_ACC_INPLACE;
        if (how == TAMM_REL_CANCEL)
            rc = tamm__error(t, TAMM_ECANCEL, "tamm_release_cancel on the %s buffer of %s, which is not cancellable "
                             "(its changes are already in the tensor; ask with a cancellable mode to be able to cancel)",
                             tamm__buf_kind_name(r->kind), tamm__block_name(r->T, r->lin, bn, sizeof bn));
        else if ((how == TAMM_REL_ADD) != want_add)
            rc = tamm__error(t, TAMM_EBUF, "%s on the %s buffer of %s (use %s)", tamm__rel_name(how), tamm__buf_kind_name(r->kind),
                             tamm__block_name(r->T, r->lin, bn, sizeof bn), want_add ? "tamm_release_add" : "tamm_release_put");
        int r2 = fsm_release(ctx, r, TAMM_BOP_RELEASE);
        return rc ? rc : r2;
    }
    case TAMM_BK_ACC_PRIVATE:
        if (how == TAMM_REL_ADD) {
            commit_private(r->T, r->lin, r->ptr, r->bytes, !folded_acc(r->T, (r->flags & TAMM_BR_CANCELLABLE) != 0));
        } else if (how == TAMM_REL_CANCEL) {
            if (!(r->flags & TAMM_BR_CANCELLABLE))
                rc = tamm__error(t, TAMM_ECANCEL, "tamm_release_cancel on the accum buffer of %s, which is not cancellable "
                                 "(declare the ref TAMM_ACCUM|TAMM_CANCELLABLE)", tamm__block_name(r->T, r->lin, bn, sizeof bn));
        } else {
            rc = tamm__error(t, TAMM_EBUF, "tamm_release_put on the accum buffer of %s (use tamm_release_add)",
                             tamm__block_name(r->T, r->lin, bn, sizeof bn));
        }
        break;
    case TAMM_BK_TMP:
        if (how != TAMM_REL_CANCEL) {
            unsigned perm = tamm__task_perm(t, r->T, r->lin, NULL);
            tamm__op op = how == TAMM_REL_PUT ? TAMM_OP_WRITE : TAMM_OP_ACC;
            if (!tamm__perm_allows(op, perm))
                rc = tamm__error(t, TAMM_EPERM, "%s of a tmp buffer into %s: the task has %s permission on that block",
                                 tamm__rel_name(how), tamm__block_name(r->T, r->lin, bn, sizeof bn), tamm__perm_name(perm));
            else
                commit_private(r->T, r->lin, r->ptr, r->bytes, how == TAMM_REL_ADD);
        }
        break;
    case TAMM_BK_CWRITE:
    case TAMM_BK_CRW:
        if (how == TAMM_REL_PUT)
            commit_private(r->T, r->lin, r->ptr, r->bytes, 0);
        else if (how == TAMM_REL_ADD)
            rc = tamm__error(t, TAMM_EBUF, "tamm_release_add on the %s buffer of %s (use tamm_release_put or tamm_release_cancel)",
                             tamm__buf_kind_name(r->kind), tamm__block_name(r->T, r->lin, bn, sizeof bn));
        break;
    case TAMM_BK_SCRATCH:
        break;
    }
    private_free(ctx, r->ptr, r->bytes);
    return rc;
}

/* release_effect, after the access checker has seen r (TAMM_CHECK_ACCESS); the
 * first error of the two is returned. */
static int release_rec(tamm_ctx *ctx, tamm__bufrec *r, tamm__relkind how)
{
    int crc = TAMM_UNLIKELY(r->flags & TAMM_BR_CHECKED) ? tamm__check_release(ctx, r, how == TAMM_REL_PUT) : TAMM_OK;
    int rc = release_effect(ctx, r, how);
    return crc ? crc : rc;
}

int tamm__release(tamm_ctx *ctx, void *buf, tamm__relkind how)
{
    if (!ctx)
        return tamm__error(NULL, TAMM_ESTATE, "%s needs the context of a running task (ctx is NULL)", tamm__rel_name(how));
    tamm__bufrec *found = NULL, *stale = NULL;
    for (int i = ctx->n - 1; i >= 0; i--) {
        tamm__bufrec *r = &ctx->recs[i];
        if (r->ptr != buf) continue;
        if (!(r->flags & TAMM_BR_RELEASED)) { found = r; break; }
        stale = r;
    }
    if (!found) {
        if (!buf)
            return tamm__error(ctx->task, TAMM_EBUF, "%s(NULL)", tamm__rel_name(how));
        if (stale)
            return tamm__error(ctx->task, TAMM_EBUF, "%s: this %s buffer was already released", tamm__rel_name(how),
                               tamm__buf_kind_name(stale->kind));
        return tamm__error(ctx->task, TAMM_EBUF, "%s: %p is not a buffer this task obtained", tamm__rel_name(how), buf);
    }
    if (TAMM_UNLIKELY(found->flags & (TAMM_BR_ALIASED | TAMM_BR_CHECKED))) {
        if (found->flags & TAMM_BR_ALIASED) {
            /* several claims on one buffer: the last release commits it, as its kind commits */
            if (found->shares) {
                found->shares--;
                return TAMM_OK;
            }
            /* a private cancellable copy may still be dropped by the last release */
            int drop = how == TAMM_REL_CANCEL && (found->kind == TAMM_BK_CWRITE || found->kind == TAMM_BK_CRW ||
                                                   (found->flags & TAMM_BR_CANCELLABLE));
            if (!drop) how = commit_how(found);
        }
        if (found->flags & TAMM_BR_CHECKED) /* TAMM_CHECK_ACCESS: verified, then released in general */
            return release_rec(ctx, found, how);
    }
    if (ctx->unit) return unit_release(ctx, found, how); /* applied when the unit's work is done */
    /* the common cases: the end of a read, the commit of a write or readwrite */
    if ((found->kind == TAMM_BK_READ && how != TAMM_REL_ADD) ||
        ((found->kind == TAMM_BK_WRITE || found->kind == TAMM_BK_RW) && how == TAMM_REL_PUT)) {
        found->flags |= TAMM_BR_RELEASED;
        if (found->kind == TAMM_BK_READ && keep_read(ctx, found)) return TAMM_OK;
        return fsm_release(ctx, found, how == TAMM_REL_CANCEL ? TAMM_BOP_CANCEL : TAMM_BOP_RELEASE);
    }
    return release_rec(ctx, found, how);
}

void tamm__ctx_end(tamm_ctx *ctx)
{
    char bn[128];
    for (int i = 0; i < ctx->n; i++) {
        tamm__bufrec *r = &ctx->recs[i];
        if ((r->flags & (TAMM_BR_RELEASED | TAMM_BR_PENDING)) == TAMM_BR_RELEASED) continue;
        if (TAMM_UNLIKELY(r->flags & TAMM_BR_PENDING)) { /* TAMM_CHECK_ACCESS: no later buffer wrote the rest */
            tamm__check_pending(ctx, r);
            continue;
        }
        if (r->kind == TAMM_BK_SCRATCH) {
            r->flags |= TAMM_BR_RELEASED;
            private_free(ctx, r->ptr, r->bytes);
            continue;
        }
        if (r->flags & TAMM_BR_IMPLICIT) {
            release_rec(ctx, r, commit_how(r));
            continue;
        }
        tamm__error(ctx->task, TAMM_ELEAK, "the %s buffer of %s was never released (call tamm_release_put, _add or _cancel)",
                    tamm__buf_kind_name(r->kind), r->T ? tamm__block_name(r->T, r->lin, bn, sizeof bn) : "?");
        /* drop it: a modifying buffer's changes are kept only if they are in place */
        int keep = r->kind == TAMM_BK_READ || r->kind == TAMM_BK_WRITE || r->kind == TAMM_BK_RW ||
                   r->kind == TAMM_BK_ACC_INPLACE;
        if (keep) {
            if (TAMM_UNLIKELY(r->flags & TAMM_BR_CHECKED)) { /* its changes stay */
                tamm__check_release(ctx, r, 1);
                if (r->flags & TAMM_BR_PENDING) tamm__check_pending(ctx, r);
            }
            r->flags |= TAMM_BR_RELEASED;
            fsm_release(ctx, r, TAMM_BOP_RELEASE);
        } else {
            r->flags |= TAMM_BR_RELEASED;
            private_free(ctx, r->ptr, r->bytes);
        }
    }
    ctx->n = 0;
    ctx->nimplicit = 0;
}

int tamm__ctx_held(const tamm_ctx *ctx)
{
    int n = 0;
    for (int i = 0; i < ctx->n; i++) n += !(ctx->recs[i].flags & TAMM_BR_RELEASED);
    return n;
}

void tamm__ctx_drop_implicit(tamm_ctx *ctx)
{
    for (int i = 0; i < ctx->n; i++) {
        tamm__bufrec *r = &ctx->recs[i];
        if ((r->flags & (TAMM_BR_IMPLICIT | TAMM_BR_RELEASED)) == TAMM_BR_IMPLICIT)
            release_rec(ctx, r, commit_how(r));
    }
    ctx->nimplicit = 0;
}

/* ------------------------------------------------------------------ */
/* one buffer for several claims on a block                             */
/* ------------------------------------------------------------------ */
/* A readwrite hold serves the task: it may write, or it may read and
 * accumulate (exclusive in the submission FSM, so in place is safe). */
static int rw_allowed(unsigned perm)
{
    return tamm__perm_allows(TAMM_OP_RW, perm) || ((perm & TAMM_READ) && (perm & TAMM_ACCUM));
}

/* r (held READ, WRITE or accumulated in place: the home buffer on the host
 * unit) becomes a readwrite hold, if the task's permission allows it: the
 * unit's reference is given back and taken again in RW.  On the host the
 * buffer does not move (a device unit would fetch here). */
static int widen_to_rw(tamm_ctx *ctx, tamm__bufrec *r)
{
    if (ctx->unit) return 0; /* a GPU unit's hold would have to fetch: not widened */
    if (r->flags & TAMM_BR_CANCELLABLE) return 0; /* the block's memory must not be written: a private copy instead */
    if (!rw_allowed(tamm__task_perm(ctx->task, r->T, r->lin, NULL))) return 0;
    static const tamm__blk_op again[] = { [TAMM_BK_READ] = TAMM_BOP_READ, [TAMM_BK_WRITE] = TAMM_BOP_WRITE,
                                         [TAMM_BK_ACC_INPLACE] = TAMM_BOP_ACC };
    tamm__block_s *b = &r->T->blocks[r->lin];
    int ok = 0;
    tamm__spin_lock(&b->lock);
    if (host_fsm(r->T, r->lin, TAMM_BOP_RELEASE) == TAMM_BLK_OK) {
        ok = host_fsm(r->T, r->lin, TAMM_BOP_RW) == TAMM_BLK_OK;
        if (!ok) (void)host_fsm(r->T, r->lin, again[r->kind]); /* hold it as before */
    }
    tamm__spin_unlock(&b->lock);
    if (ok) r->kind = TAMM_BK_RW;
    return ok;
}

/* The record of block lin of T that the task still holds, or NULL (usually
 * none or a few records: a linear scan, newest first). */
static tamm__bufrec *find_held(tamm_ctx *ctx, tamm_tensor *T, long lin)
{
    for (int i = ctx->n - 1; i >= 0; i--)
        if (ctx->recs[i].lin == lin && ctx->recs[i].T == T && !(ctx->recs[i].flags & TAMM_BR_RELEASED))
            return &ctx->recs[i];
    return NULL;
}

/* r's buffer, if it can serve a request `req` (widened to readwrite if
 * needed); NULL otherwise, and the caller takes the ordinary path (with its
 * errors).  `claim`: the caller will release it once more (tammcc's code);
 * tamm_block's implicit uses never release, so they claim nothing, and a
 * claim takes an implicit hold over. */
static void *share_held(tamm_ctx *ctx, tamm__bufrec *r, tamm__bufreq req, int claim)
{
    int acc = req == TAMM_REQ_ACC;
    switch ((tamm__bufkind)r->kind) {
    case TAMM_BK_RW:
        break;
    case TAMM_BK_WRITE: /* the host buffer is the home: reading it reads what the task wrote */
        if (req != TAMM_REQ_WRITE) {
            if (ctx->unit) return NULL; /* a GPU's write buffer was not fetched */
            r->kind = TAMM_BK_RW;
        }
        break;
    case TAMM_BK_READ:
        if (req != TAMM_REQ_READ && !widen_to_rw(ctx, r)) return NULL;
        break;
    case TAMM_BK_ACC_INPLACE:
        if (!acc && !widen_to_rw(ctx, r)) return NULL;
        break;
    case TAMM_BK_ACC_PRIVATE: /* a zeroed partial sum: it serves accumulation only */
        if (!acc) return NULL;
        break;
    case TAMM_BK_CRW: /* a private copy of the block (cancellable): every use sees the task's writes */
    case TAMM_BK_CWRITE:
        if (acc) return NULL;
        break;
    default:
        return NULL;
    }
    if (claim) {
        if (r->flags & TAMM_BR_IMPLICIT) {
            r->flags &= (unsigned char)~TAMM_BR_IMPLICIT;
            ctx->nimplicit--;
        } else {
            r->shares++;
        }
    }
    r->flags |= TAMM_BR_ALIASED; /* its kind may have changed: it is released as its kind commits */
    return r->ptr;
}

void *tamm_cc_acquire(tamm_ctx *ctx, tamm_tensor *T, const long *idx, unsigned how)
{
    tamm__bufreq req = how == TAMM_CC_READ ? TAMM_REQ_READ : how == TAMM_CC_WRITE ? TAMM_REQ_WRITE
                    : how == TAMM_CC_ACC ? TAMM_REQ_ACC : TAMM_REQ_RW;
    if (TAMM_LIKELY(ctx && T && idx)) {
        long lin = tamm__block_lin(T, idx, T->ndim);
        tamm__bufrec *held = find_held(ctx, T, lin);
        if (held) {
            void *ptr = share_held(ctx, held, req, 1);
            if (ptr) return ptr;
        }
        void *ptr = get_buf_lin(ctx, T, idx, T->ndim, lin, req);
        if (TAMM_UNLIKELY(tamm__check_on)) tamm__check_cc(ctx, ptr); /* one write in several buffers (check.h) */
        return ptr;
    }
    return tamm__get_buf(ctx, T, idx, T ? T->ndim : 0, req);
}

/* ------------------------------------------------------------------ */
/* public wrappers                                                       */
/* ------------------------------------------------------------------ */
#define NIDX(T) ((T) ? (T)->ndim : 0)
void *tamm_get_buf_read(tamm_ctx *c, tamm_tensor *T, const long *i) { return tamm__get_buf(c, T, i, NIDX(T), TAMM_REQ_READ); }
void *tamm_get_buf_write(tamm_ctx *c, tamm_tensor *T, const long *i) { return tamm__get_buf(c, T, i, NIDX(T), TAMM_REQ_WRITE); }
void *tamm_get_buf_readwrite(tamm_ctx *c, tamm_tensor *T, const long *i) { return tamm__get_buf(c, T, i, NIDX(T), TAMM_REQ_RW); }
void *tamm_get_buf_accum(tamm_ctx *c, tamm_tensor *T, const long *i) { return tamm__get_buf(c, T, i, NIDX(T), TAMM_REQ_ACC); }
void *tamm_get_buf_tmp(tamm_ctx *c, tamm_tensor *T, const long *i) { return tamm__get_buf(c, T, i, NIDX(T), TAMM_REQ_TMP); }
void *tamm_get_buf_cwrite(tamm_ctx *c, tamm_tensor *T, const long *i) { return tamm__get_buf(c, T, i, NIDX(T), TAMM_REQ_CWRITE); }
void *tamm_get_buf_creadwrite(tamm_ctx *c, tamm_tensor *T, const long *i) { return tamm__get_buf(c, T, i, NIDX(T), TAMM_REQ_CRW); }
int tamm_release_put(tamm_ctx *c, void *b) { return tamm__release(c, b, TAMM_REL_PUT); }
int tamm_release_add(tamm_ctx *c, void *b) { return tamm__release(c, b, TAMM_REL_ADD); }
int tamm_release_cancel(tamm_ctx *c, void *b) { return tamm__release(c, b, TAMM_REL_CANCEL); }

int tamm_buf_held(tamm_ctx *ctx, const void *buf)
{
    if (!ctx || !buf) return 0;
    for (int i = ctx->n - 1; i >= 0; i--)
        if (ctx->recs[i].ptr == buf && !(ctx->recs[i].flags & TAMM_BR_RELEASED)) return 1;
    return 0;
}
