/*
 * cuda_blas.c — CUDA variants of tasks whose bodies call BLAS and LAPACK (see cuda_blas.h).
 *
 * The plan walks the body's statements in order, inlining the calls of the file's functions,
 * and keeps a list of lines to print: the declarations of the body's locals and of the inlined
 * functions' parameters, each in the braces of its scope, and one call of a helper of
 * include/tamm_blas_cuda.h per BLAS or LAPACK call, all with #line back to the user's source.
 * Expressions are the user's text with three kinds of edits: a block use becomes its buffer
 * (tamm_bN_), a constant that names anything (an enumerator, a macro: CblasRowMajor,
 * LAPACK_ROW_MAJOR) becomes its value, and a typedef becomes its arithmetic type.  What stays
 * must mean the same in the .cu: captured variables, the bindings above, literals, operators,
 * the runtime's queries and math functions.  A value is either a device pointer (a block, or a
 * pointer into one) or a host scalar, never a mix.
 */
#include "cuda_blas.h"
#include "blas.h"
#include "cuda_src.h"
#include "diag.h"
#include "infer.h"
#include "text.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_OPEN, ST_CLOSE, ST_LINE };
typedef struct bstep {
    int kind;
    unsigned line;      /* ST_LINE: the source line it comes from */
    char *text;         /* ST_OPEN: a comment; ST_LINE: a declaration or a call */
} bstep;
struct cc_blas_calls { bstep *s; int n; size_t cap; };

typedef struct bind { CXCursor d; int dev; } bind;   /* a parameter or local in scope: a device pointer or a scalar */

#define MAX_DEPTH 8
typedef struct bctx {
    cc_unit *u;
    cc_task *t;
    char *why;
    bind *b; int nb; size_t b_cap;
    CXCursor fn[MAX_DEPTH]; int nfn;   /* the functions being inlined, outermost first */
    cc_blas_calls *p;
    unsigned libs;
    char ops[2][256];                  /* the routines called, per library (--explain) */
    int ntmp;                          /* temporaries named so far */
} bctx;

static int no(bctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
static int no(bctx *c, const char *f, ...)
{
    if (c->why) return 0;
    va_list ap;
    va_start(ap, f);
    c->why = cc_vfmt(f, ap);
    va_end(ap);
    return 0;
}

static void step(bctx *c, int kind, unsigned line, char *text)
{
    CC_GROW(c->p->s, c->p->cap, c->p->n + 1);
    c->p->s[c->p->n++] = (bstep){ kind, line, text };
}

static unsigned line_at(bctx *c, size_t off) { return cc_line_of(&c->u->src, off); }

static int same_cursor(CXCursor a, CXCursor b)
{
    return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b));
}

/* down through parentheses and conversions */
static cc_node *down(cc_node *n)
{
    while (n && (n->kind == CXCursor_ParenExpr || n->kind == CXCursor_UnexposedExpr || n->kind == CXCursor_CStyleCastExpr) &&
           n->nkid >= 1 && clang_isExpression(n->kid[n->nkid - 1]->kind))
        n = n->kid[n->nkid - 1];
    return n;
}

/* The C++ spelling of a variable of type ty named name: arithmetic (enums as their integer type), or a
 * pointer to (const) arithmetic; NULL otherwise.  *dev: a pointer. */
static char *cxx_decl(CXType ty, const char *name, int *dev)
{
    CXType c = clang_getCanonicalType(ty);
    if (c.kind == CXType_Enum) c = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
    const char *s = cc_arith_type_name(c.kind, 1);
    *dev = 0;
    if (s) return cc_fmt("%s%s%s", s, *name ? " " : "", name);
    if (c.kind != CXType_Pointer) return NULL;
    CXType pt = clang_getCanonicalType(clang_getPointeeType(c));
    s = cc_arith_type_name(pt.kind, 1);
    if (!s || pt.kind == CXType_Bool) return NULL;
    *dev = 1;
    return cc_fmt("%s%s *%s", clang_isConstQualifiedType(pt) ? "const " : "", s, name);
}

/* ---------------------------------------------------------------- which calls are BLAS and LAPACK */
static char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return cc_xstrdup(s ? s + 1 : path);
}

/* the routine a call calls, when its name is one and no body of it is visible (blas.h) */
static const cc_blas_fn *routine_of(cc_node *call)
{
    CXCursor fn = cc_referenced(call);
    if (clang_getCursorKind(fn) != CXCursor_FunctionDecl || cc_infer_trusted_body(fn)) return NULL;
    char *nm = cc_spelling(fn);
    const cc_blas_fn *f = cc_blas_find(nm);
    free(nm);
    return f && call->nkid == (int)strlen(f->args) + 1 ? f : NULL;
}

typedef struct { const char *usr; int found; } ann_scan;
static enum CXChildVisitResult ann_attr(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_AnnotateAttr) {
        CXString s = clang_getCursorSpelling(c);
        if (!strncmp(clang_getCString(s), "tamm_cuda_variant:", 18)) ((ann_scan *)d)->found = 1;
        clang_disposeString(s);
    }
    return CXChildVisit_Continue;
}
static enum CXChildVisitResult ann_top(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl) return CXChildVisit_Continue;
    CXString u = clang_getCursorUSR(c);
    if (!strcmp(clang_getCString(u), ((ann_scan *)d)->usr)) clang_visitChildren(c, ann_attr, d);
    clang_disposeString(u);
    return CXChildVisit_Continue;
}
/* Does a declaration of fn carry TAMM_CUDA_VARIANT (the user's variant, emit_cuda.c's form A)? */
static int has_user_variant(cc_unit *u, CXCursor fn)
{
    CXString us = clang_getCursorUSR(fn);
    ann_scan a = { clang_getCString(us), 0 };
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), ann_top, &a);
    clang_disposeString(us);
    return a.found;
}

