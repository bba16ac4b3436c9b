/* infer_cov.c — the coverage proofs of writes: a store, a call or a mem function that stores
 * every element of the block, over a canonical loop nest whose bounds are known at
 * submission (rules 2 and 3 of docs/language.md, "The rules"; the lengths of rule 22 and the
 * dimensions of rule 39's beta-0 writes); and the texts by which a submission names values of
 * the body (cc_infer_stable_text). */
#include "infer_int.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- coverage
 * Write needs a proof that the body stores every element of the block.  The
 * proof accepts a store `p[idx] = ...` that runs each time its region runs
 * (the region is the task body, or the definition of a callee), inside a nest
 * of canonical loops `for (i = 0; i < N; i++)` that idx enumerates densely in
 * row-major order; the coverage is then N1 * ... * Nk elements.  That
 * expression is evaluated elsewhere (at submission, or with a call's arguments
 * substituted for the callee's parameters), so it must have the same value
 * there as when the nest runs.  Hence, besides the shape of the nest:
 *  - on the way from the store (or from a call that covers) up to the region
 *    there are only blocks, the nest's loops (none for a call), parentheses,
 *    casts and declarations: no if, while, switch, label, ?:, && or ||; and no
 *    statement before it in any of those blocks may return, goto, or break /
 *    continue out of itself; the pointer is not one branch of a ?:;
 *  - the loop bodies hold no break, continue, return or goto, and assign no
 *    loop variable and no variable of a bound;
 *  - a loop variable is a local of the region whose address is never taken;
 *  - a bound is "stable": integer literals, enumerators, arithmetic, casts,
 *    sizeof, the runtime's shape queries (tamm_block_extent...), and variables
 *    that keep their value throughout the region (parameters of a callee, or
 *    locals a task captures by value), never assigned and whose address is
 *    never taken in the region, and 'const' variables of static storage with an
 *    initialiser (used by value); no other calls, no loads through pointers, no
 *    other globals.  A bound written with macros is used by its value (it must then
 *    be a constant) unless the region is the task body and no #define or
 *    #undef lies between the task and the bound;
 *  - an index multiplier equals the inner loop's bound: the same text naming
 *    the same declarations; a cast in the index does not narrow.
 * A store that fails says why (ptr_info.nocov, for --explain).
 */
static int is_zero(cc_infer *in, cc_node *n)
{
    n = cc_down_wrappers(n);
    if (n->kind != CXCursor_IntegerLiteral) return 0;
    char *t = cc_inf_node_text(in, n);
    int z = !strcmp(t, "0");
    free(t);
    return z;
}

int cc_inf_refers_to(cc_node *n, CXCursor var)
{
    n = cc_down_wrappers(n);
    return n->kind == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCanonicalCursor(cc_referenced(n)),
                                                                  clang_getCanonicalCursor(var));
}

/* one loop of a nest: its variable, its bound (the node, and the text the coverage uses) */
typedef struct cc_inf_loop { CXCursor var; cc_node *bound; char *cov; } loop;

/* Does subtree n assign var (=, op=, ++, --) or take its address?  With addr_only, only the latter. */
typedef struct { cc_ast *a; CXCursor var; int addr_only; int hit; } touch_find;
static int find_touch(cc_node *n, void *arg)
{
    touch_find *f = arg;
    cc_node *v = NULL;
    if (n->kind == CXCursor_UnaryOperator && n->nkid == 1) {
        int post;
        const char *op = cc_unop(f->a, n, &post);
        if (!strcmp(op, "&") || (!f->addr_only && (!strcmp(op, "++") || !strcmp(op, "--")))) v = n->kid[0];
    } else if (!f->addr_only && n->nkid == 2 &&
               (n->kind == CXCursor_CompoundAssignOperator ||
                (n->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(f->a, n), "=")))) {
        v = n->kid[0];
    }
    if (v && cc_inf_refers_to(v, f->var)) f->hit = 1;
    return !f->hit;
}

