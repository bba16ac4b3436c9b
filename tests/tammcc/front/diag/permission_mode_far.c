#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task permission(zzzz: A[0])
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: permission_mode_far.c:5:30: error: expected read, write, readwrite or accum in 'permission(mode: list)', found 'zzzz'
