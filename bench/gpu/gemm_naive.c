/*
 * gemm_naive.c — a tiled GEMM whose tile task is the naive triple loop, as a
 * tamm pragma program: tammcc makes the loop nest a CUDA kernel (device(cuda)),
 * so this measures the kernel tammcc generates, against cuBLAS (make gpu-check
 * prints the ratio to one cublasDgemm's compute rate).
 *   gemm_naive [N] [NB] [iterations]
 * C += A B per iteration; the time per iteration is taken over the iterations
 * after the first (whose copies to the GPU it includes) and printed with the
 * rate, C's largest error against the formula of its exact value, and its sum.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2048, nb = argc > 2 ? atol(argv[2]) : 512;
    int iters = argc > 3 ? atoi(argv[3]) : 3;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    if (n % nb || iters < 2) {
        fprintf(stderr, "gemm_naive: N must be a multiple of NB, and at least 2 iterations\n");
        return 1;
    }
    long nt = n / nb;
    size_t dims[2] = { (size_t)n, (size_t)n }, tile[2] = { (size_t)nb, (size_t)nb };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, dims, tile);
    /* A[r][c] = (r + 1) / n, B[r][c] = (c + 1) / n: C[r][c] = sum_k (r+1)(c+1)/n^2 = (r+1)(c+1)/n per iteration */
    for (long bi = 0; bi < nt; bi++)
        for (long bj = 0; bj < nt; bj++) {
            #pragma tamm task device(cuda) label("init")
            {
                double *a = tamm_block(A, bi, bj), *b = tamm_block(B, bi, bj), *c = tamm_block(C, bi, bj);
                for (long i = 0; i < nb; i++)
                    for (long j = 0; j < nb; j++) {
                        a[i * nb + j] = (double)(bi * nb + i + 1) / (double)n;
                        b[i * nb + j] = (double)(bj * nb + j + 1) / (double)n;
                        c[i * nb + j] = 0;
                    }
            }
        }
    #pragma tamm taskwait
    double t1 = 0;
    for (int it = 0; it < iters; it++) {
        if (it == 1) t1 = now();
        for (long bi = 0; bi < nt; bi++)
            for (long bj = 0; bj < nt; bj++)
                for (long bk = 0; bk < nt; bk++) {
                    #pragma tamm task device(cuda) label("gemm_tile")
                    {
                        const double *a = tamm_block(A, bi, bk), *b = tamm_block(B, bk, bj);
                        double *c = tamm_block(C, bi, bj);
                        for (long i = 0; i < nb; i++)
                            for (long j = 0; j < nb; j++)
                                for (long k = 0; k < nb; k++)
                                    c[i * nb + j] += a[i * nb + k] * b[k * nb + j];
                    }
                }
        #pragma tamm taskwait
    }
    double t = (now() - t1) / (iters - 1);
    double *c = malloc((size_t)n * (size_t)n * sizeof *c), err = 0, sum = 0;
    tamm_tensor_gather(C, c);
    for (long r = 0; r < n; r++)
        for (long q = 0; q < n; q++) {
            double want = (double)iters * (double)(r + 1) * (double)(q + 1) / (double)n;
            double e = fabs(c[r * n + q] - want) / want;
            if (e > err) err = e;
            sum += c[r * n + q];
        }
    free(c);
    printf("gemm_naive N=%ld NB=%ld: %.3f ms per iteration, %.1f GFLOP/s, max rel. error %.2e, sum=%.10e\n", n, nb,
           1e3 * t, 2.0 * (double)n * (double)n * (double)n / t / 1e9, err, sum);
    tamm_tensor_destroy(A); tamm_tensor_destroy(B); tamm_tensor_destroy(C);
    return tamm_finalize() == TAMM_OK && err < 1e-9 ? 0 : 1;
}
