#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task permission(raed: A[0])
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: bad_permission.c:5:30: error: unknown permission mode 'raed'; did you mean 'read'?
