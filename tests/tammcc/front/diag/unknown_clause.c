#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task raed(A[0])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: unknown_clause.c:5:19: error: unknown clause 'raed' in '#pragma tamm task'; did you mean 'read'?
