/*
 * missing_wait.h — a task body that names a block after submitting a nested
 * task that writes it (or reads it, where the body modifies it), with no
 * taskwait between: the plain build ran the nested task at once, tamm has not
 * yet.  A warning naming both lines; at run time TAMM_CHECK_ACCESS=1 reports
 * what tammcc cannot see (rt/core/check.c).
 */
#ifndef TAMMCC_MISSING_WAIT_H
#define TAMMCC_MISSING_WAIT_H

#include "diag.h"
#include "model.h"

/** Warn about each use of a block in t's own body (tamm_block) that follows, in the
 *  text, a nested task of t whose own access to the same block text conflicts with it,
 *  with no taskwait of t between the two.  Returns the number of warnings. */
int cc_warn_missing_waits(const cc_source *src, const cc_task *t);

#endif
