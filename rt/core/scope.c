/*
 * scope.c — streaming scopes (#pragma tamm streaming, tamm_streaming_begin/end;
 * docs/runtime.md "Streaming scopes").
 *
 * With one rank, the top-level tasks submitted inside the outermost scope are
 * kept (copied) instead of submitted, up to the scope's end or the next
 * operation that must see them (a wait, a barrier, a fence, a top-level block
 * access, a task with fences or undeferred): a flush.  The flush submits them
 * column by column: a task's column is the linear index of its first block ref,
 * raised to the column of every earlier kept task that shares a block with it
 * (so no two dependent tasks swap: the order the runtime derives dependences
 * from only moves independent tasks past each other).  At most `window` columns
 * are in flight: before column c + window is submitted, the submitter waits
 * for (and helps run) the tasks of column c.  A block of a tensor created
 * inside the scope and destroyed in the same flush is released (its home
 * freed) by a permission-only task right after the last task that uses it.
 * Outside a scope nothing here runs: tamm__submit tests one flag it already
 * tests for the submission filter (tamm__submit_divert, divert.c), which this
 * file keeps up to date (tamm__divert_update) as scopes begin, flush and end.
 */
#include "scope.h"
#include "divert.h"
#include "runtime.h"
#include "tensor.h"
#include "task.h"
#include "memlimit.h"
#include "hostmem.h"
#include "layer.h"
#include "error.h"
#include "util.h"
#include "tamm_assert.h"
#include <stdlib.h>
#include <string.h>


typedef struct srec {
    tamm_task u;    /* refs and args point to the copies below */
    tamm_ref *refs;
    void *args;
    unsigned flags;
    long key, seq;
    const char *withheld; /* tamm_task_opts.cuda_withheld (its only option a kept task may have) */
} srec;

static int depth, flushing;
static srec *recs;
static long nrec, caprec;
static tamm_tensor **made; /* tensors created inside the outermost scope */
static long nmade, capmade;

static tamm_tensor **dying; /* destroyed inside the scope, not yet flushed */
static long ndying, capdying;

int tamm__scope_depth(void) { return depth; }

void tamm__scope_begin(void)
{
    depth++;
    tamm__divert_update();
}

void tamm__scope_created(tamm_tensor *T)
{
    if (depth == 0 || tamm__flow_on) return;
    if (nmade == capmade) {
        capmade = capmade ? 2 * capmade : 16;
        made = tamm__xrealloc(made, (size_t)capmade * sizeof *made);
    }
    made[nmade++] = T;
}

static int is_made(const tamm_tensor *T)
{
    for (long i = 0; i < nmade; i++)
        if (made[i] == T) return 1;
    return 0;
}

int tamm__scope_keeping(void) { return depth > 0 && !flushing && !tamm__flow_on; }

int tamm__scope_destroying(tamm_tensor *T)
{
    if (atomic_load(&T->destroyed)) return 1;
    for (long i = 0; i < ndying; i++)
        if (dying[i] == T) return 1;
    if (ndying == capdying) {
        capdying = capdying ? 2 * capdying : 16;
        dying = tamm__xrealloc(dying, (size_t)capdying * sizeof *dying);
    }
    dying[ndying++] = T;
    return 0;
}

/* ---- the blocks a ref touches ---------------------------------------- */

/* Calls f(T, lin, arg) for each block of ref r; a ref it cannot read as blocks
 * (bad tensor or index: the submission reports it later) covers the tensor. */
static void ref_blocks(const tamm_ref *r, void (*f)(tamm_tensor *, long, void *), void *arg)
{
    tamm_tensor *T = r->tensor;
    if (!T || !T->blocks || T->nblk <= 0 || (r->mode & TAMM_TEMP)) return;
    long lo[TAMM_MAX_DIMS], hi[TAMM_MAX_DIMS];
    int all = r->nidx != T->ndim;
    for (int d = 0; !all && d < T->ndim; d++) {
        long v = r->idx[d], nb = T->nblocks[d];
        if (v >= 0 && v < nb) { lo[d] = v; hi[d] = v + 1; }
        else if (v == TAMM_ALL) { lo[d] = 0; hi[d] = nb; }
        else if (v < TAMM__RANGE_BASE / 2) {
            long x = v - TAMM__RANGE_BASE;
            long l = (x >> 30) - TAMM__RANGE_BIAS, h = (x & ((1L << 30) - 1)) - TAMM__RANGE_BIAS;
            if (l < 0 || h > nb || l >= h) all = 1;
            else { lo[d] = l; hi[d] = h; }
        } else all = 1;
    }
    if (all) {
        for (long b = 0; b < T->nblk; b++) f(T, b, arg);
        return;
    }
    long idx[TAMM_MAX_DIMS];
    for (int d = 0; d < T->ndim; d++) idx[d] = lo[d];
    for (;;) {
        f(T, tamm__block_lin(T, idx, T->ndim), arg);
        int d = T->ndim - 1;
        while (d >= 0 && ++idx[d] == hi[d]) { idx[d] = lo[d]; d--; }
        if (d < 0) break;
    }
}

