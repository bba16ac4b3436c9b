/* Arrays of block pointers passed whole to functions (issue 27 item 11): an
 * array of 'const T *' passed as 'const T *const *' is read (the tasks that
 * read the same blocks run together); an array of 'T *' passed as 'T **' is
 * readwrite.  The plain build is the oracle; TAMM_CHECK_ACCESS=1 (set by
 * differential.sh) would report a read block that the callee modified. */
#include <stdio.h>
#include <tamm.h>

#define NB 6
#define TS 4

static double sum_rows(const double *const *rows, int nrows, long n)
{
    double s = 0;
    for (int r = 0; r < nrows; r++)
        for (long i = 0; i < n; i++) s += rows[r][i] * (r + 1);
    return s;
}

static void scale_rows(double **rows, int nrows, long n)
{
    for (int r = 0; r < nrows; r++)
        for (long i = 0; i < n; i++) rows[r][i] = rows[r][i] * 0.5 + r;
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[1] = { NB * TS }, tile[1] = { TS }, sdims[1] = { NB }, stile[1] = { 1 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, dims, tile);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_F64, 1, sdims, stile);
    for (long b = 0; b < NB; b++) {
#pragma tamm task
        { double *a = tamm_block(A, b); for (int i = 0; i < TS; i++) a[i] = b * 10 + i; }
    }
    for (int round = 0; round < 3; round++) {
        for (long b = 0; b + 2 < NB; b++) {
#pragma tamm task
            {
                const double *rows[3] = { tamm_block(A, b), tamm_block(A, b + 1), tamm_block(A, b + 2) };
                double *s = tamm_block(S, b);
                s[0] = s[0] * 3 + sum_rows(rows, 3, TS);
            }
        }
        for (long b = 0; b + 1 < NB; b += 2) {
#pragma tamm task
            {
                double *rows[2] = { tamm_block(A, b), tamm_block(A, b + 1) };
                scale_rows(rows, 2, TS);
            }
        }
    }
#pragma tamm taskwait
    for (long b = 0; b < NB; b++) {
        const double *s = tamm_block(S, b), *a = tamm_block(A, b);
        printf("S[%ld] = %.17g  A[%ld][0] = %.17g\n", b, s[0], b, a[0]);
    }
    tamm_finalize();
    return 0;
}
