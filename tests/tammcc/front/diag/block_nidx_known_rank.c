#include <tamm.h>

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[2] = {8, 8}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    long i = 1;
#pragma tamm task
    {
        double *a = tamm_block(A, i);
        a[0] = 1;
    }
#pragma tamm task
    {
        double *a = tamm_block(A, i, 0, 1);
        a[0] = 2;
    }
#pragma tamm taskwait
    tamm_finalize();
    return 0;
}
// The rank is known at compile time (A is initialised by tamm_tensor_create with a constant rank and
// never assigned), so a tamm_block with another number of indices is rejected here rather than at
// submission ("ref 0 on 'Amat' has 1 indices").
// EXPECT: block_nidx_known_rank.c:11:21: error: tamm_block(A, i) gives 1 index, but the tensor A ('Amat', created at line 7) has 2 dimensions: give one index per dimension
// EXPECT: block_nidx_known_rank.c:16:21: error: tamm_block(A, i, 0, 1) gives 3 indices, but the tensor A ('Amat', created at line 7) has 2 dimensions: give one index per dimension
