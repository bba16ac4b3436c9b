/*
 * cuda_index.c — subscripts as polynomials, and when iterations reach distinct elements
 * (cuda_index.h).
 */
#include "cuda_index.h"
#include "cuda_src.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct cc_kx {
    cc_cuda_plan *p;
    int n;
    CXCursor c[CC_KX_MAX];
    char *name[CC_KX_MAX];
    int loopv[CC_KX_MAX];     /* a loop variable (else a host value) */
    char *trip[CC_KX_MAX];    /* a loop variable's trip count: C, or NULL: unknown */
    long long ktrip[CC_KX_MAX];
    int ctrip[CC_KX_MAX];
    cc_kpoly ptrip[CC_KX_MAX];  /* ... as a polynomial of host values */
    int has_ptrip[CC_KX_MAX];
    cc_node *mn[64];          /* operators written in macros: the node, and its operator (macro_ops) */
    char mo[64][2];
    int nm;
};

cc_kx *cc_kx_new(cc_cuda_plan *p)
{
    cc_kx *g = cc_xcalloc(1, sizeof *g);
    g->p = p;
    return g;
}

void cc_kx_free(cc_kx *g)
{
    if (!g) return;
    for (int i = 0; i < g->n; i++) { free(g->name[i]); free(g->trip[i]); }
    free(g);
}

int cc_kx_atom(cc_kx *g, CXCursor d, const char *name, int loopv, const char *trip, int ctrip, long long ktrip,
               const cc_kpoly *ptrip)
{
    if (g->n >= CC_KX_MAX) return -1;
    int a = g->n++;
    g->c[a] = clang_getCanonicalCursor(d);
    g->name[a] = cc_xstrdup(name);
    g->loopv[a] = loopv;
    g->trip[a] = trip ? cc_xstrdup(trip) : NULL;
    g->ctrip[a] = ctrip;
    g->ktrip[a] = ktrip;
    if ((g->has_ptrip[a] = ptrip != NULL)) g->ptrip[a] = *ptrip;
    return a;
}

/* ---------------------------------------------------------------- polynomials */
static void poly_norm(cc_kpoly *x)
{
    int m = 0;
    for (int i = 0; i < x->n; i++) {
        int j;
        for (j = 0; j < m; j++)
            if (x->t[j].na == x->t[i].na && !memcmp(x->t[j].a, x->t[i].a, (size_t)x->t[i].na * sizeof(int))) break;
        if (j < m) x->t[j].k += x->t[i].k;
        else x->t[m++] = x->t[i];
    }
    int k = 0;
    for (int i = 0; i < m; i++)
        if (x->t[i].k) x->t[k++] = x->t[i];
    x->n = k;
}

static int poly_add(cc_kpoly *r, const cc_kpoly *a, const cc_kpoly *b, long long sb)
{
    if (a->n + b->n > CC_KP_TERMS) return 0;
    cc_kpoly x = *a;
    for (int i = 0; i < b->n; i++) { x.t[x.n] = b->t[i]; x.t[x.n++].k *= sb; }
    poly_norm(&x);
    *r = x;
    return 1;
}

int cc_kx_sub(cc_kpoly *r, const cc_kpoly *a, const cc_kpoly *b) { return poly_add(r, a, b, -1); }

static int poly_mul(cc_kpoly *r, const cc_kpoly *a, const cc_kpoly *b)
{
    if (a->n * b->n > CC_KP_TERMS) return 0;
    cc_kpoly x;
    x.n = 0;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            cc_kterm t;
            if (a->t[i].na + b->t[j].na > CC_KP_ATOMS) return 0;
            t.k = a->t[i].k * b->t[j].k;
            t.na = 0;
            for (int q = 0; q < a->t[i].na; q++) t.a[t.na++] = a->t[i].a[q];
            for (int q = 0; q < b->t[j].na; q++) t.a[t.na++] = b->t[j].a[q];
            for (int u = 1; u < t.na; u++) /* sort the atoms */
                for (int v = u; v > 0 && t.a[v - 1] > t.a[v]; v--) { int w = t.a[v]; t.a[v] = t.a[v - 1]; t.a[v - 1] = w; }
            x.t[x.n++] = t;
        }
    poly_norm(&x);
    *r = x;
    return 1;
}

