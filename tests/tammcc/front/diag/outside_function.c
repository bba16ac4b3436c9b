#include <tamm.h>

#pragma tamm taskwait

void f(void)
{
}
// EXPECT: outside_function.c:3:1: error: '#pragma tamm taskwait' must be inside a function body
