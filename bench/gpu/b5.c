/*
 * b5.c — GrCUDA benchmark 5, independent Black-Scholes, as a tamm pragma
 * program: K option books priced independently (call prices from spot
 * prices), each book in blocks; every block is a kernel (device(cuda)).  As
 * in GrCUDA's harness, the host resets the prices before each iteration
 * (untimed), so that each iteration copies them to the GPU; the time per
 * iteration is the mean over the iterations after a warm-up one.
 *   b5 [N] [K books] [blocks per book] [iterations]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define R 0.08
#define V 0.3
#define TT 1.0
#define KS 60.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1L << 22;
    int kb = argc > 2 ? atoi(argv[2]) : 10;
    long nb = argc > 3 ? atol(argv[3]) : 4;
    int iters = argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 10;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    long bs = (n + nb - 1) / nb;
    size_t dims[1] = { (size_t)n }, tile[1] = { (size_t)bs };
    tamm_tensor **S = malloc(sizeof *S * (size_t)kb), **C = malloc(sizeof *C * (size_t)kb);
    for (int k = 0; k < kb; k++) {
        S[k] = tamm_tensor_create("S", TAMM_F64, 1, dims, tile);
        C[k] = tamm_tensor_create("C", TAMM_F64, 1, dims, tile);
    }
    double t = 0;
    for (int it = 0; it <= iters; it++) {
        /* GrCUDA's reset, untimed: the host writes the prices, so each iteration copies them in */
        for (int k = 0; k < kb; k++)
            for (long b = 0; b < nb; b++) {
                long m = (long)tamm_block_extent(S[k], 0, b), off = b * bs;
                double *s = tamm_block(S[k], b);
                for (long i = 0; i < m; i++) s[i] = 30.0 + (double)((off + i + 7 * k) % 61);
            }
        double t0 = now();
        for (int k = 0; k < kb; k++)
            for (long b = 0; b < nb; b++) {
                long m = (long)tamm_block_extent(S[k], 0, b);
                #pragma tamm task device(cuda) label("black_scholes")
                {
                    const double *s = tamm_block(S[k], b);
                    double *c = tamm_block(C[k], b);
                    for (long i = 0; i < m; i++)
                        c[i] = s[i] * 0.5 * erfc(-((log(s[i] / KS) + (R + 0.5 * V * V) * TT) / (V * sqrt(TT))) / sqrt(2.0)) -
                               KS * exp(-R * TT) * 0.5 *
                                   erfc(-((log(s[i] / KS) + (R - 0.5 * V * V) * TT) / (V * sqrt(TT))) / sqrt(2.0));
                }
            }
        #pragma tamm taskwait
        if (it > 0) t += now() - t0; /* iteration 0 warms up (kernel loading, device memory) */
    }
    t /= iters;
    double sum = 0;
    for (int k = 0; k < kb; k++) {
        const double *c = tamm_block(C[k], 0);
        sum += c[0] + c[tamm_block_extent(C[k], 0, 0) - 1];
    }
    printf("b5 n=%ld books=%d blocks=%ld: %.3f ms per iteration, check=%.6f\n", n, kb, nb, 1e3 * t, sum);
    for (int k = 0; k < kb; k++) { tamm_tensor_destroy(S[k]); tamm_tensor_destroy(C[k]); }
    free(S); free(C);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
