#include <tamm.h>

long g;

void f(tamm_tensor *A)
{
#pragma tamm task
    { const double *a = tamm_block(A, g); (void)a[0]; }
}
// EXPECT: warn_index_reads_global.c:8:25: warning: block A[g] has an index that reads a global or static variable, which a call in the body may change: it is fetched synchronously when the body names it (the task's permission covers the whole tensor)
