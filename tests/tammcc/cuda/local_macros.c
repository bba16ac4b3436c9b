/*
 * local_macros.c — loop-nest tasks (CUDA kernels) that use macros defined
 * inside main(), one of them redefined between two tasks: the generated CUDA
 * replays main()'s macro directives before each task's variant, so the first
 * kernel adds 1.0 and the second multiplies by 3.0 (the file's #define lines
 * alone would leave the last definition, 3.0, for both).  Prints a checksum;
 * the tammcc build must print what the plain C build prints.
 */
#include <tamm.h>

#include <stdio.h>

#define N 64
#define NB 16
#define NT (N / NB)

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
#define VAL(b, i) ((double)((b) * NB + (i)) * 0.5)
#define SHIFT 1.0
    for (long b = 0; b < NT; b++) {
        #pragma tamm task
        {
            double *a = tamm_block(A, b);
            for (int i = 0; i < NB; i++)
                a[i] = VAL(b, i) + SHIFT;
        }
    }
#undef SHIFT
#define SHIFT 3.0
    for (long b = 0; b < NT; b++) {
        #pragma tamm task
        {
            double *a = tamm_block(A, b);
            for (int i = 0; i < NB; i++)
                a[i] = a[i] * SHIFT;
        }
    }
    #pragma tamm taskwait
    double s = 0;
    for (long b = 0; b < NT; b++) {
        const double *a = tamm_block(A, b);
        for (int i = 0; i < NB; i++)
            s += a[i] * (i + 1);
    }
    printf("checksum %.6f\n", s);
    tamm_finalize();
    return 0;
}
