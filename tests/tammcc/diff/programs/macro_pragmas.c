/*
 * macro_pragmas.c — tamm directives behind the user's macros, as code bases
 * that wrap OpenMP pragmas write them: a loop macro ending in
 * `_Pragma("tamm task")` (its variable declared outside, and declared by the
 * macro's own `for (long v = 0; ...)`), a macro that is a whole task statement
 * (the body of a braceless loop, and at top level), a macro built on another
 * one, an invocation over two lines, a variadic one with __VA_OPT__, the
 * OpenMP wrapper `#define PRAGMA(x) _Pragma(#x)`, a macro
 * named like the function it makes a task of (`#define scale(...) _Pragma(...)
 * scale(...)`), a taskwait macro, and one used inside a task body (nested
 * tasks), and a braceless loop whose statement is a task.  The file has no
 * clause expression (tammcc then checks none).  Before tammcc expanded these
 * macros in place, the loop of PARFOR was dropped (one task), the others
 * failed to compile.  Differential test.
 */
#include <tamm.h>

#include <stdint.h>
#include <stdio.h>

#define PARFOR(v, n) for (v = 0; v < (n); v++) _Pragma("tamm task")
#define PARFOR_DECL(v, n) for (long v = 0; v < (n); v++) _Pragma("tamm task")
#define PARFOR2(v, w, n) PARFOR(v, n) for (long w = 0; w < (n); w++)
#define FILL(T, b, val) _Pragma("tamm task") { int64_t *p_ = tamm_block(T, b); for (int k_ = 0; k_ < 4; k_++) p_[k_] = (val) + k_; }
#define SPAWN(f, ...) _Pragma("tamm task") f(V __VA_OPT__(,) __VA_ARGS__)
#define WAIT_ALL _Pragma("tamm taskwait")
#define PRAGMA(x) _Pragma(#x)

static void scale(tamm_tensor *V, long b, int64_t by)
{
    int64_t *v = tamm_block(V, b);
    for (int k = 0; k < 4; k++) v[k] *= by;
}
static void bump(tamm_tensor *V)
{
    int64_t *v = tamm_block(V, 0);
    v[0] += 1000;
}
static void add_to(tamm_tensor *V, long b, int64_t x)
{
    int64_t *v = tamm_block(V, b);
    v[3] = v[3] * 3 + x;
}
#define scale(V, b, by) _Pragma("tamm task") scale(V, b, by)

static int64_t digest(tamm_tensor *T, long nb, size_t per)
{
    int64_t h = 0;
    for (long b = 0; b < nb; b++) {
        const int64_t *x = tamm_block(T, b);
        for (size_t k = 0; k < per; k++) h = (h * 31 + x[k]) % 1000000007;
    }
    return h;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dv[1] = { 24 }, tv[1] = { 4 }, dm[2] = { 12, 12 }, tm[2] = { 4, 4 };
    tamm_tensor *V = tamm_tensor_create("V", TAMM_I64, 1, dv, tv); /* 6 blocks */
    tamm_tensor *M = tamm_tensor_create("M", TAMM_I64, 2, dm, tm); /* 3 x 3 blocks */
    long nb = tamm_tensor_nblocks(V, 0);

    for (long b = 0; b < nb; b++)
        FILL(V, b, b * 7)
    FILL(V, 0, 100)
    long i;
    PARFOR(i, nb) {
        int64_t *v = tamm_block(V, i);
        v[1] += i * 100;
    }
    PARFOR_DECL(j, nb) {
        int64_t *v = tamm_block(V, j);
        v[2] -= j;
    }
    PARFOR(i, /* over two lines */
           nb) {
        int64_t *v = tamm_block(V, i);
        v[0] += i + 1;
    }
    for (long b = 0; b < nb; b++)
        scale(V, b, 3);
    for (long b = 0; b < nb; b++) /* a braceless loop's task, in a file without clause expressions */
        #pragma tamm task
        add_to(V, b, 2);
    SPAWN(bump);
    SPAWN(add_to, nb - 1, 5);
    PRAGMA(tamm task label("via #x"))
    {
        int64_t *v = tamm_block(V, 1);
        v[3] += 11;
    }
    WAIT_ALL
    printf("V after the loops: %lld\n", (long long)digest(V, nb, 4));

    PARFOR2(i, j, 3) {
        int64_t *m = tamm_block(M, i, j);
        for (int k = 0; k < 16; k++) m[k] = i * 10 + j + k;
    }
    #pragma tamm task
    {
        for (long r = 0; r < 3; r++)
            PARFOR_DECL(c, 3) {
                int64_t *m = tamm_block(M, r, c);
                m[0] += r * c;
            }
    }
    WAIT_ALL
    int64_t h = 0;
    for (long r = 0; r < 3; r++)
        for (long c = 0; c < 3; c++) {
            const int64_t *m = tamm_block(M, r, c);
            for (int k = 0; k < 16; k++) h = (h * 7 + m[k]) % 1000000007;
        }
    printf("M: %lld\n", (long long)h);
    tamm_tensor_destroy(M);
    tamm_tensor_destroy(V);
    tamm_finalize();
    return 0;
}
