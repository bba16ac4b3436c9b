#include <tamm.h>

/* OpenMP's depend(...): tamm infers dependences, the hint says so */
void f(tamm_tensor *A)
{
#pragma tamm task depend(in: A[0])
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: depend_clause.c:6:19: error: unknown clause 'depend' in '#pragma tamm task': tamm infers dependences from the blocks the task body accesses; remove depend(...), or declare the modes with read(...), write(...), readwrite(...) or accum(...)
