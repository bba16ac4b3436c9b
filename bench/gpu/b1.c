/*
 * b1.c — GrCUDA benchmark 1, "two squares and a reduction", as a tamm pragma
 * program: x2 = x*x and y2 = y*y (independent), then z = sum(x2 - y2).
 * Every task body is a loop nest that tammcc turns into a CUDA kernel
 * (device(cuda)).  As in GrCUDA's harness, the host resets the inputs before
 * each iteration (untimed), so that each iteration copies them to the GPU; the
 * time per iteration is the mean over the iterations after a warm-up one.
 *   b1 [N] [blocks] [iterations]    prints the time per iteration and z
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <tamm.h>

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
    long n = argc > 1 ? atol(argv[1]) : 1L << 24;
    long nb = argc > 2 ? atol(argv[2]) : 16;
    int iters = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 10;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    long bs = (n + nb - 1) / nb;
    size_t dims[1] = { (size_t)n }, tile[1] = { (size_t)bs }, one[1] = { 1 };
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F32, 1, dims, tile);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F32, 1, dims, tile);
    tamm_tensor *X2 = tamm_tensor_create("X2", TAMM_F32, 1, dims, tile);
    tamm_tensor *Y2 = tamm_tensor_create("Y2", TAMM_F32, 1, dims, tile);
    tamm_tensor *Z = tamm_tensor_create("Z", TAMM_F32, 1, one, one);
    float z = 0;
    double t = 0;
    for (int it = 0; it <= iters; it++) {
        /* GrCUDA's reset, untimed: the host writes the inputs, so each iteration copies them in */
        for (long b = 0; b < nb; b++) {
            long m = (long)tamm_block_extent(X, 0, b), off = b * bs;
            float *x = tamm_block(X, b), *y = tamm_block(Y, b);
            for (long i = 0; i < m; i++) {
                x[i] = 1.0f / (float)(off + i + 1);
                y[i] = 2.0f / (float)(off + i + 1);
            }
        }
        float *z0 = tamm_block(Z, 0);
        z0[0] = 0;
        double t0 = now();
        for (long b = 0; b < nb; b++) {
            long m = (long)tamm_block_extent(X, 0, b);
            #pragma tamm task device(cuda) label("square")
            {
                const float *x = tamm_block(X, b);
                float *x2 = tamm_block(X2, b);
                for (long i = 0; i < m; i++) x2[i] = x[i] * x[i];
            }
            #pragma tamm task device(cuda) label("square")
            {
                const float *y = tamm_block(Y, b);
                float *y2 = tamm_block(Y2, b);
                for (long i = 0; i < m; i++) y2[i] = y[i] * y[i];
            }
            #pragma tamm task device(cuda) label("reduce")
            {
                const float *x2 = tamm_block(X2, b), *y2 = tamm_block(Y2, b);
                float *zz = tamm_block(Z, 0);
                for (long i = 0; i < m; i++) zz[0] += x2[i] - y2[i];
            }
        }
        z = ((float *)tamm_block(Z, 0))[0]; /* waits for this iteration */
        if (it > 0) t += now() - t0; /* iteration 0 warms up (kernel loading, device memory) */
    }
    t /= iters;
    printf("b1 n=%ld blocks=%ld: %.3f ms per iteration, z=%.6e\n", n, nb, 1e3 * t, (double)z);
    tamm_tensor_destroy(X); tamm_tensor_destroy(Y); tamm_tensor_destroy(X2); tamm_tensor_destroy(Y2); tamm_tensor_destroy(Z);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
