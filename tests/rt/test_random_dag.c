/*
 * test_random_dag.c — randomised differential test of libtammrt.
 *
 * A seeded generator builds random programs over 1-3 int64 tensors of 1-3
 * dimensions (dims not multiples of the tiles, so edge blocks are smaller):
 * 50-400 top-level tasks, each with 1-4 refs (blocks, slices with TAMM_ALL,
 * whole tensors) in READ / WRITE / READWRITE / ACCUM mode, sometimes
 * TAMM_CANCELLABLE, sometimes TAMM_PERMISSION_ONLY, plus TAMM_TEMP refs, and a
 * few top-level steps (tamm_block_at updates, tamm_wait_all, tamm_barrier).
 * Every task body performs deterministic integer operations on exactly the
 * blocks its permissions allow, following docs/runtime.md:
 *   read       fold the values into a task-local hash; release_put or _cancel
 *   write      overwrite every element with f(hash, key, i); release_put
 *   readwrite  x = x*3 + hash + i; release_put
 *   accum      buf[i] += g(hash, key, i) (private zero-filled buffer or the
 *              block itself: both give old + g); release_add (or _cancel on an
 *              ACCUM|CANCELLABLE ref)
 *   tmp        fill; release_put (needs W) / _add (needs ACC or W) / _cancel
 *   cwrite / creadwrite  as write / readwrite, then release_put or _cancel
 * At most one buffer per block per task (docs: a second exclusive buffer of a
 * block in one task is TAMM_EFSM).  Values stay within +-2^40 so no signed
 * overflow can occur anywhere.  Each task stores its final hash in a per-task
 * slot, so what every reader saw is checked too.
 *
 * The sequential reference runs the same steps, in submission order, on plain
 * arrays with the same functions.  Every program runs at TAMM_NUM_WORKERS =
 * 1, 2, 4, 8 (scheduler ws), and some also with TAMM_SCHED=fifo / prio and
 * TAMM_SEQUENTIAL=1; tensors are gathered and compared bit for bit.
 *
 * test_random_nested.c includes this file with RANDOM_NESTED=1: parents hold
 * permissions (slices, PERMISSION_ONLY refs) and submit 1-5 children through
 * their ctx, sometimes two levels deep; a parent's own accesses avoid every
 * block its descendants name.  The reference runs children inline.
 *
 * Environment:
 *   TAMM_TEST_SCALE=x      multiply the number of seeds (default 1; sanitizer
 *                          builds divide by 8 first)
 *   TAMM_RAND_SEED=s       run only seed s
 *   TAMM_RAND_NSEEDS=n     number of seeds; TAMM_RAND_FIRST=s first seed
 *   TAMM_RAND_CONFIG=w[,sched[,seq]]  run only this configuration
 *   TAMM_RAND_DUMP=1       print each program before running it
 *   TAMM_RAND_MINIMIZE=1   on a failure, shrink the program's top-level step
 *                          list while it keeps failing and print the result
 *   TAMM_RAND_VERBOSE=1    one line per program
 *   TAMM_RAND_MEMLIMIT=1   the limit variant (test_random_dag_memlimit): every
 *                          program also runs under TAMM_MEMORY_LIMIT from one
 *                          block's worth to all of its tensors, at 1, 2 and 4
 *                          workers.  Where the limit is below what some task's
 *                          refs name (twice over: a private buffer per block) a
 *                          TAMM_ENOMEM ends the run and counts as a pass; every
 *                          other run must equal the reference, and none may
 *                          hang (the alarm).
 */
#include <tamm.h>

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef RANDOM_NESTED
#define RANDOM_NESTED 0
#endif
/* RANDOM_MPI=1 (tests/rt/mpi/): the same programs on every rank of an MPI run;
 * some top-level tasks get on(r); what each task read is combined over the
 * ranks (a task's hash is set on the rank that ran it). */
#ifndef RANDOM_MPI
#define RANDOM_MPI 0
#endif
#if RANDOM_MPI
#include <mpi.h>
#endif

#if RANDOM_MPI && RANDOM_NESTED
#define TEST_NAME "test_mpi_random_nested"
#define DEFAULT_SEEDS 30
#elif RANDOM_MPI
#define TEST_NAME "test_mpi_random_dag"
#define DEFAULT_SEEDS 40
#elif RANDOM_NESTED
#define TEST_NAME "test_random_nested"
#define DEFAULT_SEEDS 600
#else
#define TEST_NAME "test_random_dag"
#define DEFAULT_SEEDS 1000
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

#define MAXT 3          /* tensors per program */
#define MAXD 3          /* dimensions per tensor */
#define MAXREFS 8       /* refs per task: up to 4 main + up to 2 temp (+ slack) */
#define MAXSTEPS 12     /* body steps per task: actions and child submissions */
#define MAXBLK 343      /* 7*7*7 elements per block at most */

/* ------------------------------------------------------------------ */
/* PRNG and hashing                                                     */
/* ------------------------------------------------------------------ */
static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t s = a ^ (b * 0xD6E8FEB86659FD93ULL + 0x632BE59BD9B4E019ULL);
    return sm64(&s);
}
static uint64_t g_rng;
static uint64_t rnd(uint64_t n) { return n ? sm64(&g_rng) % n : 0; }
static int chance(int pct) { return (int)rnd(100) < pct; }

/* Stored values are int64 in [-2^39, 2^39) (plus bounded accumulations). */
#define VMASK ((1ULL << 40) - 1)
static uint64_t norm(uint64_t v) { return (v & VMASK) - (1ULL << 39); }
/* An accumulation contribution in [-2^19, 2^19). */
static uint64_t accval(uint64_t h, uint64_t key, uint64_t i) { return (mix(h ^ key, i) & 0xFFFFF) - 0x80000; }

/* ------------------------------------------------------------------ */
/* Programs                                                             */
/* ------------------------------------------------------------------ */
typedef struct {
    int ndim;
    size_t dims[MAXD], tile[MAXD];
    long nb[MAXD];
    size_t nelem;
} tdesc;

typedef struct { int t; int nidx; long idx[MAXD]; unsigned mode; } gref;

enum { OP_READ, OP_WRITE, OP_RW, OP_ACC, OP_TMP, OP_CWRITE, OP_CRW, OP_COUNT };
enum { CM_PUT, CM_ADD, CM_CANCEL };
enum { ST_ACT, ST_CHILD };
static const char *op_names[OP_COUNT] = {"read", "write", "readwrite", "accum", "tmp", "cwrite", "creadwrite"};
static const char *cm_names[3] = {"put", "add", "cancel"};

typedef struct { unsigned char kind, op, commit, t; int child; long idx[MAXD]; } step;

typedef struct {
    int nrefs;
    gref refs[MAXREFS];
    int nsteps;
    step steps[MAXSTEPS];
    int prio, depth, parent;
    char label[24];
} node;

enum { TOP_TASK, TOP_HOSTMOD, TOP_WAITALL, TOP_BARRIER };
typedef struct { int kind, node, t; long idx[MAXD]; uint64_t key; } topstep;

typedef struct {
    uint64_t seed;
    int ntens;
    tdesc T[MAXT];
    int nnodes, capnodes;
    node *nodes;
    int ntop;
    topstep *top;
} prog;

static size_t blk_extent(const tdesc *d, int dim, long b)
{
    size_t lo = (size_t)b * d->tile[dim];
    size_t hi = lo + d->tile[dim];
    if (hi > d->dims[dim]) hi = d->dims[dim];
    return hi - lo;
}
static size_t blk_elems(const tdesc *d, const long *idx)
{
    size_t n = 1;
    for (int k = 0; k < d->ndim; k++) n *= blk_extent(d, k, idx[k]);
    return n;
}

