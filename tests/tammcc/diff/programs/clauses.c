/*
 * clauses.c — explicit task clauses, consistent with what the bodies do:
 * read / write / readwrite / accum on blocks, permission(...) on slices
 * (T[i][:], T[:][j], T[:][:]) and on whole tensors, if(0) / if(expr), priority,
 * label; and at the top level `#pragma tamm taskwait on(...)` and
 * `#pragma tamm fence`.  Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void fill(int64_t *a, size_t n, int64_t seed)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (seed * 29 + (int64_t)k * 5) % 1021;
}

static void update(int64_t *a, const int64_t *b, size_t n, size_t m)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 3 + b[k % m]) % MOD;
}

static void add(int64_t *a, const int64_t *b, size_t n, size_t m)
{
    for (size_t k = 0; k < n; k++)
        a[k] += b[k % m] % 100;
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
    size_t dm[2] = {10, 11}, tm[2] = {3, 4};   /* 4 x 3 blocks */
    size_t dv[1] = {17}, tv[1] = {5};           /* 4 blocks */
    tamm_tensor *M = tamm_tensor_create("M", TAMM_I64, 2, dm, tm);
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, dv, tv);
    if (!M || !V)
        return 1;
    long n0 = tamm_tensor_nblocks(M, 0), n1 = tamm_tensor_nblocks(M, 1), nv = tamm_tensor_nblocks(V, 0);
#define MN(i, j) (tamm_block_extent(M, 0, (i)) * tamm_block_extent(M, 1, (j)))

    for (long i = 0; i < n0; i++)
        for (long j = 0; j < n1; j++) {
            #pragma tamm task write(M[i][j]) label("init_M") priority(i)
            fill(tamm_block(M, i, j), MN(i, j), i * 7 + j);
        }
    for (long b = 0; b < nv; b++) {
        #pragma tamm task write(V[b]), label("init_V")
        fill(tamm_block(V, b), tamm_block_extent(V, 0, b), 50 + b);
    }
    #pragma tamm taskwait on(V[0], M[0][0])
    printf("V[0] after init: %" PRId64 "\n", digest(tamm_block(V, 0), tamm_block_extent(V, 0, 0)));

    for (long i = 0; i < n0; i++)
        for (long j = 0; j < n1; j++) {
            #pragma tamm task readwrite(M[i][j]) read(V[(i + j) % nv]) priority((int)(i + j) % 3)
            update(tamm_block(M, i, j), tamm_block(V, (i + j) % nv), MN(i, j), tamm_block_extent(V, 0, (i + j) % nv));
            #pragma tamm task accum(V[j % nv]) read(M[i][j]) if(i % 2)
            add(tamm_block(V, j % nv), tamm_block(M, i, j), tamm_block_extent(V, 0, j % nv), MN(i, j));
        }
    #pragma tamm fence
    /* row tasks with a slice permission for their children */
    for (long i = 0; i < n0; i++) {
        #pragma tamm task permission(readwrite: M[i][:]) permission(read: V) label("row")
        {
            for (long j = 0; j < n1; j++) {
                #pragma tamm task readwrite(M[i][j]) read(V[j])
                update(tamm_block(M, i, j), tamm_block(V, j), MN(i, j), tamm_block_extent(V, 0, j));
            }
        }
    }
    /* column tasks: a slice along the first dimension */
    for (long j = 0; j < n1; j++) {
        #pragma tamm task permission(accum: M[:][j]) label("column")
        {
            for (long i = 0; i < n0; i++) {
                #pragma tamm task accum(M[i][j])
                {
                    int64_t *m = tamm_block(M, i, j);
                    for (size_t k = 0; k < MN(i, j); k++)
                        m[k] += i + j + 1;
                }
            }
        }
    }
    #pragma tamm taskwait on(M[1][:])
    printf("M[1][*] after columns:");
    for (long j = 0; j < n1; j++)
        printf(" %" PRId64, digest(tamm_block(M, 1, j), MN(1, j)));
    printf("\n");
    /* undeferred tasks: the top level continues only after they complete */
    for (long b = 0; b < nv; b++) {
        #pragma tamm task if(0) readwrite(V[b]) label("undeferred")
        {
            int64_t *v = tamm_block(V, b);
            v[0] = (v[0] * 5 + b) % MOD;
        }
    }
    /* whole-tensor permissions and a whole-tensor clause */
    #pragma tamm task permission(readwrite: M) permission(read: V[:]) label("whole")
    {
        for (long i = 0; i < n0; i++) {
            #pragma tamm task readwrite(M[i][0]) read(V[i % nv])
            update(tamm_block(M, i, 0), tamm_block(V, i % nv), MN(i, 0), tamm_block_extent(V, 0, i % nv));
        }
    }
    #pragma tamm task readwrite(V) label("all_of_V")
    {
        for (long b = 1; b < nv; b++) {
            const int64_t *p = tamm_block(V, b - 1);
            int64_t *q = tamm_block(V, b);
            q[0] = (q[0] * 3 + p[0]) % MOD;
        }
    }
    #pragma tamm fence
    #pragma tamm taskwait
    for (long i = 0; i < n0; i++) {
        for (long j = 0; j < n1; j++)
            printf(" %" PRId64, digest(tamm_block(M, i, j), MN(i, j)));
        printf("\n");
    }
    for (long b = 0; b < nv; b++)
        printf("V[%ld] %" PRId64 "\n", b, digest(tamm_block(V, b), tamm_block_extent(V, 0, b)));
    tamm_finalize();
    return 0;
}
