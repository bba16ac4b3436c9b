/*
 * cuda_index.h — which elements a kernel's subscripts reach: a subscript read as a polynomial
 * over atoms (loop variables with their trip counts, and host values fixed for the kernel;
 * constants such as literals, macros and enum constants are evaluated), and the condition under
 * which two iterations that differ in a loop variable reach distinct elements.
 *
 * Iterations that differ in loop variable v reach distinct elements through a subscript
 * c * v + sum of c_w * w + rest (every coefficient fixed for the kernel) when
 * |c| > sum of |c_w| * (trip count of w - 1) over the loop variables w that may differ too: the
 * two subscripts then differ by at least |c| minus what the other variables can make up.  The
 * condition is decided here when everything in it is constant, else it is C over host values
 * (and trip counts), evaluated at submission.
 */
#ifndef TAMMCC_CUDA_INDEX_H
#define TAMMCC_CUDA_INDEX_H

#include "cuda_plan.h"

enum { CC_KP_TERMS = 24, CC_KP_ATOMS = 4, CC_KX_MAX = 24 };
typedef struct { long long k; int na; int a[CC_KP_ATOMS]; } cc_kterm; /* k * atoms (sorted) */
typedef struct { int n; cc_kterm t[CC_KP_TERMS]; } cc_kpoly;

typedef struct cc_kx cc_kx;
cc_kx *cc_kx_new(cc_cuda_plan *p);
void cc_kx_free(cc_kx *g);
/** Add an atom: a loop variable (loopv) with its trip count (C text over host values, NULL if
 *  unknown; ctrip: the constant ktrip; ptrip: as a polynomial of host values, or NULL), or a
 *  host value.  Its index, or -1 when full. */
int cc_kx_atom(cc_kx *g, CXCursor d, const char *name, int loopv, const char *trip, int ctrip, long long ktrip,
               const cc_kpoly *ptrip);
/** n as a polynomial of the atoms: 1, or 0 when it is not one (an unknown name, '/', a call...). */
int cc_kx_poly(cc_kx *g, cc_node *n, cc_kpoly *out);
/** Subtract: r = a - b (0 when too large). */
int cc_kx_sub(cc_kpoly *r, const cc_kpoly *a, const cc_kpoly *b);
int cc_kx_is_const(const cc_kpoly *x, long long *k);
/** The loop atoms x uses (bit per atom). */
unsigned cc_kx_loops(const cc_kx *g, const cc_kpoly *x);
/** x has the term +1 or -1 times atom a alone (consecutive a, consecutive elements). */
int cc_kx_unit(const cc_kpoly *x, int a);
/** x as C (atoms by name, as long long). */
char *cc_kx_str(cc_kx *g, const cc_kpoly *x);
/** Two iterations that differ in loop atom v, with the loop atoms of `fixed` equal and every
 *  other loop atom free, reach distinct elements through the subscript x. */
cc_kcond cc_kx_distinct(cc_kx *g, const cc_kpoly *x, int v, unsigned fixed);

cc_kcond cc_kcond_const(int v);
/** a && b, a || b (both consumed). */
cc_kcond cc_kcond_and(cc_kcond a, cc_kcond b);
cc_kcond cc_kcond_or(cc_kcond a, cc_kcond b);
cc_kcond cc_kcond_dup(const cc_kcond *c);

#endif