/* The definition of the function a call calls when it is one of the file's whose body runs there, else null */
static CXCursor file_function(cc_unit *u, cc_node *call)
{
    CXCursor fn = cc_referenced(call), def = clang_getNullCursor();
    size_t b, e;
    if (clang_getCursorKind(fn) == CXCursor_FunctionDecl && cc_infer_trusted_body(fn)) def = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(def) && !cc_extent(&u->ast, def, &b, &e)) def = clang_getNullCursor();
    return def;
}

/* Does the body call a routine, directly or through the file's functions (each looked into once)? */
typedef struct { cc_unit *u; int depth; int found; CXCursor *seen; int nseen; size_t cap; } scan_ctx;
static int scan_visit(cc_node *n, void *arg)
{
    scan_ctx *s = arg;
    if (s->found || n->kind != CXCursor_CallExpr) return !s->found;
    if (routine_of(n)) {
        s->found = 1;
        return 0;
    }
    CXCursor def = file_function(s->u, n);
    if (clang_Cursor_isNull(def) || s->depth >= MAX_DEPTH) return 1;
    for (int i = 0; i < s->nseen; i++)
        if (same_cursor(s->seen[i], def)) return 1;
    CC_GROW(s->seen, s->cap, s->nseen + 1);
    s->seen[s->nseen++] = def;
    if (has_user_variant(s->u, cc_referenced(n))) return 1;
    cc_node *tree = cc_tree(&s->u->ast, def, NULL);
    s->depth++;
    cc_walk(tree, scan_visit, s);
    s->depth--;
    cc_tree_free(tree);
    return !s->found;
}

/* ---------------------------------------------------------------- expressions */
/* the task's block use whose text is exactly n's, or -1 */
static int use_exact(const cc_task *t, const cc_node *n)
{
    if (!n->in_main) return -1;
    for (int i = 0; i < t->nuse; i++)
        if (t->use[i].b == n->b && t->use[i].e == n->e) return i;
    return -1;
}

static int cap_index(const cc_task *t, CXCursor d)
{
    for (int i = 0; i < t->ncap; i++)
        if (same_cursor(t->cap[i].decl, d)) return i;
    return -1;
}

static const bind *bound(bctx *c, CXCursor d)
{
    for (int i = c->nb - 1; i >= 0; i--)
        if (same_cursor(c->b[i].d, d)) return &c->b[i];
    return NULL;
}

static int math_fn(const char *f)
{
    static const char *const fns[] = { "sqrt", "sqrtf", "fabs", "fabsf", "abs", "labs", "llabs", "fmin", "fmax", "fminf",
                                       "fmaxf", "pow", "powf", "exp", "log", "floor", "ceil", NULL };
    for (int i = 0; fns[i]; i++)
        if (!strcmp(fns[i], f)) return 1;
    return 0;
}

/* n's value as C text when n is a constant, else NULL */
static char *const_text(cc_node *n)
{
    if (!cc_blas_const_shape(n)) return NULL;
    CXEvalResult r = clang_Cursor_Evaluate(n->c);
    if (!r) return NULL;
    char *s = NULL;
    switch (clang_EvalResult_getKind(r)) {
    case CXEval_Int: { /* an unsigned constant stays unsigned, but an enumerator is an int */
        int uns = clang_EvalResult_isUnsignedInt(r) &&
                  clang_getCanonicalType(clang_getCursorType(n->c)).kind != CXType_Enum &&
                  down(n)->kind != CXCursor_DeclRefExpr;
        s = uns ? cc_fmt("%lluu", clang_EvalResult_getAsUnsigned(r)) : cc_fmt("%lld", clang_EvalResult_getAsLongLong(r));
        break;
    }
    case CXEval_Float: s = cc_fmt("%.17g", clang_EvalResult_getAsDouble(r)); break;
    default: break;
    }
    clang_EvalResult_dispose(r);
    return s;
}

/* Is n's text its own, not a part of a larger macro expansion (whose nodes all have its extent)? */
static int own_text(const cc_node *n, const cc_node *root)
{
    const cc_node *q = n;
    while (q != root && q->parent && q->parent->b == n->b && q->parent->e == n->e) {
        enum CXCursorKind k = q->parent->kind;
        if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr && k != CXCursor_CStyleCastExpr) return 0;
        q = q->parent;
    }
    return 1;
}

