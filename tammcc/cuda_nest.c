/*
 * cuda_nest.c — the facts of a loop nest (cuda_nest.h).
 */
#include "cuda_nest.h"
#include "cuda_devfn.h"
#include "cuda_src.h"
#include "text.h"
#include "xalloc.h"
#include "cc_assert.h"
#include <stdlib.h>
#include <string.h>

int cc_kn_parse_for(cc_cuda_plan *p, cc_node *f, cc_kloop *l)
{
    memset(l, 0, sizeof *l);
    l->atom = -1;
    if (f->kind != CXCursor_ForStmt || f->nkid != 4) return 0;
    cc_node *init = f->kid[0], *cond = f->kid[1], *inc = f->kid[2];
    if (init->kind != CXCursor_DeclStmt || init->nkid != 1 || init->kid[0]->kind != CXCursor_VarDecl) return 0;
    cc_node *vd = init->kid[0];
    if (vd->nkid < 1 || !clang_isExpression(vd->kid[vd->nkid - 1]->kind)) return 0;
    CXType vt = clang_getCanonicalType(clang_getCursorType(vd->c));
    if (!cc_cu_is_integer(vt.kind)) return 0;
    l->var = clang_getCanonicalCursor(vd->c);
    l->lb = vd->kid[vd->nkid - 1];
    if (cond->kind != CXCursor_BinaryOperator || cond->nkid != 2) return 0;
    const char *op = cc_binop(&p->u->ast, cond);
    if (strcmp(op, "<") && strcmp(op, "<=")) return 0;
    l->le = !strcmp(op, "<=");
    cc_node *lv = cc_cu_down(cond->kid[0]);
    if (lv->kind != CXCursor_DeclRefExpr || !cc_cu_same_cursor(cc_referenced(lv), l->var)) return 0;
    l->ub = cond->kid[1];
    int post;
    if (inc->kind == CXCursor_UnaryOperator && inc->nkid == 1) {
        if (strcmp(cc_unop(&p->u->ast, inc, &post), "++")) return 0;
        lv = cc_cu_down(inc->kid[0]);
    } else if (inc->kind == CXCursor_CompoundAssignOperator && inc->nkid == 2) {
        if (strcmp(cc_binop(&p->u->ast, inc), "+=")) return 0;
        cc_node *one = cc_cu_down(inc->kid[1]);
        if (one->kind != CXCursor_IntegerLiteral || !cc_cu_text_is(p, one, "1")) return 0;
        lv = cc_cu_down(inc->kid[0]);
    } else {
        return 0;
    }
    if (lv->kind != CXCursor_DeclRefExpr || !cc_cu_same_cursor(cc_referenced(lv), l->var)) return 0;
    l->f = f;
    l->body = f->kid[3];
    l->name = cc_spelling(vd->c);
    l->type = cc_cu_arith(vt.kind);
    return 1;
}

void cc_kn_loop_free(cc_kloop *l)
{
    free(l->name);
    free(l->trip);
    free(l->lead);
    l->name = l->trip = NULL;
    l->lead = NULL;
    l->nlead = 0;
}

int cc_kn_assigned(const cc_kernel *k, const cc_kloop *l)
{
    for (int q = 0; q < k->nasg; q++)
        if (cc_cu_same_cursor(cc_referenced(k->asg[q]), l->var) && !cc_within(k->asg[q], l->f->kid[2])) return 1;
    return 0;
}

typedef struct { cc_cuda_plan *p; cc_kernel *k; } walk_ctx;

static void add_elem(cc_kernel *k, cc_kelem e)
{
    CC_GROW(k->el, k->el_cap, k->nel + 1);
    k->el[k->nel++] = e;
}

/* the value added by 'lhs op= rhs' has the element's type, or both are integers: the updates
 * are then plain sums in that type, which may be regrouped (a reduction) */
static int same_type(enum CXTypeKind ek, cc_node *rhs)
{
    CXType rt = clang_getCanonicalType(clang_getCursorType(rhs->c));
    if (rt.kind == CXType_Enum) rt = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(rt)));
    if (rt.kind == ek) return 1;
    return cc_cu_is_integer(ek) && ek != CXType_Bool && cc_cu_is_integer(rt.kind);
}