static cc_kpoly poly_const(long long k)
{
    cc_kpoly x;
    x.n = k != 0;
    x.t[0].k = k;
    x.t[0].na = 0;
    return x;
}

int cc_kx_is_const(const cc_kpoly *x, long long *k)
{
    if (x->n == 0) { *k = 0; return 1; }
    if (x->n == 1 && x->t[0].na == 0) { *k = x->t[0].k; return 1; }
    return 0;
}

unsigned cc_kx_loops(const cc_kx *g, const cc_kpoly *x)
{
    unsigned m = 0;
    for (int i = 0; i < x->n; i++)
        for (int q = 0; q < x->t[i].na; q++)
            if (g->loopv[x->t[i].a[q]]) m |= 1u << x->t[i].a[q];
    return m;
}

int cc_kx_unit(const cc_kpoly *x, int a)
{
    for (int i = 0; i < x->n; i++)
        if (x->t[i].na == 1 && x->t[i].a[0] == a && (x->t[i].k == 1 || x->t[i].k == -1)) return 1;
    return 0;
}

char *cc_kx_str(cc_kx *g, const cc_kpoly *x)
{
    if (!x->n) return cc_xstrdup("0");
    char *r = cc_xstrdup("");
    for (int i = 0; i < x->n; i++) {
        long long k = x->t[i].k;
        const char *sep = !i ? (k < 0 ? "-" : "") : k < 0 ? " - " : " + ";
        char *t;
        if (x->t[i].na && (k == 1 || k == -1)) t = cc_fmt("%s%s", r, sep);
        else t = cc_fmt("%s%s%lld%s", r, sep, k < 0 ? -k : k, x->t[i].na ? " * " : "");
        free(r);
        r = t;
        for (int q = 0; q < x->t[i].na; q++) {
            t = cc_fmt("%s%s(long long)%s", r, q ? " * " : "", g->name[x->t[i].a[q]]);
            free(r);
            r = t;
        }
    }
    if (x->n == 1) return r;
    char *t = cc_fmt("(%s)", r);
    free(r);
    return t;
}

/* ---------------------------------------------------------------- operators written in a macro's body
 * libclang 14 has no operator-kind API and the cursors of a macro expansion all span the
 * invocation.  The invocation is expanded here (parameters substituted, macros in the body
 * expanded in turn); the operator tokens of the expansion, in order, are the operators of an
 * in-order walk of the expression's AST.  Only + - * and parentheses, identifiers, numbers and
 * keywords (casts) may appear; anything else leaves the operators unknown. */
typedef struct { const char *name; size_t before; CXCursor def; int found; cc_cuda_plan *p; } mdef_ctx;
static enum CXChildVisitResult mdef_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    mdef_ctx *m = d;
    if (clang_getCursorKind(c) != CXCursor_MacroDefinition) return CXChildVisit_Continue;
    CXString s = clang_getCursorSpelling(c);
    if (!strcmp(clang_getCString(s), m->name)) {
        size_t off;
        int in_main = cc_offset(&m->p->u->ast, clang_getCursorLocation(c), &off);
        if (!in_main || off < m->before) { m->def = c; m->found = 1; } /* the last one before the use */
    }
    clang_disposeString(s);
    return CXChildVisit_Continue;
}

typedef struct { char **t; int n; size_t cap; } toks;
static void toks_add(toks *x, const char *s)
{
    CC_GROW(x->t, x->cap, x->n + 1);
    x->t[x->n++] = cc_xstrdup(s);
}
static void toks_free(toks *x) { for (int i = 0; i < x->n; i++) free(x->t[i]); free(x->t); x->t = NULL; x->n = 0; x->cap = 0; }