/* Is an identifier (not a keyword, a literal or an operator) written in n's text? */
static int names_anything(bctx *c, const cc_node *n)
{
    CXTranslationUnit tu = c->u->ast.tu;
    CXSourceRange rg = clang_getRange(clang_getLocationForOffset(tu, c->u->ast.file, (unsigned)n->b),
                                      clang_getLocationForOffset(tu, c->u->ast.file, (unsigned)n->e));
    CXToken *tk;
    unsigned nt;
    int named = 0;
    clang_tokenize(tu, rg, &tk, &nt);
    for (unsigned i = 0; i < nt && !named; i++) {
        unsigned off;
        clang_getFileLocation(clang_getTokenLocation(tu, tk[i]), NULL, NULL, NULL, &off);
        named = off < n->e && clang_getTokenKind(tk[i]) == CXToken_Identifier;
    }
    clang_disposeTokens(tu, tk, nt);
    return named;
}

typedef struct redit { size_t b, e; char *text; } redit;
typedef struct rctx {
    bctx *c;
    cc_node *root;
    redit *ed; int ned; size_t ed_cap;
    int ndev;            /* device pointers used */
} rctx;

static void redit_add(rctx *r, size_t b, size_t e, char *text)
{
    CC_GROW(r->ed, r->ed_cap, r->ned + 1);
    r->ed[r->ned++] = (redit){ b, e, text };
}

static int rvisit(cc_node *n, void *arg)
{
    rctx *r = arg;
    bctx *c = r->c;
    if (c->why) return 0;
    if (!n->in_main || n->e <= n->b) return no(c, "an argument at line %u is written with a macro tammcc cannot see into",
                                                line_at(c, r->root->b));
    int k = use_exact(c->t, n);
    if (k >= 0) {
        if (strncmp(c->u->ast.text + n->b, "tamm_block", 10))
            return no(c, "the block %s is named through a macro", c->t->use[k].src);
        redit_add(r, n->b, n->e, cc_fmt("tamm_b%d_", c->t->use[k].acc));
        r->ndev++;
        return 0;
    }
    char *v = const_text(n);
    if (v) { /* a constant: its value, where its text names anything (CblasRowMajor, LAPACK_ROW_MAJOR, NB) */
        char *txt = cc_src_text(&c->u->ast, n->b, n->e);
        if (!names_anything(c, n)) {
            free(v);
        } else if (!own_text(n, r->root)) {
            free(v);
            free(txt);
            return no(c, "an argument at line %u is part of a macro expansion", line_at(c, n->b));
        } else {
            char *col = cc_collapse(txt);
            redit_add(r, n->b, n->e, strstr(col, "*/") ? cc_fmt("%s", v) : cc_fmt("%s /* %s */", v, col));
            free(col);
            free(v);
        }
        free(txt);
        return 0;
    }
    switch (n->kind) {
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        enum CXCursorKind dk = clang_getCursorKind(d);
        char *nm = cc_spelling(d);
        const bind *bd = dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl ? bound(c, d) : NULL;
        if (dk == CXCursor_FunctionDecl) {
            cc_node *call = cc_up_wrappers(n)->parent;
            if (call && call->kind == CXCursor_CallExpr && routine_of(call))
                no(c, "the value of %s at line %u is used on the host (a CUDA variant stores it into a block element, "
                      "or adds it to one)", nm, line_at(c, call->b));
            else if (!call || call->kind != CXCursor_CallExpr || !(math_fn(nm) || !strncmp(nm, "tamm_", 5)))
                no(c, "the code calls %s(), which the CUDA variant cannot call", nm);
        } else if (bd) {
            r->ndev += bd->dev;
        } else if ((dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) && cap_index(c->t, d) >= 0) {
            /* a captured value: the variant declares it */
        } else {
            no(c, "the code uses '%s', which is not a variable the task captures", nm);
        }
        free(nm);
        return 1;
    }
    case CXCursor_TypeRef: {
        CXCursor d = cc_referenced(n);
        char *nm = cc_spelling(d);
        CXType ty = clang_getCanonicalType(clang_getCursorType(d));
        const char *s = clang_getCursorKind(d) == CXCursor_TypedefDecl ? cc_arith_type_name(ty.kind, 1) : NULL;
        size_t l = strlen(nm);
        if (s && n->e - n->b == l && !strncmp(c->u->ast.text + n->b, nm, l)) redit_add(r, n->b, n->e, cc_xstrdup(s));
        else no(c, "the code uses the type '%s', which is not an arithmetic type written by its name", nm);
        free(nm);
        return 1;
    }
    case CXCursor_UnaryOperator: case CXCursor_BinaryOperator: {
        int post;
        const char *op = n->kind == CXCursor_UnaryOperator ? cc_unop(&c->u->ast, n, &post) : cc_binop(&c->u->ast, n);
        if (!*op || !strcmp(op, "=") || !strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, ","))
            return no(c, "an argument at line %u has a side effect or an operator tammcc cannot spell", line_at(c, n->b));
        if (!strcmp(op, "*") && n->kind == CXCursor_UnaryOperator)
            return no(c, "an argument at line %u reads memory through a pointer", line_at(c, n->b));
        return 1;
    }
    case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_CharacterLiteral: case CXCursor_ParenExpr:
    case CXCursor_CStyleCastExpr: case CXCursor_UnexposedExpr: case CXCursor_CallExpr: case CXCursor_UnaryExpr:
    case CXCursor_ConditionalOperator: case CXCursor_ArraySubscriptExpr:
        return 1;
    default: {
        CXString s = clang_getCursorKindSpelling(n->kind);
        no(c, "an argument at line %u holds a %s", line_at(c, n->b), clang_getCString(s));
        clang_disposeString(s);
        return 0;
    }
    }
}

