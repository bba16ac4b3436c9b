/*
 * test_dep_rt.c — the "Submission FSM" table as observed through tasks, with
 * 4 workers.  Each (state, permission) cell: earlier tasks put the block into
 * the state, then a task with the permission is submitted.
 *   "join" cells (_READ x Read, _ACC x Accum): the first task waits (up to 5 s)
 *       for the second to have started — it fails instead of hanging if the
 *       runtime serialised them;
 *   "after" cells: the earlier task sleeps ~30 ms, then does its operation and
 *       marks itself finished; the later task checks at its start that it is.
 * Values are checked too (the sequential elision's result); accumulations are
 * summed exactly in int64.  Pure table: test_dep_fsm.c.
 */
#include "tamm_util.h"

#define TILE 4
#define MAXT 64

enum { P_R = TAMM_READ, P_W = TAMM_WRITE, P_RW = TAMM_READWRITE, P_ACC = TAMM_ACCUM, P_RACC = TAMM_READ | TAMM_ACCUM };

typedef struct {
    tamm_tensor *T;
    int nidx;          /* 1 (1-D block), 2 (2-D block), 0 whole tensor, -1 slice T[i][:] */
    long i, j;
    unsigned perm;
    long val;          /* W: written; ACC / RW / R+ACC: added */
    long expect;       /* R, RW, R+ACC: value read first (checked if check) */
    int check;
    int id;
    int sleep_ms;      /* before the operation */
    int wait_for;      /* -1, or a task that must start while this one runs (join) */
    int after[4];      /* tasks that must have finished when this one starts; -1 ends */
} dtask;

static atomic_int started[MAXT], finished[MAXT];

static void dbody(tamm_ctx *ctx, void *vp)
{
    dtask *a = vp;
    atomic_store(&started[a->id], 1);
    for (int k = 0; k < 4 && a->after[k] >= 0; k++)
        TCHECK_MSG(atomic_load(&finished[a->after[k]]), "task %d started before task %d finished (missing edge)", a->id,
                   a->after[k]);
    if (a->wait_for >= 0)
        TCHECK_MSG(tu_wait_flag(&started[a->wait_for], 1, 5.0),
                   "task %d never started while task %d ran: serialised instead of run together", a->wait_for, a->id);
    if (a->sleep_ms) h_sleep_ms(a->sleep_ms);
    if (a->nidx == 1 || a->nidx == 2) {
        long idx[2] = { a->i, a->j };
        long *p;
        switch (a->perm) {
        case P_R:
            p = tamm_get_buf_read(ctx, a->T, idx);
            TCHECK(p);
            if (!p) break;
            if (a->check)
                for (int e = 0; e < TILE; e++) TCHECK_MSG(p[e] == a->expect, "task %d read %ld, expected %ld", a->id, p[e], a->expect);
            TCHECK(tamm_release_cancel(ctx, p) == TAMM_OK);
            break;
        case P_W:
            p = tamm_get_buf_write(ctx, a->T, idx);
            TCHECK(p);
            if (!p) break;
            for (int e = 0; e < TILE; e++) p[e] = a->val;
            TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
            break;
        case P_RW:
            p = tamm_get_buf_readwrite(ctx, a->T, idx);
            TCHECK(p);
            if (!p) break;
            for (int e = 0; e < TILE; e++) {
                if (a->check) TCHECK_MSG(p[e] == a->expect, "task %d read %ld, expected %ld", a->id, p[e], a->expect);
                p[e] += a->val;
            }
            TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
            break;
        case P_ACC:
            p = tamm_get_buf_accum(ctx, a->T, idx);
            TCHECK(p);
            if (!p) break;
            for (int e = 0; e < TILE; e++) p[e] += a->val;
            TCHECK(tamm_release_add(ctx, p) == TAMM_OK);
            break;
        case P_RACC:
            p = tamm_get_buf_read(ctx, a->T, idx);
            TCHECK(p);
            if (!p) break;
            if (a->check)
                for (int e = 0; e < TILE; e++) TCHECK_MSG(p[e] == a->expect, "task %d read %ld, expected %ld", a->id, p[e], a->expect);
            TCHECK(tamm_release_cancel(ctx, p) == TAMM_OK);
            p = tamm_get_buf_accum(ctx, a->T, idx);
            TCHECK(p);
            if (!p) break;
            for (int e = 0; e < TILE; e++) p[e] += a->val;
            TCHECK(tamm_release_add(ctx, p) == TAMM_OK);
            break;
        default:
            break;
        }
    }
    atomic_store(&finished[a->id], 1);
}

static int nsub;
static tamm_tensor *g_T;
static long g_blk; /* the block of g_T the scenario uses: 0, or 1 (the last) */

