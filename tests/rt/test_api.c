/*
 * test_api.c — the public API of libtammrt (include/tamm.h, docs/runtime.md):
 * tensors and edge blocks, tamm_block outside tasks (sequential elision),
 * gather/scatter, tamm_wait_on, tamm_barrier, fences (and TAMM_EDEADLOCK for an
 * unsignalled one), deferred tamm_tensor_destroy, temps at top level, nested tasks,
 * undeferred tasks, generators, TAMM_SEQUENTIAL, the schedulers giving the same
 * results, TAMM_TRACE / TAMM_DAG / TAMM_STATS output, re-initialisation.
 * Every test runs in its own child process (killed if it hangs).
 */
#include "tamm_util.h"
#include <ctype.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
static int t_tensor_basics(void *vp)
{
    (void)vp;
    tu_init();
    size_t dims[2] = { 10, 7 }, tile[2] = { 4, 3 };
    tamm_tensor *T = tamm_tensor_create("Basic", TAMM_F64, 2, dims, tile);
    CHECK_NOTNULL(T);
    if (!T) return 1;
    CHECK(strcmp(tamm_tensor_name(T), "Basic") == 0);
    CHECK_EQ_INT(tamm_tensor_ndim(T), 2);
    CHECK_EQ_INT(tamm_tensor_dtype(T), TAMM_F64);
    CHECK_EQ_INT(tamm_tensor_dim(T, 0), 10);
    CHECK_EQ_INT(tamm_tensor_dim(T, 1), 7);
    CHECK_EQ_INT(tamm_tensor_nblocks(T, 0), 3);
    CHECK_EQ_INT(tamm_tensor_nblocks(T, 1), 3);
    CHECK_EQ_INT(tamm_block_extent(T, 0, 0), 4);
    CHECK_EQ_INT(tamm_block_extent(T, 0, 1), 4);
    CHECK_EQ_INT(tamm_block_extent(T, 0, 2), 2);
    CHECK_EQ_INT(tamm_block_extent(T, 1, 0), 3);
    CHECK_EQ_INT(tamm_block_extent(T, 1, 1), 3);
    CHECK_EQ_INT(tamm_block_extent(T, 1, 2), 1);
    long i00[2] = { 0, 0 }, i22[2] = { 2, 2 }, i12[2] = { 1, 2 }, i21[2] = { 2, 1 };
    CHECK_EQ_INT(tamm_block_elems(T, i00), 12);
    CHECK_EQ_INT(tamm_block_elems(T, i22), 2);
    CHECK_EQ_INT(tamm_block_elems(T, i12), 4);
    CHECK_EQ_INT(tamm_block_elems(T, i21), 6);
    CHECK_EQ_INT(tamm_block_bytes(T, i00), 96);
    CHECK_EQ_INT(tamm_block_bytes(T, i22), 16);
    /* contents start at zero */
    for (long i = 0; i < 3; i++)
        for (long j = 0; j < 3; j++) {
            double *b = tamm_block(T, i, j);
            long idx[2] = { i, j };
            CHECK_NOTNULL(b);
            if (!b) continue;
            for (size_t e = 0; e < tamm_block_elems(T, idx); e++) CHECK(b[e] == 0.0);
        }
    /* data types and sizes */
    static const struct { tamm_dtype d; size_t sz; } dt[] = { { TAMM_F32, 4 }, { TAMM_F64, 8 }, { TAMM_I32, 4 }, { TAMM_I64, 8 } };
    for (int k = 0; k < 4; k++) {
        size_t d1[1] = { 5 }, t1[1] = { 2 };
        tamm_tensor *V = tamm_tensor_create("Dt", dt[k].d, 1, d1, t1);
        CHECK_NOTNULL(V);
        if (!V) continue;
        long b0[1] = { 0 }, b2[1] = { 2 };
        CHECK_EQ_INT(tamm_tensor_nblocks(V, 0), 3);
        CHECK_EQ_INT(tamm_block_bytes(V, b0), 2 * dt[k].sz);
        CHECK_EQ_INT(tamm_block_bytes(V, b2), dt[k].sz);
        CHECK_EQ_INT(tamm_tensor_destroy(V), TAMM_OK);
    }
    /* 8 dimensions is the maximum */
    size_t d8[8] = { 2, 2, 2, 2, 2, 2, 2, 3 }, t8[8] = { 1, 1, 1, 1, 1, 1, 2, 2 };
    tamm_tensor *E = tamm_tensor_create("Eight", TAMM_I32, 8, d8, t8);
    CHECK_NOTNULL(E);
    if (E) {
        CHECK_EQ_INT(tamm_tensor_nblocks(E, 7), 2);
        CHECK_EQ_INT(tamm_block_extent(E, 7, 1), 1);
        int *b = tamm_block(E, 1, 1, 1, 1, 1, 1, 0, 1);
        CHECK_NOTNULL(b);
    }
    CHECK_EQ_INT(tamm_rank(), 0);
    CHECK_EQ_INT(tamm_nranks(), 1);
    CHECK(tamm_num_workers() >= 1);
    CHECK_NULL(tamm_current_ctx());
    CHECK_EQ_INT(tamm_tensor_destroy(T), TAMM_OK);
    TU_FINALIZE();
    return 0;
}

static int t_strerror(void *vp)
{
    (void)vp;
    for (int e = 0; e >= -12; e--) {
        const char *s = tamm_strerror(e);
        CHECK_MSG(s && s[0], "tamm_strerror(%d) is a message", e);
        for (int f = e - 1; f >= -12; f--) CHECK_MSG(strcmp(s, tamm_strerror(f)) != 0, "messages %d and %d differ", e, f);
    }
    CHECK_NOTNULL(tamm_strerror(-999));
    CHECK_NOTNULL(tamm_strerror(42));
    return 0;
}

/* ------------------------------------------------------------------ */
/* Tasks used by several tests                                          */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; long i, j; long val; int sleep_ms; int id; atomic_int *flag; } wargs;
static atomic_int g_flag, g_flag2, g_order_pos, g_order[64];

