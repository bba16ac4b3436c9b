#include <tamm.h>

void f(void)
{
#pragma tamm xyzzy
    ;
}
// EXPECT: unknown_directive_far.c:5:14: error: unknown tamm directive 'xyzzy' (expected task, taskwait, fence or streaming)
