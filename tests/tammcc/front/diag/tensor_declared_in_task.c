#include <tamm.h>

void f(tamm_tensor *A, tamm_tensor *B)
{
#pragma tamm task
    {
        tamm_tensor *A = B;
        double *a = tamm_block(A, 0);
        a[0] = 1;
    }
}
// EXPECT: tensor_declared_in_task.c:8:21: error: the tensor expression 'A' names a variable declared or assigned inside the task, so its blocks cannot be requested at submission; name the tensor through a variable of the enclosing function
