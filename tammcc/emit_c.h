/*
 * emit_c.h — the generated C file: the user's file with each task outlined
 * into a CPU variant function (before the function that holds it), each
 * task statement replaced by its submission, taskwaits inside tasks turned
 * into continuations, top-level directives into runtime calls; `#line`
 * directives map everything that came from the user back to the user's file.
 */
#ifndef TAMMCC_EMIT_C_H
#define TAMMCC_EMIT_C_H

#include "emit.h"
#include "pragma.h"

/** Write the generated C for u into o (o->self names the output for #line). */
void cc_emit_c(cc_unit *u, cc_out *o);
/** The TAMM_CC_* mode expression with which a variant gets access i of t (a
 *  constant, or `<args>->tamm_m<i>` when write was proved at submission); caller frees. */
char *cc_access_how(const cc_task *t, int i, const char *args);
/** The default label of a task (a C string literal; caller frees). */
char *cc_task_label(cc_unit *u, cc_task *t);

#endif