/* per tensor of the flush: each block's largest key so far and its last user */
typedef struct { tamm_tensor *T; long *maxkey; long *last; int local; } tinfo;
static tinfo *ti;
static long nti, capti;

static tinfo *info(tamm_tensor *T)
{
    for (long i = nti - 1; i >= 0; i--)
        if (ti[i].T == T) return &ti[i];
    if (nti == capti) {
        capti = capti ? 2 * capti : 16;
        ti = tamm__xrealloc(ti, (size_t)capti * sizeof *ti);
    }
    tinfo *x = &ti[nti++];
    x->T = T;
    x->maxkey = tamm__xcalloc((size_t)T->nblk, sizeof *x->maxkey);
    x->last = tamm__xmalloc((size_t)T->nblk * sizeof *x->last);
    for (long b = 0; b < T->nblk; b++) x->last[b] = -1;
    x->local = 0;
    return x;
}

static void blk_maxkey(tamm_tensor *T, long lin, void *arg)
{
    long *k = arg, m = info(T)->maxkey[lin];
    if (m > *k) *k = m;
}
static void blk_setkey(tamm_tensor *T, long lin, void *arg) { info(T)->maxkey[lin] = *(long *)arg; }
static void blk_last(tamm_tensor *T, long lin, void *arg) { info(T)->last[lin] = *(long *)arg; }

static int by_key(const void *a, const void *b)
{
    const srec *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- keeping tasks ---------------------------------------------------- */

int tamm__scope_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, tamm__task_s **out)
{
    int plain_o = !o || (!o->nwait && !o->nsignal && !o->undeferred && !o->collective);
    int keep = depth > 0 && !flushing && !tamm__flow_on && !out && (flags & ~(unsigned)TAMM_TF_DESTROY) == 0 && u &&
               plain_o && u->nrefs >= 0 && (u->nrefs == 0 || u->refs) && (u->args_size == 0 || u->args);
    if (!keep) {
        (void)tamm__scope_flush(); /* an error stays recorded for the next wait */
        return -1;
    }
    if (nrec == caprec) {
        caprec = caprec ? 2 * caprec : 256;
        recs = tamm__xrealloc(recs, (size_t)caprec * sizeof *recs);
    }
    srec *r = &recs[nrec];
    r->u = *u;
    r->refs = NULL;
    r->args = NULL;
    if (u->nrefs) {
        r->refs = tamm__xmalloc((size_t)u->nrefs * sizeof *r->refs);
        memcpy(r->refs, u->refs, (size_t)u->nrefs * sizeof *r->refs);
    }
    if (u->args_size) {
        r->args = tamm__xmalloc(u->args_size);
        memcpy(r->args, u->args, u->args_size);
    }
    r->u.refs = r->refs;
    r->u.args = r->args;
    r->flags = flags;
    r->withheld = o ? o->cuda_withheld : NULL;
    r->seq = nrec;
    r->key = 0;
    nrec++;
    return TAMM_OK;
}

/* ---- releasing blocks ------------------------------------------------- */

static void release_body(tamm_ctx *ctx, void *args)
{
    (void)ctx;
    tamm_tensor *T;
    long lin;
    memcpy(&T, args, sizeof T);
    memcpy(&lin, (char *)args + sizeof T, sizeof lin);
    if (T->gpu) return; /* copies on GPUs: the tensor's destroy frees them all */
    if (tamm__ml_on && T->ml) {
        tamm__ml_release(T, lin);
        return;
    }
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    void *p = b->home;
    TAMM_ASSERT(!b->units[0].rc && !b->units[0].pending); /* this task holds the block: no buffer of it is out */
    if (b->units[0].rc || b->units[0].pending) p = NULL;
    if (p) {
        b->home = NULL;
        b->units[0].buf = NULL;
        b->units[0].state = TAMM_BS_UNALLOC;
    }
    tamm__spin_unlock(&b->lock);
    if (p) tamm__home_free(p, b->bytes);
}

static int submit_release(tamm_tensor *T, long lin)
{
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = T->ndim;
    tamm__block_idx(T, lin, r.idx);
    r.mode = TAMM_WRITE | TAMM_PERMISSION_ONLY;
    char args[sizeof T + sizeof lin];
    memcpy(args, &T, sizeof T);
    memcpy(args + sizeof T, &lin, sizeof lin);
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = release_body;
    t.args = args;
    t.args_size = sizeof args;
    t.refs = &r;
    t.nrefs = 1;
    t.label = "streaming release";
    t.rank = -1;
    return tamm__submit(NULL, &t, NULL, 0, NULL);
}

typedef struct { long pos; int rc; } relarg;
static void blk_release(tamm_tensor *T, long lin, void *arg)
{
    relarg *a = arg;
    tinfo *x = info(T);
    if (x->local && x->last[lin] == a->pos) {
        x->last[lin] = -2; /* once */
        int rc = submit_release(T, lin);
        if (rc && !a->rc) a->rc = rc;
    }
}

