#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm taskwait in(A[0])
}
// EXPECT: taskwait_clause.c:5:23: error: unknown clause 'in' in '#pragma tamm taskwait'; did you mean 'on'?
