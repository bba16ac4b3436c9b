#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task
    {
        double *a = tamm_block(A, 0);
#pragma tamm streaming
        { a[0] = 1; }
    }
}
// EXPECT: streaming_in_task.c:8:1: error: '#pragma tamm streaming' is allowed only outside tasks
