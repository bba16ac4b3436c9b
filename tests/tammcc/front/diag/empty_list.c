#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read()
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: empty_list.c:5:24: error: expected a block reference (T[i][j], T[i][:], T[lo:hi][j] or T) in 'read' list, found ')'
