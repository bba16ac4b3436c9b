#include <tamm.h>

/* 'gpu' is one letter from 'cpu', but it means 'cuda' */
void f(tamm_tensor *A)
{
#pragma tamm task device(gpu)
    { const double *a = tamm_block(A, 0); (void)a[0]; }
}
// EXPECT: device_gpu.c:6:26: error: unknown device 'gpu'; did you mean 'cuda'? (tamm's GPU variants are CUDA)
