#include <tamm.h>

void f(tamm_tensor *A, int n)
{
#pragma tamm task wait(n)
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: wait_not_fence.c:5:24: error: this is not a fence: expected a 'tamm_fence *', found 'int'
