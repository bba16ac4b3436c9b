/*
 * emit_cuda.h — the CUDA variant file (.cu) of SPEC 3.4: for each task that
 * can have one, a host function `<task>_cuda(ctx, args)` that obtains the
 * task's blocks and either launches a kernel generated from the body's loop
 * nest (outer independent loops on the grid, accumulations as atomicAdd) or
 * calls the TAMM_CUDA_VARIANT of the function the body calls.
 */
#ifndef TAMMCC_EMIT_CUDA_H
#define TAMMCC_EMIT_CUDA_H

#include "emit.h"
#include "pragma.h"

/** Decide whether task t gets a CUDA variant (sets t->has_cuda, or t->cuda_why). */
void cc_cuda_decide(cc_unit *u, cc_task *t);
/** Write the .cu file for u into o; returns 0 if no task has a CUDA variant. */
int cc_emit_cuda(cc_unit *u, cc_out *o);

#endif
