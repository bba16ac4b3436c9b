/*
 * linalg_common.h — shared by the dense linear-algebra benchmarks (bench/gemm.c,
 * bench/cholesky.c built by tammcc; linalg_omp.c; linalg_openblas.c; linalg_starpu.c).
 *
 * Everything here is plain C over OpenBLAS / LAPACKE:
 *   - deterministic matrix contents (a hash of the element's position), so every
 *     program builds the same A, B, C without sharing files;
 *   - tile kernels on row-major tiles (the layout of a tamm block), each a thin
 *     wrapper of one BLAS / LAPACK call, with `const` on the tiles it only reads
 *     (tammcc infers read for those, readwrite for the tile that escapes into BLAS);
 *   - the whole-matrix OpenBLAS reference (all threads) and the comparison;
 *   - the result line every program prints:
 *       RESULT kernel=K impl=I N=n NB=nb threads=t seconds=s gflops=g check=ok|FAILED|skipped err=e
 *
 * Flop counts: GEMM 2 N^3, Cholesky N^3 / 3 (the usual convention; StarPU's
 * FLOPS_SPOTRF adds N^2/2 + N/6, i.e. 0.01% at N = 4096).
 */
#ifndef LINALG_COMMON_H
#define LINALG_COMMON_H

#include <cblas.h>
#include <lapacke.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

enum { LC_A = 1, LC_B = 2, LC_C = 3, LC_SPD = 4 };

static inline double lc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A hash of (matrix, i, j) -> [0, 1). */
static inline double lc_hash01(uint64_t which, uint64_t i, uint64_t j)
{
    uint64_t x = (which << 56) ^ (i << 28) ^ j ^ 0x9e3779b97f4a7c15ULL;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (double)(x >> 11) * 0x1.0p-53;
}

/* GEMM operands: uniform in [-0.5, 0.5). */
static inline double lc_gemm_val(int which, size_t i, size_t j)
{
    return lc_hash01((uint64_t)which, i, j) - 0.5;
}

/* Symmetric, strictly diagonally dominant (off-diagonal in [0, 1), diagonal >= n):
 * positive definite. */
static inline double lc_spd_val(size_t i, size_t j, size_t n)
{
    size_t lo = i < j ? i : j, hi = i < j ? j : i;
    return lc_hash01(LC_SPD, lo, hi) + (i == j ? (double)n : 0.0);
}

static inline double lc_flops(const char *kernel, size_t n)
{
    double d = (double)n;
    return strcmp(kernel, "gemm") == 0 ? 2.0 * d * d * d : d * d * d / 3.0;
}

/* ------------------------------------------------------------------ */
/* Tile kernels.  Tiles are row-major; a tile of m rows and n columns has   */
/* leading dimension n (tamm's block layout, also used by linalg_omp.c).    */
/* ------------------------------------------------------------------ */

/* t (m x n) := matrix `which` at rows r0.., columns c0..: every element stored. */
static inline void lc_init_gemm_tile(double *t, size_t m, size_t n, size_t r0, size_t c0, int which)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            t[i * n + j] = lc_gemm_val(which, r0 + i, c0 + j);
}

/* t (m x n) := the SPD matrix of order N at rows r0.., columns c0... */
static inline void lc_init_spd_tile(double *t, size_t m, size_t n, size_t r0, size_t c0, size_t N)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            t[i * n + j] = lc_spd_val(r0 + i, c0 + j, N);
}

/* c (m x n) += a (m x k) * b (k x n). */
static inline void lc_gemm_nn(const double *a, const double *b, double *c, int m, int n, int k)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 1.0, c, n);
}

/* a (n x n, row-major) := its lower Cholesky factor.  Row-major lower is
 * column-major upper: no transposition (LAPACKE's row-major path copies the
 * tile twice), and the _work entry point skips LAPACKE's NaN scan. */
static inline void lc_potrf(double *a, int n)
{
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n);
    if (info != 0) {
        fprintf(stderr, "dpotrf: info %d (matrix not positive definite?)\n", (int)info);
        abort();
    }
}

/* a (m x n) := a * l^-T, l (n x n) lower triangular. */
static inline void lc_trsm(const double *l, double *a, int m, int n)
{
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0, l, n,
                a, n);
}

