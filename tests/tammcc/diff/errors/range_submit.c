/* An unguarded neighbour block: at the last row, A[I+1][J] is outside the
 * tensor, and the request at submission is an error in the source's terms
 * (the reference as written, its value, the tensor's name and its blocks). */
#include <tamm.h>

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[2] = {8, 8}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    tamm_tensor *B = tamm_tensor_create("Bmat", TAMM_F64, 2, d, t);
    for (long I = 0; I < 4; I++)
        for (long J = 0; J < 4; J++) {
            #pragma tamm task label("stencil")
            {
                const double *s = tamm_block(A, I + 1, J);
                double *c = tamm_block(B, I, J);
                c[0] = s[0];
            }
        }
    #pragma tamm taskwait
    tamm_finalize();
    return 0;
}
// EXPECT: tamm: error: task 'stencil' (range_submit.c:14): block A[I+1][J] = A[4][0] is outside the tensor 'Amat' (blocks 0..3 x 0..3) [block index out of range]
