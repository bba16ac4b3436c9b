/*
 * recursion.c — recursive tasks: a function whose body is a `#pragma tamm task`
 * calls itself from inside that task body (so the recursive calls submit nested
 * tasks through the running task's context), waits for them with a taskwait in
 * the body and combines their results in the continuation.  The recursion hides
 * the children's blocks from inference, so the recursive task names its
 * permissions on whole-tensor slices.  Also a recursive divide-and-conquer that
 * only accumulates (no taskwait; each task's own block is disjoint from its
 * descendants').  Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void fill(int64_t *a, size_t n, int64_t seed)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (seed * 41 + (int64_t)k * 3) % 1031;
}

static void leaf(const int64_t *x, int64_t *r, size_t n)
{
    int64_t h = 17;
    for (size_t k = 0; k < n; k++)
        h = (h * 31 + x[k]) % MOD;
    r[0] = h;
}

static void join(int64_t *l, const int64_t *r, long lo, long hi)
{
    l[0] = (l[0] * 1000003 % MOD + r[0] * 7 + lo * 13 + hi) % MOD;
}

/* R[lo] := an order-sensitive hash of blocks [lo, hi) of X */
static void tree(tamm_tensor *X, tamm_tensor *R, long lo, long hi)
{
    #pragma tamm task permission(read: X[:]) permission(readwrite: R[:]) label("tree")
    {
        if (hi - lo == 1) {
            leaf(tamm_block(X, lo), tamm_block(R, lo), tamm_block_extent(X, 0, lo));
        } else {
            long mid = lo + (hi - lo) / 2;
            tree(X, R, lo, mid);
            tree(X, R, mid, hi);
            #pragma tamm taskwait
            join(tamm_block(R, lo), tamm_block(R, mid), lo, hi);
        }
    }
}

/* Adds (depth + 1) to every element of block lo of Y, and recursively to the
 * blocks (lo, hi) through two nested tasks (disjoint from the parent's block). */
static void spread(tamm_tensor *Y, long lo, long hi, int depth)
{
    #pragma tamm task permission(accum: Y) label("spread")
    {
        int64_t *y = tamm_block(Y, lo);
        for (size_t k = 0; k < tamm_block_extent(Y, 0, lo); k++)
            y[k] += (depth + 1) * (int64_t)(k + 1);
        if (hi - lo > 1) {
            long mid = lo + 1 + (hi - lo - 1) / 2;
            spread(Y, lo + 1, mid, depth + 1);
            if (mid < hi)
                spread(Y, mid, hi, depth + 1);
        }
    }
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dx[1] = {100}, tx[1] = {7};     /* 15 blocks, the last has 2 elements */
    tamm_tensor *X = tamm_tensor_create("X", TAMM_I64, 1, dx, tx);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_I64, 1, dx, tx);
    long nb = tamm_tensor_nblocks(X, 0);
    size_t dr[1] = {(size_t)nb}, tr[1] = {1};
    tamm_tensor *R = tamm_tensor_create("R", TAMM_I64, 1, dr, tr);
    if (!X || !Y || !R)
        return 1;
    for (long b = 0; b < nb; b++) {
        #pragma tamm task
        fill(tamm_block(X, b), tamm_block_extent(X, 0, b), b);
    }
    tree(X, R, 0, nb);
    spread(Y, 0, nb, 0);
    spread(Y, 2, 9, 5);       /* overlapping the first: accumulations commute */
    #pragma tamm taskwait
    printf("tree hash %" PRId64 "\n", *(const int64_t *)tamm_block(R, 0));
    int64_t h = 0;
    for (long b = 0; b < nb; b++) {
        const int64_t *y = tamm_block(Y, b);
        for (size_t k = 0; k < tamm_block_extent(Y, 0, b); k++)
            h = (h * 31 + y[k]) % MOD;
    }
    printf("spread hash %" PRId64 "\n", h);
    /* a second, smaller tree on a sub-range, while nothing else runs */
    tree(X, R, 3, 11);
    #pragma tamm taskwait on(R[3])
    printf("sub-tree hash %" PRId64 "\n", *(const int64_t *)tamm_block(R, 3));
    tamm_finalize();
    return 0;
}
