#include <tamm.h>

void f(tamm_tensor *A)
{
    double *a = tamm_block(A, 0);
    a[0] = 1;
#pragma tamm task
}
// EXPECT: no_statement.c:7:1: error: '#pragma tamm task' must be followed by a statement