int cc_inf_touches(cc_infer *in, cc_node *n, CXCursor var, int addr_only)
{
    touch_find f = { in->a, var, addr_only, 0 };
    cc_walk(n, find_touch, &f);
    return f.hit;
}

/* Is var declared in region (a local or, for a callee, a parameter) with automatic storage? */
static int local_of(cc_infer *in, CXCursor var, cc_node *region)
{
    enum CXCursorKind k = clang_getCursorKind(var);
    if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl) return 0;
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(var);
    if (sc == CX_SC_Static || sc == CX_SC_Extern) return 0;
    if (!region->in_main) /* a callee in a header: a variable of that function */
        return region->kind == CXCursor_FunctionDecl &&
               clang_equalCursors(clang_getCanonicalCursor(clang_getCursorSemanticParent(var)),
                                  clang_getCanonicalCursor(region->c));
    size_t off;
    return cc_offset(in->a, clang_getCursorLocation(var), &off) && off >= region->b && off < region->e;
}

/* Does var keep one value throughout region (see the section comment)? */
static int stable_var(cc_infer *in, CXCursor var, cc_node *region)
{
    var = clang_getCanonicalCursor(var);
    enum CXCursorKind k = clang_getCursorKind(var);
    if (region->kind == CXCursor_FunctionDecl) { /* a callee: its parameters */
        if (k != CXCursor_ParmDecl || !local_of(in, var, region)) return 0;
    } else { /* a task body: the enclosing function's locals, captured by value */
        size_t off;
        if ((k != CXCursor_VarDecl && k != CXCursor_ParmDecl) ||
            clang_getCursorKind(clang_getCursorSemanticParent(var)) != CXCursor_FunctionDecl ||
            clang_Cursor_getStorageClass(var) == CX_SC_Static || clang_Cursor_getStorageClass(var) == CX_SC_Extern ||
            !cc_offset(in->a, clang_getCursorLocation(var), &off) || (off >= region->b && off < region->e))
            return 0;
    }
    return !cc_inf_touches(in, region, var, 0);
}

/* runtime queries whose results never change while a program runs (tensor shapes, ranks) */
static const char *const pure_queries[] = { "tamm_block_extent", "tamm_tensor_nblocks", "tamm_tensor_ndim",
                                            "tamm_tensor_dim", "tamm_rank", "tamm_nranks" };

int cc_inf_pure_query(const char *f)
{
    int pure = 0;
    for (size_t i = 0; i < sizeof pure_queries / sizeof *pure_queries; i++) pure |= !strcmp(f, pure_queries[i]);
    return pure;
}

/* Is d a variable of static storage whose type is const (and not volatile),
 * defined with an initialiser?  Its value never changes; a bound naming it is
 * used by value, which clang must then fold to a constant. */
static int const_object(CXCursor d)
{
    if (clang_getCursorKind(d) != CXCursor_VarDecl) return 0;
    CXType t = clang_getCursorType(d);
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(d);
    int file_scope = clang_getCursorKind(clang_getCursorSemanticParent(d)) == CXCursor_TranslationUnit;
    return clang_isConstQualifiedType(t) && !clang_isVolatileQualifiedType(t) && (file_scope || sc == CX_SC_Static) &&
           !clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(d));
}

