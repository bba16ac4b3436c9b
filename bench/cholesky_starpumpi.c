#define _POSIX_C_SOURCE 200809L
/*
 * cholesky_starpumpi.c — the distributed tiled Cholesky of cholesky_mpi.c with
 * StarPU-MPI (Debian's libstarpumpi-1.3), for bench/run_cholesky_mpi.sh.
 *
 *   mpirun -np P cholesky_starpumpi [N [NB [check]]]     (default N=2048, NB=256)
 *
 * The same problem as cholesky_mpi: the same matrix, lower-triangular tiles
 * of NB x NB doubles stored row-major, the same CPU tile kernels (LAPACKE
 * dpotrf, cblas dtrsm / dsyrk / dgemm from OpenBLAS), and the same 2-D
 * block-cyclic distribution (tamm's automatic grid: pr x pc with pr the
 * largest divisor of P not above sqrt(P); tile (i, j) on rank
 * ((i mod pr) * pc + (j mod pc)) mod P).  Tasks are inserted with
 * starpu_mpi_task_insert in the same order; StarPU-MPI runs each on the
 * owner of the tile it writes and moves the tiles it reads.  The time is
 * taken from a barrier before the first insertion to a barrier after
 * starpu_task_wait_for_all (initialisation of the tiles excluded, as in
 * cholesky_mpi).  Rank 0 prints:
 *   starpumpi ranks P N NB time_s gflops maxerr
 * With "check" the factor is fetched to rank 0 and L*L^T compared with A on
 * a sample; a wrong one exits 1.
 */
#include <starpu.h>
#include <starpu_mpi.h>

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t N = 2048, NB = 256;
static long NT;
static int P, me, pr, pc;

static double a_val(size_t i, size_t j) { size_t d = i > j ? i - j : j - i; return 1.0 / (1.0 + (double)d) + (i == j ? (double)N : 0.0); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }
static int ext(long b) { return (int)((size_t)(b + 1) * NB <= N ? NB : N - (size_t)b * NB); }
static int owner(long i, long j) { return (int)(((i % pr) * pc + (j % pc)) % P); }

/* A StarPU matrix handle of an m x n row-major tile: nx = n (contiguous), ny = m, ld = n. */
#define TILE(b, k) ((double *)STARPU_MATRIX_GET_PTR(b[k]))
#define ROWS(b, k) ((int)STARPU_MATRIX_GET_NY(b[k]))
#define COLS(b, k) ((int)STARPU_MATRIX_GET_NX(b[k]))
#define LD(b, k) ((int)STARPU_MATRIX_GET_LD(b[k]))

static void cpu_potrf(void *b[], void *arg)
{
    (void)arg;
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', ROWS(b, 0), TILE(b, 0), LD(b, 0)) != 0) {
        fprintf(stderr, "potrf failed\n");
        exit(1);
    }
}
static void cpu_trsm(void *b[], void *arg) /* b[0] = A[i][k] (RW), b[1] = A[k][k] (R) */
{
    (void)arg;
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, ROWS(b, 0), COLS(b, 0), 1.0,
                TILE(b, 1), LD(b, 1), TILE(b, 0), LD(b, 0));
}
static void cpu_syrk(void *b[], void *arg) /* b[0] = A[i][i] (RW), b[1] = A[i][k] (R) */
{
    (void)arg;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, ROWS(b, 0), COLS(b, 1), -1.0, TILE(b, 1), LD(b, 1), 1.0,
                TILE(b, 0), LD(b, 0));
}
static void cpu_gemm(void *b[], void *arg) /* b[0] = A[i][j] (RW), b[1] = A[i][k], b[2] = A[j][k] (R) */
{
    (void)arg;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ROWS(b, 0), COLS(b, 0), COLS(b, 1), -1.0, TILE(b, 1), LD(b, 1),
                TILE(b, 2), LD(b, 2), 1.0, TILE(b, 0), LD(b, 0));
}

static struct starpu_codelet cl_potrf = { .cpu_funcs = { cpu_potrf }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "potrf" };
static struct starpu_codelet cl_trsm = { .cpu_funcs = { cpu_trsm }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "trsm" };
static struct starpu_codelet cl_syrk = { .cpu_funcs = { cpu_syrk }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "syrk" };
static struct starpu_codelet cl_gemm = { .cpu_funcs = { cpu_gemm }, .nbuffers = 3, .modes = { STARPU_RW, STARPU_R, STARPU_R }, .name = "gemm" };

