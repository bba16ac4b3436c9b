/*
 * test_check_access.c — the run-time access checker, TAMM_CHECK_ACCESS=1
 * (docs/runtime.md "Checking access modes", rt/core/check.h):
 *   - a task holding a block for read that modifies it, and a task holding a
 *     block for write that leaves part of it unwritten, are reported (explicit
 *     tamm_get_buf_*, tammcc's tamm_cc_acquire path, tamm_block, cwrite), with
 *     the task's label, file:line, the tensor's name, the block's indices and
 *     the mode; the process stops with status 1, or with TAMM_ON_ERROR=return
 *     the release and the next wait return TAMM_EACCESS;
 *   - correct readers, full writers, accumulators and readwrite tasks are not
 *     reported, and compute the right values, at 1 and 2 workers;
 *   - a block that tammcc's code gives back before a nested submission and
 *     fetches again in write mode (one write of the task in several buffers)
 *     keeps what the first buffer wrote, and is checked over all its buffers:
 *     written whole across them is not reported (test_rehold), a part that
 *     none of them wrote is (W_WRITE_CC_SPLIT, at the end of the task);
 *   - without TAMM_CHECK_ACCESS (unset or 0) the same wrong tasks are not
 *     reported: the variable gates the checker;
 *   - an invalid value is rejected by tamm_init with a message naming it.
 */
#include "tamm_util.h"
#include <tamm_cc.h>

#define TL 4   /* tiles of TL x TL doubles */
#define NB 3   /* NB x NB blocks */
#define LOC_FILE "prog.c"

/* ------------------------------------------------------------------ */
/* Wrong tasks                                                          */
/* ------------------------------------------------------------------ */
enum { W_READ_EXPLICIT, W_WRITE_EXPLICIT, W_READ_CC, W_WRITE_CC, W_READ_IMPLICIT, W_CWRITE, W_WRITE_CC_SPLIT, W_COUNT };
static const struct {
    const char *label; unsigned mode; int line;
    const char *what;   /* in the message */
    const char *mode_name;
} wcases[W_COUNT] = {
    [W_READ_EXPLICIT]  = { "scale", TAMM_READ, 42, "modified block C[1,2]", "mode: read" },
    [W_WRITE_EXPLICIT] = { "fill", TAMM_WRITE, 43, "did not write all of block C[1,2]", "mode: write" },
    [W_READ_CC]        = { "cc_reader", TAMM_READ, 44, "modified block C[1,2]", "mode: read" },
    [W_WRITE_CC]       = { "cc_writer", TAMM_WRITE, 45, "did not write all of block C[1,2]", "mode: write" },
    [W_READ_IMPLICIT]  = { "implicit_reader", TAMM_READ, 46, "modified block C[1,2]", "mode: read" },
    [W_CWRITE]         = { "cwriter", TAMM_WRITE | TAMM_CANCELLABLE, 47, "did not write all of block C[1,2]",
                           "mode: cwrite" },
    [W_WRITE_CC_SPLIT] = { "cc_split", TAMM_WRITE, 48, "did not write all of block C[1,2]", "mode: write" },
};

typedef struct { tamm_tensor *C; int k; } wargs;
static atomic_int rel_rc;

