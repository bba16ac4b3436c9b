/*
 * call_kernels.c — kernels made of the functions a task calls (no TAMM_CUDA_VARIANT needed):
 * the called function's loop nest, its pointer parameters bound to the blocks the call names
 * and its other parameters to the call's values, and the pure functions of the file that the
 * nest calls copied as __device__ functions.
 *
 *   fill2d     a 2-D tile written through a pure function (with a switch, an enum, a math call
 *              and a call of another pure function): both loops on the grid
 *   gemm_acc   c += a b with the k loop in each thread: c in a register, stored once
 *   sum_all    a reduction of a whole block into one element, through a call
 *   shadow     parameters named like the task's variables (n, m), computed from them in the
 *              other order: each argument is evaluated before any parameter is declared
 *   tile4      a 4-D write whose distinct elements per GPU thread are checked at submission
 *              (the mixed-radix subscript ((p * n1 + q) * n2 + r) * n3 + s, p and s on the grid)
 *   strided    a task body (no call) that computes values before its nest from captured ones,
 *              one of them a stride the check at submission is written over
 * and tasks that get no kernel, each for a reason `tammcc --explain` gives: a function that
 * changes its parameter, one whose body is more than a loop nest, a nest calling a function
 * that reads a global, one that calls itself, a value computed before the nest from a block
 * and a TAMM_CUDA_VARIANT's argument read from a block (the host cannot read them), and a nest
 * that changes a value computed before it.  The results
 * equal the plain C build's.
 */
#include <tamm.h>

#include <math.h>
#include <stdio.h>

#define NB 24
#define N (3 * NB)
#define B4 5

enum shape { FLAT = 0, RAMP = 1, WAVE = 2 };

int knob = 2; /* a global: a function that reads it cannot run on the device */

static double ramp(long i, long j) { return (double)(i - j) * 0.5; }

/* pure: parameters, locals, enum constants, a math call, another pure function */
static double shape_at(int kind, long i, long j)
{
    double v = 0;
    switch (kind) {
    case FLAT: v = 1.0; break;
    case RAMP: v = ramp(i, j); break;
    default: v = sin((double)(i + 2 * j) * 0.1); break;
    }
    return v + (double)(i % 3);
}

static void fill2d(double *t, long m, long n, long r0, long c0, int kind)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            t[i * n + j] = shape_at(kind, r0 + i, c0 + j);
}

