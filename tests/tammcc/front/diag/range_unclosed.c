#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0:2
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: range_unclosed.c:5:28: error: expected ']' to close a block index of 'A'
