/*
 * same_block.c — two accesses of a task that are one block at run time (X[b] and X[c] with
 * c == b): tamm_cc_get serves them one buffer, so stores through one and reads through the other
 * at another element race when the loop goes on the grid.  The submission must check that the
 * blocks differ, else leave the task to its CPU variant.
 */
#include <tamm.h>

#include <stdio.h>

#define N 1024
#define NB 256

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dims, tile);
    for (long b = 0; b < N / NB; b++) {
        #pragma tamm task
        {
            double *x = tamm_block(X, b);
            for (int i = 0; i < NB; i++)
                x[i] = (double)(i % 17) + b;
        }
    }
    for (long b = 0; b < N / NB; b++) {
        long c = argc > 99 ? (b + 1) % (N / NB) : b; /* c == b at run time */
        #pragma tamm task
        {
            double *x = tamm_block(X, b);
            const double *y = tamm_block(X, c);
            for (int i = 0; i < NB - 1; i++)
                x[i] = y[i + 1] * 2.0 + 1.0;
        }
    }
    #pragma tamm taskwait
    double s = 0;
    for (long b = 0; b < N / NB; b++) {
        const double *x = tamm_block(X, b);
        for (int e = 0; e < NB; e++) s += x[e] * (e % 5 + 1);
    }
    printf("same_block: %.3f\n", s);
    tamm_tensor_destroy(X);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