/* Submit a task on block g_blk of g_T (1-D). */
static void sub(unsigned perm, long val, long expect, int check, int sleep_ms, int wait_for, int a0, int a1, int a2)
{
    dtask d;
    memset(&d, 0, sizeof d);
    d.T = g_T; d.nidx = 1; d.i = g_blk; d.perm = perm; d.val = val; d.expect = expect; d.check = check;
    d.id = nsub++; d.sleep_ms = sleep_ms; d.wait_for = wait_for;
    d.after[0] = a0; d.after[1] = a1; d.after[2] = a2; d.after[3] = -1;
    char label[32];
    snprintf(label, sizeof label, "t%d", d.id);
    tamm_ref refs[2];
    int nrefs = 1;
    if (perm == P_RACC) {
        refs[0] = tu_ref1(g_T, TAMM_READ, g_blk);
        refs[1] = tu_ref1(g_T, TAMM_ACCUM, g_blk);
        nrefs = 2;
    } else {
        refs[0] = tu_ref1(g_T, perm, g_blk);
    }
    tamm_task t = tu_task(dbody, &d, sizeof d, refs, nrefs, label, __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
}

#define N (-1)
enum { NOCHK = 0, CHK = 1 };

typedef void (*scenario)(void);

/* ---- _UNACCESSED x {Read, Write, Accum}: the first task runs, on a zeroed block ---- */
static void s_unacc_read(void) { sub(P_R, 0, 0, CHK, 0, N, N, N, N); }
static void s_unacc_write(void) { sub(P_W, 5, 0, NOCHK, 0, N, N, N, N); sub(P_R, 0, 5, CHK, 0, N, 0, N, N); }
static void s_unacc_acc(void) { sub(P_ACC, 3, 0, NOCHK, 0, N, N, N, N); sub(P_R, 0, 3, CHK, 0, N, 0, N, N); }
/* ---- _READ ---- */
static void s_read_read(void) { sub(P_R, 0, 0, CHK, 0, 1, N, N, N); sub(P_R, 0, 0, CHK, 0, N, N, N, N); }
static void s_read_write(void) { sub(P_R, 0, 0, CHK, 30, N, N, N, N); sub(P_W, 5, 0, NOCHK, 0, N, 0, N, N); sub(P_R, 0, 5, CHK, 0, N, 1, N, N); }
static void s_read_acc(void) { sub(P_R, 0, 0, CHK, 30, N, N, N, N); sub(P_ACC, 3, 0, NOCHK, 0, N, 0, N, N); sub(P_R, 0, 3, CHK, 0, N, 1, N, N); }
/* ---- _WRITE ---- */
static void s_write_read(void) { sub(P_W, 5, 0, NOCHK, 30, N, N, N, N); sub(P_R, 0, 5, CHK, 0, N, 0, N, N); }
static void s_write_write(void) { sub(P_W, 5, 0, NOCHK, 30, N, N, N, N); sub(P_W, 6, 0, NOCHK, 0, N, 0, N, N); sub(P_R, 0, 6, CHK, 0, N, 1, N, N); }
static void s_write_acc(void) { sub(P_W, 5, 0, NOCHK, 30, N, N, N, N); sub(P_ACC, 3, 0, NOCHK, 0, N, 0, N, N); sub(P_R, 0, 8, CHK, 0, N, 1, N, N); }
/* ---- _ACC ---- */
static void s_acc_read(void) { sub(P_ACC, 3, 0, NOCHK, 30, N, N, N, N); sub(P_R, 0, 3, CHK, 0, N, 0, N, N); }
static void s_acc_write(void) { sub(P_ACC, 3, 0, NOCHK, 30, N, N, N, N); sub(P_W, 6, 0, NOCHK, 0, N, 0, N, N); sub(P_R, 0, 6, CHK, 0, N, 1, N, N); }
static void s_acc_acc(void) { sub(P_ACC, 3, 0, NOCHK, 0, 1, N, N, N); sub(P_ACC, 4, 0, NOCHK, 0, N, N, N, N); sub(P_R, 0, 7, CHK, 0, N, 0, 1, N); }

/* ---- sets with several members ---- */
/* R R W: the writer after both readers (each edge of Remove(DT(A,R))). */
static void s_rr_w(void) { sub(P_R, 0, 0, CHK, 30, N, N, N, N); sub(P_R, 0, 0, CHK, 60, N, N, N, N); sub(P_W, 2, 0, NOCHK, 0, N, 0, 1, N); }
/* W, then R R joining each other (both after W), then W after both. */
static void s_w_rr_w(void) { sub(P_W, 4, 0, NOCHK, 30, N, N, N, N); sub(P_R, 0, 4, CHK, 0, 2, 0, N, N); sub(P_R, 0, 4, CHK, 0, N, 0, N, N); sub(P_W, 1, 0, NOCHK, 0, N, 1, 2, N); sub(P_R, 0, 1, CHK, 0, N, 3, N, N); }
/* _ACC x Read reads as "T is a reader": ACC then R R, the two readers join. */
static void s_acc_rr(void) { sub(P_ACC, 3, 0, NOCHK, 30, N, N, N, N); sub(P_R, 0, 3, CHK, 0, 2, 0, N, N); sub(P_R, 0, 3, CHK, 0, N, 0, N, N); sub(P_ACC, 1, 0, NOCHK, 0, N, 1, 2, N); sub(P_R, 0, 4, CHK, 0, N, 3, N, N); }
/* ACC ACC R: the reader after both accumulators, seeing their sum. */
static void s_aa_r(void) { sub(P_ACC, 3, 0, NOCHK, 30, N, N, N, N); sub(P_ACC, 4, 0, NOCHK, 60, N, N, N, N); sub(P_R, 0, 7, CHK, 0, N, 0, 1, N); }
/* read+write counts as Write: R, RW (after), RW (after), R (after). */
static void s_rw(void) { sub(P_R, 0, 0, CHK, 30, N, N, N, N); sub(P_RW, 2, 0, CHK, 30, N, 0, N, N); sub(P_RW, 3, 2, CHK, 30, N, 1, N, N); sub(P_R, 0, 5, CHK, 0, N, 2, N, N); }
/* read+accumulate on one block is exclusive: ACC, R+ACC (after), ACC (after). */
static void s_racc(void) { sub(P_ACC, 3, 0, NOCHK, 30, N, N, N, N); sub(P_RACC, 4, 3, CHK, 30, N, 0, N, N); sub(P_ACC, 5, 0, NOCHK, 0, N, 1, N, N); sub(P_R, 0, 12, CHK, 0, N, 0, 1, 2); }

/* Accumulations are summed exactly (int64 beyond double precision), any worker order. */
static void s_exact_sum(void)
{
    long base = (1L << 55) + 1, sum = base;
    sub(P_W, base, 0, NOCHK, 0, N, N, N, N);
    for (int k = 0; k < 40; k++) {
        long v = (1L << 41) + 2 * k + 1;
        sum += v;
        sub(P_ACC, v, 0, NOCHK, 0, N, 0, N, N);
    }
    sub(P_R, 0, sum, CHK, 0, N, 0, 1, 40);
    sub(P_ACC, -sum, 0, NOCHK, 0, N, 41, N, N);
    sub(P_R, 0, 0, CHK, 0, N, 42, N, N);
}

static const struct { const char *name; scenario fn; long final; } scen[] = {
    { "UNACCESSED x Read", s_unacc_read, 0 },
    { "UNACCESSED x Write", s_unacc_write, 5 },
    { "UNACCESSED x Accum", s_unacc_acc, 3 },
    { "READ x Read (join)", s_read_read, 0 },
    { "READ x Write (after)", s_read_write, 5 },
    { "READ x Accum (after)", s_read_acc, 3 },
    { "WRITE x Read (after)", s_write_read, 5 },
    { "WRITE x Write (after)", s_write_write, 6 },
    { "WRITE x Accum (after)", s_write_acc, 8 },
    { "ACC x Read (after)", s_acc_read, 3 },
    { "ACC x Write (after)", s_acc_write, 6 },
    { "ACC x Accum (join)", s_acc_acc, 7 },
    { "R R W", s_rr_w, 2 },
    { "W R R W", s_w_rr_w, 1 },
    { "ACC R R (readers join after ACC)", s_acc_rr, 4 },
    { "ACC ACC R", s_aa_r, 7 },
    { "R RW RW R", s_rw, 5 },
    { "ACC R+ACC ACC", s_racc, 12 },
    { "exact int64 sum of 40 accumulations", s_exact_sum, 0 },
};

/* vp: the scenario's number, plus 100 to run it on block 1 */
static int child_scenario(void *vp)
{
    int k = *(int *)vp % 100;
    g_blk = *(int *)vp / 100;
    tu_init();
    g_T = tu_vec("DepT", 2, TILE);
    CHECK_NOTNULL(g_T);
    nsub = 0;
    for (int i = 0; i < MAXT; i++) { atomic_store(&started[i], 0); atomic_store(&finished[i], 0); }
    scen[k].fn();
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    for (int i = 0; i < nsub; i++) CHECK_MSG(atomic_load(&finished[i]), "task %d ran", i);
    CHECK_TASKS_OK();
    long *b = tamm_block(g_T, g_blk);
    CHECK_NOTNULL(b);
    if (b)
        for (int e = 0; e < TILE; e++) CHECK_EQ_INT(b[e], scen[k].final);
    /* the other block was never touched */
    long *o = tamm_block(g_T, 1 - g_blk);
    if (o)
        for (int e = 0; e < TILE; e++) CHECK_EQ_INT(o[e], 0);
    TU_FINALIZE();
    return 0;
}

/* ---- independence: different blocks, slices, whole tensors ---- */
static void gen_sub(tamm_tensor *T, int nidx, long i, long j, unsigned perm, long val, long expect, int check,
                    int sleep_ms, int wait_for, int after0)
{
    dtask d;
    memset(&d, 0, sizeof d);
    d.T = T; d.nidx = nidx; d.i = i; d.j = j; d.perm = perm; d.val = val; d.expect = expect; d.check = check;
    d.id = nsub++; d.sleep_ms = sleep_ms; d.wait_for = wait_for;
    d.after[0] = after0; d.after[1] = -1;
    tamm_ref r;
    if (nidx == 2) r = tu_ref2(T, perm, i, j);
    else if (nidx == 1) r = tu_ref1(T, perm, i);
    else if (nidx == 0) r = tu_ref_all(T, perm);
    else r = tu_ref2(T, perm, i, TAMM_ALL);
    char label[32];
    snprintf(label, sizeof label, "g%d", d.id);
    tamm_task t = tu_task(dbody, &d, sizeof d, &r, 1, label, __FILE__, __LINE__);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
}

static int child_independence(void *vp)
{
    (void)vp;
    tu_init();
    nsub = 0;
    for (int i = 0; i < MAXT; i++) { atomic_store(&started[i], 0); atomic_store(&finished[i], 0); }
    /* Writers of two different blocks run together. */
    tamm_tensor *V = tu_vec("IndepV", 2, TILE);
    gen_sub(V, 1, 0, 0, P_W, 1, 0, NOCHK, 0, 1, N);
    gen_sub(V, 1, 1, 0, P_W, 2, 0, NOCHK, 0, N, N);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    /* 2-D, tile 2x2 over 4x8: a slice writer T[1][:] (task 2) and a block T[0][1] reader
     * (task 3) run together; a reader of T[1][2] (task 4) waits for the slice writer. */
    size_t dims[2] = { 4, 8 }, tile[2] = { 2, 2 };
    tamm_tensor *M = tamm_tensor_create("DepM", TAMM_I64, 2, dims, tile);
    CHECK_NOTNULL(M);
    /* dbody touches TILE (4) elements: exactly a 2x2 block */
    gen_sub(M, -1, 1, 0, P_W | TAMM_PERMISSION_ONLY, 0, 0, NOCHK, 30, 3, N);
    gen_sub(M, 2, 0, 1, P_R, 0, 0, CHK, 0, N, N);
    gen_sub(M, 2, 1, 2, P_R, 0, 0, CHK, 0, N, 2);
    /* whole tensor: a writer of all of M (task 5) after everything above; a block reader after it */
    gen_sub(M, 0, 0, 0, P_W | TAMM_PERMISSION_ONLY, 0, 0, NOCHK, 30, N, 4);
    gen_sub(M, 2, 1, 3, P_R, 0, 0, CHK, 0, N, 5);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

int main(void)
{
    const char *env[] = { "TAMM_NUM_WORKERS=4", NULL };
    for (int k = 0; k < (int)(sizeof scen / sizeof scen[0]); k++) {
        h_context("%s", scen[k].name);
        run_test_child(scen[k].name, child_scenario, &k, env, 25);
    }
    /* The cells again on block 1: the table holds for every block, not only the first
     * (a dependence lost on one block passed the runs above). */
    for (int k = 0; k < (int)(sizeof scen / sizeof scen[0]); k++) {
        int k1 = k + 100;
        h_context("%s, block 1", scen[k].name);
        run_test_child(scen[k].name, child_scenario, &k1, env, 25);
    }
    h_context("independence");
    run_test_child("independence", child_independence, NULL, env, 25);
    /* The same cells under the other schedulers (one representative run each). */
    static const char *const sched[] = { "TAMM_SCHED=fifo", "TAMM_SCHED=prio" };
    for (int s = 0; s < 2; s++)
        for (int k = 3; k < 12; k++) {
            const char *env2[] = { "TAMM_NUM_WORKERS=4", sched[s], NULL };
            h_context("%s, %s", scen[k].name, sched[s]);
            run_test_child(scen[k].name, child_scenario, &k, env2, 25);
        }
    h_context(NULL);
    return test_summary();
}
