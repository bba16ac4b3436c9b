/*
 * helpers.c — inference through calls to functions defined in the same file:
 * const pointer parameters (read), TAMM_READS / TAMM_WRITES / TAMM_UPDATES /
 * TAMM_ACCUMULATES annotations (one on a declaration whose definition comes
 * after main), a helper calling another helper, a non-const parameter that is
 * only read, an escape into a library function (memcpy: readwrite for its
 * non-const destination, read for its const source), and a helper called twice
 * in one task.  Differential test: output must equal the sequential elision's.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MOD ((int64_t)1000000007)

/* write: every element stored, canonical loop */
static void fill(int64_t *a, size_t n, int64_t seed)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (seed * 131 + (int64_t)k * 17) % 1009;
}

/* accum by inference: only += into dst; src const */
static void add_into(int64_t *dst, const int64_t *src, size_t n, size_t m)
{
    for (size_t k = 0; k < n; k++)
        dst[k] += src[k % m];
}

/* declared with annotations here, defined after main */
static void axpy(TAMM_ACCUMULATES int64_t *y, TAMM_READS const int64_t *x, size_t n, size_t m, int64_t a);

/* readwrite (annotated) */
static void mix(TAMM_UPDATES int64_t *a, size_t n, int64_t c)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 3 + c) % MOD;
}

/* write (annotated): every element stored */
static void copy_scaled(TAMM_WRITES int64_t *dst, const int64_t *src, size_t n, size_t m)
{
    for (size_t k = 0; k < n; k++)
        dst[k] = src[(k * 7) % m] * 5 % MOD;
}

/* b is not const but only read: the body decides (read) */
static void combine(int64_t *a, int64_t *b, size_t n, size_t m)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 7 + b[k % m]) % MOD;
}

/* calls other helpers: inference follows the calls */
static void combine_twice(int64_t *a, const int64_t *b, size_t n, size_t m)
{
    combine(a, (int64_t *)b, n, m);
    mix(a, n, 11);
    combine(a, (int64_t *)b, n, m);
}

/* escape into memcpy: dst readwrite (conservatively), src read */
static void copy_raw(int64_t *dst, const int64_t *src, size_t n, size_t m)
{
    memcpy(dst, src, (n < m ? n : m) * sizeof *dst);
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
    size_t d[1] = {50}, t[1] = {7};    /* 8 blocks, the last has 1 element */
    size_t d2[2] = {9, 9}, t2[2] = {4, 4};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 1, d, t);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_I64, 1, d, t);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_I64, 2, d2, t2);
    if (!A || !B || !C)
        return 1;
    long na = tamm_tensor_nblocks(A, 0), nc = tamm_tensor_nblocks(C, 0);

    for (long b = 0; b < na; b++) {
        #pragma tamm task
        fill(tamm_block(A, b), tamm_block_extent(A, 0, b), b + 1);
        #pragma tamm task
        fill(tamm_block(B, b), tamm_block_extent(B, 0, b), 2 * b + 5);
    }
    for (long i = 0; i < nc; i++)
        for (long j = 0; j < nc; j++) {
            #pragma tamm task
            fill(tamm_block(C, i, j), tamm_block_extent(C, 0, i) * tamm_block_extent(C, 1, j), i * 10 + j);
        }
    /* accumulations into the blocks of C, from A and B, all commutative */
    for (long i = 0; i < nc; i++)
        for (long j = 0; j < nc; j++)
            for (long b = 0; b < na; b++) {
                #pragma tamm task
                add_into(tamm_block(C, i, j), tamm_block(A, b),
                         tamm_block_extent(C, 0, i) * tamm_block_extent(C, 1, j), tamm_block_extent(A, 0, b));
                #pragma tamm task
                axpy(tamm_block(C, i, j), tamm_block(B, b),
                     tamm_block_extent(C, 0, i) * tamm_block_extent(C, 1, j), tamm_block_extent(B, 0, b), b + 1);
            }
    /* order-sensitive updates */
    for (int round = 0; round < 2; round++)
        for (long b = 0; b < na; b++) {
            #pragma tamm task
            combine(tamm_block(A, b), tamm_block(B, (b + round + 1) % na), tamm_block_extent(A, 0, b),
                    tamm_block_extent(B, 0, (b + round + 1) % na));
            #pragma tamm task
            combine_twice(tamm_block(B, b), tamm_block(A, (b + 1) % na), tamm_block_extent(B, 0, b),
                          tamm_block_extent(A, 0, (b + 1) % na));
            #pragma tamm task
            mix(tamm_block(A, b), tamm_block_extent(A, 0, b), round);
        }
    /* writes from other blocks, and an escape */
    for (long b = 0; b + 1 < na; b += 2) {
        #pragma tamm task
        copy_scaled(tamm_block(B, b), tamm_block(A, b + 1), tamm_block_extent(B, 0, b), tamm_block_extent(A, 0, b + 1));
        #pragma tamm task
        copy_raw(tamm_block(A, b), tamm_block(B, b + 1), tamm_block_extent(A, 0, b), tamm_block_extent(B, 0, b + 1));
    }
    /* the same helper twice in one task on different blocks, and a read-only helper */
    for (long i = 0; i < nc; i++) {
        #pragma tamm task
        {
            size_t n = tamm_block_extent(C, 0, i) * tamm_block_extent(C, 1, 0);
            mix(tamm_block(C, i, 0), n, digest(tamm_block(A, i), tamm_block_extent(A, 0, i)));
            mix(tamm_block(C, i, nc - 1), tamm_block_extent(C, 0, i) * tamm_block_extent(C, 1, nc - 1),
                digest(tamm_block(B, i), tamm_block_extent(B, 0, i)));
        }
    }
    #pragma tamm taskwait
    int64_t h = 0;
    for (long b = 0; b < na; b++) {
        h = (h * 31 + digest(tamm_block(A, b), tamm_block_extent(A, 0, b))) % MOD;
        h = (h * 31 + digest(tamm_block(B, b), tamm_block_extent(B, 0, b))) % MOD;
    }
    printf("A,B digest %" PRId64 "\n", h);
    for (long i = 0; i < nc; i++) {
        for (long j = 0; j < nc; j++)
            printf(" %" PRId64, digest(tamm_block(C, i, j), tamm_block_extent(C, 0, i) * tamm_block_extent(C, 1, j)));
        printf("\n");
    }
    tamm_finalize();
    return 0;
}

static void axpy(int64_t *y, const int64_t *x, size_t n, size_t m, int64_t a)
{
    for (size_t k = 0; k < n; k++)
        y[k] += a * x[k % m];
}
