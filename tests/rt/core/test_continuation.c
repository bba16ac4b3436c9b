/*
 * test_continuation.c — tamm_submit_continuation (a taskwait inside a task body becomes a
 * continuation: docs/runtime.md "Continuations", docs/language.md "Taskwait and continuations").
 *
 *   fan-in      parents submit children (block writers with random delays, a
 *               child whose grandchild does the write, ref-less children, and a
 *               child writing a block the continuation does not name), then a
 *               continuation that must see every one of them completed (per-child
 *               completion flags); a child submitted after the continuation that
 *               reads its output runs after it (and does not deadlock with it); a
 *               later top-level task conflicting with the parent sees the
 *               continuation's write (the parent completes only after it).
 *               Some continuations are undeferred (opts.undeferred).
 *   two conts   a continuation with no earlier children is ready at once, so a
 *               second one may follow; it waits for the first and for the
 *               children submitted between them.
 *   chain       a loop with a taskwait: step i submits children then step i+1 as
 *               its continuation, DEPTH steps; a later top-level task and
 *               tamm_wait_all see the last step.
 *   errors      NULL ctx at top level -> TAMM_ESTATE; a foreign ctx -> TAMM_ESTATE;
 *               permissions beyond the parent's -> TAMM_EPERM (state unharmed: a
 *               valid continuation follows); a second continuation while one
 *               still waits -> TAMM_ESTATE.
 * Each runs at 1, 2, 4 workers, under TAMM_SCHED=ws/fifo/prio and TAMM_SEQUENTIAL=1.
 */
#include "tamm_util.h"
#include <stdint.h>

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

#define TILE 4
#define NP 12      /* fan-in parents */
#define NB 6       /* child blocks per parent; block NB-1 is not named by the continuation */
#define NFREE 2    /* ref-less children per parent */
#define DEPTH 1000 /* continuation chain */
#define CHAIN_KIDS 3
#define LOC "cont_test.c"

static int g_seq; /* TAMM_SEQUENTIAL=1 in this child */

/* ------------------------------------------------------------------ */
/* jitter                                                               */
/* ------------------------------------------------------------------ */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A random delay: mostly a short spin, sometimes a sleep of up to max_us. */
static void jitter(uint64_t seed, int max_us)
{
    uint64_t r = mix(seed);
    if ((r & 3) == 0 && max_us > 0) {
        struct timespec ts = { 0, (long)((r >> 8) % (uint64_t)max_us) * 1000L };
        nanosleep(&ts, NULL);
    } else {
        volatile uint64_t s = 0;
        for (uint64_t i = 0; i < ((r >> 8) & 2047); i++) s += i;
    }
}

/* ------------------------------------------------------------------ */
/* fan-in                                                               */
/* ------------------------------------------------------------------ */
static tamm_tensor *gA, *gR;
static atomic_int cflag[NP][NB]; /* round+1 once child (p,c)'s write is done */
static atomic_int nflag[NP];     /* ref-less children done (cumulative) */
static atomic_int kflag[NP], zflag[NP], tflag[NP];

typedef struct { int p, c, round; } fa;

static int64_t val(int p, int c, int round, int e) { return (int64_t)(p * 1000 + c * 10 + e) * (round + 1); }

static void write_block(tamm_ctx *ctx, const fa *a)
{
    long idx[2] = { a->p, a->c };
    int64_t *b = tamm_get_buf_write(ctx, gA, idx);
    TCHECK(b != NULL);
    if (!b) return;
    for (int e = 0; e < TILE; e++) b[e] = val(a->p, a->c, a->round, e);
    TCHECK(tamm_release_put(ctx, b) == TAMM_OK);
}

static void child_write(tamm_ctx *ctx, void *vp)
{
    fa *a = vp;
    jitter((uint64_t)(a->p * 131 + a->c * 7 + a->round * 1009), 400);
    write_block(ctx, a);
    atomic_store(&cflag[a->p][a->c], a->round + 1);
}

/* child 1 delegates its write to a grandchild: it completes only after that */
static void child_delegate(tamm_ctx *ctx, void *vp)
{
    fa *a = vp;
    tamm_task t;
    tamm_ref r = tu_ref2(gA, TAMM_WRITE, a->p, a->c);
    t = tu_task(child_write, a, sizeof *a, &r, 1, "grandchild", LOC, __LINE__);
    TCHECK(tamm_submit(ctx, &t) == TAMM_OK);
}

