/*
 * cholesky_tiles.c — tiled Cholesky factorisation (lower, right-looking) on the
 * tamm runtime with cuSOLVER / cuBLAS tile variants (explicit task API), against
 * one cusolverDnDpotrf on the whole matrix.
 *
 *   cholesky_tiles N NB [reps]
 *
 * A = L L^T for an N x N symmetric positive definite matrix in NB x NB tiles;
 * tasks potrf(A[k][k]), trsm(A[k][k] -> A[i][k]), syrk(A[j][k] -> A[j][j]) and
 * gemm(A[i][k], A[j][k] -> A[i][j]), each one cuSOLVER or cuBLAS call on the
 * task's stream (cholesky_cusolver.cu).  Both sides start from host memory and
 * end with L in host memory: the tiled time runs from the first submission to
 * the end of tamm_tensor_gather; the reference's from its first copy in to its
 * last copy out (its potrf alone is printed too).  The lower triangle is checked
 * against the reference's.  Exit 77 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ch_potrf(void *stream, int nb, double *a);
int ch_trsm(void *handle, int nb, const double *l, double *b);
int ch_syrk(void *handle, int nb, const double *a, double *c);
int ch_gemm(void *handle, int nb, const double *a, const double *b, double *c);
void ch_release(void);
int ch_whole(int n, const double *a, double *l, double *total, double *compute);
void *ch_host_alloc(size_t bytes);
void ch_host_free(void *p);

enum { POTRF, TRSM, SYRK, GEMM };
typedef struct { tamm_tensor *A; int kind, nb; long i, j, k; } targs;
static int failures;

static void tile_cuda(tamm_ctx *ctx, void *p)
{
    targs *t = p;
    long kk[2] = { t->k, t->k }, ik[2] = { t->i, t->k }, jk[2] = { t->j, t->k }, ij[2] = { t->i, t->j };
    int rc = -1;
    void *h = tamm_cublas_handle();
    switch (t->kind) {
    case POTRF: {
        double *a = tamm_get_buf_readwrite(ctx, t->A, kk);
        rc = a ? ch_potrf(tamm_cuda_stream(), t->nb, a) : -1;
        if (a) tamm_release_put(ctx, a);
        break;
    }
    case TRSM: {
        const double *l = tamm_get_buf_read(ctx, t->A, kk);
        double *b = tamm_get_buf_readwrite(ctx, t->A, ik);
        rc = l && b && h ? ch_trsm(h, t->nb, l, b) : -1;
        if (l) tamm_release_cancel(ctx, (void *)l);
        if (b) tamm_release_put(ctx, b);
        break;
    }
    case SYRK: {
        const double *a = tamm_get_buf_read(ctx, t->A, jk);
        double *c = tamm_get_buf_readwrite(ctx, t->A, (long[2]){ t->j, t->j });
        rc = a && c && h ? ch_syrk(h, t->nb, a, c) : -1;
        if (a) tamm_release_cancel(ctx, (void *)a);
        if (c) tamm_release_put(ctx, c);
        break;
    }
    default: {
        const double *a = tamm_get_buf_read(ctx, t->A, ik), *b = tamm_get_buf_read(ctx, t->A, jk);
        double *c = tamm_get_buf_readwrite(ctx, t->A, ij);
        rc = a && b && c && h ? ch_gemm(h, t->nb, a, b, c) : -1;
        if (a) tamm_release_cancel(ctx, (void *)a);
        if (b) tamm_release_cancel(ctx, (void *)b);
        if (c) tamm_release_put(ctx, c);
        break;
    }
    }
    if (rc) __atomic_fetch_add(&failures, 1, 0);
}

static void submit(tamm_tensor *A, int kind, int nb, long i, long j, long k, int prio)
{
    targs ta = { A, kind, nb, i, j, k };
    tamm_ref refs[3];
    int n = 0;
    memset(refs, 0, sizeof refs);
#define REF(a, b, m) do { refs[n].tensor = A; refs[n].nidx = 2; refs[n].idx[0] = (a); refs[n].idx[1] = (b); \
                          refs[n].mode = (m); n++; } while (0)
    switch (kind) {
    case POTRF: REF(k, k, TAMM_READWRITE); break;
    case TRSM: REF(k, k, TAMM_READ); REF(i, k, TAMM_READWRITE); break;
    case SYRK: REF(j, k, TAMM_READ); REF(j, j, TAMM_READWRITE); break;
    default: REF(i, k, TAMM_READ); REF(j, k, TAMM_READ); REF(i, j, TAMM_READWRITE); break;
    }
#undef REF
    static const char *const names[] = { "potrf", "trsm", "syrk", "gemm" };
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cuda = tile_cuda;
    t.args = &ta; t.args_size = sizeof ta; t.refs = refs; t.nrefs = n;
    t.label = names[kind]; t.priority = prio; t.rank = -1; t.file = __FILE__; t.line = __LINE__;
    if (tamm_submit(NULL, &t) != TAMM_OK) exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 8192, nb = argc > 2 ? atol(argv[2]) : 1024;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    if (tamm_num_gpus() == 0) {
        fprintf(stderr, "cholesky_tiles: no GPU\n");
        tamm_finalize();
        return 77;
    }
    if (n % nb) { fprintf(stderr, "cholesky_tiles: N must be a multiple of NB\n"); return 1; }
    size_t bytes = (size_t)n * (size_t)n * sizeof(double);
    double *a = ch_host_alloc(bytes), *l = ch_host_alloc(bytes), *ref = ch_host_alloc(bytes);
    if (!a || !l || !ref) { fprintf(stderr, "cholesky_tiles: cannot allocate pinned memory\n"); return 1; }
    /* symmetric, diagonally dominant with a positive diagonal: positive definite */
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) a[i * n + j] = (i == j ? (double)n : 0.0) + 0.5 / (1.0 + (double)labs(i - j));
    double ref_total = 1e30, ref_compute = 1e30, tiled = 1e30;
    for (int r = 0; r < reps; r++) {
        double tt, tc;
        if (ch_whole((int)n, a, ref, &tt, &tc)) return 1;
        if (tt < ref_total) ref_total = tt;
        if (tc < ref_compute) ref_compute = tc;
    }
    long nt = n / nb;
    for (int r = 0; r < reps; r++) {
        size_t dims[2] = { (size_t)n, (size_t)n }, tile[2] = { (size_t)nb, (size_t)nb };
        tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
        tamm_tensor_scatter(A, a);
        if (tamm_wait_all() != TAMM_OK) return 1;
        double t0 = now();
        for (long k = 0; k < nt; k++) {
            /* the critical path first: step k's factorisation and solves, then the updates of
             * the column that is the next panel, then the later columns (a lookahead of one) */
            submit(A, POTRF, (int)nb, k, k, k, (int)(4 * (nt - k)) + 2);
            for (long i = k + 1; i < nt; i++) submit(A, TRSM, (int)nb, i, k, k, (int)(4 * (nt - k)) + 1);
            for (long j = k + 1; j < nt; j++) {
                int p = (int)(4 * (nt - j)) + 3;
                submit(A, SYRK, (int)nb, j, j, k, p);
                for (long i = j + 1; i < nt; i++) submit(A, GEMM, (int)nb, i, j, k, p);
            }
        }
        if (tamm_tensor_gather(A, l) != TAMM_OK) return 1;
        double t = now() - t0;
        if (t < tiled) tiled = t;
        tamm_tensor_destroy(A);
    }
    double err = 0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++) {
            double d = fabs(l[i * n + j] - ref[i * n + j]) / (fabs(ref[i * n + j]) + 1);
            if (d > err) err = d;
        }
    double fl = (double)n * (double)n * (double)n / 3.0;
    printf("cholesky N=%ld NB=%ld: tiled %.1f GFLOP/s, whole cusolverDnDpotrf %.1f GFLOP/s with transfers "
           "(%.1f without): %.1f%%, max rel. error %.2e, %d failed tile calls\n",
           n, nb, fl / tiled / 1e9, fl / ref_total / 1e9, fl / ref_compute / 1e9, 100.0 * ref_total / tiled, err, failures);
    ch_release();
    ch_host_free(a); ch_host_free(l); ch_host_free(ref);
    int rc = tamm_finalize();
    return rc == TAMM_OK && err < 1e-9 && failures == 0 ? 0 : 1;
}