/* Does ref r cover block (t, idx)? */
static int ref_covers(const gref *r, int t, const long *idx, int ndim)
{
    if (r->t != t) return 0;
    if (r->nidx == 0) return 1;
    for (int k = 0; k < ndim; k++)
        if (r->idx[k] != TAMM_ALL && r->idx[k] != idx[k]) return 0;
    return 1;
}
static int refs_overlap(const gref *a, const gref *b, int ndim)
{
    if (a->t != b->t) return 0;
    if (a->nidx == 0 || b->nidx == 0) return 1;
    for (int k = 0; k < ndim; k++)
        if (a->idx[k] != TAMM_ALL && b->idx[k] != TAMM_ALL && a->idx[k] != b->idx[k]) return 0;
    return 1;
}
static int is_temp(const gref *r) { return (r->mode & TAMM_TEMP) != 0; }
static int is_block_ref(const gref *r, int ndim)
{
    if (r->nidx != ndim) return 0;
    for (int k = 0; k < ndim; k++)
        if (r->idx[k] == TAMM_ALL) return 0;
    return 1;
}

/* Union of the permission bits of a node's non-temp refs on a block. */
static unsigned node_mask(const prog *P, int id, int t, const long *idx)
{
    const node *n = &P->nodes[id];
    unsigned m = 0;
    for (int i = 0; i < n->nrefs; i++)
        if (!is_temp(&n->refs[i]) && ref_covers(&n->refs[i], t, idx, P->T[t].ndim))
            m |= n->refs[i].mode & 7u;
    return m;
}
/* The cancellable ref covering a block (by construction the only non-temp one), or NULL. */
static const gref *node_cref(const prog *P, int id, int t, const long *idx)
{
    const node *n = &P->nodes[id];
    for (int i = 0; i < n->nrefs; i++)
        if (!is_temp(&n->refs[i]) && (n->refs[i].mode & TAMM_CANCELLABLE) &&
            ref_covers(&n->refs[i], t, idx, P->T[t].ndim))
            return &n->refs[i];
    return NULL;
}
/* Does node id or any of its descendants name block (t, idx) in a ref? */
static int names_rec(const prog *P, int id, int t, const long *idx)
{
    const node *n = &P->nodes[id];
    for (int i = 0; i < n->nrefs; i++)
        if (ref_covers(&n->refs[i], t, idx, P->T[t].ndim)) return 1;
    for (int s = 0; s < n->nsteps; s++)
        if (n->steps[s].kind == ST_CHILD && names_rec(P, n->steps[s].child, t, idx)) return 1;
    return 0;
}
static int children_name(const prog *P, int id, int t, const long *idx)
{
    const node *n = &P->nodes[id];
    for (int s = 0; s < n->nsteps; s++)
        if (n->steps[s].kind == ST_CHILD && names_rec(P, n->steps[s].child, t, idx)) return 1;
    return 0;
}

/* Random block, biased towards the first blocks so that tasks conflict often. */
static void hot_block(const tdesc *d, long *idx)
{
    for (int k = 0; k < d->ndim; k++) {
        long nb = d->nb[k];
        idx[k] = chance(55) ? (long)rnd((uint64_t)nb) : (long)rnd((uint64_t)(nb < 2 ? nb : 2));
    }
}
/* A random block inside ref r. */
static void block_in_ref(const prog *P, const gref *r, long *idx)
{
    const tdesc *d = &P->T[r->t];
    for (int k = 0; k < d->ndim; k++)
        idx[k] = (r->nidx == 0 || r->idx[k] == TAMM_ALL) ? (long)rnd((uint64_t)d->nb[k]) : r->idx[k];
}

static unsigned rand_mode(void)
{
    int r = (int)rnd(100);
    return r < 35 ? TAMM_READ : r < 55 ? TAMM_WRITE : r < 75 ? TAMM_READWRITE : TAMM_ACCUM;
}
static void rand_flags(gref *r)
{
    if ((r->mode & 7u) != TAMM_READ && chance(25)) r->mode |= TAMM_CANCELLABLE;
    if (chance(14)) r->mode = (r->mode & 7u) | TAMM_PERMISSION_ONLY;
}

/* Shape a ref around block b: 0 block, 1 slice, 2 whole tensor. */
static void shape_ref(const prog *P, gref *r, int t, const long *b, int shape)
{
    const tdesc *d = &P->T[t];
    r->t = t;
    if (shape == 2) { r->nidx = 0; return; }
    r->nidx = d->ndim;
    for (int k = 0; k < d->ndim; k++) r->idx[k] = b[k];
    if (shape == 1) {
        int any = 0;
        for (int k = 0; k < d->ndim; k++)
            if (chance(50)) { r->idx[k] = TAMM_ALL; any = 1; }
        if (!any) r->idx[rnd((uint64_t)d->ndim)] = TAMM_ALL;
    }
}
static int rand_shape(void)
{
    int r = (int)rnd(100);
    return r < 60 ? 0 : r < 86 ? 1 : 2;
}

static void gen_ref_free(const prog *P, gref *r)
{
    int t = (int)rnd((uint64_t)P->ntens);
    long b[MAXD];
    hot_block(&P->T[t], b);
    shape_ref(P, r, t, b, rand_shape());
    r->mode = rand_mode();
    rand_flags(r);
}

/* Child modes a parent permission mask allows (bit 0 R, 1 W, 2 RW, 3 ACC). */
static unsigned allowed_modes(unsigned pm)
{
    if (pm & TAMM_WRITE) return 0xF;
    return ((pm & TAMM_READ) ? 1u : 0u) | ((pm & TAMM_ACCUM) ? 8u : 0u);
}
static const unsigned mode_of_bit[4] = {TAMM_READ, TAMM_WRITE, TAMM_READWRITE, TAMM_ACCUM};

/* Visit every block a ref covers; stop early if fn returns nonzero. */
typedef int (*blk_visit)(const prog *P, int t, const long *idx, void *arg);
static int for_blocks(const prog *P, const gref *r, blk_visit fn, void *arg)
{
    const tdesc *d = &P->T[r->t];
    long lo[MAXD] = {0}, hi[MAXD] = {1, 1, 1}, idx[MAXD] = {0};
    for (int k = 0; k < d->ndim; k++) {
        if (r->nidx == 0 || r->idx[k] == TAMM_ALL) { lo[k] = 0; hi[k] = d->nb[k]; }
        else { lo[k] = r->idx[k]; hi[k] = r->idx[k] + 1; }
    }
    for (long a = lo[0]; a < hi[0]; a++)
        for (long b = lo[1]; b < hi[1]; b++)
            for (long c = lo[2]; c < hi[2]; c++) {
                idx[0] = a; idx[1] = b; idx[2] = c;
                if (fn(P, r->t, idx, arg)) return 1;
            }
    return 0;
}
struct allow_arg { int parent; unsigned allowed; };
static int allow_visit(const prog *P, int t, const long *idx, void *arg)
{
    struct allow_arg *a = arg;
    a->allowed &= allowed_modes(node_mask(P, a->parent, t, idx));
    return a->allowed == 0;
}

/* A ref within the permissions of node `parent`. */
static void gen_ref_within(const prog *P, int parent, gref *r)
{
    const node *pn = &P->nodes[parent];
    int cand[MAXREFS], nc = 0;
    for (int i = 0; i < pn->nrefs; i++)
        if (!is_temp(&pn->refs[i])) cand[nc++] = i;
    const gref *pr = &pn->refs[cand[rnd((uint64_t)nc)]];
    long b[MAXD];
    block_in_ref(P, pr, b);
    int shape = rand_shape();
    struct allow_arg aa = {parent, 0xF};
    shape_ref(P, r, pr->t, b, shape);
    for_blocks(P, r, allow_visit, &aa);
    if (aa.allowed == 0) {
        shape_ref(P, r, pr->t, b, 0);
        aa.allowed = allowed_modes(node_mask(P, parent, pr->t, b));
    }
    unsigned bits[4];
    int nb = 0;
    for (int i = 0; i < 4; i++)
        if (aa.allowed & (1u << i)) bits[nb++] = (unsigned)i;
    r->mode = mode_of_bit[bits[rnd((uint64_t)nb)]];
    rand_flags(r);
}

