/*
 * linalg_omp.c — the tiled GEMM and Cholesky benchmarks with OpenMP tasks and
 * `depend` clauses: the same tiles, tile kernels and task graphs as bench/gemm.c
 * and bench/cholesky.c (tamm), for comparison.
 *
 *   linalg_omp gemm|cholesky [-check] N [NB]      (NB default 256)
 *
 * Built twice: with GCC -fopenmp (libgomp, impl=gomp) and with clang-14
 * -fopenmp=libomp (LLVM libomp, impl=libomp).  Threads: OMP_NUM_THREADS
 * (default: one per core).  One thread creates every task (parallel + single)
 * and then helps in taskwait.  Tiles are separate NB x NB row-major arrays,
 * first touched by init tasks (untimed).  Dependences: depend(in:) on the
 * first element of each tile read, depend(inout:) on the tile updated.
 * Priorities as in cholesky.c (honoured only with OMP_MAX_TASK_PRIORITY > 0).
 * OpenBLAS runs single-threaded inside tasks.
 *
 * Prints one RESULT line (linalg_common.h); -check compares with the
 * whole-matrix OpenBLAS result after the timed run.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise (linalg_common.h, LINALG_HUGEPAGES) */
#include <omp.h>

#include "linalg_common.h"

#ifdef __clang__
#define IMPL "libomp"
#else
#define IMPL "gomp"
#endif

static size_t N, NB, NT;
static double **tiles; /* NT x NT tile pointers, row-major tile grid */

#define TILE(i, j) tiles[(size_t)(i) * NT + (size_t)(j)]
static size_t ext(size_t b) { return b + 1 < NT ? NB : N - b * NB; }

static void alloc_tiles(int lower_only)
{
    tiles = calloc(NT * NT, sizeof *tiles);
    if (!tiles) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < NT; i++)
        for (size_t j = 0; j < NT; j++)
            if (!lower_only || j <= i) TILE(i, j) = lc_alloc(ext(i) * ext(j));
}

static double *gather(int lower_only)
{
    double *got = lc_alloc(N * N);
    memset(got, 0, N * N * sizeof(double));
    for (size_t bi = 0; bi < NT; bi++)
        for (size_t bj = 0; bj < NT; bj++) {
            if (lower_only && bj > bi) continue;
            size_t m = ext(bi), n = ext(bj);
            for (size_t i = 0; i < m; i++)
                memcpy(&got[(bi * NB + i) * N + bj * NB], &TILE(bi, bj)[i * n], n * sizeof(double));
        }
    return got;
}

static double run_gemm(void)
{
    double **A = malloc(NT * NT * sizeof *A), **B = malloc(NT * NT * sizeof *B);
    if (!A || !B) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < NT; i++)
        for (size_t j = 0; j < NT; j++) {
            A[i * NT + j] = lc_alloc(ext(i) * ext(j));
            B[i * NT + j] = lc_alloc(ext(i) * ext(j));
        }
    alloc_tiles(0); /* C */
    double secs = 0.0;
    #pragma omp parallel
    #pragma omp single
    {
        for (size_t i = 0; i < NT; i++)
            for (size_t j = 0; j < NT; j++) {
                double *a = A[i * NT + j], *b = B[i * NT + j], *c = TILE(i, j);
                size_t m = ext(i), n = ext(j);
                #pragma omp task firstprivate(a, b, c, m, n, i, j)
                {
                    lc_init_gemm_tile(a, m, n, i * NB, j * NB, LC_A);
                    lc_init_gemm_tile(b, m, n, i * NB, j * NB, LC_B);
                    lc_init_gemm_tile(c, m, n, i * NB, j * NB, LC_C);
                }
            }
        #pragma omp taskwait

        double t0 = lc_now();
        for (size_t i = 0; i < NT; i++)
            for (size_t j = 0; j < NT; j++) {
                double *c = TILE(i, j);
                int m = (int)ext(i), n = (int)ext(j);
                for (size_t k = 0; k < NT; k++) {
                    const double *a = A[i * NT + k], *b = B[k * NT + j];
                    int kk = (int)ext(k);
                    #pragma omp task firstprivate(a, b, c, m, n, kk) depend(in: a[0], b[0]) depend(inout: c[0])
                    lc_gemm_nn(a, b, c, m, n, kk);
                }
            }
        #pragma omp taskwait
        secs = lc_now() - t0;
    }
    for (size_t t = 0; t < NT * NT; t++) {
        free(A[t]);
        free(B[t]);
    }
    free(A);
    free(B);
    return secs;
}