static void child_free(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    fa *a = vp;
    jitter((uint64_t)(a->p * 77 + a->c * 3 + a->round * 313 + 5), 600);
    atomic_fetch_add(&nflag[a->p], 1);
}

static int64_t fan_sum(int p, int round)
{
    int64_t s = 0;
    for (int c = 0; c < NB - 1; c++) s += val(p, c, round, 0);
    return s;
}

static void fan_cont(tamm_ctx *ctx, void *vp)
{
    fa *a = vp;
    int p = a->p, round = a->round;
    for (int c = 0; c < NB; c++)
        TCHECK_MSG(atomic_load(&cflag[p][c]) == round + 1,
                   "continuation of parent %d (round %d) started before child %d completed", p, round, c);
    TCHECK_MSG(atomic_load(&nflag[p]) == NFREE * (round + 1),
               "continuation of parent %d (round %d) started before its ref-less children completed (%d of %d)", p,
               round, atomic_load(&nflag[p]), NFREE * (round + 1));
    int64_t s = 0;
    for (int c = 0; c < NB - 1; c++) {
        long idx[2] = { p, c };
        int64_t *b = tamm_get_buf_read(ctx, gA, idx);
        TCHECK(b != NULL);
        if (!b) continue;
        for (int e = 0; e < TILE; e++)
            TCHECK_MSG(b[e] == val(p, c, round, e), "A(%d,%d)[%d] = %lld, want %lld", p, c, e, (long long)b[e],
                       (long long)val(p, c, round, e));
        s += b[0];
        tamm_release_put(ctx, b);
    }
    jitter((uint64_t)(p * 17 + round), 300);
    long ri[1] = { p };
    int64_t *r = tamm_get_buf_write(ctx, gR, ri);
    TCHECK(r != NULL);
    if (r) {
        r[0] = s;
        r[1] = round + 1;
        tamm_release_put(ctx, r);
    }
    atomic_store(&kflag[p], round + 1);
}

/* submitted after the continuation, reads its output */
static void fan_after(tamm_ctx *ctx, void *vp)
{
    fa *a = vp;
    TCHECK_MSG(atomic_load(&kflag[a->p]) == a->round + 1, "a child submitted after the continuation of parent %d ran "
                                                          "before it although it reads its output", a->p);
    long ri[1] = { a->p };
    int64_t *r = tamm_get_buf_read(ctx, gR, ri);
    if (r) {
        TCHECK(r[0] == fan_sum(a->p, a->round));
        tamm_release_put(ctx, r);
    }
    atomic_store(&zflag[a->p], a->round + 1);
}

static void fan_parent(tamm_ctx *ctx, void *vp)
{
    fa a = *(fa *)vp;
    int p = a.p;
    for (int c = 0; c < NB; c++) {
        fa ca = { p, c, a.round };
        tamm_ref r = tu_ref2(gA, TAMM_WRITE, p, c);
        tamm_task t = tu_task(c == 1 ? child_delegate : child_write, &ca, sizeof ca, &r, 1, "fan_child", LOC,
                              __LINE__);
        TCHECK(tamm_submit(ctx, &t) == TAMM_OK);
        if (c == 2)
            for (int k = 0; k < NFREE; k++) {
                fa fa2 = { p, 100 + k, a.round };
                tamm_task f = tu_task(child_free, &fa2, sizeof fa2, NULL, 0, "fan_free", LOC, __LINE__);
                TCHECK(tamm_submit(ctx, &f) == TAMM_OK);
            }
    }
    /* the continuation names blocks 0..NB-2 only (not the last child's) */
    tamm_ref kr[NB];
    for (int c = 0; c < NB - 1; c++) kr[c] = tu_ref2(gA, TAMM_READ, p, c);
    kr[NB - 1] = tu_ref1(gR, TAMM_WRITE, p);
    tamm_task k = tu_task(fan_cont, &a, sizeof a, kr, NB, "fan_cont", LOC, __LINE__);
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    o.undeferred = (p % 3 == 1);
    int rc = tamm_submit_continuation(ctx, &k, p % 3 == 2 ? NULL : &o);
    TCHECK_MSG(rc == TAMM_OK, "tamm_submit_continuation = %d", rc);
    if (o.undeferred) TCHECK(atomic_load(&kflag[p]) == a.round + 1);
    tamm_ref zr = tu_ref1(gR, TAMM_READ, p);
    tamm_task z = tu_task(fan_after, &a, sizeof a, &zr, 1, "fan_after", LOC, __LINE__);
    TCHECK(tamm_submit(ctx, &z) == TAMM_OK);
}