typedef struct { cc_infer *in; cc_node *region; int ok; int by_value; } stable_ctx;
static int stable_visit(cc_node *n, void *arg)
{
    stable_ctx *s = arg;
    switch (n->kind) {
    case CXCursor_IntegerLiteral: case CXCursor_ParenExpr: case CXCursor_UnexposedExpr:
    case CXCursor_CStyleCastExpr:
        break;
    case CXCursor_TypeRef: case CXCursor_UnaryExpr: /* sizeof: its type may be named otherwise at submission */
        s->by_value = 1;
        break;
    case CXCursor_BinaryOperator: {
        static const char *const ops[] = { "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^" };
        const char *op = cc_binop(s->in->a, n);
        int known = 0;
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) known |= !strcmp(op, ops[i]);
        if (!known) s->ok = 0;
        break;
    }
    case CXCursor_UnaryOperator: {
        int post;
        const char *op = cc_unop(s->in->a, n, &post);
        if (strcmp(op, "-") && strcmp(op, "+") && strcmp(op, "~")) s->ok = 0;
        break;
    }
    case CXCursor_CallExpr: {
        char *f = cc_spelling(cc_referenced(n));
        int pure = cc_inf_pure_query(f);
        free(f);
        if (!pure) s->ok = 0;
        break;
    }
    case CXCursor_DeclRefExpr: {
        CXCursor d = cc_referenced(n);
        enum CXCursorKind dk = clang_getCursorKind(d);
        cc_node *top = cc_up_wrappers(n);
        if (dk == CXCursor_FunctionDecl) { /* only as the callee of a call accepted above */
            if (!top->parent || top->parent->kind != CXCursor_CallExpr || top->parent->kid[0] != top) s->ok = 0;
        } else if (dk == CXCursor_EnumConstantDecl || const_object(d)) {
            s->by_value = 1; /* the name may mean another constant (or a variable) at submission */
        } else if (!stable_var(s->in, d, s->region)) {
            s->ok = 0;
        }
        break;
    }
    default:
        s->ok = 0;
    }
    return s->ok;
}


/* Does the text of e name a macro (an identifier that is no declaration e refers to)? */
typedef struct { const char *name; int found; } name_find;
static int find_name(cc_node *n, void *arg)
{
    name_find *f = arg;
    if (n->kind == CXCursor_DeclRefExpr || n->kind == CXCursor_TypeRef) {
        char *s = cc_spelling(n->kind == CXCursor_DeclRefExpr ? cc_referenced(n) : n->c);
        const char *nm = strrchr(s, ' '); /* a TypeRef spells "struct s" */
        if (!strcmp(nm ? nm + 1 : s, f->name)) f->found = 1;
        free(s);
    }
    return !f->found;
}

static int uses_macro(cc_infer *in, cc_node *e)
{
    CXTranslationUnit tu = in->a->tu;
    CXSourceRange r = e->in_main ? clang_getRange(clang_getLocationForOffset(tu, in->a->file, (unsigned)e->b),
                                                  clang_getLocationForOffset(tu, in->a->file, (unsigned)e->e))
                                 : clang_getCursorExtent(e->c);
    CXToken *tk;
    unsigned n;
    clang_tokenize(tu, r, &tk, &n);
    int macro = 0;
    for (unsigned i = 0; i < n && !macro; i++) {
        if (clang_getTokenKind(tk[i]) != CXToken_Identifier) continue;
        CXString s = clang_getTokenSpelling(tu, tk[i]);
        name_find f = { clang_getCString(s), 0 };
        cc_walk(e, find_name, &f);
        macro = !f.found;
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, tk, n);
    return macro;
}

/* e's value if it is an integer constant: *v (its bits), *uns (an unsigned type); 0 if it is not one */
static int const_value(cc_node *e, unsigned long long *v, int *uns)
{
    CXEvalResult r = clang_Cursor_Evaluate(e->c);
    int ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok) {
        *uns = clang_EvalResult_isUnsignedInt(r) != 0;
        *v = *uns ? clang_EvalResult_getAsUnsigned(r) : (unsigned long long)clang_EvalResult_getAsLongLong(r);
    }
    if (r) clang_EvalResult_dispose(r);
    return ok;
}

static char *stable_text(cc_infer *in, cc_node *e, cc_node *region);
char *cc_infer_stable_text(cc_infer *in, cc_node *e, cc_node *region) { return stable_text(in, e, region); }
int cc_infer_touches(cc_infer *in, cc_node *region, CXCursor var) { return cc_inf_touches(in, region, var, 0); }

/* The text by which a coverage expression names the value of e, which must be
 * stable in region (see the section comment); NULL if it is not.  Caller frees. */
