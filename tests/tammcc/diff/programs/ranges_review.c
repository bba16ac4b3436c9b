/* ranges_review.c — cases an adversarial review of the ranges inferred through
 * task functions (rule 38 of docs/language.md) found proved wrongly: each ran
 * into a permission or index error while the plain build ran.  Each must now
 * get a correct range or the whole tensor, and agree with the plain build:
 *   t01 `!hi < lo + 2` is (!hi) < lo + 2;  t02 an argument converted to a
 *   narrower parameter;  t03 an enumerator shadowing a parameter;  t04 a
 *   truncating cast;  t04b a local narrower than its initialiser;  t06 a helper
 *   defined in a header, called outside the tasks;  t07 a macro named like a
 *   parameter;  t18 point claims at the tensor's edge (clamped);  t18b a stencil
 *   whose neighbours fall outside;  t24 goto / case into the if around a task. */
/* the cases are written as found: parameters some functions ignore, and the `!` that C binds first */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wlogical-not-parentheses"
#include <tamm.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#define P 1000003
/* n blocks of one element, the first `nset` set to b + 1 (the tasks and the dumps read only those:
 * setting all 65540 blocks of t04's tensors from the top level cost seconds per run on several ranks) */
static tamm_tensor *mk_part(const char *nm, long n, long nset)
{
    size_t d[1] = { (size_t)n }, t[1] = { 1 };
    tamm_tensor *T = tamm_tensor_create(nm, TAMM_I64, 1, d, t);
    for (long b = 0; b < nset; b++) { int64_t *x = tamm_block(T, b); x[0] = b + 1; }
    return T;
}
static tamm_tensor *mk(const char *nm, long n) { return mk_part(nm, n, n); }
static void dump(tamm_tensor *T)
{
    long n = tamm_tensor_nblocks(T, 0);
    int64_t s = 0;
    for (long b = 0; b < n; b++) { const int64_t *x = tamm_block(T, b); s = (s * 31 + x[0]) % P; printf("%" PRId64 " ", x[0]); }
    printf("| %" PRId64 "\n", s);
}
/* order-sensitive update of block i of T, with value v */
#define UPD(T, i, v) do { int64_t *u_ = tamm_block(T, i); u_[0] = (3 * u_[0] + (v)) % P; } while (0)
static void touch_prev(tamm_tensor *X, long i) { int64_t *u = tamm_block(X, i - 1); u[0] = (3 * u[0] + 1) % P; }
/* ---- t01_not */
/* `!hi < lo + 2` is (!hi) < lo + 2 in C, not !(hi < lo + 2) */
static void t01_f(tamm_tensor *X, long lo, long hi)
{
    if (!hi < lo + 2) {
#pragma tamm task
        { int64_t *u = tamm_block(X, lo + 1); u[0] = (3 * u[0] + 7) % P; }
    }
}
static void t01_run(void)
{
    tamm_tensor *X = mk("X", 8);
#pragma tamm task
    t01_f(X, 0, 1);
#pragma tamm task
    { int64_t *u = tamm_block(X, 1); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    dump(X);
    printf("(t01)\n");
}
/* ---- t02_conv */
/* arguments converted to the int parameters: the range is computed on the long arguments */
static void t02_f(tamm_tensor *X, int lo, int hi)
{
    if (lo >= hi) {
#pragma tamm task
        { int64_t *u = tamm_block(X, 0); u[0] = (3 * u[0] + 7) % P; }
        return;
    }
#pragma tamm task
    { int64_t *u = tamm_block(X, lo); u[0] = (3 * u[0] + 11) % P; }
}
static void t02_run(void)
{
    tamm_tensor *X = mk("X", 8);
    long big = 4294967296L; /* 2^32: (int)big == 0 */
#pragma tamm task
    t02_f(X, 5, big);
#pragma tamm task
    { int64_t *u = tamm_block(X, 0); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    dump(X);
    printf("(t02)\n");
}
/* ---- t03_enum */
/* an enumerator in an inner block shadows the parameter lo */
static void t03_f(tamm_tensor *X, long lo, long hi)
{
    {
        enum { lo = 3 };
#pragma tamm task
        { int64_t *u = tamm_block(X, lo); u[0] = (3 * u[0] + 7) % P; }
    }
}
static void t03_run(void)
{
    tamm_tensor *X = mk("X", 8);
#pragma tamm task
    t03_f(X, 0, 2);
#pragma tamm task
    { int64_t *u = tamm_block(X, 3); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    dump(X);
    printf("(t03)\n");
}
/* ---- t04_cast */
/* (int16_t) truncates; linear.c reads it as the identity */
static void t04_f(tamm_tensor *X, long lo, long hi)
{
#pragma tamm task
    { int64_t *u = tamm_block(X, (int16_t)lo); u[0] = (3 * u[0] + 7) % P; }
}
static void t04_run(void)
{
    tamm_tensor *X = mk_part("X", 65540, 8);
#pragma tamm task
    t04_f(X, 65539, 65540);
#pragma tamm task
    { int64_t *u = tamm_block(X, 3); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    { const int64_t *u = tamm_block(X, 3); printf("%" PRId64 "\n", u[0]); }
    printf("(t04)\n");
}
/* ---- t04b_short */
/* a local `short` defined once from a long parameter: linear.c treats the conversion as the identity */
static void t04b_f(tamm_tensor *X, long lo, long hi)
{
    short m = lo;
#pragma tamm task
    { int64_t *u = tamm_block(X, m); u[0] = (3 * u[0] + 7) % P; }
}
static void t04b_run(void)
{
    tamm_tensor *X = mk_part("X", 65540, 8);
#pragma tamm task
    t04b_f(X, 65539, 65540);
#pragma tamm task
    { int64_t *u = tamm_block(X, 3); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    { const int64_t *u = tamm_block(X, 3); printf("%" PRId64 "\n", u[0]); }
    printf("(t04b)\n");
}
/* ---- t06_hdr */
/* a helper defined in a header reads a block outside [lo, hi), outside t06_f's tasks */
static void t06_f(tamm_tensor *X, long lo, long hi)
{
    touch_prev(X, lo);
#pragma tamm task
    { int64_t *u = tamm_block(X, lo); u[0] = (3 * u[0] + 7) % P; }
}
static void t06_run(void)
{
    tamm_tensor *X = mk("X", 8);
#pragma tamm task
    t06_f(X, 3, 4);
#pragma tamm task
    { int64_t *u = tamm_block(X, 2); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    dump(X);
    printf("(t06)\n");
}
/* ---- t07_macro */
/* a macro named like a parameter */
static void t07_f(tamm_tensor *X, long lo, long hi)
{
#define hi (lo + 4)
#pragma tamm task
    { int64_t *u = tamm_block(X, hi - 1); u[0] = (3 * u[0] + 7) % P; }
#undef hi
}
static void t07_run(void)
{
    tamm_tensor *X = mk("X", 8);
#pragma tamm task
    t07_f(X, 0, 2);
#pragma tamm task
    { int64_t *u = tamm_block(X, 3); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    dump(X);
    printf("(t07)\n");
}
/* ---- t18_point */
/* a point claim X[j] with j out of range: t18_f returns without touching anything */
static void t18_f(tamm_tensor *X, long j)
{
    if (j < 0) return;
#pragma tamm task
    { int64_t *u = tamm_block(X, j); u[0] = (3 * u[0] + 7) % P; }
}
static void t18_g(tamm_tensor *X, long lo, long hi)
{
    if (lo < 0) return;
#pragma tamm task
    { int64_t *u = tamm_block(X, lo); u[0] = (3 * u[0] + 9) % P; }
}
static void t18_run(void)
{
    tamm_tensor *X = mk("X", 8);
#pragma tamm task
    t18_f(X, -1);
#pragma tamm task
    t18_f(X, 2);
#pragma tamm task
    t18_g(X, -3, -1);
#pragma tamm task
    t18_g(X, -3, 5);
#pragma tamm taskwait
    dump(X);
    printf("(t18)\n");
}
/* ---- t18b_stencil */
/* realistic: a per-block update that returns for indices outside the grid; the caller touches neighbours */
#define NT 8
static void t18b_relax(tamm_tensor *U, long i)
{
    if (i < 0 || i >= NT) return;
#pragma tamm task
    { int64_t *u = tamm_block(U, i); u[0] = (3 * u[0] + i) % P; }
}
static void t18b_run(void)
{
    tamm_tensor *U = mk("U", NT);
    for (long i = 0; i < NT; i += 3) {
#pragma tamm task
        { t18b_relax(U, i - 1); t18b_relax(U, i); t18b_relax(U, i + 1); }
    }
#pragma tamm taskwait
    dump(U);
    printf("(t18b)\n");
}
/* ---- t24_goto */
/* a goto (and a case label) into the then-branch of the `if` that guards the task */
static void t24_f(tamm_tensor *X, long lo, long hi, int jump)
{
    if (jump) goto inside;
    if (hi - lo >= 2) {
    inside:
#pragma tamm task
        { int64_t *u = tamm_block(X, lo + 1); u[0] = (3 * u[0] + 7) % P; }
    }
}
static void t24_g(tamm_tensor *X, long lo, long hi, int k)
{
    switch (k) {
    case 0:
        if (hi - lo >= 2) {
    case 1:
            ;
#pragma tamm task
            { int64_t *u = tamm_block(X, lo + 1); u[0] = (3 * u[0] + 9) % P; }
        }
    }
}
static void t24_run(void)
{
    tamm_tensor *X = mk("X", 8);
#pragma tamm task
    t24_f(X, 0, 1, 1);
#pragma tamm task
    t24_g(X, 2, 3, 1);
#pragma tamm task
    { int64_t *u = tamm_block(X, 1); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm task
    { int64_t *u = tamm_block(X, 3); u[0] = (3 * u[0] + 5) % P; }
#pragma tamm taskwait
    dump(X);
    printf("(t24)\n");
}
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    t01_run();
    t02_run();
    t03_run();
    t04_run();
    t04b_run();
    t06_run();
    t07_run();
    t18_run();
    t18b_run();
    t24_run();
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
