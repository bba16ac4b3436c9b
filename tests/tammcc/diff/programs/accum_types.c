/*
 * accum_types.c — '+=' is an accumulation only when the contributions can be
 * summed in the tensor's dtype (docs/language.md, rules 4 and 31): through a
 * pointer to the tensor's element type, adding a value C does not convert
 * after every addition.  Otherwise the task must be readwrite.  Each task
 * below failed the differential before tammcc checked it (issue 27 item 1):
 *   - a local `float *` (or `int32_t *`) on an F64 (I64) tensor: now accum
 *     only if the tensor's dtype is the pointer's, checked at submission;
 *   - `int += 0.5`: C truncates after every addition: readwrite;
 *   - two element types through one block, a callee that adds as float into
 *     an F64 tensor, a char element: readwrite or checked at submission;
 *   - nested children that add as float, and an explicit accum clause: accum;
 *   - loop nests over the elements (CUDA kernels, tests/tammcc/cuda runs them
 *     on the emulated device): an int element fed a double (readwrite at
 *     compile time) and a float view of an F64 tensor (readwrite at submission).
 * Differential test: the output must equal the sequential elision's.
 */
#include <tamm.h>

#include <stdint.h>
#include <stdio.h>

static void add_float(float *p) { p[1] += 2.0f; }

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK)
        return 1;
    size_t d[1] = {4}, t[1] = {4};
    tamm_tensor *D = tamm_tensor_create("D", TAMM_F64, 1, d, t);
    tamm_tensor *L = tamm_tensor_create("L", TAMM_I64, 1, d, t);
    tamm_tensor *I = tamm_tensor_create("I", TAMM_I32, 1, d, t);
    tamm_tensor *F = tamm_tensor_create("F", TAMM_F32, 1, d, t);
    tamm_tensor *E = tamm_tensor_create("E", TAMM_F64, 1, d, t);
    size_t dk[1] = {64}, tk[1] = {16};
    tamm_tensor *J = tamm_tensor_create("J", TAMM_I32, 1, dk, tk);
    tamm_tensor *K = tamm_tensor_create("K", TAMM_F64, 1, dk, tk);
    if (!D || !L || !I || !F || !E || !J || !K)
        return 1;
    double *d0 = tamm_block(D, 0);
    int64_t *l0 = tamm_block(L, 0);
    int32_t *i0 = tamm_block(I, 0);
    float *f0 = tamm_block(F, 0);
    double *e0 = tamm_block(E, 0);
    for (int k = 0; k < 4; k++) {
        d0[k] = 0;
        l0[k] = (int64_t)0xffffffffLL;   /* a carry out of the low 32 bits */
        i0[k] = -5;
        f0[k] = 0;
        e0[k] = 0;
    }
    for (long b = 0; b < 4; b++) {
        int32_t *j = tamm_block(J, b);
        double *kk = tamm_block(K, b);
        for (int e = 0; e < 16; e++) {
            j[e] = (int32_t)(b * 16 + e) - 30;
            kk[e] = 0;
        }
    }
    for (int k = 0; k < 3; k++) {
        for (long b = 0; b < 4; b++) {
            #pragma tamm task
            {   /* kernel: an int element fed a double */
                int32_t *j = tamm_block(J, b);
                for (int e = 0; e < 16; e++)
                    j[e] += 0.25 * (e + k);
            }
            #pragma tamm task
            {   /* kernel: a float view of an F64 block, 32 floats */
                float *f = (float *)tamm_block(K, b);
                for (int e = 0; e < 32; e++)
                    f[e] += 1.0f + (float)k;
            }
        }
        #pragma tamm task
        {   /* float view of an F64 block */
            float *f = (float *)tamm_block(D, 0);
            f[0] += 1.0f;
        }
        #pragma tamm task
        {   /* int32_t view of an I64 block: the carry is lost unless readwrite */
            int32_t *g = (int32_t *)tamm_block(L, 0);
            g[0] += 2;
        }
        #pragma tamm task
        {   /* an int element fed a double: truncated after every addition */
            int32_t *h = tamm_block(I, 0);
            h[0] += 0.5;
            h[1] -= 1.5f;
            h[2] += 3;          /* an integer: still summed */
        }
        #pragma tamm task
        {   /* float and double through one block */
            float *f = tamm_block(F, 0);
            double *g = (double *)f;
            f[0] += 1.0f;
            g[1] += 1.0;
        }
        #pragma tamm task
        {   /* a callee adds as float into an F64 tensor */
            void *v = tamm_block(E, 0);
            add_float(v);
        }
        #pragma tamm task
        {   /* children add as float into F32: accum */
            for (int j = 0; j < 2; j++) {
                #pragma tamm task
                {
                    float *c = tamm_block(F, 0);
                    c[2] += (float)j;
                }
            }
            #pragma tamm taskwait
        }
        #pragma tamm task
        {   /* a byte of a double: no dtype has that element type */
            unsigned char *c = tamm_block(E, 0);
            c[23] += 0x41;
        }
        #pragma tamm task accum(F[0])
        {   /* declared, float into F32 */
            float *f = tamm_block(F, 0);
            f[3] -= 0.5f;
        }
    }
    tamm_wait_all();
    const double *d1 = tamm_block(D, 0);
    const int64_t *l1 = tamm_block(L, 0);
    const int32_t *i1 = tamm_block(I, 0);
    const float *f1 = tamm_block(F, 0);
    const double *e1 = tamm_block(E, 0);
    printf("D = %a %a\n", d1[0], d1[1]);
    printf("L = %lld %lld\n", (long long)l1[0], (long long)l1[1]);
    printf("I = %d %d %d\n", i1[0], i1[1], i1[2]);
    printf("F = %a %a %a %a\n", f1[0], f1[1], f1[2], f1[3]);
    printf("E = %a %a %a\n", e1[0], e1[1], e1[2]);
    unsigned long long js = 0; /* a hash: unsigned, so it wraps (UBSan) */
    double ks = 0;
    for (long b = 0; b < 4; b++) {
        const int32_t *j = tamm_block(J, b);
        const double *kk = tamm_block(K, b);
        for (int e = 0; e < 16; e++) {
            js = js * 3 + (unsigned long long)(long long)j[e];
            ks += kk[e] * (double)(e + 1);
        }
    }
    printf("J = %llu\nK = %a\n", js, ks);
    tamm_finalize();
    return 0;
}