static void wrong_body(tamm_ctx *ctx, void *vp)
{
    wargs *a = vp;
    long idx[2] = { 1, 2 };
    double *p = NULL;
    int rc = TAMM_OK;
    switch (a->k) {
    case W_READ_EXPLICIT:
        p = tamm_get_buf_read(ctx, a->C, idx);
        if (p) p[5] += 1.0; /* a store into a block held for read */
        rc = tamm_release_put(ctx, p);
        break;
    case W_WRITE_EXPLICIT:
        p = tamm_get_buf_write(ctx, a->C, idx);
        if (p) for (int e = 0; e < TL * TL - TL; e++) p[e] = 7.0; /* the last row is left */
        rc = tamm_release_put(ctx, p);
        break;
    case W_READ_CC: {
        void *b = tamm_cc_get(ctx, a->C, idx, TAMM_CC_READ);
        if (b) ((double *)b)[0] = -1.0;
        tamm_cc_release(ctx, &b, TAMM_CC_READ);
        break;
    }
    case W_WRITE_CC: {
        void *b = tamm_cc_get(ctx, a->C, idx, TAMM_CC_WRITE);
        if (b) for (int e = 1; e < TL * TL; e++) ((double *)b)[e] = 3.0; /* element 0 is left */
        tamm_cc_release(ctx, &b, TAMM_CC_WRITE);
        break;
    }
    case W_READ_IMPLICIT: /* released when the body returns */
        p = tamm_block(a->C, 1, 2);
        if (p) p[TL * TL - 1] = 9.0;
        break;
    case W_CWRITE:
        p = tamm_get_buf_cwrite(ctx, a->C, idx);
        if (p) for (int e = 0; e < TL * TL; e += 2) p[e] = 1.0; /* every other element */
        rc = tamm_release_put(ctx, p);
        break;
    case W_WRITE_CC_SPLIT: { /* tammcc's shape around a nested submission: two buffers, the last row in neither */
        void *b = tamm_cc_get(ctx, a->C, idx, TAMM_CC_WRITE);
        if (b) for (int e = 0; e < TL * TL / 2; e++) ((double *)b)[e] = 4.0;
        tamm_cc_release(ctx, &b, TAMM_CC_WRITE);
        b = tamm_cc_get(ctx, a->C, idx, TAMM_CC_WRITE);
        if (b) for (int e = TL * TL / 2; e < TL * TL - TL; e++) ((double *)b)[e] = 5.0;
        tamm_cc_release(ctx, &b, TAMM_CC_WRITE);
        break;
    }
    }
    atomic_store(&rel_rc, rc);
}

static tamm_tensor *make_C(void)
{
    size_t dims[2] = { NB * TL, NB * TL }, tile[2] = { TL, TL };
    return tamm_tensor_create("C", TAMM_F64, 2, dims, tile);
}

/* Runs one wrong task after initialising C.  Returns 0 when the program ran
 * to its end (checker off, or TAMM_ON_ERROR=return), with the wait's code in
 * the exit status's place: 20 + the code's magnitude. */
static int child_wrong(void *vp)
{
    int k = *(int *)vp;
    tu_init();
    tamm_tensor *C = make_C();
    CHECK_NOTNULL(C);
    double init[NB * TL * NB * TL];
    for (int i = 0; i < NB * TL * NB * TL; i++) init[i] = (double)i;
    CHECK_EQ_INT(tamm_tensor_scatter(C, init), TAMM_OK);
    wargs a = { C, k };
    tamm_ref r = tu_ref2(C, wcases[k].mode, 1, 2);
    tamm_task t = tu_task(wrong_body, &a, sizeof a, &r, 1, wcases[k].label, LOC_FILE, wcases[k].line);
    atomic_store(&rel_rc, 12345);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    int rc = tamm_wait_all();
    int crc = atomic_load(&rel_rc);
    TU_FINALIZE();
    /* the explicit releases return the checker's code too (cc releases and the
     * implicit release at the end of the task return nothing to the body) */
    if (rc == TAMM_EACCESS && (k == W_READ_EXPLICIT || k == W_WRITE_EXPLICIT || k == W_CWRITE))
        CHECK_EQ_INT(crc, TAMM_EACCESS);
    return 20 - rc;
}

