#include <tamm.h>

void f(tamm_tensor *A, double x)
{
#pragma tamm task read(A[0:x])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: range_not_integer.c:5:28: error: this is not an integer: a block index must be an integer expression, found 'double'
