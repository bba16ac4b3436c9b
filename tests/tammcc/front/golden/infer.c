/* Inference of access modes: read, write (canonical loop nest, coverage
 * checked at submission), accum, readwrite; calls into visible functions,
 * const parameters and annotations. */
#include <tamm.h>

#define NB 64

static void scale(const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0 * x[i];
}

void update(TAMM_UPDATES double *p, int n);

void kernels(tamm_tensor *A, tamm_tensor *B, tamm_tensor *C, long nt)
{
    for (long i = 0; i < nt; i++) {
        /* write: every element of B[i] is stored by a canonical loop nest */
        #pragma tamm task
        {
            double *a = tamm_block(A, i);
            double *b = tamm_block(B, i);
            for (int k = 0; k < NB; k++)
                b[k] = a[k] + 1.0;
        }
        /* accum: only '+=' into C[i] */
        #pragma tamm task
        {
            const double *a = tamm_block(A, i);
            double *c = tamm_block(C, i);
            for (int k = 0; k < NB; k++)
                c[k] += a[k];
        }
        /* readwrite: read and stored */
        #pragma tamm task
        {
            double *c = tamm_block(C, i);
            c[0] = c[0] * 0.5;
        }
        /* through calls: a const parameter reads, the callee's loop writes */
        #pragma tamm task
        scale(tamm_block(A, i), tamm_block(B, i), NB);
        /* an annotated parameter of a function with no visible body */
        #pragma tamm task
        update(tamm_block(C, i), NB);
    }
    #pragma tamm taskwait
}
