/*
 * repro_accum.c — reproducible accumulation (docs/runtime.md
 * "Reproducible accumulation"): run with TAMM_REPRODUCIBLE=1, the float and
 * double sums below must be bit for bit those of the plain build (printed
 * with %a, and a digest of every element's bits), at any number of workers, ranks and emulated GPUs.
 *
 * Random task graph (a fixed seed): values of mixed sign and magnitude so
 * that the rounding of a sum depends on the order of its additions;
 *   - GEMM tiles C[i][j] += A[i][k] * B[k][j]: one task per (i, j, k), each
 *     adding TS times to every element of its C tile (the k loop), so a
 *     partial sum folded later would round differently;
 *   - a helper whose pointer is TAMM_ACCUMULATES, tasks that add a random
 *     number of times into random blocks of a float and a double tensor;
 *   - cancellable accumulations (caccum), some cancelled;
 *   - a parent with accumulate permission whose children accumulate;
 *   - readers between the runs (accumulations then a read then more).
 * Without TAMM_REPRODUCIBLE the output may differ in its last bits: that is
 * what the option is for (docs/language.md).
 */
#include <tamm.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* sizes (-D to scale it up, as for the cost table of docs/runtime.md) */
#ifndef NB
#define NB 3   /* blocks per dimension */
#endif
#ifndef TS
#define TS 8   /* tile */
#endif
#define N (NB * TS)
#ifndef VB
#define VB 6   /* blocks of the vectors */
#endif
#define VT 16

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
/* a value of random sign and magnitude (2^-6 .. 2^9) */
static double value(void)
{
    double m = (double)(next() % 100000) / 100000.0 + 0.1;
    int e = (int)(next() % 16) - 6;
    double s = next() % 2 ? -1.0 : 1.0;
    for (; e > 0; e--) m *= 2;
    for (; e < 0; e++) m /= 2;
    return s * m;
}

