/*
 * blas.c — accesses of blocks passed to BLAS and LAPACK routines, from their
 * documented semantics (docs/language.md, rule 39), and the CUDA variants of
 * such tasks or why there is none (golden: --emit=c and --explain).
 */
#include <tamm.h>

#include <cblas.h>
#include <lapacke.h>

#define NB 16

/* const parameters: read (rule 17) before the routine is looked at */
static void gemm_nt(const double *a, const double *b, double *c, int n)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, a, n, b, n, 1.0, c, n);
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = {4 * NB * NB}, tile[1] = {NB * NB};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 1, dims, tile);
    tamm_tensor *P = tamm_tensor_create("P", TAMM_I32, 1, dims, tile);
    int n = NB, ld = NB + 1;
    double beta = 0.5;
    /* C with beta 1: accum; beta 0 over the whole block: write; beta 0, another leading dimension:
     * write if it is the dense one; beta 0.5 or a variable: readwrite */
    #pragma tamm task label("acc")
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, tamm_block(A, 0), n, tamm_block(A, 1), n,
                1.0, tamm_block(C, 0), n);
    #pragma tamm task label("set")
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 2.0, tamm_block(A, 0), n, tamm_block(A, 1), n,
                0.0, tamm_block(C, 1), n);
    #pragma tamm task label("set_ld")
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n - 1, n, n, 2.0, tamm_block(A, 0), n, tamm_block(A, 1), n,
                0, tamm_block(C, 2), ld);
    #pragma tamm task label("half")
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, tamm_block(A, 0), n, tamm_block(A, 1), n,
                0.5, tamm_block(C, 3), n);
    #pragma tamm task label("beta_var")
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, tamm_block(A, 0), n, tamm_block(A, 1), n,
                beta, tamm_block(C, 0), n);
    /* through a function: its const parameters are read, its C accumulated */
    #pragma tamm task label("wrapped")
    gemm_nt(tamm_block(A, 2), tamm_block(A, 3), tamm_block(C, 1), n);
    /* axpy's y accumulates; trsm's B is read and written; scal's x too */
    #pragma tamm task label("axpy")
    {
        const double *x = tamm_block(A, 0);
        double *y = tamm_block(C, 2);
        cblas_daxpy(n * n, 3.0, x, 1, y, 1);
        cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, n, n, 1.0, x, n, tamm_block(C, 3), n);
        cblas_dscal(n, 0.5, tamm_block(C, 0), 1);
    }
    /* LAPACK: the matrix read and written, the pivots stored (not provably all of the block), info
     * into an element of a block */
    #pragma tamm task label("getrf")
    {
        int *ipiv = tamm_block(P, 0);
        ipiv[NB * NB - 1] = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, tamm_block(A, 3), n, ipiv);
    }
    /* dot: stored into an element (readwrite: one element), added to one (accum) */
    #pragma tamm task label("dot")
    {
        double *c = tamm_block(C, 0), *d = tamm_block(C, 1);
        c[0] = cblas_ddot(n, tamm_block(A, 0), 1, tamm_block(A, 1), 1);
        d[1] += cblas_ddot(n, tamm_block(A, 2), 2, tamm_block(A, 3), 1);
    }
    /* no write proof: under an if, into an offset pointer; C also passed as A: read too */
    #pragma tamm task label("no_proof")
    {
        if (n > 1)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, tamm_block(A, 0), n, tamm_block(A, 1),
                        n, 0.0, tamm_block(C, 0), n);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, tamm_block(A, 0), n, tamm_block(A, 1), n,
                    0.0, (double *)tamm_block(C, 1) + 1, n);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, tamm_block(C, 2), n, tamm_block(A, 1), n,
                    1.0, tamm_block(C, 2), n);
    }
    /* no CUDA variant: a host array, the value of dot used on the host, a loop around a call */
    #pragma tamm task label("host_array")
    {
        double w[NB] = {0};
        cblas_daxpy(NB, 1.0, w, 1, tamm_block(C, 3), 1);
    }
    #pragma tamm task label("dot_on_host")
    {
        double *c = tamm_block(C, 0);
        double s = cblas_ddot(n, tamm_block(A, 0), 1, tamm_block(A, 1), 1);
        c[0] = s > 0 ? s : -s;
    }
    #pragma tamm task label("loop")
    for (int k = 0; k < 2; k++)
        cblas_dscal(n, 2.0, tamm_block(C, 1), 1);
    #pragma tamm taskwait
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
