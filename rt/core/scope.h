/*
 * scope.h — streaming scopes (scope.c; docs/runtime.md "Streaming scopes"): the
 * top-level tasks submitted inside one are kept and submitted column by column.
 */
#ifndef TAMM_SCOPE_H
#define TAMM_SCOPE_H

#include "tamm.h"

struct tamm__task_s;

/** tamm_streaming_begin / _end (after their checks); end flushes at the outermost. */
void tamm__scope_begin(void);
int tamm__scope_end(void);
int tamm__scope_depth(void);
/** A top-level task while tamm__submit_divert (divert.h) and no submission filter: TAMM_OK if
 *  kept (or an error), -1 if the caller submits it (after the kept tasks were submitted). */
int tamm__scope_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, struct tamm__task_s **out);
/** Submit the kept tasks now, column by column (waits, barriers, fences). */
int tamm__scope_flush(void);
/** 1 while a scope keeps tasks (tamm_tensor_destroy defers its mark then; divert.c). */
int tamm__scope_keeping(void);
/** tamm_tensor_destroy inside a scope that keeps tasks: 1 if T was destroyed already. */
int tamm__scope_destroying(tamm_tensor *T);
/** tamm_tensor_create inside a scope. */
void tamm__scope_created(tamm_tensor *T);

#endif
