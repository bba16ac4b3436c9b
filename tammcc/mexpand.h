/*
 * mexpand.h — expanding, in the text of the main file, the invocations of the
 * user's macros that hold tamm directives (`_Pragma("tamm ...")`) or tamm API
 * names (`tamm_block(A, i, j)` behind `#define BLK(i, j) ...`).  tammcc rewrites
 * the file's text around directives, statements and block references; behind
 * a macro those have no text of their own (the loop of `#define PARFOR(v, n)
 * for (v = 0; v < (n); v++) _Pragma("tamm task")` is the invocation's text), so
 * the invocation is replaced by the macro's replacement list with its
 * arguments substituted, on the invocation's line, and the file is parsed
 * again.  The C preprocessor then sees the same tokens as before.
 */
#ifndef TAMMCC_MEXPAND_H
#define TAMMCC_MEXPAND_H

#include <clang-c/Index.h>
#include <stddef.h>

typedef struct cc_expansion {        /* one macro invocation expanded in place */
    size_t b, e;                     /* the expansion's text in the rewritten file */
    char *name;                      /* the macro's name */
} cc_expansion;

typedef struct cc_expanded {
    char *text; size_t len;          /* the rewritten file (NULL: nothing was expanded) */
    cc_expansion *exp; int nexp;     /* the expansions, offsets in text */
    size_t exp_cap;                  /* capacity of exp (xalloc.h: cc_grow) */
} cc_expanded;

/** Expand, in the main file `file` of `tu` (whose contents are text[0, len)),
 *  every invocation of a macro whose definition holds `_Pragma("tamm ...")`,
 *  `_Pragma(#x)`, a name beginning with `tamm_`, or an invocation of such a macro, and that is
 *  not defined in a system header or in tamm's own headers (tamm*.h).  A macro
 *  that names itself other than as `NAME(...)` (a call of the function NAME)
 *  is left alone.  The expansions of
 *  x (from an earlier round) are carried over to the new text.  Returns the
 *  number of invocations expanded (0: x is unchanged). */
int cc_expand_macros(CXTranslationUnit tu, CXFile file, const char *text, size_t len, cc_expanded *x);

/** The outermost expansion holding offset off, or NULL. */
const cc_expansion *cc_expansion_at(const cc_expanded *x, size_t off);

/** Free x's contents. */
void cc_expanded_free(cc_expanded *x);

#endif