/* write val to every element of block (i) of a 1-D I64 tensor, after sleeping */
static void write_task(tamm_ctx *ctx, void *vp)
{
    wargs *a = vp;
    if (a->sleep_ms) h_sleep_ms(a->sleep_ms);
    long idx[1] = { a->i };
    long *p = tamm_get_buf_write(ctx, a->T, idx);
    TCHECK(p != NULL);
    if (!p) return;
    size_t n = tamm_block_elems(a->T, idx);
    for (size_t e = 0; e < n; e++) p[e] = a->val;
    TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
    if (a->flag) atomic_store(a->flag, 1);
    int pos = atomic_fetch_add(&g_order_pos, 1);
    if (pos < 64) atomic_store(&g_order[pos], a->id);
}
/* check a flag is set and (if val >= 0) the block holds val */
static void check_task(tamm_ctx *ctx, void *vp)
{
    wargs *a = vp;
    if (a->flag) TCHECK_MSG(atomic_load(a->flag) == 1, "task %d started before what it must follow", a->id);
    if (a->val >= 0) {
        long idx[1] = { a->i };
        long *p = tamm_get_buf_read(ctx, a->T, idx);
        TCHECK(p != NULL);
        if (!p) return;
        TCHECK_MSG(p[0] == a->val, "task %d read %ld, expected %ld", a->id, p[0], a->val);
        TCHECK(tamm_release_cancel(ctx, p) == TAMM_OK);
    }
    int pos = atomic_fetch_add(&g_order_pos, 1);
    if (pos < 64) atomic_store(&g_order[pos], a->id);
}

static int submit_w(tamm_tensor *T, long i, long val, int sleep_ms, int id, atomic_int *flag, const char *label)
{
    wargs a = { T, i, 0, val, sleep_ms, id, flag };
    tamm_ref r = tu_ref1(T, TAMM_WRITE, i);
    tamm_task t = tu_task(write_task, &a, sizeof a, &r, 1, label, __FILE__, __LINE__);
    return tamm_submit(NULL, &t);
}
static int submit_c(tamm_tensor *T, long i, long val, int id, atomic_int *flag, const char *label)
{
    wargs a = { T, i, 0, val, 0, id, flag };
    tamm_ref r = tu_ref1(T, TAMM_READ, i);
    tamm_task t = tu_task(check_task, &a, sizeof a, &r, 1, label, __FILE__, __LINE__);
    return tamm_submit(NULL, &t);
}

/* ------------------------------------------------------------------ */
static int t_block_outside(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Elide", 3, 4);
    atomic_store(&g_flag, 0);
    CHECK_EQ_INT(submit_w(T, 1, 42, 80, 0, &g_flag, "slow_writer"), TAMM_OK);
    /* no wait: tamm_block waits for the task using the block */
    long *b = tamm_block(T, 1);
    CHECK_NOTNULL(b);
    if (b) {
        CHECK_EQ_INT(atomic_load(&g_flag), 1);
        for (int e = 0; e < 4; e++) CHECK_EQ_INT(b[e], 42);
        /* write through it; a later task sees it */
        for (int e = 0; e < 4; e++) b[e] = 7;
    }
    CHECK_EQ_INT(submit_c(T, 1, 7, 1, NULL, "reader_after_top_write"), TAMM_OK);
    /* an accumulation and a read of the result at top level */
    CHECK_EQ_INT(submit_w(T, 2, 5, 0, 2, NULL, "w2"), TAMM_OK);
    long *c = tamm_block(T, 2);
    CHECK(c && c[3] == 5);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

static int t_gather_scatter(void *vp)
{
    (void)vp;
    tu_init();
    size_t dims[2] = { 10, 7 }, tile[2] = { 4, 3 };
    tamm_tensor *T = tamm_tensor_create("GS", TAMM_F64, 2, dims, tile);
    double src[70], dst[70];
    for (int i = 0; i < 70; i++) { src[i] = i * 1.5 + 0.25; dst[i] = -1; }
    CHECK_EQ_INT(tamm_tensor_scatter(T, src), TAMM_OK);
    CHECK_EQ_INT(tamm_tensor_gather(T, dst), TAMM_OK);
    CHECK(memcmp(src, dst, sizeof src) == 0);
    /* tiles are row-major: block (1,2) is rows 4..7, column 6 */
    double *b = tamm_block(T, 1, 2);
    CHECK_NOTNULL(b);
    if (b)
        for (int r = 0; r < 4; r++) CHECK(b[r] == src[(4 + r) * 7 + 6]);
    double *c = tamm_block(T, 2, 1);
    CHECK_NOTNULL(c);
    if (c)
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 3; k++) CHECK(c[r * 3 + k] == src[(8 + r) * 7 + 3 + k]);
    /* change through a block, gather again */
    if (c) c[0] = 1000.0;
    CHECK_EQ_INT(tamm_tensor_gather(T, dst), TAMM_OK);
    CHECK(dst[8 * 7 + 3] == 1000.0);
    TU_FINALIZE();
    return 0;
}

/* read block (i), slowly, then set the flag */
static void slow_read_task(tamm_ctx *ctx, void *vp)
{
    wargs *a = vp;
    long idx[1] = { a->i };
    long *p = tamm_get_buf_read(ctx, a->T, idx);
    TCHECK(p != NULL);
    h_sleep_ms(a->sleep_ms);
    if (p) TCHECK(tamm_release_cancel(ctx, p) == TAMM_OK);
    atomic_store(a->flag, 1);
}

static int t_wait_on(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("WaitOn", 2, 4);
    atomic_store(&g_flag, 0);
    atomic_store(&g_flag2, 0);
    CHECK_EQ_INT(submit_w(T, 0, 1, 150, 0, &g_flag, "slow0"), TAMM_OK);
    CHECK_EQ_INT(submit_w(T, 1, 2, 20, 1, &g_flag2, "fast1"), TAMM_OK);
    tamm_ref r = tu_ref1(T, TAMM_READ, 1);
    CHECK_EQ_INT(tamm_wait_on(&r, 1), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_flag2), 1);
    tamm_ref all = tu_ref_all(T, TAMM_READ);
    CHECK_EQ_INT(tamm_wait_on(&all, 1), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_flag), 1);
    /* it waits for every earlier task that uses the block, readers too, whatever the ref's mode
     * (a read-mode wait returned at once while a reader still ran) */
    static const unsigned modes[] = { TAMM_READ, TAMM_WRITE, TAMM_ACCUM, TAMM_READWRITE };
    for (int m = 0; m < 4; m++) {
        atomic_store(&g_flag2, 0);
        wargs a = { T, 1, 0, 0, 120, 7, &g_flag2 };
        tamm_ref rr = tu_ref1(T, TAMM_READ, 1);
        tamm_task t = tu_task(slow_read_task, &a, sizeof a, &rr, 1, "slow reader", __FILE__, __LINE__);
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
        tamm_ref w = tu_ref1(T, modes[m], 1);
        CHECK_EQ_INT(tamm_wait_on(&w, 1), TAMM_OK);
        CHECK_MSG(atomic_load(&g_flag2) == 1, "tamm_wait_on (mode %u) returned before an earlier reader ended", modes[m]);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* independent collective tasks (no block in common) never run at once, also in
 * one process (docs/runtime.md "Collective tasks"); ordinary tasks still interleave with them */
static atomic_int g_coll_inside, g_coll_overlaps, g_coll_ran;
static void coll_body(tamm_ctx *ctx, void *vp)
{
    (void)vp;
    TCHECK(tamm_comm(ctx) == NULL || tamm_nranks() > 1);
    if (atomic_fetch_add(&g_coll_inside, 1) != 0) atomic_fetch_add(&g_coll_overlaps, 1);
    h_sleep_ms(15);
    atomic_fetch_sub(&g_coll_inside, 1);
    atomic_fetch_add(&g_coll_ran, 1);
}

static int t_collectives(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Coll", 6, 1);
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    o.collective = 1;
    for (long c = 0; c < 6; c++) {
        tamm_ref r = tu_ref1(T, TAMM_READWRITE, c);
        tamm_task t = tu_task(coll_body, NULL, 0, &r, 1, "collective", __FILE__, __LINE__);
        CHECK_EQ_INT(tamm_submit_ex(NULL, &t, &o), TAMM_OK);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_coll_ran), 6);
    CHECK_MSG(atomic_load(&g_coll_overlaps) == 0, "%d collective tasks overlapped another", atomic_load(&g_coll_overlaps));
    CHECK_TASKS_OK();
    tamm_tensor_destroy(T);
    TU_FINALIZE();
    return 0;
}

