/*
 * narrow_loops.c — kernels whose loop variables are char, short and unsigned
 * char: a grid-stride step computed in the loop variable's type,
 * (char)(blockDim.x * gridDim.x), is 0 for 256 threads and -128 for 128, and
 * the kernel never ends.  emu_kernels.sh runs the kernels on the host and
 * compares with the plain C build.
 */
#include <tamm.h>

#include <stdio.h>

#define N 200
#define NB 100

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[1] = {N}, tile[1] = {NB}, dims2[2] = {N, N}, tile2[2] = {NB, NB};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dims, tile);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F64, 2, dims2, tile2);
    tamm_tensor *Z = tamm_tensor_create("Z", TAMM_I32, 2, dims2, tile2);
    for (long b = 0; b < N / NB; b++) {
        #pragma tamm task
        {
            double *x = tamm_block(X, b);
            for (char c = 0; c < NB; c++)
                x[(int)c] = 0.5 * c + (double)b;
        }
        for (long b2 = 0; b2 < N / NB; b2++) {
            #pragma tamm task
            {
                double *y = tamm_block(Y, b, b2);
                for (short i = 0; i < NB; i++)
                    for (signed char j = 0; j < NB; j++)
                        y[i * NB + j] = (double)(i - j) + (double)(b * 10 + b2);
            }
            #pragma tamm task
            {
                int *z = tamm_block(Z, b, b2);
                for (unsigned char i = 0; i < NB; i++)
                    for (unsigned short j = 0; j < NB; j++)
                        z[i * NB + j] = i * 3 + j + (int)b2;
            }
        }
    }
    #pragma tamm taskwait
    double s = 0, t = 0;
    long z = 0;
    for (long b = 0; b < N / NB; b++) {
        const double *x = tamm_block(X, b);
        for (int e = 0; e < NB; e++) s += x[e] * (e + 1);
        for (long b2 = 0; b2 < N / NB; b2++) {
            const double *y = tamm_block(Y, b, b2);
            const int *zz = tamm_block(Z, b, b2);
            for (int e = 0; e < NB * NB; e++) {
                t += y[e] * (e % 5 + 1);
                z += (long)zz[e] * (e % 7 + 1);
            }
        }
    }
    printf("narrow_loops: %.3f %.3f %ld\n", s, t, z);
    tamm_tensor_destroy(X);
    tamm_tensor_destroy(Y);
    tamm_tensor_destroy(Z);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
