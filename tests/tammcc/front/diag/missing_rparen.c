#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0]
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: missing_rparen.c:5:27: error: expected ')' to close the list
