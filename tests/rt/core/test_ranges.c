/*
 * test_ranges.c — block ranges (TAMM_RANGE(lo, hi), blocks lo..hi-1) and the
 * TAMM_ALL encoding in the explicit API:
 *   - tasks writing disjoint ranges of one tensor run concurrently (each waits
 *     at a barrier the other must reach, with a timeout, so a serialisation
 *     fails the test instead of hanging it), in 1-D and 2-D, and next to slices;
 *   - overlapping ranges (and a range and a block inside it) are ordered;
 *   - tamm_wait_on with a range waits for the range's users only;
 *   - a nested task's blocks and ranges must lie within the parent's range;
 *   - range validation (empty, negative start, past the end, wrong dimension)
 *     fails with TAMM_ERANGE and a message naming the tensor, the dimension and
 *     the values, and an index of -1 is an out-of-range error, not a slice;
 *   - tamm_get_buf_* refuses a range (a buffer is one block), naming it "lo:hi".
 */
#include "tamm_util.h"

#define TILE 4
#define TIMEOUT_S 10.0

/* ------------------------------------------------------------------ */
/* Concurrency: a barrier of `want` tasks                               */
/* ------------------------------------------------------------------ */
static atomic_int arrived;

typedef struct { int want; } barg;

/* Reach the barrier, then wait for `want` arrivals (failing after a timeout). */
static void barrier_body(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    barg *a = vp;
    atomic_fetch_add(&arrived, 1);
    TCHECK_MSG(tu_wait_flag(&arrived, a->want, TIMEOUT_S),
               "only %d of %d tasks reached the barrier: disjoint ranges were serialised", atomic_load(&arrived),
               a->want);
}

static tamm_ref ref2(tamm_tensor *T, unsigned mode, long i, long j) { return tu_ref2(T, mode, i, j); }