/* top level, after the parent: it conflicts with the parent's R block */
static void fan_later(tamm_ctx *ctx, void *vp)
{
    fa *a = vp;
    TCHECK_MSG(atomic_load(&kflag[a->p]) == a->round + 1,
               "a task after parent %d started before the parent's continuation completed", a->p);
    TCHECK(atomic_load(&zflag[a->p]) == a->round + 1);
    long ri[1] = { a->p };
    int64_t *r = tamm_get_buf_read(ctx, gR, ri);
    if (r) {
        TCHECK_MSG(r[0] == fan_sum(a->p, a->round) && r[1] == a->round + 1,
                   "R(%d) = %lld/%lld after the parent, want %lld/%d", a->p, (long long)r[0], (long long)r[1],
                   (long long)fan_sum(a->p, a->round), a->round + 1);
        tamm_release_put(ctx, r);
    }
    atomic_store(&tflag[a->p], a->round + 1);
}

static void scenario_fanin(int rounds)
{
    /* NP x NB blocks of TILE elements */
    size_t dims[2] = { NP, NB * TILE }, tile[2] = { 1, TILE };
    gA = tamm_tensor_create("ContA", TAMM_I64, 2, dims, tile);
    gR = tu_vec("ContR", NP, TILE);
    CHECK_NOTNULL(gA);
    CHECK_NOTNULL(gR);
    if (!gA || !gR) return;
    for (int round = 0; round < rounds; round++) {
        for (int p = 0; p < NP; p++) {
            fa a = { p, 0, round };
            tamm_ref r[2] = { tu_ref2(gA, TAMM_WRITE, p, TAMM_ALL), tu_ref1(gR, TAMM_WRITE, p) };
            tamm_task t = tu_task(fan_parent, &a, sizeof a, r, 2, "fan_parent", LOC, __LINE__);
            CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
            tamm_ref lr = tu_ref1(gR, TAMM_READ, p);
            tamm_task l = tu_task(fan_later, &a, sizeof a, &lr, 1, "fan_later", LOC, __LINE__);
            CHECK_EQ_INT(tamm_submit(NULL, &l), TAMM_OK);
        }
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
        for (int p = 0; p < NP; p++) {
            CHECK_EQ_INT(atomic_load(&kflag[p]), round + 1);
            CHECK_EQ_INT(atomic_load(&tflag[p]), round + 1);
            int64_t *r = tamm_block(gR, p);
            CHECK_NOTNULL(r);
            if (r) CHECK_EQ_INT(r[0], fan_sum(p, round));
        }
        CHECK_TASKS_OK();
    }
    tamm_tensor_destroy(gA);
    tamm_tensor_destroy(gR);
}

/* ------------------------------------------------------------------ */
/* two continuations in one body                                        */
/* ------------------------------------------------------------------ */
static atomic_int k1flag, yflag, k2flag;
static tamm_tensor *gS;

static void two_k1(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    jitter(11, 2000);
    h_sleep_ms(2);
    atomic_store(&k1flag, 1);
}
static void two_y(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    h_sleep_ms(1);
    atomic_store(&yflag, 1);
}
static void two_k2(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    TCHECK_MSG(atomic_load(&k1flag) == 1, "the second continuation started before the first completed");
    TCHECK_MSG(atomic_load(&yflag) == 1, "the second continuation started before a child submitted before it");
    long i[1] = { 0 };
    int64_t *b = tamm_get_buf_write(ctx, gS, i);
    if (b) { b[0] = 42; tamm_release_put(ctx, b); }
    atomic_store(&k2flag, 1);
}
static void two_parent(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    /* no children before it: K1 is ready at once, so K2 may follow */
    tamm_task k1 = tu_task(two_k1, NULL, 0, NULL, 0, "two_k1", LOC, __LINE__);
    TCHECK(tamm_submit_continuation(ctx, &k1, NULL) == TAMM_OK);
    tamm_task y = tu_task(two_y, NULL, 0, NULL, 0, "two_y", LOC, __LINE__);
    TCHECK(tamm_submit(ctx, &y) == TAMM_OK);
    tamm_ref r = tu_ref1(gS, TAMM_WRITE, 0);
    tamm_task k2 = tu_task(two_k2, NULL, 0, &r, 1, "two_k2", LOC, __LINE__);
    int rc = tamm_submit_continuation(ctx, &k2, NULL);
    TCHECK_MSG(rc == TAMM_OK, "a second continuation after the first was ready: %d", rc);
}

