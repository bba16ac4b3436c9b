/* Arrays of block pointers used whole (issue 27 item 11): passed to a function
 * as pointers to const, the blocks are read; any other whole use may modify
 * them (readwrite). */
#include <tamm.h>

double sum_rows(const double *const *rows, int nrows, long n);
void scale_rows(double **rows, int nrows, long n);

void pointer_arrays(tamm_tensor *A, tamm_tensor *S, long nb)
{
    for (long b = 0; b + 2 < nb; b++) {
#pragma tamm task
        {   /* const elements, passed to a 'const double *const *' parameter: read */
            const double *rows[3] = { tamm_block(A, b), tamm_block(A, b + 1), tamm_block(A, b + 2) };
            double *s = tamm_block(S, b);
            s[0] = sum_rows(rows, 3, 4);
        }
    }
    for (long b = 0; b + 1 < nb; b++) {
#pragma tamm task
        {   /* elements not const, passed to a 'double **' parameter: readwrite */
            double *rows[2] = { tamm_block(A, b), tamm_block(A, b + 1) };
            scale_rows(rows, 2, 4);
        }
    }
    for (long b = 0; b + 1 < nb; b++) {
#pragma tamm task
        {   /* const elements, but the array is cast to 'double **': readwrite */
            const double *rows[2] = { tamm_block(A, b), tamm_block(A, b + 1) };
            scale_rows((double **)rows, 2, 4);
        }
    }
}