/* append the expansion of tokens in[0..n) (identifiers that are macros expanded) to out; 0 on failure */
static int expand_toks(cc_cuda_plan *p, char **in, int n, size_t before, toks *out, int depth);
static int expand_macro(cc_cuda_plan *p, CXCursor def, toks *args, int nargs, size_t before, toks *out, int depth)
{
    if (depth > 8) return 0;
    CXTranslationUnit tu = p->u->ast.tu;
    CXToken *tk;
    unsigned nt;
    clang_tokenize(tu, clang_getCursorExtent(def), &tk, &nt);
    toks params = { NULL, 0, 0 }, body = { NULL, 0, 0 };
    unsigned i = 1;
    int fl = clang_Cursor_isMacroFunctionLike(def), ok = 1;
    if (fl) {
        for (i = 2; i < nt; i++) {
            CXString s = clang_getTokenSpelling(tu, tk[i]);
            const char *w = clang_getCString(s);
            int end = !strcmp(w, ")");
            if (strcmp(w, ",") && !end) toks_add(&params, w);
            clang_disposeString(s);
            if (end) { i++; break; }
        }
    }
    if (params.n != nargs) ok = 0;
    for (; i < nt && ok; i++) {
        CXString s = clang_getTokenSpelling(tu, tk[i]);
        const char *w = clang_getCString(s);
        int k;
        for (k = 0; k < params.n && strcmp(params.t[k], w); k++) {}
        if (k < params.n) {
            toks_add(&body, "(");
            for (int q = 0; q < args[k].n; q++) toks_add(&body, args[k].t[q]);
            toks_add(&body, ")");
        } else {
            toks_add(&body, w);
        }
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, tk, nt);
    if (ok) ok = expand_toks(p, body.t, body.n, before, out, depth + 1);
    toks_free(&params);
    toks_free(&body);
    return ok;
}

static int expand_toks(cc_cuda_plan *p, char **in, int n, size_t before, toks *out, int depth)
{
    for (int i = 0; i < n; i++) {
        const char *w = in[i];
        if (isalpha((unsigned char)w[0]) || w[0] == '_') {
            mdef_ctx m = { w, before, clang_getNullCursor(), 0, p };
            clang_visitChildren(clang_getTranslationUnitCursor(p->u->ast.tu), mdef_visit, &m);
            if (m.found && !clang_Cursor_isMacroFunctionLike(m.def)) {
                if (!expand_macro(p, m.def, NULL, 0, before, out, depth)) return 0;
                continue;
            }
            if (m.found) return 0; /* a function-like macro inside: not followed */
        }
        toks_add(out, w);
    }
    return 1;
}

static void inorder_ops(cc_node *n, cc_node **v, int *k, int max, int *bad)
{
    if (n->kind == CXCursor_BinaryOperator && n->nkid == 2) {
        inorder_ops(n->kid[0], v, k, max, bad);
        if (*k < max) v[(*k)++] = n; else *bad = 1;
        inorder_ops(n->kid[1], v, k, max, bad);
        return;
    }
    if (n->kind == CXCursor_UnaryOperator) {
        if (*k < max) v[(*k)++] = n; else *bad = 1;
    } else if (n->kind == CXCursor_CompoundAssignOperator || n->kind == CXCursor_ConditionalOperator ||
               n->kind == CXCursor_CallExpr) {
        *bad = 1;
    }
    for (int i = 0; i < n->nkid; i++) inorder_ops(n->kid[i], v, k, max, bad);
}

