/* taskfn_recursion.c — task functions (docs/language.md "Task functions"): #pragma tamm task and
 * taskwait inside ordinary functions, called from the top level and from
 * tasks, at any depth and in recursion, written the OpenMP way:
 *   - a tree reduction over a tensor (recursion on [lo, hi));
 *   - fib over a tensor (each call writes its result into a block);
 *   - a recursive blocked GEMM splitting i, j and k (k halves accumulate);
 *   - a plain helper (no pragma) that calls a task function from a task.
 * The plain build (pragmas ignored) is the oracle. */
#include <tamm.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define NB 16 /* blocks of the reduction */
#define BS 4  /* elements per block */

static tamm_tensor *X, *S;

/* S[lo] = sum of X[lo..hi) */
static void treesum(long lo, long hi)
{
    if (hi - lo == 1) {
#pragma tamm task
        {
            const int64_t *x = tamm_block(X, lo);
            int64_t *s = tamm_block(S, lo);
            int64_t acc = 0;
            for (int e = 0; e < BS; e++) acc += x[e] * (e + 1);
            s[0] = acc;
        }
        return;
    }
    long mid = (lo + hi) / 2;
#pragma tamm task
    treesum(lo, mid);
#pragma tamm task
    treesum(mid, hi);
#pragma tamm taskwait
#pragma tamm task
    {
        int64_t *a = tamm_block(S, lo);
        const int64_t *b = tamm_block(S, mid);
        a[0] = a[0] * 3 + b[0]; /* order-sensitive: the tree's shape shows */
    }
}

/* F[slot] = fib(n), with F a tensor parameter; children use slots 2*slot+1, 2*slot+2 */
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
        const int64_t *a = tamm_block(F, 2 * slot + 1);
        const int64_t *b = tamm_block(F, 2 * slot + 2);
        f[0] = a[0] + b[0];
    }
}

/* C[i0..i1)[j0..j1) += A[i][k] * B[k][j] over k0..k1, blocks of BS x BS */
static void rgemm(tamm_tensor *A, tamm_tensor *B, tamm_tensor *C, long i0, long i1, long j0, long j1, long k0, long k1)
{
    if (i1 - i0 == 1 && j1 - j0 == 1 && k1 - k0 == 1) {
#pragma tamm task
        {
            const int64_t *a = tamm_block(A, i0, k0);
            const int64_t *b = tamm_block(B, k0, j0);
            int64_t *c = tamm_block(C, i0, j0);
            for (int i = 0; i < BS; i++)
                for (int j = 0; j < BS; j++) {
                    int64_t s = 0;
                    for (int k = 0; k < BS; k++) s += a[i * BS + k] * b[k * BS + j];
                    c[i * BS + j] += s;
                }
        }
        return;
    }
    if (i1 - i0 >= j1 - j0 && i1 - i0 >= k1 - k0) {
        long m = (i0 + i1) / 2;
#pragma tamm task
        rgemm(A, B, C, i0, m, j0, j1, k0, k1);
#pragma tamm task
        rgemm(A, B, C, m, i1, j0, j1, k0, k1);
    } else if (j1 - j0 >= k1 - k0) {
        long m = (j0 + j1) / 2;
#pragma tamm task
        rgemm(A, B, C, i0, i1, j0, m, k0, k1);
#pragma tamm task
        rgemm(A, B, C, i0, i1, m, j1, k0, k1);
    } else {
        long m = (k0 + k1) / 2;
        rgemm(A, B, C, i0, i1, j0, j1, k0, m);
#pragma tamm taskwait
        rgemm(A, B, C, i0, i1, j0, j1, m, k1);
    }
#pragma tamm taskwait
}

/* no pragma of its own: a task that calls it is the parent of fib's tasks */
static void fib_twice(tamm_tensor *F, tamm_tensor *G, int n)
{
    fib(F, n, 0);
    fib(G, n - 1, 0);
}

static void fill(tamm_tensor *T, int64_t seed)
{
    long n0 = tamm_tensor_nblocks(T, 0), n1 = tamm_tensor_ndim(T) > 1 ? tamm_tensor_nblocks(T, 1) : 1;
    for (long i = 0; i < n0; i++)
        for (long j = 0; j < n1; j++) {
            int64_t *b = tamm_tensor_ndim(T) > 1 ? tamm_block(T, i, j) : tamm_block(T, i);
            size_t n = tamm_tensor_ndim(T) > 1 ? tamm_block_elems(T, (const long[]){ i, j }) : tamm_block_elems(T, (const long[]){ i });
            for (size_t e = 0; e < n; e++) b[e] = (int64_t)((seed + 7 * i + 3 * j + 5 * (long)e) % 11) - 5;
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
    size_t dx[1] = { NB * BS }, tx[1] = { BS }, ds[1] = { NB }, t1[1] = { 1 };
    X = tamm_tensor_create("X", TAMM_I64, 1, dx, tx);
    S = tamm_tensor_create("S", TAMM_I64, 1, ds, t1);
    fill(X, 1);
    treesum(0, NB); /* from the top level */
#pragma tamm taskwait
    printf("treesum: %" PRId64 " (checksum %" PRId64 ")\n", *(const int64_t *)tamm_block(S, 0), checksum(S));

    size_t df[1] = { 256 };
    tamm_tensor *F = tamm_tensor_create("F", TAMM_I64, 1, df, t1);
    tamm_tensor *G = tamm_tensor_create("G", TAMM_I64, 1, df, t1);
#pragma tamm task
    fib(F, 7, 0); /* from a task */
#pragma tamm taskwait
    printf("fib(7) = %" PRId64 "\n", *(const int64_t *)tamm_block(F, 0));
#pragma tamm task
    fib_twice(F, G, 6); /* through a helper without pragmas */
#pragma tamm taskwait
    printf("fib(6) = %" PRId64 ", fib(5) = %" PRId64 "\n", *(const int64_t *)tamm_block(F, 0),
           *(const int64_t *)tamm_block(G, 0));

    const long NG = 4;
    size_t dg[2] = { NG * BS, NG * BS }, tg[2] = { BS, BS };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 2, dg, tg);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 2, dg, tg);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_I64, 2, dg, tg);
    fill(A, 2);
    fill(B, 3);
    fill(C, 4);
#pragma tamm task
    rgemm(A, B, C, 0, NG, 0, NG, 0, NG);
#pragma tamm taskwait
    printf("rgemm: checksum %" PRId64 "\n", checksum(C));

    tamm_tensor_destroy(C);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(G);
    tamm_tensor_destroy(F);
    tamm_tensor_destroy(S);
    tamm_tensor_destroy(X);
    tamm_finalize();
    return 0;
}
