#include <tamm.h>

void f(tamm_tensor *A, int c)
{
#pragma tamm task read(A[c ? 0 : 1 : 2 : 3])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: range_two_colons.c:5:40: error: expected ']' after the block range in a block index of 'A', found a second ':'