/* FNV-1a over the bytes of an element's bit pattern */
static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int k = 0; k < 8; k++) {
        h ^= (v >> (8 * k)) & 0xff;
        h *= 1099511628211ULL;
    }
    return h;
}
static uint64_t bits64(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static uint64_t bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void add_scaled(TAMM_ACCUMULATES double *dst, const double *src, double s, int times)
{
    for (int r = 0; r < times; r++)
        for (int e = 0; e < VT; e++)
            dst[e] += s * src[e] + (double)r;
}

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t dm[2] = {N, N}, tm[2] = {TS, TS}, dv[1] = {VB * VT}, tv[1] = {VT};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 2, dm, tm);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 2, dm, tm);
    tamm_tensor *C = tamm_tensor_create("C", TAMM_F64, 2, dm, tm);
    tamm_tensor *Af = tamm_tensor_create("Af", TAMM_F32, 2, dm, tm);
    tamm_tensor *Cf = tamm_tensor_create("Cf", TAMM_F32, 2, dm, tm);
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, dv, tv);
    tamm_tensor *Y = tamm_tensor_create("Y", TAMM_F64, 1, dv, tv);
    tamm_tensor *F = tamm_tensor_create("F", TAMM_F32, 1, dv, tv);
    if (!A || !B || !C || !Af || !Cf || !X || !Y || !F)
        return 1;
    for (long i = 0; i < NB; i++)
        for (long j = 0; j < NB; j++) {
            double *a = tamm_block(A, i, j), *b = tamm_block(B, i, j), *c = tamm_block(C, i, j);
            float *af = tamm_block(Af, i, j), *cf = tamm_block(Cf, i, j);
            for (int e = 0; e < TS * TS; e++) {
                a[e] = value();
                b[e] = value();
                c[e] = value();
                af[e] = (float)value();
                cf[e] = (float)value();
            }
        }
    for (long b = 0; b < VB; b++) {
        double *x = tamm_block(X, b), *y = tamm_block(Y, b);
        float *f = tamm_block(F, b);
        for (int e = 0; e < VT; e++) {
            x[e] = value();
            y[e] = value();
            f[e] = (float)value();
        }
    }

    for (int round = 0; round < 2; round++) {
        /* GEMM: every (i, j, k) task adds TS products into each element of C[i][j] */
        for (long k = 0; k < NB; k++)
            for (long i = 0; i < NB; i++)
                for (long j = 0; j < NB; j++) {
                    #pragma tamm task label("gemm")
                    {
                        const double *a = tamm_block(A, i, k);
                        const double *b = tamm_block(B, k, j);
                        double *c = tamm_block(C, i, j);
                        for (int r = 0; r < TS; r++)
                            for (int s = 0; s < TS; s++)
                                for (int q = 0; q < TS; q++)
                                    c[r * TS + s] += a[r * TS + q] * b[q * TS + s];
                    }
                    #pragma tamm task label("gemm_f32")
                    {
                        const float *a = tamm_block(Af, i, k);
                        const float *b = tamm_block(Af, k, j);
                        float *c = tamm_block(Cf, i, j);
                        for (int r = 0; r < TS; r++)
                            for (int s = 0; s < TS; s++)
                                for (int q = 0; q < TS; q++)
                                    c[r * TS + s] += a[r * TS + q] * b[q * TS + s] * 0.001f;
                    }
                }
        /* random accumulations into Y and F, through a helper and inline */
        for (int t = 0; t < 24; t++) {
            long src = (long)(next() % VB), dst = (long)(next() % VB);
            int times = 1 + (int)(next() % 4);
            double s = value();
            #pragma tamm task label("vec")
            {
                const double *x = tamm_block(X, src);
                double *y = tamm_block(Y, dst);
                add_scaled(y, x, s, times);
            }
            float fs = (float)value();
            #pragma tamm task label("vec_f32")
            {
                float *f = tamm_block(F, dst);
                for (int r = 0; r < times; r++)
                    for (int e = 0; e < VT; e++)
                        f[e] += fs * (float)(e + 1) - (float)r;
            }
        }
        /* cancellable accumulations: every other one dropped */
        for (int t = 0; t < 8; t++) {
            long dst = (long)(next() % VB);
            double s = value();
            int keep = t % 2;
            #pragma tamm task read(X[dst]) caccum(Y[dst]) label("caccum")
            {
                const double *x = tamm_block(X, dst);
                double *y = tamm_block(Y, dst);
                for (int r = 0; r < 3; r++)
                    for (int e = 0; e < VT; e++)
                        y[e] += s * x[e];
                if (!keep)
                    tamm_cancel(y);
            }
        }
        /* a parent with accumulate permission on F; its children add */
        #pragma tamm task permission(accum: F[:]) label("parent")
        {
            for (long b = 0; b < VB; b++)
                for (int c = 0; c < 3; c++) {
                    float v = 0.37f * (float)(c + 1) * (float)(b - 2);
                    #pragma tamm task label("child")
                    {
                        float *f = tamm_block(F, b);
                        for (int r = 0; r < 2; r++)
                            for (int e = 0; e < VT; e++)
                                f[e] += v * (float)e;
                    }
                }
        }
        /* a reader between the rounds: X[b] = sum of Y[b] (order fixed by the loop) */
        for (long b = 0; b < VB; b++) {
            #pragma tamm task label("read")
            {
                const double *y = tamm_block(Y, b);
                double *x = tamm_block(X, b);
                for (int e = 0; e < VT; e++)
                    x[e] = y[e] * 0.5 + x[e] * 0.25;
            }
        }
    }
    #pragma tamm taskwait
    /* a digest of every element's bits per tensor, and a few elements with %a (a short
     * output: under mpirun each rank prints it, and long outputs interleave mid-line) */
    uint64_t hc = 1469598103934665603ULL, hcf = hc, hx = hc, hy = hc, hf = hc;
    for (long i = 0; i < NB; i++)
        for (long j = 0; j < NB; j++) {
            const double *c = tamm_block(C, i, j);
            const float *cf = tamm_block(Cf, i, j);
            for (int e = 0; e < TS * TS; e++) {
                hc = mix(hc, bits64(c[e]));
                hcf = mix(hcf, bits32(cf[e]));
            }
            printf("C[%ld][%ld][0] = %a  Cf = %a\n", i, j, c[0], (double)cf[0]);
        }
    for (long b = 0; b < VB; b++) {
        const double *x = tamm_block(X, b), *y = tamm_block(Y, b);
        const float *f = tamm_block(F, b);
        for (int e = 0; e < VT; e++) {
            hx = mix(hx, bits64(x[e]));
            hy = mix(hy, bits64(y[e]));
            hf = mix(hf, bits32(f[e]));
        }
        printf("X[%ld][0] = %a  Y = %a  F = %a\n", b, x[0], y[0], (double)f[0]);
    }
    printf("bits: C %016llx Cf %016llx X %016llx Y %016llx F %016llx\n", (unsigned long long)hc,
           (unsigned long long)hcf, (unsigned long long)hx, (unsigned long long)hy, (unsigned long long)hf);
    tamm_finalize();
    return 0;
}
