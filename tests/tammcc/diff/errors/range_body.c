/* A block whose index varies in the body is fetched there (synchronously);
 * one past the end is an error naming the reference as written. */
#include <tamm.h>

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[2] = {8, 8}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    tamm_tensor *S = tamm_tensor_create("Sums", TAMM_F64, 2, d, t);
    long I = 1, nb = tamm_tensor_nblocks(A, 1);
    #pragma tamm task label("sum_row")
    {
        double s = 0;
        for (long j = 0; j <= nb; j++)
            s += *(const double *)tamm_block(A, I, j);
        *(double *)tamm_block(S, I, 0) = s;
    }
    #pragma tamm taskwait
    tamm_finalize();
    return 0;
}
// EXPECT: tamm: error: task 'sum_row' (range_body.c:12): block A[I][j] = A[1][4] is outside the tensor 'Amat' (blocks 0..3 x 0..3) [block index out of range]
