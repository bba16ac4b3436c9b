/*
 * ast.h — a parent-linked tree over libclang cursors for the parts of the
 * translation unit tammcc analyses (function bodies), plus small helpers:
 * file offsets of cursors, operator spelling (libclang 14 has no operator-kind
 * API, so operators are read from the tokens between operands, in the main file
 * or in any header), source text.
 */
#ifndef TAMMCC_AST_H
#define TAMMCC_AST_H

#include <clang-c/Index.h>
#include <stddef.h>

typedef struct cc_node {
    CXCursor c;
    enum CXCursorKind kind;
    size_t b, e;             /* [b, e) byte offsets in the main file (expansion locations) */
    int in_main;             /* both ends lie in the main file */
    struct cc_node *parent;
    struct cc_node **kid;
    int nkid;
} cc_node;

typedef struct cc_ast {
    CXTranslationUnit tu;
    CXFile file;             /* the main file */
    const char *text;        /* its contents */
    size_t len;
} cc_ast;

/** The source text of a cursor in any file, as its tokens separated by one
 *  space (a macro invocation stays as written).  Caller frees. */
char *cc_cursor_text(cc_ast *a, CXCursor c);
/** The spelling of an arithmetic type kind ("unsigned char", "double"...; bool as
 *  "bool" in C++ with cxx, else "_Bool"), or NULL for any other kind. */
const char *cc_arith_type_name(enum CXTypeKind k, int cxx);
/** Build the subtree rooted at `c` (parent may be NULL). */
cc_node *cc_tree(cc_ast *a, CXCursor c, cc_node *parent);
void cc_tree_free(cc_node *n);
/** Offsets of a cursor's extent in the main file; returns 0 if not in it. */
int cc_extent(cc_ast *a, CXCursor c, size_t *b, size_t *e);
/** File offset of a location (its expansion / macro-argument spelling). */
int cc_offset(cc_ast *a, CXSourceLocation loc, size_t *off);
/** The spelling of a binary/compound-assignment operator ("+=", "=", "<"...)
 *  or a unary operator ("*", "&", "++", "-"...), wherever the expression lies
 *  (main file, header); "" if unknown (e.g. an operator produced by a macro
 *  expansion): a caller must treat "" as an operator it does not understand.
 *  Static buffer. */
const char *cc_binop(cc_ast *a, const cc_node *n);
const char *cc_unop(cc_ast *a, const cc_node *n, int *postfix);
/** Copy of the source text [b, e). */
char *cc_src_text(cc_ast *a, size_t b, size_t e);
/** The node that declares/ defines what a DeclRefExpr / call refers to (cursor); a call
 *  `(f)(...)` of a function through parentheses refers to f. */
CXCursor cc_referenced(const cc_node *n);
/** Strip ParenExpr / UnexposedExpr (implicit casts) / CStyleCastExpr wrappers going up:
 *  the outermost wrapper of n. */
cc_node *cc_up_wrappers(cc_node *n);
/** The first non-wrapper descendant going down. */
cc_node *cc_down_wrappers(cc_node *n);
/** Index of child k in its parent, or -1. */
int cc_kid_index(const cc_node *n);
/** Spelling of a cursor (caller frees). */
char *cc_spelling(CXCursor c);
/** Is n inside (or equal to) anc? */
int cc_within(const cc_node *n, const cc_node *anc);
/** Depth-first visit; stop descending where f returns 0. */
void cc_walk(cc_node *n, int (*f)(cc_node *, void *), void *arg);

#endif
