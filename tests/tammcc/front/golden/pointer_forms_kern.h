/* kernels in a header: inferred exactly as in the main file */
static void h_store(double *x, int n) { for (int i = 0; i < n; i++) x[i] = 1.0; }
static void h_scale(double *x, int n) { for (int i = 0; i < n; i++) x[i] = x[i] * 2; }
static void h_inc(double *x, int n) { for (int i = 0; i < n; i++) x[i]++; }
static void h_acc(double *x, const double *y, int n) { for (int i = 0; i < n; i++) x[i] += y[i]; }
static double h_sum(double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }
static double *h_at(double *x, int i) { return x + i; }
static void h_g(double *x, int n);
static void h_f(double *x, int n) { x[0] += 1; if (n > 0) h_g(x + 1, n - 1); }
static void h_g(double *x, int n) { if (n > 0) h_f(x, n - 1); }
