#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task 123
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: expected_clause.c:5:19: error: expected a clause of '#pragma tamm task', found '123'
