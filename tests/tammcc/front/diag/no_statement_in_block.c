#include <tamm.h>

void f(tamm_tensor *A, int c)
{
    if (c) {
        double *a = tamm_block(A, 0);
        a[0] = 1;
#pragma tamm task
    }
    { double *b = tamm_block(A, 1); b[0] += 2; }
}
// EXPECT: no_statement_in_block.c:8:1: error: '#pragma tamm task' must be followed by a statement
