/*
 * capture.h — the variables a task takes from its surroundings (captured by
 * value at submission, as OpenMP does for locals), the body locals that live
 * across each taskwait (carried by the continuation), and the body checks:
 * writes to captured variables, writes to memory that is not a block,
 * return / goto / break / continue out of the body.  A task also captures
 * what the submissions of its nested tasks need: their clause expressions'
 * variables and their own captures.
 */
#ifndef TAMMCC_CAPTURE_H
#define TAMMCC_CAPTURE_H

#include "pragma.h"

/** Fill t->cap, t->loc and t->wait[].live; report errors and warnings.  Returns
 *  the number of errors.  The tasks nested in t must be captured first (t
 *  captures what their submissions in its body need). */
int cc_capture(cc_unit *u, cc_task *t);
/** The variable an lvalue names: the DeclRefExpr of x, or of the base of p[i] / *p / p->f /
 *  s.f (*through_ptr: reached through a subscript or a pointer); NULL for any other base. */
cc_node *cc_lvalue_base(cc_node *n, int *through_ptr);
/** A C declaration of `name` with type `ty` ("double (*name)[4]"); caller frees. */
char *cc_decl(CXType ty, const char *name, int canonical);

#endif
