/*
 * blas_errors.c — BLAS and LAPACK tasks whose call the GPU refuses, for
 * blas_errors.sh: each a task error (TAMM_EDEVICE) naming the call and its
 * line, as docs/errors.md lists them.
 *
 *   blas_errors lda | layout | uplo | dotinc | getrf
 *     lda      cblas_dgemm with a leading dimension smaller than its matrix
 *     layout   cblas_dgemm with a layout that is no CBLAS layout
 *     uplo     LAPACKE_dpotrf with an uplo that is neither 'U' nor 'L'
 *     dotinc   d[0] += cblas_ddot(...) with increments 2 and -3
 *     getrf    a row-major LAPACKE_dgetrf (its transposed copy needs scratch memory)
 * Without a mode it submits nothing (so the runs of every test program pass).  The tasks say
 * device(cuda): they run on the GPU whenever it can take them.
 */
#include <tamm.h>

#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <string.h>

#define NB 64

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    const char *mode = argc > 1 ? argv[1] : "";
    size_t dims[1] = {NB * NB}, tile[1] = {NB * NB}, one[1] = {1};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 1, dims, tile);
    tamm_tensor *P = tamm_tensor_create("P", TAMM_I32, 1, dims, tile);
    tamm_tensor *INFO = tamm_tensor_create("INFO", TAMM_I32, 1, one, one);
    double *a = tamm_block(A, 0);
    for (int i = 0; i < NB * NB; i++) a[i] = i % NB == i / NB ? NB : 1.0 / (1 + i % 7);
    int n = 8, lda = strcmp(mode, "lda") ? n : n - 3, layout = strcmp(mode, "layout") ? CblasRowMajor : 7;
    char uplo = strcmp(mode, "uplo") ? 'L' : 'X';
    if (!strcmp(mode, "lda") || !strcmp(mode, "layout")) {
        #pragma tamm task label("gemm") device(cuda)
        cblas_dgemm(layout, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, tamm_block(A, 0), lda, tamm_block(A, 0), lda, 0.5,
                    tamm_block(C, 0), n);
    } else if (!strcmp(mode, "uplo")) {
        #pragma tamm task label("potrf") device(cuda)
        {
            int *info = tamm_block(INFO, 0);
            *info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, n, tamm_block(A, 0), n);
        }
    } else if (!strcmp(mode, "dotinc")) {
        #pragma tamm task label("dot") device(cuda)
        {
            double *c = tamm_block(C, 0);
            c[0] += cblas_ddot(n, tamm_block(A, 0), 2, tamm_block(A, 0), -3);
        }
    } else if (!strcmp(mode, "getrf")) {
        #pragma tamm task label("getrf") device(cuda)
        LAPACKE_dgetrf(LAPACK_ROW_MAJOR, NB, NB, tamm_block(A, 0), NB, tamm_block(P, 0));
    }
    #pragma tamm taskwait
    printf("blas_errors %s: done\n", mode);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
