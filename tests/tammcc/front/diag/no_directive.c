#include <tamm.h>

void f(void)
{
#pragma tamm
    ;
}
// EXPECT: no_directive.c:5:12: error: expected a tamm directive (task, taskwait, fence or streaming)