static void test_wrong_tasks(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128], loc[64], where[128];
    for (int k = 0; k < W_COUNT; k++) {
        snprintf(loc, sizeof loc, LOC_FILE ":%d", wcases[k].line);
        snprintf(where, sizeof where, "task '%s' (%s)", wcases[k].label, loc);
        for (int nw = 1; nw <= 2; nw++) {
            char wenv[32];
            snprintf(wenv, sizeof wenv, "TAMM_NUM_WORKERS=%d", nw);
            /* checker on, default mode: one message, status 1 */
            h_context("%s, %d worker(s), TAMM_CHECK_ACCESS=1", wcases[k].label, nw);
            const char *on[] = { wenv, "TAMM_CHECK_ACCESS=1", NULL };
            run_child(child_wrong, &k, on, 30, &st, err);
            if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
                h_dump_child(wcases[k].label, &st, err);
            CHECK_CONTAINS(err, "tamm: error");
            CHECK_CONTAINS(err, where);
            CHECK_CONTAINS(err, wcases[k].what);
            CHECK_CONTAINS(err, "tensor 'C'");
            CHECK_CONTAINS(err, wcases[k].mode_name);
            CHECK_CONTAINS(err, tamm_strerror(TAMM_EACCESS));
            /* the message ends with a whole sentence on where the mode came from */
            CHECK_CONTAINS(err, "if the program declared it, that declaration is wrong for this body (correct the "
                                "clause, or the mode the program passed to the runtime) [");
            CHECK_EQ_INT(h_count(err, "tamm: error"), 1);
            if (k == W_WRITE_EXPLICIT) CHECK_CONTAINS(err, "4 of its 16 elements were left unwritten, the first at element (3,0)");
            if (k == W_WRITE_CC) CHECK_CONTAINS(err, "1 of its 16 elements were left unwritten, the first at element (0,0)");
            if (k == W_CWRITE) CHECK_CONTAINS(err, "8 of its 16 elements were left unwritten, the first at element (0,1)");
            if (k == W_WRITE_CC_SPLIT)
                CHECK_CONTAINS(err, "4 of its 16 elements were left unwritten, the first at element (3,0)");

            /* checker on, return mode: the wait returns TAMM_EACCESS, the program goes on */
            h_context("%s, %d worker(s), TAMM_CHECK_ACCESS=1 TAMM_ON_ERROR=return", wcases[k].label, nw);
            const char *onr[] = { wenv, "TAMM_CHECK_ACCESS=1", "TAMM_ON_ERROR=return", NULL };
            run_child(child_wrong, &k, onr, 30, &st, err);
            h__merge_counts(&st);
            if (!CHECK_MSG(child_exit_is(&st, 20 - TAMM_EACCESS), "tamm_wait_all returned TAMM_EACCESS (got %s)",
                           child_how(&st, how, sizeof how)))
                h_dump_child(wcases[k].label, &st, err);
            CHECK_CONTAINS(err, where);
            CHECK_CONTAINS(err, wcases[k].what);
            CHECK_EQ_INT(h_count(err, "tamm: error"), 1);

            /* checker off (unset, and 0): the same task is not reported */
            for (int off = 0; off < 2; off++) {
                h_context("%s, %d worker(s), TAMM_CHECK_ACCESS %s", wcases[k].label, nw, off ? "=0" : "unset");
                const char *offenv[] = { wenv, off ? "TAMM_CHECK_ACCESS=0" : "TAMM_CHECK_ACCESS", NULL };
                run_child(child_wrong, &k, offenv, 30, &st, err);
                h__merge_counts(&st);
                if (!CHECK_MSG(child_exit_is(&st, 20), "ran to the end with no error (got %s)",
                               child_how(&st, how, sizeof how)))
                    h_dump_child(wcases[k].label, &st, err);
                CHECK_EQ_INT(h_count(err, "tamm: error"), 0);
            }
        }
    }
    h_context(NULL);
}

/* ------------------------------------------------------------------ */
/* Correct tasks                                                        */
/* ------------------------------------------------------------------ */
/* A, B, C, D: NB x NB blocks.  For every block (i,j), in submission order:
 *   fill   A[i][j] = i*100 + j*10 + e             (write, explicit)
 *   fillcc B[i][j] = 2                            (write, cc path)
 *   copy   C[i][j] = A[i][j] + B[i][j]             (read A, B via cc; write C)
 *   acc    D[i][0] += C[i][j]        for all j      (accum; concurrent members)
 *   scale  C[i][j] *= 3                            (readwrite)
 *   peek   reads A[i][j] with tamm_block and C[i][j] explicitly, writes nothing
 *   cfill  D[i][1] = 5 by cwrite, then E cancelled  (cwrite put and cancel)
 * and the result is checked element by element at the top level. */