/* c (m x m, lower part) -= a * a^T, a (m x k). */
static inline void lc_syrk(const double *a, double *c, int m, int k)
{
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, m, k, -1.0, a, k, 1.0, c, m);
}

/* c (m x n) -= a * b^T, a (m x k), b (n x k). */
static inline void lc_gemm_nt(const double *a, const double *b, double *c, int m, int n, int k)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, a, k, b, k, 1.0, c, n);
}

/* ------------------------------------------------------------------ */
/* Whole matrices, the reference and the checks.                      */
/* ------------------------------------------------------------------ */

/* LINALG_HUGEPAGES=1: arrays of 2 MiB and more start on a 2 MiB boundary and are
 * advised transparent huge pages (as tamm's runtime does for its large blocks,
 * rt/core/hostmem.c), so that the peers and the OpenBLAS call can be measured on the
 * same pages as tamm.  Unset or 0: 64-byte aligned, as a user would allocate. */
static inline int lc_hugepages(void)
{
    static int v = -1;
    if (v < 0) {
        const char *s = getenv("LINALG_HUGEPAGES");
        v = s && !strcmp(s, "1");
    }
    return v;
}

static inline double *lc_alloc(size_t count)
{
    void *p = NULL;
    size_t bytes = count * sizeof(double), huge = (size_t)2 << 20;
    int thp = lc_hugepages() && bytes >= huge;
    if (thp) bytes = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&p, thp ? huge : 64, bytes) != 0) {
        fprintf(stderr, "out of memory (%zu doubles)\n", count);
        exit(1);
    }
#ifdef MADV_HUGEPAGE
    if (thp) (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static inline void lc_fill_gemm(double *m, size_t N, int which)
{
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            m[i * N + j] = lc_gemm_val(which, i, j);
}

static inline void lc_fill_spd(double *m, size_t N)
{
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            m[i * N + j] = lc_spd_val(i, j, N);
}

/* The whole-matrix OpenBLAS calls, with however many threads OpenBLAS was set to. */
static inline void lc_full_gemm(const double *a, const double *b, double *c, size_t N)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)N, (int)N, (int)N, 1.0, a, (int)N,
                b, (int)N, 1.0, c, (int)N);
}
static inline void lc_full_potrf(double *a, size_t N) { lc_potrf(a, (int)N); }

/* max |x - ref| / max |ref| over the full matrix (lower_only: over j <= i). */
static inline double lc_compare(const double *x, const double *ref, size_t N, int lower_only)
{
    double maxdiff = 0.0, maxref = 0.0;
    for (size_t i = 0; i < N; i++) {
        size_t jend = lower_only ? i + 1 : N;
        for (size_t j = 0; j < jend; j++) {
            double d = fabs(x[i * N + j] - ref[i * N + j]), r = fabs(ref[i * N + j]);
            if (!(d <= maxdiff)) maxdiff = isnan(d) ? INFINITY : d; /* NaN counts as infinite */
            if (r > maxref) maxref = r;
        }
    }
    return maxref > 0.0 ? maxdiff / maxref : maxdiff;
}

static inline double lc_tolerance(size_t N) { return 1e-14 * (double)N; }

/* The OpenBLAS reference (all cores) for a result `got` (full row-major; for the
 * Cholesky factor only the lower triangle is compared).  Returns the relative
 * error; sets *ok. */
static inline double lc_check_against_openblas(const char *kernel, const double *got, size_t N, int *ok)
{
    openblas_set_num_threads(openblas_get_num_procs());
    double err;
    if (strcmp(kernel, "gemm") == 0) {
        double *a = lc_alloc(N * N), *b = lc_alloc(N * N), *c = lc_alloc(N * N);
        lc_fill_gemm(a, N, LC_A);
        lc_fill_gemm(b, N, LC_B);
        lc_fill_gemm(c, N, LC_C);
        lc_full_gemm(a, b, c, N);
        err = lc_compare(got, c, N, 0);
        free(a);
        free(b);
        free(c);
    } else {
        double *a = lc_alloc(N * N);
        lc_fill_spd(a, N);
        lc_full_potrf(a, N);
        err = lc_compare(got, a, N, 1);
        free(a);
    }
    *ok = err <= lc_tolerance(N);
    return err;
}

/* Residual checks of the reference itself, O(N^2): with x = (1, -1/2, 1/3, ...),
 * GEMM:     max_i |(c_out x)_i - (a (b x) + c_in x)_i| / max_i sum_j |c_out_ij x_j|;
 * Cholesky: max_i |(L (L^T x))_i - (A x)_i|        / max_i sum_j |A_ij x_j|. */
