#include <tamm.h>

void f(tamm_tensor *A, int n)
{
#pragma tamm task read(A[0])
    {
        double *a = tamm_block(A, 0);
        (void)a[0];
#pragma tamm task
        {
            double *b = tamm_block(A, 0);
            b[0] += 1;
        }
    }
}
// EXPECT: nested_exceeds_parent.c:11:25: error: nested task needs accum permission on A[0], but its parent (line 5) declares only read
