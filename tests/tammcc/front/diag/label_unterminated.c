#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task label("abc)
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: label_unterminated.c:5:25: warning: missing terminating '"' character
// EXPECT: label_unterminated.c:5:25: error: missing terminating " character
