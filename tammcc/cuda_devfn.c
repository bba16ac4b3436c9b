/*
 * cuda_devfn.c — the functions of the file that a generated kernel may call (cuda_devfn.h):
 * pure arithmetic functions, copied into the .cu as `static __device__` functions.
 *
 * Such a function has arithmetic parameters and result, a definition in the main file, and a
 * body that uses nothing but its parameters, arithmetic locals, constants (enum constants are
 * copied or replaced by their values, typedef names by their types), math functions and other
 * such functions (callees are recorded first, so they are printed first; a function that calls
 * itself, directly or not, is refused).  It cannot reach memory: no pointer, no global, no
 * address taken, so a call changes nothing but its result, and the kernel's analysis of the
 * nest that calls it holds as for an expression.
 */
#include "cuda_devfn.h"
#include "cuda_nest.h"
#include "cuda_src.h"
#include "text.h"
#include "xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 8 };

typedef struct {
    cc_cuda_plan *p;
    cc_node *fn;      /* the function's tree */
    const char *name;
    CXCursor *stack;  /* the functions being checked, outermost first (this one last) */
    int nstack;
} dctx;

static int check_fn(cc_cuda_plan *p, CXCursor def, CXCursor *stack, int nstack);

static int refuse(dctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
static int refuse(dctx *c, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *why = cc_vfmt(f, ap);
    va_end(ap);
    cc_cuda_no(c->p, "%s() cannot run on the device: %s", c->name, why);
    free(why);
    return 0;
}

static int dev_visit(cc_node *n, void *arg)
{
    dctx *c = arg;
    cc_cuda_plan *p = c->p;
    if (p->why) return 0;
    switch (n->kind) {
    case CXCursor_CompoundStmt: case CXCursor_DeclStmt: case CXCursor_IfStmt: case CXCursor_SwitchStmt:
    case CXCursor_CaseStmt: case CXCursor_DefaultStmt: case CXCursor_ReturnStmt: case CXCursor_ForStmt:
    case CXCursor_WhileStmt: case CXCursor_DoStmt: case CXCursor_BreakStmt: case CXCursor_ContinueStmt:
    case CXCursor_NullStmt:
    case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_CharacterLiteral:
    case CXCursor_ParenExpr: case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator:
    case CXCursor_ConditionalOperator: case CXCursor_CStyleCastExpr: case CXCursor_UnexposedExpr:
    case CXCursor_CallExpr: case CXCursor_UnaryExpr:
        return 1;
    case CXCursor_UnaryOperator: {
        int post;
        const char *op = cc_unop(&p->u->ast, n, &post);
        if (!*op || !strcmp(op, "&") || !strcmp(op, "*")) return refuse(c, "it takes an address or reads through a pointer");
        return 1;
    }
    case CXCursor_VarDecl: {
        char *nm = cc_spelling(n->c);
        CXType ty = clang_getCursorType(n->c);
        int ok = 1;
        if (!cc_cu_scalar(ty) || clang_getCanonicalType(ty).kind == CXType_Enum)
            ok = refuse(c, "it declares '%s', which is not an arithmetic variable", nm);
        else if (clang_Cursor_getStorageClass(n->c) == CX_SC_Static) ok = refuse(c, "it declares a static '%s'", nm);
        else if (cc_cu_reserved(nm)) ok = refuse(c, "it declares '%s', a C++ keyword", nm);
        free(nm);
        return ok;
    }
    case CXCursor_TypeRef:
        cc_cu_typeref(p, n); /* a typedef name: its type (else p->why) */
        return 0;
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        enum CXCursorKind dk = clang_getCursorKind(d);
        char *nm = cc_spelling(d);
        int ok = 1;
        if (dk == CXCursor_EnumConstantDecl) {
            ok = cc_cu_enum_const(p, n, d);
        } else if (dk == CXCursor_FunctionDecl) {
            cc_node *call = cc_up_wrappers(n)->parent;
            if (!call || call->kind != CXCursor_CallExpr) ok = refuse(c, "it takes the address of %s()", nm);
            else if (cc_cu_math_fn(nm)) cc_kn_typed_call(p, call, n, d, nm);
            else if (c->nstack >= MAX_DEPTH) ok = refuse(c, "its calls go deeper than %d levels", MAX_DEPTH);
            else if (clang_Cursor_isNull(clang_getCursorDefinition(d))) ok = refuse(c, "it calls %s(), which has no body here", nm);
            else ok = check_fn(p, clang_getCursorDefinition(d), c->stack, c->nstack);
        } else if ((dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) && cc_cu_decl_in(p, d, c->fn->b, c->fn->e)) {
            ok = cc_cu_scalar(clang_getCursorType(d)) != NULL || refuse(c, "it uses '%s', which is not arithmetic", nm);
        } else {
            ok = refuse(c, "it uses '%s', which is neither its parameter nor its local (a global?)", nm);
        }
        free(nm);
        (void)ok; /* a refusal is in p->why */
        return 0;
    }
    default: {
        CXString s = clang_getCursorKindSpelling(n->kind);
        refuse(c, "it holds a %s", clang_getCString(s));
        clang_disposeString(s);
        return 0;
    }
    }
}