static char *stable_text(cc_infer *in, cc_node *e, cc_node *region)
{
    stable_ctx s = { in, region, 1, 0 };
    cc_walk(e, stable_visit, &s);
    if (!s.ok || (!e->in_main && region->kind != CXCursor_FunctionDecl)) return NULL;
    /* Names that the submission site may resolve otherwise (enumerators, types in sizeof, macros,
     * whose definitions can change between the body and the submission or mean something else
     * there) are used by value: the expression must then be a constant. */
    if (s.by_value || uses_macro(in, e)) {
        unsigned long long v;
        int uns;
        if (!const_value(e, &v, &uns)) return NULL;
        return uns ? cc_fmt("%lluu", v) : cc_fmt("%lld", (long long)v);
    }
    char *t = cc_inf_node_text(in, e);
    char *r = cc_collapse(t); /* keeps the spaces C needs between tokens (sizeof n, n - -1) */
    free(t);
    return r;
}

/* Do a and b compute the same value: the same text, naming the same declarations? */
typedef struct { CXCursor *d; int n; size_t cap; } ref_list;
static int list_refs(cc_node *n, void *arg)
{
    ref_list *l = arg;
    if (n->kind == CXCursor_DeclRefExpr) {
        CC_GROW(l->d, l->cap, l->n + 1);
        l->d[l->n++] = clang_getCanonicalCursor(cc_referenced(n));
    }
    return 1;
}

static int same_value(cc_infer *in, cc_node *a, cc_node *b)
{
    if (uses_macro(in, a) || uses_macro(in, b)) { /* a macro may mean other values in the two places */
        unsigned long long x, y;
        int ux, uy;
        return const_value(a, &x, &ux) && const_value(b, &y, &uy) && x == y;
    }
    char *ta = cc_inf_node_text(in, a), *tb = cc_inf_node_text(in, b);
    char *sa = cc_squeeze(ta), *sb = cc_squeeze(tb);
    int same = !strcmp(sa, sb);
    free(ta); free(tb); free(sa); free(sb);
    ref_list ra = { NULL, 0, 0 }, rb = { NULL, 0, 0 };
    cc_walk(a, list_refs, &ra);
    cc_walk(b, list_refs, &rb);
    same = same && ra.n == rb.n;
    for (int i = 0; same && i < ra.n; i++) same = clang_equalCursors(ra.d[i], rb.d[i]);
    free(ra.d);
    free(rb.d);
    return same;
}

/* Does a jump in n leave n: return, goto, or a break / continue whose loop (or switch) is not inside n? */
typedef struct { cc_node *root; int out; } jump_find;
static int find_jump(cc_node *n, void *arg)
{
    jump_find *j = arg;
    if (n->kind == CXCursor_ReturnStmt || n->kind == CXCursor_GotoStmt || n->kind == CXCursor_IndirectGotoStmt) {
        j->out = 1;
    } else if (n->kind == CXCursor_BreakStmt || n->kind == CXCursor_ContinueStmt) {
        int inside = 0; /* the loop (or, for break, the switch) it leaves is n or inside n */
        for (cc_node *p = n->parent; p && n != j->root && !inside; p = p->parent) {
            inside = p->kind == CXCursor_ForStmt || p->kind == CXCursor_WhileStmt || p->kind == CXCursor_DoStmt ||
                     (p->kind == CXCursor_SwitchStmt && n->kind == CXCursor_BreakStmt);
            if (p == j->root) break;
        }
        if (!inside) j->out = 1;
    }
    return !j->out;
}

static int jumps_out(cc_node *n)
{
    jump_find j = { n, 0 };
    cc_walk(n, find_jump, &j);
    return j.out;
}

/* Any jump at all in n (a loop body of the nest must run every iteration to its end)? */
static int has_jump(cc_node *n, void *arg)
{
    int *bad = arg;
    if (n->kind == CXCursor_BreakStmt || n->kind == CXCursor_ContinueStmt || n->kind == CXCursor_ReturnStmt ||
        n->kind == CXCursor_GotoStmt || n->kind == CXCursor_IndirectGotoStmt)
        *bad = 1;
    return !*bad;
}

