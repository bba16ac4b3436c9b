/* A block fetched in a pragma body with too few indices (tamm_block(A, i) on
 * a 2-D tensor): the task's ref fails at submission, naming the block as
 * written, the tensor and the number of indices it needs (it used to say
 * "ref 0 on 'Amat' has 1 indices"). */
#include <tamm.h>

static void fill(tamm_tensor *A, long i)
{
    #pragma tamm task label("fill_row")
    {
        double *a = tamm_block(A, i);
        a[0] = 1;
    }
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[2] = {8, 8}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    fill(A, 1);
    #pragma tamm taskwait
    tamm_finalize();
    return 0;
}
// EXPECT: tamm: error: task 'fill_row' (nidx_body.c:9): block A[i] has 1 index, but the tensor 'Amat' has 2 dimensions (write 2 indices, one per dimension) [invalid argument]
