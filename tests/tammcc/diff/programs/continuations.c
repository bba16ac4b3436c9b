/*
 * continuations.c — `#pragma tamm taskwait` inside task bodies: at the body's
 * top level, inside `if` / `else`, inside `for` and `while` loops (the loop
 * becomes a continuation that re-submits itself), in nested loops, with body
 * locals live across the taskwait (including a small array), and with a branch
 * whose condition depends on data read after a taskwait.  A body reads, after
 * a taskwait, only blocks that the nested tasks it submits later do not touch.
 * Differential test.
 */
#include <tamm.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define MOD ((int64_t)1000000007)

static void fill(int64_t *a, size_t n, int64_t seed)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (seed * 53 + (int64_t)k * 7) % 1013;
}

static void step(int64_t *a, size_t n, int64_t c)
{
    for (size_t k = 0; k < n; k++)
        a[k] = (a[k] * 3 + c + (int64_t)k) % MOD;
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
    size_t d[1] = {40}, t[1] = {6};   /* 7 blocks, the last has 4 elements */
    size_t ds[1] = {8}, ts[1] = {1}, dd[1] = {10};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 1, d, t);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_I64, 1, ds, ts);   /* results, one element per block */
    tamm_tensor *D = tamm_tensor_create("D", TAMM_I64, 1, dd, ts);   /* probes, one element per block */
    if (!A || !S || !D)
        return 1;
    long na = tamm_tensor_nblocks(A, 0);
    for (long b = 0; b < na; b++) {
        #pragma tamm task
        fill(tamm_block(A, b), tamm_block_extent(A, 0, b), b);
    }

    /* taskwait in a for loop; a local carried across iterations.  (The body
       reads only blocks that no later child touches: D[it].) */
    #pragma tamm task label("for_loop")
    {
        int64_t acc = 5;
        for (int it = 0; it < 4; it++) {
            for (long b = 0; b < na; b++) {
                #pragma tamm task label("step")
                step(tamm_block(A, b), tamm_block_extent(A, 0, b), it * 10 + b);
            }
            #pragma tamm task label("probe")
            {
                int64_t *dd = tamm_block(D, it);
                dd[0] = digest(tamm_block(A, it % na), tamm_block_extent(A, 0, it % na));
            }
            #pragma tamm taskwait
            acc = (acc * 7 + ((const int64_t *)tamm_block(D, it))[0]) % MOD;
        }
        int64_t *s = tamm_block(S, 0);
        s[0] = acc;
    }

    /* taskwait in a while loop whose condition depends on data */
    #pragma tamm task label("while_loop")
    {
        int rounds = 0;
        int64_t v = 0;
        while (rounds < 6 && v % 7 != 6) {
            #pragma tamm task label("w_step")
            step(tamm_block(A, 1), tamm_block_extent(A, 0, 1), rounds);
            #pragma tamm task label("w_probe")
            {
                int64_t *dd = tamm_block(D, 4 + rounds);
                dd[0] = ((const int64_t *)tamm_block(A, 1))[0];
            }
            #pragma tamm taskwait
            v = ((const int64_t *)tamm_block(D, 4 + rounds))[0];
            rounds++;
        }
        int64_t *s = tamm_block(S, 1);
        s[0] = rounds * 1000000 + v % 1000000;
    }

    /* taskwait in if / else branches, chosen by data read in the body */
    for (long b = 0; b < na; b++) {
        #pragma tamm task label("branches")
        {
            int64_t first = ((const int64_t *)tamm_block(A, b))[0];
            if (first % 2 == 0) {
                #pragma tamm task
                step(tamm_block(A, (b + 1) % na), tamm_block_extent(A, 0, (b + 1) % na), 1);
                #pragma tamm taskwait
                first += ((const int64_t *)tamm_block(A, (b + 1) % na))[0];
            } else {
                #pragma tamm task
                step(tamm_block(A, (b + 2) % na), tamm_block_extent(A, 0, (b + 2) % na), 2);
                #pragma tamm task
                step(tamm_block(A, (b + 3) % na), tamm_block_extent(A, 0, (b + 3) % na), 3);
                #pragma tamm taskwait
                first -= ((const int64_t *)tamm_block(A, (b + 2) % na))[0];
            }
            int64_t *s = tamm_block(S, 2 + b % 3);
            s[0] = (s[0] * 3 + first) % MOD;
        }
    }

    /* nested loops, a taskwait in the inner one, a local array live across it */
    #pragma tamm task label("nested_loops")
    {
        int64_t hist[4] = {0, 0, 0, 0};
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 4; j++) {
                #pragma tamm task
                step(tamm_block(A, (i * 4 + j) % na), tamm_block_extent(A, 0, (i * 4 + j) % na), i - j);
                if (j % 2 == 1) {
                    #pragma tamm taskwait
                    hist[j] += digest(tamm_block(A, (i * 4 + j) % na), tamm_block_extent(A, 0, (i * 4 + j) % na));
                }
            }
            #pragma tamm taskwait
        }
        int64_t *s = tamm_block(S, 5);
        s[0] = (hist[1] * 3 + hist[3]) % MOD;
    }

    /* a child whose own body has a taskwait (continuations two levels deep) */
    #pragma tamm task label("outer")
    {
        #pragma tamm task label("inner")
        {
            #pragma tamm task
            step(tamm_block(A, 0), tamm_block_extent(A, 0, 0), 77);
            #pragma tamm taskwait
            int64_t *s = tamm_block(S, 6);
            s[0] = digest(tamm_block(A, 0), tamm_block_extent(A, 0, 0));
        }
        #pragma tamm taskwait
        int64_t *s7 = tamm_block(S, 7);
        s7[0] = ((const int64_t *)tamm_block(S, 6))[0] % 1000 + 1;
    }
    #pragma tamm taskwait
    for (long i = 0; i < 8; i++)
        printf("S[%ld] = %" PRId64 "\n", i, *(const int64_t *)tamm_block(S, i));
    int64_t h = 0;
    for (long b = 0; b < na; b++)
        h = (h * 31 + digest(tamm_block(A, b), tamm_block_extent(A, 0, b))) % MOD;
    printf("A digest %" PRId64 "\n", h);
    tamm_finalize();
    return 0;
}
