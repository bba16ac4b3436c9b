#include <tamm.h>

static const long first = 0;     /* a constant global */

static double sum(const double *p, long n)
{
    double s = 0;
    for (long k = 0; k < n; k++) s += p[k];
    return s;
}

void stencil(tamm_tensor *A, tamm_tensor *B, long nb, long n)
{
    for (long I = 0; I < nb; I++)
        for (long J = 0; J < nb; J++) {
            /* requested at submission only if the guard holds */
            #pragma tamm task label("stencil")
            {
                const double *up = I > 0 ? tamm_block(A, I - 1, J) : NULL;
                const double *dn = NULL, *lf = NULL, *rt = NULL;
                if (I + 1 < nb) dn = tamm_block(A, I + 1, J);
                if (J == first) lf = NULL;
                else lf = tamm_block(A, I, J - 1);
                int r = J + 1 < nb && sum(tamm_block(A, I, J + 1), n) > 0;
                if (J + 1 == nb || I > 1)
                    if (I > 0 && J > 0) rt = tamm_block(A, I - 1, J - 1);
                double *c = tamm_block(B, I, J);
                c[0] = (up ? up[0] : 0) + (dn ? dn[0] : 0) + (lf ? lf[0] : 0) + (rt ? rt[0] : 0) + r;
            }
            /* guarded and unguarded uses of one block: unconditional */
            #pragma tamm task
            {
                double *c = tamm_block(B, I, J);
                c[0] += I > 0 ? sum(tamm_block(A, I, J), n) : 0;
                c[0] += sum(tamm_block(A, I, J), n);
            }
        }
}

void explicit_clause(tamm_tensor *A, tamm_tensor *B, long I, long n)
{
    /* a clause naming the block requests it as written: unconditionally */
    #pragma tamm task read(A[I - 1][0])
    {
        double *c = tamm_block(B, I, 0);
        if (I > 0) c[0] += sum(tamm_block(A, I - 1, 0), n);
        if (I > 1) c[0] += sum(tamm_block(A, I - 2, 0), n);
    }
}

void rows(tamm_tensor *A, tamm_tensor *B, long nb, long n)
{
    for (long I = 0; I < nb; I++) {
        /* the parent's permissions from guarded children: guarded too */
        #pragma tamm task label("row")
        for (long J = 0; J < nb; J++) {
            if (I > 0) {
                #pragma tamm task
                ((double *)tamm_block(B, I, J))[0] += sum(tamm_block(A, I - 1, J), n);
            }
            #pragma tamm task
            {
                double *c = tamm_block(B, I, J);
                if (J > 0) c[0] += sum(tamm_block(A, I, J - 1), n);
            }
            if (J + 1 < nb) {   /* J varies in the parent: its permission covers the whole tensor */
                #pragma tamm task
                ((double *)tamm_block(B, I, J))[0] += sum(tamm_block(A, I, J + 1), n);
            }
        }
    }
}