/* Is f written `for (i = 0; i < N; i++)` (or `i += 1`, or `int i = 0`)?  Its variable i. */
static int for_shape(cc_infer *in, cc_node *f, CXCursor *var)
{
    if (f->kind != CXCursor_ForStmt || f->nkid != 4) return 0;
    cc_node *init = f->kid[0], *cond = f->kid[1], *inc = f->kid[2];
    CXCursor v;
    if (init->kind == CXCursor_DeclStmt && init->nkid == 1 && init->kid[0]->kind == CXCursor_VarDecl) {
        cc_node *vd = init->kid[0];
        if (vd->nkid < 1 || !is_zero(in, vd->kid[vd->nkid - 1])) return 0;
        v = vd->c;
    } else if (init->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(in->a, init), "=") &&
               cc_inf_lvalue_var(init->kid[0]) && is_zero(in, init->kid[1])) {
        v = cc_referenced(cc_inf_lvalue_var(init->kid[0]));
    } else {
        return 0;
    }
    v = clang_getCanonicalCursor(v);
    if (cond->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, cond), "<") || !cc_inf_refers_to(cond->kid[0], v))
        return 0;
    int post;
    if (inc->kind == CXCursor_UnaryOperator) {
        const char *op = cc_unop(in->a, inc, &post);
        if (strcmp(op, "++") || !cc_inf_refers_to(inc->kid[0], v)) return 0;
    } else if (inc->kind == CXCursor_CompoundAssignOperator) {
        char *rhs = cc_inf_node_text(in, inc->kid[1]);
        int one = !strcmp(cc_binop(in->a, inc), "+=") && cc_inf_refers_to(inc->kid[0], v) && !strcmp(rhs, "1");
        free(rhs);
        if (!one) return 0;
    } else {
        return 0;
    }
    *var = v;
    return 1;
}

/* A canonical loop (for_shape) of region whose body changes neither its
 * variable nor the variables of its bound and always runs to its end: its
 * variable and bound.  If not, why. */
static int canonical_for(cc_infer *in, cc_node *f, cc_node *region, loop *l, char **why)
{
    CXCursor var;
    char *w = cc_inf_where(f->c);
    int ok = 0;
    if (!for_shape(in, f, &var)) {
        cc_inf_no_cov(why, cc_fmt("the loop at %s is not of the form 'for (i = 0; i < N; i++)'", w));
        free(w);
        return 0;
    }
    cc_node *bound = f->kid[1]->kid[1], *body = f->kid[3];
    int jump = 0;
    cc_walk(body, has_jump, &jump);
    char *vn = cc_spelling(var);
    if (jump) {
        cc_inf_no_cov(why, cc_fmt("the loop at %s may end early (break, continue, return or goto in its body)", w));
    } else if (!local_of(in, var, region) || cc_inf_touches(in, region, var, 1) || cc_inf_touches(in, body, var, 0)) {
        cc_inf_no_cov(why, cc_fmt("the variable '%s' of the loop at %s is changed in the loop's body, or its address "
                           "is taken", vn, w));
    } else if (!(l->cov = stable_text(in, bound, region))) {
        char *bt = cc_inf_node_text(in, bound);
        cc_inf_no_cov(why, cc_fmt("the bound '%s' of the loop at %s may change: a bound may use only constants ('const' "
                           "globals with an initialiser included) and %s that are never assigned and whose address "
                           "is never taken", bt, w,
                           region->kind == CXCursor_FunctionDecl ? "parameters" : "captured variables"));
        free(bt);
    } else {
        l->var = var;
        l->bound = bound;
        ok = 1;
    }
    free(vn);
    free(w);
    return ok;
}

/* Does n run each time region runs?  Loops on the way are allowed only with
 * loops != NULL: canonical ones, collected innermost first (at most max).  If not, why. */