/* n is a block base (a pointer in the scope, or a block use): the element access it is part of */
static int block_element(cc_cuda_plan *p, cc_kernel *k, cc_node *n, int acc, int bind, const char *what)
{
    CC_ASSERT(acc >= 0 && acc < p->t->nacc); /* an element of one of the task's blocks */
    cc_kelem e;
    memset(&e, 0, sizeof e);
    e.acc = acc;
    e.group = -1;
    e.bind = bind;
    cc_node *top = cc_up_wrappers(n), *E = NULL;
    size_t cap = 0;
    for (;;) {
        cc_node *q = top->parent;
        if (q && q->kind == CXCursor_ArraySubscriptExpr && q->nkid == 2 && q->kid[0] == top) {
            CC_GROW(e.ix, cap, e.nix + 1);
            e.ix[e.nix++] = q->kid[1];
            E = q;
            top = cc_up_wrappers(q);
            continue;
        }
        break;
    }
    if (!E) {
        cc_node *q = top->parent;
        int post;
        if (q && q->kind == CXCursor_UnaryOperator && !strcmp(cc_unop(&p->u->ast, q, &post), "*")) E = q;
    }
    if (!E) {
        free(e.ix);
        return cc_cuda_no(p, "%s is used other than to access its elements (a pointer escapes into the kernel)", what);
    }
    CXType et = clang_getCanonicalType(clang_getCursorType(E->c));
    if (!cc_cu_arith(et.kind)) {
        free(e.ix);
        return cc_cuda_no(p, "%s is indexed to something that is not an element", what);
    }
    e.ek = et.kind;
    if (!e.nix) {
        e.key = cc_xstrdup("*");
    } else {
        size_t kl = 1;
        char **parts = cc_xmalloc((size_t)e.nix * sizeof *parts);
        for (int i = 0; i < e.nix; i++) {
            char *t = cc_cu_node_text(p, e.ix[i]);
            parts[i] = cc_squeeze(t);
            free(t);
            kl += strlen(parts[i]) + 2;
        }
        e.key = cc_xmalloc(kl);
        e.key[0] = 0;
        for (int i = 0; i < e.nix; i++) {
            strcat(e.key, "[");
            strcat(e.key, parts[i]);
            strcat(e.key, "]");
            free(parts[i]);
        }
        free(parts);
    }
    cc_node *P = cc_cu_up_parens(E), *Q = P->parent;
    e.at = E;
    int post;
    if (Q && Q->kind == CXCursor_BinaryOperator && Q->nkid == 2 && Q->kid[0] == P && !*cc_binop(&p->u->ast, Q)) {
        free(e.ix);
        free(e.key);
        return cc_cuda_no(p, "an element of %s is the left operand of an operator written in a macro", what);
    } else if (Q && Q->kind == CXCursor_BinaryOperator && Q->nkid == 2 && Q->kid[0] == P &&
               !strcmp(cc_binop(&p->u->ast, Q), "=")) {
        e.kind = CC_KE_STORE;
    } else if (Q && Q->kind == CXCursor_CompoundAssignOperator && Q->nkid == 2 && Q->kid[0] == P) {
        const char *op = cc_binop(&p->u->ast, Q);
        if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
            e.kind = CC_KE_ACC;
            if (et.kind == CXType_Bool || et.kind == CXType_LongDouble) {
                CXString s = clang_getTypeSpelling(et);
                cc_cuda_no(p, "'%s' into an element of type %s", op, clang_getCString(s));
                clang_disposeString(s);
            } else if (!Q->parent || clang_isExpression(Q->parent->kind) || !Q->kid[0]->in_main || !Q->kid[1]->in_main ||
                       Q->kid[0]->e > Q->kid[1]->b || Q->kid[0]->b != Q->b) {
                cc_cuda_no(p, "the value of a '%s' into a block is used, or it comes from a macro", op);
            } else {
                e.op = Q;
                e.same_type = same_type(et.kind, Q->kid[1]);
                cc_cuda_edit x;
                memset(&x, 0, sizeof x);
                x.b = Q->b;
                x.e = Q->e;
                x.kind = CC_ED_ACC;
                x.lhs = Q->kid[0];
                x.rhs = Q->kid[1];
                x.elem = k->nel;
                x.ek = et.kind;
                cc_cu_edit(p, x);
            }
        } else {
            e.kind = CC_KE_STORE | CC_KE_READ;
        }
    } else if (Q && Q->kind == CXCursor_UnaryOperator) {
        const char *op = cc_unop(&p->u->ast, Q, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--") || !*op) e.kind = CC_KE_STORE | CC_KE_READ;
        else if (!strcmp(op, "&")) {
            free(e.ix);
            free(e.key);
            return cc_cuda_no(p, "the address of an element of %s is taken", what);
        } else {
            e.kind = CC_KE_READ;
        }
    } else {
        e.kind = CC_KE_READ;
    }
    add_elem(k, e);
    return !p->why;
}

