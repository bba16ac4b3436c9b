/*
 * ifdef_pragmas.c — directives chosen by the preprocessor, as BOTS chooses its
 * pragmas: `#ifdef / #else / #endif` around two `#pragma tamm task` lines
 * before the statement (taken and skipped branches), `#if defined(_OPENMP)`
 * choosing between `#pragma omp task` and `#pragma tamm task`, an
 * `#if / #elif / #else` chain, all in a function called recursively, plus a
 * nested task and a taskwait chosen the same way.  Before the fix the
 * directives between the pragma and its statement were swallowed with it
 * ("unterminated #ifdef").  Differential test.
 */
#include <tamm.h>

#include <stdint.h>
#include <stdio.h>

#define LABELLED 1
#define MODE 2

static void rec(tamm_tensor *A, long lo, long hi)
{
    if (hi - lo == 1) {
#ifdef LABELLED
#pragma tamm task label("leaf")
#else
#pragma tamm task
#endif
        {
            int64_t *a = tamm_block(A, lo);
            a[0] = lo * lo + 1;
            a[1] = lo;
        }
        return;
    }
    long mid = lo + (hi - lo) / 2;
#ifdef NO_SUCH_MACRO
#pragma tamm task label("never")
#else
#pragma tamm task
#endif
    rec(A, lo, mid);
#if defined(_OPENMP)
#pragma omp task
#else
#pragma tamm task
#endif
    rec(A, mid, hi);
#ifdef LABELLED
#pragma tamm taskwait
#else
#pragma omp taskwait
#endif
#if MODE == 1
#pragma tamm task label("combine1")
#elif MODE == 2
#pragma tamm task label("combine2")
#else
#pragma tamm task
#endif
    {
        int64_t *a = tamm_block(A, lo);
        const int64_t *b = tamm_block(A, mid);
        a[0] += b[0];
        a[1] = a[1] * 3 + b[1];
    }
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[1] = { 64 }, t[1] = { 4 };
    tamm_tensor *A = tamm_tensor_create("A", TAMM_I64, 1, d, t); /* 16 blocks */
    rec(A, 0, 16);
#pragma tamm taskwait
#pragma tamm task label("outer")
    {
        for (long b = 1; b < 16; b++) {
#ifndef LABELLED
#pragma tamm task
#else
#pragma tamm task label("inner")
#endif
            {
                int64_t *a = tamm_block(A, b);
                a[2] = a[0] - a[1];
            }
        }
    }
#pragma tamm taskwait
    const int64_t *a = tamm_block(A, 0);
    printf("sum of squares + 16: %lld, mix: %lld\n", (long long)a[0], (long long)a[1]);
    int64_t h = 0;
    for (long b = 1; b < 16; b++) {
        const int64_t *x = tamm_block(A, b);
        h = (h * 31 + x[2]) % 1000000007;
    }
    printf("inner: %lld\n", (long long)h);
    tamm_tensor_destroy(A);
    tamm_finalize();
    return 0;
}
