#include <tamm.h>

tamm_tensor *make(int nd);
int total;

void f(int nd)
{
    size_t d[2] = {8, 8}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, nd, d, t);
    tamm_tensor *B = tamm_tensor_create("Bmat", TAMM_F64, 2, d, t);
    B = make(1);
    long i = 1;
#pragma tamm task
    {
        double *a = tamm_block(A, i);
        double *b = tamm_block(B, i);
        a[0] = b[0];
        total = 1;
    }
}
// No compile-time error where the rank is not known: A's rank is a parameter, B is reassigned (the
// runtime checks the refs at submission).  The only diagnostic is an unrelated warning:
// EXPECT: block_nidx_rank_unknown.c:18:9: warning: the task writes the global 'total': the runtime cannot order this write with other tasks (use a tensor block)
