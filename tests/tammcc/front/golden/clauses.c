/* Explicit clauses: access modes, slices, permission, device, scheduling
 * clauses, fences. */
#include <tamm.h>

static void zero(double *p, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = 0;
}

void clauses(tamm_tensor *A, tamm_tensor *B, tamm_fence *f, long n, int big)
{
    /* explicit write: no coverage check */
    #pragma tamm task write(A[0][1]) label("zero A01") priority(n + 1)
    zero(tamm_block(A, 0, 1), 8);

    /* a slice and a whole tensor, declared read */
    #pragma tamm task read(A[0][:], B) accum(A[1][1]) device(cpu)
    {
        double *x = tamm_block(A, 1, 1);
        x[0] += 1;
    }

    /* permission beyond the accesses, if, on, wait and signal */
    #pragma tamm task permission(readwrite: A[2][:]) if(big) on(n % 2) signal(f)
    {
        double *y = tamm_block(A, 2, 0);
        y[0] += y[1];
    }
    #pragma tamm task wait(f), cwrite(B[3][3])
    zero(tamm_block(B, 3, 3), 8);
    #pragma tamm task collective read(A)
    {
        double *z = tamm_block(A, 0, 0);
        (void)z[0];
    }
}
