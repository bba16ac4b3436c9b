/*
 * test_cc_alias.c — one buffer for several claims on a block (tamm_cc_acquire,
 * the runtime support of the code tammcc generates) and the implicit holds of
 * tamm_block inside a task.
 *
 *   alias        a task reaches one block through two index expressions that
 *                are equal at run time: READ+RW, RW+READ, WRITE+READ, ACC+ACC,
 *                READ+ACC (read+accumulate permission): every claim gets the
 *                same pointer, the modes widen to readwrite, each claim is
 *                released once, the last release commits, the values are the
 *                sequential ones, and the block is free afterwards (a later
 *                writer runs).
 *   no alias     tamm_get_buf_readwrite twice on one block (the explicit API)
 *                is still the execution FSM's error (RC == 0 precondition).
 *   implicit     tamm_block twice on one block inside a task: one buffer; a
 *                claim after tamm_block takes the hold over; a task that
 *                touches a block with tamm_block and then submits a child
 *                writing it gives the block back first (the child runs while
 *                the parent continues, no EFSM).
 *   refused      a claim the task's permission does not allow (read-only task
 *                asking RW through an alias) is the ordinary EPERM error.
 * Each runs at 1, 2 and 4 workers.
 */
#include "tamm_util.h"
#include <tamm_cc.h>

#define TILE 4
#define LOC "alias_test.c"

static tamm_tensor *gA;

static int64_t *blk(long b) { return tamm_block(gA, b); }

/* ------------------------------------------------------------------ */
/* alias                                                                */
/* ------------------------------------------------------------------ */
typedef struct { long b; unsigned m1, m2; int64_t add; } al;

static void alias_body(tamm_ctx *ctx, void *vp)
{
    al *a = vp;
    long i1[1] = { a->b }, i2[1] = { (a->b * 3) % 3 + a->b }; /* equal at run time */
    int64_t *p = tamm_cc_get(ctx, gA, i1, a->m1);
    int64_t *q = tamm_cc_get(ctx, gA, i2, a->m2);
    TCHECK(p != NULL && p == q);
    if (!p || p != q) return;
    if (a->m1 == TAMM_CC_ACC && a->m2 == TAMM_CC_ACC) {
        for (int e = 0; e < TILE; e++) p[e] += a->add; /* both claims accumulate into one sum */
        for (int e = 0; e < TILE; e++) q[e] += a->add;
    } else if (a->m1 == TAMM_CC_WRITE) {
        for (int e = 0; e < TILE; e++) p[e] = a->add * (e + 1);
        for (int e = 0; e < TILE; e++) TCHECK(q[e] == a->add * (e + 1)); /* reads what the task wrote */
    } else {
        int64_t s = 0;
        for (int e = 0; e < TILE; e++) s += q[e];
        for (int e = 0; e < TILE; e++) p[e] += s + a->add; /* read, then update in place */
    }
    void *pp = p, *qq = q;
    tamm_cc_release(ctx, &qq, a->m2);
    TCHECK(tamm_buf_held(ctx, p)); /* the first claim still holds it */
    tamm_cc_release(ctx, &pp, a->m1);
    TCHECK(!tamm_buf_held(ctx, p));
}

static void set_body(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    al *a = vp;
    int64_t *p = blk(a->b);
    for (int e = 0; e < TILE; e++) p[e] = a->add + e;
}

static unsigned mode_of(unsigned m) { return m == TAMM_CC_READ ? TAMM_READ : m == TAMM_CC_WRITE ? TAMM_WRITE
                                             : m == TAMM_CC_ACC ? TAMM_ACCUM : TAMM_READWRITE; }

