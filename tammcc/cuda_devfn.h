/*
 * cuda_devfn.h — the functions of the file that a generated kernel may call: pure arithmetic
 * functions (arithmetic parameters and result; a body that uses only its parameters, arithmetic
 * locals, constants, math functions and other such functions), copied into the .cu as
 * `static __device__` functions.  A call of one changes nothing but its result, so the kernel's
 * analysis of the nest holds through it.
 */
#ifndef TAMMCC_CUDA_DEVFN_H
#define TAMMCC_CUDA_DEVFN_H

#include "cuda_plan.h"
#include "outbuf.h"

/** The function a nest's call calls (not a math function): 1 when device code can call it; it and
 *  the functions it calls are then in p->dev (callees first) and their text's rewrites among p's
 *  edits.  0 and p->why (naming the function and what it does that device code cannot). */
int cc_cu_devfn(cc_cuda_plan *p, cc_node *call);
/** Print p->dev[i] as a `static __device__` function: its signature in C++ spelling, then its
 *  body, #line-mapped, through put (the user's text with the plan's edits). */
void cc_cu_devfn_emit(cc_out *o, const cc_cuda_plan *p, int i,
                      void (*put)(cc_out *o, const cc_cuda_plan *p, size_t b, size_t e));

#endif
