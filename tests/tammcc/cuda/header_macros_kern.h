/* header_macros_kern.h — macros of a local header that the kernels of header_macros.c use; the
 * header also holds C that is not C++ (restrict), so the .cu must not include it */
#ifndef HEADER_MACROS_KERN_H
#define HEADER_MACROS_KERN_H

#define SCALE 2.5
#define ROW(i, n) ((i) * (n))
#define NB 24

static inline double first_of(const double *restrict p) { return p[0]; }

#endif
