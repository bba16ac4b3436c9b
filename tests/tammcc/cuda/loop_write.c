/*
 * loop_write.c — tasks whose bodies are loop nests over block elements with
 * plain stores ('='): tammcc makes CUDA kernels of them (both loops on the
 * grid).  Prints a checksum; the tammcc build must print what the plain C
 * build (sequential elision) prints.
 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>

#define N 96
#define NB 32
#define NT (N / NB)
#define AT(i, j) ((i) * NB + (j))

enum { SCALE = 3 };

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[2] = {N, N}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dims, tile);
    tamm_tensor *K = tamm_tensor_create("K", TAMM_I64, 2, dims, tile);
    for (long bi = 0; bi < NT; bi++)
        for (long bj = 0; bj < NT; bj++) {
            double off = 0.5 * (double)(bi * NT + bj);
            #pragma tamm task
            {
                double *a = tamm_block(A, bi, bj);
                for (int i = 0; i < NB; i++)
                    for (int j = 0; j < NB; j++)
                        a[AT(i, j)] = off + (double)((bi * NB + i) * N + bj * NB + j) / N;
            }
            #pragma tamm task
            {
                const double *a = tamm_block(A, bi, bj);
                double *b = (double *)tamm_block(B, bi, bj);
                for (int i = 0; i < NB; i++) {
                    double r = (double)i / NB;
                    for (int j = 0; j < NB; j++) {
                        double x = a[i * NB + j];
                        b[i * NB + j] = SCALE * sqrt(x) + fmax(r, 0.25) - fabs(sin(x) * cos(x));
                    }
                }
            }
            #pragma tamm task
            for (long i = 0; i < NB * NB; i++)
                ((long *)tamm_block(K, bi, bj))[i] = (bi + 1) * 1000000 + bj * 1000 + i % 977;
        }
    #pragma tamm taskwait
    double s = 0, t = 0;
    long k = 0;
    for (long bi = 0; bi < NT; bi++)
        for (long bj = 0; bj < NT; bj++) {
            const double *a = tamm_block(A, bi, bj), *b = tamm_block(B, bi, bj);
            const long *kk = tamm_block(K, bi, bj);
            for (int e = 0; e < NB * NB; e++) {
                s += a[e] * (double)(e % 7 + 1);
                t += b[e];
                k += kk[e] * (e % 3 + 1);
            }
        }
    printf("loop_write: %.9e %.9e %ld\n", s, t, k);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(K);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
