#include <tamm.h>

void f(tamm_tensor *A, double *x)
{
#pragma tamm task read(x[0])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: not_a_tensor.c:5:24: error: this is not a tensor: expected a 'tamm_tensor *', found 'double *'