typedef struct { tamm_tensor *A, *B, *C, *D; long i, j; } cargs;

static double a_val(long i, long j, int e) { return (double)(i * 100 + j * 10 + e); }

static void t_fill(tamm_ctx *ctx, void *vp)
{
    cargs *a = vp;
    long idx[2] = { a->i, a->j };
    double *p = tamm_get_buf_write(ctx, a->A, idx);
    for (int e = 0; e < TL * TL; e++) p[e] = a_val(a->i, a->j, e);
    TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
}

/* Block (i,j) of T = v, written whole through tammcc's path (tamm_cc_get in write mode). */
static void cc_fill(tamm_ctx *ctx, tamm_tensor *T, long i, long j, double v)
{
    long idx[2] = { i, j };
    void *b = tamm_cc_get(ctx, T, idx, TAMM_CC_WRITE);
    for (int e = 0; e < TL * TL; e++) ((double *)b)[e] = v;
    tamm_cc_release(ctx, &b, TAMM_CC_WRITE);
}

static void t_fillcc(tamm_ctx *ctx, void *vp)
{
    cargs *a = vp;
    cc_fill(ctx, a->B, a->i, a->j, 2.0);
}

static void t_copy(tamm_ctx *ctx, void *vp)
{
    cargs *a = vp;
    long idx[2] = { a->i, a->j };
    void *pa = tamm_cc_get(ctx, a->A, idx, TAMM_CC_READ), *pb = tamm_cc_get(ctx, a->B, idx, TAMM_CC_READ);
    double *pc = tamm_get_buf_write(ctx, a->C, idx);
    for (int e = 0; e < TL * TL; e++) pc[e] = ((double *)pa)[e] + ((double *)pb)[e];
    tamm_cc_release(ctx, &pa, TAMM_CC_READ);
    tamm_cc_release(ctx, &pb, TAMM_CC_READ);
    TCHECK(tamm_release_put(ctx, pc) == TAMM_OK);
}

static void t_acc(tamm_ctx *ctx, void *vp)
{
    cargs *a = vp;
    long ic[2] = { a->i, a->j }, id[2] = { a->i, 0 };
    const double *pc = tamm_get_buf_read(ctx, a->C, ic);
    double *pd = tamm_get_buf_accum(ctx, a->D, id);
    for (int e = 0; e < TL * TL; e++) pd[e] += pc[e];
    TCHECK(tamm_release_add(ctx, pd) == TAMM_OK);
    TCHECK(tamm_release_cancel(ctx, (void *)pc) == TAMM_OK);
}

static void t_scale(tamm_ctx *ctx, void *vp)
{
    cargs *a = vp;
    long idx[2] = { a->i, a->j };
    double *p = tamm_get_buf_readwrite(ctx, a->C, idx);
    for (int e = 0; e < TL * TL; e += 3) p[e] *= 3.0; /* readwrite need not touch every element */
    for (int e = 1; e < TL * TL; e += 3) p[e] *= 3.0;
    for (int e = 2; e < TL * TL; e += 3) p[e] *= 3.0;
    TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
}

static void t_peek(tamm_ctx *ctx, void *vp)
{
    cargs *a = vp;
    long idx[2] = { a->i, a->j };
    const double *pa = tamm_block(a->A, a->i, a->j);
    const double *pc = tamm_get_buf_read(ctx, a->C, idx);
    double s = 0;
    for (int e = 0; e < TL * TL; e++) s += pa[e] + pc[e];
    TCHECK(s > 0);
    TCHECK(tamm_release_put(ctx, (void *)pc) == TAMM_OK);
}

static void t_cfill(tamm_ctx *ctx, void *vp)
{
    cargs *a = vp;
    long idx[2] = { a->i, 1 };
    double *p = tamm_get_buf_cwrite(ctx, a->D, idx);
    for (int e = 0; e < TL * TL; e++) p[e] = 5.0;
    TCHECK(tamm_release_put(ctx, p) == TAMM_OK);
    long id2[2] = { a->i, 2 };
    double *q = tamm_get_buf_cwrite(ctx, a->D, id2); /* cancelled: nothing written, nothing checked */
    TCHECK(tamm_release_cancel(ctx, q) == TAMM_OK);
}

