#include <tamm.h>

void f(tamm_tensor *A, int n)
{
#pragma tamm task read(A[0:4][n])
    {
        for (int i = 0; i < 4; i++) {
            double *a = tamm_block(A, i, n);
            (void)a[0];
        }
#pragma tamm task accum(A[2][n])
        {
            double *b = tamm_block(A, 2, n);
            b[0] += 1;
        }
#pragma tamm task read(A[1:3][n])
        {
            double *c = tamm_block(A, 1, n);
            (void)c[0];
        }
    }
}
// EXPECT: range_exceeds_parent.c:13:25: error: nested task needs accum permission on A[2][n], but its parent (line 5) declares only read on A[0:4][n]
