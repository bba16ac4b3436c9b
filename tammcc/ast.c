/* ast.c — parent-linked cursor trees and libclang helpers (see ast.h). */
#include "ast.h"
#include <stdlib.h>
#include <string.h>

int cc_offset(cc_ast *a, CXSourceLocation loc, size_t *off)
{
    CXFile f;
    unsigned o;
    clang_getFileLocation(loc, &f, NULL, NULL, &o);
    if (!f || !clang_File_isEqual(f, a->file)) return 0;
    *off = o;
    return 1;
}

int cc_extent(cc_ast *a, CXCursor c, size_t *b, size_t *e)
{
    CXSourceRange r = clang_getCursorExtent(c);
    size_t x, y;
    if (!cc_offset(a, clang_getRangeStart(r), &x) || !cc_offset(a, clang_getRangeEnd(r), &y)) return 0;
    if (y < x) y = x;
    *b = x;
    *e = y;
    return 1;
}

typedef struct { cc_ast *a; cc_node *n; } build_ctx;

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    build_ctx *bc = d;
    cc_node *k = cc_tree(bc->a, c, bc->n);
    bc->n->kid = realloc(bc->n->kid, (size_t)(bc->n->nkid + 1) * sizeof *bc->n->kid);
    bc->n->kid[bc->n->nkid++] = k;
    return CXChildVisit_Continue;
}

cc_node *cc_tree(cc_ast *a, CXCursor c, cc_node *parent)
{
    cc_node *n = calloc(1, sizeof *n);
    n->c = c;
    n->kind = clang_getCursorKind(c);
    n->parent = parent;
    n->in_main = cc_extent(a, c, &n->b, &n->e);
    build_ctx bc = { a, n };
    clang_visitChildren(c, visit, &bc);
    return n;
}

void cc_tree_free(cc_node *n)
{
    if (!n) return;
    for (int i = 0; i < n->nkid; i++) cc_tree_free(n->kid[i]);
    free(n->kid);
    free(n);
}

char *cc_src_text(cc_ast *a, size_t b, size_t e)
{
    if (e > a->len) e = a->len;
    if (b > e) b = e;
    char *s = malloc(e - b + 1);
    memcpy(s, a->text + b, e - b);
    s[e - b] = 0;
    return s;
}

/* the first token of [b, e) that is punctuation, as a string */
static const char *punct_in(cc_ast *a, size_t b, size_t e, int last)
{
    static char buf[8];
    buf[0] = 0;
    if (e <= b) return buf;
    CXSourceLocation lb = clang_getLocationForOffset(a->tu, a->file, (unsigned)b);
    CXSourceLocation le = clang_getLocationForOffset(a->tu, a->file, (unsigned)e);
    CXToken *t;
    unsigned n;
    clang_tokenize(a->tu, clang_getRange(lb, le), &t, &n);
    for (unsigned k = 0; k < n; k++) {
        unsigned i = last ? n - 1 - k : k;
        if (clang_getTokenKind(t[i]) != CXToken_Punctuation) continue;
        CXString s = clang_getTokenSpelling(a->tu, t[i]);
        const char *cs = clang_getCString(s);
        if (strcmp(cs, "(") && strcmp(cs, ")")) {
            strncpy(buf, cs, sizeof buf - 1);
            buf[sizeof buf - 1] = 0;
            clang_disposeString(s);
            break;
        }
        clang_disposeString(s);
    }
    clang_disposeTokens(a->tu, t, n);
    return buf;
}

/* File and offset of a location (expansion side); 0 if it is in no file. */
static int file_off(CXSourceLocation l, CXFile *f, unsigned *off)
{
    clang_getFileLocation(l, f, NULL, NULL, off);
    return *f != NULL;
}

static int same_place(CXSourceLocation x, CXSourceLocation y)
{
    CXFile fx, fy;
    unsigned ox, oy;
    return file_off(x, &fx, &ox) && file_off(y, &fy, &oy) && clang_File_isEqual(fx, fy) && ox == oy;
}

static int one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (!strcmp(s, *set)) return 1;
    return 0;
}

static const char *const bin_ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "+", "-",
                                       "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", ">", "<=", ">=",
                                       "&&", "||", ",", NULL };
static const char *const un_ops[] = { "*", "&", "++", "--", "-", "+", "!", "~", NULL };

/* The operator of n read from its own tokens, in whatever file n lies (a header, a system
 * header).  Binary: the token after the first operand's tokens, which must start where n
 * starts, followed by the token where the second operand starts.  Unary: the first token
 * (prefix) or the last (postfix).  "" when the tokens do not have that shape (macro
 * expansions) or the token is not an operator of the kind: callers treat "" as unknown. */
