/* recursive_ranges.c — ranges inferred through recursive task functions (rule
 * 38 of docs/language.md), run: each function is called from a task, so every
 * task it submits is checked against the permissions tammcc inferred for the
 * call (a range too narrow fails the run), and the updates are order-sensitive
 * (x = 3x + y), so a dependence missed between overlapping tasks shows in the
 * output.  Functions whose ranges cannot be proved (a read past the end, a
 * parameter assigned, a split point from a global, fib's slots) get whole
 * tensors and must give the same results.  Plain build = oracle. */
#include <tamm.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static long G = 1;

static void sum(tamm_tensor *X, tamm_tensor *P, long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task
        { const int64_t *x = tamm_block(X, lo); int64_t *p = tamm_block(P, lo); p[0] = x[0] + 2 * x[1]; }
        return;
    }
    long mid = lo + (hi - lo) / 2;
#pragma tamm task
    sum(X, P, lo, mid);
#pragma tamm task
    sum(X, P, mid, hi);
#pragma tamm taskwait
#pragma tamm task
    { int64_t *a = tamm_block(P, lo); const int64_t *b = tamm_block(P, mid); a[0] = 3 * a[0] + b[0]; }
}

static void rows(tamm_tensor *C, long i0, long i1, long j)
{
    if (i1 - i0 <= 1) {
        if (i1 - i0 == 1) {
#pragma tamm task
            { int64_t *c = tamm_block(C, i0, j); c[0] = 3 * c[0] + i0; }
        }
        return;
    }
    long m = (i0 + i1) >> 1;
#pragma tamm task
    rows(C, i0, m, j);
#pragma tamm task
    rows(C, m, i1, j);
}

static void quad(tamm_tensor *C, long i0, long i1, long j0, long j1)
{
    if (i1 - i0 == 1 && j1 - j0 == 1) {
#pragma tamm task
        { int64_t *c = tamm_block(C, i0, j0); c[1] = 3 * c[1] + c[0] + j0; }
        return;
    }
    if (i1 - i0 >= j1 - j0) {
        long m = (i0 + i1) / 2;
#pragma tamm task
        quad(C, i0, m, j0, j1);
#pragma tamm task
        quad(C, m, i1, j0, j1);
    } else {
        long m = (j0 + j1) / 2;
#pragma tamm task
        quad(C, i0, i1, j0, m);
#pragma tamm task
        quad(C, i0, i1, m, j1);
    }
#pragma tamm taskwait
}

static void past_end(tamm_tensor *P, long lo, long hi)
{
    if (hi - lo < 2) return;
    long mid = lo + (hi - lo) / 2;
#pragma tamm task
    past_end(P, lo, mid);
#pragma tamm task
    past_end(P, mid, hi);
#pragma tamm taskwait
#pragma tamm task
    { int64_t *a = tamm_block(P, lo); const int64_t *b = tamm_block(P, hi); a[0] = 3 * a[0] + b[0]; }
}

static void moved(tamm_tensor *P, long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task
        { int64_t *p = tamm_block(P, lo); p[0] = 3 * p[0] + lo; }
        return;
    }
    long mid = lo + (hi - lo) / 2;
#pragma tamm task
    moved(P, lo, mid);
    lo = mid;
#pragma tamm task
    moved(P, lo, hi);
}

static void global_split(tamm_tensor *P, long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task
        { int64_t *p = tamm_block(P, lo); p[0] = 3 * p[0] + 1; }
        return;
    }
    long mid = lo + G;
#pragma tamm task
    global_split(P, lo, mid);
#pragma tamm task
    global_split(P, mid, hi);
}

static void fib(tamm_tensor *F, int n, long slot)
{
    if (n < 2) {
#pragma tamm task
        { int64_t *f = tamm_block(F, slot); f[0] = n; }
        return;
    }
#pragma tamm task
    fib(F, n - 1, 2 * slot + 1);
#pragma tamm task
    fib(F, n - 2, 2 * slot + 2);
#pragma tamm taskwait
#pragma tamm task
    {
        int64_t *f = tamm_block(F, slot);
        const int64_t *a = tamm_block(F, 2 * slot + 1), *b = tamm_block(F, 2 * slot + 2);
        f[0] = a[0] + b[0];
    }
}

static int64_t checksum(tamm_tensor *T)
{
    long n0 = tamm_tensor_nblocks(T, 0), n1 = tamm_tensor_ndim(T) > 1 ? tamm_tensor_nblocks(T, 1) : 1;
    int64_t s = 0;
    for (long i = 0; i < n0; i++)
        for (long j = 0; j < n1; j++) {
            const int64_t *b = tamm_tensor_ndim(T) > 1 ? tamm_block(T, i, j) : tamm_block(T, i);
            size_t n = tamm_tensor_ndim(T) > 1 ? tamm_block_elems(T, (const long[]){ i, j }) : tamm_block_elems(T, (const long[]){ i });
            for (size_t e = 0; e < n; e++) s = (s * 31 + b[e]) % 1000000007;
        }
    return s;
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    enum { N = 12 };
    size_t dx[1] = { 2 * N }, tx[1] = { 2 }, dp[1] = { N }, t1[1] = { 1 }, dc[2] = { 2 * N, 2 * N }, tc[2] = { 2, 2 };
    tamm_tensor *X = tamm_tensor_create("X", TAMM_I64, 1, dx, tx);
    tamm_tensor *P = tamm_tensor_create("P", TAMM_I64, 1, dp, t1);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_I64, 2, dc, tc);
    tamm_tensor *F = tamm_tensor_create("F", TAMM_I64, 1, (size_t[]){ 128 }, t1);
    for (long b = 0; b < N; b++) {
        int64_t *x = tamm_block(X, b), *p = tamm_block(P, b);
        x[0] = b % 5 - 2;
        x[1] = b % 3;
        p[0] = b;
        for (long j = 0; j < N; j++) {
            int64_t *c = tamm_block(C, b, j);
            for (int e = 0; e < 4; e++) c[e] = (b * 7 + j * 3 + e) % 9 - 4;
        }
    }
#pragma tamm task
    sum(X, P, 0, N);
#pragma tamm task
    rows(C, 0, N, 5);
#pragma tamm task
    quad(C, 0, N, 0, N);
#pragma tamm taskwait
    printf("sum %" PRId64 " C %" PRId64 "\n", *(const int64_t *)tamm_block(P, 0), checksum(C));
#pragma tamm task
    past_end(P, 0, N - 1);
#pragma tamm taskwait
    printf("past_end %" PRId64 "\n", checksum(P));
#pragma tamm task
    moved(P, 0, N);
#pragma tamm task
    global_split(P, 0, N);
#pragma tamm task
    fib(F, 6, 0);
#pragma tamm taskwait
    printf("moved+global_split %" PRId64 " fib(6) %" PRId64 "\n", checksum(P), *(const int64_t *)tamm_block(F, 0));
    tamm_tensor_destroy(F);
    tamm_tensor_destroy(C);
    tamm_tensor_destroy(P);
    tamm_tensor_destroy(X);
    tamm_finalize();
    return 0;
}
