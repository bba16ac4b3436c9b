#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task device(cdua)
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: bad_device.c:5:26: error: unknown device 'cdua'; did you mean 'cuda'?
