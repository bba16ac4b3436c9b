/*
 * cuda_blas.h — the CUDA variant of a task whose body calls BLAS and LAPACK
 * routines (blas.h) on blocks: the calls, in order, made by cuBLAS and cuSOLVER
 * on the task's stream through the helpers of include/tamm_blas_cuda.h.  The
 * body is a sequence of such calls (`cblas_dgemm(...);`, `*info =
 * LAPACKE_dpotrf(...);`, `d[0] += cblas_ddot(...);`), declarations of block
 * pointers and scalars, and calls of functions of the file whose bodies are
 * such sequences (inlined, their parameters bound to the arguments), with
 * scalar arguments computed from captured values, constants and the runtime's
 * queries.  emit_cuda.c tries this form (form C) after its checks of the task
 * and before the other two; --explain names the routines ("cuBLAS: dgemm").
 */
#ifndef TAMMCC_CUDA_BLAS_H
#define TAMMCC_CUDA_BLAS_H

#include "outbuf.h"
#include "pragma.h"

typedef struct cc_blas_calls cc_blas_calls;

/** Plan t's CUDA variant as BLAS / LAPACK calls.  0: the body calls none (the
 *  other forms apply); 1: planned into *plan, and t->cuda_libs, t->cuda_calls
 *  set; -1: the body calls them but cannot get this variant, *why says why. */
int cc_blas_plan(cc_unit *u, cc_task *t, cc_blas_calls **plan, char **why);
/** The body of the host variant (between the prologue that obtains the blocks and the epilogue). */
void cc_blas_emit(cc_out *o, cc_unit *u, const cc_task *t, const cc_blas_calls *plan);
void cc_blas_free(cc_blas_calls *plan);
/** For the submission: the expression that says whether a GPU can run t's CUDA variant
 *  ("tamm_num_gpus()", or "tamm_cuda_libs(TAMM_CUBLAS)" when it calls cuBLAS).  Caller frees. */
char *cc_blas_gpu_test(const cc_task *t);

#endif