static void gemm_acc(const double *a, const double *b, double *c, long m, long l, long n)
{
    for (long i = 0; i < m; i++)
        for (long k = 0; k < l; k++) {
            double aik = a[i * l + k];
            for (long j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
}

static void sum_all(const double *x, double *s, long len)
{
    for (long i = 0; i < len; i++)
        s[0] += x[i] * 0.001;
}

/* parameters named n and m: the call passes (m + 1) for n and n for m */
static void shadow(double *y, long n, long m)
{
    for (long i = 0; i < NB; i++)
        y[i] = (double)(n * 100 + m) + (double)i;
}

static void tile4(double *t, long n0, long n1, long n2, long n3, long base)
{
    for (long p = 0; p < n0; p++)
        for (long q = 0; q < n1; q++)
            for (long r = 0; r < n2; r++)
                for (long s = 0; s < n3; s++)
                    t[((p * n1 + q) * n2 + r) * n3 + s] = (double)(base + ((p * 7 + q * 5 + r * 3 + s) % 11));
}

/* no kernel: changes its parameter */
static void halving(double *y, long n)
{
    for (; n > 1; n /= 2) y[n - 1] += 1.0;
}

/* no kernel: more than a loop nest */
static void two_steps(double *y)
{
    y[0] = -1.0;
    for (long i = 1; i < NB; i++) y[i] = 2.0;
}

static double knobbed(long i) { return (double)(i * knob); }
/* no kernel: its nest calls a function that reads a global */
static void with_global(double *y)
{
    for (long i = 0; i < NB; i++) y[i] += knobbed(i);
}

/* no CUDA variant: its TAMM_CUDA_VARIANT would be called with a value the host reads from a block */
void scale_by_cuda(double *y, double a);
TAMM_CUDA_VARIANT(scale_by_cuda)
static void scale_by(double *y, double a)
{
    for (long i = 0; i < NB; i++) y[i] *= a;
}
void scale_by_cuda(double *y, double a) { scale_by(y, a); }

static double fact(long i) { return i < 2 ? 1.0 : (double)i * fact(i - 1); }
/* no kernel: its nest calls a function that calls itself */
static void with_recursion(double *y)
{
    for (long i = 0; i < NB; i++) y[i] += fact(i % 5);
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t d2[2] = {N, N}, t2[2] = {NB, NB}, d1[1] = {N}, t1[1] = {NB}, ds[1] = {3}, ts[1] = {1};
    size_t d4[4] = {2 * B4, B4, 3, B4 + 2}, t4[4] = {B4, B4, 3, B4 + 2};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, d2, t2);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, d2, t2);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, d2, t2);
    tamm_tensor *S = tamm_tensor_create("S", TAMM_F64, 1, ds, ts);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F64, 1, d1, t1);
    tamm_tensor *Q = tamm_tensor_create("Q", TAMM_F64, 4, d4, t4);
    long nt = N / NB;
    for (long i = 0; i < nt; i++) {
        ((double *)tamm_block(S, i))[0] = 0;
        for (long j = 0; j < nt; j++) {
            #pragma tamm task label("fill_A")
            fill2d(tamm_block(A, i, j), NB, NB, i * NB, j * NB, (int)((i + j) % 3));
            #pragma tamm task label("fill_B")
            fill2d(tamm_block(B, i, j), NB, NB, i * NB, j * NB, WAVE);
            #pragma tamm task label("fill_C")
            fill2d(tamm_block(C, i, j), (long)tamm_block_extent(C, 0, i), (long)tamm_block_extent(C, 1, j), 0, 0, FLAT);
        }
    }
    for (long i = 0; i < nt; i++)
        for (long j = 0; j < nt; j++)
            for (long k = 0; k < nt; k++) {
                #pragma tamm task label("gemm_acc")
                gemm_acc(tamm_block(A, i, k), tamm_block(B, k, j), tamm_block(C, i, j), NB, NB, NB);
            }
    for (long i = 0; i < nt; i++)
        for (long j = 0; j < nt; j++) {
            #pragma tamm task label("sum_all")
            sum_all(tamm_block(C, i, j), tamm_block(S, i), NB * NB);
        }
    for (long b = 0; b < nt; b++) {
        long n = b + 1, m = 10 * b;
        #pragma tamm task label("shadow")
        shadow(tamm_block(Y, b), m + 1, n);
        #pragma tamm task label("halving")
        halving(tamm_block(Y, b), NB);
        #pragma tamm task label("two_steps")
        two_steps(tamm_block(Y, b));
        #pragma tamm task label("with_global")
        with_global(tamm_block(Y, b));
        #pragma tamm task label("with_recursion")
        with_recursion(tamm_block(Y, b));
        #pragma tamm task label("strided")
        {
            double *y = tamm_block(Y, b);
            long s = 1 + b % 2, half = NB / 2;
            double f = 0.5 * (double)b;
            for (long i = 0; i < half; i++)
                y[i * s] += f + (double)i;
        }
        #pragma tamm task label("scaled")
        scale_by(tamm_block(Y, b), ((const double *)tamm_block(S, b))[0] * 0.0 + 1.0);
        #pragma tamm task label("from_block")
        {
            double *y = tamm_block(Y, b);
            double f = ((const double *)tamm_block(S, b))[0] * 0.0;
            for (long i = 0; i < NB; i++)
                y[i] += f;
        }
        #pragma tamm task label("counted")
        {
            double *y = tamm_block(Y, b);
            long c = 0;
            for (long i = 0; i < NB; i++) {
                y[i] += (double)c;
                c += 2;
            }
        }
    }
    for (long p = 0; p < 2; p++) {
        #pragma tamm task label("tile4")
        tile4(tamm_block(Q, p, 0, 0, 0), B4, B4, 3, B4 + 2, 100 * p);
    }
    #pragma tamm taskwait
    double c = 0, s = 0, y = 0, q = 0;
    for (long i = 0; i < nt; i++) {
        s += ((const double *)tamm_block(S, i))[0] * (double)(i + 1);
        const double *yb = tamm_block(Y, i);
        for (long e = 0; e < NB; e++) y += yb[e] * (double)(e + 1);
        for (long j = 0; j < nt; j++) {
            const double *cb = tamm_block(C, i, j);
            for (long e = 0; e < NB * NB; e++) c += cb[e] * (double)((e % 7) + 1);
        }
    }
    for (long p = 0; p < 2; p++) {
        const double *qb = tamm_block(Q, p, 0, 0, 0);
        for (long e = 0; e < B4 * B4 * 3 * (B4 + 2); e++) q += qb[e] * (double)((e % 13) + 1);
    }
    printf("call_kernels: C %.6e S %.6e Y %.6f Q %.1f\n", c, s, y, q);
    tamm_tensor_destroy(A);
    tamm_tensor_destroy(B);
    tamm_tensor_destroy(C);
    tamm_tensor_destroy(S);
    tamm_tensor_destroy(Y);
    tamm_tensor_destroy(Q);
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