static void scenario_two(void)
{
    gS = tu_vec("ContS", 1, TILE);
    atomic_store(&k1flag, 0);
    atomic_store(&yflag, 0);
    atomic_store(&k2flag, 0);
    tamm_ref r = tu_ref1(gS, TAMM_WRITE, 0);
    tamm_task t = tu_task(two_parent, NULL, 0, &r, 1, "two_parent", LOC, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    int64_t *b = tamm_block(gS, 0); /* waits for the parent, hence for K2 */
    CHECK(b && b[0] == 42);
    CHECK_EQ_INT(atomic_load(&k2flag), 1);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    tamm_tensor_destroy(gS);
}

/* ------------------------------------------------------------------ */
/* chain of continuations (a loop with a taskwait)                      */
/* ------------------------------------------------------------------ */
static tamm_tensor *gC;
static atomic_int sdone[DEPTH];
static atomic_int steps_run, lastflag;
typedef struct { int i; } sa;

static void chain_acc(tamm_ctx *ctx, void *vp)
{
    sa *a = vp;
    jitter((uint64_t)a->i * 3 + 1, 100);
    long i0[1] = { 0 };
    int64_t *b = tamm_get_buf_accum(ctx, gC, i0);
    TCHECK(b != NULL);
    if (b) {
        b[0] += a->i + 1;
        TCHECK(tamm_release_add(ctx, b) == TAMM_OK);
    }
    atomic_fetch_add(&sdone[a->i], 1);
}
static void chain_free(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    sa *a = vp;
    jitter((uint64_t)a->i * 5 + 2, 200);
    atomic_fetch_add(&sdone[a->i], 1);
}

static void chain_step(tamm_ctx *ctx, void *vp)
{
    int i = ((sa *)vp)->i;
    atomic_fetch_add(&steps_run, 1);
    if (i > 0)
        TCHECK_MSG(atomic_load(&sdone[i - 1]) == CHAIN_KIDS, "step %d started with %d of %d children of step %d done",
                   i, atomic_load(&sdone[i - 1]), CHAIN_KIDS, i - 1);
    long i0[1] = { 0 };
    int64_t *b = tamm_get_buf_readwrite(ctx, gC, i0);
    TCHECK(b != NULL);
    if (b) {
        TCHECK_MSG(b[0] == (int64_t)i * (i + 1), "step %d sees C[0] = %lld, want %lld", i, (long long)b[0],
                   (long long)i * (i + 1));
        TCHECK(b[1] == i);
        b[1] = i + 1;
        tamm_release_put(ctx, b);
    }
    if (i == DEPTH - 1) {
        atomic_store(&lastflag, 1);
        return;
    }
    sa c = { i };
    tamm_ref ar = tu_ref1(gC, TAMM_ACCUM, 0);
    for (int k = 0; k < CHAIN_KIDS; k++) {
        tamm_task t = k == 1 ? tu_task(chain_free, &c, sizeof c, NULL, 0, "chain_free", LOC, __LINE__)
                             : tu_task(chain_acc, &c, sizeof c, &ar, 1, "chain_acc", LOC, __LINE__);
        TCHECK(tamm_submit(ctx, &t) == TAMM_OK);
    }
    sa n = { i + 1 };
    tamm_ref kr = tu_ref1(gC, TAMM_READWRITE, 0);
    tamm_task k = tu_task(chain_step, &n, sizeof n, &kr, 1, "chain_step", LOC, __LINE__);
    TCHECK(tamm_submit_continuation(ctx, &k, NULL) == TAMM_OK);
}

static void chain_after(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    TCHECK_MSG(atomic_load(&lastflag) == 1, "a task after the chain's first step started before its last step");
}

static void scenario_chain(void)
{
    gC = tu_vec("ContC", 1, TILE);
    for (int i = 0; i < DEPTH; i++) atomic_store(&sdone[i], 0);
    atomic_store(&steps_run, 0);
    atomic_store(&lastflag, 0);
    sa a = { 0 };
    tamm_ref r = tu_ref1(gC, TAMM_READWRITE, 0);
    tamm_task t = tu_task(chain_step, &a, sizeof a, &r, 1, "chain_step", LOC, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    tamm_ref rr = tu_ref1(gC, TAMM_READ, 0);
    tamm_task l = tu_task(chain_after, NULL, 0, &rr, 1, "chain_after", LOC, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &l), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&lastflag), 1);
    CHECK_EQ_INT(atomic_load(&steps_run), DEPTH);
    int64_t *b = tamm_block(gC, 0);
    CHECK_NOTNULL(b);
    if (b) {
        CHECK_EQ_INT(b[0], (int64_t)(DEPTH - 1) * DEPTH);
        CHECK_EQ_INT(b[1], DEPTH);
    }
    CHECK_TASKS_OK();
    tamm_tensor_destroy(gC);
}

