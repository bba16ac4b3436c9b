#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task priority(1) priority(2)
    { double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: duplicate_clause.c:5:31: error: clause 'priority' appears twice
