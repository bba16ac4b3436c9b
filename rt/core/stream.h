/*
 * stream.h — streaming scopes (stream.c; docs/runtime.md "Streaming scopes").
 */
#ifndef TAMM_STREAM_H
#define TAMM_STREAM_H

#include "tamm.h"

struct tamm_task_s;

/** Nonzero when tamm__submit must look twice at a top-level task: the MPI flow
 *  is on, or a streaming scope keeps tasks.  The one flag tamm__submit tests. */
extern int tamm__submit_divert;

/** tamm_streaming_begin / _end (after their checks); end flushes at the outermost. */
void tamm__stream_begin(void);
int tamm__stream_end(void);
int tamm__stream_depth(void);
/** A top-level task while tamm__submit_divert: TAMM_OK if kept (or an error),
 *  -1 if the caller submits it (after the kept tasks were submitted). */
int tamm__stream_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, struct tamm_task_s **out);
/** tamm__submit of a top-level task while tamm__submit_divert: the MPI flow, or the above. */
int tamm__divert_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, struct tamm_task_s **out);
/** Submit the kept tasks now, column by column (waits, barriers, fences). */
int tamm__stream_flush(void);
/** 1 while a scope keeps tasks (tamm_tensor_destroy defers its mark then). */
int tamm__stream_keeping(void);
/** tamm_tensor_destroy inside a scope that keeps tasks: 1 if T was destroyed already. */
int tamm__stream_destroying(tamm_tensor *T);
/** tamm_tensor_create inside a scope. */
void tamm__stream_created(tamm_tensor *T);

#endif
