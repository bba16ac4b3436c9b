#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0][0][0][0][0][0][0][0][0])
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: too_many_indices.c:5:49: error: too many block indices (a tensor has at most 8 dimensions)