static int new_node(prog *P)
{
    if (P->nnodes == P->capnodes) {
        P->capnodes = P->capnodes ? 2 * P->capnodes : 256;
        P->nodes = realloc(P->nodes, (size_t)P->capnodes * sizeof(node));
        if (!P->nodes) { perror("realloc"); exit(2); }
    }
    int id = P->nnodes++;
    memset(&P->nodes[id], 0, sizeof(node));
    snprintf(P->nodes[id].label, sizeof P->nodes[id].label, "rand%d", id);
    return id;
}

/* Choose an operation on block (t, idx) allowed by node id's permissions; -1 if none. */
static int choose_op(const prog *P, int id, int t, const long *idx, step *st)
{
    unsigned m = node_mask(P, id, t, idx);
    const gref *cr = node_cref(P, id, t, idx);
    int ops[8], cms[8], n = 0;
    if (cr) {
        unsigned cm = cr->mode & 7u;
        if (cm & TAMM_WRITE) {
            ops[n] = OP_READ; cms[n++] = chance(50) ? CM_PUT : CM_CANCEL;
            ops[n] = OP_CWRITE; cms[n++] = chance(60) ? CM_PUT : CM_CANCEL;
            ops[n] = OP_CRW; cms[n++] = chance(60) ? CM_PUT : CM_CANCEL;
            ops[n] = OP_CWRITE; cms[n++] = chance(60) ? CM_PUT : CM_CANCEL;
            ops[n] = OP_CRW; cms[n++] = chance(60) ? CM_PUT : CM_CANCEL;
            ops[n] = OP_ACC; cms[n++] = CM_ADD;
        } else { /* ACCUM|CANCELLABLE */
            ops[n] = OP_ACC; cms[n++] = chance(60) ? CM_ADD : CM_CANCEL;
        }
    } else {
        if (m & (TAMM_READ | TAMM_WRITE)) { ops[n] = OP_READ; cms[n++] = chance(50) ? CM_PUT : CM_CANCEL; }
        if (m & TAMM_WRITE) {
            ops[n] = OP_WRITE; cms[n++] = CM_PUT;
            ops[n] = OP_RW; cms[n++] = CM_PUT;
            ops[n] = OP_WRITE; cms[n++] = CM_PUT;
            ops[n] = OP_RW; cms[n++] = CM_PUT;
            if (chance(30)) { ops[n] = OP_CWRITE; cms[n++] = chance(60) ? CM_PUT : CM_CANCEL; }
            if (chance(30)) { ops[n] = OP_CRW; cms[n++] = chance(60) ? CM_PUT : CM_CANCEL; }
        }
        if (m & TAMM_ACCUM) { ops[n] = OP_ACC; cms[n++] = CM_ADD; }
        else if ((m & TAMM_WRITE) && chance(50)) { ops[n] = OP_ACC; cms[n++] = CM_ADD; }
    }
    if (n == 0) return -1;
    int k = (int)rnd((uint64_t)n);
    st->kind = ST_ACT;
    st->op = (unsigned char)ops[k];
    st->commit = (unsigned char)cms[k];
    st->t = (unsigned char)t;
    memset(st->idx, 0, sizeof st->idx);
    for (int d = 0; d < P->T[t].ndim; d++) st->idx[d] = idx[d];
    return 0;
}

static int gen_node(prog *P, int parent, int depth, int maxdepth);

/* Generate node: refs, children (recursively), own actions, interleaved steps. */
static int gen_node(prog *P, int parent, int depth, int maxdepth)
{
    int id = new_node(P);
    node *n = &P->nodes[id];
    n->depth = depth;
    n->parent = parent;
    n->prio = (int)rnd(8);
    int nmain = 1 + (int)rnd(4);
    for (int i = 0; i < nmain; i++) {
        gref r;
        memset(&r, 0, sizeof r);
        if (parent < 0) gen_ref_free(P, &r);
        else gen_ref_within(P, parent, &r);
        n = &P->nodes[id];
        n->refs[n->nrefs++] = r;
    }
    int nchildren = 0;
    if (depth < maxdepth && chance(depth == 0 ? 60 : 35)) nchildren = 1 + (int)rnd(5);
    /* Cancellable refs must be the only non-temp ref on their blocks (and not on parents). */
    for (int i = 0; i < n->nrefs; i++) {
        if (!(n->refs[i].mode & TAMM_CANCELLABLE)) continue;
        int clear = nchildren > 0;
        for (int j = 0; j < n->nrefs && !clear; j++)
            if (j != i && refs_overlap(&n->refs[i], &n->refs[j], P->T[n->refs[i].t].ndim)) clear = 1;
        if (clear) n->refs[i].mode &= ~(unsigned)TAMM_CANCELLABLE;
    }
    int kids[5];
    for (int c = 0; c < nchildren; c++) kids[c] = gen_node(P, id, depth + 1, maxdepth);
    n = &P->nodes[id];
    for (int c = 0; c < nchildren; c++) {
        step *st = &n->steps[n->nsteps++];
        memset(st, 0, sizeof *st);
        st->kind = ST_CHILD;
        st->child = kids[c];
    }
    /* Own actions on blocks no descendant names. */
    step acts[8];
    int nacts = 0;
    int nmainrefs = n->nrefs;
    for (int i = 0; i < nmainrefs && nacts < 6; i++) {
        const gref *r = &P->nodes[id].refs[i];
        int tries;
        if (r->mode & TAMM_PERMISSION_ONLY) tries = chance(30) ? 1 : 0;
        else if (is_block_ref(r, P->T[r->t].ndim)) tries = chance(85) ? 1 : 0;
        else tries = 1 + (int)rnd(3);
        for (int k = 0; k < tries && nacts < 6; k++) {
            long b[MAXD] = {0};
            block_in_ref(P, r, b);
            int dup = 0;
            for (int a = 0; a < nacts; a++)
                if (acts[a].t == r->t && !memcmp(acts[a].idx, b, sizeof(long) * (size_t)P->T[r->t].ndim)) dup = 1;
            if (dup || children_name(P, id, r->t, b)) continue;
            step st;
            if (choose_op(P, id, r->t, b, &st) == 0) acts[nacts++] = st;
        }
    }
    /* Temp refs: 0-2, each on a block with no other action. */
    int ntemp = chance(35) ? (chance(30) ? 2 : 1) : 0;
    for (int k = 0; k < ntemp && nacts < 7; k++) {
        n = &P->nodes[id];
        long b[MAXD] = {0};
        int t;
        if (parent >= 0 || chance(75)) {
            const gref *r = &n->refs[rnd((uint64_t)nmainrefs)];
            t = r->t;
            block_in_ref(P, r, b);
        } else {
            t = (int)rnd((uint64_t)P->ntens);
            hot_block(&P->T[t], b);
        }
        int dup = 0;
        for (int a = 0; a < nacts; a++)
            if (acts[a].t == t && !memcmp(acts[a].idx, b, sizeof(long) * (size_t)P->T[t].ndim)) dup = 1;
        if (dup || children_name(P, id, t, b)) continue;
        unsigned m = node_mask(P, id, t, b);
        step st;
        memset(&st, 0, sizeof st);
        st.kind = ST_ACT;
        st.op = OP_TMP;
        st.t = (unsigned char)t;
        for (int d = 0; d < P->T[t].ndim; d++) st.idx[d] = b[d];
        if (m & TAMM_WRITE) { int r = (int)rnd(3); st.commit = (unsigned char)(r == 0 ? CM_PUT : r == 1 ? CM_ADD : CM_CANCEL); }
        else if (m & TAMM_ACCUM) st.commit = chance(65) ? CM_ADD : CM_CANCEL;
        else st.commit = CM_CANCEL;
        acts[nacts++] = st;
        gref tr;
        memset(&tr, 0, sizeof tr);
        tr.t = t;
        tr.nidx = P->T[t].ndim;
        for (int d = 0; d < P->T[t].ndim; d++) tr.idx[d] = b[d];
        tr.mode = TAMM_TEMP;
        n->refs[n->nrefs++] = tr;
    }
    /* Shuffle the refs (temps among the others) — refs order must not matter. */
    n = &P->nodes[id];
    for (int i = n->nrefs - 1; i > 0; i--) {
        int j = (int)rnd((uint64_t)i + 1);
        gref tmp = n->refs[i]; n->refs[i] = n->refs[j]; n->refs[j] = tmp;
    }
    /* Interleave own actions with the child submissions (order of each kept). */
    step merged[MAXSTEPS];
    int nm = 0, ci = 0, ai = 0;
    while (ci < n->nsteps || ai < nacts) {
        if (ai < nacts && (ci >= n->nsteps || chance(50))) merged[nm++] = acts[ai++];
        else merged[nm++] = n->steps[ci++];
    }
    memcpy(n->steps, merged, sizeof(step) * (size_t)nm);
    n->nsteps = nm;
    return id;
}

