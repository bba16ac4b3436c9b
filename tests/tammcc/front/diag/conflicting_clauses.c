#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task read(A[0]) accum(A[0])
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// Two clauses on one block: the message quotes both clauses (it used to blame the body for the
// first clause: "but the task body reads it ('read' clause)").
// EXPECT: conflicting_clauses.c:5:36: error: two clauses name the block A[0]: 'accum(A[0])' and the earlier 'read(A[0])'; give each block one access clause
// EXPECT: conflicting_clauses.c:5:24: note: the earlier 'read(A[0])' is here