static int recorded(const cc_cuda_plan *p, size_t b)
{
    for (int i = 0; i < p->ndev; i++)
        if (p->dev[i]->b == b) return 1;
    return 0;
}

static int check_fn(cc_cuda_plan *p, CXCursor def, CXCursor *stack, int nstack)
{
    char *nm = cc_spelling(def);
    dctx c = { p, NULL, nm, stack, nstack };
    size_t b, e;
    int ok = 0;
    CXType ft = clang_getCanonicalType(clang_getCursorType(def));
    CXType rt = clang_getCanonicalType(clang_getResultType(ft));
    if (!cc_extent(&p->u->ast, def, &b, &e)) {
        refuse(&c, "its body is not in this file");
        goto out;
    }
    if (recorded(p, b)) { ok = 1; goto out; }
    for (int i = 0; i < nstack; i++)
        if (cc_cu_same_cursor(stack[i], def)) {
            refuse(&c, "it calls itself%s", i + 1 < nstack ? " (through other functions)" : "");
            goto out;
        }
    if (ft.kind != CXType_FunctionProto || clang_isFunctionTypeVariadic(ft)) {
        refuse(&c, "it has no prototype or is variadic");
        goto out;
    }
    if (!cc_cu_scalar(rt) || rt.kind == CXType_Enum) {
        refuse(&c, "its result is not arithmetic");
        goto out;
    }
    if (cc_cu_reserved(nm) || cc_cu_math_fn(nm) || !strncmp(nm, "tamm", 4)) {
        refuse(&c, "its name '%s' is taken in the CUDA file", nm);
        goto out;
    }
    int np = clang_Cursor_getNumArguments(def);
    for (int i = 0; i < np; i++) {
        CXCursor pd = clang_Cursor_getArgument(def, (unsigned)i);
        char *pn = cc_spelling(pd);
        CXType pt = clang_getCursorType(pd);
        int bad = !cc_cu_scalar(pt) || clang_getCanonicalType(pt).kind == CXType_Enum || !*pn || cc_cu_reserved(pn);
        if (bad) refuse(&c, "its parameter '%s' is not a named arithmetic value", *pn ? pn : "(unnamed)");
        free(pn);
        if (bad) goto out;
    }
    cc_node *fn = cc_tree(&p->u->ast, def, NULL);
    cc_node *body = fn->nkid ? fn->kid[fn->nkid - 1] : NULL;
    if (!body || body->kind != CXCursor_CompoundStmt) {
        cc_tree_free(fn);
        refuse(&c, "its body cannot be read");
        goto out;
    }
    CXCursor *st = cc_xmalloc((size_t)(nstack + 1) * sizeof *st);
    if (nstack) memcpy(st, stack, (size_t)nstack * sizeof *st); /* the outermost function: stack is NULL */
    st[nstack] = def;
    c.fn = fn;
    c.stack = st;
    c.nstack = nstack + 1;
    cc_walk(body, dev_visit, &c);
    free(st);
    if (p->why) {
        cc_tree_free(fn);
        goto out;
    }
    CC_GROW(p->dev, p->dev_cap, p->ndev + 1); /* after its callees */
    p->dev[p->ndev++] = fn;
    ok = 1;
out:
    free(nm);
    return ok;
}

int cc_cu_devfn(cc_cuda_plan *p, cc_node *call)
{
    CXCursor f = cc_referenced(call), def = clang_getCursorDefinition(f);
    if (clang_Cursor_isNull(def)) {
        char *nm = cc_spelling(f);
        cc_cuda_no(p, "the nest calls %s(), which has no device version (no body in this file)", nm);
        free(nm);
        return 0;
    }
    return check_fn(p, def, NULL, 0);
}

void cc_cu_devfn_emit(cc_out *o, const cc_cuda_plan *p, int i,
                      void (*put)(cc_out *o, const cc_cuda_plan *p, size_t b, size_t e))
{
    cc_node *fn = p->dev[i];
    cc_node *body = fn->kid[fn->nkid - 1];
    CXType ft = clang_getCanonicalType(clang_getCursorType(fn->c));
    char *nm = cc_spelling(fn->c);
    char *ret = cc_cu_decl(clang_getResultType(ft), "");
    cc_printf(o, "static __device__ %s %s(", ret, nm);
    int np = clang_Cursor_getNumArguments(fn->c);
    for (int k = 0; k < np; k++) {
        CXCursor pd = clang_Cursor_getArgument(fn->c, (unsigned)k);
        char *pn = cc_spelling(pd), *d = cc_cu_decl(clang_getCursorType(pd), pn);
        cc_printf(o, "%s%s", k ? ", " : "", d);
        free(pn);
        free(d);
    }
    cc_printf(o, "%s)\n", np ? "" : "void");
    cc_line_to(o, cc_line_of(&p->u->src, body->b), p->u->src.name);
    put(o, p, body->b, body->e);
    cc_line_self(o);
    free(ret);
    free(nm);
}