static double run_cholesky(void)
{
    alloc_tiles(1);
    double secs = 0.0;
    #pragma omp parallel
    #pragma omp single
    {
        for (size_t i = 0; i < NT; i++)
            for (size_t j = 0; j <= i; j++) {
                double *t = TILE(i, j);
                size_t m = ext(i), n = ext(j);
                #pragma omp task firstprivate(t, m, n, i, j)
                lc_init_spd_tile(t, m, n, i * NB, j * NB, N);
            }
        #pragma omp taskwait

        double t0 = lc_now();
        for (size_t k = 0; k < NT; k++) {
            double *akk = TILE(k, k);
            int nk = (int)ext(k);
            #pragma omp task firstprivate(akk, nk) depend(inout: akk[0]) priority(3)
            lc_potrf(akk, nk);
            for (size_t i = k + 1; i < NT; i++) {
                double *aik = TILE(i, k);
                int ni = (int)ext(i);
                #pragma omp task firstprivate(akk, aik, ni, nk) depend(in: akk[0]) depend(inout: aik[0]) \
                    priority(i == k + 1 ? 2 : 1)
                lc_trsm(akk, aik, ni, nk);
            }
            for (size_t i = k + 1; i < NT; i++) {
                double *aik = TILE(i, k), *aii = TILE(i, i);
                int ni = (int)ext(i);
                #pragma omp task firstprivate(aik, aii, ni, nk) depend(in: aik[0]) depend(inout: aii[0]) \
                    priority(i == k + 1 ? 2 : 0)
                lc_syrk(aik, aii, ni, nk);
                for (size_t j = k + 1; j < i; j++) {
                    double *ajk = TILE(j, k), *aij = TILE(i, j);
                    int nj = (int)ext(j);
                    #pragma omp task firstprivate(aik, ajk, aij, ni, nj, nk) depend(in: aik[0], ajk[0]) \
                        depend(inout: aij[0]) priority(j == k + 1 ? 1 : 0)
                    lc_gemm_nt(aik, ajk, aij, ni, nj, nk);
                }
            }
        }
        #pragma omp taskwait
        secs = lc_now() - t0;
    }
    return secs;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "gemm") != 0 && strcmp(argv[1], "cholesky") != 0)) {
        fprintf(stderr, "usage: %s gemm|cholesky [-check] N [NB]\n", argv[0]);
        return 2;
    }
    const char *kernel = argv[1];
    lc_args a;
    lc_parse(argc, argv, 2, &a, 256);
    N = a.N;
    NB = a.NB;
    NT = (N + NB - 1) / NB;
    openblas_set_num_threads(1); /* one core per tile kernel: the tasks are the parallelism */
    int lower = strcmp(kernel, "cholesky") == 0;
    double secs = lower ? run_cholesky() : run_gemm();
    int threads = omp_get_max_threads();

    int ok = 1;
    double err = 0.0;
    if (a.check) {
        double *got = gather(lower);
        err = lc_check_against_openblas(kernel, got, N, &ok);
        free(got);
    }
    for (size_t t = 0; t < NT * NT; t++) free(tiles[t]);
    free(tiles);
    return lc_report(kernel, IMPL, N, NB, threads, secs, a.check, ok, err);
}
