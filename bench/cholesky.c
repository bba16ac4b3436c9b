/*
 * cholesky.c — tiled Cholesky factorisation benchmark in pragma form, built by tammcc.
 *
 *   cholesky [-check] N [NB]    A = L L^T, N x N doubles, NB x NB tiles (default 256)
 *
 * A is a tamm tensor of NB x NB row-major tiles; only the lower tiles are
 * filled (by tasks, untimed) and factorised in place.  The timed part submits
 * the right-looking tiled algorithm (potrf, trsm, syrk, gemm: one OpenBLAS /
 * LAPACK call per task, single-threaded) and waits for it.  tammcc infers read
 * for the `const` tiles, readwrite for the tiles potrf and trsm change, and accum
 * for the C of syrk and gemm (beta 1); those two declare readwrite instead, so
 * that the DAG is the peers' (a chain of updates per tile).
 * potrf and the trsm of the next panel get higher priorities (used by
 * TAMM_SCHED=prio; the default work-stealing scheduler ignores them).
 *
 * Prints one RESULT line (linalg_common.h).  With -check, after the timed
 * run and tamm_finalize, L is compared with the whole-matrix OpenBLAS dpotrf
 * (all cores); exit status 1 on a mismatch.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, posix_memalign under -std=c11 */
#define _DEFAULT_SOURCE /* madvise (linalg_common.h, LINALG_HUGEPAGES) */
#include <tamm.h>

#include "linalg_common.h"

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) {
        fprintf(stderr, "cholesky: tamm_init failed\n");
        return 1;
    }
    lc_args a;
    lc_parse(argc, argv, 1, &a, 256);
    size_t N = a.N, NB = a.NB;
    openblas_set_num_threads(1); /* one core per tile kernel: the tasks are the parallelism */

    size_t dims[2] = {N, N}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    if (!A) {
        fprintf(stderr, "cholesky: tamm_tensor_create failed\n");
        return 1;
    }
    long NT = tamm_tensor_nblocks(A, 0);

    for (long i = 0; i < NT; i++)
        for (long j = 0; j <= i; j++) {
            size_t m = tamm_block_extent(A, 0, i), n = tamm_block_extent(A, 1, j);
            #pragma tamm task label("init")
            lc_init_spd_tile(tamm_block(A, i, j), m, n, (size_t)i * NB, (size_t)j * NB, N);
        }
    #pragma tamm taskwait

    double t0 = lc_now();
    for (long k = 0; k < NT; k++) {
        int nk = (int)tamm_block_extent(A, 0, k);
        #pragma tamm task label("potrf") priority(3)
        lc_potrf(tamm_block(A, k, k), nk);
        for (long i = k + 1; i < NT; i++) {
            int ni = (int)tamm_block_extent(A, 0, i);
            #pragma tamm task label("trsm") priority(i == k + 1 ? 2 : 1)
            lc_trsm(tamm_block(A, k, k), tamm_block(A, i, k), ni, nk);
        }
        for (long i = k + 1; i < NT; i++) {
            int ni = (int)tamm_block_extent(A, 0, i);
            #pragma tamm task label("syrk") priority(i == k + 1 ? 2 : 0) readwrite(A[i][i])
            lc_syrk(tamm_block(A, i, k), tamm_block(A, i, i), ni, nk);
            for (long j = k + 1; j < i; j++) {
                int nj = (int)tamm_block_extent(A, 0, j);
                #pragma tamm task label("gemm") priority(j == k + 1 ? 1 : 0) readwrite(A[i][j])
                lc_gemm_nt(tamm_block(A, i, k), tamm_block(A, j, k), tamm_block(A, i, j), ni, nj, nk);
            }
        }
    }
    #pragma tamm taskwait
    double secs = lc_now() - t0;
    int workers = tamm_num_workers();

    double *got = NULL;
    if (a.check) {
        got = lc_alloc(N * N);
        memset(got, 0, N * N * sizeof(double));
        for (long bi = 0; bi < NT; bi++)
            for (long bj = 0; bj <= bi; bj++) {
                const double *t = tamm_block(A, bi, bj);
                size_t m = tamm_block_extent(A, 0, bi), n = tamm_block_extent(A, 1, bj);
                for (size_t i = 0; i < m; i++)
                    memcpy(&got[((size_t)bi * NB + i) * N + (size_t)bj * NB], &t[i * n], n * sizeof(double));
            }
    }
    tamm_finalize(); /* the workers stop before the reference runs on every core */

    int ok = 1;
    double err = 0.0;
    if (a.check) {
        err = lc_check_against_openblas("cholesky", got, N, &ok);
        free(got);
    }
    return lc_report("cholesky", "tamm", N, NB, workers, secs, a.check, ok, err);
}
