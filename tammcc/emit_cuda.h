/*
 * emit_cuda.h — the CUDA variant file (.cu; docs/language.md "Variants"): for each task that
 * has one (the planner decides: cuda_plan.h), a host function `<task>_cuda(ctx, args)` that
 * obtains the task's blocks and either launches the kernel generated from the body's loop nest
 * or calls the TAMM_CUDA_VARIANT of the function the body calls.
 */
#ifndef TAMMCC_EMIT_CUDA_H
#define TAMMCC_EMIT_CUDA_H

#include "outbuf.h"
#include "pragma.h"

/** Write the .cu file for u into o; returns 0 if no task has a CUDA variant. */
int cc_emit_cuda(cc_unit *u, cc_out *o);

#endif
