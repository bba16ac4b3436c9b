/*
 * nesting.c — nested tasks: children (and grandchildren) submitted from task
 * bodies, capturing the enclosing loop variables and body locals by value;
 * parents' permissions inferred as the union of their own accesses and their
 * children's (widened to slices where an index varies in the body); a parent
 * that works on its own blocks while its children run, then a taskwait and a
 * read of the children's results.  Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void fill(int64_t *a, size_t n, int64_t seed)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (seed * 37 + (int64_t)k * 11) % 997;
}

static void step(int64_t *a, const int64_t *b, size_t n, size_t m, int64_t c)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 3 + b[k % m] + c) % MOD;
}

static void bump(int64_t *a, size_t n, int64_t v)
{
    for (size_t k = 0; k < n; k++)
        a[k] += v;
}

static int64_t digest(const int64_t *a, size_t n)
{
    int64_t h = 0;
    for (size_t k = 0; k < n; k++)
        h = (h * 31 + a[k]) % MOD;
    return h;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dg[2] = {14, 23}, tg[2] = {4, 5};      /* 4 x 5 blocks with edges */
    size_t dr[1] = {4}, tr[1] = {1};               /* one result per row of blocks */
    size_t dx[1] = {30}, tx[1] = {6};
    tamm_tensor *G = tamm_tensor_create("G", TAMM_I64, 2, dg, tg);
    tamm_tensor *R = tamm_tensor_create("R", TAMM_I64, 1, dr, tr);
    tamm_tensor *X = tamm_tensor_create("X", TAMM_I64, 1, dx, tx);
    if (!G || !R || !X)
        return 1;
    long nr = tamm_tensor_nblocks(G, 0), nc = tamm_tensor_nblocks(G, 1), nx = tamm_tensor_nblocks(X, 0);

    /* one task per row of blocks; its children fill the row (G[i][:] inferred) */
    for (long i = 0; i < nr; i++) {
        #pragma tamm task label("row_init")
        {
            for (long j = 0; j < nc; j++) {
                #pragma tamm task label("fill")
                fill(tamm_block(G, i, j), tamm_block_extent(G, 0, i) * tamm_block_extent(G, 1, j), i * 10 + j);
            }
        }
    }
    for (long b = 0; b < nx; b++) {
        #pragma tamm task
        fill(tamm_block(X, b), tamm_block_extent(X, 0, b), 100 + b);
    }

    /* three levels: row task -> block tasks -> per-round grandchildren; the row
       task then reads its row (after a taskwait) and writes R[i] */
    for (long i = 0; i < nr; i++) {
        #pragma tamm task label("row")
        {
            for (long j = 0; j < nc; j++) {
                int64_t c = i * 100 + j;             /* a body local, captured by the child */
                #pragma tamm task label("block")
                {
                    for (int round = 0; round < 2; round++) {
                        #pragma tamm task label("round")
                        step(tamm_block(G, i, j), tamm_block(X, (i + j + round) % nx),
                             tamm_block_extent(G, 0, i) * tamm_block_extent(G, 1, j),
                             tamm_block_extent(X, 0, (i + j + round) % nx), c + round);
                    }
                }
            }
            #pragma tamm taskwait
            int64_t h = i;
            for (long j = 0; j < nc; j++)
                h = (h * 31 + digest(tamm_block(G, i, j), tamm_block_extent(G, 0, i) * tamm_block_extent(G, 1, j))) % MOD;
            int64_t *r = tamm_block(R, i);
            r[0] = h;
        }
    }

    /* a parent that accumulates into X[0] itself while its children update the
       other blocks of X (disjoint blocks), then reads them all */
    #pragma tamm task label("parent")
    {
        for (long b = 1; b < nx; b++) {
            #pragma tamm task label("child")
            bump(tamm_block(X, b), tamm_block_extent(X, 0, b), b * 1000);
        }
        bump(tamm_block(X, 0), tamm_block_extent(X, 0, 0), 7);
        #pragma tamm taskwait
        int64_t s = 0;
        for (long b = 1; b < nx; b++)
            s = (s * 31 + digest(tamm_block(X, b), tamm_block_extent(X, 0, b))) % MOD;
        int64_t *x0 = tamm_block(X, 0);
        x0[0] = (x0[0] * 3 + s) % MOD;
    }

    /* children that accumulate into the same block concurrently */
    #pragma tamm task label("acc_parent")
    {
        for (int k = 0; k < 6; k++) {
            #pragma tamm task label("acc_child")
            bump(tamm_block(R, k % 2), 1, k + 1);
        }
    }
    #pragma tamm taskwait
    for (long i = 0; i < nr; i++)
        printf("R[%ld] = %" PRId64 "\n", i, *(const int64_t *)tamm_block(R, i));
    int64_t h = 0;
    for (long b = 0; b < nx; b++)
        h = (h * 31 + digest(tamm_block(X, b), tamm_block_extent(X, 0, b))) % MOD;
    printf("X digest %" PRId64 "\n", h);
    tamm_finalize();
    return 0;
}
