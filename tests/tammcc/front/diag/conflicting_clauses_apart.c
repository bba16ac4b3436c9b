#include <tamm.h>

void f(tamm_tensor *A, tamm_tensor *B)
{
#pragma tamm task accum(A[0]) read(B[0]) write(A[0])
    { double *a = tamm_block(A, 0); const double *b = tamm_block(B, 0); a[0] += b[0]; }
}
// A clause between the two clauses on A[0]: the note still points at the first.
// EXPECT: conflicting_clauses_apart.c:5:48: error: two clauses name the block A[0]: 'write(A[0])' and the earlier 'accum(A[0])'; give each block one access clause
// EXPECT: conflicting_clauses_apart.c:5:25: note: the earlier 'accum(A[0])' is here