int main(int argc, char **argv)
{
    if (argc > 1) N = (size_t)atol(argv[1]);
    if (argc > 2) NB = (size_t)atol(argv[2]);
    int check = argc > 3 && !strcmp(argv[3], "check");
    if (N == 0 || NB == 0) { fprintf(stderr, "usage: %s [N [NB [check]]]\n", argv[0]); return 2; }
    if (starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL) != 0) { fprintf(stderr, "starpu_mpi_init_conf failed\n"); return 1; }
    starpu_mpi_comm_rank(MPI_COMM_WORLD, &me);
    starpu_mpi_comm_size(MPI_COMM_WORLD, &P);
    pr = 1;
    for (int k = 1; k * k <= P; k++)
        if (P % k == 0) pr = k;
    pc = P / pr;
    NT = (long)((N + NB - 1) / NB);

    /* lower-triangular tiles: the owner holds and initialises its tiles */
    starpu_data_handle_t *h = calloc((size_t)(NT * NT), sizeof *h);
    double **mem = calloc((size_t)(NT * NT), sizeof *mem);
    for (long i = 0; i < NT; i++)
        for (long j = 0; j <= i; j++) {
            int m = ext(i), n = ext(j), o = owner(i, j);
            long t = i * NT + j;
            if (o == me) {
                mem[t] = malloc((size_t)m * (size_t)n * sizeof(double));
                for (int x = 0; x < m; x++)
                    for (int y = 0; y < n; y++) mem[t][x * n + y] = a_val((size_t)i * NB + (size_t)x, (size_t)j * NB + (size_t)y);
                starpu_matrix_data_register(&h[t], STARPU_MAIN_RAM, (uintptr_t)mem[t], (uint32_t)n, (uint32_t)n, (uint32_t)m, sizeof(double));
            } else {
                starpu_matrix_data_register(&h[t], -1, (uintptr_t)NULL, (uint32_t)n, (uint32_t)n, (uint32_t)m, sizeof(double));
            }
            starpu_mpi_data_register(h[t], t, o);
        }
    starpu_mpi_barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (long k = 0; k < NT; k++) {
        starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_potrf, STARPU_RW, h[k * NT + k], 0);
        for (long i = k + 1; i < NT; i++)
            starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_trsm, STARPU_RW, h[i * NT + k], STARPU_R, h[k * NT + k], 0);
        for (long i = k + 1; i < NT; i++) {
            starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_syrk, STARPU_RW, h[i * NT + i], STARPU_R, h[i * NT + k], 0);
            for (long j = k + 1; j < i; j++)
                starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_gemm, STARPU_RW, h[i * NT + j], STARPU_R, h[i * NT + k],
                                       STARPU_R, h[j * NT + k], 0);
        }
    }
    starpu_task_wait_for_all();
    starpu_mpi_barrier(MPI_COMM_WORLD);
    double t = now() - t0;

    double maxerr = 0;
    if (check) {
        /* every tile to rank 0, then compare a sample of L*L^T with A there */
        for (long i = 0; i < NT; i++)
            for (long j = 0; j <= i; j++) starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h[i * NT + j], 0);
        if (me == 0) {
            double *L = calloc(N * N, sizeof *L);
            for (long i = 0; i < NT; i++)
                for (long j = 0; j <= i; j++) {
                    starpu_data_handle_t d = h[i * NT + j];
                    starpu_data_acquire(d, STARPU_R);
                    const double *p = (const double *)starpu_matrix_get_local_ptr(d);
                    int m = ext(i), n = ext(j);
                    for (int x = 0; x < m; x++)
                        for (int y = 0; y < n; y++) L[((size_t)i * NB + (size_t)x) * N + (size_t)j * NB + (size_t)y] = p[x * n + y];
                    starpu_data_release(d);
                }
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
    }
    if (me == 0)
        printf("starpumpi ranks %d N %zu NB %zu time_s %.4f gflops %.2f maxerr %.1e\n", P, N, NB, t,
               (double)N * N * N / 3.0 / t * 1e-9, maxerr);
    for (long i = 0; i < NT; i++)
        for (long j = 0; j <= i; j++) starpu_data_unregister(h[i * NT + j]);
    for (long t2 = 0; t2 < NT * NT; t2++) free(mem[t2]);
    free(mem);
    free(h);
    starpu_mpi_shutdown();
    return maxerr < 1e-10 ? 0 : 1;
}
