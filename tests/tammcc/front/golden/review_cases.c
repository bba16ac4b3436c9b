/* Cases an adversarial review found inferred unsoundly (read, accum or write
 * where the body modifies, reads, or does not cover the block): each must now
 * be readwrite, or a write whose coverage is what the body really stores. */
#include <tamm.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define SET(p, v) p = v
#define SWAP(x, y) do { double t_ = x; x = y; y = t_; } while (0)
#define ST(x) x =
#define ID2(junk, y) y
#define STAR(junk, p) *p
#define PSET(q, x) q = x
#define OR_ELSE(x, y) ({ __typeof__(x) _x = (x); _x ? _x : (y); })
#define N 4

static void fill_c(double *a, unsigned char n) { for (unsigned char i = 0; i < n; i++) a[i] = 0; }
static void fill_k(double *a) { enum { K = 1 }; for (int i = 0; i < K; i++) a[i] = 0; }
static void rec(double *p1, double *p2, int c) { double *q = c ? p1 : p2; q[0] = 1.0; if (c > 1) rec(q, q, c - 1); }
inline void maybe(double *p) { (void)p; }
static double *first(const double *p) { return (double *)p; }

void f(tamm_tensor *A, tamm_tensor *B, int n, int c)
{
#pragma tamm task
    { double *a = tamm_block(A, 0); SET(a[0], 1.0); }
#pragma tamm task
    { double *a = tamm_block(A, 1); double *b = tamm_block(B, 1); SWAP(a[0], b[0]); }
#pragma tamm task
    { double *a = tamm_block(A, 2); ST(a[0]) ID2(+=, 5.0); }
#pragma tamm task
    { double *a = tamm_block(A, 3); STAR(!, a) = 5.0; }
#pragma tamm task
    { double *a = tamm_block(A, 4); double *q; PSET(q, a); q[0] = 1.0; }
#pragma tamm task
    { double *a = tamm_block(A, 5); ({ a; })[0] = 1.0; }
#pragma tamm task
    { double *a = tamm_block(A, 6); double *fb = tamm_block(B, 6); double *p = OR_ELSE(a, fb); p[0] = 1.0; }
#pragma tamm task
    { long *a = tamm_block(A, 7); __atomic_store_n(&a[0], 5L, __ATOMIC_SEQ_CST); }
#pragma tamm task
    { _Atomic long *a = tamm_block(A, 8); atomic_store(a, 5); }
#pragma tamm task
    { double *a = tamm_block(A, 9); union { double *p; intptr_t i; } u = { a }; ((double *)u.i)[0] = 1.0; }
#pragma tamm task
    { double *a = tamm_block(A, 10); double *v[1] = { a }; v[0] = v[0] + 1; for (int i = 0; i < 8; i++) v[0][i] = 0; }
#pragma tamm task
    { double *a = tamm_block(A, 11); double *b = tamm_block(B, 11); b[0] = (a[0] += 1.0); }
#pragma tamm task
    { double *a = tamm_block(A, 12); ((char *)a)[0] += 1; }
#pragma tamm task
    { double *a = tamm_block(A, 13); double *b = tamm_block(B, 13); rec(a, b, c); }
#pragma tamm task
    { double *a = tamm_block(A, 14); maybe(a); }
#pragma tamm task
    { double *a = tamm_block(A, 15); first(a)[0] = 1.0; }
#pragma tamm task
    { double *a = tamm_block(A, 16); double *b = tamm_block(B, 16); memset(b ?: a, 0, 64); }
#pragma tamm task
    { double *a = tamm_block(A, 17); fill_c(a, n + 256); } /* the callee sees (unsigned char)(n + 256) */
#pragma tamm task
    { double *a = tamm_block(A, 18); fill_k(a); }
#pragma tamm task
    { double *a = tamm_block(A, 19); for (int i = 0; i < n; i++) a[i] = 0; }
#pragma tamm task
    { double *a = tamm_block(A, 20);
      for (int i = 0; i < 2; i++)
          for (int j = 0; j < N; j++)
#undef N
#define N 2
              a[i * N + j] = 0; }
#pragma tamm taskwait
}

/* weak definitions: a strong definition in another file replaces them at link time, so their
 * bodies are not followed (readwrite), whichever declaration carries the attribute */
__attribute__((weak)) void weak_def(double *p) { (void)p; }
void weak_later(double *p);
__attribute__((weak)) void weak_later(double *p);
void weak_later(double *p) { (void)p; }
void strong_def(double *p) { (void)p; }

void weak_cases(tamm_tensor *A)
{
#pragma tamm task
    weak_def(tamm_block(A, 0));
#pragma tamm task
    weak_later(tamm_block(A, 1));
#pragma tamm task
    strong_def(tamm_block(A, 2));
}
