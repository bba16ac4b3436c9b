/*
 * stale_ptr.h — code outside tasks that keeps a tamm_block() pointer, submits a
 * task that writes (or accumulates into) that block, and uses the pointer again
 * with no taskwait between: the plain build ran the task at once, tamm has not
 * yet.  A warning naming the pointer, its block, the task's line and the use.
 */
#ifndef TAMMCC_STALE_PTR_H
#define TAMMCC_STALE_PTR_H

#include "pragma.h"
#include "model.h"

/** Warn, once per pointer variable, where a pointer stored from `tamm_block(T, i...)`
 *  outside tasks is used after a later top-level task whose access to the same block
 *  text (or to the whole of T) writes or accumulates, with no taskwait, fence or
 *  waiting call (tamm_wait_all, tamm_barrier, tamm_fence_wait, tamm_timeline_wait)
 *  between the task and the use, and no new value stored into the pointer before the
 *  use.  Returns the number of warnings. */
int cc_warn_stale_pointers(const cc_unit *u);

#endif