/* ------------------------------------------------------------------ */
/* errors (TAMM_ON_ERROR=return)                                        */
/* ------------------------------------------------------------------ */
static tamm_tensor *gD;
static atomic_int gate, gflag, e_eperm, e_ok, e_second, e_foreign, e_kran;
static tamm_ctx *_Atomic saved_ctx;

static void err_noop(tamm_ctx *ctx, void *vp) { (void)ctx; (void)vp; }
static void err_gate_child(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    double end = h_now() + 20;
    while (!atomic_load(&gate) && h_now() < end) h_sleep_ms(1);
    atomic_store(&gflag, 1);
}
static void err_k(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    if (!g_seq) TCHECK_MSG(atomic_load(&gflag) == 1, "continuation started before the gated child completed");
    atomic_store(&e_kran, 1);
}
/* a child of the error parent: uses the parent's ctx, which is not its own */
static void err_foreign(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    tamm_task k = tu_task(err_noop, NULL, 0, NULL, 0, "cont_foreign", LOC, __LINE__);
    atomic_store(&e_foreign, tamm_submit_continuation(atomic_load(&saved_ctx), &k, NULL));
}
static void err_parent(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    atomic_store(&saved_ctx, ctx);
    tamm_task f = tu_task(err_foreign, NULL, 0, NULL, 0, "foreign", LOC, __LINE__);
    tamm_task_opts uo;
    memset(&uo, 0, sizeof uo);
    uo.undeferred = 1; /* runs while this body waits: ctx is alive but not its own */
    TCHECK(tamm_submit_ex(ctx, &f, &uo) == TAMM_OK);
    /* (after the undeferred child: the waiting submitter could otherwise run the gated one) */
    if (!g_seq) {
        tamm_task g = tu_task(err_gate_child, NULL, 0, NULL, 0, "gate", LOC, __LINE__);
        TCHECK(tamm_submit(ctx, &g) == TAMM_OK);
    }
    /* the parent holds READ on D(0): a continuation writing it is refused */
    tamm_ref bad = tu_ref1(gD, TAMM_WRITE, 0);
    tamm_task kb = tu_task(err_noop, NULL, 0, &bad, 1, "cont_bad", LOC, 4242);
    atomic_store(&e_eperm, tamm_submit_continuation(ctx, &kb, NULL));
    /* ... and leaves no state behind: a valid continuation follows */
    tamm_ref ok[2] = { tu_ref1(gD, TAMM_READ, 0), tu_ref1(gD, TAMM_WRITE, 1) };
    tamm_task k = tu_task(err_k, NULL, 0, ok, 2, "cont_ok", LOC, __LINE__);
    atomic_store(&e_ok, tamm_submit_continuation(ctx, &k, NULL));
    if (!g_seq) {
        /* the gated child cannot complete yet: the first continuation still waits */
        tamm_task k2 = tu_task(err_noop, NULL, 0, NULL, 0, "cont_second", LOC, __LINE__);
        atomic_store(&e_second, tamm_submit_continuation(ctx, &k2, NULL));
        atomic_store(&gate, 1);
    }
}