static int t_barrier(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Bar", 2, 4);
    atomic_store(&g_flag, 0);
    CHECK_EQ_INT(submit_w(T, 0, 1, 50, 0, &g_flag, "before_barrier"), TAMM_OK);
    CHECK_EQ_INT(tamm_barrier(), TAMM_OK);
    /* independent block: ordered only by the barrier */
    CHECK_EQ_INT(submit_c(T, 1, 0, 1, &g_flag, "after_barrier"), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

static int t_fences(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Fence", 2, 4);
    tamm_fence *f = tamm_fence_create();
    CHECK_NOTNULL(f);
    atomic_store(&g_flag, 0);
    /* signaller on block 0 (slow), waiter on independent block 1 */
    wargs a = { T, 0, 0, 3, 60, 0, &g_flag };
    tamm_ref r0 = tu_ref1(T, TAMM_WRITE, 0);
    tamm_task ts = tu_task(write_task, &a, sizeof a, &r0, 1, "signaller", __FILE__, __LINE__);
    tamm_task_opts os;
    memset(&os, 0, sizeof os);
    os.signal = &f;
    os.nsignal = 1;
    CHECK_EQ_INT(tamm_submit_ex(NULL, &ts, &os), TAMM_OK);
    wargs b = { T, 1, 0, -1, 0, 1, &g_flag };
    tamm_ref r1 = tu_ref1(T, TAMM_READ, 1);
    tamm_task tw = tu_task(check_task, &b, sizeof b, &r1, 1, "waiter", __FILE__, __LINE__);
    tamm_task_opts ow;
    memset(&ow, 0, sizeof ow);
    ow.wait = &f;
    ow.nwait = 1;
    CHECK_EQ_INT(tamm_submit_ex(NULL, &tw, &ow), TAMM_OK);
    CHECK_EQ_INT(tamm_fence_wait(f), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_flag), 1);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(tamm_fence_destroy(f), TAMM_OK);
    /* a waiter submitted before its signaller */
    tamm_fence *g = tamm_fence_create();
    atomic_store(&g_flag2, 0);
    wargs c = { T, 1, 0, -1, 0, 2, &g_flag2 };
    tamm_task tw2 = tu_task(check_task, &c, sizeof c, &r1, 1, "early_waiter", __FILE__, __LINE__);
    ow.wait = &g;
    CHECK_EQ_INT(tamm_submit_ex(NULL, &tw2, &ow), TAMM_OK);
    wargs d = { T, 0, 0, 4, 30, 3, &g_flag2 };
    tamm_task ts2 = tu_task(write_task, &d, sizeof d, &r0, 1, "late_signaller", __FILE__, __LINE__);
    os.signal = &g;
    CHECK_EQ_INT(tamm_submit_ex(NULL, &ts2, &os), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(tamm_fence_destroy(g), TAMM_OK);
    /* undeferred (if(0)): completed when tamm_submit_ex returns */
    atomic_store(&g_flag, 0);
    wargs u = { T, 0, 0, 9, 30, 4, &g_flag };
    tamm_task tu1 = tu_task(write_task, &u, sizeof u, &r0, 1, "undeferred", __FILE__, __LINE__);
    tamm_task_opts ou;
    memset(&ou, 0, sizeof ou);
    ou.undeferred = 1;
    CHECK_EQ_INT(tamm_submit_ex(NULL, &tu1, &ou), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_flag), 1);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

static int t_fence_deadlock(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Dead", 2, 4);
    tamm_fence *f = tamm_fence_create();
    /* nobody signals f */
    CHECK_EQ_INT(tamm_fence_wait(f), TAMM_EDEADLOCK);
    tamm_fence *g = tamm_fence_create();
    wargs b = { T, 1, 0, -1, 0, 1, NULL };
    tamm_ref r1 = tu_ref1(T, TAMM_READ, 1);
    tamm_task tw = tu_task(check_task, &b, sizeof b, &r1, 1, "waits_forever", __FILE__, __LINE__);
    tamm_task_opts ow;
    memset(&ow, 0, sizeof ow);
    ow.wait = &g;
    ow.nwait = 1;
    CHECK_EQ_INT(tamm_submit_ex(NULL, &tw, &ow), TAMM_OK);
    double t0 = h_now();
    CHECK_EQ_INT(tamm_wait_all(), TAMM_EDEADLOCK);
    CHECK(h_now() - t0 < 10.0);
    tamm_finalize(); /* must not hang */
    return 0;
}

static int t_destroy_deferred(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Doomed", 2, 4);
    atomic_store(&g_flag, 0);
    CHECK_EQ_INT(submit_w(T, 0, 5, 80, 0, &g_flag, "uses_doomed"), TAMM_OK);
    CHECK_EQ_INT(submit_c(T, 0, 5, 1, &g_flag, "reads_doomed"), TAMM_OK);
    double t0 = h_now();
    CHECK_EQ_INT(tamm_tensor_destroy(T), TAMM_OK);
    CHECK_MSG(h_now() - t0 < 0.07 || atomic_load(&g_flag) == 1, "destroy did not block (or the task was already done)");
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_flag), 1);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

static int t_temp_top(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("TopTemp", 2, 4);
    long *t = tamm_temp(T, 0);
    CHECK_NOTNULL(t);
    if (!t) return 1;
    for (int e = 0; e < 4; e++) t[e] = e + 1;
    CHECK_EQ_INT(tamm_put(t), TAMM_OK);
    long *b = tamm_block(T, 0);
    for (int e = 0; e < 4; e++) CHECK_EQ_INT(b[e], e + 1);
    t = tamm_temp(T, 0);
    for (int e = 0; e < 4; e++) t[e] = 10;
    CHECK_EQ_INT(tamm_add(t), TAMM_OK);
    b = tamm_block(T, 0);
    for (int e = 0; e < 4; e++) CHECK_EQ_INT(b[e], e + 11);
    t = tamm_temp(T, 0);
    for (int e = 0; e < 4; e++) t[e] = 99;
    CHECK_EQ_INT(tamm_cancel(t), TAMM_OK);
    b = tamm_block(T, 0);
    for (int e = 0; e < 4; e++) CHECK_EQ_INT(b[e], e + 11);
    TU_FINALIZE();
    return 0;
}

/* The sequential elision's cancellation (docs/runtime.md, "Cancellation"): in
 * a program with no tammcc-translated code (this test, a plain build of a
 * pragma program), top-level tamm_block keeps a copy of the block, tamm_cancel
 * of its memory puts it back, tamm_put / tamm_add of it keep the writes; a
 * second cancel is TAMM_EBUF.  With translated code (tamm_cc_translated(),
 * which tamm_cc.h's constructor calls) no copy is kept and a top-level cancel
 * of a block's memory is TAMM_ECANCEL. */
void tamm_cc_translated(void); /* include/tamm_cc.h */

static int t_cancel_top(void *vp)
{
    int translated = vp != NULL;
    if (translated) tamm_cc_translated();
    tu_init();
    tamm_tensor *T = tu_vec("TopCancel", 2, 4);
    long *b = tamm_block(T, 0);
    CHECK_NOTNULL(b);
    if (!b) return 1;
    for (int e = 0; e < 4; e++) b[e] = 5;
    CHECK_EQ_INT(tamm_put(b), TAMM_OK);
    b = tamm_block(T, 0);
    for (int e = 0; e < 4; e++) CHECK_EQ_INT(b[e], 5);
    for (int e = 0; e < 4; e++) b[e] = 9;
    if (!translated) {
        CHECK_EQ_INT(tamm_cancel(b), TAMM_OK);
        long *c = tamm_block(T, 0);
        CHECK_MSG(c == b, "tamm_block returns the block's own memory");
        for (int e = 0; e < 4; e++) CHECK_EQ_INT(c[e], 5); /* the writes were dropped */
        CHECK_EQ_INT(tamm_cancel(c), TAMM_OK);
        CHECK_EQ_INT(tamm_cancel(c), TAMM_EBUF); /* already cancelled */
        CHECK_EQ_INT(tamm_wait_all(), TAMM_EBUF);
        c = tamm_block(T, 0);
        for (int e = 0; e < 4; e++) c[e] += 1;
        CHECK_EQ_INT(tamm_add(c), TAMM_OK); /* a commit: the writes stay */
        c = tamm_block(T, 1);
        for (int e = 0; e < 4; e++) c[e] = 3; /* no put: stays too */
    } else {
        CHECK_EQ_INT(tamm_cancel(b), TAMM_ECANCEL);
        CHECK_EQ_INT(tamm_wait_all(), TAMM_ECANCEL);
        long *c = tamm_block(T, 0);
        for (int e = 0; e < 4; e++) CHECK_EQ_INT(c[e], 9); /* nothing to restore */
        for (int e = 0; e < 4; e++) c[e] = 5 + 1;
        c = tamm_block(T, 1);
        for (int e = 0; e < 4; e++) c[e] = 3;
    }
    long *c = tamm_block(T, 0), *d = tamm_block(T, 1);
    for (int e = 0; e < 4; e++) CHECK_EQ_INT(c[e], 6);
    for (int e = 0; e < 4; e++) CHECK_EQ_INT(d[e], 3);
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* Nested tasks                                                         */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; int n; } pargs;
static void nested_child_w(tamm_ctx *ctx, void *vp)
{
    wargs *a = vp;
    if (a->sleep_ms) h_sleep_ms(a->sleep_ms);
    long idx[1] = { a->i };
    long *p = tamm_get_buf_readwrite(ctx, a->T, idx);
    TCHECK(p != NULL);
    if (!p) return;
    /* children of one parent run in submission order: each sees its predecessor's value */
    TCHECK_MSG(p[0] == a->val - 1, "child %d saw %ld, expected %ld", a->id, p[0], a->val - 1);
    for (int e = 0; e < 4; e++) p[e] = a->val;
    TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
}
static void nested_parent(tamm_ctx *ctx, void *vp)
{
    pargs *a = vp;
    TCHECK(tamm_current_ctx() == ctx);
    TCHECK(tamm_ctx_label(ctx) && strcmp(tamm_ctx_label(ctx), "parent") == 0);
    for (int k = 0; k < a->n; k++) {
        wargs c = { a->T, 0, 0, k + 1, k == 0 ? 40 : 0, k, NULL };
        tamm_ref r = tu_ref1(a->T, TAMM_READWRITE, 0);
        tamm_task t = tu_task(nested_child_w, &c, sizeof c, &r, 1, "child", __FILE__, __LINE__);
        TCHECK(tamm_submit(ctx, &t) == TAMM_OK);
    }
}

static int t_nested(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Nest", 2, 4);
    pargs a = { T, 5 };
    tamm_ref r = tu_ref1(T, TAMM_WRITE | TAMM_PERMISSION_ONLY, 0);
    tamm_task t = tu_task(nested_parent, &a, sizeof a, &r, 1, "parent", __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    /* a dependent of the parent runs after the parent's children completed */
    CHECK_EQ_INT(submit_c(T, 0, 5, 9, NULL, "after_parent"), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    long *b = tamm_block(T, 0);
    for (int e = 0; e < 4; e++) CHECK_EQ_INT(b[e], 5);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* A small blocked computation: C = A * B (int64), results compared with   */
/* plain C, under every scheduler / worker count / sequential mode.       */
/* ------------------------------------------------------------------ */
#define MN 10
#define MT 4
typedef struct { tamm_tensor *A, *B, *C; long i, j, k; } mm_args;

static long aval(long r, long c) { return (r * 31 + c * 7) % 13 - 6; }
static long bval(long r, long c) { return (r * 5 + c * 11) % 17 - 8; }

static void fill_task(tamm_ctx *ctx, void *vp)
{
    mm_args *a = vp;
    long idx[2] = { a->i, a->j };
    tamm_tensor *T = a->k ? a->B : a->A;
    long *p = tamm_get_buf_write(ctx, T, idx);
    TCHECK(p != NULL);
    if (!p) return;
    size_t er = tamm_block_extent(T, 0, a->i), ec = tamm_block_extent(T, 1, a->j);
    for (size_t r = 0; r < er; r++)
        for (size_t c = 0; c < ec; c++) {
            long gr = a->i * MT + (long)r, gc = a->j * MT + (long)c;
            p[r * ec + c] = a->k ? bval(gr, gc) : aval(gr, gc);
        }
    TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
}
static void gemm_task(tamm_ctx *ctx, void *vp)
{
    mm_args *a = vp;
    long ia[2] = { a->i, a->k }, ib[2] = { a->k, a->j }, ic[2] = { a->i, a->j };
    const long *pa = tamm_get_buf_read(ctx, a->A, ia);
    const long *pb = tamm_get_buf_read(ctx, a->B, ib);
    long *pc = tamm_get_buf_accum(ctx, a->C, ic);
    TCHECK(pa && pb && pc);
    if (!pa || !pb || !pc) return;
    size_t m = tamm_block_extent(a->C, 0, a->i), n = tamm_block_extent(a->C, 1, a->j), kk = tamm_block_extent(a->A, 1, a->k);
    for (size_t r = 0; r < m; r++)
        for (size_t c = 0; c < n; c++) {
            long s = 0;
            for (size_t q = 0; q < kk; q++) s += pa[r * kk + q] * pb[q * n + c];
            pc[r * n + c] += s;
        }
    TCHECK(tamm_release_cancel(ctx, (void *)pa) == TAMM_OK);
    TCHECK(tamm_release_cancel(ctx, (void *)pb) == TAMM_OK);
    TCHECK(tamm_release_add(ctx, pc) == TAMM_OK);
}
static void scale_task(tamm_ctx *ctx, void *vp)
{
    mm_args *a = vp;
    long ic[2] = { a->i, a->j };
    long *pc = tamm_get_buf_readwrite(ctx, a->C, ic);
    TCHECK(pc != NULL);
    if (!pc) return;
    size_t n = tamm_block_elems(a->C, ic);
    for (size_t e = 0; e < n; e++) pc[e] = pc[e] * 3 + 1;
    TCHECK(tamm_release_put(ctx, pc) == TAMM_OK);
}

static unsigned long long run_matmul(void)
{
    size_t dims[2] = { MN, MN }, tile[2] = { MT, MT };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_I64, 2, dims, tile);
    long nb = tamm_tensor_nblocks(A, 0);
    int prio = 0;
    for (long i = 0; i < nb; i++)
        for (long j = 0; j < nb; j++)
            for (int which = 0; which < 2; which++) {
                mm_args a = { A, B, C, i, j, which };
                tamm_ref r = tu_ref2(which ? B : A, TAMM_WRITE, i, j);
                tamm_task t = tu_task(fill_task, &a, sizeof a, &r, 1, "fill", __FILE__, __LINE__);
                t.priority = prio++ % 3;
                CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
            }
    for (int rep = 0; rep < 2; rep++) {
        for (long i = 0; i < nb; i++)
            for (long j = 0; j < nb; j++)
                for (long k = 0; k < nb; k++) {
                    mm_args a = { A, B, C, i, j, k };
                    tamm_ref r[3] = { tu_ref2(A, TAMM_READ, i, k), tu_ref2(B, TAMM_READ, k, j), tu_ref2(C, TAMM_ACCUM, i, j) };
                    tamm_task t = tu_task(gemm_task, &a, sizeof a, r, 3, "gemm", __FILE__, __LINE__);
                    t.priority = prio++ % 5;
                    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
                }
        for (long i = 0; i < nb; i++)
            for (long j = 0; j < nb; j++) {
                mm_args a = { A, B, C, i, j, 0 };
                tamm_ref r = tu_ref2(C, TAMM_READWRITE, i, j);
                tamm_task t = tu_task(scale_task, &a, sizeof a, &r, 1, "scale", __FILE__, __LINE__);
                CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
            }
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    long out[MN * MN];
    CHECK_EQ_INT(tamm_tensor_gather(C, out), TAMM_OK);
    /* plain C reference */
    long ref[MN * MN];
    memset(ref, 0, sizeof ref);
    for (int rep = 0; rep < 2; rep++) {
        for (int r = 0; r < MN; r++)
            for (int c = 0; c < MN; c++) {
                long s = 0;
                for (int q = 0; q < MN; q++) s += aval(r, q) * bval(q, c);
                ref[r * MN + c] += s;
            }
        for (int e = 0; e < MN * MN; e++) ref[e] = ref[e] * 3 + 1;
    }
    int bad = 0;
    unsigned long long sum = 0;
    for (int e = 0; e < MN * MN; e++) {
        if (out[e] != ref[e]) bad++;
        sum = sum * 31u + (unsigned long long)out[e];
    }
    CHECK_MSG(bad == 0, "%d elements of C differ from the sequential result", bad);
    CHECK_TASKS_OK();
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(C);
    return sum;
}

static int t_matmul(void *vp)
{
    (void)vp;
    tu_init();
    unsigned long long s = run_matmul();
    printf("CHECKSUM %llu\n", s);
    TU_FINALIZE();
    return 0;
}

static unsigned long long checksum_of(const h_status *st)
{
    const char *p = strstr(st->out, "CHECKSUM ");
    return p ? strtoull(p + 9, NULL, 10) : 0;
}

static void test_schedulers(void)
{
    static h_status st;
    static char err[H_ERRBUF_SIZE];
    char how[128];
    static const char *const envs[][3] = {
        { "TAMM_SCHED=ws", "TAMM_NUM_WORKERS=4", NULL },
        { "TAMM_SCHED=fifo", "TAMM_NUM_WORKERS=4", NULL },
        { "TAMM_SCHED=prio", "TAMM_NUM_WORKERS=4", NULL },
        { "TAMM_SCHED=ws", "TAMM_NUM_WORKERS=1", NULL },
        { "TAMM_SCHED=prio", "TAMM_NUM_WORKERS=2", NULL },
        { "TAMM_SEQUENTIAL=1", "TAMM_NUM_WORKERS=4", NULL },
        { "TAMM_MEMORY_LIMIT=1K", "TAMM_NUM_WORKERS=3", NULL },
    };
    unsigned long long first = 0;
    for (size_t k = 0; k < sizeof envs / sizeof envs[0]; k++) {
        h_context("matmul with %s %s", envs[k][0], envs[k][1]);
        run_child(t_matmul, NULL, envs[k], 25, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child("matmul", &st, err);
        unsigned long long s = checksum_of(&st);
        CHECK_MSG(s != 0, "a checksum was printed");
        if (k == 0) first = s;
        else CHECK_MSG(s == first, "same result as with the default scheduler (%llu vs %llu)", s, first);
    }
    h_context(NULL);
}

/* ------------------------------------------------------------------ */
/* Priorities: two workers, the top-level thread (worker 0, which runs    */
/* tasks only while it waits) and one worker thread busy in a gate task;  */
/* the tasks that become ready meanwhile run highest priority first under */
/* ws (the default) and prio, priority 0 after every positive one.  Ready */
/* from the top level (independent blocks) and made ready by the gate's   */
/* completion (readers of its block, pushed by the worker thread).        */
/* ------------------------------------------------------------------ */
static atomic_int g_gate_started, g_gate_open;
static void gate_task(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    atomic_store(&g_gate_started, 1);
    for (int spin = 0; spin < 10000 && !atomic_load(&g_gate_open); spin++) h_sleep_ms(1); /* until all are submitted */
    int pos = atomic_fetch_add(&g_order_pos, 1);
    if (pos < 64) atomic_store(&g_order[pos], -1);
}
static void order_task(tamm_ctx *ctx, void *vp)
{
    (void)ctx;
    int pos = atomic_fetch_add(&g_order_pos, 1);
    if (pos < 64) atomic_store(&g_order[pos], *(const int *)vp);
}

static int t_priority(void *vp)
{
    int dependent = *(const int *)vp;
    static const int prio[] = { 0, 2, 0, 1, 3, 0, 1 };
    enum { NP = sizeof prio / sizeof prio[0] };
    tu_init();
    size_t dims[1] = { NP + 1 }, tile[1] = { 1 };
    tamm_tensor *T = tamm_tensor_create("Prio", TAMM_I64, 1, dims, tile);
    atomic_store(&g_order_pos, 0);
    atomic_store(&g_gate_started, 0);
    atomic_store(&g_gate_open, 0);
    tamm_ref rg = tu_ref1(T, TAMM_WRITE, 0);
    tamm_task g = tu_task(gate_task, NULL, 0, &rg, 1, "gate", __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &g), TAMM_OK);
    while (!atomic_load(&g_gate_started)) h_sleep_ms(1); /* the worker thread is in the gate */
    for (int k = 0; k < NP; k++) {
        tamm_ref r = dependent ? tu_ref1(T, TAMM_READ, 0) : tu_ref1(T, TAMM_WRITE, k + 1);
        tamm_task t = tu_task(order_task, &k, sizeof k, &r, 1, "ordered", __FILE__, __LINE__);
        t.priority = prio[k];
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    }
    atomic_store(&g_gate_open, 1);
    for (int spin = 0; spin < 5000 && atomic_load(&g_order_pos) < NP + 1; spin++) h_sleep_ms(1);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_order_pos), NP + 1);
    CHECK_MSG(atomic_load(&g_order[0]) == -1, "the gate ran first (got task %d)", atomic_load(&g_order[0]));
    for (int p = 1; p < NP; p++) {
        int a = atomic_load(&g_order[p]), b = atomic_load(&g_order[p + 1]);
        CHECK_MSG(a >= 0 && b >= 0 && prio[a] >= prio[b], "position %d: task %d (priority %d) ran before task %d (priority %d)",
                  p, a, a >= 0 ? prio[a] : -1, b, b >= 0 ? prio[b] : -1);
    }
    CHECK_EQ_INT(tamm_tensor_destroy(T), TAMM_OK);
    TU_FINALIZE();
    return 0;
}

static void test_priorities(void)
{
    static const int indep = 0, dep = 1;
    const char *ws[] = { "TAMM_NUM_WORKERS=2", NULL };
    const char *ws_named[] = { "TAMM_NUM_WORKERS=2", "TAMM_SCHED=ws", NULL };
    const char *pq[] = { "TAMM_NUM_WORKERS=2", "TAMM_SCHED=prio", NULL };
    run_test_child("priority_ws_top_level", t_priority, (void *)&indep, ws, 20);
    run_test_child("priority_ws_released", t_priority, (void *)&dep, ws_named, 20);
    run_test_child("priority_prio_top_level", t_priority, (void *)&indep, pq, 20);
    run_test_child("priority_prio_released", t_priority, (void *)&dep, pq, 20);
}

/* ------------------------------------------------------------------ */
/* TAMM_SEQUENTIAL=1: inline, in submission order                         */
/* ------------------------------------------------------------------ */
static int t_sequential(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Seq", 4, 2);
    atomic_store(&g_order_pos, 0);
    for (int k = 0; k < 8; k++) {
        atomic_store(&g_flag, 0);
        /* independent blocks: only TAMM_SEQUENTIAL orders them */
        CHECK_EQ_INT(submit_w(T, k % 4, k, k == 0 ? 30 : 0, k, &g_flag, "seq"), TAMM_OK);
        CHECK_MSG(atomic_load(&g_flag) == 1, "task %d ran inline in tamm_submit", k);
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_EQ_INT(atomic_load(&g_order_pos), 8);
    for (int k = 0; k < 8; k++) CHECK_EQ_INT(atomic_load(&g_order[k]), k);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* Re-initialisation, TAMM_NUM_WORKERS                                    */
/* ------------------------------------------------------------------ */
static int t_reinit(void *vp)
{
    (void)vp;
    static const char *const nw[] = { "1", "3", "2" };
    for (int k = 0; k < 3; k++) {
        setenv("TAMM_NUM_WORKERS", nw[k], 1);
        tu_init();
        CHECK_EQ_INT(tamm_num_workers(), atoi(nw[k]));
        tamm_tensor *T = tu_vec("Re", 2, 4);
        CHECK_EQ_INT(submit_w(T, 0, 11 + k, 0, 0, NULL, "re_w"), TAMM_OK);
        CHECK_EQ_INT(submit_c(T, 0, 11 + k, 1, NULL, "re_c"), TAMM_OK);
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
        CHECK_TASKS_OK();
        TU_FINALIZE();
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Generators, distributions                                             */
/* ------------------------------------------------------------------ */
static void gen_fill(const tamm_tensor *T, const long *idx, void *buf, void *arg)
{
    long *p = buf;
    long base = *(long *)arg;
    size_t n = tamm_block_extent(T, 0, idx[0]);
    for (size_t e = 0; e < n; e++) p[e] = base + idx[0] * 100 + (long)e;
}

static int t_generator(void *vp)
{
    (void)vp;
    tu_init();
    static long base = 1000;
    tamm_tensor_opts o;
    memset(&o, 0, sizeof o);
    o.dist = TAMM_DIST_LOCAL;
    o.owner = 0;
    o.gen = gen_fill;
    o.gen_arg = &base;
    size_t dims[1] = { 10 }, tile[1] = { 4 };
    tamm_tensor *G = tamm_tensor_create_ex("Gen", TAMM_I64, 1, dims, tile, &o);
    CHECK_NOTNULL(G);
    if (!G) return 1;
    CHECK_EQ_INT(submit_c(G, 1, 1100, 0, NULL, "reads_generated"), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    long out[10];
    CHECK_EQ_INT(tamm_tensor_gather(G, out), TAMM_OK);
    for (int e = 0; e < 10; e++) CHECK_EQ_INT(out[e], 1000 + (e / 4) * 100 + e % 4);
    tamm_tensor_opts r;
    memset(&r, 0, sizeof r);
    r.dist = TAMM_DIST_REPLICATED;
    tamm_tensor *R = tamm_tensor_create_ex("Rep", TAMM_I64, 1, dims, tile, &r);
    CHECK_NOTNULL(R);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
/* Observability                                                         */
/* ------------------------------------------------------------------ */
static char g_dir[256];

static int t_observe(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Obs", 2, 4);
    CHECK_EQ_INT(submit_w(T, 0, 3, 0, 0, NULL, "dagWriter"), TAMM_OK);
    CHECK_EQ_INT(submit_c(T, 0, 3, 1, NULL, "dagReader"), TAMM_OK);
    CHECK_EQ_INT(submit_w(T, 1, 4, 0, 2, NULL, "dagLoner"), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* TAMM_STATS accounts for every submitted task: 3 run, 2 bodiless waits of
 * the top level (tamm_block), 1 that never runs (its fence is never signalled) */
static void noop_task(tamm_ctx *ctx, void *vp) { (void)ctx; (void)vp; }
static int t_stats_account(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Acc", 2, 4);
    CHECK_EQ_INT(submit_w(T, 0, 3, 0, 0, NULL, "statWriter"), TAMM_OK);
    CHECK_EQ_INT(submit_c(T, 0, 3, 1, NULL, "statReader"), TAMM_OK);
    CHECK_EQ_INT(submit_w(T, 1, 4, 0, 2, NULL, "statLoner"), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_NOTNULL(tamm_block(T, 0));
    CHECK_NOTNULL(tamm_block(T, 1));
    tamm_fence *g = tamm_fence_create();
    int dummy = 0;
    tamm_ref r = tu_ref1(T, TAMM_READ, 1);
    tamm_task tw = tu_task(noop_task, &dummy, sizeof dummy, &r, 1, "statStuck", __FILE__, __LINE__);
    tamm_task_opts ow;
    memset(&ow, 0, sizeof ow);
    ow.wait = &g;
    ow.nwait = 1;
    CHECK_EQ_INT(tamm_submit_ex(NULL, &tw, &ow), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_EDEADLOCK);
    tamm_finalize();
    return 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s) { fclose(f); return NULL; }
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

static int brackets_balanced(const char *s)
{
    int depth = 0, in_str = 0;
    for (; *s; s++) {
        if (in_str) {
            if (*s == '\\' && s[1]) s++;
            else if (*s == '"') in_str = 0;
            continue;
        }
        if (*s == '"') in_str = 1;
        else if (*s == '[' || *s == '{') depth++;
        else if (*s == ']' || *s == '}') { if (--depth < 0) return 0; }
    }
    return depth == 0 && !in_str;
}

/* The node id a Graphviz line gives to the node labelled `label`, or "" */
static void dot_node_id(const char *dot, const char *label, char *id, size_t n)
{
    id[0] = 0;
    const char *line = dot;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = 0;
        if (strstr(buf, label) && !strstr(buf, "->") && strchr(buf, '[')) {
            const char *p = buf;
            while (*p == ' ' || *p == '\t') p++;
            size_t k = 0;
            while (p[k] && p[k] != ' ' && p[k] != '[' && p[k] != '\t' && k + 1 < n) { id[k] = p[k]; k++; }
            id[k] = 0;
            return;
        }
        line = end ? end + 1 : NULL;
    }
}

static int dot_has_edge(const char *dot, const char *from, const char *to)
{
    const char *p = dot;
    size_t lf = strlen(from);
    while ((p = strstr(p, from)) != NULL) {
        const char *q = p + lf;
        if (p > dot && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) { p = q; continue; }
        while (*q == ' ' || *q == '\t') q++;
        if (q[0] == '-' && q[1] == '>') {
            q += 2;
            while (*q == ' ' || *q == '\t') q++;
            if (strncmp(q, to, strlen(to)) == 0 && !isalnum((unsigned char)q[strlen(to)]) && q[strlen(to)] != '_')
                return 1;
        }
        p = q;
    }
    return 0;
}

static void test_observability(void)
{
    static h_status st;
    static char err[H_ERRBUF_SIZE];
    char how[128], trace[300], dot[300], kv1[320], kv2[320];
    snprintf(trace, sizeof trace, "%s/trace.json", g_dir);
    snprintf(dot, sizeof dot, "%s/dag.dot", g_dir);
    snprintf(kv1, sizeof kv1, "TAMM_TRACE=%s", trace);
    snprintf(kv2, sizeof kv2, "TAMM_DAG=%s", dot);
    const char *env[] = { kv1, kv2, "TAMM_NUM_WORKERS=2", NULL };
    h_context("TAMM_TRACE / TAMM_DAG");
    run_child(t_observe, NULL, env, 20, &st, err);
    h__merge_counts(&st);
    if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how))) h_dump_child("observe", &st, err);
    char *js = slurp(trace);
    CHECK_MSG(js != NULL, "%s was written", trace);
    if (js) {
        CHECK(brackets_balanced(js));
        CHECK_CONTAINS(js, "\"dagWriter\"");
        CHECK_CONTAINS(js, "\"dagReader\"");
        CHECK_CONTAINS(js, "\"name\"");
        CHECK_CONTAINS(js, "\"ph\"");
        if (system("command -v python3 >/dev/null 2>&1") == 0) {
            char cmd[700];
            snprintf(cmd, sizeof cmd, "python3 -m json.tool '%s' >/dev/null 2>&1", trace);
            CHECK_MSG(system(cmd) == 0, "python3 -m json.tool accepts %s", trace);
            snprintf(cmd, sizeof cmd,
                     "python3 -c \"import json,sys; d=json.load(open('%s')); ev=d['traceEvents'] if isinstance(d,dict) else d; "
                     "names=set(e.get('name') for e in ev if isinstance(e,dict)); sys.exit(0 if {'dagWriter','dagReader','dagLoner'} <= names else 1)\"",
                     trace);
            CHECK_MSG(system(cmd) == 0, "trace events are named by task label");
        }
        free(js);
    }
    char *d = slurp(dot);
    CHECK_MSG(d != NULL, "%s was written", dot);
    if (d) {
        CHECK_CONTAINS(d, "digraph");
        CHECK_CONTAINS(d, "dagWriter");
        CHECK_CONTAINS(d, "dagReader");
        CHECK_CONTAINS(d, "->");
        char idw[128], idr[128], idl[128];
        dot_node_id(d, "dagWriter", idw, sizeof idw);
        dot_node_id(d, "dagReader", idr, sizeof idr);
        dot_node_id(d, "dagLoner", idl, sizeof idl);
        if (idw[0] && idr[0]) {
            CHECK_MSG(dot_has_edge(d, idw, idr), "an edge %s -> %s (writer -> reader)", idw, idr);
            if (idl[0]) {
                CHECK_MSG(!dot_has_edge(d, idw, idl), "no edge writer -> independent task");
                CHECK_MSG(!dot_has_edge(d, idl, idr), "no edge independent task -> reader");
            }
        } else {
            CHECK_MSG(0, "node ids for the labelled tasks found in the DOT file:\n%.600s", d);
        }
        free(d);
    }
    /* TAMM_STATS=1: a summary at finalize (and none without it) */
    h_context("TAMM_STATS");
    const char *env2[] = { "TAMM_STATS=1", "TAMM_NUM_WORKERS=2", NULL };
    run_child(t_observe, NULL, env2, 20, &st, err);
    h__merge_counts(&st);
    if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how))) h_dump_child("stats", &st, err);
    size_t with = strlen(err) + strlen(st.out);
    CHECK_MSG(h_contains(err, "task") || h_contains(st.out, "tasks"), "the summary mentions tasks:\n%.600s%.600s", err, st.out);
    CHECK_MSG(h_contains(err, "worker") || h_contains(st.out, "worker"), "the summary mentions workers");
    const char *env3[] = { "TAMM_NUM_WORKERS=2", NULL };
    run_child(t_observe, NULL, env3, 20, &st, err);
    h__merge_counts(&st);
    size_t without = strlen(err) + strlen(st.out);
    CHECK_MSG(with > without + 20, "TAMM_STATS=1 prints a summary (%zu vs %zu bytes of output)", with, without);
    /* every submitted task is accounted for (issue 17: "365 submitted, 363 run" said nothing of the other 2) */
    h_context("TAMM_STATS accounts for every task");
    const char *env4[] = { "TAMM_STATS=1", "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
    run_child(t_stats_account, NULL, env4, 30, &st, err);
    h__merge_counts(&st);
    if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
        h_dump_child("stats_account", &st, err);
    CHECK_CONTAINS(err, "tasks: 6 submitted, 3 run (3 on CPU workers, 0 on GPU workers), 2 top-level waits without a "
                        "body (tamm_block, tamm_wait_on, gather, scatter), 0 skipped after an error, 1 never run "
                        "(still waiting at the end)");
    h_context(NULL);
}

/* ------------------------------------------------------------------ */
/* Many small tasks, whole-tensor and slice refs, streaming              */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; long v; } aargs;
static void acc_all_task(tamm_ctx *ctx, void *vp)
{
    aargs *a = vp;
    long nb = tamm_tensor_nblocks(a->T, 0);
    for (long i = 0; i < nb; i++) {
        long idx[1] = { i };
        long *p = tamm_get_buf_accum(ctx, a->T, idx);
        TCHECK(p != NULL);
        if (!p) return;
        size_t n = tamm_block_elems(a->T, idx);
        for (size_t e = 0; e < n; e++) p[e] += a->v;
        TCHECK(tamm_release_add(ctx, p) == TAMM_OK);
    }
}

static int t_many(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("Many", 4, 8);
    long expect = 0;
    for (int k = 0; k < 500; k++) {
        aargs a = { T, k + 1 };
        expect += k + 1;
        tamm_ref r = tu_ref_all(T, TAMM_ACCUM);
        tamm_task t = tu_task(acc_all_task, &a, sizeof a, &r, 1, "acc_all", __FILE__, __LINE__);
        CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
        if (k == 250) {
            /* a whole-tensor read in the middle sees exactly the first 251 */
            CHECK_EQ_INT(submit_c(T, 3, expect, 0, NULL, "mid_read"), TAMM_OK);
        }
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    long out[32];
    CHECK_EQ_INT(tamm_tensor_gather(T, out), TAMM_OK);
    for (int e = 0; e < 32; e++) CHECK_EQ_INT(out[e], expect);
    /* streaming scope */
    CHECK_EQ_INT(tamm_streaming_begin(), TAMM_OK);
    size_t d1[1] = { 8 }, t1[1] = { 4 };
    tamm_tensor *S = tamm_tensor_create("Stream", TAMM_I64, 1, d1, t1);
    CHECK_EQ_INT(submit_w(S, 0, 6, 0, 0, NULL, "stream_w"), TAMM_OK);
    CHECK_EQ_INT(submit_c(S, 0, 6, 1, NULL, "stream_r"), TAMM_OK);
    CHECK_EQ_INT(tamm_tensor_destroy(S), TAMM_OK);
    CHECK_EQ_INT(tamm_streaming_end(), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ------------------------------------------------------------------ */
int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/tamm_test_api_%d", (int)getpid());
    mkdir(g_dir, 0700);
    const char *env2[] = { "TAMM_NUM_WORKERS=2", NULL };
    const char *env4[] = { "TAMM_NUM_WORKERS=4", NULL };
    const char *env_ret[] = { "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
    const char *env_seq[] = { "TAMM_SEQUENTIAL=1", "TAMM_NUM_WORKERS=4", NULL };
    run_test_child("tensor_basics", t_tensor_basics, NULL, env2, 20);
    run_test_child("strerror", t_strerror, NULL, env2, 20);
    run_test_child("block_outside_task", t_block_outside, NULL, env4, 20);
    run_test_child("gather_scatter", t_gather_scatter, NULL, env2, 20);
    run_test_child("wait_on", t_wait_on, NULL, env4, 20);
    run_test_child("barrier", t_barrier, NULL, env4, 20);
    run_test_child("collectives_never_overlap", t_collectives, NULL, env4, 20);
    run_test_child("fences", t_fences, NULL, env4, 20);
    run_test_child("fence_deadlock", t_fence_deadlock, NULL, env_ret, 20);
    run_test_child("destroy_deferred", t_destroy_deferred, NULL, env4, 20);
    run_test_child("temp_top_level", t_temp_top, NULL, env2, 20);
    run_test_child("cancel_top_level_plain", t_cancel_top, NULL, env_ret, 20);
    run_test_child("cancel_top_level_translated", t_cancel_top, (void *)1, env_ret, 20);
    run_test_child("nested", t_nested, NULL, env4, 20);
    run_test_child("sequential", t_sequential, NULL, env_seq, 20);
    run_test_child("reinit", t_reinit, NULL, NULL, 20);
    run_test_child("generator", t_generator, NULL, env2, 20);
    run_test_child("many_tasks", t_many, NULL, env4, 25);
    test_schedulers();
    test_priorities();
    test_observability();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return test_summary();
}
