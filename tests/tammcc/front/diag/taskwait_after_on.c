#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm taskwait on(A[0]) extra
}
// EXPECT: taskwait_after_on.c:5:32: error: unexpected 'extra' after 'on(...)' in '#pragma tamm taskwait'
