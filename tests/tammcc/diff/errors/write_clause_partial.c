/* A task declares write(X[1]) but its body stores only the first half of the block: the
 * plain build keeps the other half's old values (7); tamm, which need not fetch a block held
 * for write, may give the task memory with anything in it.  Under TAMM_CHECK_ACCESS=1 the
 * task's commit is an error naming the block and its first unwritten element (the
 * write-coverage check of docs/runtime.md; test_check_access covers the explicit API). */
#include <tamm.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[1] = {8}, t[1] = {4};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, d, t);
    double *x1 = tamm_block(X, 1);
    for (int i = 0; i < 4; i++)
        x1[i] = 7;
    #pragma tamm task write(X[1])
    {
        double *x = tamm_block(X, 1);
        for (int i = 0; i < 2; i++)
            x[i] = 1;
    }
    tamm_wait_all();
    printf("%g\n", ((const double *)tamm_block(X, 1))[3]);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
// ENV: TAMM_CHECK_ACCESS=1
// EXPECT: tamm: error: task 'main:18' (write_clause_partial.c:18): did not write all of block X[1] (tensor 'X') that it holds for write (inferred/declared mode: write): 2 of its 4 elements were left unwritten, the first at element (2); if tammcc inferred this mode, its inference is wrong for this body (see tammcc --explain); if the program declared it, that declaration is wrong for this body (correct the clause, or the mode the program passed to the runtime) [access mode violated by the task's body]
