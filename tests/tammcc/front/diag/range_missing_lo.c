#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[1][ :2])
    { double *a = tamm_block(A, 1, 0); (void)a[0]; }
}
// EXPECT: range_missing_lo.c:5:30: error: expected the first block of the range before ':' in a block index of 'A' (a range is lo:hi, blocks lo to hi-1)
