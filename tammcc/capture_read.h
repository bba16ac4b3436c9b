/*
 * capture_read.h — values outside tensors that a task body reads (docs/language.md, rule 40).
 *
 * The plain build runs a task body at its submission, so it sees the value that data outside
 * tensors (a global, memory through a captured pointer: `p->coef`, `*q`, `a[3]`, `g`) has then;
 * the tammcc build runs it later.  Where tammcc proves the location fixed and the value
 * unchanged by the body up to the read, the read is taken at submission into the task's
 * arguments and the body uses the copy (cc_task.rd; emit_c.c).  The other reads of such data
 * (an index that varies in the body, a read under a branch, a read inside a called function,
 * a body that may store there) are kept (cc_task.urd): a store to the same variable by the
 * submitting code after the submission and before the next taskwait is then a warning that
 * names both lines.
 */
#ifndef TAMMCC_CAPTURE_READ_H
#define TAMMCC_CAPTURE_READ_H

#include "pragma.h"

/** Find t's reads of data outside tensors: fill t->rd (taken at submission) and t->urd (the
 *  others).  After cc_capture(t) (reads index captured variables), before cc_cuda_decide (a
 *  task with reads taken at submission has no CUDA variant). */
void cc_capture_reads(cc_unit *u, cc_task *t);
/** Warn about each store by the code that submits t, after the submission and before the next
 *  taskwait, to a variable that t reads without taking it at submission (t->urd).  Returns the
 *  number of warnings. */
int cc_warn_later_stores(cc_unit *u, const cc_task *t);
/** The declaration of a field `name` that holds r's value (no qualifiers on an arithmetic
 *  value: a bit-field is assigned; an enumeration as its integer type); caller frees. */
char *cc_read_decl(const cc_read *r, const char *name);
/** Is r's field const (a `T *const` pointer): set by memcpy, not assigned? */
int cc_read_by_copy(const cc_read *r);
/** Free t->rd and t->urd. */
void cc_reads_free(cc_task *t);

#endif
