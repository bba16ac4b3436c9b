/* A guard on a variable of the task body cannot be evaluated at submission:
 * the block is fetched synchronously when the body reaches it, and a wrong
 * guard is an error naming the reference as written. */
#include <tamm.h>

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[2] = {8, 8}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    tamm_tensor *B = tamm_tensor_create("Bmat", TAMM_F64, 2, d, t);
    long I = 3, J = 2;
    #pragma tamm task label("below")
    {
        int inside = I < 4; /* wrong: should be I + 1 < 4 */
        double *c = tamm_block(B, I, J);
        if (inside)
            c[0] = *(const double *)tamm_block(A, I + 1, J);
    }
    #pragma tamm taskwait
    tamm_finalize();
    return 0;
}
// EXPECT: tamm: error: task 'below' (range_body_guard.c:13): block A[I+1][J] = A[4][2] is outside the tensor 'Amat' (blocks 0..3 x 0..3) [block index out of range]
