/*
 * no_cuda.c — task bodies that get no CUDA variant, each for a reason that
 * `tammcc --explain` gives: a loop whose iterations depend on each other, a
 * call of a function without TAMM_CUDA_VARIANT whose body is not just a loop
 * nest (a kernel is made of one that is), a global variable, a task
 * that submits children.  They still run (CPU variants) with the plain C
 * build's results.
 */
#include <tamm.h>

#include <stdio.h>

#define N 24
#define NB 8

int scale = 3;

static void twice(double *x, int n)
{
    int f = 2;
    for (int i = 0; i < n; i++) x[i] *= f;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dims, tile);
    for (long b = 0; b < N / NB; b++) {
        #pragma tamm task label("prefix")
        {
            double *x = tamm_block(X, b);
            x[0] = (double)b;
            for (int i = 1; i < NB; i++)
                x[i] = x[i - 1] + 1.0;
        }
        #pragma tamm task label("recurrence")
        {
            double *x = tamm_block(X, b);
            for (int i = 1; i < NB; i++)
                x[i] = x[i - 1] * 0.5 + x[i];
        }
        #pragma tamm task label("call")
        twice(tamm_block(X, b), NB);
        #pragma tamm task label("global")
        {
            double *x = tamm_block(X, b);
            for (int i = 0; i < NB; i++)
                x[i] = x[i] * scale;
        }
        #pragma tamm task label("parent")
        {
            #pragma tamm task
            {
                double *x = tamm_block(X, b);
                for (int i = 0; i < NB; i++)
                    x[i] += 1.0;
            }
        }
    }
    #pragma tamm taskwait
    double s = 0;
    for (long b = 0; b < N / NB; b++) {
        const double *x = tamm_block(X, b);
        for (int i = 0; i < NB; i++) s += x[i] * (i + 1);
    }
    printf("no_cuda: %.6f\n", s);
    tamm_tensor_destroy(X);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