static inline double lc_residual(const char *kernel, const double *out, size_t N)
{
    double *x = lc_alloc(N), *y = lc_alloc(N);
    for (size_t i = 0; i < N; i++) x[i] = (i % 2 ? -1.0 : 1.0) / (double)(i + 1);
    double num = 0.0, den = 0.0;
    if (strcmp(kernel, "gemm") == 0) {
        /* y = b x; z = a y + c_in x; compare with c_out x. */
        for (size_t i = 0; i < N; i++) {
            double s = 0.0;
            for (size_t j = 0; j < N; j++) s += lc_gemm_val(LC_B, i, j) * x[j];
            y[i] = s;
        }
        for (size_t i = 0; i < N; i++) {
            double s = 0.0, t = 0.0, u = 0.0;
            for (size_t j = 0; j < N; j++) {
                s += lc_gemm_val(LC_A, i, j) * y[j] + lc_gemm_val(LC_C, i, j) * x[j];
                t += out[i * N + j] * x[j];
                u += fabs(out[i * N + j] * x[j]);
            }
            num = fmax(num, fabs(s - t));
            den = fmax(den, u);
        }
    } else {
        /* y = L^T x; z = L y; compare with A x. */
        for (size_t i = 0; i < N; i++) y[i] = 0.0;
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j <= i; j++) y[j] += out[i * N + j] * x[i];
        for (size_t i = 0; i < N; i++) {
            double s = 0.0, t = 0.0, u = 0.0;
            for (size_t j = 0; j <= i; j++) s += out[i * N + j] * y[j];
            for (size_t j = 0; j < N; j++) {
                t += lc_spd_val(i, j, N) * x[j];
                u += fabs(lc_spd_val(i, j, N) * x[j]);
            }
            num = fmax(num, fabs(s - t));
            den = fmax(den, u);
        }
    }
    free(x);
    free(y);
    return den > 0.0 ? num / den : num;
}

/* ------------------------------------------------------------------ */
/* Command line and the result line.                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *kernel; /* "gemm" or "cholesky" (linalg_omp / linalg_openblas take it as argv[1]) */
    size_t N, NB;
    int check;
} lc_args;

static inline size_t lc_parse_size(const char *prog, const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0 || v > 1L << 17) {
        fprintf(stderr, "%s: bad %s '%s' (expected a positive integer)\n", prog, what, s);
        exit(2);
    }
    return (size_t)v;
}

/* [-check] N [NB]  (after the kernel name, where the program takes one). */
static inline void lc_parse(int argc, char **argv, int first, lc_args *a, size_t nb_default)
{
    const char *prog = argv[0];
    int pos = 0;
    a->check = 0;
    a->N = 0;
    a->NB = nb_default;
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "-check") == 0 || strcmp(argv[i], "--check") == 0) {
            a->check = 1;
        } else if (pos == 0) {
            a->N = lc_parse_size(prog, argv[i], "N");
            pos++;
        } else if (pos == 1) {
            a->NB = lc_parse_size(prog, argv[i], "NB");
            pos++;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[i]);
            exit(2);
        }
    }
    if (a->N == 0) {
        fprintf(stderr, "usage: %s%s [-check] N [NB]\n", prog, first > 1 ? " gemm|cholesky" : "");
        exit(2);
    }
    if (a->NB > a->N) a->NB = a->N;
}

static inline int lc_report(const char *kernel, const char *impl, size_t N, size_t NB, int threads,
                            double secs, int checked, int ok, double err)
{
    printf("RESULT kernel=%s impl=%s N=%zu NB=%zu threads=%d seconds=%.6f gflops=%.3f check=%s err=%.2e\n",
           kernel, impl, N, NB, threads, secs, lc_flops(kernel, N) / secs * 1e-9,
           checked ? (ok ? "ok" : "FAILED") : "skipped", checked ? err : 0.0);
    fflush(stdout);
    if (checked && !ok)
        fprintf(stderr, "%s %s N=%zu NB=%zu: result differs from OpenBLAS (relative error %.2e > %.2e)\n",
                kernel, impl, N, NB, err, lc_tolerance(N));
    return checked && !ok ? 1 : 0;
}

#endif
