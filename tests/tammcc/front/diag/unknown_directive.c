#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm taks
    { double *a = tamm_block(A, 0); a[0] = 1; }
}
// EXPECT: unknown_directive.c:5:14: error: unknown tamm directive 'taks'; did you mean 'task'?
