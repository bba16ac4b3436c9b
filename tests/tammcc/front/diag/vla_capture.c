#include <tamm.h>

void f(tamm_tensor *A, int n)
{
    double v[n];
    v[0] = 1;
#pragma tamm task
    { double *a = tamm_block(A, 0); a[0] = v[0]; }
}
// EXPECT: vla_capture.c:8:44: error: the task uses 'v', a variable-length array, which cannot be captured by value
