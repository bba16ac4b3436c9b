/*
 * blas_gemm.c — a tiled GEMM whose tasks call cblas_dgemm on blocks: C = A B,
 * N x N doubles in NB x NB row-major tiles (edge tiles smaller), A and B filled at
 * the top level.  For each
 * tile of C the first product is a dgemm with beta 0 (tammcc infers write: it
 * stores every element) and the others have beta 1 (accum).  With a GPU the
 * tasks run cublasDgemm on the task's stream, without code of the program's
 * own for it (docs/language.md "Variants").  Prints whether C equals a plain triple loop within
 * rounding; the tammcc build must print what the plain C build prints.
 *
 *   blas_gemm [N [NB]]     (default N = 200, NB = 48)
 */
#include <tamm.h>

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double a_val(size_t i, size_t j) { return (double)((i * 7 + j * 3) % 11) / 11.0 - 0.5; }
static double b_val(size_t i, size_t j) { return (double)((i * 5 + j * 13) % 17) / 17.0 - 0.25; }

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    openblas_set_num_threads(1);
    size_t N = argc > 1 ? (size_t)atol(argv[1]) : 200, NB = argc > 2 ? (size_t)atol(argv[2]) : 48;
    size_t dims[2] = {N, N}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, dims, tile);
    long NT = tamm_tensor_nblocks(C, 0);
    for (long i = 0; i < NT; i++) /* A and B filled at the top level: every task is a dgemm */
        for (long j = 0; j < NT; j++) {
            size_t m = tamm_block_extent(A, 0, i), n = tamm_block_extent(A, 1, j);
            double *a = tamm_block(A, i, j), *b = tamm_block(B, i, j);
            for (size_t r = 0; r < m; r++)
                for (size_t c = 0; c < n; c++) {
                    a[r * n + c] = a_val((size_t)i * NB + r, (size_t)j * NB + c);
                    b[r * n + c] = b_val((size_t)i * NB + r, (size_t)j * NB + c);
                }
        }
    for (long i = 0; i < NT; i++)
        for (long j = 0; j < NT; j++) {
            int m = (int)tamm_block_extent(C, 0, i), n = (int)tamm_block_extent(C, 1, j);
            int k0 = (int)tamm_block_extent(A, 1, 0);
            #pragma tamm task label("gemm0")
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k0, 1.0, tamm_block(A, i, 0), k0,
                        tamm_block(B, 0, j), n, 0.0, tamm_block(C, i, j), n);
            for (long k = 1; k < NT; k++) {
                int kk = (int)tamm_block_extent(A, 1, k);
                #pragma tamm task label("gemm")
                cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, kk, 1.0, tamm_block(A, i, k), kk,
                            tamm_block(B, k, j), n, 1.0, tamm_block(C, i, j), n);
            }
        }
    #pragma tamm taskwait
    double maxerr = 0;
    for (long bi = 0; bi < NT; bi++)
        for (long bj = 0; bj < NT; bj++) {
            const double *c = tamm_block(C, bi, bj);
            size_t m = tamm_block_extent(C, 0, bi), n = tamm_block_extent(C, 1, bj);
            for (size_t r = 0; r < m; r++)
                for (size_t q = 0; q < n; q++) {
                    size_t i = (size_t)bi * NB + r, j = (size_t)bj * NB + q;
                    double s = 0;
                    for (size_t k = 0; k < N; k++) s += a_val(i, k) * b_val(k, j);
                    double e = fabs(c[r * n + q] - s);
                    if (!(e <= maxerr)) maxerr = isnan(e) ? INFINITY : e;
                }
        }
    int ok = maxerr <= 1e-12 * (double)N;
    printf("blas_gemm: N=%zu NB=%zu %s\n", N, NB, ok ? "OK" : "FAILED");
    if (!ok) fprintf(stderr, "blas_gemm: max error %g\n", maxerr);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(C);
    return tamm_finalize() == TAMM_OK && ok ? 0 : 1;
}
