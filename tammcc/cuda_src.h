/*
 * cuda_src.h — what of the user's C the CUDA file can hold, and how it is rewritten there: C
 * types as C++ declarations, names C++ reserves, the math functions device code may call,
 * enum constants and typedef names the .cu does not have (rewritten, or copied), and
 * expressions computed on the host (a call's arguments, the bounds of the loops on the grid).
 * The rewrites are recorded as edits of the plan (cuda_plan.h), which the printer applies.
 */
#ifndef TAMMCC_CUDA_SRC_H
#define TAMMCC_CUDA_SRC_H

#include "cuda_plan.h"

/** n without the parens and casts around it. */
cc_node *cc_cu_down(cc_node *n);
/** n with the parens around it. */
cc_node *cc_cu_up_parens(cc_node *n);
int cc_cu_same_cursor(CXCursor a, CXCursor b);
/** The spelling of an arithmetic type kind (NULL for others). */
const char *cc_cu_arith(enum CXTypeKind k);
int cc_cu_is_integer(enum CXTypeKind k);
/** The spelling of an arithmetic or enum type (enums as their integer type), else NULL. */
const char *cc_cu_scalar(CXType ty);
/** A C++ declaration of `name` of type ty (arithmetic, enum, pointer to arithmetic / void /
 *  tamm_tensor, pointer to an array of arithmetic; top-level qualifiers dropped), or NULL. */
char *cc_cu_decl(CXType ty, const char *name);
/** A C++ keyword or a CUDA built-in name. */
int cc_cu_reserved(const char *w);
/** A function device code may call (CUDA's math library). */
int cc_cu_math_fn(const char *f);
int cc_cu_valid_ident(const char *s);
/** n is written in the main file exactly as s. */
int cc_cu_text_is(const cc_cuda_plan *p, const cc_node *n, const char *s);
char *cc_cu_node_text(const cc_cuda_plan *p, const cc_node *n);

void cc_cu_edit(cc_cuda_plan *p, cc_cuda_edit e);
void cc_cu_text_edit(cc_cuda_plan *p, size_t b, size_t e, char *text);
/** Drop the edits recorded after the first n (an analysis that was given up). */
void cc_cu_edits_back(cc_cuda_plan *p, int n);
/** Sort the edits by position (outer first): what rendering needs. */
void cc_cu_edits_sort(cc_cuda_plan *p);

/** A growing string. */
typedef struct cc_cu_buf { char *s; size_t n, cap; } cc_cu_buf;
void cc_cu_put(cc_cu_buf *o, const char *s, size_t n);
/** How an accumulation edit is written (the printer's choice; its text is [x->b, x->e)). */
typedef void (*cc_cu_acc_fn)(cc_cu_buf *o, const cc_cuda_plan *p, const cc_cuda_edit *x, void *arg);
/** The user's text [b, e) with the plan's edits applied (sorted), each replacement followed by
 *  the newlines of the text it replaced (line numbers stay); accumulations written by acc (NULL:
 *  as written). */
void cc_cu_render_to(cc_cu_buf *o, const cc_cuda_plan *p, size_t b, size_t e, cc_cu_acc_fn acc, void *arg);
/** The same into a new string (caller frees). */
char *cc_cu_render(const cc_cuda_plan *p, size_t b, size_t e);

/** n is (a wrapper of) exactly one block use of the task: its index, else -1. */
int cc_cu_block_use(const cc_cuda_plan *p, const cc_node *n);
/** The task's captured variable declared by d, or -1. */
int cc_cu_cap_index(const cc_task *t, CXCursor d);
/** d is declared in the text [b, e) of the main file. */
int cc_cu_decl_in(const cc_cuda_plan *p, CXCursor d, size_t b, size_t e);
/** An enum constant used at n: copied (a file-scope enum of the main file), left (one of the
 *  enclosing function, copied with the task), or replaced by its value. 0 if it cannot be. */
int cc_cu_enum_const(cc_cuda_plan *p, cc_node *n, CXCursor d);
/** A typedef name at n: replaced by its arithmetic type. 0 if it cannot be. */
int cc_cu_typeref(cc_cuda_plan *p, cc_node *n);
/** The variable reference n is stored to: the left operand of '=' (or of an operator written in
 *  a macro, which is taken for one) or of a compound assignment, or the operand of '++' / '--';
 *  with addr also when its address is taken ('&', or a unary operator written in a macro). */
int cc_cu_stored(const cc_cuda_plan *p, cc_node *n, int addr);
/** The binding of d in the scope, or NULL. */
cc_kbind *cc_cu_bind(const cc_kscope *sc, CXCursor d);
/** An expression computed before the kernel: with sc NULL a call's argument (the task's
 *  captured variables; block uses become the buffers), else a loop bound (only host values of
 *  sc that are arithmetic, constants, math functions).  0 and p->why if not. */
int cc_cu_host_expr(cc_cuda_plan *p, cc_node *n, const cc_kscope *sc);

#endif
