#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task zzzzzz(A[0])
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: unknown_clause_far.c:5:19: error: unknown clause 'zzzzzz' in '#pragma tamm task'
