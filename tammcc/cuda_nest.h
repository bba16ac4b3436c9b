/*
 * cuda_nest.h — the facts of a loop nest that the kernel planner decides from: its canonical
 * loops, every element access of a block (which block, at which subscripts, read, stored or
 * accumulated into), the loops that break and continue statements leave, the variables the nest
 * assigns, and the names of the scope it uses.  Walking the nest also records the rewrites its
 * text needs in the .cu (block uses as buffers, enum constants, typedef names, math calls).
 */
#ifndef TAMMCC_CUDA_NEST_H
#define TAMMCC_CUDA_NEST_H

#include "cuda_plan.h"

/** f is a canonical for loop (for (T v = lb; v < ub (or <=); v++ / ++v / v += 1), T an integer
 *  type): fills l and returns 1. */
int cc_kn_parse_for(cc_cuda_plan *p, cc_node *f, cc_kloop *l);
void cc_kn_loop_free(cc_kloop *l);
/** Walk k->nest (k->sc bound): fills k->el, brk, cont, asg, the scope's `used` marks and the
 *  plan's edits; 0 and p->why for code a kernel cannot hold. */
int cc_kn_walk(cc_cuda_plan *p, cc_kernel *k);
/** A call of the math function fn (callee: the name at the call): its arguments converted to the
 *  parameter types in the .cu (C++ overloads them), as an edit of the plan. */
void cc_kn_typed_call(cc_cuda_plan *p, cc_node *call, cc_node *callee, CXCursor fn, const char *nm);
/** Is the variable of l assigned in the nest (other than by its own increment)? */
int cc_kn_assigned(const cc_kernel *k, const cc_kloop *l);

#endif