static void check_alias(void)
{
    static const unsigned cases[][2] = { { TAMM_CC_READ, TAMM_CC_RW }, { TAMM_CC_RW, TAMM_CC_READ },
                                         { TAMM_CC_WRITE, TAMM_CC_READ }, { TAMM_CC_ACC, TAMM_CC_ACC },
                                         { TAMM_CC_READ, TAMM_CC_ACC }, { TAMM_CC_ACC, TAMM_CC_READ } };
    enum { NC = sizeof cases / sizeof cases[0] };
    gA = tu_vec("A", NC, TILE);
    CHECK_NOTNULL(gA);
    if (!gA) return;
    int64_t want[NC][TILE];
    for (long b = 0; b < NC; b++) {
        al s = { b, 0, 0, 10 * b };
        TU_SUBMIT(NULL, set_body, &s, "set", tu_ref1(gA, TAMM_WRITE, b));
        al a = { b, cases[b][0], cases[b][1], b + 1 };
        CHECK_EQ_INT(TU_SUBMIT(NULL, alias_body, &a, "alias", tu_ref1(gA, mode_of(a.m1), b),
                               tu_ref1(gA, mode_of(a.m2), b)), TAMM_OK);
        int64_t old[TILE];
        for (int e = 0; e < TILE; e++) old[e] = 10 * b + e;
        for (int e = 0; e < TILE; e++) {
            if (a.m1 == TAMM_CC_ACC && a.m2 == TAMM_CC_ACC) want[b][e] = old[e] + 2 * a.add;
            else if (a.m1 == TAMM_CC_WRITE) want[b][e] = a.add * (e + 1);
            else want[b][e] = old[e] + (old[0] + old[1] + old[2] + old[3]) + a.add;
        }
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    for (long b = 0; b < NC; b++) {
        const int64_t *p = blk(b);
        for (int e = 0; e < TILE; e++)
            CHECK_MSG(p[e] == want[b][e], "case %ld (modes %u+%u) element %d: %lld, want %lld", b, cases[b][0],
                      cases[b][1], e, (long long)p[e], (long long)want[b][e]);
    }
    /* the blocks are free: a writer after the aliased tasks runs and its value stays */
    for (long b = 0; b < NC; b++) {
        al s = { b, 0, 0, 77 };
        CHECK_EQ_INT(TU_SUBMIT(NULL, set_body, &s, "set2", tu_ref1(gA, TAMM_WRITE, b)), TAMM_OK);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    for (long b = 0; b < NC; b++) CHECK(blk(b)[0] == 77);
    tamm_tensor_destroy(gA);
}

/* ------------------------------------------------------------------ */
/* no alias through the explicit API                                    */
/* ------------------------------------------------------------------ */
static atomic_int g_rc;
static void twice_rw(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    long i[1] = { 0 };
    void *p = tamm_get_buf_readwrite(ctx, gA, i);
    void *q = tamm_get_buf_readwrite(ctx, gA, i);
    atomic_store(&g_rc, q == NULL || q != p ? 1 : 0);
    if (p) tamm_release_put(ctx, p);
    if (q && q != p) tamm_release_cancel(ctx, q);
}

static void check_no_alias(void)
{
    gA = tu_vec("A", 1, TILE);
    int dummy = 0;
    TU_SUBMIT(NULL, twice_rw, &dummy, "twice", tu_ref1(gA, TAMM_READWRITE, 0));
    int rc = tamm_wait_all();
    CHECK_MSG(rc == TAMM_EFSM, "second tamm_get_buf_readwrite: tamm_wait_all gave %d (%s), want TAMM_EFSM", rc,
              tamm_strerror(rc));
    CHECK(atomic_load(&g_rc) == 1);
    tamm_tensor_destroy(gA);
}

/* ------------------------------------------------------------------ */
/* implicit holds                                                       */
/* ------------------------------------------------------------------ */
static atomic_int child_ran;
static void child_step(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    long b = *(long *)vp;
    int64_t *p = blk(b);
    for (int e = 0; e < TILE; e++) p[e] = p[e] * 3 + 1;
    atomic_fetch_add(&child_ran, 1);
}

static void touch_then_child(tamm_ctx *ctx, void *vp)
{
    long b = *(long *)vp;
    int64_t *p = blk(b), *p2 = blk(b);
    TCHECK(p != NULL && p == p2); /* one buffer for two tamm_block calls */
    if (!p) return;
    p[0] += 5;
    long i[1] = { b };
    int64_t *q = tamm_cc_get(ctx, gA, i, TAMM_CC_RW); /* a claim takes the implicit hold over */
    TCHECK(q == p);
    void *qq = q;
    tamm_cc_release(ctx, &qq, TAMM_CC_RW);
    int64_t *r = blk(b); /* an implicit hold again */
    TCHECK(r == p);
    r[1] += 7;
    /* the child writes the block: the implicit hold is given back first */
    CHECK_EQ_INT(TU_SUBMIT(ctx, child_step, &b, "child", tu_ref1(gA, TAMM_READWRITE, b)), TAMM_OK);
}

static void check_implicit(void)
{
    gA = tu_vec("A", 3, TILE);
    for (long b = 0; b < 3; b++) {
        int64_t *p = blk(b);
        for (int e = 0; e < TILE; e++) p[e] = b * 100 + e;
    }
    atomic_store(&child_ran, 0);
    for (long b = 0; b < 3; b++)
        CHECK_EQ_INT(TU_SUBMIT(NULL, touch_then_child, &b, "touch", tu_ref1(gA, TAMM_READWRITE, b)), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    CHECK_EQ_INT(atomic_load(&child_ran), 3);
    for (long b = 0; b < 3; b++) {
        int64_t x[TILE];
        for (int e = 0; e < TILE; e++) x[e] = b * 100 + e;
        x[0] += 5;
        x[1] += 7;
        for (int e = 0; e < TILE; e++) x[e] = x[e] * 3 + 1;
        const int64_t *p = blk(b);
        for (int e = 0; e < TILE; e++) CHECK_MSG(p[e] == x[e], "block %ld element %d: %lld, want %lld", b, e,
                                                 (long long)p[e], (long long)x[e]);
    }
    tamm_tensor_destroy(gA);
}

/* ------------------------------------------------------------------ */
/* a claim beyond the permission                                        */
/* ------------------------------------------------------------------ */
static void read_then_rw(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    long i[1] = { 0 };
    void *p = tamm_cc_get(ctx, gA, i, TAMM_CC_READ);
    void *q = tamm_cc_get(ctx, gA, i, TAMM_CC_RW); /* read permission only: refused */
    TCHECK(p != NULL);
    TCHECK(q != p);
    tamm_cc_release(ctx, &p, TAMM_CC_READ);
    if (q) (void)tamm_release_cancel(ctx, q);
}

static void check_refused(void)
{
    gA = tu_vec("A", 1, TILE);
    int dummy = 0;
    TU_SUBMIT(NULL, read_then_rw, &dummy, "refused", tu_ref1(gA, TAMM_READ, 0));
    int rc = tamm_wait_all();
    CHECK_MSG(rc == TAMM_EPERM, "RW claim under read permission: tamm_wait_all gave %d (%s), want TAMM_EPERM", rc,
              tamm_strerror(rc));
    CHECK_TASKS_OK();
    tamm_tensor_destroy(gA);
}

static int child_ok_part(void *arg)
{
    int which = (int)(intptr_t)arg;
    tu_init();
    switch (which) {
    case 0: check_alias(); break;
    case 1: check_no_alias(); break;
    case 2: check_implicit(); break;
    default: check_refused(); break;
    }
    tamm_finalize();
    return h__.failed ? 3 : 0;
}

int main(void)
{
    static const char *names[] = { "alias", "no alias (explicit API)", "implicit holds", "refused claim" };
    static const char *workers[] = { "TAMM_NUM_WORKERS=1", "TAMM_NUM_WORKERS=2", "TAMM_NUM_WORKERS=4" };
    for (int w = 0; w < 3; w++)
        for (int k = 0; k < 4; k++) {
            /* the error cases return their error instead of stopping the program */
            const char *env[] = { workers[w], (k == 1 || k == 3) ? "TAMM_ON_ERROR=return" : "TAMM_ON_ERROR", NULL };
            h_context("%s, %s", names[k], workers[w]);
            run_test_child(names[k], child_ok_part, (void *)(intptr_t)k, env, 60);
        }
    return test_summary();
}