/* A math call whose arguments C converts to the parameter types: C++ would pick another overload
 * (fmin(int, int) is a host-only template), so the kernel converts them explicitly, as C does. */
void cc_kn_typed_call(cc_cuda_plan *p, cc_node *call, cc_node *callee, CXCursor fn, const char *nm)
{
    CXType ft = clang_getCanonicalType(clang_getCursorType(fn));
    if (ft.kind != CXType_FunctionProto || !strncmp(nm, "__builtin_", 10) || !cc_cu_text_is(p, callee, nm) ||
        call->nkid != clang_getNumArgTypes(ft) + 1 || !call->in_main || callee->b != call->b)
        return;
    size_t at = callee->e;
    for (int i = 1; i < call->nkid; i++) {
        cc_node *a = call->kid[i];
        if (!a->in_main || a->b < at || a->e <= a->b || !cc_cu_scalar(clang_getArgType(ft, (unsigned)(i - 1)))) return;
        at = a->e;
    }
    cc_cuda_edit x;
    memset(&x, 0, sizeof x);
    x.b = call->b;
    x.e = call->e;
    x.kind = CC_ED_CALL;
    x.lhs = call;
    x.rhs = callee;
    x.ek = clang_getCanonicalType(ft).kind;
    cc_cu_edit(p, x);
}

/* the loop a break or continue at n leaves or continues, if it is a for */
static cc_node *jump_target(cc_node *n, int brk)
{
    for (cc_node *a = n->parent; a; a = a->parent) {
        if (a->kind == CXCursor_WhileStmt || a->kind == CXCursor_DoStmt || (brk && a->kind == CXCursor_SwitchStmt)) return NULL;
        if (a->kind == CXCursor_ForStmt) return a;
    }
    return NULL;
}

static void add_node(cc_node ***v, int *n, size_t *cap, cc_node *x)
{
    *v = cc_grow(*v, cap, (size_t)*n + 1, sizeof **v);
    (*v)[(*n)++] = x;
}

