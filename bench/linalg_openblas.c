/*
 * linalg_openblas.c — the practical limit: one multithreaded OpenBLAS call on
 * the whole matrix.
 *
 *   linalg_openblas gemm|cholesky [-check] N
 *
 * gemm:     cblas_dgemm, C += A * B on N x N row-major matrices;
 * cholesky: dpotrf on the N x N matrix (row-major lower = column-major upper,
 *           through LAPACKE_dpotrf_work: no transposition, no NaN scan), which
 *           in OpenBLAS is its own blocked, multithreaded factorisation.
 * Threads: OpenBLAS's own (OPENBLAS_NUM_THREADS, default one per core).
 * The matrices are filled (untimed) with the values of linalg_common.h; a
 * small untimed call first starts OpenBLAS's threads and buffers.
 *
 * Prints one RESULT line (NB=0: no tiles).  -check verifies the result with
 * an O(N^2) residual (linalg_common.h, lc_residual): this program is the
 * reference the tiled versions are compared with.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise (linalg_common.h, LINALG_HUGEPAGES) */
#include "linalg_common.h"

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "gemm") != 0 && strcmp(argv[1], "cholesky") != 0)) {
        fprintf(stderr, "usage: %s gemm|cholesky [-check] N\n", argv[0]);
        return 2;
    }
    const char *kernel = argv[1];
    lc_args a;
    lc_parse(argc, argv, 2, &a, 0);
    size_t N = a.N;
    int gemm = strcmp(kernel, "gemm") == 0;

    /* Warm-up: thread pool and per-thread buffers. */
    {
        size_t w = 256;
        double *x = lc_alloc(w * w), *y = lc_alloc(w * w), *z = lc_alloc(w * w);
        lc_fill_gemm(x, w, LC_A);
        lc_fill_gemm(y, w, LC_B);
        lc_fill_gemm(z, w, LC_C);
        lc_full_gemm(x, y, z, w);
        lc_fill_spd(x, w);
        lc_full_potrf(x, w);
        free(x);
        free(y);
        free(z);
    }

    double *A = lc_alloc(N * N), *B = NULL, *C = NULL;
    double secs;
    if (gemm) {
        B = lc_alloc(N * N);
        C = lc_alloc(N * N);
        lc_fill_gemm(A, N, LC_A);
        lc_fill_gemm(B, N, LC_B);
        lc_fill_gemm(C, N, LC_C);
        double t0 = lc_now();
        lc_full_gemm(A, B, C, N);
        secs = lc_now() - t0;
    } else {
        lc_fill_spd(A, N);
        double t0 = lc_now();
        lc_full_potrf(A, N);
        secs = lc_now() - t0;
    }

    int ok = 1;
    double err = 0.0;
    if (a.check) {
        err = lc_residual(kernel, gemm ? C : A, N);
        ok = err <= lc_tolerance(N);
    }
    free(A);
    free(B);
    free(C);
    return lc_report(kernel, "openblas", N, 0, openblas_get_num_threads(), secs, a.check, ok, err);
}
