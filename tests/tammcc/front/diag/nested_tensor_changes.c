#include <tamm.h>

void f(tamm_tensor *A, tamm_tensor *B)
{
#pragma tamm task
    {
        tamm_tensor *T = A;
        if (tamm_tensor_ndim(A) > 1) T = B;
#pragma tamm task
        { double *t = tamm_block(T, 0); t[0] += 1; }
    }
}
// EXPECT: nested_tensor_changes.c:10:23: error: the tensor expression 'T' of a nested task changes inside its parent's body, so the parent's permission cannot be inferred; give the parent a permission(...) clause naming the tensors
