#include <tamm.h>

void f(tamm_tensor *A, double *out)
{
#pragma tamm task
    { const double *a = tamm_block(A, 0); out[0] = a[0]; }
}
// EXPECT: warn_pointer_write.c:6:43: warning: the task writes memory through 'out', which is not a tensor block: the runtime cannot order this write with other tasks
