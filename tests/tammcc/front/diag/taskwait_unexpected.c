#include <tamm.h>

void f(void)
{
#pragma tamm taskwait priority(1)
}
// EXPECT: taskwait_unexpected.c:5:23: error: unexpected 'priority' in '#pragma tamm taskwait' (only 'on(list)' is allowed)
