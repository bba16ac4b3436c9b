#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0:])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: range_missing_hi.c:5:28: error: expected the end of the range after ':' in a block index of 'A' (a range is lo:hi, blocks lo to hi-1)
