/*
 * header_macros.c — kernels that use macros of a local header (header_macros_kern.h): the
 * generated .cu must see them (it copies the user's #define lines, also the headers'), or nvcc
 * fails with `identifier "SCALE" is undefined`.
 */
#include <tamm.h>

#include <stdio.h>

#include "header_macros_kern.h"

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t dims[2] = {2 * NB, 2 * NB}, tile[2] = {NB, NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dims, tile);
    for (long bi = 0; bi < 2; bi++)
        for (long bj = 0; bj < 2; bj++) {
            #pragma tamm task
            {
                double *a = tamm_block(A, bi, bj);
                for (int i = 0; i < NB; i++)
                    for (int j = 0; j < NB; j++)
                        a[ROW(i, NB) + j] = SCALE * i + j + 100 * bi + 10 * bj;
            }
        }
    #pragma tamm taskwait
    double s = 0;
    for (long bi = 0; bi < 2; bi++)
        for (long bj = 0; bj < 2; bj++) {
            const double *a = tamm_block(A, bi, bj);
            for (int e = 0; e < NB * NB; e++) s += a[e] * (e % 7 + 1);
            s += first_of(a);
        }
    printf("header_macros: %.3f\n", s);
    tamm_tensor_destroy(A);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
