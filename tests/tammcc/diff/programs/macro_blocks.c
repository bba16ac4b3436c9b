/*
 * macro_blocks.c — block references behind the user's macros: `#define BLK(i,
 * j) tamm_block(A, i, j)` and the variadic `#define BLKV(...) tamm_block(A,
 * __VA_ARGS__)` in task bodies (also inside another macro's arguments, and
 * with an index that is itself a macro) and at top level, a macro that
 * stringifies its tensor argument, one with GNU `, ## __VA_ARGS__`, and a
 * clause naming a block through a macro.  Before tammcc expanded these macros
 * in place, the tasks fetched their blocks synchronously, without permission:
 * every run stopped with TAMM_EPERM.  Differential test.
 */
#include <tamm.h>

#include <stdint.h>
#include <stdio.h>

#define BLK(i, j) tamm_block(A, i, j)
#define BLKV(...) tamm_block(A, __VA_ARGS__)
#define ROW(i) BLKV(i, LAST)
#define LAST 2
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SHOW(T, ...) show(#T, tamm_block(T, __VA_ARGS__))
#define SUM(T, i, j, ...) sum(tamm_block(T, i, j), 0, ##__VA_ARGS__)

static int64_t show(const char *name, const int64_t *x)
{
    printf("%s: %lld %lld\n", name, (long long)x[0], (long long)x[5]);
    return x[0];
}

static int64_t sum(const int64_t *x, int from, ...)
{
    int64_t s = 0;
    for (int k = from; k < 16; k++) s += x[k];
    return s;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[2] = { 12, 12 }, t[2] = { 4, 4 }, ds[1] = { 48 }, ts[1] = { 16 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 2, d, t);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_I64, 1, ds, ts);
    for (long i = 0; i < 3; i++)
        for (long j = 0; j < 3; j++) {
            #pragma tamm task
            {
                int64_t *a = BLK(i, j);
                for (int k = 0; k < 16; k++) a[k] = i * 10 + j + k;
            }
        }
    for (long i = 0; i < 3; i++) {
        #pragma tamm task
        {
            int64_t *a = BLKV(i, 0);
            const int64_t *b = ROW(i);
            const int64_t *c = BLKV(i, 1);
            for (int k = 0; k < 16; k++) a[k] += MAX(b[k], ((const int64_t *)BLK(i, 1))[0]) - c[k];
        }
    }
    for (long i = 0; i < 3; i++) {
        #pragma tamm task write(S[i]) read(A[i][LAST])
        {
            int64_t *s = tamm_block(S, i);
            for (int k = 0; k < 16; k++) s[k] = k == 0 ? SUM(A, i, LAST) : k == 1 ? SUM(A, i, LAST, 7) : 0;
        }
    }
    #pragma tamm taskwait
    int64_t h = 0;
    for (long i = 0; i < 3; i++)
        for (long j = 0; j < 3; j++) {
            const int64_t *a = BLK(i, j);
            for (int k = 0; k < 16; k++) h = (h * 7 + a[k]) % 1000000007;
        }
    printf("A: %lld\n", (long long)h);
    SHOW(A, 1, 0);
    SHOW(S, 2);
    tamm_tensor_destroy(S);
    tamm_tensor_destroy(A);
    tamm_finalize();
    return 0;
}
