/*
 * b6.c — GrCUDA benchmark 6, a two-branch machine-learning ensemble, as a
 * tamm pragma program: per block of rows, two linear models score the rows
 * (r1 = X w1, r2 = X w2: loop nests accumulating with atomicAdd), each branch
 * is normalised, and the ensemble takes the larger score (argmax of two).  As
 * in GrCUDA's harness, the host resets the rows before each iteration
 * (untimed), so that each iteration copies them to the GPU; the time per
 * iteration is the mean over the iterations after a warm-up one.
 *   b6 [rows] [features] [blocks] [iterations]
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
    long rows = argc > 1 ? atol(argv[1]) : 1L << 18;
    long nf = argc > 2 ? atol(argv[2]) : 200;
    long nb = argc > 3 ? atol(argv[3]) : 16;
    int iters = argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 10;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    long rb = (rows + nb - 1) / nb;
    size_t xd[2] = { (size_t)rows, (size_t)nf }, xt[2] = { (size_t)rb, (size_t)nf };
    size_t wd[1] = { (size_t)nf }, rd[1] = { (size_t)rows }, rt[1] = { (size_t)rb };
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F32, 2, xd, xt);
    tamm_tensor *W1 = tamm_tensor_create("W1", TAMM_F32, 1, wd, wd), *W2 = tamm_tensor_create("W2", TAMM_F32, 1, wd, wd);
    tamm_tensor *R1 = tamm_tensor_create("R1", TAMM_F32, 1, rd, rt), *R2 = tamm_tensor_create("R2", TAMM_F32, 1, rd, rt);
    tamm_tensor *O = tamm_tensor_create("O", TAMM_I32, 1, rd, rt);
    float *w1 = tamm_block(W1, 0), *w2 = tamm_block(W2, 0);
    for (long j = 0; j < nf; j++) { w1[j] = (float)((j % 7) - 3) / 8; w2[j] = (float)((j % 5) - 2) / 4; }
    double t = 0;
    for (int it = 0; it <= iters; it++) {
        /* GrCUDA's reset, untimed: the host writes the rows, so each iteration copies them in */
        for (long b = 0; b < nb; b++) {
            long m = (long)tamm_block_extent(R1, 0, b), off = b * rb;
            float *x = tamm_block(X, b, 0);
            for (long i = 0; i < m; i++)
                for (long j = 0; j < nf; j++) x[i * nf + j] = (float)((off + i + 3 * j) % 17) / 16;
        }
        double t0 = now();
        for (long b = 0; b < nb; b++) {
            long m = (long)tamm_block_extent(R1, 0, b);
            #pragma tamm task device(cuda) label("zero")
            {
                float *r1 = tamm_block(R1, b), *r2 = tamm_block(R2, b);
                for (long i = 0; i < m; i++) { r1[i] = 0; r2[i] = 0; }
            }
            #pragma tamm task device(cuda) label("branch1")
            {
                const float *x = tamm_block(X, b, 0), *w = tamm_block(W1, 0);
                float *r = tamm_block(R1, b);
                for (long i = 0; i < m; i++)
                    for (long j = 0; j < nf; j++) r[i] += x[i * nf + j] * w[j];
            }
            #pragma tamm task device(cuda) label("branch2")
            {
                const float *x = tamm_block(X, b, 0), *w = tamm_block(W2, 0);
                float *r = tamm_block(R2, b);
                for (long i = 0; i < m; i++)
                    for (long j = 0; j < nf; j++) r[i] += x[i * nf + j] * w[j];
            }
            #pragma tamm task device(cuda) label("normalise")
            {
                float *r = tamm_block(R1, b);
                for (long i = 0; i < m; i++) r[i] = r[i] / (1.0f + (r[i] < 0 ? -r[i] : r[i]));
            }
            #pragma tamm task device(cuda) label("normalise")
            {
                float *r = tamm_block(R2, b);
                for (long i = 0; i < m; i++) r[i] = r[i] / (1.0f + (r[i] < 0 ? -r[i] : r[i]));
            }
            #pragma tamm task device(cuda) label("argmax")
            {
                const float *r1 = tamm_block(R1, b), *r2 = tamm_block(R2, b);
                int *o = tamm_block(O, b);
                for (long i = 0; i < m; i++) o[i] = r1[i] >= r2[i] ? 0 : 1;
            }
        }
        #pragma tamm taskwait
        if (it > 0) t += now() - t0; /* iteration 0 warms up (kernel loading, device memory) */
    }
    t /= iters;
    long ones = 0;
    for (long b = 0; b < nb; b++) {
        const int *o = tamm_block(O, b);
        for (long i = 0; i < (long)tamm_block_extent(O, 0, b); i++) ones += o[i];
    }
    printf("b6 rows=%ld features=%ld blocks=%ld: %.3f ms per iteration, class 1: %ld\n", rows, nf, nb, 1e3 * t, ones);
    tamm_tensor_destroy(X); tamm_tensor_destroy(W1); tamm_tensor_destroy(W2);
    tamm_tensor_destroy(R1); tamm_tensor_destroy(R2); tamm_tensor_destroy(O);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
