/* ast.c — parent-linked cursor trees and libclang helpers (see ast.h). */
#include "ast.h"
#include "xalloc.h"
#include "cc_assert.h"
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

typedef struct { cc_ast *a; cc_node *n; size_t cap; } build_ctx; /* cap: of n->kid */

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    build_ctx *bc = d;
    cc_node *k = cc_tree(bc->a, c, bc->n);
    CC_GROW(bc->n->kid, bc->cap, bc->n->nkid + 1);
    bc->n->kid[bc->n->nkid++] = k;
    return CXChildVisit_Continue;
}

cc_node *cc_tree(cc_ast *a, CXCursor c, cc_node *parent)
{
    cc_node *n = cc_xcalloc(1, sizeof *n);
    n->c = c;
    n->kind = clang_getCursorKind(c);
    n->parent = parent;
    n->in_main = cc_extent(a, c, &n->b, &n->e);
    CC_ASSERT(!n->in_main || (n->b <= n->e && n->e <= a->len)); /* offsets into the main file's text */
    build_ctx bc = { a, n, 0 };
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
    char *s = cc_xmalloc(e - b + 1);
    memcpy(s, a->text + b, e - b);
    s[e - b] = 0;
    return s;
}

/* ---------------------------------------------------------------- operators
 * libclang 14 has no operator-kind API: an operator is read from the source
 * text between its operands.  That text is trusted only where it is the
 * operator: the operands must come from different places in the expansion
 * order (so that not both lie in one macro invocation, whose body holds the
 * real operator: SET(a[0], 1.0) with `#define SET(p, v) p = v` has a ','
 * between the operands in the file), and the file text between them must
 * hold exactly one punctuation token besides parentheses (macro names and
 * the tail of a macro operand may stand there: `i * N + j`).  Anything else
 * is "", which callers treat as an operator they do not understand. */
typedef struct { CXFile f; unsigned off; } floc;

static int file_loc(CXSourceLocation l, floc *r)
{
    clang_getFileLocation(l, &r->f, NULL, NULL, &r->off);
    return r->f != NULL;
}

static int exp_loc(CXSourceLocation l, floc *r)
{
    clang_getExpansionLocation(l, &r->f, NULL, NULL, &r->off);
    return r->f != NULL;
}

static int before(floc x, floc y) { return x.f && y.f && clang_File_isEqual(x.f, y.f) && x.off < y.off; }

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

/* The one punctuation token other than parentheses that starts in [b, e) of
 * b's file, if there is exactly one and it is in `set`; else "".  Static buffer. */
static const char *sole_op(cc_ast *a, floc b, floc e, const char *const *set)
{
    static char buf[8];
    buf[0] = 0;
    if (!before(b, e)) return buf;
    CXSourceRange r = clang_getRange(clang_getLocationForOffset(a->tu, b.f, b.off),
                                     clang_getLocationForOffset(a->tu, e.f, e.off));
    CXToken *t = NULL;
    unsigned n = 0, count = 0;
    char found[8] = "";
    clang_tokenize(a->tu, r, &t, &n);
    for (unsigned i = 0; i < n; i++) {
        floc at;
        if (!file_loc(clang_getTokenLocation(a->tu, t[i]), &at) || !clang_File_isEqual(at.f, b.f) || at.off < b.off ||
            at.off >= e.off || clang_getTokenKind(t[i]) != CXToken_Punctuation)
            continue;
        CXString s = clang_getTokenSpelling(a->tu, t[i]);
        const char *cs = clang_getCString(s);
        if (strcmp(cs, "(") && strcmp(cs, ")")) {
            count++;
            strncpy(found, cs, sizeof found - 1);
            found[sizeof found - 1] = 0;
        }
        clang_disposeString(s);
    }
    if (t) clang_disposeTokens(a->tu, t, n);
    if (count == 1 && one_of(found, set)) memcpy(buf, found, sizeof buf);
    return buf;
}

const char *cc_binop(cc_ast *a, const cc_node *n)
{
    if (n->nkid < 2) return "";
    CXSourceRange r0 = clang_getCursorExtent(n->kid[0]->c), r1 = clang_getCursorExtent(n->kid[1]->c);
    floc e0x, b1x, e0, b1;
    if (!exp_loc(clang_getRangeEnd(r0), &e0x) || !exp_loc(clang_getRangeStart(r1), &b1x) || !before(e0x, b1x) ||
        !file_loc(clang_getRangeEnd(r0), &e0) || !file_loc(clang_getRangeStart(r1), &b1))
        return "";
    return sole_op(a, e0, b1, bin_ops);
}

const char *cc_unop(cc_ast *a, const cc_node *n, int *postfix)
{
    *postfix = 0;
    if (n->nkid < 1) return "";
    CXSourceRange rn = clang_getCursorExtent(n->c), r0 = clang_getCursorExtent(n->kid[0]->c);
    floc x, y, f0, f1;
    if (exp_loc(clang_getRangeStart(rn), &x) && exp_loc(clang_getRangeStart(r0), &y) && before(x, y)) { /* prefix */
        if (!file_loc(clang_getRangeStart(rn), &f0) || !file_loc(clang_getRangeStart(r0), &f1)) return "";
        return sole_op(a, f0, f1, un_ops);
    }
    if (exp_loc(clang_getRangeEnd(r0), &x) && exp_loc(clang_getRangeEnd(rn), &y) && before(x, y) &&
        file_loc(clang_getRangeEnd(r0), &f0) && file_loc(clang_getRangeEnd(rn), &f1)) { /* postfix */
        const char *op = sole_op(a, f0, f1, un_ops);
        if (!strcmp(op, "++") || !strcmp(op, "--")) {
            *postfix = 1;
            return op;
        }
    }
    return "";
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
    char *r = cc_xmalloc(len), *p = r;
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

const char *cc_arith_type_name(enum CXTypeKind k, int cxx)
{
    switch (k) {
    case CXType_Bool: return cxx ? "bool" : "_Bool";
    case CXType_Char_U: case CXType_Char_S: return "char";
    case CXType_UChar: return "unsigned char";
    case CXType_SChar: return "signed char";
    case CXType_UShort: return "unsigned short";
    case CXType_Short: return "short";
    case CXType_UInt: return "unsigned int";
    case CXType_Int: return "int";
    case CXType_ULong: return "unsigned long";
    case CXType_Long: return "long";
    case CXType_ULongLong: return "unsigned long long";
    case CXType_LongLong: return "long long";
    case CXType_Float: return "float";
    case CXType_Double: return "double";
    case CXType_LongDouble: return "long double";
    default: return NULL;
    }
}

CXCursor cc_referenced(const cc_node *n)
{
    CXCursor r = clang_getCursorReferenced(n->c);
    if (clang_Cursor_isNull(r) && n->kind == CXCursor_CallExpr && n->nkid > 0) { /* (f)(...): f's call */
        const cc_node *f = cc_down_wrappers(n->kid[0]);
        if (f->kind == CXCursor_DeclRefExpr && clang_getCursorKind(clang_getCursorReferenced(f->c)) == CXCursor_FunctionDecl)
            r = clang_getCursorReferenced(f->c);
    }
    return r;
}

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
    char *r = cc_xstrdup(clang_getCString(s));
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
