/*
 * b8.c — GrCUDA benchmark 8, an image-processing pipeline, as a tamm pragma
 * program over image tiles: a small and a large blur of the image, an edge
 * mask from the small blur, an unsharp-masked image from the large blur, and
 * their combination; five kernels per tile with two independent branches
 * (stencils are clamped at tile edges, so tiles are independent).  As in
 * GrCUDA's harness, the host resets the image before each iteration (untimed),
 * so that each iteration copies it to the GPU; the time per iteration is the
 * mean over the iterations after a warm-up one.
 *   b8 [size] [tile] [iterations]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <tamm.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CL(v, n) ((v) < 0 ? 0 : (v) >= (n) ? (n) - 1 : (v))

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long sz = argc > 1 ? atol(argv[1]) : 4096;
    long tl = argc > 2 ? atol(argv[2]) : 1024;
    int iters = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 10;
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t d[2] = { (size_t)sz, (size_t)sz }, t[2] = { (size_t)tl, (size_t)tl };
    tamm_tensor *I = tamm_tensor_create("I", TAMM_F32, 2, d, t), *S = tamm_tensor_create("S", TAMM_F32, 2, d, t);
    tamm_tensor *L = tamm_tensor_create("L", TAMM_F32, 2, d, t), *M = tamm_tensor_create("M", TAMM_F32, 2, d, t);
    tamm_tensor *U = tamm_tensor_create("U", TAMM_F32, 2, d, t), *O = tamm_tensor_create("O", TAMM_F32, 2, d, t);
    long nt = tamm_tensor_nblocks(I, 0);
    double tt = 0;
    for (int it = 0; it <= iters; it++) {
        /* GrCUDA's reset, untimed: the host writes the image, so each iteration copies it in */
        for (long bi = 0; bi < nt; bi++)
            for (long bj = 0; bj < nt; bj++) {
                long h = (long)tamm_block_extent(I, 0, bi), w = (long)tamm_block_extent(I, 1, bj);
                float *img = tamm_block(I, bi, bj);
                for (long i = 0; i < h; i++)
                    for (long j = 0; j < w; j++) img[i * w + j] = (float)(((bi * 131 + i) * (bj * 71 + j)) % 255) / 255.0f;
            }
        double t0 = now();
        for (long bi = 0; bi < nt; bi++)
            for (long bj = 0; bj < nt; bj++) {
                long h = (long)tamm_block_extent(I, 0, bi), w = (long)tamm_block_extent(I, 1, bj);
                #pragma tamm task device(cuda) label("blur_small")
                {
                    const float *img = tamm_block(I, bi, bj);
                    float *s = tamm_block(S, bi, bj);
                    for (long i = 0; i < h; i++)
                        for (long j = 0; j < w; j++)
                            s[i * w + j] = (img[CL(i - 1, h) * w + j] + img[CL(i + 1, h) * w + j] + img[i * w + CL(j - 1, w)] +
                                            img[i * w + CL(j + 1, w)] + 4 * img[i * w + j]) / 8;
                }
                #pragma tamm task device(cuda) label("blur_large")
                {
                    const float *img = tamm_block(I, bi, bj);
                    float *l = tamm_block(L, bi, bj);
                    for (long i = 0; i < h; i++)
                        for (long j = 0; j < w; j++)
                            l[i * w + j] = (img[CL(i - 3, h) * w + j] + img[CL(i - 2, h) * w + j] + img[CL(i - 1, h) * w + j] +
                                            img[CL(i + 1, h) * w + j] + img[CL(i + 2, h) * w + j] + img[CL(i + 3, h) * w + j] +
                                            img[i * w + CL(j - 3, w)] + img[i * w + CL(j - 2, w)] + img[i * w + CL(j - 1, w)] +
                                            img[i * w + CL(j + 1, w)] + img[i * w + CL(j + 2, w)] + img[i * w + CL(j + 3, w)] +
                                            img[i * w + j]) / 13;
                }
                #pragma tamm task device(cuda) label("edges")
                {
                    const float *s = tamm_block(S, bi, bj);
                    float *m = tamm_block(M, bi, bj);
                    for (long i = 0; i < h; i++)
                        for (long j = 0; j < w; j++)
                            m[i * w + j] = (s[CL(i + 1, h) * w + j] - s[CL(i - 1, h) * w + j]) *
                                               (s[CL(i + 1, h) * w + j] - s[CL(i - 1, h) * w + j]) +
                                           (s[i * w + CL(j + 1, w)] - s[i * w + CL(j - 1, w)]) *
                                               (s[i * w + CL(j + 1, w)] - s[i * w + CL(j - 1, w)]) > 0.01f ? 1.0f : 0.0f;
                }
                #pragma tamm task device(cuda) label("unsharpen")
                {
                    const float *img = tamm_block(I, bi, bj), *l = tamm_block(L, bi, bj);
                    float *u = tamm_block(U, bi, bj);
                    for (long i = 0; i < h; i++)
                        for (long j = 0; j < w; j++) u[i * w + j] = img[i * w + j] + 0.5f * (img[i * w + j] - l[i * w + j]);
                }
                #pragma tamm task device(cuda) label("combine")
                {
                    const float *u = tamm_block(U, bi, bj), *s = tamm_block(S, bi, bj), *m = tamm_block(M, bi, bj);
                    float *o = tamm_block(O, bi, bj);
                    for (long i = 0; i < h; i++)
                        for (long j = 0; j < w; j++)
                            o[i * w + j] = m[i * w + j] * u[i * w + j] + (1 - m[i * w + j]) * s[i * w + j];
                }
            }
        #pragma tamm taskwait
        if (it > 0) tt += now() - t0; /* iteration 0 warms up (kernel loading, device memory) */
    }
    tt /= iters;
    double sum = 0;
    for (long bi = 0; bi < nt; bi++) {
        const float *o = tamm_block(O, bi, bi);
        sum += o[0] + o[tamm_block_extent(O, 0, bi) * tamm_block_extent(O, 1, bi) - 1];
    }
    printf("b8 size=%ld tile=%ld: %.3f ms per iteration, check=%.6f\n", sz, tl, 1e3 * tt, sum);
    tamm_tensor_destroy(I); tamm_tensor_destroy(S); tamm_tensor_destroy(L);
    tamm_tensor_destroy(M); tamm_tensor_destroy(U); tamm_tensor_destroy(O);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
