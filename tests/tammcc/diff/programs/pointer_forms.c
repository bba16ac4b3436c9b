/* pointer_forms.c — every everyday way of writing a block through a pointer
 * derived from tamm_block(): row pointers, *p++, header kernels, memcpy and
 * memset, casts, struct fields, arrays of pointers, ?:, a function returning
 * its argument, a pointer-to-array view, mutual recursion.  Each task modifies
 * its block; a reader then folds the block into a checksum.  A write inferred
 * as read lets the reader run first (or, under MPI, never ships the block):
 * the output then differs from the plain build's. */
#include <tamm.h>
#include <stdio.h>
#include <string.h>
#include "pointer_forms_kern.h"

#define NB 8
#define NF 22

static tamm_tensor *C, *S;

/* a block reached through a helper that calls tamm_block itself: the task that
 * calls it needs the helper's tensor, readwrite */
static double *block_of(tamm_tensor *T, long i) { return tamm_block(T, i); }

static void fill_all(void)
{
    for (long f = 0; f < NF; f++) {
#pragma tamm task
        {
            double *c = tamm_block(C, f);
            for (int e = 0; e < NB * NB; e++) c[e] = (double)((e * 5 + f) % 11);
        }
    }
}

static void checksum(long f)
{
#pragma tamm task
    {
        const double *c = tamm_block(C, f);
        double *s = tamm_block(S, f);
        double sum = 0;
        for (int e = 0; e < NB * NB; e++) sum += c[e] * (double)(e % 13 + 1);
        s[0] = sum;
    }
}

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t d1[1] = { NF * NB * NB }, t1[1] = { NB * NB };
    size_t ds[1] = { NF }, ts[1] = { 1 };
    C = tamm_tensor_create("C", TAMM_F64, 1, d1, t1);
    S = tamm_tensor_create("S", TAMM_F64, 1, ds, ts);
    int flag = argc > 100; /* 0 at run time, unknown to tammcc */
    long f = 0;
    fill_all();

#pragma tamm task
    { double *c = tamm_block(C, 0); for (int i = 0; i < NB; i++) { double *row = c + i * NB; for (int j = 0; j < NB; j++) row[j] = row[j] + i; } }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 1); double *p = c; for (int i = 0; i < NB * NB; i++) *p++ += 2.0; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 2); double *p = c; for (int i = 0; i < NB * NB; i += 2) { *p++ = 1.0; p++; } }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 3); k_store(c, NB * NB); }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 4); k_scale(c, NB * NB); }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 5); k_inc(c, NB * NB); }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 6); k_ptr(c, NB * NB / 2); }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 7); const double *y = tamm_block(C, 0); k_acc(c, y, NB * NB); }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 8); memset(c, 0, sizeof(double) * NB); c[NB] = 9; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 9); const double *y = tamm_block(C, 1); memcpy(c + NB, y, sizeof(double) * NB); }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 10); unsigned char *b = (unsigned char *)c; for (int e = 0; e < NB; e++) b[e * 8 + 7] ^= 0x80; }
    checksum(f++);
#pragma tamm task
    { struct { double *p; int n; } s; s.p = tamm_block(C, 11); s.n = NB; for (int e = 0; e < s.n; e++) s.p[e] = -e; }
    checksum(f++);
#pragma tamm task
    { double *a[2]; a[0] = tamm_block(C, 12); a[1] = a[0] + NB; a[1][3] = 42; a[0][0] *= 2; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 13); double *q = flag ? c : c + 1; q[0] = 5; q[2] = 6; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 14); *k_at(c, 3) = 77; *k_at(c, 4) += 1; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 15); for (int i = 0; i < NB; i += 2) k_row(c + i * NB, NB); }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 16); double *q = c; q += 3; *q = 1; q -= 1; q[0] = 2; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 17); double (*m)[NB] = (double (*)[NB])c; for (int i = 0; i < NB; i++) m[i][i] = 100 + i; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 18); double *q; *(q = c + 5) = 7; q[1] = 8; }
    checksum(f++);
#pragma tamm task
    { double *c = tamm_block(C, 19); k_rec_f(c, 6); }
#pragma tamm task
    { double *c = tamm_block(C, 19); k_rec_g(c + 10, 8); }
    checksum(f++);
    /* a header kernel's write proof that covers less than the block: readwrite at submission */
#pragma tamm task
    { double *c = tamm_block(C, 20); k_store(c, NB * NB - 3); }
    checksum(f++);
#pragma tamm task
    { const double *c = tamm_block(C, 21); double x = c[0]; block_of(C, 21)[1] = x * 3 + 1; }
    checksum(f++);

#pragma tamm taskwait
    for (long k = 0; k < NF; k++) {
        const double *s = tamm_block(S, k);
        printf("form %2ld: checksum %.1f\n", k, s[0]);
    }
    tamm_tensor_destroy(S);
    tamm_tensor_destroy(C);
    tamm_finalize();
    return 0;
}
