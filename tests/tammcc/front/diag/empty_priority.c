#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task priority()
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: empty_priority.c:5:28: error: expected an expression in 'priority(...)'
