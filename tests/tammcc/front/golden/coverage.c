/* The write-coverage proof: a block is write (no fetch) only when every element
 * is provably stored.  Rejected (readwrite): the bound or the loop variable
 * changes (assigned in the callee or the body, through a pointer), an early
 * return, a break, a bound local to the callee, the store or the call under an
 * if or in a loop that may run zero times, either block of a ?:, a narrowing
 * cast in the index, a multiplier that names another variable.  Accepted
 * (write): the arguments substituted for the callee's parameters in one pass,
 * a callee's macro bound by its value, a shape query as the bound, a loop
 * with a break before the store, a (void) call, a block pointer variable. */
#include <tamm.h>
#include <stddef.h>

#define NB 16

static void halved(double *p, int n) { n = n / 2; for (int i = 0; i < n; i++) p[i] = 0; }
static void skipping(double *p, int n) { for (int i = 0; i < n; i++) { p[i] = 0; i++; } }
static void shrinking(double *p, int n) { for (int i = 0; i < n; i++) { p[i] = 0; n--; } }
static void through_ptr(double *p, int n) { int *q = &n; for (int i = 0; i < n; i++) { p[i] = 0; (*q)--; } }
static void early(double *p, int n) { if (n > 3) return; for (int i = 0; i < n; i++) p[i] = 0; }
static void until(double *p, int n) { for (int i = 0; i < n; i++) { if (i == 2) break; p[i] = 0; } }
static void local_bound(double *p) { int n = 4; for (int i = 0; i < n; i++) p[i] = 0; }
static void narrow(double *p, int n) { for (int i = 0; i < n; i++) p[(unsigned char)i] = 0; }
static void shadowed(double *p, int m, int n)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) { int n = 1; p[i * n + j] = 1; }
}
static void fill(double *p, int n) { for (int i = 0; i < n; i++) p[i] = 0; }
static void rect(double *p, int r, int c) { for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) p[(size_t)i * c + j] = 1; }
static void fill_nb(double *p) { for (int i = 0; i < NB; i++) p[i] = 2; }
static void search_then_fill(double *p, int n)
{
    int at = 0;
    for (int k = 0; k < 10; k++)
        if (k * k > n) { at = k; break; }
    fill(p, n * 2);
    (void)at;
}

void f(tamm_tensor *A, long nt, int n, int c, int flag)
{
    for (long i = 0; i < nt; i++) {
        /* rejected */
        #pragma tamm task
        halved(tamm_block(A, i), n);
        #pragma tamm task
        skipping(tamm_block(A, i), n);
        #pragma tamm task
        shrinking(tamm_block(A, i), n);
        #pragma tamm task
        through_ptr(tamm_block(A, i), n);
        #pragma tamm task
        early(tamm_block(A, i), n);
        #pragma tamm task
        until(tamm_block(A, i), n);
        #pragma tamm task
        local_bound(tamm_block(A, i));
        #pragma tamm task
        narrow(tamm_block(A, i), n);
        #pragma tamm task
        shadowed(tamm_block(A, i), n, n);
        #pragma tamm task
        if (flag) fill(tamm_block(A, i), n);
        #pragma tamm task
        if (flag)
            for (int k = 0; k < n; k++) { double *p = tamm_block(A, i); p[k] = 1; }
        #pragma tamm task
        for (int m = 0; m < flag; m++) fill(tamm_block(A, i), n);
        #pragma tamm task
        {
            double *p = tamm_block(A, i);
            for (int k = 0; k < n; k++) { p[k] = 1; k++; }
        }
        #pragma tamm task
        {
            double *x = tamm_block(A, i), *y = tamm_block(A, i + 1);
            for (int k = 0; k < n; k++) (flag ? x : y)[k] = 1;
        }
        /* accepted */
        #pragma tamm task
        rect(tamm_block(A, i), c, n);
        #pragma tamm task
        fill_nb(tamm_block(A, i));
        #pragma tamm task
        search_then_fill(tamm_block(A, i), n);
        #pragma tamm task
        (void)fill(tamm_block(A, i), NB);
        #pragma tamm task
        {
            double *p = tamm_block(A, i);
            for (size_t k = 0; k < tamm_block_extent(A, 0, i); k++)
                p[k] = 3;
        }
    }
    #pragma tamm taskwait
}
