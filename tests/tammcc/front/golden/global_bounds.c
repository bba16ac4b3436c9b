/* Loop bounds read from globals (issue 27 item 11): a 'const' global with an
 * initialiser is used by its value and proves a write, also in a callee whose
 * caller shadows its name; a global that is not const gives no proof. */
#include <tamm.h>

static const long TSC = 8;
static long ts_var = 8;
extern const long TS_EXT;     /* no initialiser here: its value is unknown */

static void fill_const(double *a)
{
    for (long i = 0; i < TSC; i++) a[i] = i;
}

void global_bounds(tamm_tensor *A, long nb)
{
    long TSC = 3; /* shadows the global: fill_const's bound is still 8 */
    for (long b = 0; b < nb; b++) {
#pragma tamm task
        fill_const(tamm_block(A, b));
#pragma tamm task
        { double *a = tamm_block(A, b); for (long i = 0; i < ts_var; i++) a[i] = TSC; }
#pragma tamm task
        { double *a = tamm_block(A, b); for (long i = 0; i < TS_EXT; i++) a[i] = 1; }
    }
}
