#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task device(fpga)
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: unknown_device_far.c:5:26: error: unknown device 'fpga'; expected cpu, cuda or any
