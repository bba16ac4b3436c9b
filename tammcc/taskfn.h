/*
 * taskfn.h — task functions (docs/language.md "Task functions"): functions that
 * submit tasks, directly or through calls of other task functions, at any depth
 * and in recursion.
 *
 * A task whose body calls a task function becomes the parent of the tasks the
 * call submits (the runtime nests a submission made inside a running task), so
 * its permissions must cover theirs.  This pass computes, for every function
 * defined in the main file, what the tasks it may submit need: per tensor, in
 * the function's own terms (a parameter or a file-scope variable), the union of
 * their permissions; a call substitutes its arguments for the parameters.  It
 * then adds those needs to every task whose own body makes such a call, as
 * whole-tensor permissions (widening is always correct), propagates them to
 * enclosing tasks, and iterates to a fixpoint (recursion).  Once the needs are
 * final, the ranges of recursive task functions are proved (taskfn_range.c,
 * rule 38: the blocks the tasks of a call of f use lie within [lo, hi) of its
 * arguments) and the needs are given again, as those slices where proved.
 * Explicit permission clauses on a tensor win: the runtime checks the children
 * against them.  A need that cannot be named at
 * the caller (a tensor held in a local of the callee) is an error that asks
 * for a permission(...) clause.
 */
#ifndef TAMMCC_TASKFN_H
#define TAMMCC_TASKFN_H

#include "infer.h"
#include "pragma.h"

/** Infer permissions through calls of task functions (after every task's own
 *  inference, before emission): fills cc_task.tfcall.  Returns the number of
 *  errors reported. */
int cc_taskfn_infer(cc_unit *u, cc_infer *in);

#endif
