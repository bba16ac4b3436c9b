/*
 * pragma.h — recovering `#pragma tamm` directives, which libclang drops from
 * the AST: from the main file's tokens (clang_tokenize), from `_Pragma("tamm
 * ...")` written in code, and from `_Pragma` inside macros (found through the
 * macro expansions of the detailed preprocessing record).  Each directive is
 * then attached to the statement that follows it by source position, and
 * tasks are nested by extent.
 */
#ifndef TAMMCC_PRAGMA_H
#define TAMMCC_PRAGMA_H

#include "model.h"

typedef struct cc_unit {
    cc_source src;
    cc_ast ast;
    cc_pragma *pr; int npr;          /* all directives, in source order */
    cc_node **fns; int nfns;         /* function definitions holding directives (trees) */
    cc_task **tasks; int ntasks;     /* source order (parents before children) */
    struct cc_standalone { cc_pragma *pr; cc_task *in; cc_node *fn; cc_node *stmt; size_t e; } *sa;
    int nsa;                         /* taskwait / fence / streaming directives */
} cc_unit;

/** Find and parse every directive of the main file (errors reported). */
int cc_pragmas_collect(cc_unit *u);
/** Attach directives to statements and build the task tree (errors reported). */
int cc_pragmas_attach(cc_unit *u);
void cc_unit_free(cc_unit *u);
/** End of a statement including a trailing ';' that its extent leaves out. */
size_t cc_stmt_end(const cc_unit *u, const cc_node *s);

#endif