static int cmp_redit(const void *x, const void *y)
{
    const redit *a = x, *b = y;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* a macro of a system header written in [b, e) outside the edits: the .cu does not have it */
static char *system_macro(bctx *c, rctx *r, size_t b, size_t e)
{
    CXTranslationUnit tu = c->u->ast.tu;
    CXSourceRange rg = clang_getRange(clang_getLocationForOffset(tu, c->u->ast.file, (unsigned)b),
                                      clang_getLocationForOffset(tu, c->u->ast.file, (unsigned)e));
    CXToken *tk;
    unsigned nt;
    char *found = NULL;
    clang_tokenize(tu, rg, &tk, &nt);
    for (unsigned i = 0; i < nt && !found; i++) {
        if (clang_getTokenKind(tk[i]) != CXToken_Identifier) continue;
        CXSourceLocation loc = clang_getTokenLocation(tu, tk[i]);
        unsigned off;
        clang_getFileLocation(loc, NULL, NULL, NULL, &off);
        int edited = 0;
        for (int k = 0; k < r->ned; k++) edited |= off >= r->ed[k].b && off < r->ed[k].e;
        if (edited || off >= e) continue;
        CXCursor cur = clang_getCursor(tu, loc);
        if (clang_getCursorKind(cur) != CXCursor_MacroExpansion) continue;
        CXCursor def = clang_getCursorReferenced(cur);
        if (!clang_Cursor_isNull(def) && clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
            found = cc_spelling(cur);
    }
    clang_disposeTokens(tu, tk, nt);
    return found;
}

/* n as C++ text of the variant; *ndev: device pointers in it (NULL on failure, c->why says why) */
static char *render(bctx *c, cc_node *n, int *ndev)
{
    rctx r = { c, n, NULL, 0, 0, 0 };
    cc_walk(n, rvisit, &r);
    char *out = NULL;
    if (!c->why) {
        char *m = system_macro(c, &r, n->b, n->e);
        if (m) no(c, "an argument at line %u uses %s, a macro of a system header that is not a constant", line_at(c, n->b), m);
        free(m);
    }
    if (!c->why) {
        if (r.ned > 1) qsort(r.ed, (size_t)r.ned, sizeof *r.ed, cmp_redit);
        size_t cap = 64, len = 0, pos = n->b;
        out = cc_xmalloc(cap);
        for (int i = 0; i <= r.ned; i++) {
            size_t b = i < r.ned ? r.ed[i].b : n->e;
            const char *ins = i < r.ned ? r.ed[i].text : "";
            size_t need = len + (b - pos) + strlen(ins) + 1;
            CC_GROW(out, cap, need);
            memcpy(out + len, c->u->ast.text + pos, b - pos);
            len += b - pos;
            memcpy(out + len, ins, strlen(ins));
            len += strlen(ins);
            if (i < r.ned) pos = r.ed[i].e;
        }
        out[len] = 0;
        char *col = cc_collapse(out);
        free(out);
        out = col;
    }
    for (int i = 0; i < r.ned; i++) free(r.ed[i].text);
    free(r.ed);
    *ndev = r.ndev;
    return out;
}

/* Is n a device pointer: a block, a bound pointer into one, moved by scalars (p + k, &p[k])? */
static int dev_shape(bctx *c, cc_node *n)
{
    n = down(n);
    if (use_exact(c->t, n) >= 0) return 1;
    if (n->kind == CXCursor_DeclRefExpr) {
        const bind *bd = bound(c, clang_getCanonicalCursor(cc_referenced(n)));
        return bd && bd->dev;
    }
    if (n->kind == CXCursor_BinaryOperator && n->nkid == 2) {
        const char *op = cc_binop(&c->u->ast, n);
        CXType t0 = clang_getCanonicalType(clang_getCursorType(n->kid[0]->c));
        int p0 = t0.kind == CXType_Pointer;
        if (!strcmp(op, "+")) return dev_shape(c, n->kid[p0 ? 0 : 1]);
        if (!strcmp(op, "-") && p0) return dev_shape(c, n->kid[0]);
        return 0;
    }
    if (n->kind == CXCursor_UnaryOperator && n->nkid == 1) {
        int post;
        cc_node *k = down(n->kid[0]);
        return !strcmp(cc_unop(&c->u->ast, n, &post), "&") && k->kind == CXCursor_ArraySubscriptExpr && k->nkid == 2 &&
               dev_shape(c, k->kid[0]);
    }
    return 0;
}

/* a device pointer argument (what it points to: `what`), cast to the C++ pointer type `ty` */
static char *render_dev(bctx *c, cc_node *n, const char *ty, const char *what)
{
    int nd = 0;
    char *s = render(c, n, &nd);
    if (!s) return NULL;
    if (!dev_shape(c, n) || nd != 1) {
        free(s);
        no(c, "%s at line %u is not a block pointer (a tamm_block, or a pointer into one moved by a scalar)", what,
           line_at(c, n->b));
        return NULL;
    }
    char *r = cc_fmt("(%s)(%s)", ty, s);
    free(s);
    return r;
}

static char *render_scalar(bctx *c, cc_node *n, const char *what)
{
    int nd = 0;
    char *s = render(c, n, &nd);
    if (s && nd) {
        free(s);
        no(c, "%s at line %u uses a block pointer as a value", what, line_at(c, n->b));
        return NULL;
    }
    return s;
}

/* ---------------------------------------------------------------- calls */
static void add_op(bctx *c, int lib, const char *op)
{
    char *l = c->ops[lib == CC_LIB_CUSOLVER];
    size_t n = strlen(op);
    for (const char *s = l; (s = strstr(s, op)); s += n)
        if ((s == l || s[-1] == ' ') && (s[n] == ',' || !s[n])) return;
    if (strlen(l) + n + 3 < sizeof c->ops[0]) {
        if (*l) strcat(l, ", ");
        strcat(l, op);
    }
    c->libs |= (unsigned)lib;
}

/* the type of parameter k of the routine, as C++, for a pointer argument */
static char *param_type(CXCursor fn, int k, int *dev)
{
    CXType ft = clang_getCanonicalType(clang_getCursorType(fn));
    return cxx_decl(clang_getArgType(ft, (unsigned)k), "", dev);
}

/* A call of routine f (call: its node), its value stored (sign 0) or added (sign 1, -1) into the
 * element lhs, or dropped (lhs NULL). */
static int routine_call(bctx *c, cc_node *call, const cc_blas_fn *f, cc_node *lhs, int sign)
{
    CXCursor fn = cc_referenced(call);
    int lapack = f->ret == 'i', na = (int)strlen(f->args), ok = 1;
    const char *T = f->prec == 'd' ? "double" : "float";
    char nb[32];
    if (lhs && sign && lapack) return no(c, "the value of %s at line %u is added to an element", f->name, line_at(c, call->b));
    char *target = NULL;
    if (lhs || f->ret == 'v') {
        if (!lhs) return no(c, "the value of %s at line %u is not stored into a block element", f->name, line_at(c, call->b));
        cc_node *e = down(lhs), *base = NULL;
        int post;
        if (e->kind == CXCursor_ArraySubscriptExpr && e->nkid == 2) base = e->kid[0];
        else if (e->kind == CXCursor_UnaryOperator && e->nkid == 1 && !strcmp(cc_unop(&c->u->ast, e, &post), "*")) base = e->kid[0];
        CXType et = clang_getCanonicalType(clang_getCursorType(e->c));
        int type_ok = lapack ? et.kind == CXType_Int : et.kind == (f->prec == 'd' ? CXType_Double : CXType_Float);
        if (!base || !dev_shape(c, base))
            return no(c, "the value of %s at line %u is stored into something other than an element of a block", f->name,
                      line_at(c, call->b));
        if (!type_ok)
            return no(c, "the value of %s at line %u is stored into an element of type other than %s", f->name,
                      line_at(c, call->b), lapack ? "int" : T);
        /* the element's address: the block pointer, moved by the index */
        char *ty = cc_fmt("%s *", lapack ? "int" : T);
        char *bp = render_dev(c, base, ty, "the element's pointer");
        char *ix = bp && e->kind == CXCursor_ArraySubscriptExpr ? render_scalar(c, e->kid[1], "the element's index") : NULL;
        if (bp && (ix || e->kind != CXCursor_ArraySubscriptExpr)) target = ix ? cc_fmt("%s + (%s)", bp, ix) : cc_xstrdup(bp);
        free(ty);
        free(bp);
        free(ix);
        if (!target) return 0;
    }
    size_t cap = 256, len = 0;
    char *args = cc_xcalloc(1, cap);
    for (int i = 0; i < na && ok && !c->why; i++) {
        int role = f->args[i], dev = 0;
        char *ty = param_type(fn, i, &dev), *a;
        cc_blas_arg_name(f, i, nb, sizeof nb);
        char *what = cc_fmt("argument %s of %s", nb, f->name);
        if (!ty) {
            ok = no(c, "%s has a type the CUDA variant does not have", what);
            a = NULL;
        } else if (dev != (strchr("RWXYP", role) != NULL)) {
            ok = no(c, "%s is declared with an unexpected type", what);
            a = NULL;
        } else if (dev) {
            a = render_dev(c, call->kid[i + 1], ty, what);
        } else {
            CXType at = clang_getCanonicalType(clang_getArgType(clang_getCanonicalType(clang_getCursorType(fn)), (unsigned)i));
            if ((role == CC_BA_DIM || role == CC_BA_LD || role == CC_BA_INC) && clang_Type_getSizeOf(at) != 4)
                ok = no(c, "%s is a %lld-byte integer (cuBLAS and cuSOLVER take 32-bit ones)", what,
                        (long long)clang_Type_getSizeOf(at));
            a = ok ? render_scalar(c, call->kid[i + 1], what) : NULL;
        }
        free(ty);
        free(what);
        if (!a) { ok = 0; break; }
        size_t need = len + strlen(a) + 4;
        CC_GROW(args, cap, need);
        len += (size_t)sprintf(args + len, ", %s", a);
        free(a);
    }
    if (!ok || c->why) {
        free(args);
        free(target);
        return no(c, "a call of %s cannot be made on the GPU", f->name);
    }
    /* for --explain and the libraries the submission asks for */
    const char *op = f->op;
    if (lapack) {
        add_op(c, CC_LIB_CUSOLVER, op);
        double lay = -1;
        char *lt = const_text(call->kid[1]);
        if (lt) lay = atof(lt);
        free(lt);
        if (strcmp(op + 1, "potrf") && lay != 102) add_op(c, CC_LIB_CUBLAS, f->prec == 'd' ? "dgeam" : "sgeam");
    } else {
        add_op(c, CC_LIB_CUBLAS, op);
    }
    char *file = basename_of(c->u->src.name);
    char *head = lapack ? cc_fmt("tamm_cuda_LAPACKE_%s<%s>(tamm_ctx_, \"%s at %s:%u\", %s", op + 1, T, f->name, file,
                                 line_at(c, call->b), target ? target : "(int *)0")
                 : f->ret == 'v' ? cc_fmt("tamm_cuda_cblas_%s<%s>(tamm_ctx_, \"%s at %s:%u\", %s, %d", op + 1, T, f->name,
                                          file, line_at(c, call->b), target, sign)
                                 : cc_fmt("tamm_cuda_cblas_%s<%s>(tamm_ctx_, \"%s at %s:%u\"", op + 1, T, f->name, file,
                                          line_at(c, call->b));
    step(c, ST_LINE, line_at(c, call->b), cc_fmt("if (!tamm_st_) tamm_st_ = %s%s);", head, args));
    free(head);
    free(file);
    free(args);
    free(target);
    return 1;
}

static int stmt(bctx *c, cc_node *s, int last);

/* A variable (a local of the body, a parameter of an inlined function) initialised with init: its
 * declaration "T name" into *decl, its value as T into *val (NULL, c->why set, when it cannot be) */
static int var_value(bctx *c, CXCursor d, cc_node *init, const char *what, char **decl, char **val, int *dev)
{
    char *nm = cc_spelling(d);
    *decl = cxx_decl(clang_getCursorType(d), nm, dev);
    char *ty = cxx_decl(clang_getCursorType(d), "", dev), *v = NULL;
    *val = NULL;
    if (!*decl) no(c, "%s '%s' is neither a scalar nor a pointer to one", what, nm);
    else if (cc_cu_reserved(nm)) no(c, "%s '%s' is named with a C++ keyword", what, nm);
    else if (!(v = *dev ? render_dev(c, init, ty, what) : render_scalar(c, init, what))) {}
    else if (*dev) *val = v, v = NULL;
    else *val = cc_fmt("(%s)(%s)", ty, v);
    free(v);
    free(ty);
    free(nm);
    if (!*val) {
        free(*decl);
        *decl = NULL;
    }
    return *val != NULL;
}

static void bind_add(bctx *c, CXCursor d, int dev)
{
    CC_GROW(c->b, c->b_cap, c->nb + 1);
    c->b[c->nb++] = (bind){ clang_getCanonicalCursor(d), dev };
}

typedef struct { CXCursor d; int used; } use_scan;
static int use_visit(cc_node *n, void *arg)
{
    use_scan *u = arg;
    if (n->kind == CXCursor_DeclRefExpr && same_cursor(cc_referenced(n), u->d)) u->used = 1;
    return !u->used;
}

/* A call of a function of the file: its body inlined in a scope of its own, its parameters bound to
 * the arguments, evaluated first into temporaries when a parameter's name appears in an argument */
static int inline_call(bctx *c, cc_node *call, CXCursor def)
{
    char *fname = cc_spelling(def);
    CXType ft = clang_getCanonicalType(clang_getCursorType(def));
    int np = clang_Cursor_getNumArguments(def), ok = 1;
    size_t b, e;
    cc_extent(&c->u->ast, def, &b, &e);
    for (int i = 0; i < c->nfn && ok; i++)
        if (same_cursor(c->fn[i], def)) ok = no(c, "%s() calls itself", fname);
    for (int i = 0; i < c->u->npr && ok; i++)
        if (c->u->pr[i].off >= b && c->u->pr[i].off < e) ok = no(c, "%s() holds a #pragma tamm directive", fname);
    if (ok && c->nfn >= MAX_DEPTH) ok = no(c, "the calls nest deeper than %d functions", MAX_DEPTH);
    if (ok && (ft.kind != CXType_FunctionProto || clang_isFunctionTypeVariadic(ft) || call->nkid != np + 1))
        ok = no(c, "%s() has no prototype, is variadic, or is called with other arguments than its parameters", fname);
    if (ok && has_user_variant(c->u, def)) ok = no(c, "the body calls %s(), which has a TAMM_CUDA_VARIANT, among BLAS calls", fname);
    if (!ok) {
        free(fname);
        return 0;
    }
    unsigned line = line_at(c, call->b);
    char *file = basename_of(c->u->src.name);
    step(c, ST_OPEN, 0, cc_fmt("%s() at %s:%u, inlined", fname, file, line));
    free(file);
    int nb0 = c->nb, clash = 0;
    char **decl = cc_xcalloc((size_t)(np ? np : 1), sizeof *decl), **val = cc_xcalloc((size_t)(np ? np : 1), sizeof *val);
    int *dev = cc_xcalloc((size_t)(np ? np : 1), sizeof *dev);
    for (int i = 0; i < np && !c->why; i++) {
        char *what = cc_fmt("parameter %d of %s()", i + 1, fname);
        var_value(c, clang_Cursor_getArgument(def, (unsigned)i), call->kid[i + 1], what, &decl[i], &val[i], &dev[i]);
        free(what);
    }
    for (int i = 0; i < np && !c->why; i++)
        for (int j = 0; j < np; j++) {
            char *pn = cc_spelling(clang_Cursor_getArgument(def, (unsigned)i));
            clash |= cc_ident_in(val[j], pn);
            free(pn);
        }
    /* the bindings on one line, the call's (T tamm_pK_ = value; ... first, then T name = tamm_pK_; ...) */
    char *tmps = cc_xstrdup(""), *binds = cc_xstrdup("");
    for (int i = 0; i < np && !c->why; i++) {
        CXCursor d = clang_Cursor_getArgument(def, (unsigned)i);
        if (clash) {
            char *tmp = cc_fmt("tamm_p%d_", c->ntmp++), *td = cxx_decl(clang_getCursorType(d), tmp, &dev[i]);
            char *x = cc_fmt("%s%s%s = %s;", tmps, *tmps ? " " : "", td, val[i]);
            free(tmps);
            tmps = x;
            free(val[i]);
            val[i] = tmp;
            free(td);
        }
        char *x = cc_fmt("%s%s%s = %s;", binds, *binds ? " " : "", decl[i], val[i]);
        free(binds);
        binds = x;
        bind_add(c, d, dev[i]);
    }
    if (*tmps) step(c, ST_LINE, line, tmps);
    else free(tmps);
    if (*binds) step(c, ST_LINE, line, binds);
    else free(binds);
    for (int i = 0; i < np; i++) {
        free(decl[i]);
        free(val[i]);
    }
    free(decl);
    free(val);
    free(dev);
    if (!c->why) {
        cc_node *tree = cc_tree(&c->u->ast, def, NULL), *body = tree->nkid ? tree->kid[tree->nkid - 1] : NULL;
        char *unused = cc_xstrdup(""); /* (void)p; for a parameter the body does not use */
        for (int i = 0; i < np && body; i++) {
            use_scan us = { clang_Cursor_getArgument(def, (unsigned)i), 0 };
            cc_walk(body, use_visit, &us);
            char *pn = cc_spelling(us.d), *x = us.used ? NULL : cc_fmt("%s%s(void)%s;", unused, *unused ? " " : "", pn);
            if (x) { free(unused); unused = x; }
            free(pn);
        }
        if (*unused) step(c, ST_LINE, line, unused);
        else free(unused);
        c->fn[c->nfn++] = def;
        if (!body || body->kind != CXCursor_CompoundStmt) no(c, "%s() has no body", fname);
        for (int i = 0; body && i < body->nkid && !c->why; i++) stmt(c, body->kid[i], i == body->nkid - 1);
        c->nfn--;
        cc_tree_free(tree);
    }
    c->nb = nb0;
    step(c, ST_CLOSE, 0, NULL);
    free(fname);
    return !c->why;
}

static int call_stmt(bctx *c, cc_node *call)
{
    const cc_blas_fn *f = routine_of(call);
    if (f) return routine_call(c, call, f, NULL, 0);
    CXCursor fn = cc_referenced(call);
    char *nm = clang_Cursor_isNull(fn) ? cc_xstrdup("?") : cc_spelling(fn);
    CXCursor def = file_function(c->u, call);
    if (clang_getCursorKind(fn) != CXCursor_FunctionDecl) no(c, "the body calls through a function pointer");
    else if (clang_Cursor_isNull(def))
        no(c, "the body calls %s(), which is neither a BLAS or LAPACK routine tammcc knows nor a function of the file "
              "whose body it sees", nm);
    free(nm);
    return c->why ? 0 : inline_call(c, call, def);
}

static int stmt(bctx *c, cc_node *s, int last)
{
    if (c->why) return 0;
    unsigned line = line_at(c, s->b);
    if (!s->in_main) return no(c, "a statement comes from a macro or a header");
    switch (s->kind) {
    case CXCursor_NullStmt:
        return 1;
    case CXCursor_CompoundStmt: {
        int nb0 = c->nb;
        step(c, ST_OPEN, 0, NULL);
        for (int i = 0; i < s->nkid && !c->why; i++) stmt(c, s->kid[i], last && i == s->nkid - 1);
        step(c, ST_CLOSE, 0, NULL);
        c->nb = nb0;
        return !c->why;
    }
    case CXCursor_DeclStmt:
        for (int i = 0; i < s->nkid && !c->why; i++) {
            cc_node *vd = s->kid[i];
            char *nm = cc_spelling(vd->c);
            cc_node *init = vd->nkid && clang_isExpression(vd->kid[vd->nkid - 1]->kind) ? vd->kid[vd->nkid - 1] : NULL;
            char *decl, *val;
            int dev;
            if (vd->kind != CXCursor_VarDecl || !init || clang_Cursor_getStorageClass(vd->c) == CX_SC_Static) {
                no(c, "the body declares '%s' at line %u without an initial value, or static", nm, line);
            } else if (var_value(c, vd->c, init, "the variable", &decl, &val, &dev)) {
                step(c, ST_LINE, line, cc_fmt("%s = %s;", decl, val));
                bind_add(c, vd->c, dev);
                free(decl);
                free(val);
            }
            free(nm);
        }
        return !c->why;
    case CXCursor_ReturnStmt: {
        if (!c->nfn || !last) return no(c, "the body returns at line %u before its end", line);
        if (!s->nkid) return 1;
        cc_node *e = down(s->kid[0]);
        const cc_blas_fn *f = e->kind == CXCursor_CallExpr ? routine_of(e) : NULL;
        return f ? routine_call(c, e, f, NULL, 0) : no(c, "a function returns a value at line %u", line);
    }
    default:
        break;
    }
    if (!clang_isExpression(s->kind))
        return no(c, "the statement at line %u is not a call (of a BLAS or LAPACK routine, or of a function of the file)",
                  line);
    cc_node *e = down(s);
    if (e->kind == CXCursor_CallExpr) return call_stmt(c, e);
    if ((e->kind == CXCursor_BinaryOperator || e->kind == CXCursor_CompoundAssignOperator) && e->nkid == 2) {
        const char *op = cc_binop(&c->u->ast, e);
        cc_node *r = down(e->kid[1]);
        const cc_blas_fn *f = r->kind == CXCursor_CallExpr ? routine_of(r) : NULL;
        int sign = !strcmp(op, "=") ? 0 : !strcmp(op, "+=") ? 1 : !strcmp(op, "-=") ? -1 : 2;
        if (f && f->ret && sign != 2) return routine_call(c, r, f, e->kid[0], sign);
    }
    return no(c, "the statement at line %u is not a call (of a BLAS or LAPACK routine, or of a function of the file)", line);
}

/* ---------------------------------------------------------------- the interface */
int cc_blas_plan(cc_unit *u, cc_task *t, cc_blas_calls **plan, char **why)
{
    *plan = NULL;
    t->cuda_libs = 0;
    free(t->cuda_calls);
    t->cuda_calls = NULL;
    if (t->ntfcall) return 0; /* it calls task functions: not a sequence of calls */
    scan_ctx sc = { u, 0, 0, NULL, 0, 0 };
    cc_walk(t->stmt, scan_visit, &sc);
    free(sc.seen);
    if (!sc.found) return 0;
    bctx c;
    memset(&c, 0, sizeof c);
    c.u = u;
    c.t = t;
    c.p = cc_xcalloc(1, sizeof *c.p);
    stmt(&c, t->stmt, 1);
    free(c.b);
    if (c.why) {
        cc_blas_free(c.p);
        *why = c.why;
        return -1;
    }
    t->cuda_libs = c.libs;
    t->cuda_calls = cc_fmt("%s%s%s%s%s%s", *c.ops[0] ? "cuBLAS: " : "", c.ops[0], *c.ops[0] && *c.ops[1] ? "; " : "",
                           *c.ops[1] ? "cuSOLVER: " : "", c.ops[1], "");
    *plan = c.p;
    return 1;
}

void cc_blas_emit(cc_out *o, cc_unit *u, const cc_task *t, const cc_blas_calls *p)
{
    (void)t;
    cc_puts(o, "    int tamm_st_ = 0;  /* nonzero: a call failed and reported the task's error; the rest is skipped */\n");
    cc_puts(o, "    {   /* the body: its BLAS and LAPACK calls by cuBLAS and cuSOLVER on the task's stream (tamm_blas_cuda.h) */\n");
    int depth = 2;
    for (int i = 0; i < p->n; i++) {
        const bstep *s = &p->s[i];
        if (s->kind == ST_CLOSE) depth--;
        if (s->kind == ST_LINE) cc_line_to(o, s->line, u->src.name);
        for (int k = 0; k < depth * 4; k++) cc_puts(o, " ");
        switch (s->kind) {
        case ST_OPEN:
            cc_puts(o, s->text ? "{   /* " : "{\n");
            if (s->text) cc_printf(o, "%s */\n", s->text);
            depth++;
            break;
        case ST_CLOSE:
            cc_puts(o, "}\n");
            break;
        default:
            /* the lines of a run from one source line, or from consecutive ones, under one #line */
            cc_puts(o, s->text);
            while (i + 1 < p->n && p->s[i + 1].kind == ST_LINE &&
                   (p->s[i + 1].line == p->s[i].line || p->s[i + 1].line == p->s[i].line + 1)) {
                i++;
                if (p->s[i].line == p->s[i - 1].line) {
                    cc_puts(o, " ");
                } else {
                    cc_puts(o, "\n");
                    for (int k = 0; k < depth * 4; k++) cc_puts(o, " ");
                }
                cc_puts(o, p->s[i].text);
            }
            cc_line_self(o);
            break;
        }
    }
    cc_puts(o, "    }\n    (void)tamm_st_;\n");
}

void cc_blas_free(cc_blas_calls *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) free(p->s[i].text);
    free(p->s);
    free(p);
}

char *cc_blas_gpu_test(const cc_task *t)
{
    if (!t->cuda_libs) return cc_xstrdup("tamm_num_gpus()");
    return cc_fmt("tamm_cuda_libs(%s%s%s)", t->cuda_libs & CC_LIB_CUBLAS ? "TAMM_CUBLAS" : "",
                  t->cuda_libs == (CC_LIB_CUBLAS | CC_LIB_CUSOLVER) ? " | " : "",
                  t->cuda_libs & CC_LIB_CUSOLVER ? "TAMM_CUSOLVER" : "");
}