static void macro_ops(cc_kx *g, cc_node *n)
{
    cc_cuda_plan *p = g->p;
    cc_node *r = n;
    while (r->parent && r->parent->b == n->b && r->parent->e == n->e && clang_isExpression(r->parent->kind)) r = r->parent;
    if (!r->in_main) return;
    CXTranslationUnit tu = p->u->ast.tu;
    CXSourceLocation l = clang_getLocationForOffset(tu, p->u->ast.file, (unsigned)r->b);
    CXCursor c = clang_getCursor(tu, l);
    if (clang_getCursorKind(c) != CXCursor_MacroExpansion) return;
    CXCursor def = clang_getCursorReferenced(c);
    if (clang_getCursorKind(def) != CXCursor_MacroDefinition) return;
    /* the invocation's arguments, from the main file's tokens */
    CXToken *tk;
    unsigned nt;
    CXSourceRange rg = clang_getRange(l, clang_getLocationForOffset(tu, p->u->ast.file, (unsigned)r->e));
    clang_tokenize(tu, rg, &tk, &nt);
    toks args[16];
    int na = 0, depth = 0, ok = nt >= 1;
    memset(args, 0, sizeof args);
    for (unsigned i = 1; i < nt && ok; i++) {
        size_t off;
        if (!cc_offset(&p->u->ast, clang_getTokenLocation(tu, tk[i]), &off) || off >= r->e) break;
        CXString s = clang_getTokenSpelling(tu, tk[i]);
        const char *w = clang_getCString(s);
        if (i == 1) ok = !strcmp(w, "(");
        else if (!strcmp(w, "(")) { depth++; toks_add(&args[na], w); }
        else if (!strcmp(w, ")")) { if (depth-- == 0) { na++; } else toks_add(&args[na], w); }
        else if (!strcmp(w, ",") && depth == 0) { if (++na >= 16) ok = 0; }
        else toks_add(&args[na], w);
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, tk, nt);
    if (!clang_Cursor_isMacroFunctionLike(def)) na = 0;
    toks out = { NULL, 0, 0 };
    if (ok) ok = expand_macro(p, def, args, na, r->b, &out, 0);
    for (int i = 0; i < 16; i++) toks_free(&args[i]);
    char ops[64][2];
    int no_ = 0;
    for (int i = 0; i < out.n && ok; i++) {
        const char *w = out.t[i];
        if (isalnum((unsigned char)w[0]) || w[0] == '_' || w[0] == '.' || !strcmp(w, "(") || !strcmp(w, ")")) continue;
        if ((!strcmp(w, "+") || !strcmp(w, "-") || !strcmp(w, "*")) && no_ < 64) { ops[no_][0] = w[0]; ops[no_++][1] = 0; }
        else ok = 0;
    }
    toks_free(&out);
    cc_node *v[64];
    int k = 0, bad = 0;
    if (ok) inorder_ops(r, v, &k, 64, &bad);
    if (!ok || bad || k != no_) return;
    for (int i = 0; i < k && g->nm < 64; i++) {
        g->mn[g->nm] = v[i];
        memcpy(g->mo[g->nm], ops[i], 2);
        g->nm++;
    }
}

/* the operator of a binary or unary operator node (also one written in a macro), or NULL */
static char *any_op(cc_kx *g, cc_node *n)
{
    int post;
    cc_cuda_plan *p = g->p;
    const char *op = n->kind == CXCursor_BinaryOperator ? cc_binop(&p->u->ast, n) : cc_unop(&p->u->ast, n, &post);
    if (*op) return cc_xstrdup(op);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < g->nm; i++)
            if (g->mn[i] == n) return cc_xstrdup(g->mo[i]);
        if (!pass) macro_ops(g, n);
    }
    return NULL;
}

/* ---------------------------------------------------------------- subscripts */
static int int_type_size(CXType t)
{
    CXType c = clang_getCanonicalType(t);
    if (c.kind == CXType_Enum) c = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
    if (!cc_cu_is_integer(c.kind)) return 0;
    long long sz = clang_Type_getSizeOf(c);
    return sz > 0 ? (int)sz : 0;
}

