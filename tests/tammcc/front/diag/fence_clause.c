#include <tamm.h>

void f(void)
{
#pragma tamm fence on(0)
}
// EXPECT: fence_clause.c:5:20: error: unexpected 'on' after '#pragma tamm fence' (it takes no clauses)