static tamm_tensor *mk(const char *name)
{
    size_t dims[2] = { NB * TL, NB * TL }, tile[2] = { TL, TL };
    return tamm_tensor_create(name, TAMM_F64, 2, dims, tile);
}

static int child_correct(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *A = mk("A"), *B = mk("B"), *C = mk("C"), *D = mk("D");
    CHECK(A && B && C && D);
    for (int round = 0; round < 3; round++) {
        for (long i = 0; i < NB; i++)
            for (long j = 0; j < NB; j++) {
                cargs a = { A, B, C, D, i, j };
                TU_SUBMIT(NULL, t_fill, &a, "fill", tu_ref2(A, TAMM_WRITE, i, j));
                TU_SUBMIT(NULL, t_fillcc, &a, "fillcc", tu_ref2(B, TAMM_WRITE, i, j));
                TU_SUBMIT(NULL, t_copy, &a, "copy", tu_ref2(A, TAMM_READ, i, j), tu_ref2(B, TAMM_READ, i, j),
                          tu_ref2(C, TAMM_WRITE, i, j));
            }
        for (long i = 0; i < NB; i++)
            for (long j = 0; j < NB; j++) {
                cargs a = { A, B, C, D, i, j };
                TU_SUBMIT(NULL, t_acc, &a, "acc", tu_ref2(C, TAMM_READ, i, j), tu_ref2(D, TAMM_ACCUM, i, 0));
            }
        for (long i = 0; i < NB; i++)
            for (long j = 0; j < NB; j++) {
                cargs a = { A, B, C, D, i, j };
                TU_SUBMIT(NULL, t_scale, &a, "scale", tu_ref2(C, TAMM_READWRITE, i, j));
                TU_SUBMIT(NULL, t_peek, &a, "peek", tu_ref2(A, TAMM_READ, i, j), tu_ref2(C, TAMM_READ, i, j));
                TU_SUBMIT(NULL, t_peek, &a, "peek2", tu_ref2(A, TAMM_READ, i, j), tu_ref2(C, TAMM_READ, i, j));
            }
        for (long i = 0; i < NB; i++) {
            cargs a = { A, B, C, D, i, 0 };
            TU_SUBMIT(NULL, t_cfill, &a, "cfill", tu_ref2(D, TAMM_WRITE | TAMM_CANCELLABLE, i, 1),
                      tu_ref2(D, TAMM_WRITE | TAMM_CANCELLABLE, i, 2));
        }
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    }
    CHECK_TASKS_OK();
    static double c[NB * TL * NB * TL], d[NB * TL * NB * TL];
    CHECK_EQ_INT(tamm_tensor_gather(C, c), TAMM_OK);
    CHECK_EQ_INT(tamm_tensor_gather(D, d), TAMM_OK);
    int bad = 0;
    for (long i = 0; i < NB; i++)
        for (long j = 0; j < NB; j++)
            for (int r = 0; r < TL; r++)
                for (int s = 0; s < TL; s++) {
                    int e = r * TL + s;
                    long gi = i * TL + r, gj = j * TL + s;
                    double want_c = 3.0 * (a_val(i, j, e) + 2.0);
                    if (c[gi * NB * TL + gj] != want_c && bad++ < 5)
                        CHECK_MSG(0, "C[%ld][%ld] = %g, want %g", gi, gj, c[gi * NB * TL + gj], want_c);
                    double want_d;
                    if (j == 0) { /* 3 rounds of the unscaled C summed over the row of blocks */
                        want_d = 0;
                        for (long jj = 0; jj < NB; jj++) want_d += a_val(i, jj, e) + 2.0;
                        want_d *= 3;
                    } else {
                        want_d = j == 1 ? 5.0 : 0.0;
                    }
                    if (d[gi * NB * TL + gj] != want_d && bad++ < 5)
                        CHECK_MSG(0, "D[%ld][%ld] = %g, want %g", gi, gj, d[gi * NB * TL + gj], want_d);
                }
    CHECK_EQ_INT(bad, 0);
    TU_FINALIZE();
    return 0;
}