int cc_inf_runs_with_region(cc_infer *in, cc_node *n, cc_node *region, loop *loops, int *nl, int max, char **why)
{
    cc_node *from = n;
    while (n != region) {
        cc_node *p = n->parent;
        if (!p) return 0;
        switch (p->kind) {
        case CXCursor_CompoundStmt:
            for (int i = 0; i < p->nkid && p->kid[i] != n; i++)
                if (jumps_out(p->kid[i])) {
                    char *w = cc_inf_where(p->kid[i]->c);
                    cc_inf_no_cov(why, cc_fmt("the statement at %s may jump past the store (a return, goto, break or "
                                       "continue)", w));
                    free(w);
                    return 0;
                }
            break;
        case CXCursor_ForStmt:
            if (p->nkid != 4 || p->kid[3] != n || !loops) {
                char *w = cc_inf_where(from->c);
                cc_inf_no_cov(why, cc_fmt("the %s at %s is in a loop that may run zero times",
                                   from->kind == CXCursor_CallExpr ? "call" : "store", w));
                free(w);
                return 0;
            }
            if (*nl == max) {
                cc_inf_no_cov(why, cc_fmt("the loop nest is deeper than %d", max));
                return 0;
            }
            if (!canonical_for(in, p, region, &loops[*nl], why)) return 0;
            (*nl)++;
            break;
        case CXCursor_ParenExpr: case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr: case CXCursor_DeclStmt:
            break;
        case CXCursor_VarDecl: /* the initialiser of an automatic variable */
            if (clang_Cursor_getStorageClass(p->c) == CX_SC_Static) return 0;
            break;
        case CXCursor_FunctionDecl:
            if (p != region) return 0;
            break;
        default: {
            char *w = cc_inf_where(from->c);
            cc_inf_no_cov(why, cc_fmt("the %s at %s may not run: it is under an if, a while, a switch or an operator",
                               from->kind == CXCursor_CallExpr ? "call" : "store", w));
            free(w);
            return 0;
        }
        }
        n = p;
    }
    return 1;
}

/* An index operand without parentheses, implicit conversions and widening casts
 * (a cast to a narrower type could wrap around). */
static cc_node *index_operand(cc_node *n)
{
    for (;;) {
        if ((n->kind == CXCursor_ParenExpr || n->kind == CXCursor_UnexposedExpr) && n->nkid == 1) {
            n = n->kid[0];
        } else if (n->kind == CXCursor_CStyleCastExpr && n->nkid >= 1 &&
                   clang_Type_getSizeOf(clang_getCursorType(n->c)) >= 4) {
            n = n->kid[n->nkid - 1];
        } else {
            return n;
        }
    }
}

/* Is idx a dense row-major linearisation of loops[0..n) (outermost first)? */
static int dense(cc_infer *in, cc_node *idx, loop *loops, int n)
{
    idx = index_operand(idx);
    if (n == 1) return idx->kind == CXCursor_DeclRefExpr && cc_inf_refers_to(idx, loops[0].var);
    if (idx->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, idx), "+")) return 0;
    for (int side = 0; side < 2; side++) {
        cc_node *v = index_operand(idx->kid[side]), *rest = index_operand(idx->kid[1 - side]);
        if (v->kind != CXCursor_DeclRefExpr || !cc_inf_refers_to(v, loops[n - 1].var)) continue;
        if (rest->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, rest), "*")) return 0;
        for (int m = 0; m < 2; m++)
            if (same_value(in, index_operand(rest->kid[m]), index_operand(loops[n - 1].bound)) &&
                dense(in, rest->kid[1 - m], loops, n - 1))
                return 1;
        return 0;
    }
    return 0;
}

/* A store `p[idx] = ...` (assign: the '=' node, sub: the subscript node): if
 * it runs with region over a canonical loop nest that idx enumerates densely,
 * the bytes it covers; else NULL, and why in *why. */