static int child_disjoint(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *V = tu_vec("RangeV", 8, TILE);
    barg b2 = { 2 };
    /* 1-D: [0,4) and [4,8) */
    atomic_store(&arrived, 0);
    CHECK_EQ_INT(TU_SUBMIT(NULL, barrier_body, &b2, "lo", tu_ref1(V, TAMM_WRITE, TAMM_RANGE(0, 4))), TAMM_OK);
    CHECK_EQ_INT(TU_SUBMIT(NULL, barrier_body, &b2, "hi", tu_ref1(V, TAMM_WRITE, TAMM_RANGE(4, 8))), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    /* 1-D: a range and a block just past it */
    atomic_store(&arrived, 0);
    CHECK_EQ_INT(TU_SUBMIT(NULL, barrier_body, &b2, "r", tu_ref1(V, TAMM_READWRITE, TAMM_RANGE(2, 5))), TAMM_OK);
    CHECK_EQ_INT(TU_SUBMIT(NULL, barrier_body, &b2, "b", tu_ref1(V, TAMM_WRITE, 5)), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    /* 2-D 4x4 blocks: M[0:2][:], M[2:4][1:3] and M[2][0] (a slice, two ranges, a block) */
    size_t dims[2] = { 4 * TILE, 4 * TILE }, tile[2] = { TILE, TILE };
    tamm_tensor *M = tamm_tensor_create("RangeM", TAMM_F64, 2, dims, tile);
    CHECK_NOTNULL(M);
    barg b3 = { 3 };
    atomic_store(&arrived, 0);
    CHECK_EQ_INT(TU_SUBMIT(NULL, barrier_body, &b3, "rows", ref2(M, TAMM_WRITE, TAMM_RANGE(0, 2), TAMM_ALL)), TAMM_OK);
    CHECK_EQ_INT(TU_SUBMIT(NULL, barrier_body, &b3, "box", ref2(M, TAMM_ACCUM, TAMM_RANGE(2, 4), TAMM_RANGE(1, 3))),
                 TAMM_OK);
    CHECK_EQ_INT(TU_SUBMIT(NULL, barrier_body, &b3, "blk", ref2(M, TAMM_WRITE, 2, 0)), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* Ordering                                                             */
/* ------------------------------------------------------------------ */
#define NSTEP 6
static atomic_int step_started[NSTEP], step_done[NSTEP];
typedef struct { int me, after; } sarg; /* after < 0: no predecessor to check */

static void step_body(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    sarg *a = vp;
    atomic_store(&step_started[a->me], 1);
    if (a->after >= 0)
        TCHECK_MSG(atomic_load(&step_done[a->after]), "task %d started before task %d, whose range overlaps, ended",
                   a->me, a->after);
    h_sleep_ms(30); /* long enough for a wrongly concurrent successor to start */
    atomic_store(&step_done[a->me], 1);
}

static int child_ordered(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *V = tu_vec("OrderV", 8, TILE);
    sarg s0 = { 0, -1 }, s1 = { 1, 0 }, s2 = { 2, 1 }, s3 = { 3, 2 };
    /* [0,5) written, then [4,8) written (overlap at block 4), then block 6 read,
     * then the whole dimension as a TAMM_RANGE(0, 8) accumulated */
    CHECK_EQ_INT(TU_SUBMIT(NULL, step_body, &s0, "w05", tu_ref1(V, TAMM_WRITE, TAMM_RANGE(0, 5))), TAMM_OK);
    CHECK_EQ_INT(TU_SUBMIT(NULL, step_body, &s1, "w48", tu_ref1(V, TAMM_WRITE, TAMM_RANGE(4, 8))), TAMM_OK);
    CHECK_EQ_INT(TU_SUBMIT(NULL, step_body, &s2, "r6", tu_ref1(V, TAMM_READ, 6)), TAMM_OK);
    CHECK_EQ_INT(TU_SUBMIT(NULL, step_body, &s3, "a08", tu_ref1(V, TAMM_ACCUM, TAMM_RANGE(0, 8))), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    for (int i = 0; i < 4; i++) CHECK(atomic_load(&step_done[i]));
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* tamm_wait_on with ranges                                             */
/* ------------------------------------------------------------------ */
static atomic_int gate, gated_done;

static void gated_body(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    TCHECK_MSG(tu_wait_flag(&gate, 1, TIMEOUT_S), "the gate never opened: tamm_wait_on waited for a task "
                                                  "outside its range");
    atomic_store(&gated_done, 1);
}

static int child_wait_on(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *V = tu_vec("WaitV", 8, TILE);
    int dummy = 0;
    CHECK_EQ_INT(TU_SUBMIT(NULL, gated_body, &dummy, "gated", tu_ref1(V, TAMM_WRITE, 6)), TAMM_OK);
    /* [0,6) does not hold block 6: this returns while the gated task waits */
    tamm_ref r = tu_ref1(V, TAMM_READ, TAMM_RANGE(0, 6));
    CHECK_EQ_INT(tamm_wait_on(&r, 1), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&gated_done), 0);
    atomic_store(&gate, 1);
    /* [5,7) holds it: this returns after it */
    r = tu_ref1(V, TAMM_READ, TAMM_RANGE(5, 7));
    CHECK_EQ_INT(tamm_wait_on(&r, 1), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&gated_done), 1);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* Nested tasks within a ranged permission                              */
/* ------------------------------------------------------------------ */
static void noop(tamm_ctx *ctx, void *vp) { (void)ctx; (void)vp; }

typedef struct { tamm_tensor *V; } parg;

static void parent_body(tamm_ctx *ctx, void *vp)
{
    parg *a = vp;
    int dummy = 0;
    /* the parent holds write on [2,5) of V */
    TCHECK(TU_SUBMIT(ctx, noop, &dummy, "in_lo", tu_ref1(a->V, TAMM_WRITE, 2)) == TAMM_OK);
    TCHECK(TU_SUBMIT(ctx, noop, &dummy, "in_hi", tu_ref1(a->V, TAMM_READ, 4)) == TAMM_OK);
    TCHECK(TU_SUBMIT(ctx, noop, &dummy, "in_rng", tu_ref1(a->V, TAMM_ACCUM, TAMM_RANGE(3, 5))) == TAMM_OK);
    TCHECK(TU_SUBMIT(ctx, noop, &dummy, "out_blk", tu_ref1(a->V, TAMM_READ, 5)) == TAMM_EPERM);
    TCHECK(TU_SUBMIT(ctx, noop, &dummy, "out_lo", tu_ref1(a->V, TAMM_READ, 1)) == TAMM_EPERM);
    TCHECK(TU_SUBMIT(ctx, noop, &dummy, "out_rng", tu_ref1(a->V, TAMM_WRITE, TAMM_RANGE(4, 6))) == TAMM_EPERM);
    TCHECK(TU_SUBMIT(ctx, noop, &dummy, "out_all", tu_ref1(a->V, TAMM_READ, TAMM_ALL)) == TAMM_EPERM);
}

static int child_nested(void *vp)
{
    (void)vp;
    tu_init();
    parg a = { tu_vec("NestV", 8, TILE) };
    CHECK_EQ_INT(TU_SUBMIT(NULL, parent_body, &a, "parent",
                           tu_ref1(a.V, TAMM_WRITE | TAMM_PERMISSION_ONLY, TAMM_RANGE(2, 5))),
                 TAMM_OK);
    tamm_wait_all(); /* returns the first of the expected EPERMs */
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* Validation                                                           */
/* ------------------------------------------------------------------ */
typedef struct { const char *name; int dim; long i, j; const char *msg[3]; } vcase;
static const vcase vcases[] = {
    { "empty", 0, 0, 0, { "'BadM'", "range 2:2 of dimension 0", "empty" } },
    { "reversed", 1, 0, 0, { "'BadM'", "range 3:1 of dimension 1", "empty" } },
    { "negative_lo", 0, 0, 0, { "'BadM'", "range -1:2 of dimension 0", "negative" } },
    { "past_end", 1, 0, 0, { "'BadM'", "range 0:9 of dimension 1 is not within 0:8", "beyond" } },
    { "minus_one", 0, 0, 0, { "'BadM'", "block BadM[-1][3] is outside the tensor 'BadM' (blocks 0..3 x 0..7)",
                                "block index out of range" } },
    { "minus_two_dim1", 1, 0, 0, { "'BadM'", "block BadM[0][-2] is outside the tensor 'BadM' (blocks 0..3 x 0..7)",
                                   "block index out of range" } },
    { "huge_hi", 1, 0, 0, { "'BadM'", "range 0:536870911 of dimension 1", "TAMM_RANGE_MAX" } },
};
enum { NV = (int)(sizeof vcases / sizeof vcases[0]) };

static atomic_int ran;
static void ran_body(tamm_ctx *ctx, void *vp) { (void)ctx; (void)vp; atomic_store(&ran, 1); }

static tamm_ref bad_ref(tamm_tensor *M, int k)
{
    switch (k) {
    case 0: return ref2(M, TAMM_READ, TAMM_RANGE(2, 2), 0);
    case 1: return ref2(M, TAMM_READ, 0, TAMM_RANGE(3, 1));
    case 2: return ref2(M, TAMM_READ, TAMM_RANGE(-1, 2), 0);
    case 3: return ref2(M, TAMM_READ, 1, TAMM_RANGE(0, 9));
    case 4: { long I = 0; return ref2(M, TAMM_READ, I - 1, 3); } /* was a slice when TAMM_ALL was -1 */
    case 5: return ref2(M, TAMM_READ, 0, -2);
    default: return ref2(M, TAMM_READ, 0, TAMM_RANGE(0, 1L << 40));
    }
}

static int child_invalid(void *vp)
{
    int k = *(int *)vp;
    tu_init();
    size_t dims[2] = { 4 * TILE, 8 * TILE }, tile[2] = { TILE, TILE };
    tamm_tensor *M = tamm_tensor_create("BadM", TAMM_F64, 2, dims, tile);
    CHECK_NOTNULL(M);
    int dummy = 0;
    tamm_ref r = bad_ref(M, k);
    CHECK_EQ_INT(TU_SUBMIT(NULL, ran_body, &dummy, "bad", r), TAMM_ERANGE);
    CHECK_EQ_INT(tamm_wait_on(&r, 1), TAMM_ERANGE);
    tamm_wait_all();
    CHECK_EQ_INT(atomic_load(&ran), 0); /* the task was refused, not run on a slice */
    TU_FINALIZE();
    return 0;
}

/* A range is not a block: tamm_get_buf_* refuses it and names it "lo:hi". */
static void get_range_body(tamm_ctx *ctx, void *vp)
{
    tamm_tensor *V = *(tamm_tensor **)vp;
    long idx[1] = { TAMM_RANGE(1, 3) };
    long *p = tamm_get_buf_read(ctx, V, idx);
    if (p) p[0] = 1; /* a private scratch buffer under TAMM_ON_ERROR=return */
}

static int child_get_range(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *V = tu_vec("GetV", 8, TILE);
    CHECK_EQ_INT(TU_SUBMIT(NULL, get_range_body, &V, "get_range", tu_ref1(V, TAMM_READ, TAMM_RANGE(0, 4))), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_ERANGE);
    TU_FINALIZE();
    return 0;
}

static void test_invalid(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    for (int k = 0; k < NV; k++) {
        h_context("invalid %s", vcases[k].name);
        const char *env[] = { "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
        run_child(child_invalid, &k, env, 20, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(vcases[k].name, &st, err);
        CHECK_CONTAINS(err, "tamm: error");
        for (int m = 0; m < 3 && vcases[k].msg[m]; m++) CHECK_CONTAINS(err, vcases[k].msg[m]);
        /* the default mode stops the program with status 1 at the first one */
        const char *env1[] = { "TAMM_NUM_WORKERS=2", NULL };
        run_child(child_invalid, &k, env1, 20, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(vcases[k].name, &st, err);
        CHECK_CONTAINS(err, vcases[k].msg[1]);
    }
    h_context("tamm_get_buf_read of a range");
    const char *env[] = { "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
    run_child(child_get_range, NULL, env, 20, &st, err);
    h__merge_counts(&st);
    if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
        h_dump_child("get_range", &st, err);
    CHECK_CONTAINS(err, "block [1:3] is not a block of 'GetV'");
    h_context(NULL);
}

/* ------------------------------------------------------------------ */
/* The encodings                                                        */
/* ------------------------------------------------------------------ */
static void test_encoding(void)
{
    h_context("encodings");
    /* no plausible index arithmetic lands on them */
    for (long v = -(1L << 20); v < (1L << 20); v++)
        if (v == TAMM_ALL || v == TAMM_RANGE(0, 1)) CHECK_MSG(0, "encoding equals %ld", v);
    CHECK(TAMM_ALL != -1L);
    CHECK(TAMM_RANGE(0, 8) != TAMM_ALL);
    CHECK(TAMM_RANGE(0, 8) < -(1L << 61));
    CHECK(TAMM_RANGE(1, 2) != TAMM_RANGE(2, 1));
    CHECK(TAMM_RANGE(TAMM_RANGE_MAX - 1, TAMM_RANGE_MAX) != TAMM_RANGE(TAMM_RANGE_MAX - 1, TAMM_RANGE_MAX + 1));
    long i = 0;
    CHECK(TAMM_RANGE(i++, 4) == TAMM_RANGE(0, 4) && i == 1); /* arguments evaluated once */
    h_context(NULL);
}

int main(void)
{
    test_encoding();
    const char *env[] = { "TAMM_NUM_WORKERS=4", NULL };
    h_context("disjoint ranges run together");
    run_test_child("disjoint", child_disjoint, NULL, env, 60);
    h_context("overlapping ranges are ordered");
    run_test_child("ordered", child_ordered, NULL, env, 60);
    h_context("tamm_wait_on with ranges");
    run_test_child("wait_on", child_wait_on, NULL, env, 60);
    h_context("nested tasks within a ranged permission");
    const char *envr[] = { "TAMM_NUM_WORKERS=4", "TAMM_ON_ERROR=return", NULL };
    run_test_child("nested", child_nested, NULL, envr, 60);
    test_invalid();
    static const char *const sched[] = { "TAMM_SCHED=fifo", "TAMM_SCHED=prio" };
    for (int s = 0; s < 2; s++) {
        const char *env2[] = { "TAMM_NUM_WORKERS=4", sched[s], NULL };
        h_context("disjoint ranges, %s", sched[s]);
        run_test_child("disjoint", child_disjoint, NULL, env2, 60);
    }
    h_context(NULL);
    return test_summary();
}