/* ---- the flush -------------------------------------------------------- */

static int window(void)
{
    static int w;
    if (!w) {
        const char *e = getenv("TAMM_STREAM_WINDOW");
        long v = e ? strtol(e, NULL, 10) : 0;
        w = v > 0 && v < 1 << 20 ? (int)v : tamm__rt.nworkers + 1 < 2 ? 2 : tamm__rt.nworkers + 1;
    }
    return w;
}

int tamm__scope_flush(void)
{
    if (nrec == 0 || flushing) return TAMM_OK;
    flushing = 1;
    tamm__divert_update();
    int rc = TAMM_OK;
    long n = nrec;
    nti = 0;
    /* keys: a task's own column, raised past every earlier task sharing a block */
    for (long i = 0; i < n; i++) {
        srec *r = &recs[i];
        long col = 0;
        for (int j = 0; j < r->u.nrefs; j++) {
            const tamm_ref *f = &r->refs[j];
            if (f->tensor && f->tensor->blocks && !(f->mode & TAMM_TEMP) && f->nidx == f->tensor->ndim) {
                long lin = tamm__block_lin(f->tensor, f->idx, f->nidx);
                if (lin >= 0) { col = lin; break; }
            }
        }
        long k = col;
        for (int j = 0; j < r->u.nrefs; j++) ref_blocks(&r->refs[j], blk_maxkey, &k);
        r->key = k;
        for (int j = 0; j < r->u.nrefs; j++) ref_blocks(&r->refs[j], blk_setkey, &k);
        if ((r->flags & TAMM_TF_DESTROY) && r->u.nrefs > 0 && r->refs[0].tensor && r->refs[0].tensor->blocks &&
            is_made(r->refs[0].tensor))
            info(r->refs[0].tensor)->local = 1;
    }
    qsort(recs, (size_t)n, sizeof *recs, by_key);
    /* each block's last user in the new order (the destroy does not count) */
    for (long i = 0; i < n; i++)
        if (!(recs[i].flags & TAMM_TF_DESTROY))
            for (int j = 0; j < recs[i].u.nrefs; j++) ref_blocks(&recs[i].refs[j], blk_last, &i);
    /* submit, column by column, at most window() columns in flight */
    int W = window();
    long *gstart = tamm__xmalloc((size_t)(n + 1) * sizeof *gstart); /* first record of each column */
    long ng = 0, waited = 0;
    for (long i = 0; i < n; i++) {
        if (i == 0 || recs[i].key != recs[i - 1].key) {
            gstart[ng++] = i;
            while (ng - 1 - waited >= W) { /* wait for the oldest column in flight */
                long a = gstart[waited], z = gstart[waited + 1];
                for (long j = a; j < z; j++)
                    if (recs[j].u.nrefs && !(recs[j].flags & TAMM_TF_DESTROY)) {
                        int e = tamm_wait_on(recs[j].refs, recs[j].u.nrefs);
                        if (e && !rc) rc = e;
                    }
                waited++;
            }
        }
        srec *r = &recs[i];
        int e;
        if (r->flags & TAMM_TF_DESTROY) {
            atomic_store(&r->refs[0].tensor->destroyed, 1); /* now: the tasks before it were submitted */
            e = tamm__submit(NULL, &r->u, NULL, r->flags, NULL);
        }
        else {
            tamm_task_opts wo;
            memset(&wo, 0, sizeof wo);
            wo.cuda_withheld = r->withheld;
            e = tamm__submit(NULL, &r->u, r->withheld ? &wo : NULL, 0, NULL);
        }
        if (e && !rc) rc = e;
        if (!(r->flags & TAMM_TF_DESTROY)) {
            relarg a = { i, TAMM_OK };
            for (int j = 0; j < r->u.nrefs; j++) ref_blocks(&r->refs[j], blk_release, &a);
            if (a.rc && !rc) rc = a.rc;
        }
    }
    free(gstart);
    for (long i = 0; i < n; i++) {
        free(recs[i].refs);
        free(recs[i].args);
    }
    for (long i = 0; i < nti; i++) {
        free(ti[i].maxkey);
        free(ti[i].last);
    }
    nti = 0;
    nrec = 0;
    ndying = 0;
    flushing = 0;
    tamm__divert_update();
    return rc;
}

int tamm__scope_end(void)
{
    int rc = TAMM_OK;
    if (depth == 1) rc = tamm__scope_flush();
    depth--;
    if (depth == 0) {
        nmade = 0;
        free(made);
        made = NULL;
        capmade = 0;
        free(recs);
        recs = NULL;
        caprec = 0;
        free(ti);
        ti = NULL;
        capti = 0;
        free(dying);
        dying = NULL;
        capdying = 0;
    }
    tamm__divert_update();
    return rc;
}
