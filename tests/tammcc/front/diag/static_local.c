#include <tamm.h>

void f(tamm_tensor *A)
{
    static int calls;
#pragma tamm task
    {
        double *a = tamm_block(A, 0);
        a[0] += calls;
    }
}
// EXPECT: static_local.c:9:17: error: the task uses 'calls', a static local of f(): make it a global or keep it in a tensor block
