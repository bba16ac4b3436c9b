/*
 * withheld.c — kernels whose checks fail at run time, so that the tasks must run their CPU
 * variants: two accesses that are one block at run time (X[b] and X[c], c == b), and stores
 * h[i * k] that are distinct per thread only if k != 0 (k is 0 at run time).  All tasks are
 * device(cuda): only the fills may run as kernels; the others are submitted without their CUDA
 * variant (TAMM_STATS counts them, TAMM_TRACE shows why) and compute what the plain build
 * computes (withheld.sh).
 */
#include <tamm.h>

#include <stdio.h>

#define N 1024
#define NB 256
#define NT (N / NB)

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dims, tile);
    tamm_tensor *H = tamm_tensor_create("H", TAMM_I64, 1, dims, tile);
    int k = argc > 99 ? 1 : 0; /* 0 at run time */
    for (long b = 0; b < NT; b++) {
        #pragma tamm task device(cuda) label("fill")
        {
            double *x = tamm_block(X, b);
            long *h = tamm_block(H, b);
            for (int i = 0; i < NB; i++) {
                x[i] = (double)(i % 17) + b;
                h[i] = i;
            }
        }
    }
    for (long b = 0; b < NT; b++) {
        long c = argc > 99 ? (b + 1) % NT : b; /* c == b at run time */
        #pragma tamm task device(cuda) label("shift")
        {
            double *x = tamm_block(X, b);
            const double *y = tamm_block(X, c);
            for (int i = 0; i < NB - 1; i++)
                x[i] = y[i + 1] * 2.0 + 1.0;
        }
        #pragma tamm task device(cuda) label("last")
        {
            long *h = tamm_block(H, b);
            for (int i = 0; i < NB; i++)
                h[i * k] = b * 1000 + i; /* k == 0: every iteration stores h[0], the last one wins */
        }
    }
    #pragma tamm taskwait
    double s = 0;
    long t = 0;
    for (long b = 0; b < NT; b++) {
        const double *x = tamm_block(X, b);
        const long *h = tamm_block(H, b);
        for (int e = 0; e < NB; e++) {
            s += x[e] * (e % 5 + 1);
            t += h[e] * (e % 3 + 1);
        }
    }
    printf("withheld: %.3f %ld\n", s, t);
    tamm_tensor_destroy(X);
    tamm_tensor_destroy(H);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
