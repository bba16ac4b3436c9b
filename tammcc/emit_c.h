/*
 * emit_c.h — the generated C file: the user's file with each task outlined
 * into a CPU variant function (before the function that holds it), each
 * task statement replaced by its submission, taskwaits inside tasks turned
 * into continuations, top-level directives into runtime calls; `#line`
 * directives map everything that came from the user back to the user's file.
 * Macros defined in a function are replayed before the code outlined from it.
 */
#ifndef TAMMCC_EMIT_C_H
#define TAMMCC_EMIT_C_H

#include "outbuf.h"
#include "pragma.h"

/** Write the generated C for u into o (o->self names the output for #line). */
void cc_emit_c(cc_unit *u, cc_out *o);
/** How the mode of access a is decided at submission: CC_AT_SUBMIT_WRITE (write if
 *  the bytes tammcc proved stored cover the block, else readwrite: tamm_cc_write_mode),
 *  CC_AT_SUBMIT_ACCUM (accum if the tensor's dtype is the element type the body adds
 *  in, else readwrite: tamm_cc_accum_mode), or 0 (the mode is a constant).  Either
 *  way the args struct has a field `tamm_m<i>` with the mode. */
enum { CC_AT_SUBMIT_WRITE = 1, CC_AT_SUBMIT_ACCUM = 2 };
int cc_mode_at_submit(const cc_access *a);
/** The TAMM_CC_* mode expression with which a variant gets access i of t (a
 *  constant, or `<args>->tamm_m<i>` when decided at submission); caller frees. */
char *cc_access_how(const cc_task *t, int i, const char *args);
/** `struct NAME_args`, the arguments of task t, as the .c and the .cu both declare it (one printer,
 *  so their layouts cannot drift apart): the captured variables (each declared by decl: the .c
 *  spells types as the user's file does, the .cu canonically), then for each block access its
 *  tensor, indices, mode chosen at submission and guard's value.  With full (the .c), then the
 *  values read at submission and a continuation's frame: the .cu's struct is the leading part of
 *  the .c's, all that a CUDA variant reads. */
void cc_emit_args_struct(cc_out *o, const cc_task *t, char *(*decl)(CXType ty, const char *name), int full);
/** The default label of a task (a C string literal; caller frees). */
char *cc_task_label(cc_unit *u, cc_task *t);
/** Replay the macro directives of u that start in [b, e), each under a `#line`
 *  to the user's file; with undef_first, each #define after an #undef of its
 *  name.  Returns the number replayed (the caller maps lines back after them). */
int cc_emit_macros(cc_out *o, const cc_unit *u, size_t b, size_t e, int undef_first);
/** `#pragma push_macro` of every macro that the directives starting in [b, e)
 *  change.  Returns their number. */
int cc_emit_macro_save(cc_out *o, const cc_unit *u, size_t b, size_t e);
/** Undo cc_emit_macro_save(o, u, b, e) after the directives in [b, at) were
 *  replayed: `pop_macro` of each name, in reverse order, once more for each
 *  push_macro of the user's among them that was not popped. */
void cc_emit_macro_restore(cc_out *o, const cc_unit *u, size_t b, size_t e, size_t at);

#endif
