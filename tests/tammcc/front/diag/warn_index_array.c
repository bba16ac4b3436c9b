#include <tamm.h>

void f(tamm_tensor *A)
{
    long idx[1] = { 0 };
#pragma tamm task
    { const double *a = tamm_block_at(A, idx, 1); (void)a[0]; }
}
// EXPECT: warn_index_array.c:7:25: warning: this block is not known at submission (tamm_block_at with an index array): it is fetched synchronously in the mode the task's permissions allow
