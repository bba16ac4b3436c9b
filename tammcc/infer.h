/*
 * infer.h — access inference (docs/language.md "How tammcc infers modes"): how a
 * task body uses each tamm_block() pointer, following calls into function
 * definitions of the translation unit, honouring const and the TAMM_READS/
 * WRITES/UPDATES/ACCUMULATES annotations, with the coverage proof for write;
 * then merging explicit clauses and the children's accesses into the task's
 * permissions (docs/language.md "Nested tasks, slices and ranges"), widening
 * indices that vary in the body to ':'.  Implemented by infer.c and the files
 * infer_int.h lists, one concern each.
 */
#ifndef TAMMCC_INFER_H
#define TAMMCC_INFER_H

#include "model.h"

typedef struct cc_infer cc_infer;

cc_infer *cc_infer_new(cc_ast *a, const cc_source *src);
void cc_infer_free(cc_infer *in);
/** The task's own block uses (not those of nested tasks).  Returns the number of errors. */
int cc_infer_body(cc_infer *in, cc_task *t);
/** Explicit clauses and children's accesses (kids must be finished first).  Errors counted. */
int cc_infer_finish(cc_infer *in, cc_task *t);
/** After task functions are known (taskfn.c): a task that gives its blocks back and
 *  gets them again (nested tasks, taskwaits, calls that submit) holds each block it
 *  writes as readwrite (cwrite as creadwrite), so that a later segment of its body
 *  starts from what an earlier one stored.  Returns the number of accesses changed. */
int cc_infer_regets(cc_task *t);
/** Give task t (at least) `mode` permission on the whole tensor `tensor`, for
 *  tasks it submits through calls (taskfn.c), unless a clause of t names the
 *  tensor (the clause wins).  why: for --explain.  Returns 1 if t changed. */
int cc_infer_add_perm(cc_infer *in, cc_task *t, const char *tensor, unsigned mode, const char *why);
/** The same on the slice (nidx, idx) of the tensor: idx[d] is NULL (':') or a
 *  range "lo:hi" of texts stable in t's body, emitted clamped to the dimension
 *  (tamm_cc_range: a range that leaves no block gives the whole dimension). */
int cc_infer_add_slice_perm(cc_infer *in, cc_task *t, const char *tensor, int nidx, char **idx, unsigned mode,
                            const char *why);
/** The text by which a submission of a task whose statement is region names the
 *  value of expression e, or NULL when the value may change in region (caller frees). */
char *cc_infer_stable_text(cc_infer *in, cc_node *e, cc_node *region);
/** Is fn's definition the body that runs (visible, not a non-static inline or weak one)? */
int cc_infer_trusted_body(CXCursor fn);
/** Does region assign var (=, op=, ++, --) or take its address? */
int cc_infer_touches(cc_infer *in, cc_node *region, CXCursor var);
/** Does text mention (as an identifier) a variable declared or assigned inside the task's statement? */
int cc_varies_in(cc_infer *in, const cc_task *t, const char *text);
/** Does one of t's clauses (any mode, permission and range clauses included)
 *  declare block tensor[idx...]: each index ':' or a range, or the same text
 *  where the index is known at submission (varies[d] == 0, varies may be NULL;
 *  unstable == 0; idx[d] NULL is ':')?  Such a block needs no warning that it
 *  is fetched synchronously. */
int cc_clause_covers(const cc_task *t, const char *tensor, char *const *idx, int nidx, const int *varies, int unstable);
/** The argument texts of the `tamm_block(T, i, ...)` written at offset b of the main
 *  file (args[0] the tensor; at most CC_MAX_DIMS + 2, each to free); 0 when the text
 *  there is not such a call. */
int cc_infer_block_args(cc_ast *a, size_t b, char **args, int *nargs);
/** Print the --explain report of a task. */
void cc_infer_explain(cc_infer *in, const cc_task *t, void *FILE_out);

#endif