static void gen_prog(prog *P, uint64_t seed, int nested)
{
    memset(P, 0, sizeof *P);
    P->seed = seed;
    g_rng = seed * 0x2545F4914F6CDD1DULL ^ 0x5DEECE66DULL;
    P->ntens = 1 + (int)rnd(MAXT);
    for (int t = 0; t < P->ntens; t++) {
        tdesc *d = &P->T[t];
        d->ndim = 1 + (int)rnd(MAXD);
        d->nelem = 1;
        for (int k = 0; k < d->ndim; k++) {
            size_t dim = d->ndim < 3 ? 5 + (size_t)rnd(19) : 3 + (size_t)rnd(9);
            size_t maxt = dim < 7 ? dim : 7;
            size_t tile = 2 + (size_t)rnd(maxt - 1);
            if (dim % tile == 0 && chance(80)) dim++;
            d->dims[k] = dim;
            d->tile[k] = tile;
            d->nb[k] = (long)((dim + tile - 1) / tile);
            d->nelem *= dim;
        }
    }
    P->ntop = 50 + (int)rnd(351);
    P->top = calloc((size_t)P->ntop, sizeof(topstep));
    if (!P->top) { perror("calloc"); exit(2); }
    for (int i = 0; i < P->ntop; i++) {
        topstep *s = &P->top[i];
        int r = (int)rnd(1000);
        if (r < 15) {
            s->kind = TOP_HOSTMOD;
            s->t = (int)rnd((uint64_t)P->ntens);
            hot_block(&P->T[s->t], s->idx);
            s->key = sm64(&g_rng);
        } else if (r < 22) {
            s->kind = TOP_WAITALL;
        } else if (r < 28) {
            s->kind = TOP_BARRIER;
        } else {
            s->kind = TOP_TASK;
            s->node = gen_node(P, -1, 0, nested ? (chance(30) ? 2 : 1) : 0);
        }
    }
}

static void free_prog(prog *P)
{
    free(P->nodes);
    free(P->top);
    P->nodes = NULL;
    P->top = NULL;
}

/* ------------------------------------------------------------------ */
/* Printing programs (for reproductions)                                */
/* ------------------------------------------------------------------ */
static void print_idx(FILE *f, int nidx, const long *idx)
{
    fputc('(', f);
    if (nidx == 0) fputs("whole", f);
    for (int k = 0; k < nidx; k++) {
        if (k) fputc(',', f);
        if (idx[k] == TAMM_ALL) fputs("ALL", f);
        else fprintf(f, "%ld", idx[k]);
    }
    fputc(')', f);
}
static void print_mode(FILE *f, unsigned m)
{
    static const char *base[8] = {"-", "READ", "WRITE", "READWRITE", "ACCUM", "READ|ACCUM", "WRITE|ACCUM", "RW|ACCUM"};
    if (m & TAMM_TEMP) { fputs("TEMP", f); return; }
    fputs(base[m & 7u], f);
    if (m & TAMM_CANCELLABLE) fputs("|CANCELLABLE", f);
    if (m & TAMM_PERMISSION_ONLY) fputs("|PERMISSION_ONLY", f);
}
static void print_node(FILE *f, const prog *P, int id, int indent)
{
    const node *n = &P->nodes[id];
    fprintf(f, "%*stask %s prio %d refs:", indent, "", n->label, n->prio);
    for (int i = 0; i < n->nrefs; i++) {
        const gref *r = &n->refs[i];
        fprintf(f, " T%d", r->t);
        print_idx(f, r->nidx, r->idx);
        fputc(':', f);
        print_mode(f, r->mode);
    }
    fputc('\n', f);
    for (int s = 0; s < n->nsteps; s++) {
        const step *st = &n->steps[s];
        if (st->kind == ST_CHILD) {
            print_node(f, P, st->child, indent + 4);
        } else {
            fprintf(f, "%*s  %s T%d", indent, "", op_names[st->op], st->t);
            print_idx(f, P->T[st->t].ndim, st->idx);
            fprintf(f, " -> %s\n", cm_names[st->commit]);
        }
    }
}
static void print_prog(FILE *f, const prog *P)
{
    fprintf(f, "program seed %llu: %d tensors, %d top-level steps, %d tasks\n",
            (unsigned long long)P->seed, P->ntens, P->ntop, P->nnodes);
    for (int t = 0; t < P->ntens; t++) {
        const tdesc *d = &P->T[t];
        fprintf(f, "  T%d int64 dims", t);
        for (int k = 0; k < d->ndim; k++) fprintf(f, "%s%zu", k ? "x" : " ", d->dims[k]);
        fprintf(f, " tiles");
        for (int k = 0; k < d->ndim; k++) fprintf(f, "%s%zu", k ? "x" : " ", d->tile[k]);
        fputc('\n', f);
    }
    for (int i = 0; i < P->ntop; i++) {
        const topstep *s = &P->top[i];
        switch (s->kind) {
        case TOP_TASK: print_node(f, P, s->node, 2); break;
        case TOP_WAITALL: fprintf(f, "  tamm_wait_all()\n"); break;
        case TOP_BARRIER: fprintf(f, "  tamm_barrier()\n"); break;
        case TOP_HOSTMOD:
            fprintf(f, "  top level: p = tamm_block_at(T%d", s->t);
            print_idx(f, P->T[s->t].ndim, s->idx);
            fprintf(f, "); p[i] = norm((p[i] ^ 0x%llx) + i)\n", (unsigned long long)s->key);
            break;
        }
    }
}

/* ------------------------------------------------------------------ */
/* The operations (shared by the runtime bodies and the reference)      */
/* ------------------------------------------------------------------ */
static uint64_t hinit(const prog *P, int id) { return mix(P->seed, (uint64_t)id + 12345u); }
static uint64_t step_key(const prog *P, int id, int s) { return mix(P->seed ^ ((uint64_t)id << 20), (uint64_t)s); }

static void apply(int op, uint64_t *buf, size_t n, uint64_t *h, uint64_t key)
{
    uint64_t x = *h;
    switch (op) {
    case OP_READ:
        for (size_t i = 0; i < n; i++) x = mix(x, buf[i]);
        break;
    case OP_WRITE: case OP_CWRITE: case OP_TMP:
        for (size_t i = 0; i < n; i++) buf[i] = norm(mix(x ^ key, i));
        break;
    case OP_RW: case OP_CRW:
        for (size_t i = 0; i < n; i++) {
            uint64_t old = buf[i];
            buf[i] = norm(old * 3u + *h + i);
            x = mix(x, old);
        }
        break;
    case OP_ACC:
        for (size_t i = 0; i < n; i++) buf[i] += accval(x, key, i);
        break;
    }
    *h = mix(x, key + (uint64_t)op);
}

static void hostmod(uint64_t *p, size_t n, uint64_t key)
{
    for (size_t i = 0; i < n; i++) p[i] = norm((p[i] ^ key) + i);
}

