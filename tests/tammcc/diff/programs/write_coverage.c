/*
 * write_coverage.c — stores that look like a full overwrite of a block but
 * are not: tammcc must infer readwrite for them, never write.  Under write the
 * runtime need not fetch the block's values into the task's buffer (a GPU's
 * or another rank's copy starts uninitialised), so the elements the task does
 * not store would lose the values the block held.  Each case overwrites only
 * part of its block (or none of it), inside what is otherwise a canonical
 * loop nest: the callee assigns its bound parameter before the loop; the loop
 * variable or the bound is changed in the loop body, also through a pointer;
 * an early return or a break; a bound that is a local of the callee (with a
 * variable of the same name at the call site); the store or the call under an
 * if, or in a loop that runs zero times; one of the two blocks of a ?: ; a
 * narrowing cast in the index; a multiplier that names a shadowing local; a
 * callee whose arguments name the callee's other parameters.  Plus one true
 * full overwrite, which stays write.  Differential test.  On one rank without
 * GPUs a write task works in the block's home memory, where the old values
 * survive anyway; the inference itself is checked by the tests/tammcc/front golden
 * coverage.explain.check.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void set_halved(int64_t *p, long n, int64_t v)
{
    n = n / 2;
    for (long i = 0; i < n; i++)
        p[i] = v;
}

static void set_skipping(int64_t *p, long n, int64_t v)
{
    for (long i = 0; i < n; i++) {
        p[i] = v;
        i++;
    }
}

static void set_shrinking(int64_t *p, long n, int64_t v)
{
    for (long i = 0; i < n; i++) {
        p[i] = v;
        n--;
    }
}

static void set_through_pointer(int64_t *p, long n, int64_t v)
{
    long *q = &n;
    for (long i = 0; i < n; i++) {
        p[i] = v;
        (*q)--;
    }
}

static void set_unless(int64_t *p, long n, int64_t v, int skip)
{
    if (skip)
        return;
    for (long i = 0; i < n; i++)
        p[i] = v;
}

static void set_until(int64_t *p, long n, int64_t v, long stop)
{
    for (long i = 0; i < n; i++) {
        if (i == stop)
            break;
        p[i] = v;
    }
}

static void set_three(int64_t *p, int64_t v)
{
    long n = 3;
    for (long i = 0; i < n; i++)
        p[i] = v;
}

static void set_all(int64_t *p, long n, int64_t v)
{
    for (long i = 0; i < n; i++)
        p[i] = v;
}

static void set_narrow(int64_t *p, long n, int64_t v)
{
    for (long i = 0; i < n; i++)
        p[(unsigned char)i] = v;
}

static void set_shadowed(int64_t *p, long rows, long cols, int64_t v)
{
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            long cols = 1;
            p[i * cols + j] = v;
        }
}

static void set_rect(int64_t *p, long r, long c, int64_t v)
{
    for (long i = 0; i < r; i++)
        for (long j = 0; j < c; j++)
            p[i * c + j] = v;
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
    enum { NV = 16 };
    size_t dv[1] = {16 * NV}, tv[1] = {16}; /* NV blocks of 16 */
    size_t dw[1] = {300}, tw[1] = {300};    /* one block of 300: more than a byte can index */
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, dv, tv);
    tamm_tensor *W = tamm_tensor_create("W", TAMM_I64, 1, dw, tw);
    if (!V || !W)
        return 1;
    long n = 16, c = 1, zero = 0;
    int yes = 1, no = 0;

    for (long b = 0; b < NV; b++) {
        #pragma tamm task readwrite(V[b])
        {
            int64_t *v = tamm_block(V, b);
            for (long k = 0; k < n; k++)
                v[k] = b * 1000 + k + 1;
        }
    }
    #pragma tamm task readwrite(W[0])
    {
        int64_t *w = tamm_block(W, 0);
        for (long k = 0; k < 300; k++)
            w[k] = 7 * k + 3;
    }

    #pragma tamm task
    set_halved(tamm_block(V, 0), n, -1);
    #pragma tamm task
    set_skipping(tamm_block(V, 1), n, -2);
    #pragma tamm task
    set_shrinking(tamm_block(V, 2), n, -3);
    #pragma tamm task
    set_through_pointer(tamm_block(V, 3), n, -4);
    #pragma tamm task
    set_unless(tamm_block(V, 4), n, -5, yes);
    #pragma tamm task
    set_until(tamm_block(V, 5), n, -6, 5);
    #pragma tamm task
    set_three(tamm_block(V, 6), -7);
    #pragma tamm task
    if (no)
        set_all(tamm_block(V, 7), n, -8);
    #pragma tamm task
    {
        int64_t *v = tamm_block(V, 8);
        if (no)
            for (long k = 0; k < n; k++)
                v[k] = -9;
    }
    #pragma tamm task
    for (long r = 0; r < zero; r++)
        set_all(tamm_block(V, 9), n, -10);
    #pragma tamm task
    {
        int64_t *x = tamm_block(V, 10), *y = tamm_block(V, 11);
        for (long k = 0; k < n; k++)
            (yes ? x : y)[k] = -11;
    }
    #pragma tamm task
    {
        int64_t *v = tamm_block(V, 12);
        for (long k = 0; k < n; k++) {
            v[k] = -12;
            k++;
        }
    }
    #pragma tamm task
    set_shadowed(tamm_block(V, 13), 4, 4, -13);
    #pragma tamm task
    set_rect(tamm_block(V, 14), c, 8, -14); /* c (1) row of 8: half the block */
    #pragma tamm task
    set_all(tamm_block(V, 15), n, -15);          /* a true overwrite: write */
    #pragma tamm task
    set_narrow(tamm_block(W, 0), 300, -16);

    #pragma tamm taskwait
    for (long b = 0; b < NV; b++) {
        const int64_t *v = tamm_block(V, b);
        printf("V[%ld] %" PRId64 ":", b, digest(v, 16));
        for (long k = 0; k < 16; k++)
            printf(" %" PRId64, v[k]);
        printf("\n");
    }
    printf("W[0] %" PRId64 "\n", digest(tamm_block(W, 0), 300));
    tamm_finalize();
    return 0;
}
