/*
 * cholesky.c — tiled Cholesky factorisation A = L * L^T in pragma form, with
 * OpenBLAS / LAPACKE tile kernels.
 *
 *   cholesky [N [NB]]    (default N=240, NB=64: edge tiles, since 64 does not divide 240)
 *
 * A is symmetric positive definite (diagonally dominant); only its lower tiles
 * are stored and factorised in place.  Each LAPACKE / CBLAS call is wrapped in
 * a small static function whose pointer parameters are `const` where the tile
 * is only read, so tammcc infers: potrf -> readwrite A[k][k]; trsm -> read
 * A[k][k], readwrite A[i][k]; syrk -> read A[i][k], accum A[i][i] (its C with
 * beta 1); gemm -> read A[i][k], A[j][k], accum A[i][j].  The initial tiles
 * are written by tasks (canonical loop nest -> write).  With a GPU, the BLAS
 * and LAPACK tasks run on it through cuBLAS and cuSOLVER, with no code of the
 * program's own for it.
 *
 * The check rebuilds L * L^T with a plain serial loop and compares it with the
 * formula for A.  Exit status 0 iff the relative error is within rounding.
 */
#include <tamm.h>

#include <cblas.h>
#include <lapacke.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double a_val(size_t i, size_t j, size_t n)
{
    size_t d = i > j ? i - j : j - i;
    return 1.0 / (1.0 + (double)d) + (i == j ? (double)n : 0.0);
}

/* t (m x n) := A(r0 + i, c0 + j): every element stored -> write. */
static void init_tile(double *t, size_t m, size_t n, size_t r0, size_t c0, size_t N)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            t[i * n + j] = a_val(r0 + i, c0 + j, N);
}

/* a (n x n) := its lower Cholesky factor.  Returns LAPACK's info. */
static void potrf_tile(double *a, int n, int *info)
{
    *info = (int)LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, a, n);
}

/* a (m x n) := a * l^-T, l (n x n) lower triangular. */
static void trsm_tile(const double *l, double *a, int m, int n)
{
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0,
                l, n, a, n);
}

/* c (m x m, lower part) -= a * a^T, a (m x k). */
static void syrk_tile(const double *a, double *c, int m, int k)
{
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, m, k, -1.0, a, k, 1.0, c, m);
}

/* c (m x n) -= a * b^T, a (m x k), b (n x k). */
static void gemm_tile(const double *a, const double *b, double *c, int m, int n, int k)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, a, k, b, k, 1.0, c, n);
}

static size_t parse_arg(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0 || v > 1L << 15) {
        fprintf(stderr, "cholesky: bad %s '%s' (expected a positive integer)\n", what, s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) {
        fprintf(stderr, "cholesky: tamm_init failed\n");
        return 1;
    }
    openblas_set_num_threads(1); /* parallelism comes from the tasks */
    size_t N = argc > 1 ? parse_arg(argv[1], "N") : 240;
    size_t NB = argc > 2 ? parse_arg(argv[2], "NB") : 64;

    size_t dims[2] = {N, N}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    if (!A) {
        fprintf(stderr, "cholesky: tamm_tensor_create failed\n");
        return 1;
    }
    long NT = tamm_tensor_nblocks(A, 0);
    /* Status of each diagonal factorisation (LAPACK info), one element per block. */
    size_t idims[1] = {(size_t)NT}, itile[1] = {1};
    tamm_tensor *INFO = tamm_tensor_create("INFO", TAMM_I32, 1, idims, itile);
    if (!INFO) {
        fprintf(stderr, "cholesky: tamm_tensor_create failed\n");
        return 1;
    }

    for (long i = 0; i < NT; i++)
        for (long j = 0; j <= i; j++) {
            #pragma tamm task label("init")
            init_tile(tamm_block(A, i, j), tamm_block_extent(A, 0, i), tamm_block_extent(A, 1, j),
                      (size_t)i * NB, (size_t)j * NB, N);
        }

    for (long k = 0; k < NT; k++) {
        int nk = (int)tamm_block_extent(A, 0, k);
        #pragma tamm task label("potrf") priority(2)
        potrf_tile(tamm_block(A, k, k), nk, tamm_block(INFO, k));
        for (long i = k + 1; i < NT; i++) {
            int ni = (int)tamm_block_extent(A, 0, i);
            #pragma tamm task label("trsm") priority(1)
            trsm_tile(tamm_block(A, k, k), tamm_block(A, i, k), ni, nk);
        }
        for (long i = k + 1; i < NT; i++) {
            int ni = (int)tamm_block_extent(A, 0, i);
            #pragma tamm task label("syrk")
            syrk_tile(tamm_block(A, i, k), tamm_block(A, i, i), ni, nk);
            for (long j = k + 1; j < i; j++) {
                int nj = (int)tamm_block_extent(A, 0, j);
                #pragma tamm task label("gemm")
                gemm_tile(tamm_block(A, i, k), tamm_block(A, j, k), tamm_block(A, i, j), ni, nj, nk);
            }
        }
    }
    #pragma tamm taskwait

    /* Gather L (lower triangle) into a plain array, then check L * L^T == A serially. */
    double *L = calloc(N * N, sizeof *L);
    if (!L) {
        fprintf(stderr, "cholesky: out of memory\n");
        return 1;
    }
    int info_bad = 0;
    for (long bi = 0; bi < NT; bi++) {
        const int *info = tamm_block(INFO, bi);
        if (!info || *info != 0) {
            fprintf(stderr, "cholesky: potrf of block %ld: info %d\n", bi, info ? *info : -999);
            info_bad = 1;
        }
        for (long bj = 0; bj <= bi; bj++) {
            const double *t = tamm_block(A, bi, bj);
            size_t m = tamm_block_extent(A, 0, bi), n = tamm_block_extent(A, 1, bj);
            if (!t) {
                fprintf(stderr, "cholesky: tamm_block(A, %ld, %ld) failed\n", bi, bj);
                return 1;
            }
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                    size_t gi = (size_t)bi * NB + i, gj = (size_t)bj * NB + j;
                    if (gj <= gi)
                        L[gi * N + gj] = t[i * n + j];
                }
        }
    }
    double maxerr = 0.0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j <= i; j++) {
            double s = 0.0;
            for (size_t k = 0; k <= j; k++)
                s += L[i * N + k] * L[j * N + k];
            double e = fabs(s - a_val(i, j, N)) / fabs(a_val(i, j, N));
            if (!(e <= maxerr))
                maxerr = isnan(e) ? INFINITY : e;
        }
    free(L);
    int ok = !info_bad && maxerr <= 1e-12;
    printf("cholesky: N=%zu NB=%zu workers=%d %s (max rel err %.1e)\n", N, NB, tamm_num_workers(),
           ok ? "OK" : "FAILED", maxerr);
    tamm_finalize();
    return ok ? 0 : 1;
}
