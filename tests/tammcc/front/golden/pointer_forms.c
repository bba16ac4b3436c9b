/* One task per inference rule of docs/language.md ("How accesses are inferred"):
 * the --explain golden is the unit test of each rule. */
#include <tamm.h>
#include <stdint.h>
#include <string.h>
#include "pointer_forms_kern.h"

#define N 8
void opaque(double *p);
void opaque_const(const double *p);
void annotated(TAMM_WRITES double *p);

void f(tamm_tensor *A, tamm_tensor *B, int flag)
{
    /* 1 element read */
#pragma tamm task
    { double *a = tamm_block(A, 0); double *b = tamm_block(B, 0); b[0] = a[1] + a[2]; }
    /* 2 store in a canonical loop nest: write */
#pragma tamm task
    { double *a = tamm_block(A, 1); for (int i = 0; i < N * N; i++) a[i] = 0; }
    /* 3 store not provably covering: readwrite */
#pragma tamm task
    { double *a = tamm_block(A, 2); a[3] = 1; }
    /* 4 += and -=: accum */
#pragma tamm task
    { double *a = tamm_block(A, 3); a[0] += 1; a[1] -= 2; }
    /* 5 other compound assignment, ++: readwrite */
#pragma tamm task
    { double *a = tamm_block(A, 4); a[0] *= 2; a[1]++; }
    /* 6 row pointer (offset pointer, copied into a local) */
#pragma tamm task
    { double *a = tamm_block(A, 5); for (int i = 0; i < N; i++) { double *row = a + i * N; row[0] = 1; } }
    /* 7 *p++ */
#pragma tamm task
    { double *a = tamm_block(A, 6); double *p = a; for (int i = 0; i < N; i++) *p++ = 2; }
    /* 8 &a[i] */
#pragma tamm task
    { double *a = tamm_block(A, 7); double *p = &a[4]; *p = 3; }
    /* 9 a cast to another pointer type */
#pragma tamm task
    { double *a = tamm_block(A, 8); unsigned char *b = (unsigned char *)a; b[0] = 1; }
    /* 10 a cast to an integer: escape */
#pragma tamm task
    { double *a = tamm_block(A, 9); uintptr_t u = (uintptr_t)a; double *p = (double *)(u + 8); p[0] = 1; }
    /* 11 a struct field of a local */
#pragma tamm task
    { struct { double *p; } s; s.p = tamm_block(A, 10); s.p[0] = 1; }
    /* 12 an array of pointers */
#pragma tamm task
    { double *v[2]; v[0] = tamm_block(A, 11); v[0][1] = 1; }
    /* 13 a struct holding the pointer copied whole: escape */
#pragma tamm task
    { struct { double *p; } s, t; s.p = tamm_block(A, 12); t = s; t.p[0] = 1; }
    /* 14 stored through a pointer: escape */
#pragma tamm task
    { double *x; double **pp = &x; *pp = tamm_block(A, 13); x[0] = 1; }
    /* 15 a branch of ?: */
#pragma tamm task
    { double *a = tamm_block(A, 14); double *q = flag ? a : a + 1; q[0] = 1; }
    /* 16 the value of an assignment and of a ',' */
#pragma tamm task
    { double *a = tamm_block(A, 15); double *q; *(q = a) = 1; *(q = a, q + 1) = 2; }
    /* 17 null tests, comparisons, differences, sizeof: no access */
#pragma tamm task
    { double *a = tamm_block(A, 16); double *b = tamm_block(B, 1); b[0] = (a != 0) + (a + 1 - a) + sizeof(*a); }
    /* 18 a const parameter; an annotated parameter; an invisible non-const one */
#pragma tamm task
    { double *a = tamm_block(A, 17); double *b = tamm_block(B, 2); double *c = tamm_block(B, 3); opaque_const(a); annotated(b); opaque(c); }
    /* 19 through a function pointer: escape */
#pragma tamm task
    { double *a = tamm_block(A, 18); void (*fp)(double *) = opaque; fp(a); }
    /* 20 kernels in a header */
#pragma tamm task
    { double *a = tamm_block(A, 19); double *b = tamm_block(B, 4); double *c = tamm_block(B, 5); h_store(a, N * N); h_scale(b, N); h_inc(c, N); }
#pragma tamm task
    { double *a = tamm_block(A, 20); double *b = tamm_block(B, 6); double *c = tamm_block(B, 7); h_acc(a, b, N); c[0] = h_sum(b, N); }
    /* 21 a callee that returns its argument */
#pragma tamm task
    { double *a = tamm_block(A, 21); *h_at(a, 2) = 5; }
    /* 22 memset, memcpy */
#pragma tamm task
    { double *a = tamm_block(A, 22); double *b = tamm_block(B, 8); memset(a, 0, sizeof(double) * N * N); memcpy(b, a, sizeof(double) * N); }
    /* 23 a pointer-to-array view */
#pragma tamm task
    { double *a = tamm_block(A, 23); double (*m)[N] = (double (*)[N])a; m[1][2] = 3; }
    /* 24 mutual recursion through a header */
#pragma tamm task
    { double *a = tamm_block(A, 24); h_f(a, 4); }
#pragma tamm task
    { double *a = tamm_block(A, 25); h_g(a, 4); }
    /* 25 the pointer re-pointed, then moved with += */
#pragma tamm task
    { double *a = tamm_block(A, 26); double *q = a; q += 2; q[0] = 1; }
#pragma tamm taskwait
}