static int refs_var(cc_node *n, void *arg)
{
    int *hit = arg;
    if (n->kind == CXCursor_DeclRefExpr) {
        enum CXCursorKind k = clang_getCursorKind(cc_referenced(n));
        if (k == CXCursor_VarDecl || k == CXCursor_ParmDecl) *hit = 1;
    }
    return !*hit;
}

static int atom_of(cc_kx *g, CXCursor d)
{
    for (int i = 0; i < g->n; i++)
        if (cc_cu_same_cursor(g->c[i], d)) return i;
    return -1;
}

int cc_kx_poly(cc_kx *g, cc_node *n, cc_kpoly *out)
{
    while (n->kind == CXCursor_ParenExpr && n->nkid == 1) n = n->kid[0];
    if (!clang_isExpression(n->kind)) return 0;
    int hit = 0;
    cc_walk(n, refs_var, &hit);
    if (!hit) { /* a constant: literals, macros, enum constants, sizeof */
        if (!int_type_size(clang_getCursorType(n->c))) return 0;
        CXEvalResult r = clang_Cursor_Evaluate(n->c);
        if (!r) return 0;
        int ok = clang_EvalResult_getKind(r) == CXEval_Int;
        if (ok) *out = poly_const(clang_EvalResult_getAsLongLong(r));
        clang_EvalResult_dispose(r);
        return ok;
    }
    switch (n->kind) {
    case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr: { /* conversions that keep every value */
        cc_node *k = n->nkid ? n->kid[n->nkid - 1] : NULL;
        if (!k || !clang_isExpression(k->kind)) return 0;
        int to = int_type_size(clang_getCursorType(n->c)), from = int_type_size(clang_getCursorType(k->c));
        if (!to || !from || to < from) return 0;
        return cc_kx_poly(g, k, out);
    }
    case CXCursor_DeclRefExpr: {
        int a = atom_of(g, clang_getCanonicalCursor(cc_referenced(n)));
        if (a < 0) return 0;
        out->n = 1;
        out->t[0].k = 1;
        out->t[0].na = 1;
        out->t[0].a[0] = a;
        return 1;
    }
    case CXCursor_BinaryOperator: {
        if (n->nkid != 2) return 0;
        char *op = any_op(g, n);
        cc_kpoly a, b;
        int ok = op && (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*")) && cc_kx_poly(g, n->kid[0], &a) &&
                 cc_kx_poly(g, n->kid[1], &b) &&
                 (op[0] == '*' ? poly_mul(out, &a, &b) : poly_add(out, &a, &b, op[0] == '-' ? -1 : 1));
        free(op);
        return ok;
    }
    case CXCursor_UnaryOperator: {
        if (n->nkid != 1) return 0;
        char *op = any_op(g, n);
        cc_kpoly a;
        int ok = op && (!strcmp(op, "-") || !strcmp(op, "+")) && cc_kx_poly(g, n->kid[0], &a);
        if (ok && op[0] == '-')
            for (int i = 0; i < a.n; i++) a.t[i].k = -a.t[i].k;
        if (ok) *out = a;
        free(op);
        return ok;
    }
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- conditions */
cc_kcond cc_kcond_const(int v)
{
    cc_kcond c = { v, NULL };
    return c;
}

static cc_kcond kc_bin(cc_kcond a, cc_kcond b, int and_)
{
    if (a.st == !and_ || b.st == !and_) { free(a.s); free(b.s); return cc_kcond_const(!and_); }
    if (a.st == and_) { free(a.s); return b; }
    if (b.st == and_) { free(b.s); return a; }
    if (!strcmp(a.s, b.s)) { free(b.s); return a; }
    cc_kcond c = { -1, cc_fmt("(%s %s %s)", a.s, and_ ? "&&" : "||", b.s) };
    free(a.s);
    free(b.s);
    return c;
}

cc_kcond cc_kcond_and(cc_kcond a, cc_kcond b) { return kc_bin(a, b, 1); }
cc_kcond cc_kcond_or(cc_kcond a, cc_kcond b) { return kc_bin(a, b, 0); }
cc_kcond cc_kcond_dup(const cc_kcond *c)
{
    cc_kcond d = { c->st, c->s ? cc_xstrdup(c->s) : NULL };
    return d;
}

/* |x| as C */
static char *abs_str(cc_kx *g, const cc_kpoly *x)
{
    long long k;
    if (cc_kx_is_const(x, &k)) return cc_fmt("%lld", k < 0 ? -k : k);
    char *s = cc_kx_str(g, x), *r = cc_fmt("tamm_cc_abs(%s)", s);
    free(s);
    return r;
}

/* The subscript is one-to-one in its free loop variables taken in nest order (a mixed radix): each
 * one's |coefficient| exceeds what the loops inside it (later atoms) can make up together, the
 * sum of their |c_w| * (trip count - 1).  Then two iterations that differ in any free variable
 * differ in the outermost one that differs, by more than the inner ones can cancel: distinct
 * elements.  (Iterations differing in v with the others free is the case the condition above
 * cannot see, as in ((p * n1 + q) * n2 + r) * n3 + s with p and s on the grid.)  c: the
 * coefficient of each loop atom, used: whether the subscript has it. */
static cc_kcond injective(cc_kx *g, const cc_kpoly *c, const int *used, unsigned fixed)
{
    cc_kcond all = cc_kcond_const(1);
    char *rhs = cc_xstrdup("");
    long long rhsk = 0;
    int cst = 1;
    for (int u = g->n - 1; u >= 0 && all.st != 0; u--) {
        if (!used[u] || (fixed >> u & 1u) || !c[u].n) continue;
        if (!g->trip[u] && !g->ctrip[u]) { all = cc_kcond_and(all, cc_kcond_const(0)); break; }
        long long ku;
        char *cu = abs_str(g, &c[u]);
        int kc = cc_kx_is_const(&c[u], &ku);
        /* u against the loops inside it (none: its coefficient must not be 0) */
        cc_kcond here;
        if (cst && kc) here = cc_kcond_const((ku < 0 ? -ku : ku) > rhsk);
        else here = (cc_kcond){ -1, cc_fmt("%s > %s", cu, *rhs ? rhs : "0") };
        all = cc_kcond_and(all, here);
        int one = !strcmp(cu, "1");
        char *tr = g->ctrip[u] ? cc_fmt("%lld", g->ktrip[u] > 1 ? g->ktrip[u] - 1 : 0)
                               : cc_fmt("(%s > 1 ? %s - 1 : 0)", g->trip[u], g->trip[u]);
        char *t = cc_fmt("%s%s%s%s%s", rhs, *rhs ? " + " : "", one ? "" : cu, one ? "" : " * ", tr);
        if (cst && kc && g->ctrip[u]) rhsk += (ku < 0 ? -ku : ku) * (g->ktrip[u] > 1 ? g->ktrip[u] - 1 : 0);
        else cst = 0;
        free(tr);
        free(cu);
        free(rhs);
        rhs = t;
    }
    free(rhs);
    return all;
}

cc_kcond cc_kx_distinct(cc_kx *g, const cc_kpoly *x, int v, unsigned fixed)
{
    cc_kpoly c[CC_KX_MAX];
    int used[CC_KX_MAX] = { 0 };
    for (int a = 0; a < g->n; a++) c[a].n = 0;
    for (int i = 0; i < x->n; i++) {
        const cc_kterm *t = &x->t[i];
        int lv = -1, nl = 0;
        for (int q = 0; q < t->na; q++)
            if (g->loopv[t->a[q]]) { lv = t->a[q]; nl++; }
        if (nl == 0) continue; /* fixed for the kernel: the same in both iterations */
        if (nl > 1) return cc_kcond_const(0); /* a product of loop variables */
        cc_kterm r = *t;
        r.na = 0;
        for (int q = 0; q < t->na; q++)
            if (t->a[q] != lv) r.a[r.na++] = t->a[q];
        if (c[lv].n >= CC_KP_TERMS) return cc_kcond_const(0);
        c[lv].t[c[lv].n++] = r;
        used[lv] = 1;
    }
    if (v < 0 || v >= g->n || !used[v]) return cc_kcond_const(0);
    for (int a = 0; a < g->n; a++) poly_norm(&c[a]);
    if (!c[v].n) return cc_kcond_const(0);
    long long kv, kw, lhsk = 0, rhsk = 0;
    int cst = cc_kx_is_const(&c[v], &kv);
    if (cst) lhsk = kv < 0 ? -kv : kv;
    char *lhs = abs_str(g, &c[v]), *rhs = cc_xstrdup("");
    for (int w = 0; w < g->n; w++) {
        if (w == v || !used[w] || (fixed >> w & 1u) || !c[w].n) continue;
        if (!g->trip[w] && !g->ctrip[w]) { free(lhs); free(rhs); return cc_kcond_const(0); }
        char *cw = abs_str(g, &c[w]);
        int one = !strcmp(cw, "1");
        char *tr = g->ctrip[w] ? cc_fmt("%lld", g->ktrip[w]) : cc_xstrdup(g->trip[w]);
        char *t = g->ctrip[w] ? cc_fmt("%s%s%s%s%lld", rhs, *rhs ? " + " : "", one ? "" : cw, one ? "" : " * ",
                                       g->ktrip[w] > 1 ? g->ktrip[w] - 1 : 0)
                              : cc_fmt("%s%s%s%s(%s > 1 ? %s - 1 : 0)", rhs, *rhs ? " + " : "", one ? "" : cw,
                                       one ? "" : " * ", tr, tr);
        free(tr);
        free(cw);
        free(rhs);
        rhs = t;
        if (cst && cc_kx_is_const(&c[w], &kw) && g->ctrip[w]) rhsk += (kw < 0 ? -kw : kw) * (g->ktrip[w] > 1 ? g->ktrip[w] - 1 : 0);
        else cst = 0;
    }
    /* symbolically: c_v (or -c_v) minus the sum of |c_w| * (trip count of w - 1) is a positive
     * constant.  A trip count below 1 needs no care: w's variable is in the subscript, so the
     * access lies in w's loop, which then does not run (or, w on the grid, nothing is launched). */
    for (int sign = 1; !cst && sign >= -1; sign -= 2) {
        cc_kpoly d = c[v], t;
        int ok = 1;
        if (sign < 0)
            for (int i = 0; i < d.n; i++) d.t[i].k = -d.t[i].k;
        for (int w = 0; w < g->n && ok; w++) {
            if (w == v || !used[w] || (fixed >> w & 1u) || !c[w].n) continue;
            cc_kpoly one = poly_const(1), kt;
            if (!cc_kx_is_const(&c[w], &kw) || !g->has_ptrip[w]) { ok = 0; break; }
            cc_kpoly kwp = poly_const(kw < 0 ? -kw : kw);
            ok = poly_add(&t, &g->ptrip[w], &one, -1) && poly_mul(&kt, &kwp, &t) && poly_add(&d, &d, &kt, -1);
        }
        long long dk;
        if (ok && cc_kx_is_const(&d, &dk) && dk > 0) {
            free(lhs);
            free(rhs);
            return cc_kcond_const(1);
        }
    }
    cc_kcond r;
    if (cst) r = cc_kcond_const(lhsk > rhsk);
    else r = (cc_kcond){ -1, *rhs ? cc_fmt("%s > %s", lhs, rhs) : cc_fmt("%s != 0", lhs) };
    free(lhs);
    free(rhs);
    int nfree = 0; /* with v the only free variable, the condition above is already this one */
    for (int w = 0; w < g->n; w++) nfree += used[w] && !(fixed >> w & 1u) && c[w].n;
    if (r.st != 1 && nfree > 1) r = cc_kcond_or(r, injective(g, c, used, fixed));
    return r;
}
