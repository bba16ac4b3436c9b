/* pointer_forms_kern.h — tile kernels kept in a header, as C projects keep them:
 * tammcc must infer their accesses exactly as if they were in the .c file. */
#ifndef POINTER_FORMS_KERN_H
#define POINTER_FORMS_KERN_H

static void k_store(double *x, int n) { for (int i = 0; i < n; i++) x[i] = (double)(i % 7); }
static void k_scale(double *x, int n) { for (int i = 0; i < n; i++) x[i] = x[i] * 2; }
static void k_inc(double *x, int n) { for (int i = 0; i < n; i++) x[i]++; }
static void k_ptr(double *x, int n) { for (int i = 0; i < n; i++) *(x + i) = 3.0 + i; }
static void k_acc(double *x, const double *y, int n) { for (int i = 0; i < n; i++) x[i] += y[i]; }
static void k_row(double *row, int n) { for (int j = 0; j < n; j++) row[j] = row[j] * 3 - 1; }
static double *k_at(double *x, int i) { return x + i; }

/* mutual recursion: g touches the block only through f */
static void k_rec_g(double *x, int n);
static void k_rec_f(double *x, int n) { x[0] += 1; if (n > 0) k_rec_g(x + 1, n - 1); }
static void k_rec_g(double *x, int n) { if (n > 0) k_rec_f(x, n - 1); }
#endif
