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
/** A C declaration of `name` with type `ty` ("double (*name)[4]"); caller frees. */
char *cc_decl(CXType ty, const char *name, int canonical);

#endif
