/*
 * ranges.c — clauses with block ranges T[lo:hi][j] (blocks lo to hi-1):
 * access clauses on ranges whose bodies walk the range in a loop, writers of
 * disjoint ranges side by side, parents holding a ranged permission(...) for
 * nested tasks (loop-indexed, constant and ranged children), a range in a
 * child's clause, taskwait on(range), and parents without clauses whose
 * inferred permissions are their loops' ranges (an empty loop, a loop past
 * the dimension, two levels deep).  Differential test (also run on 2, 3 and
 * 4 ranks by the MPI tests).
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)
#define VB 4 /* elements per block of V */
#define MB 2 /* M's tiles are MB x MB */

static void mix(int64_t *a, const int64_t *b, size_t n, int64_t salt)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 31 + b[k] + salt) % MOD;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dv[1] = {8 * VB}, tv[1] = {VB};          /* 8 blocks */
    size_t dm[2] = {4 * MB, 4 * MB}, tm[2] = {MB, MB}; /* 4 x 4 blocks */
    size_t ds[1] = {4 * VB};                        /* 4 blocks */
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, dv, tv);
    tamm_tensor *M = tamm_tensor_create("M", TAMM_I64, 2, dm, tm);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_I64, 1, ds, tv);
    if (!V || !M || !S)
        return 1;
    long nv = tamm_tensor_nblocks(V, 0);
    for (long b = 0; b < nv; b++) {
        #pragma tamm task write(V[b])
        {
            int64_t *v = tamm_block(V, b);
            for (long k = 0; k < VB; k++)
                v[k] = b * VB + k + 1;
        }
    }
    for (long i = 0; i < 4; i++)
        for (long j = 0; j < 4; j++) {
            #pragma tamm task write(M[i][j])
            {
                int64_t *m = tamm_block(M, i, j);
                for (long k = 0; k < MB * MB; k++)
                    m[k] = 100 * i + 10 * j + k;
            }
        }
    long lo = 0, mid = 4, hi = 8;

    /* readers of a range: the body walks it (indices that vary in the body),
     * the clause's range is the permission */
    for (long s = 0; s < 2; s++) {
        long a = s ? mid : lo, e = s ? hi : mid;
        #pragma tamm task read(V[a:e]) write(S[s])
        {
            int64_t acc[VB] = {0};
            for (long b = a; b < e; b++) {
                const int64_t *v = tamm_block(V, b);
                for (long k = 0; k < VB; k++)
                    acc[k] = (acc[k] * 7 + v[k]) % MOD;
            }
            int64_t *o = tamm_block(S, s);
            for (long k = 0; k < VB; k++)
                o[k] = acc[k];
        }
    }

    /* writers of disjoint ranges, then one across both */
    for (int r = 0; r < 3; r++) {
        #pragma tamm task readwrite(V[lo:mid])
        {
            for (long b = lo; b < mid; b++)
                mix(tamm_block(V, b), tamm_block(V, b), VB, r);
        }
        #pragma tamm task readwrite(V[mid:hi])
        {
            for (long b = mid; b < hi; b++)
                mix(tamm_block(V, b), tamm_block(V, b), VB, 10 + r);
        }
    }
    #pragma tamm task readwrite(V[2:6]) read(S[0:2])
    {
        for (long b = 2; b < 6; b++)
            mix(tamm_block(V, b), tamm_block(S, b % 2), VB, 5);
    }

    /* parents holding ranged permissions; children indexed by the parents' loops */
    #pragma tamm task permission(readwrite: M[0:2][:]) label("rows")
    {
        for (long i = 0; i < 2; i++)
            for (long j = 0; j < 4; j++) {
                #pragma tamm task readwrite(M[i][j]) read(M[1 - i][3 - j])
                mix(tamm_block(M, i, j), tamm_block(M, 1 - i, 3 - j), MB * MB, i + j);
            }
    }
    #pragma tamm task permission(readwrite: M[2:4][1:3]) label("box")
    {
        for (long i = 2; i < 4; i++)
            for (long j = 1; j < 3; j++) {
                #pragma tamm task readwrite(M[i][j])
                mix(tamm_block(M, i, j), tamm_block(M, i, j), MB * MB, 3);
            }
    }
    /* constant children inside a ranged clause of the parent, and a ranged child */
    #pragma tamm task permission(read: M[0:4][0]) permission(accum: V[0:8]) label("consts")
    {
        #pragma tamm task read(M[1][0]) read(M[3][0]) accum(V[0])
        {
            const int64_t *x = tamm_block(M, 1, 0), *y = tamm_block(M, 3, 0);
            int64_t *v = tamm_block(V, 0);
            for (long k = 0; k < VB; k++)
                v[k] += x[k % (MB * MB)] + y[k % (MB * MB)];
        }
        #pragma tamm task read(M[0:4][0]) accum(V[7])
        {
            int64_t *v = tamm_block(V, 7);
            for (long i = 0; i < 4; i++) {
                const int64_t *x = tamm_block(M, i, 0);
                for (long k = 0; k < VB; k++)
                    v[k] += x[k % (MB * MB)];
            }
        }
    }
    /* parents without clauses over loops: their inferred permissions are the
     * loops' ranges (clamped to the dimension; the whole dimension when empty) */
    long zero = 0, over = nv + 3;
    for (int half = 0; half < 2; half++) {
        long from = half * 4, to = from + 4;
        #pragma tamm task label("loop_parent")
        {
            for (long j = from; j < to; j++) {
                #pragma tamm task readwrite(V[j])
                mix(tamm_block(V, j), tamm_block(V, j), VB, 20 + j);
            }
        }
    }
    #pragma tamm task label("empty_loop")
    {
        for (long j = zero; j < zero; j++) {
            #pragma tamm task write(V[j])
            {
                int64_t *v = tamm_block(V, j);
                for (long k = 0; k < VB; k++)
                    v[k] = -1;
            }
        }
    }
    #pragma tamm task label("guarded_loop")
    {
        for (long j = 2; j < over; j++) {
            if (j < nv) {
                #pragma tamm task accum(V[j])
                {
                    int64_t *v = tamm_block(V, j);
                    v[1] += j;
                }
            }
        }
    }
    #pragma tamm task label("outer")
    {
        for (long i = 0; i < 2; i++) {
            #pragma tamm task label("inner")
            {
                for (long j = 1; j < 3; ++j) {
                    #pragma tamm task readwrite(M[i][j])
                    mix(tamm_block(M, i, j), tamm_block(M, i, j), MB * MB, 7);
                }
            }
        }
    }
    #pragma tamm taskwait on(V[0:4], M[0:2][0:4])
    const int64_t *v0 = tamm_block(V, 0);
    printf("after taskwait on ranges: V[0] %" PRId64 "\n", v0[0]);
    #pragma tamm taskwait
    for (long b = 0; b < nv; b++) {
        const int64_t *v = tamm_block(V, b);
        printf("V[%ld] %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", b, v[0], v[1], v[2], v[3]);
    }
    for (long b = 0; b < 2; b++) {
        const int64_t *v = tamm_block(S, b);
        printf("S[%ld] %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", b, v[0], v[1], v[2], v[3]);
    }
    for (long i = 0; i < 4; i++)
        for (long j = 0; j < 4; j++) {
            const int64_t *m = tamm_block(M, i, j);
            printf("M[%ld][%ld] %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", i, j, m[0], m[1], m[2], m[3]);
        }
    tamm_finalize();
    return 0;
}
