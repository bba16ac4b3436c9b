/*
 * infer_modes.c — access modes inferred from how task bodies use tamm_block()
 * pointers directly (no helper functions): read, write (every element stored in
 * a canonical loop nest over the block's extent), accum (only += / -=),
 * readwrite (anything else), on 1-D and 2-D tensors with edge blocks.
 * Differential test: the output must equal the sequential elision's.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void print_tensor(const char *name, tamm_tensor *T)
{
    int64_t h = 0, s = 0;
    long nb0 = tamm_tensor_nblocks(T, 0);
    long nb1 = tamm_tensor_ndim(T) == 2 ? tamm_tensor_nblocks(T, 1) : 1;
    for (long i = 0; i < nb0; i++)
        for (long j = 0; j < nb1; j++) {
            const int64_t *p = tamm_tensor_ndim(T) == 2 ? tamm_block(T, i, j) : tamm_block(T, i);
            size_t n = tamm_block_extent(T, 0, i) * (tamm_tensor_ndim(T) == 2 ? tamm_block_extent(T, 1, j) : 1);
            for (size_t k = 0; k < n; k++) {
                h = (h * 31 + p[k]) % MOD;
                s += p[k];
            }
        }
    printf("%s: sum %" PRId64 " hash %" PRId64 "\n", name, s, h);
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dv[1] = {45}, tv[1] = {8};              /* 6 blocks, the last has 5 elements */
    size_t dm[2] = {13, 10}, tm[2] = {4, 3};       /* 4 x 4 blocks, edge blocks 1 x 1 */
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, dv, tv);
    tamm_tensor *W = tamm_tensor_create("W", TAMM_I64, 1, dv, tv);
    tamm_tensor *M = tamm_tensor_create("M", TAMM_I64, 2, dm, tm);
    if (!V || !W || !M)
        return 1;
    long nv = tamm_tensor_nblocks(V, 0), nm0 = tamm_tensor_nblocks(M, 0), nm1 = tamm_tensor_nblocks(M, 1);

    /* write: a canonical loop over the block's extent */
    for (long b = 0; b < nv; b++) {
        #pragma tamm task
        {
            int64_t *v = tamm_block(V, b);
            for (size_t k = 0; k < tamm_block_extent(V, 0, b); k++)
                v[k] = (int64_t)(b * 100) + (int64_t)k;
        }
    }
    /* write: a canonical 2-D loop nest */
    for (long i = 0; i < nm0; i++)
        for (long j = 0; j < nm1; j++) {
            #pragma tamm task
            {
                int64_t *m = tamm_block(M, i, j);
                size_t r = tamm_block_extent(M, 0, i), c = tamm_block_extent(M, 1, j);
                for (size_t a = 0; a < r; a++)
                    for (size_t e = 0; e < c; e++)
                        m[a * c + e] = (int64_t)((i * 4 + (long)a) * 7 + (j * 3 + (long)e));
            }
        }
    /* read V, write W */
    for (long b = 0; b < nv; b++) {
        #pragma tamm task
        {
            const int64_t *v = tamm_block(V, b);
            int64_t *w = tamm_block(W, b);
            size_t n = tamm_block_extent(W, 0, b);
            for (size_t k = 0; k < n; k++)
                w[k] = v[n - 1 - k] * 2;
        }
    }
    /* accum: several tasks add into the same block of M concurrently */
    for (long b = 0; b < nv; b++)
        for (long j = 0; j < nm1; j++) {
            #pragma tamm task
            {
                const int64_t *w = tamm_block(W, b);
                int64_t *m = tamm_block(M, b % nm0, j);
                size_t n = tamm_block_extent(M, 0, b % nm0) * tamm_block_extent(M, 1, j);
                for (size_t k = 0; k < n; k++)
                    m[k] += w[k % tamm_block_extent(W, 0, b)] + 1;
            }
        }
    /* accum through -= and through a pointer expression */
    for (long b = 0; b < nv; b++) {
        #pragma tamm task
        for (size_t k = 0; k < tamm_block_extent(V, 0, b); k++)
            ((int64_t *)tamm_block(V, b))[k] -= 3;
    }
    /* readwrite: read-modify-write, order-sensitive (x = x * 3 + y) */
    for (int round = 0; round < 3; round++)
        for (long i = 0; i < nm0; i++)
            for (long j = 0; j < nm1; j++) {
                #pragma tamm task
                {
                    int64_t *m = tamm_block(M, i, j);
                    const int64_t *v = tamm_block(V, (i + j + round) % nv);
                    size_t n = tamm_block_extent(M, 0, i) * tamm_block_extent(M, 1, j);
                    for (size_t k = 0; k < n; k++)
                        m[k] = (m[k] * 3 + v[0] + round) % MOD;
                }
            }
    /* readwrite: only some elements stored (not a write) */
    for (long b = 0; b < nv; b += 2) {
        #pragma tamm task
        {
            int64_t *w = tamm_block(W, b);
            w[0] = 42 + b;
        }
    }
    /* readwrite: a prefix sum inside one block */
    for (long b = 0; b < nv; b++) {
        #pragma tamm task
        {
            int64_t *w = tamm_block(W, b);
            for (size_t k = 1; k < tamm_block_extent(W, 0, b); k++)
                w[k] += w[k - 1];
        }
    }
    /* read into a task-local value, then store it: readwrite on one block, read on the other */
    for (long b = 0; b + 1 < nv; b++) {
        #pragma tamm task
        {
            int64_t s = 0;
            const int64_t *w = tamm_block(W, b + 1);
            for (size_t k = 0; k < tamm_block_extent(W, 0, b + 1); k++)
                s = (s * 7 + w[k]) % MOD;
            int64_t *x = tamm_block(W, b);
            x[0] = (x[0] * 3 + s) % MOD;
        }
    }
    #pragma tamm taskwait
    print_tensor("V", V);
    print_tensor("W", W);
    print_tensor("M", M);
    tamm_finalize();
    return 0;
}