/* Copy between a block and a row-major tensor array: 0 get, 1 put, 2 add. */
static void blk_xfer(const tdesc *d, const long *idx, uint64_t *arr, uint64_t *buf, int dir)
{
    size_t e[3] = {1, 1, 1}, o[3] = {0, 0, 0}, gd[3] = {1, 1, 1};
    int off = 3 - d->ndim;
    for (int k = 0; k < d->ndim; k++) {
        e[off + k] = blk_extent(d, k, idx[k]);
        o[off + k] = (size_t)idx[k] * d->tile[k];
        gd[off + k] = d->dims[k];
    }
    size_t i = 0;
    for (size_t a = 0; a < e[0]; a++)
        for (size_t b = 0; b < e[1]; b++)
            for (size_t c = 0; c < e[2]; c++, i++) {
                size_t g = ((o[0] + a) * gd[1] + (o[1] + b)) * gd[2] + (o[2] + c);
                if (dir == 0) buf[i] = arr[g];
                else if (dir == 1) arr[g] = buf[i];
                else arr[g] += buf[i];
            }
}

/* ------------------------------------------------------------------ */
/* Sequential reference                                                 */
/* ------------------------------------------------------------------ */
static void ref_node(const prog *P, uint64_t **data, uint64_t *hashes, int id)
{
    const node *n = &P->nodes[id];
    uint64_t h = hinit(P, id);
    for (int s = 0; s < n->nsteps; s++) {
        const step *st = &n->steps[s];
        if (st->kind == ST_CHILD) { ref_node(P, data, hashes, st->child); continue; }
        const tdesc *d = &P->T[st->t];
        size_t ne = blk_elems(d, st->idx);
        uint64_t buf[MAXBLK];
        switch (st->op) {
        case OP_READ: case OP_RW: case OP_CRW: blk_xfer(d, st->idx, data[st->t], buf, 0); break;
        case OP_ACC: memset(buf, 0, ne * sizeof *buf); break;
        default: memset(buf, 0xA5, ne * sizeof *buf); break;
        }
        apply(st->op, buf, ne, &h, step_key(P, id, s));
        switch (st->op) {
        case OP_READ: break;
        case OP_WRITE: case OP_RW: blk_xfer(d, st->idx, data[st->t], buf, 1); break;
        default:
            if (st->commit == CM_PUT) blk_xfer(d, st->idx, data[st->t], buf, 1);
            else if (st->commit == CM_ADD) blk_xfer(d, st->idx, data[st->t], buf, 2);
            break;
        }
    }
    hashes[id] = h;
}

