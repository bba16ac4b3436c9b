#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task write(A[0]) cwrite(A[0])
    { double *a = tamm_block(A, 0); a[0] = 1; }
}
// EXPECT: clause_conflicts_clause.c:5:38: error: 'cwrite' clause on A[0] conflicts with an earlier 'write' clause on the same block
