/*
 * guard.h — guarded block uses (docs/language.md "Guarded blocks"): the
 * conditions under which a tamm_block() use, or a nested task, is reached from
 * the top of a task body (then/else branches of `if`, the 2nd/3rd operands of
 * `?:`, the right operand of `&&` / `||`).  A block whose guard can be
 * evaluated at submission is requested only when the guard holds; one whose
 * guard cannot (it depends on the body, loads through a pointer, calls a
 * function...) is fetched synchronously in the body and covered by a
 * permission on the whole tensor (every index ':'), so that nothing out of
 * range is ever requested.
 */
#ifndef TAMMCC_GUARD_H
#define TAMMCC_GUARD_H

#include "infer.h"

/** What decides whether a node of a task body runs. */
typedef enum { CC_GUARD_NONE = 0, /* it always runs (as far as branches go) */
               CC_GUARD_EXPR = 1, /* it runs only if *expr holds; *expr can be evaluated at submission */
               CC_GUARD_SYNC = 2  /* it runs under conditions that cannot be evaluated at submission: *why */
} cc_guard_kind;

/** The guard of node n inside t's statement: the conjunction of the branch
 *  conditions on the path from t->stmt down to n.  Sets *expr (CC_GUARD_EXPR:
 *  a C expression in the user's names, valid where t is submitted) or *why
 *  (CC_GUARD_SYNC); the caller frees them.  a is the tree n belongs to. */
cc_guard_kind cc_guard_path(cc_infer *in, cc_ast *a, const cc_task *t, cc_node *n, char **expr, char **why);

/** Record one use of access ac (a tamm_block in t's own body at node n) with its guard. */
void cc_guard_note_use(cc_infer *in, cc_ast *a, const cc_task *t, cc_access *ac, cc_node *n);

/** After all uses of t's own body are noted: settle each access's guard.  An
 *  access with an unguarded use is unconditional; one with a use under a guard
 *  that cannot be evaluated at submission goes to the synchronous path
 *  (fetched = 0, wide = 1: every index is widened to ':'), with a warning;
 *  otherwise it is requested only if the disjunction of its uses' guards holds. */
void cc_guard_settle(const cc_source *src, cc_task *t);

/** Merge the guard of access `from` into `into` (two accesses that became one slice). */
void cc_guard_merge(cc_access *into, const cc_access *from);

/** After cc_infer_finish(t): the permissions t took from its children are
 *  requested under the children's guards combined with the guards of the
 *  nested statements in t's body, or widened to the whole tensor when those
 *  cannot be evaluated at t's submission.  Returns the number of errors (0). */
int cc_guard_finish(cc_infer *in, cc_ast *a, cc_task *t);

/** The guard text for --explain and the submission code: "if (expr)" (static buffer), or "" when unguarded. */
const char *cc_guard_explain(const cc_access *ac);

#endif
