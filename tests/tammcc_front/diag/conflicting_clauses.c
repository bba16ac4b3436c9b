#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0]) accum(A[0])
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: conflicting_clauses.c:5:36: error: 'accum' clause on A[0], but the task body reads it ('read' clause)
