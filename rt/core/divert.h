/*
 * divert.h — the one flag tamm__submit tests for a top-level task, and where
 * such a task then goes (divert.c): to the submission filter of the layers
 * above (layer.h, tamm__flow_install: the MPI task flow while several ranks
 * run), or to a streaming scope that keeps it (scope.h).  With one rank and no
 * scope the flag is 0 and the submission goes on as if this module did not exist.
 */
#ifndef TAMM_DIVERT_H
#define TAMM_DIVERT_H

#include "tamm.h"

struct tamm__task_s;

/** Nonzero when tamm__submit must look twice at a top-level task: the
 *  submission filter is installed, or a streaming scope keeps tasks. */
extern int tamm__submit_divert;

/** tamm__submit of a top-level task while tamm__submit_divert: the submission
 *  filter (the task validated first), else the streaming scope's. */
int tamm__divert_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, struct tamm__task_s **out);
/** Recompute tamm__submit_divert: a scope began, flushes or ended (scope.c),
 *  or the filter was installed or removed. */
void tamm__divert_update(void);

#endif
