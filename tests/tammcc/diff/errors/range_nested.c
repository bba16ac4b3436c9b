/* A parent's permission taken from its nested tasks, widened over the loop in
 * its body (A[I+1][0:4], the loop's range): out of range at the parent's submission, named as the
 * parent's reference. */
#include <tamm.h>

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[2] = {8, 8}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    tamm_tensor *B = tamm_tensor_create("Bmat", TAMM_F64, 2, d, t);
    for (long I = 0; I < 4; I++) {
        #pragma tamm task label("row")
        for (long J = 0; J < 4; J++) {
            #pragma tamm task label("cell")
            *(double *)tamm_block(B, I, J) = *(const double *)tamm_block(A, I + 1, J);
        }
    }
    #pragma tamm taskwait
    tamm_finalize();
    return 0;
}
// EXPECT: tamm: error: task 'row' (range_nested.c:13): block A[I+1][0:4] = A[4][0:4] is outside the tensor 'Amat' (blocks 0..3 x 0..3) [block index out of range]
