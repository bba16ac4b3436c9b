#define _POSIX_C_SOURCE 200809L
/*
 * cholesky_mpi.c — distributed tiled Cholesky (explicit task API, OpenBLAS /
 * LAPACKE tile kernels) for bench/run_cholesky_mpi.sh.
 *
 *   mpirun -np P cholesky_mpi [N [NB]]      (default N=2048, NB=256)
 *
 * Tiles are block-cyclic over the automatic 2-D grid; each task runs on the
 * owner of the tile it updates.  Rank 0 prints one line:
 *   ranks P N NB time_s gflops bytes_min_per_rank
 * where bytes_min_per_rank is the least a rank must receive under this data
 * distribution (each tile version a rank's tasks read but do not own, once),
 * computed here by replaying the task graph; TAMM_STATS=1 makes every rank
 * print what it actually sent and received.  The factor is checked
 * (residual of L*L^T on rank 0) and a wrong one exits 1.
 */
#include <tamm.h>

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t N = 2048, NB = 256;
static long NT;
static double a_val(size_t i, size_t j) { size_t d = i > j ? i - j : j - i; return 1.0 / (1.0 + (double)d) + (i == j ? (double)N : 0.0); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }

typedef struct { tamm_tensor *A; long i, j, k; } ta;
static tamm_ref r2(tamm_tensor *A, unsigned m, long i, long j) { tamm_ref r; memset(&r, 0, sizeof r); r.tensor = A; r.nidx = 2; r.idx[0] = i; r.idx[1] = j; r.mode = m; return r; }
static int ext(long b) { return (int)((size_t)(b + 1) * NB <= N ? NB : N - (size_t)b * NB); }

static void k_init(tamm_ctx *c, void *v)
{
    ta *a = v; long idx[2] = { a->i, a->j };
    double *t = tamm_get_buf_write(c, a->A, idx);
    int m = ext(a->i), n = ext(a->j);
    for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) t[i * n + j] = a_val((size_t)a->i * NB + (size_t)i, (size_t)a->j * NB + (size_t)j);
    tamm_release_put(c, t);
}
static void k_potrf(tamm_ctx *c, void *v)
{
    ta *a = v; long idx[2] = { a->k, a->k };
    double *t = tamm_get_buf_readwrite(c, a->A, idx);
    int n = ext(a->k);
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, t, n) != 0) { fprintf(stderr, "potrf failed\n"); exit(1); }
    tamm_release_put(c, t);
}
static void k_trsm(tamm_ctx *c, void *v)
{
    ta *a = v; long ik[2] = { a->i, a->k }, kk[2] = { a->k, a->k };
    double *x = tamm_get_buf_readwrite(c, a->A, ik);
    const double *l = tamm_get_buf_read(c, a->A, kk);
    int m = ext(a->i), n = ext(a->k);
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0, l, n, x, n);
    tamm_release_put(c, x); tamm_release_put(c, (void *)l);
}
static void k_syrk(tamm_ctx *c, void *v)
{
    ta *a = v; long ii[2] = { a->i, a->i }, ik[2] = { a->i, a->k };
    double *x = tamm_get_buf_readwrite(c, a->A, ii);
    const double *y = tamm_get_buf_read(c, a->A, ik);
    int m = ext(a->i), k = ext(a->k);
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, m, k, -1.0, y, k, 1.0, x, m);
    tamm_release_put(c, x); tamm_release_put(c, (void *)y);
}
static void k_gemm(tamm_ctx *c, void *v)
{
    ta *a = v; long ij[2] = { a->i, a->j }, ik[2] = { a->i, a->k }, jk[2] = { a->j, a->k };
    double *x = tamm_get_buf_readwrite(c, a->A, ij);
    const double *p = tamm_get_buf_read(c, a->A, ik), *q = tamm_get_buf_read(c, a->A, jk);
    int m = ext(a->i), n = ext(a->j), k = ext(a->k);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, p, k, q, k, 1.0, x, n);
    tamm_release_put(c, x); tamm_release_put(c, (void *)p); tamm_release_put(c, (void *)q);
}

static void sub(tamm_fn f, const char *lab, tamm_tensor *A, long i, long j, long k, tamm_ref *r, int n)
{
    ta a = { A, i, j, k };
    tamm_task t; memset(&t, 0, sizeof t);
    t.cpu = f; t.args = &a; t.args_size = sizeof a; t.refs = r; t.nrefs = n; t.rank = -1; t.label = lab;
    if (tamm_submit(NULL, &t) != TAMM_OK) exit(1);
}

