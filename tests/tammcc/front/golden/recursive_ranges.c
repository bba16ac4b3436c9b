/* Ranges of tensors inferred through recursive task functions (rule 38 of
 * docs/language.md): a task that calls a task function gets, per dimension,
 * the range of blocks the function provably uses (in terms of its integer
 * parameters, proved by induction over its calls), else the whole dimension. */
#include <tamm.h>
#include <stdint.h>

static long G; /* a global: its value may change, so no proof may use it */

/* 1. the tree reduction of every OpenMP tutorial: halves [lo, mid), [mid, hi) */
static void sum(tamm_tensor *X, tamm_tensor *P, long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task label("leaf")
        { const int64_t *x = tamm_block(X, lo); int64_t *p = tamm_block(P, lo); p[0] = x[0]; }
        return;
    }
    long mid = lo + (hi - lo) / 2;
#pragma tamm task label("left")
    sum(X, P, lo, mid);
#pragma tamm task label("right")
    sum(X, P, mid, hi);
#pragma tamm taskwait
#pragma tamm task label("combine")
    { int64_t *a = tamm_block(P, lo); const int64_t *b = tamm_block(P, mid); a[0] += b[0]; }
}

/* 2. rows split in halves, a fixed column j: a range in dimension 0, the point j in 1 */
static void rows(tamm_tensor *C, long i0, long i1, long j)
{
    if (i1 - i0 <= 1) {
        if (i1 - i0 == 1) {
#pragma tamm task label("row")
            { double *c = tamm_block(C, i0, j); c[0] += 1; }
        }
        return;
    }
    long m = (i0 + i1) >> 1;
#pragma tamm task label("top")
    rows(C, i0, m, j);
#pragma tamm task label("bottom")
    rows(C, m, i1, j);
}

/* 3. a 2-D split (rows, then columns): ranges in both dimensions, each under the other's precondition */
static void quad(tamm_tensor *C, long i0, long i1, long j0, long j1)
{
    if (i1 - i0 == 1 && j1 - j0 == 1) {
#pragma tamm task label("cell")
        { double *c = tamm_block(C, i0, j0); c[0] *= 2; }
        return;
    }
    if (i1 - i0 >= j1 - j0) {
        long m = (i0 + i1) / 2;
#pragma tamm task label("upper")
        quad(C, i0, m, j0, j1);
#pragma tamm task label("lower")
        quad(C, m, i1, j0, j1);
    } else {
        long m = (j0 + j1) / 2;
#pragma tamm task label("west")
        quad(C, i0, i1, j0, m);
#pragma tamm task label("east")
        quad(C, i0, i1, m, j1);
    }
#pragma tamm taskwait
}

/* 4. the combine step reads P[hi], outside [lo, hi): no range, the whole tensor */
static void past_end(tamm_tensor *P, long lo, long hi)
{
    if (hi - lo < 2) return;
    long mid = lo + (hi - lo) / 2;
#pragma tamm task label("pe_left")
    past_end(P, lo, mid);
#pragma tamm task label("pe_right")
    past_end(P, mid, hi);
#pragma tamm taskwait
#pragma tamm task label("pe_combine")
    { double *a = tamm_block(P, lo); const double *b = tamm_block(P, hi); a[0] += b[0]; }
}

/* 5. a parameter assigned in the body: its value at a task is not the caller's; no range */
static void moved(tamm_tensor *P, long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task label("mv_leaf")
        { double *p = tamm_block(P, lo); p[0] = 1; }
        return;
    }
    long mid = lo + (hi - lo) / 2;
#pragma tamm task label("mv_left")
    moved(P, lo, mid);
    lo = mid;
#pragma tamm task label("mv_right")
    moved(P, lo, hi);
}

/* 6. a split point read from a global: not a function of the parameters; no range */
static void global_split(tamm_tensor *P, long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task label("gs_leaf")
        { double *p = tamm_block(P, lo); p[0] = 1; }
        return;
    }
    long mid = lo + G;
#pragma tamm task label("gs_left")
    global_split(P, lo, mid);
#pragma tamm task label("gs_right")
    global_split(P, mid, hi);
}

/* 7. fib over a tensor (slots 2s+1, 2s+2): no interval of the parameters holds them; the whole tensor */
static void fib(tamm_tensor *F, int n, long slot)
{
    if (n < 2) {
#pragma tamm task label("fib_leaf")
        { int64_t *f = tamm_block(F, slot); f[0] = n; }
        return;
    }
#pragma tamm task label("fib_a")
    fib(F, n - 1, 2 * slot + 1);
#pragma tamm task label("fib_b")
    fib(F, n - 2, 2 * slot + 2);
#pragma tamm taskwait
#pragma tamm task label("fib_sum")
    { int64_t *f = tamm_block(F, slot); const int64_t *a = tamm_block(F, 2 * slot + 1); f[0] += a[0]; }
}

void run(tamm_tensor *X, tamm_tensor *P, tamm_tensor *C, tamm_tensor *F, long n)
{
    sum(X, P, 0, n);
    rows(C, 0, n, 1);
    quad(C, 0, n, 0, n);
    past_end(P, 0, n);
    moved(P, 0, n);
    global_split(P, 0, n);
    fib(F, 5, 0);
#pragma tamm taskwait
}
