#include <tamm.h>

static void set0(tamm_tensor *T)
{
    double *a = tamm_block(T, 0);
    a[0] = 1;
}

void f(tamm_tensor *A, tamm_tensor *B, int c)
{
#pragma tamm task
    {
        tamm_tensor *X = c ? A : B;
        set0(X);
    }
}
// The tensor a task passes to a task function is chosen inside the task: the permission cannot
// name it at submission.
// EXPECT: taskfn_tensor_changes.c:14:9: error: the tensor 'X' passed to set0 changes inside the task at line 11, so its permissions cannot be inferred; give it a permission(...) clause naming the tensors
