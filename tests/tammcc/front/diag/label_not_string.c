#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task label(mytask)
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: label_not_string.c:5:25: error: expected a string literal in 'label(...)', found 'mytask'