char *cc_inf_store_coverage(cc_infer *in, cc_node *assign, cc_node *sub, cc_node *region, char **why)
{
    loop loops[8];
    int nl = 0;
    char *r = NULL;
    char *w = cc_inf_where(sub->c);
    if (!cc_inf_runs_with_region(in, assign, region, loops, &nl, 8, why)) {
        /* why is said */
    } else if (nl == 0) {
        /* p[0] = ... whenever the task runs: the block's first element, all of a one-element block
         * (tamm_cc_write_mode compares with the block's bytes at submission: else readwrite) */
        unsigned long long v;
        int uns;
        long long esz = clang_Type_getSizeOf(clang_getCursorType(sub->c));
        if (sub->nkid == 2 && const_value(sub->kid[1], &v, &uns) && v == 0 && esz > 0)
            r = cc_fmt("%lld", esz);
        else
            cc_inf_no_cov(why, cc_fmt("the store at %s is in no loop (and not 'p[0] = ...', all of a one-element "
                                      "block)", w));
    } else {
        /* outermost first */
        for (int i = 0; i < nl / 2; i++) { loop t = loops[i]; loops[i] = loops[nl - 1 - i]; loops[nl - 1 - i] = t; }
        if (sub->nkid == 2 && dense(in, sub->kid[1], loops, nl)) {
            char *cov = cc_fmt("TAMM_CC_COUNT(%s)", loops[0].cov);
            for (int i = 1; i < nl; i++) {
                char *t = cc_fmt("%s*TAMM_CC_COUNT(%s)", cov, loops[i].cov);
                free(cov);
                cov = t;
            }
            long long esz = clang_Type_getSizeOf(clang_getCursorType(sub->c));
            r = cc_fmt("%s*%lld", cov, esz > 0 ? esz : 1);
            free(cov);
        } else {
            cc_inf_no_cov(why, cc_fmt("the index at %s does not run densely, row-major, over the loop nest", w));
        }
    }
    for (int i = 0; i < nl; i++) free(loops[i].cov);
    free(w);
    return r;
}

/* The spelling of an integer or _Bool type t (after typedefs), or NULL. */
static const char *arith_spelling(CXType t)
{
    enum CXTypeKind k = clang_getCanonicalType(t).kind;
    if (k == CXType_Float || k == CXType_Double || k == CXType_LongDouble) return NULL;
    return cc_arith_type_name(k, 0);
}

/* A callee's coverage cov (in terms of its parameters) at the call `call` in
 * region: each parameter replaced by the stable text of its argument, in one
 * pass (an argument's text is not substituted again); NULL if an argument is
 * not stable, and why in *why.  Caller frees. */
char *cc_inf_subst_args(cc_infer *in, const char *cov, CXCursor fn, cc_node *call, cc_node *region, char **why)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (clang_Cursor_isNull(def)) def = fn;
    int np = clang_Cursor_getNumArguments(def);
    char *out = NULL;
    size_t len = 0;
    FILE *f = cc_xmemstream(&out, &len);
    int ok = 1;
    for (const char *s = cov; *s && ok;) {
        int start = (isalpha((unsigned char)*s) || *s == '_') &&
                    (s == cov || !(isalnum((unsigned char)s[-1]) || s[-1] == '_'));
        if (!start) {
            fputc(*s++, f);
            continue;
        }
        size_t L = 1;
        while (isalnum((unsigned char)s[L]) || s[L] == '_') L++;
        int k = -1;
        for (int i = 0; i < np && k < 0; i++) {
            char *pn = cc_spelling(clang_Cursor_getArgument(def, (unsigned)i));
            if (strlen(pn) == L && !strncmp(pn, s, L)) k = i;
            free(pn);
        }
        if (k < 0) {
            fwrite(s, 1, L, f);
        } else {
            char *arg = k + 1 < call->nkid ? stable_text(in, call->kid[k + 1], region) : NULL;
            /* the callee sees the argument converted to its parameter's type */
            const char *pt = arith_spelling(clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)k)));
            if (arg && pt) {
                fprintf(f, "((%s)(%s))", pt, arg);
            } else {
                char *w = cc_inf_where(call->c);
                cc_inf_no_cov(why, cc_fmt("the argument for '%.*s' in the call at %s may change before the callee's "
                                   "loops run", (int)L, s, w));
                free(w);
                ok = 0;
            }
            free(arg);
        }
        s += L;
    }
    cc_xmemclose(f);
    if (!ok) {
        free(out);
        out = NULL;
    }
    return out;
}
