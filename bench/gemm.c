/*
 * gemm.c — tiled DGEMM benchmark in pragma form, built by tammcc.
 *
 *   gemm [-check] N [NB]        C += A * B, N x N doubles, NB x NB tiles (default 256)
 *
 * A, B and C are tamm tensors of NB x NB row-major tiles, filled by tasks
 * (untimed).  The timed part submits the NT^3 tile products
 *     C[i][j] += A[i][k] * B[k][j]      (one OpenBLAS dgemm call per task)
 * and waits for them.  tammcc infers read on A[i][k] and B[k][j] (`const`
 * parameters of lc_gemm_nn) and accum on C[i][j] (C of cblas_dgemm with beta
 * 1); the task declares readwrite(C[i][j]) instead, so that the NT products
 * into one C tile form a chain, as in the peers, and the NT^2 chains run in
 * parallel.  OpenBLAS runs single-threaded inside tasks:
 * the parallelism is tamm's (TAMM_NUM_WORKERS, default: one per core).
 *
 * Prints one RESULT line (linalg_common.h).  With -check, after the timed
 * run and tamm_finalize, C is compared with the whole-matrix OpenBLAS
 * result (all cores); exit status 1 on a mismatch.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, posix_memalign under -std=c11 */
#define _DEFAULT_SOURCE /* madvise (linalg_common.h, LINALG_HUGEPAGES) */
#include <tamm.h>

#include "linalg_common.h"

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) {
        fprintf(stderr, "gemm: tamm_init failed\n");
        return 1;
    }
    lc_args a;
    lc_parse(argc, argv, 1, &a, 256);
    size_t N = a.N, NB = a.NB;
    openblas_set_num_threads(1); /* one core per tile kernel: the tasks are the parallelism */

    size_t dims[2] = {N, N}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, dims, tile);
    if (!A || !B || !C) {
        fprintf(stderr, "gemm: tamm_tensor_create failed\n");
        return 1;
    }
    long NT = tamm_tensor_nblocks(C, 0);

    for (long i = 0; i < NT; i++)
        for (long j = 0; j < NT; j++) {
            size_t m = tamm_block_extent(A, 0, i), n = tamm_block_extent(A, 1, j);
            #pragma tamm task label("init_A")
            lc_init_gemm_tile(tamm_block(A, i, j), m, n, (size_t)i * NB, (size_t)j * NB, LC_A);
            #pragma tamm task label("init_B")
            lc_init_gemm_tile(tamm_block(B, i, j), m, n, (size_t)i * NB, (size_t)j * NB, LC_B);
            #pragma tamm task label("init_C")
            lc_init_gemm_tile(tamm_block(C, i, j), m, n, (size_t)i * NB, (size_t)j * NB, LC_C);
        }
    #pragma tamm taskwait

    double t0 = lc_now();
    for (long i = 0; i < NT; i++)
        for (long j = 0; j < NT; j++) {
            int m = (int)tamm_block_extent(C, 0, i), n = (int)tamm_block_extent(C, 1, j);
            for (long k = 0; k < NT; k++) {
                int kk = (int)tamm_block_extent(A, 1, k);
                #pragma tamm task label("gemm") readwrite(C[i][j]) /* the peers' chain, not inferred accum */
                lc_gemm_nn(tamm_block(A, i, k), tamm_block(B, k, j), tamm_block(C, i, j), m, n, kk);
            }
        }
    #pragma tamm taskwait
    double secs = lc_now() - t0;
    int workers = tamm_num_workers();

    double *got = NULL;
    if (a.check) {
        got = lc_alloc(N * N);
        for (long bi = 0; bi < NT; bi++)
            for (long bj = 0; bj < NT; bj++) {
                const double *t = tamm_block(C, bi, bj);
                size_t m = tamm_block_extent(C, 0, bi), n = tamm_block_extent(C, 1, bj);
                for (size_t i = 0; i < m; i++)
                    memcpy(&got[((size_t)bi * NB + i) * N + (size_t)bj * NB], &t[i * n], n * sizeof(double));
            }
    }
    tamm_finalize(); /* the workers stop before the reference runs on every core */

    int ok = 1;
    double err = 0.0;
    if (a.check) {
        err = lc_check_against_openblas("gemm", got, N, &ok);
        free(got);
    }
    return lc_report("gemm", "tamm", N, NB, workers, secs, a.check, ok, err);
}
