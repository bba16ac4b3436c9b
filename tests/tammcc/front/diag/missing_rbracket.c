#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0)
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: missing_rbracket.c:5:27: error: expected ']' after the block index, found ')'
