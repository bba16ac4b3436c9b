/* tamm_block at top level (not from a pragma): the tensor's name, the
 * indices and the ranges. */
#include <tamm.h>

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d[2] = {8, 6}, t[2] = {2, 2};
    tamm_tensor *A = tamm_tensor_create("Amat", TAMM_F64, 2, d, t);
    #pragma tamm task
    *(double *)tamm_block(A, 0, 0) = 1;
    double *p = tamm_block(A, 0, 3);
    return p != 0;
}
// EXPECT: tamm: error: top level: tamm_block: block Amat[0][3] is outside the tensor 'Amat' (blocks 0..3 x 0..2) [block index out of range]
