#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task
    {
        double *a = tamm_block(A, 0);
        a[0] += 1;
#pragma tamm fence
    }
}
// EXPECT: fence_in_task.c:9:1: error: '#pragma tamm fence' is an execution fence for the whole program: it is allowed only outside tasks
