/* A comma separates two clauses of '#pragma tamm task' (docs/language.md: `[clause [[,] clause]...]`):
 * one before the first clause or after the last one is an error (found by the clause fuzzer's model). */
#include <tamm.h>

void f(tamm_tensor *A)
{
#pragma tamm task , read(A[0])
    { const double *a = tamm_block(A, 0); (void)a[0]; }
#pragma tamm task read(A[1]),
    { const double *a = tamm_block(A, 1); (void)a[0]; }
}
// EXPECT: clause_comma_edges.c:7:19: error: expected a clause of '#pragma tamm task', found ','
// EXPECT: clause_comma_edges.c:9:29: error: expected a clause of '#pragma tamm task' after ',', found end of line
