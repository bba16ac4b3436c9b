#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task write(A[0]) cwrite(A[0])
    { double *a = tamm_block(A, 0); a[0] = 1; }
}
// EXPECT: clause_conflicts_clause.c:5:38: error: two clauses name the block A[0]: 'cwrite(A[0])' and the earlier 'write(A[0])'; give each block one access clause
// EXPECT: clause_conflicts_clause.c:5:25: note: the earlier 'write(A[0])' is here