static int nest_visit(cc_node *n, void *arg)
{
    walk_ctx *w = arg;
    cc_cuda_plan *p = w->p;
    cc_kernel *k = w->k;
    if (p->why) return 0;
    int u = cc_cu_block_use(p, n);
    if (u >= 0) {
        const cc_use *us = &p->t->use[u];
        cc_cu_text_edit(p, us->b, us->e, cc_fmt("tamm_b%d_", us->acc));
        char *what = cc_fmt("block %s", p->t->acc[us->acc].key);
        block_element(p, k, n, us->acc, -1, what);
        free(what);
        return 0;
    }
    if (clang_isStatement(n->kind) || n->kind == CXCursor_VarDecl) {
        switch (n->kind) {
        case CXCursor_CompoundStmt: case CXCursor_ForStmt: case CXCursor_WhileStmt: case CXCursor_DoStmt:
        case CXCursor_IfStmt: case CXCursor_DeclStmt: case CXCursor_NullStmt:
        case CXCursor_SwitchStmt: case CXCursor_CaseStmt: case CXCursor_DefaultStmt:
            return 1;
        case CXCursor_BreakStmt: case CXCursor_ContinueStmt: {
            int brk = n->kind == CXCursor_BreakStmt;
            cc_node *f = jump_target(n, brk);
            if (f && brk) add_node(&k->brk, &k->nbrk, &k->brk_cap, f);
            else if (f) add_node(&k->cont, &k->ncont, &k->cont_cap, f);
            return 1;
        }
        case CXCursor_VarDecl: {
            char *nm = cc_spelling(n->c);
            if (!cc_cu_scalar(clang_getCursorType(n->c)) ||
                clang_getCanonicalType(clang_getCursorType(n->c)).kind == CXType_Enum)
                cc_cuda_no(p, "the nest declares '%s', which is not an arithmetic variable", nm);
            else if (cc_cu_reserved(nm)) cc_cuda_no(p, "the nest declares '%s', a C++ keyword", nm);
            else if (clang_Cursor_getStorageClass(n->c) == CX_SC_Static) cc_cuda_no(p, "the nest declares a static '%s'", nm);
            free(nm);
            return !p->why;
        }
        default:
            if (!clang_isExpression(n->kind)) {
                CXString s = clang_getCursorKindSpelling(n->kind);
                cc_cuda_no(p, "the nest holds a %s", clang_getCString(s));
                clang_disposeString(s);
                return 0;
            }
        }
    }
    switch (n->kind) {
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        enum CXCursorKind dk = clang_getCursorKind(d);
        char *nm = cc_spelling(d);
        cc_kbind *b = cc_cu_bind(&k->sc, d);
        if (b && b->acc >= 0) {
            char *what = cc_fmt("the block pointer '%s'", nm);
            b->used = 1;
            block_element(p, k, n, b->acc, (int)(b - k->sc.b), what);
            free(what);
        } else if (dk == CXCursor_EnumConstantDecl) {
            cc_cu_enum_const(p, n, d);
        } else if (dk == CXCursor_FunctionDecl) {
            cc_node *c = cc_up_wrappers(n)->parent;
            if (!c || c->kind != CXCursor_CallExpr)
                cc_cuda_no(p, "the nest takes the address of %s()", nm);
            else if (cc_cu_math_fn(nm))
                cc_kn_typed_call(p, c, n, d, nm);
            else
                cc_cu_devfn(p, c); /* a pure function of the file: a __device__ copy (else p->why) */
        } else if ((dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) && cc_cu_decl_in(p, d, k->nest->b, k->nest->e)) {
            /* a local of the nest: private to an iteration; remember stores (loop variables must not change) */
            if (cc_cu_stored(p, n, 0)) add_node(&k->asg, &k->nasg, &k->asg_cap, n);
        } else if (b) {
            if (!cc_cu_scalar(b->type)) cc_cuda_no(p, "the nest uses '%s', a host pointer (only blocks are on the device)", nm);
            else b->used = 1;
        } else {
            cc_cuda_no(p, "the nest uses '%s', which is neither captured nor local (a global?)", nm);
        }
        free(nm);
        return 0;
    }
    case CXCursor_TypeRef: cc_cu_typeref(p, n); return 0;
    case CXCursor_CallExpr: case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral:
    case CXCursor_CharacterLiteral: case CXCursor_ParenExpr: case CXCursor_UnaryOperator:
    case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator: case CXCursor_ConditionalOperator:
    case CXCursor_CStyleCastExpr: case CXCursor_UnexposedExpr: case CXCursor_ArraySubscriptExpr:
    case CXCursor_UnaryExpr:
        return 1;
    default: {
        CXString s = clang_getCursorKindSpelling(n->kind);
        cc_cuda_no(p, "the nest holds a %s", clang_getCString(s));
        clang_disposeString(s);
        return 0;
    }
    }
}

int cc_kn_walk(cc_cuda_plan *p, cc_kernel *k)
{
    walk_ctx w = { p, k };
    cc_walk(k->nest, nest_visit, &w);
    return !p->why;
}