static void scenario_errors(void)
{
    gD = tu_vec("ContD", 2, TILE);
    tamm_task t = tu_task(err_noop, NULL, 0, NULL, 0, "cont_top", LOC, __LINE__);
    CHECK_EQ_INT(tamm_submit_continuation(NULL, &t, NULL), TAMM_ESTATE);
    CHECK_EQ_INT(tamm_submit_continuation(NULL, NULL, NULL), TAMM_ESTATE);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_ESTATE); /* the first error recorded */
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);

    atomic_store(&gate, 0);
    atomic_store(&gflag, 0);
    atomic_store(&e_kran, 0);
    atomic_store(&e_second, 1);
    tamm_ref pr[2] = { tu_ref1(gD, TAMM_READ, 0), tu_ref1(gD, TAMM_WRITE, 1) };
    tamm_task p = tu_task(err_parent, NULL, 0, pr, 2, "err_parent", LOC, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &p), TAMM_OK);
    int rc = tamm_wait_all();
    CHECK_EQ_INT(rc, TAMM_ESTATE); /* the foreign ctx, the first error */
    CHECK_EQ_INT(atomic_load(&e_foreign), TAMM_ESTATE);
    CHECK_EQ_INT(atomic_load(&e_eperm), TAMM_EPERM);
    CHECK_EQ_INT(atomic_load(&e_ok), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&e_kran), 1);
    if (!g_seq) CHECK_EQ_INT(atomic_load(&e_second), TAMM_ESTATE);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    tamm_tensor_destroy(gD);
}

/* ------------------------------------------------------------------ */
/* driver                                                               */
/* ------------------------------------------------------------------ */
static int child_all(void *arg)
{
    (void)arg;
    const char *s = getenv("TAMM_SEQUENTIAL");
    g_seq = s && strcmp(s, "1") == 0;
    tu_init();
    scenario_fanin(UNDER_SANITIZER ? 3 : 8);
    scenario_two();
    scenario_chain();
    scenario_errors();
    TU_FINALIZE();
    return 0;
}

static int child_errors_only(void *arg)
{
    (void)arg;
    tu_init();
    scenario_errors();
    TU_FINALIZE();
    return 0;
}

int main(void)
{
    static const char *const cfgs[][3] = {
        { "TAMM_NUM_WORKERS=1", NULL, NULL },
        { "TAMM_NUM_WORKERS=2", NULL, NULL },
        { "TAMM_NUM_WORKERS=4", NULL, NULL },
        { "TAMM_NUM_WORKERS=1", "TAMM_SCHED=fifo", NULL },
        { "TAMM_NUM_WORKERS=2", "TAMM_SCHED=fifo", NULL },
        { "TAMM_NUM_WORKERS=4", "TAMM_SCHED=fifo", NULL },
        { "TAMM_NUM_WORKERS=1", "TAMM_SCHED=prio", NULL },
        { "TAMM_NUM_WORKERS=2", "TAMM_SCHED=prio", NULL },
        { "TAMM_NUM_WORKERS=4", "TAMM_SCHED=prio", NULL },
        { "TAMM_NUM_WORKERS=4", "TAMM_SCHED=ws", NULL },
        { "TAMM_NUM_WORKERS=1", "TAMM_SEQUENTIAL=1", NULL },
        { "TAMM_NUM_WORKERS=4", "TAMM_SEQUENTIAL=1", NULL },
    };
    int ncfg = (int)(sizeof cfgs / sizeof cfgs[0]);
    for (int k = 0; k < ncfg; k++) {
        const char *env[5] = { cfgs[k][0], cfgs[k][1] ? cfgs[k][1] : "TAMM_ON_ERROR=return",
                               cfgs[k][1] ? "TAMM_ON_ERROR=return" : NULL, NULL, NULL };
        h_context("%s %s", cfgs[k][0], cfgs[k][1] ? cfgs[k][1] : "");
        run_test_child("continuations", child_all, NULL, env, UNDER_SANITIZER ? 300 : 60);
    }
    /* the messages name the continuation and its location */
    h_context("error messages");
    static char errbuf[H_ERRBUF_SIZE];
    static h_status st;
    const char *env[] = { "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
    if (run_child(child_errors_only, NULL, env, 60, &st, errbuf) == 0) {
        h__merge_counts(&st);
        CHECK(child_ok(&st));
        CHECK_CONTAINS(errbuf, "task 'cont_bad' (" LOC ":4242)");
        CHECK_CONTAINS(errbuf, "task 'cont_top' (" LOC ":");
        CHECK_CONTAINS(errbuf, "task 'cont_second' (" LOC ":");
        CHECK_CONTAINS(errbuf, "task 'cont_foreign' (" LOC ":");
        CHECK_CONTAINS(errbuf, "tamm_submit_continuation");
    } else {
        CHECK_MSG(0, "could not fork");
    }
    h_context(NULL);
    return test_summary();
}