static void ref_run(const prog *P, uint64_t **data, uint64_t *hashes)
{
    for (int t = 0; t < P->ntens; t++) memset(data[t], 0, P->T[t].nelem * sizeof(uint64_t));
    for (int i = 0; i < P->nnodes; i++) hashes[i] = ~0ULL;
    for (int i = 0; i < P->ntop; i++) {
        const topstep *s = &P->top[i];
        if (s->kind == TOP_TASK) {
            ref_node(P, data, hashes, s->node);
        } else if (s->kind == TOP_HOSTMOD) {
            const tdesc *d = &P->T[s->t];
            uint64_t buf[MAXBLK];
            blk_xfer(d, s->idx, data[s->t], buf, 0);
            hostmod(buf, blk_elems(d, s->idx), s->key);
            blk_xfer(d, s->idx, data[s->t], buf, 1);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Runtime execution                                                    */
/* ------------------------------------------------------------------ */
static int g_body_err;          /* errors seen inside task bodies (atomic) */
static char g_body_msg[512];

__attribute__((format(printf, 1, 2))) static void body_fail(const char *fmt, ...)
{
    if (__atomic_fetch_add(&g_body_err, 1, __ATOMIC_SEQ_CST) == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g_body_msg, sizeof g_body_msg, fmt, ap);
        va_end(ap);
    }
}

typedef struct {
    const prog *P;
    tamm_tensor *tens[MAXT];
    uint64_t *hashes;
    int id, nsteps;
    step steps[MAXSTEPS];  /* only nsteps are copied (args_size) */
} targs;

static void task_body(tamm_ctx *ctx, void *va);

static int submit_node(tamm_ctx *ctx, const prog *P, tamm_tensor *const *tens, uint64_t *hashes, int id)
{
    const node *n = &P->nodes[id];
    tamm_ref refs[MAXREFS];
    memset(refs, 0, sizeof refs);
    for (int i = 0; i < n->nrefs; i++) {
        refs[i].tensor = tens[n->refs[i].t];
        refs[i].nidx = n->refs[i].nidx;
        for (int k = 0; k < n->refs[i].nidx; k++) refs[i].idx[k] = n->refs[i].idx[k];
        refs[i].mode = n->refs[i].mode;
    }
    targs a;
    memset(&a, 0, sizeof a);
    a.P = P;
    for (int t = 0; t < P->ntens; t++) a.tens[t] = tens[t];
    a.hashes = hashes;
    a.id = id;
    a.nsteps = n->nsteps;
    memcpy(a.steps, n->steps, sizeof(step) * (size_t)n->nsteps);
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = task_body;
    t.args = &a;
    t.args_size = offsetof(targs, steps) + sizeof(step) * (size_t)n->nsteps;
    t.refs = refs;
    t.nrefs = n->nrefs;
    t.label = n->label;
    t.priority = n->prio;
    t.rank = -1;
#if RANDOM_MPI
    /* one top-level task in six runs on a rank of its own choice, on(r) */
    if (!ctx && mix(P->seed, (uint64_t)id * 7 + 3) % 6 == 0)
        t.rank = (int)(mix(P->seed, (uint64_t)id) % (uint64_t)tamm_nranks());
#endif
    t.file = __FILE__;
    t.line = __LINE__;
    int rc = tamm_submit(ctx, &t);
    memset(&a, 0xEE, sizeof a);   /* the runtime must have copied the args */
    memset(refs, 0xEE, sizeof refs);
    return rc;
}

static void rt_act(tamm_ctx *ctx, const targs *a, int s, uint64_t *h, const char *label)
{
    const step *st = &a->steps[s];
    const tdesc *d = &a->P->T[st->t];
    tamm_tensor *T = a->tens[st->t];
    size_t ne = blk_elems(d, st->idx);
    void *b = NULL;
    switch (st->op) {
    case OP_READ: b = tamm_get_buf_read(ctx, T, st->idx); break;
    case OP_WRITE: b = tamm_get_buf_write(ctx, T, st->idx); break;
    case OP_RW: b = tamm_get_buf_readwrite(ctx, T, st->idx); break;
    case OP_ACC: b = tamm_get_buf_accum(ctx, T, st->idx); break;
    case OP_TMP: b = tamm_get_buf_tmp(ctx, T, st->idx); break;
    case OP_CWRITE: b = tamm_get_buf_cwrite(ctx, T, st->idx); break;
    case OP_CRW: b = tamm_get_buf_creadwrite(ctx, T, st->idx); break;
    }
    if (!b) {
        body_fail("tamm_get_buf_%s returned NULL in task %s", op_names[st->op], label);
        return;
    }
    apply(st->op, (uint64_t *)b, ne, h, step_key(a->P, a->id, s));
    int rc;
    const char *rel;
    if (st->op == OP_WRITE || st->op == OP_RW || st->commit == CM_PUT) { rel = "put"; rc = tamm_release_put(ctx, b); }
    else if (st->commit == CM_ADD) { rel = "add"; rc = tamm_release_add(ctx, b); }
    else { rel = "cancel"; rc = tamm_release_cancel(ctx, b); }
    if (rc != TAMM_OK) body_fail("tamm_release_%s (after %s) = %d %s in task %s", rel, op_names[st->op], rc, tamm_strerror(rc), label);
}

static void task_body(tamm_ctx *ctx, void *va)
{
    const targs *a = va;
    const node *n = &a->P->nodes[a->id];
    if (tamm_current_ctx() != ctx) body_fail("tamm_current_ctx() != ctx in task %s", n->label);
    const char *lab = tamm_ctx_label(ctx);
    if (!lab || strcmp(lab, n->label) != 0) body_fail("tamm_ctx_label() is '%s' in task %s", lab ? lab : "(null)", n->label);
    uint64_t h = hinit(a->P, a->id);
    for (int s = 0; s < a->nsteps; s++) {
        if (a->steps[s].kind == ST_CHILD) {
            int rc = submit_node(ctx, a->P, a->tens, a->hashes, a->steps[s].child);
            if (rc != TAMM_OK) body_fail("nested tamm_submit of %s = %d %s in task %s",
                                         a->P->nodes[a->steps[s].child].label, rc, tamm_strerror(rc), n->label);
        } else {
            rt_act(ctx, a, s, &h, n->label);
        }
    }
    a->hashes[a->id] = h;
}

typedef struct { int workers; const char *sched; int seq; long limit; } config;
static int g_saw_enomem;  /* a wait of the current run returned TAMM_ENOMEM */
static int g_enomem_ok;   /* runs that ended in the expected TAMM_ENOMEM (limit variant) */

static char g_cur[256];        /* what is running, for the alarm handler */
static int g_passed, g_failed;
static int g_timeout_s = 60;
static int g_argc;
static char **g_argv;

static void on_alarm(int sig)
{
    (void)sig;
    char msg[512];
    int n = snprintf(msg, sizeof msg, "\n%s: TIMEOUT (hang?) after %d s: %s\n%d passed, %d failed\n",
                     TEST_NAME, g_timeout_s, g_cur, g_passed, g_failed + 1);
    if (n > 0) { ssize_t w = write(2, msg, (size_t)n); (void)w; }
    _exit(1);
}

static void describe(char *buf, size_t n, const prog *P, const config *c)
{
    snprintf(buf, n, "seed=%llu workers=%d sched=%s sequential=%d limit=%ld (rerun: TAMM_RAND_SEED=%llu TAMM_RAND_CONFIG=%d,%s,%d,%ld)",
             (unsigned long long)P->seed, c->workers, c->sched ? c->sched : "ws", c->seq, c->limit,
             (unsigned long long)P->seed, c->workers, c->sched ? c->sched : "ws", c->seq, c->limit);
}

/* Bytes of the largest block of P. */
static long prog_max_block(const prog *P)
{
    long m = 0;
    for (int t = 0; t < P->ntens; t++) {
        long b = 8;
        for (int k = 0; k < P->T[t].ndim; k++) b *= (long)P->T[t].tile[k];
        if (b > m) m = b;
    }
    return m;
}

/* Bytes of all of P's tensors. */
static long prog_total(const prog *P)
{
    long s = 0;
    for (int t = 0; t < P->ntens; t++) s += 8 * (long)P->T[t].nelem;
    return s;
}

/* Bytes of block (linear number lin) of tensor d. */
static long blk_bytes(const tdesc *d, long lin)
{
    long b = 8;
    for (int k = d->ndim; k-- > 0;) {
        long i = lin % d->nb[k];
        lin /= d->nb[k];
        size_t start = (size_t)i * d->tile[k], left = d->dims[k] - start;
        b *= (long)(left < d->tile[k] ? left : d->tile[k]);
    }
    return b;
}

/* What the runtime reserves for the largest task of P under a memory limit
 * (docs/runtime.md "Block memory"): every block its block and slice refs name
 * (whole-tensor refs, and refs folded into them, are paged in on use), twice
 * where the task may accumulate or cancel (a private buffer beside it); TEMP
 * refs name no block.  A limit below this must end in TAMM_ENOMEM, one at or
 * above it must give the reference's results. */
static long prog_task_need(const prog *P)
{
    long need = 0;
    for (int i = 0; i < P->nnodes; i++) {
        const node *n = &P->nodes[i];
        static unsigned mode[MAXT][MAXBLK * 8];
        int whole[MAXT] = {0};
        long nblk[MAXT];
        for (int t = 0; t < P->ntens; t++) {
            nblk[t] = 1;
            for (int k = 0; k < P->T[t].ndim; k++) nblk[t] *= P->T[t].nb[k];
            memset(mode[t], 0, (size_t)nblk[t] * sizeof mode[t][0]);
        }
        for (int r = 0; r < n->nrefs; r++)
            if (!(n->refs[r].mode & TAMM_TEMP) && n->refs[r].nidx == 0) whole[n->refs[r].t] = 1;
        for (int r = 0; r < n->nrefs; r++) {
            const gref *g = &n->refs[r];
            if ((g->mode & TAMM_TEMP) || g->nidx == 0 || whole[g->t]) continue;
            const tdesc *d = &P->T[g->t];
            for (long lin = 0; lin < nblk[g->t]; lin++) {
                long rest = lin;
                int in = 1;
                for (int k = d->ndim; k-- > 0;) {
                    long ik = rest % d->nb[k];
                    rest /= d->nb[k];
                    if (g->idx[k] != TAMM_ALL && g->idx[k] != ik) in = 0;
                }
                if (in) mode[g->t][lin] |= (g->mode & (7u | TAMM_CANCELLABLE)) | 0x100u;
            }
        }
        long s = 0;
        for (int t = 0; t < P->ntens; t++)
            for (long lin = 0; lin < nblk[t]; lin++)
                if (mode[t][lin])
                    s += blk_bytes(&P->T[t], lin) * ((mode[t][lin] & (TAMM_ACCUM | TAMM_CANCELLABLE)) ? 2 : 1);
        if (s > need) need = s;
    }
    return need;
}

/* Run P under configuration c and compare with the reference. 0: pass. */
static int run_config(const prog *P, const config *c, uint64_t **ref, const uint64_t *refh, int quiet)
{
    char desc[256];
    describe(desc, sizeof desc, P, c);
    snprintf(g_cur, sizeof g_cur, "%s", desc);
    char w[16];
    snprintf(w, sizeof w, "%d", c->workers);
    setenv("TAMM_NUM_WORKERS", w, 1);
    if (c->sched) setenv("TAMM_SCHED", c->sched, 1); else unsetenv("TAMM_SCHED");
    if (c->seq) setenv("TAMM_SEQUENTIAL", "1", 1); else unsetenv("TAMM_SEQUENTIAL");
    char lim[32];
    snprintf(lim, sizeof lim, "%ld", c->limit);
    if (c->limit) setenv("TAMM_MEMORY_LIMIT", lim, 1); else unsetenv("TAMM_MEMORY_LIMIT");
    g_saw_enomem = 0;
    setenv("TAMM_ON_ERROR", "return", 1);
    __atomic_store_n(&g_body_err, 0, __ATOMIC_SEQ_CST);
    g_body_msg[0] = 0;
    alarm((unsigned)g_timeout_s);

    int fail = 0;
    char why[1024] = "";
    int rc = tamm_init(&g_argc, &g_argv);
    if (rc != TAMM_OK) {
        if (!quiet) fprintf(stderr, "%s: FAIL %s: tamm_init: %d %s\n", TEST_NAME, desc, rc, tamm_strerror(rc));
        alarm(0);
        return 1;
    }
    tamm_tensor *tens[MAXT] = {0};
    for (int t = 0; t < P->ntens; t++) {
        char name[16];
        snprintf(name, sizeof name, "T%d", t);
        tens[t] = tamm_tensor_create(name, TAMM_I64, P->T[t].ndim, P->T[t].dims, P->T[t].tile);
        if (!tens[t]) { fail = 1; snprintf(why, sizeof why, "tamm_tensor_create(%s) returned NULL", name); goto out; }
        for (int k = 0; k < P->T[t].ndim; k++)
            if (tamm_tensor_nblocks(tens[t], k) != P->T[t].nb[k]) {
                fail = 1;
                snprintf(why, sizeof why, "tamm_tensor_nblocks(T%d, %d) = %ld, expected %ld", t, k,
                         tamm_tensor_nblocks(tens[t], k), P->T[t].nb[k]);
                goto out;
            }
    }
    uint64_t *hashes = malloc((size_t)P->nnodes * sizeof *hashes);
    if (!hashes) { perror("malloc"); exit(2); }
    for (int i = 0; i < P->nnodes; i++) hashes[i] = ~0ULL;
    /* under MPI every rank goes on submitting after a failure (an error such as TAMM_ENOMEM is
     * seen by the rank that ran the task only): every rank must submit the same stream */
    for (int i = 0; i < P->ntop && (!fail || RANDOM_MPI); i++) {
        const topstep *s = &P->top[i];
        switch (s->kind) {
        case TOP_TASK:
            rc = submit_node(NULL, P, tens, hashes, s->node);
            if (rc != TAMM_OK) { if (!fail) snprintf(why, sizeof why, "tamm_submit(%s) = %d %s", P->nodes[s->node].label, rc, tamm_strerror(rc)); fail = 1; }
            break;
        case TOP_WAITALL:
            rc = tamm_wait_all();
            if (rc == TAMM_ENOMEM) g_saw_enomem = 1;
            if (rc != TAMM_OK) { if (!fail) snprintf(why, sizeof why, "tamm_wait_all (top step %d) = %d %s", i, rc, tamm_strerror(rc)); fail = 1; }
            break;
        case TOP_BARRIER:
            rc = tamm_barrier();
            if (rc == TAMM_ENOMEM) g_saw_enomem = 1;
            if (rc != TAMM_OK) { if (!fail) snprintf(why, sizeof why, "tamm_barrier (top step %d) = %d %s", i, rc, tamm_strerror(rc)); fail = 1; }
            break;
        case TOP_HOSTMOD: {
            uint64_t *p = tamm_block_at(tens[s->t], s->idx, P->T[s->t].ndim);
            if (!p) {
                if (!fail) snprintf(why, sizeof why, "top-level tamm_block_at(T%d) returned NULL", s->t);
                fail = 1;
                break;
            }
            hostmod(p, blk_elems(&P->T[s->t], s->idx), s->key);
            break;
        }
        }
    }
    rc = tamm_wait_all();
    if (rc == TAMM_ENOMEM) g_saw_enomem = 1;
    if (!fail && rc != TAMM_OK) { fail = 1; snprintf(why, sizeof why, "final tamm_wait_all = %d %s", rc, tamm_strerror(rc)); }
    if (!fail && __atomic_load_n(&g_body_err, __ATOMIC_SEQ_CST)) {
        fail = 1;
        snprintf(why, sizeof why, "%d error(s) in task bodies; first: %s", g_body_err, g_body_msg);
    }
#if RANDOM_MPI
    /* each task's hash was stored on the rank that ran it (others keep ~0) */
    MPI_Allreduce(MPI_IN_PLACE, hashes, P->nnodes, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    /* the ranks agree on failure (the gathers below are collective) and on TAMM_ENOMEM */
    int agree[2] = { fail, g_saw_enomem };
    MPI_Allreduce(MPI_IN_PLACE, agree, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (agree[0] && !fail) snprintf(why, sizeof why, "another rank failed");
    fail = agree[0];
    g_saw_enomem = agree[1];
#endif
    for (int t = 0; t < P->ntens && !fail; t++) {
        const tdesc *d = &P->T[t];
        int64_t *got = malloc(d->nelem * sizeof *got);
        if (!got) { perror("malloc"); exit(2); }
        memset(got, 0x5A, d->nelem * sizeof *got);
        rc = tamm_tensor_gather(tens[t], got);
        if (rc != TAMM_OK) { fail = 1; snprintf(why, sizeof why, "tamm_tensor_gather(T%d) = %d %s", t, rc, tamm_strerror(rc)); }
        else if (memcmp(got, ref[t], d->nelem * sizeof *got) != 0) {
            size_t first = 0, ndiff = 0;
            for (size_t e = d->nelem; e-- > 0;)
                if ((uint64_t)got[e] != ref[t][e]) { first = e; ndiff++; }
            size_t co[MAXD], r = first;
            for (int k = d->ndim; k-- > 0;) { co[k] = r % d->dims[k]; r /= d->dims[k]; }
            char cs[64] = "", bs[64] = "";
            for (int k = 0; k < d->ndim; k++) {
                size_t l = strlen(cs), lb = strlen(bs);
                snprintf(cs + l, sizeof cs - l, "%s%zu", k ? "," : "", co[k]);
                snprintf(bs + lb, sizeof bs - lb, "%s%zu", k ? "," : "", co[k] / d->tile[k]);
            }
            fail = 1;
            snprintf(why, sizeof why, "tensor T%d differs at element [%s] (block (%s)): expected %lld, got %lld (%zu of %zu elements differ)",
                     t, cs, bs, (long long)ref[t][first], (long long)got[first], ndiff, d->nelem);
        }
        free(got);
    }
    for (int i = 0; i < P->nnodes && !fail; i++)
        if (hashes[i] != refh[i]) {
            fail = 1;
            snprintf(why, sizeof why, "task %s (depth %d) %s", P->nodes[i].label, P->nodes[i].depth,
                     hashes[i] == ~0ULL ? "never ran (or did not finish)" : "saw different values (read hash differs from the reference)");
        }
    free(hashes);
out:
    for (int t = 0; t < P->ntens; t++)
        if (tens[t]) tamm_tensor_destroy(tens[t]);
    rc = tamm_finalize();
    if (!fail && rc != TAMM_OK) { fail = 1; snprintf(why, sizeof why, "tamm_finalize = %d %s", rc, tamm_strerror(rc)); }
    alarm(0);
    /* under a limit below some task's blocks, TAMM_ENOMEM is the expected outcome */
    if (c->limit && getenv("TAMM_RAND_VERBOSE") && atoi(getenv("TAMM_RAND_VERBOSE")) > 1)
        printf("  limit %ld (task need <= %ld, total %ld), %d workers: %s%s\n", c->limit, prog_task_need(P), prog_total(P),
               c->workers, fail ? "failed: " : "ok", fail ? why : "");
    if (c->limit && c->limit < prog_task_need(P)) { /* some task cannot fit: TAMM_ENOMEM, and no hang */
        if (fail && g_saw_enomem) {
            g_enomem_ok++;
            return 0;
        }
        if (!fail) {
            fail = 1;
            snprintf(why, sizeof why, "limit %ld is below a task's blocks (%ld bytes), yet no TAMM_ENOMEM", c->limit,
                     prog_task_need(P));
        }
    }
    if (fail && !quiet) fprintf(stderr, "%s: FAIL %s: %s\n", TEST_NAME, desc, why);
    return fail;
}

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    if (!s || !*s) return def;
    return strtol(s, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* Minimising a failing program (TAMM_RAND_MINIMIZE=1)                  */
/* ------------------------------------------------------------------ */
static uint64_t **alloc_data(const prog *P)
{
    uint64_t **data = calloc(MAXT, sizeof *data);
    for (int t = 0; t < P->ntens; t++) data[t] = calloc(P->T[t].nelem, sizeof(uint64_t));
    return data;
}
static void free_data(uint64_t **data)
{
    for (int t = 0; t < MAXT; t++) free(data[t]);
    free(data);
}

static int fails_with(const prog *P, const config *c, int tries)
{
    uint64_t **data = alloc_data(P);
    uint64_t *h = malloc((size_t)P->nnodes * sizeof *h);
    ref_run(P, data, h);
    int f = 0;
    for (int i = 0; i < tries && !f; i++) f = run_config(P, c, data, h, 1);
    free(h);
    free_data(data);
    return f;
}

static void minimize(const prog *P0, const config *c)
{
    prog P = *P0;
    P.top = malloc((size_t)P0->ntop * sizeof(topstep));
    memcpy(P.top, P0->top, (size_t)P0->ntop * sizeof(topstep));
    int tries = (int)env_long("TAMM_RAND_TRIES", (c->workers == 1 || c->seq) ? 1 : 20);
    fprintf(stderr, "%s: minimising seed %llu (%d top-level steps)...\n", TEST_NAME, (unsigned long long)P.seed, P.ntop);
    for (int chunk = P.ntop / 2; chunk >= 1; chunk /= 2) {
        for (int start = 0; start < P.ntop;) {
            int len = chunk < P.ntop - start ? chunk : P.ntop - start;
            topstep *saved = malloc((size_t)P.ntop * sizeof(topstep));
            memcpy(saved, P.top, (size_t)P.ntop * sizeof(topstep));
            int oldn = P.ntop;
            memmove(P.top + start, P.top + start + len, (size_t)(P.ntop - start - len) * sizeof(topstep));
            P.ntop -= len;
            if (P.ntop > 0 && fails_with(&P, c, tries)) {
                free(saved);   /* keep the removal */
            } else {
                memcpy(P.top, saved, (size_t)oldn * sizeof(topstep));
                P.ntop = oldn;
                free(saved);
                start += len;
            }
        }
    }
    /* Then drop body steps (actions, child submissions) one at a time. */
    P.nodes = malloc((size_t)P0->nnodes * sizeof(node));
    memcpy(P.nodes, P0->nodes, (size_t)P0->nnodes * sizeof(node));
    int *stack = malloc((size_t)P.nnodes * sizeof *stack), sp = 0;
    for (int i = 0; i < P.ntop; i++)
        if (P.top[i].kind == TOP_TASK) stack[sp++] = P.top[i].node;
    while (sp > 0) {
        node *n = &P.nodes[stack[--sp]];
        for (int k = n->nsteps; k-- > 0;) {
            step saved = n->steps[k];
            memmove(n->steps + k, n->steps + k + 1, sizeof(step) * (size_t)(n->nsteps - k - 1));
            n->nsteps--;
            if (!fails_with(&P, c, tries)) {
                memmove(n->steps + k + 1, n->steps + k, sizeof(step) * (size_t)(n->nsteps - k));
                n->steps[k] = saved;
                n->nsteps++;
            }
        }
        for (int k = 0; k < n->nsteps; k++)
            if (n->steps[k].kind == ST_CHILD) stack[sp++] = n->steps[k].child;
    }
    free(stack);
    char desc[256];
    describe(desc, sizeof desc, &P, c);
    fprintf(stderr, "%s: minimal failing program (%d top-level steps) for %s:\n", TEST_NAME, P.ntop, desc);
    print_prog(stderr, &P);
    free(P.top);
    free(P.nodes);
}

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */
int main(int argc, char **argv)
{
    g_argc = argc;
    g_argv = argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGALRM, on_alarm);
    double scale = 1.0;
    const char *sc = getenv("TAMM_TEST_SCALE");
    if (sc && *sc) scale = strtod(sc, NULL);
    if (UNDER_SANITIZER) scale /= 8.0;
    if (UNDER_SANITIZER) g_timeout_s = 600;
    long nseeds = (long)(DEFAULT_SEEDS * scale + 0.5);
    if (nseeds < 2) nseeds = 2;
    nseeds = env_long("TAMM_RAND_NSEEDS", nseeds);
    long first = env_long("TAMM_RAND_FIRST", 1);
    if (getenv("TAMM_RAND_SEED")) { first = env_long("TAMM_RAND_SEED", 1); nseeds = 1; }
    int dump = (int)env_long("TAMM_RAND_DUMP", 0);
    int mini = (int)env_long("TAMM_RAND_MINIMIZE", 0);
    int verbose = (int)env_long("TAMM_RAND_VERBOSE", 0);
    config only = {0, NULL, 0, 0};
    int memlimit = (int)env_long("TAMM_RAND_MEMLIMIT", 0);
    char onlysched[16] = "";
    const char *oc = getenv("TAMM_RAND_CONFIG");
    if (oc && *oc) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%s", oc);
        char *p = strtok(tmp, ",");
        only.workers = p ? atoi(p) : 1;
        p = strtok(NULL, ",");
        if (p && strcmp(p, "ws") != 0) { snprintf(onlysched, sizeof onlysched, "%s", p); only.sched = onlysched; }
        p = strtok(NULL, ",");
        only.seq = p ? atoi(p) : 0;
        p = strtok(NULL, ",");
        only.limit = p ? atol(p) : 0;
    }
    printf("%s: %ld seeds from %ld%s\n", TEST_NAME, nseeds, first, UNDER_SANITIZER ? " (sanitizer build: reduced)" : "");
    time_t t0 = time(NULL);
    long maxfail = env_long("TAMM_RAND_MAXFAIL", 8);
    for (long si = 0; si < nseeds && g_failed < maxfail; si++) {
        uint64_t seed = (uint64_t)(first + si);
        prog P;
        gen_prog(&P, seed, RANDOM_NESTED);
        if (dump) print_prog(stdout, &P);
        uint64_t **data = alloc_data(&P);
        uint64_t *refh = malloc((size_t)P.nnodes * sizeof *refh);
        ref_run(&P, data, refh);
        config cfgs[24];
        int nc = 0;
        if (only.workers) {
            cfgs[nc++] = only;
        } else if (memlimit) {
            long mb = prog_max_block(&P), tot = prog_total(&P), need = prog_task_need(&P);
            long lims[] = { mb, 3 * mb, need, need > tot / 2 ? need : tot / 2, tot + need };
            for (int l = 0; l < 5; l++)
                for (int w = 1; w <= 4; w *= 2) cfgs[nc++] = (config){ w, NULL, 0, lims[l] };
            /* the other schedulers and the sequential mode, at the tightest limit that must pass */
            static const char *other[] = { "fifo", "prio", NULL };
            cfgs[nc++] = (config){ 4, other[seed % 3], seed % 3 == 2, need };
        } else if (RANDOM_MPI) {
            cfgs[nc++] = (config){1, NULL, 0, 0};
            cfgs[nc++] = (config){2, NULL, 0, 0};
            if (seed % 3 == 0) cfgs[nc++] = (config){2, "fifo", 0, 0};
            if (seed % 5 == 0) cfgs[nc++] = (config){1, NULL, 1, 0};
        } else {
            cfgs[nc++] = (config){1, NULL, 0, 0};
            cfgs[nc++] = (config){2, NULL, 0, 0};
            cfgs[nc++] = (config){4, NULL, 0, 0};
            cfgs[nc++] = (config){8, NULL, 0, 0};
            switch (seed % 4) {
            case 0: cfgs[nc++] = (config){4, "fifo", 0, 0}; break;
            case 1: cfgs[nc++] = (config){4, "prio", 0, 0}; break;
            case 2: cfgs[nc++] = (config){4, NULL, 1, 0}; break;
            case 3: cfgs[nc++] = (config){8, "fifo", 0, 0}; cfgs[nc++] = (config){2, "prio", 0, 0}; break;
            }
        }
        int pf = 0;
        for (int k = 0; k < nc; k++) {
            if (run_config(&P, &cfgs[k], data, refh, 0) == 0) g_passed++;
            else {
                g_failed++;
                pf++;
                if (mini) minimize(&P, &cfgs[k]);
            }
        }
        if (verbose)
            printf("seed %llu: %d tensors, %d top steps, %d tasks: %s\n", (unsigned long long)seed, P.ntens, P.ntop,
                   P.nnodes, pf ? "FAIL" : "ok");
        free(refh);
        free_data(data);
        free_prog(&P);
    }
    printf("%s: %ld s\n", TEST_NAME, (long)(time(NULL) - t0));
#if RANDOM_MPI
    int anyfail = g_failed;
    MPI_Allreduce(MPI_IN_PLACE, &anyfail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    printf("rank %d of %d: ", tamm_rank(), tamm_nranks());
    g_failed = g_failed ? g_failed : anyfail ? 1 : 0;
#endif
    if (memlimit) printf("%s: %d runs under a limit below some task's blocks ended in the expected TAMM_ENOMEM\n", TEST_NAME, g_enomem_ok);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