/* The least bytes a rank must receive: replay the graph, counting each tile
 * version a rank reads without owning it, once per rank. */
static double min_bytes_per_rank(tamm_tensor *A, int P)
{
    long n = NT * NT;
    int *ver = calloc((size_t)n, sizeof *ver);
    int *seen = calloc((size_t)n * (size_t)P, sizeof *seen);   /* version+1 rank r holds */
    double total = 0;
#define OWN(i, j) tamm_block_owner(A, (long[]){ (i), (j) })
#define READ(e, i, j) do { long b_ = (i) * NT + (j); int o_ = OWN(i, j); if (o_ != (e) && seen[b_ * P + (e)] != ver[b_] + 1) { seen[b_ * P + (e)] = ver[b_] + 1; total += (double)ext(i) * ext(j) * 8; } } while (0)
#define WRITE(i, j) (ver[(i) * NT + (j)]++)
    for (long k = 0; k < NT; k++) {
        WRITE(k, k);
        for (long i = k + 1; i < NT; i++) { READ(OWN(i, k), k, k); WRITE(i, k); }
        for (long i = k + 1; i < NT; i++) {
            READ(OWN(i, i), i, k); WRITE(i, i);
            for (long j = k + 1; j < i; j++) { int e = OWN(i, j); READ(e, i, k); READ(e, j, k); WRITE(i, j); }
        }
    }
    free(ver); free(seen);
    return total / P;
}

int main(int argc, char **argv)
{
    if (argc > 1) N = (size_t)atol(argv[1]);
    if (argc > 2) NB = (size_t)atol(argv[2]);
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[2] = { N, N }, tile[2] = { NB, NB };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    NT = tamm_tensor_nblocks(A, 0);
    for (long i = 0; i < NT; i++) for (long j = 0; j <= i; j++) { tamm_ref r = r2(A, TAMM_WRITE, i, j); sub(k_init, "init", A, i, j, 0, &r, 1); }
    tamm_wait_all();
    double t0 = now();
    for (long k = 0; k < NT; k++) {
        { tamm_ref r = r2(A, TAMM_READWRITE, k, k); sub(k_potrf, "potrf", A, 0, 0, k, &r, 1); }
        for (long i = k + 1; i < NT; i++) { tamm_ref r[2] = { r2(A, TAMM_READWRITE, i, k), r2(A, TAMM_READ, k, k) }; sub(k_trsm, "trsm", A, i, 0, k, r, 2); }
        for (long i = k + 1; i < NT; i++) {
            { tamm_ref r[2] = { r2(A, TAMM_READWRITE, i, i), r2(A, TAMM_READ, i, k) }; sub(k_syrk, "syrk", A, i, 0, k, r, 2); }
            for (long j = k + 1; j < i; j++) { tamm_ref r[3] = { r2(A, TAMM_READWRITE, i, j), r2(A, TAMM_READ, i, k), r2(A, TAMM_READ, j, k) }; sub(k_gemm, "gemm", A, i, j, k, r, 3); }
        }
    }
    tamm_wait_all();
    double t = now() - t0;
    /* with "check": gather L (every rank gets it) and check a sample of
     * L*L^T on rank 0; measurement runs leave it out, so that TAMM_STATS
     * counts the factorisation's messages only */
    double maxerr = 0;
    if (argc > 3 && !strcmp(argv[3], "check")) {
        double *L = malloc(N * N * sizeof *L);
        if (!L || tamm_tensor_gather(A, L) != TAMM_OK) return 1;
        size_t step = N / 64 ? N / 64 : 1;
        for (size_t i = 0; i < N; i += step)
            for (size_t j = 0; j <= i; j += step) {
                double s = 0;
                for (size_t k = 0; k <= j; k++) s += L[i * N + k] * L[j * N + k];
                double e = fabs(s - a_val(i, j)) / fabs(a_val(i, j));
                if (e > maxerr) maxerr = e;
            }
        free(L);
    }
    if (tamm_rank() == 0)
        printf("ranks %d N %zu NB %zu time_s %.4f gflops %.2f bytes_min_per_rank %.0f maxerr %.1e\n", tamm_nranks(), N, NB, t,
               (double)N * N * N / 3.0 / t * 1e-9, min_bytes_per_rank(A, tamm_nranks()), maxerr);
    tamm_finalize();
    return maxerr < 1e-10 ? 0 : 1;
}