static const char *op_from_tokens(cc_ast *a, const cc_node *n, int unary, int *postfix)
{
    static char buf[8];
    buf[0] = 0;
    CXToken *t = NULL, *k = NULL;
    unsigned nt = 0, nk = 0;
    CXSourceRange rn = clang_getCursorExtent(n->c), r0 = clang_getCursorExtent(n->kid[0]->c);
    clang_tokenize(a->tu, rn, &t, &nt);
    clang_tokenize(a->tu, r0, &k, &nk);
    CXToken *op = NULL;
    if (nt >= 2 && nk >= 1 && nk < nt) {
        int prefix_kid = same_place(clang_getTokenLocation(a->tu, t[0]), clang_getTokenLocation(a->tu, k[0]));
        if (!unary) {
            CXSourceLocation k1 = clang_getRangeStart(clang_getCursorExtent(n->kid[1]->c));
            if (prefix_kid && nk + 1 < nt && same_place(clang_getTokenLocation(a->tu, t[nk + 1]), k1)) op = &t[nk];
        } else if (!prefix_kid) {
            op = &t[0];
        } else if (same_place(clang_getTokenLocation(a->tu, t[nk - 1]), clang_getTokenLocation(a->tu, k[nk - 1]))) {
            op = &t[nt - 1];
            *postfix = 1;
        }
    }
    if (op && clang_getTokenKind(*op) == CXToken_Punctuation) {
        CXString s = clang_getTokenSpelling(a->tu, *op);
        const char *cs = clang_getCString(s);
        if (one_of(cs, unary ? un_ops : bin_ops)) {
            strncpy(buf, cs, sizeof buf - 1);
            buf[sizeof buf - 1] = 0;
        }
        clang_disposeString(s);
    }
    if (!buf[0]) *postfix = 0;
    if (t) clang_disposeTokens(a->tu, t, nt);
    if (k) clang_disposeTokens(a->tu, k, nk);
    return buf;
}

const char *cc_binop(cc_ast *a, const cc_node *n)
{
    if (n->nkid < 2) return "";
    if (!n->kid[0]->in_main || !n->kid[1]->in_main) {
        int post = 0;
        return op_from_tokens(a, n, 0, &post);
    }
    return punct_in(a, n->kid[0]->e, n->kid[1]->b, 0);
}

const char *cc_unop(cc_ast *a, const cc_node *n, int *postfix)
{
    *postfix = 0;
    if (n->nkid < 1) return "";
    if (!n->kid[0]->in_main || !n->in_main) return op_from_tokens(a, n, 1, postfix);
    if (n->kid[0]->b > n->b) return punct_in(a, n->b, n->kid[0]->b, 0);
    *postfix = 1;
    return punct_in(a, n->kid[0]->e, n->e, 1);
}

char *cc_cursor_text(cc_ast *a, CXCursor c)
{
    CXToken *t = NULL;
    unsigned n = 0;
    clang_tokenize(a->tu, clang_getCursorExtent(c), &t, &n);
    size_t len = 1;
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_getTokenSpelling(a->tu, t[i]);
        len += strlen(clang_getCString(s)) + 1;
        clang_disposeString(s);
    }
    char *r = malloc(len), *p = r;
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_getTokenSpelling(a->tu, t[i]);
        const char *cs = clang_getCString(s);
        if (i) *p++ = ' ';
        size_t l = strlen(cs);
        memcpy(p, cs, l);
        p += l;
        clang_disposeString(s);
    }
    *p = 0;
    if (t) clang_disposeTokens(a->tu, t, n);
    return r;
}

CXCursor cc_referenced(const cc_node *n) { return clang_getCursorReferenced(n->c); }

static int is_wrapper(const cc_node *n)
{
    return n->kind == CXCursor_ParenExpr || n->kind == CXCursor_UnexposedExpr || n->kind == CXCursor_CStyleCastExpr;
}

cc_node *cc_up_wrappers(cc_node *n)
{
    while (n->parent && is_wrapper(n->parent)) n = n->parent;
    return n;
}

cc_node *cc_down_wrappers(cc_node *n)
{
    while (is_wrapper(n) && n->nkid == 1) n = n->kid[0];
    return n;
}

int cc_kid_index(const cc_node *n)
{
    if (!n->parent) return -1;
    for (int i = 0; i < n->parent->nkid; i++)
        if (n->parent->kid[i] == n) return i;
    return -1;
}

char *cc_spelling(CXCursor c)
{
    CXString s = clang_getCursorSpelling(c);
    char *r = strdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

int cc_within(const cc_node *n, const cc_node *anc)
{
    for (; n; n = n->parent)
        if (n == anc) return 1;
    return 0;
}

void cc_walk(cc_node *n, int (*f)(cc_node *, void *), void *arg)
{
    if (!f(n, arg)) return;
    for (int i = 0; i < n->nkid; i++) cc_walk(n->kid[i], f, arg);
}
