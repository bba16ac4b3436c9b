#include <tamm.h>

void f(tamm_tensor *A, double *x)
{
#pragma tamm task read(A[x])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: index_not_integer.c:5:26: error: this is not an integer: a block index must be an integer expression, found 'double *'
