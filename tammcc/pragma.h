/*
 * pragma.h — recovering `#pragma tamm` directives, which libclang drops from
 * the AST: from the main file's tokens (clang_tokenize), from `_Pragma("tamm
 * ...")` written in code, also where a macro tammcc expanded in place wrote
 * it (mexpand.h); a `_Pragma("tamm ...")` behind a macro still expanded (found
 * through the macro expansions of the detailed preprocessing record) is an
 * error.  Each directive is
 * then attached to the statement that follows it by source position, and
 * tasks are nested by extent.  The same scan records the directives that
 * change macros (#define, #undef, push_macro / pop_macro): code outlined out
 * of a function replays those written in the function before the task.
 */
#ifndef TAMMCC_PRAGMA_H
#define TAMMCC_PRAGMA_H

#include "model.h"
#include "mexpand.h"

typedef enum { CC_MAC_DEFINE, CC_MAC_UNDEF, CC_MAC_PUSH, CC_MAC_POP } cc_mac_kind;

typedef struct cc_macro_dir {        /* a directive that changes a macro: the outlined code replays it */
    size_t b, e;                     /* its text: from '#' to the end of its logical line */
    char *name;                      /* the macro it defines, undefines, pushes or pops */
    cc_mac_kind kind;                /* #define, #undef, #pragma push_macro / pop_macro */
} cc_macro_dir;

typedef struct cc_unit {
    cc_source src;
    cc_ast ast;
    cc_pragma *pr; int npr;          /* all directives, in source order */
    cc_node **fns; int nfns;         /* function definitions holding directives (trees) */
    cc_task **tasks; int ntasks;     /* source order (parents before children) */
    struct cc_standalone { cc_pragma *pr; cc_task *in; cc_node *fn; cc_node *stmt; size_t e; } *sa;
    int nsa;                         /* taskwait / fence / streaming directives */
    cc_macro_dir *mac; int nmac;     /* #define, #undef, #pragma push_macro / pop_macro, in source order,
                                      * outside the #if branches skipped */
    const cc_expanded *xp;           /* the macro invocations tammcc expanded in the text (mexpand.h) */
    size_t pr_cap, fns_cap, tasks_cap, sa_cap, mac_cap; /* capacities (xalloc.h: cc_grow) */
} cc_unit;

/** Find and parse every directive of the main file (errors reported), and
 *  record its macro directives (u->mac). */
int cc_pragmas_collect(cc_unit *u);
/** Attach directives to statements and build the task tree (errors reported). */
int cc_pragmas_attach(cc_unit *u);
void cc_unit_free(cc_unit *u);
/** End of a statement including a trailing ';' that its extent leaves out. */
size_t cc_stmt_end(const cc_unit *u, const cc_node *s);

#endif
