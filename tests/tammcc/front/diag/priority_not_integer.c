#include <tamm.h>

void f(tamm_tensor *A, double *p)
{
#pragma tamm task priority(p)
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: priority_not_integer.c:5:28: error: this is not an integer: a priority or rank must be an integer expression, found 'double *'