static void test_correct_tasks(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    for (int nw = 1; nw <= 2; nw++) {
        char wenv[32];
        snprintf(wenv, sizeof wenv, "TAMM_NUM_WORKERS=%d", nw);
        h_context("correct tasks, %d worker(s), TAMM_CHECK_ACCESS=1", nw);
        const char *env[] = { wenv, "TAMM_CHECK_ACCESS=1", NULL };
        run_child(child_correct, NULL, env, 60, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child("correct", &st, err);
        CHECK_EQ_INT(h_count(err, "tamm: error"), 0);
    }
    h_context(NULL);
}

/* ------------------------------------------------------------------ */
/* One write in several buffers (tammcc around nested submissions)      */
/* ------------------------------------------------------------------ */
/* tammcc gives every block back before a nested submission (and a taskwait) and
 * fetches it again, in the mode it inferred for the whole body, when the body
 * next names it: a block written whole through a helper, then one element
 * stored through a second tamm_block(R, i, j) after a nested task, is one write
 * in two buffers (random program 91163, line 292).  For every block (i,j) of R,
 * one task with write on R[i][j] and permission for its child on S[i][j]:
 *   shape 0: fill R[i][j] with v, child, R[i][j][0] = 458   (fill, then one store)
 *   shape 1: R[i][j][0] = 1, child, fill with v               (one store, then fill)
 *   shape 2: first half v, child, second half v, taskwait, R[i][j][1] = 77
 * where v(e) = i*100 + j*10 + e and the child writes S[i][j] = 6 whole. */
#define REHOLD_SHAPES 3
typedef struct { tamm_tensor *R, *S; long i, j; } rargs;

static double r_val(long i, long j, int e) { return (double)(i * 100 + j * 10 + e); }
static double r_want(long i, long j, int e)
{
    int shape = (int)((i * NB + j) % REHOLD_SHAPES);
    if (shape == 0 && e == 0) return 458.0;
    if (shape == 2 && e == 1) return 77.0;
    return r_val(i, j, e);
}

static void t_rehold_child(tamm_ctx *ctx, void *vp)
{
    rargs *a = vp;
    cc_fill(ctx, a->S, a->i, a->j, 6.0);
}

static void t_rehold(tamm_ctx *ctx, void *vp)
{
    rargs *a = vp;
    long idx[2] = { a->i, a->j };
    int shape = (int)((a->i * NB + a->j) % REHOLD_SHAPES);
    double *p = tamm_cc_get(ctx, a->R, idx, TAMM_CC_WRITE);
    int from = 0, to = TL * TL;
    if (shape == 1) from = to = 0, p[0] = 1.0;
    if (shape == 2) to = TL * TL / 2;
    for (int e = from; e < to; e++) p[e] = r_val(a->i, a->j, e);
    void *b = p;
    tamm_cc_release(ctx, &b, TAMM_CC_WRITE);
    /* a nested task writing S[i][j], submitted as tammcc does: no block held */
    TCHECK(TU_SUBMIT(ctx, t_rehold_child, a, "rehold_child", tu_ref2(a->S, TAMM_WRITE, a->i, a->j)) == TAMM_OK);
    p = tamm_cc_get(ctx, a->R, idx, TAMM_CC_WRITE);
    if (shape == 0) p[0] = 458.0;
    if (shape == 1) for (int e = 0; e < TL * TL; e++) p[e] = r_val(a->i, a->j, e);
    if (shape == 2) {
        for (int e = TL * TL / 2; e < TL * TL; e++) p[e] = r_val(a->i, a->j, e);
        b = p;
        tamm_cc_release(ctx, &b, TAMM_CC_WRITE);
        TCHECK(tamm_cc_taskwait() == TAMM_OK);
        p = tamm_cc_get(ctx, a->R, idx, TAMM_CC_WRITE);
        p[1] = 77.0;
    }
    b = p;
    tamm_cc_release(ctx, &b, TAMM_CC_WRITE);
}

static int child_rehold(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *R = mk("R"), *S = mk("S");
    CHECK(R && S);
    for (long i = 0; i < NB; i++)
        for (long j = 0; j < NB; j++) {
            rargs a = { R, S, i, j };
            TU_SUBMIT(NULL, t_rehold, &a, "rehold", tu_ref2(R, TAMM_WRITE, i, j),
                      tu_ref2(S, TAMM_WRITE | TAMM_PERMISSION_ONLY, i, j));
        }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    static double r[NB * TL * NB * TL], s[NB * TL * NB * TL];
    CHECK_EQ_INT(tamm_tensor_gather(R, r), TAMM_OK);
    CHECK_EQ_INT(tamm_tensor_gather(S, s), TAMM_OK);
    int bad = 0;
    for (long i = 0; i < NB; i++)
        for (long j = 0; j < NB; j++)
            for (int e = 0; e < TL * TL; e++) {
                long gi = i * TL + e / TL, gj = j * TL + e % TL;
                double got = r[gi * NB * TL + gj], want = r_want(i, j, e);
                if (got != want && bad++ < 5) CHECK_MSG(0, "R[%ld][%ld] = %g, want %g", gi, gj, got, want);
                if (s[gi * NB * TL + gj] != 6.0 && bad++ < 5) CHECK_MSG(0, "S[%ld][%ld] = %g, want 6", gi, gj, s[gi * NB * TL + gj]);
            }
    CHECK_EQ_INT(bad, 0);
    TU_FINALIZE();
    return 0;
}

static void test_rehold(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    for (int nw = 1; nw <= 2; nw++)
        for (int on = 0; on < 2; on++) {
            char wenv[32];
            snprintf(wenv, sizeof wenv, "TAMM_NUM_WORKERS=%d", nw);
            h_context("one write in several buffers, %d worker(s), TAMM_CHECK_ACCESS=%d", nw, on);
            const char *env[] = { wenv, on ? "TAMM_CHECK_ACCESS=1" : "TAMM_CHECK_ACCESS=0", NULL };
            run_child(child_rehold, NULL, env, 60, &st, err);
            h__merge_counts(&st);
            if (!CHECK_MSG(child_ok(&st), "ended cleanly (got %s)", child_how(&st, how, sizeof how)))
                h_dump_child("rehold", &st, err);
            CHECK_EQ_INT(h_count(err, "tamm: error"), 0);
        }
    h_context(NULL);
}

/* ------------------------------------------------------------------ */
/* Invalid values                                                       */
/* ------------------------------------------------------------------ */
static int child_init_only(void *vp)
{
    (void)vp;
    static int argc = 1;
    static char arg0[] = "t";
    static char *argv0[] = { arg0, NULL };
    static char **argv = argv0;
    int rc = tamm_init(&argc, &argv);
    if (rc == TAMM_OK) tamm_finalize();
    return rc == TAMM_OK ? 0 : 30 - rc;
}

static void test_invalid(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    const char *vals[] = { "yes2", "2", "on", "-1" };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char kv[64], quoted[64];
        snprintf(kv, sizeof kv, "TAMM_CHECK_ACCESS=%s", vals[i]);
        snprintf(quoted, sizeof quoted, "'%s'", vals[i]);
        h_context("%s, TAMM_ON_ERROR=return", kv);
        const char *env[] = { kv, "TAMM_ON_ERROR=return", NULL };
        run_child(child_init_only, NULL, env, 15, &st, err);
        if (!CHECK_MSG(child_exit_is(&st, 30 - TAMM_EINVAL), "tamm_init returned TAMM_EINVAL (got %s)",
                       child_how(&st, how, sizeof how)))
            h_dump_child(kv, &st, err);
        CHECK_CONTAINS(err, "tamm: error: TAMM_CHECK_ACCESS");
        CHECK_CONTAINS(err, quoted);
        CHECK_CONTAINS(err, "0 or 1");
    }
    h_context(NULL);
}

int main(void)
{
    test_invalid();
    test_wrong_tasks();
    test_correct_tasks();
    test_rehold();
    return test_summary();
}
