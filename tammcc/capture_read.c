/* capture_read.c — reads of data outside tensors: taken at submission, or warned about (see
 * capture_read.h). */
#include "capture_read.h"
#include "capture.h"
#include "text.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- variables, seen from a task */
static int is_global(CXCursor d)
{
    return clang_getCursorKind(d) == CXCursor_VarDecl &&
           clang_getCursorKind(clang_getCursorSemanticParent(d)) == CXCursor_TranslationUnit;
}

static int decl_at(cc_unit *u, CXCursor d, size_t *off)
{
    return cc_offset(&u->ast, clang_getCursorLocation(d), off);
}

/* a variable of the code that submits t (captured by value): declared in t's function, outside its body */
static int is_captured(cc_unit *u, const cc_task *t, CXCursor d)
{
    enum CXCursorKind k = clang_getCursorKind(d);
    size_t off;
    if ((k != CXCursor_VarDecl && k != CXCursor_ParmDecl) || clang_Cursor_getStorageClass(d) == CX_SC_Static ||
        !decl_at(u, d, &off))
        return 0;
    return off >= t->fn->b && off < t->fn->e && !(off >= t->stmt->b && off < t->e);
}

/* declared in t's body (a body local, or a local of a task nested in it) */
static int is_body_local(cc_unit *u, const cc_task *t, CXCursor d)
{
    size_t off;
    return decl_at(u, d, &off) && off >= t->stmt->b && off < t->e;
}

static CXType canon(CXCursor c) { return clang_getCanonicalType(clang_getCursorType(c)); }

/* a pointer to a runtime object (a tensor, a context, a fence): what it points to is not the program's data */
static int is_handle(CXType ty)
{
    ty = clang_getCanonicalType(ty);
    if (ty.kind != CXType_Pointer) return 0;
    CXString s = clang_getTypeSpelling(clang_getCanonicalType(clang_getPointeeType(ty)));
    const char *p = clang_getCString(s);
    int r = !strncmp(p, "const ", 6) ? !strncmp(p + 6, "struct tamm_", 12) : !strncmp(p, "struct tamm_", 12);
    clang_disposeString(s);
    return r;
}

/* Is offset `at` inside a block use (tamm_block(...)) of t or of a task nested in it? */
static int in_block_use(const cc_task *t, size_t at)
{
    for (int i = 0; i < t->nuse; i++)
        if (at >= t->use[i].b && at < t->use[i].e) return 1;
    for (int k = 0; k < t->nkids; k++)
        if (in_block_use(t->kids[k], at)) return 1;
    return 0;
}

static int in_kid(const cc_task *t, size_t at)
{
    for (int k = 0; k < t->nkids; k++)
        if (at >= t->kids[k]->b && at < t->kids[k]->e) return 1;
    return 0;
}

static int is_call_of(const cc_node *n, const char *name)
{
    if (n->kind != CXCursor_CallExpr) return 0;
    char *s = cc_spelling(cc_referenced(n));
    int r = !strcmp(s, name);
    free(s);
    return r;
}

static enum CXChildVisitResult find_block_call(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        CXString s = clang_getCursorSpelling(clang_getCursorReferenced(c));
        int hit = !strcmp(clang_getCString(s), "tamm_block_at");
        clang_disposeString(s);
        if (hit) {
            *(int *)data = 1;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* does the cursor's subtree call tamm_block (a block pointer's declaration, a block use) */
static int names_block(CXCursor c)
{
    int hit = 0;
    clang_visitChildren(c, find_block_call, &hit);
    return hit;
}

/* a pointer to memory that is a block, or a local array: what the body may store to */
static int block_or_local_array(cc_unit *u, const cc_task *t, CXCursor d)
{
    CXType ty = canon(d);
    if (!is_body_local(u, t, d)) return 0;
    if (ty.kind == CXType_ConstantArray) return clang_getCanonicalType(clang_getArrayElementType(ty)).kind != CXType_Pointer;
    return ty.kind == CXType_Pointer && names_block(d);
}

/* ---------------------------------------------------------------- may the body change the data it reads?
 * Conservatively: any store that is not to a body local, a local array or a block, any call
 * through a function pointer, any pointer argument of a call that is not a block, a local array or
 * const, and any call of a function of this file that stores elsewhere than its locals and
 * through its parameters (transitively). */
typedef struct { cc_unit *u; const cc_task *t; CXCursor *seen; int nseen; size_t seen_cap; int clob; int depth; } clob_ctx;

static int fn_clobbers(clob_ctx *c, CXCursor def);

static int ptr_arg_ok(clob_ctx *c, cc_node *arg, CXCursor fn_def)
{
    CXType ty = clang_getCanonicalType(clang_getCursorType(arg->c));
    if (ty.kind != CXType_Pointer || clang_isConstQualifiedType(clang_getPointeeType(ty)) || is_handle(ty)) return 1;
    cc_node *a = cc_down_wrappers(arg);
    if (a->kind == CXCursor_StringLiteral || names_block(a->c)) return 1;
    if (a->kind != CXCursor_DeclRefExpr) return 0;
    CXCursor d = clang_getCanonicalCursor(cc_referenced(a));
    if (clang_Cursor_isNull(fn_def)) return block_or_local_array(c->u, c->t, d);
    /* in a called function: its own parameters and locals */
    return !is_global(d) && clang_equalCursors(clang_getCanonicalCursor(clang_getCursorSemanticParent(d)),
                                               clang_getCanonicalCursor(fn_def));
}

static int call_ok(clob_ctx *c, cc_node *call, CXCursor fn_def)
{
    CXCursor f = cc_referenced(call);
    if (clang_getCursorKind(f) != CXCursor_FunctionDecl) return 0; /* through a function pointer */
    for (int i = 1; i < call->nkid; i++)
        if (!ptr_arg_ok(c, call->kid[i], fn_def)) return 0;
    CXCursor def = clang_getCursorDefinition(f);
    return clang_Cursor_isNull(def) || !fn_clobbers(c, def); /* a library function stores through its arguments only */
}

static int store_ok(clob_ctx *c, cc_node *lhs, CXCursor fn_def)
{
    int ptr;
    cc_node *b = cc_lvalue_base(lhs, &ptr);
    if (!b) return names_block(lhs->c);
    CXCursor d = clang_getCanonicalCursor(cc_referenced(b));
    if (clang_Cursor_isNull(fn_def)) {
        if (!is_body_local(c->u, c->t, d) || clang_Cursor_getStorageClass(d) == CX_SC_Static) return 0;
        return !ptr || block_or_local_array(c->u, c->t, d);
    }
    if (is_global(d) || clang_Cursor_getStorageClass(d) == CX_SC_Static ||
        !clang_equalCursors(clang_getCanonicalCursor(clang_getCursorSemanticParent(d)), clang_getCanonicalCursor(fn_def)))
        return 0;
    CXType ty = canon(d);
    return !ptr || clang_getCursorKind(d) == CXCursor_ParmDecl || (ty.kind == CXType_ConstantArray &&
           clang_getCanonicalType(clang_getArrayElementType(ty)).kind != CXType_Pointer) || names_block(d);
}

typedef struct { clob_ctx *c; CXCursor def; } clob_walk;

static int clob_visit(cc_node *n, void *arg)
{
    clob_walk *w = arg;
    clob_ctx *c = w->c;
    if (c->clob || (clang_Cursor_isNull(w->def) && in_block_use(c->t, n->b))) return 0;
    int post;
    if ((n->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(&c->u->ast, n), "=")) ||
        n->kind == CXCursor_CompoundAssignOperator) {
        if (n->nkid == 2 && !store_ok(c, n->kid[0], w->def)) c->clob = 1;
    } else if (n->kind == CXCursor_UnaryOperator && n->nkid == 1) {
        const char *op = cc_unop(&c->u->ast, n, &post);
        if ((!strcmp(op, "++") || !strcmp(op, "--") || !*op) && !store_ok(c, n->kid[0], w->def)) c->clob = 1;
    } else if (n->kind == CXCursor_BinaryOperator && !*cc_binop(&c->u->ast, n)) {
        c->clob = 1; /* an operator tammcc cannot spell */
    } else if (n->kind == CXCursor_CallExpr) {
        if (!call_ok(c, n, w->def)) c->clob = 1;
    } else if (n->kind == CXCursor_AsmStmt) {
        c->clob = 1;
    }
    return !c->clob;
}

static int fn_clobbers(clob_ctx *c, CXCursor def)
{
    def = clang_getCanonicalCursor(def);
    for (int i = 0; i < c->nseen; i++)
        if (clang_equalCursors(c->seen[i], def)) return 0; /* being checked (recursion), or checked */
    if (c->depth >= 8) return 1;
    CC_GROW(c->seen, c->seen_cap, c->nseen + 1);
    c->seen[c->nseen++] = def;
    cc_node *tree = cc_tree(&c->u->ast, clang_getCursorDefinition(def), NULL);
    clob_walk w = { c, def };
    c->depth++;
    cc_walk(tree, clob_visit, &w);
    c->depth--;
    cc_tree_free(tree);
    return c->clob;
}

/* May t's body (and the functions it calls) store to memory that it reads outside tensors? */
static int body_clobbers(cc_unit *u, const cc_task *t)
{
    clob_ctx c = { u, t, NULL, 0, 0, 0, 0 };
    clob_walk w = { &c, clang_getNullCursor() };
    cc_walk(t->stmt, clob_visit, &w);
    free(c.seen);
    return c.clob;
}

/* ---------------------------------------------------------------- reads of a fixed location */
typedef struct { cc_unit *u; const cc_task *t; int ok; } idx_ctx;

static int idx_visit(cc_node *n, void *arg)
{
    idx_ctx *x = arg;
    int post;
    switch (n->kind) {
    case CXCursor_IntegerLiteral: case CXCursor_CharacterLiteral: case CXCursor_ParenExpr:
    case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr: case CXCursor_TypeRef:
        return 1;
    case CXCursor_UnaryExpr: return 0; /* sizeof, _Alignof: a constant */
    case CXCursor_BinaryOperator: {
        const char *op = cc_binop(&x->u->ast, n);
        if (!*op || !strcmp(op, "=") || !strcmp(op, ",")) x->ok = 0;
        return x->ok;
    }
    case CXCursor_UnaryOperator: {
        const char *op = cc_unop(&x->u->ast, n, &post);
        if (!*op || !strcmp(op, "*") || !strcmp(op, "&") || !strcmp(op, "++") || !strcmp(op, "--")) x->ok = 0;
        return x->ok;
    }
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        if (clang_getCursorKind(d) == CXCursor_EnumConstantDecl) return 1;
        CXType ty = canon(d);
        /* a captured arithmetic variable: a copy the body cannot change */
        if (!is_captured(x->u, x->t, d) || ty.kind == CXType_Pointer || ty.kind == CXType_ConstantArray ||
            ty.kind == CXType_Record)
            x->ok = 0;
        return x->ok;
    }
    default: x->ok = 0; return 0;
    }
}

/* an index fixed for the task: constants and captured arithmetic variables */
static int fixed_index(cc_unit *u, const cc_task *t, cc_node *n)
{
    idx_ctx x = { u, t, 1 };
    cc_walk(n, idx_visit, &x);
    return x.ok;
}

/* Is n a location fixed at submission: a global, or memory reached from a global or a captured
 * variable through '->', '.', '*' and subscripts fixed for the task?  base: that variable;
 * deref: some step goes through a pointer. */
static int fixed_location(cc_unit *u, const cc_task *t, cc_node *n, CXCursor *base, int *deref)
{
    int post;
    switch (n->kind) {
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        if (!is_global(d) && !is_captured(u, t, d)) return 0;
        *base = d;
        *deref = 0;
        return 1;
    }
    case CXCursor_MemberRefExpr: {
        if (n->nkid != 1 || !fixed_location(u, t, cc_down_wrappers(n->kid[0]), base, deref)) return 0;
        if (canon(n->kid[0]->c).kind == CXType_Pointer) *deref = 1;
        return 1;
    }
    case CXCursor_ArraySubscriptExpr: {
        if (n->nkid != 2) return 0;
        cc_node *b = cc_down_wrappers(n->kid[0]);
        enum CXTypeKind k = canon(b->c).kind;
        if ((k != CXType_Pointer && k != CXType_ConstantArray && k != CXType_IncompleteArray) ||
            !fixed_index(u, t, n->kid[1]) || !fixed_location(u, t, b, base, deref))
            return 0;
        if (k == CXType_Pointer) *deref = 1;
        return 1;
    }
    case CXCursor_UnaryOperator:
        if (n->nkid != 1 || strcmp(cc_unop(&u->ast, n, &post), "*") ||
            !fixed_location(u, t, cc_down_wrappers(n->kid[0]), base, deref))
            return 0;
        *deref = 1;
        return 1;
    default: return 0;
    }
}

/* a type the generated code can spell before the function (no local struct or enum) */
static int file_scope_type(CXType ty)
{
    ty = clang_getCanonicalType(ty);
    while (ty.kind == CXType_Pointer) ty = clang_getCanonicalType(clang_getPointeeType(ty));
    if (ty.kind != CXType_Record && ty.kind != CXType_Enum) return 1;
    return clang_getCursorKind(clang_getCursorSemanticParent(clang_getTypeDeclaration(ty))) == CXCursor_TranslationUnit;
}

/* the arithmetic type that holds a value of type ty (an enumeration's integer type), or NULL */
static const char *arith_name(CXType ty)
{
    CXType c = clang_getCanonicalType(ty);
    if (c.kind == CXType_Enum) c = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
    return cc_arith_type_name(c.kind, 0);
}

/* a value the args struct can hold: arithmetic, an enumeration or a pointer, not volatile */
static int scalar(CXType ty)
{
    CXType c = clang_getCanonicalType(ty);
    return !clang_isVolatileQualifiedType(c) && (c.kind == CXType_Pointer || arith_name(c));
}

char *cc_read_decl(const cc_read *r, const char *name)
{
    const char *a = arith_name(r->type);
    return a ? cc_fmt("%s %s", a, name) : cc_decl(r->type, name, 1);
}

int cc_read_by_copy(const cc_read *r)
{
    return !arith_name(r->type) && clang_isConstQualifiedType(clang_getCanonicalType(r->type));
}

/* n's text is the user's, in the main file, not from a macro */
static int own_text(const cc_node *n)
{
    if (!n->in_main || n->e <= n->b) return 0;
    CXSourceRange r = clang_getCursorExtent(n->c);
    CXSourceLocation ends[2] = { clang_getRangeStart(r), clang_getRangeEnd(r) };
    for (int i = 0; i < 2; i++) {
        CXFile f1, f2;
        unsigned o1, o2;
        clang_getSpellingLocation(ends[i], &f1, NULL, NULL, &o1);
        clang_getExpansionLocation(ends[i], &f2, NULL, NULL, &o2);
        if (o1 != o2 || !clang_File_isEqual(f1, f2)) return 0;
    }
    return 1;
}

/* What uses n's value, above parentheses and conversions: 'r' a read, 's' a store ('=', '+=',
 * '++'), 'a' its address ('&'), 'z' sizeof, 'c' a larger location (n is its base: 'p' in 'p->f'). */
static int use_of(cc_unit *u, cc_node *n)
{
    cc_node *up = cc_up_wrappers(n), *p = up->parent;
    int post;
    if (!p) return 'r';
    switch (p->kind) {
    case CXCursor_MemberRefExpr: return 'c';
    case CXCursor_ArraySubscriptExpr: return p->nkid && p->kid[0] == up ? 'c' : 'r';
    case CXCursor_UnaryOperator: {
        const char *op = cc_unop(&u->ast, p, &post);
        return !strcmp(op, "*") ? 'c' : !strcmp(op, "&") ? 'a' : (!strcmp(op, "++") || !strcmp(op, "--") || !*op) ? 's' : 'r';
    }
    case CXCursor_UnaryExpr: return 'z';
    case CXCursor_CompoundAssignOperator: return p->kid[0] == up ? 's' : 'r';
    case CXCursor_BinaryOperator: return p->kid[0] == up && !strcmp(cc_binop(&u->ast, p), "=") ? 's' : 'r';
    default: return 'r';
    }
}

/* ---------------------------------------------------------------- is a read made whenever the body runs? */
static int jumps_out(const cc_node *n, int in_loop)
{
    switch (n->kind) {
    case CXCursor_GotoStmt: case CXCursor_IndirectGotoStmt: case CXCursor_ReturnStmt: return 1;
    case CXCursor_BreakStmt: case CXCursor_ContinueStmt: return !in_loop;
    case CXCursor_ForStmt: case CXCursor_WhileStmt: case CXCursor_DoStmt: case CXCursor_SwitchStmt: in_loop = 1; break;
    default: break;
    }
    for (int i = 0; i < n->nkid; i++)
        if (jumps_out(n->kid[i], in_loop)) return 1;
    return 0;
}

static int eval_int(cc_node *n, long long *v)
{
    CXEvalResult r = clang_Cursor_Evaluate(n->c);
    int ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok) *v = clang_EvalResult_getAsLongLong(r);
    if (r) clang_EvalResult_dispose(r);
    return ok;
}

/* for (v = c1; v OP c2; ...) with constants that make the first test true */
static int first_iteration_certain(cc_unit *u, cc_node *f)
{
    if (f->nkid != 4) return 0;
    cc_node *init = f->kid[0], *cond = cc_down_wrappers(f->kid[1]), *ival = NULL;
    CXCursor var = clang_getNullCursor();
    if (init->kind == CXCursor_DeclStmt && init->nkid == 1 && init->kid[0]->nkid >= 1) {
        var = init->kid[0]->c;
        ival = init->kid[0]->kid[init->kid[0]->nkid - 1];
    } else {
        cc_node *a = cc_down_wrappers(init);
        if (a->kind != CXCursor_BinaryOperator || a->nkid != 2 || strcmp(cc_binop(&u->ast, a), "=")) return 0;
        cc_node *l = cc_down_wrappers(a->kid[0]);
        if (l->kind != CXCursor_DeclRefExpr) return 0;
        var = cc_referenced(l);
        ival = a->kid[1];
    }
    if (cond->kind != CXCursor_BinaryOperator || cond->nkid != 2) return 0;
    cc_node *cv = cc_down_wrappers(cond->kid[0]);
    long long lo, hi;
    if (cv->kind != CXCursor_DeclRefExpr ||
        !clang_equalCursors(clang_getCanonicalCursor(cc_referenced(cv)), clang_getCanonicalCursor(var)) ||
        !eval_int(ival, &lo) || !eval_int(cond->kid[1], &hi))
        return 0;
    const char *op = cc_binop(&u->ast, cond);
    return (!strcmp(op, "<") && lo < hi) || (!strcmp(op, "<=") && lo <= hi) || (!strcmp(op, "!=") && lo != hi) ||
           (!strcmp(op, ">") && lo > hi) || (!strcmp(op, ">=") && lo >= hi);
}

/* Is n evaluated each time t's body runs?  (Then reading it at submission reads what the plain
 * build reads; a read the body may skip could fault there: `if (p) x = p->f;`.) */
static int certain(cc_unit *u, const cc_task *t, cc_node *n)
{
    for (cc_node *c = n; c != t->stmt; c = c->parent) {
        cc_node *p = c->parent;
        if (!p) return 0;
        int k = cc_kid_index(c);
        switch (p->kind) {
        case CXCursor_CompoundStmt:
            for (int i = 0; i < k; i++)
                if (jumps_out(p->kid[i], 0)) return 0;
            break;
        case CXCursor_IfStmt: case CXCursor_WhileStmt: case CXCursor_SwitchStmt: case CXCursor_ConditionalOperator:
            if (k != 0) return 0;
            break;
        case CXCursor_DoStmt:
            if (k != 0) return 0;
            break;
        case CXCursor_ForStmt:
            if (!(p->nkid == 4 && (k < 2 || (k == 3 && first_iteration_certain(u, p))))) return 0;
            break;
        case CXCursor_BinaryOperator: {
            const char *op = cc_binop(&u->ast, p);
            if (k != 0 && (!strcmp(op, "&&") || !strcmp(op, "||"))) return 0;
            break;
        }
        case CXCursor_UnaryExpr: case CXCursor_LabelStmt: case CXCursor_CaseStmt: case CXCursor_DefaultStmt:
            return 0;
        default:
            if (clang_isStatement(p->kind) && p->kind != CXCursor_DeclStmt && p->kind != CXCursor_ReturnStmt)
                return 0; /* a statement not named above */
            break;
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- the pass */
typedef struct { cc_unit *u; cc_task *t; int clob; } rd_ctx;

static void add_uread(cc_task *t, CXCursor base, int through, char *what)
{
    for (int i = 0; i < t->nurd; i++)
        if (clang_equalCursors(t->urd[i].base, base) && t->urd[i].through == through) {
            free(what);
            return;
        }
    CC_GROW(t->urd, t->urd_cap, t->nurd + 1);
    t->urd[t->nurd++] = (cc_uread){ base, through, what };
}

static char *short_text(cc_unit *u, const cc_node *n)
{
    char *s = cc_src_text(&u->ast, n->b, n->e), *c = cc_collapse(s);
    free(s);
    if (strlen(c) > 60) strcpy(c + 56, "...");
    return c;
}

/* the largest location n is the base of ('p' in 'p->v[k]') */
static cc_node *outer_location(cc_unit *u, cc_node *n)
{
    while (use_of(u, n) == 'c') n = cc_up_wrappers(n)->parent;
    return n;
}

static int rd_visit(cc_node *n, void *arg)
{
    rd_ctx *x = arg;
    cc_unit *u = x->u;
    cc_task *t = x->t;
    if (in_kid(t, n->b) || in_block_use(t, n->b)) return 0;
    CXCursor base;
    int deref;
    if (n->kind == CXCursor_MemberRefExpr || n->kind == CXCursor_ArraySubscriptExpr ||
        n->kind == CXCursor_UnaryOperator || n->kind == CXCursor_DeclRefExpr) {
        CXType ty = clang_getCursorType(n->c);
        if (!x->clob && fixed_location(u, t, n, &base, &deref) && (deref || is_global(base)) && use_of(u, n) == 'r' &&
            scalar(ty) && file_scope_type(ty) && own_text(n) && certain(u, t, n) &&
            !(clang_isConstQualifiedType(clang_getCanonicalType(ty)) && !deref)) { /* a const global cannot change */
            CC_GROW(t->rd, t->rd_cap, t->nrd + 1);
            t->rd[t->nrd++] = (cc_read){ n->b, n->e, cc_src_text(&u->ast, n->b, n->e), ty, cc_line_of(&u->src, n->b), base };
            return 0;
        }
    }
    if (n->kind != CXCursor_DeclRefExpr) return 1;
    /* a read not taken at submission: of a global, or through a captured pointer */
    CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
    CXType ty = canon(d);
    int global = is_global(d);
    if (!global && !(is_captured(u, t, d) && ty.kind == CXType_Pointer)) return 1;
    if (global && clang_isConstQualifiedType(ty) && ty.kind != CXType_Pointer) return 1; /* never changes */
    if (ty.kind == CXType_FunctionProto || ty.kind == CXType_FunctionNoProto || is_handle(ty)) return 1;
    cc_node *o = outer_location(u, n);
    int use = use_of(u, o);
    if (use == 's' || use == 'z') return 1; /* a store (warned: capture.c), or sizeof */
    char *txt = short_text(u, o);
    cc_node *user = cc_up_wrappers(o)->parent;
    enum CXTypeKind ok = canon(o->c).kind;
    if (user && user->kind == CXCursor_CallExpr && cc_up_wrappers(o) != user->kid[0] &&
        (ok == CXType_Pointer || ok == CXType_ConstantArray || ok == CXType_IncompleteArray)) { /* read there, or not */
        char *f = cc_spelling(cc_referenced(user));
        add_uread(t, d, !global, cc_fmt("what '%s' points to (it passes '%s' to %s() at line %u)", txt, txt,
                                        *f ? f : "a function", cc_line_of(&u->src, o->b)));
        free(f);
    } else {
        add_uread(t, d, !global, cc_fmt("'%s' at line %u", txt, cc_line_of(&u->src, o->b)));
    }
    free(txt);
    return 1;
}

/* globals that a called function of this file uses, directly or through its calls */
typedef struct { cc_unit *u; cc_task *t; CXCursor *seen; int nseen; size_t seen_cap; const char *fname; unsigned line; } callee_ctx;

static void callee_globals(callee_ctx *c, CXCursor f);

static int callee_visit(cc_node *n, void *arg)
{
    callee_ctx *c = arg;
    if (n->kind == CXCursor_CallExpr) {
        CXCursor f = cc_referenced(n);
        if (clang_getCursorKind(f) == CXCursor_FunctionDecl) callee_globals(c, f);
    } else if (n->kind == CXCursor_DeclRefExpr) {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        CXType ty = canon(d);
        if (is_global(d) && !(clang_isConstQualifiedType(ty) && ty.kind != CXType_Pointer)) {
            char *nm = cc_spelling(d);
            add_uread(c->t, d, 0, cc_fmt("'%s' in %s(), called at line %u", nm, c->fname, c->line));
            free(nm);
        }
    }
    return 1;
}

static void callee_globals(callee_ctx *c, CXCursor f)
{
    CXCursor def = clang_getCursorDefinition(f);
    if (clang_Cursor_isNull(def) || c->nseen >= 64) return;
    def = clang_getCanonicalCursor(def);
    for (int i = 0; i < c->nseen; i++)
        if (clang_equalCursors(c->seen[i], def)) return;
    CC_GROW(c->seen, c->seen_cap, c->nseen + 1);
    c->seen[c->nseen++] = def;
    cc_node *tree = cc_tree(&c->u->ast, clang_getCursorDefinition(def), NULL);
    cc_walk(tree, callee_visit, c);
    cc_tree_free(tree);
}

static int call_visit(cc_node *n, void *arg)
{
    callee_ctx *c = arg;
    if (in_kid(c->t, n->b)) return 0;
    if (n->kind != CXCursor_CallExpr) return 1;
    CXCursor f = cc_referenced(n);
    if (clang_getCursorKind(f) != CXCursor_FunctionDecl) return 1;
    char *nm = cc_spelling(f);
    c->fname = nm;
    c->line = cc_line_of(&c->u->src, n->b);
    c->nseen = 0; /* each call names its own functions */
    callee_globals(c, f);
    free(nm);
    return 1;
}

void cc_capture_reads(cc_unit *u, cc_task *t)
{
    rd_ctx x = { u, t, body_clobbers(u, t) };
    cc_walk(t->stmt, rd_visit, &x);
    callee_ctx c = { u, t, NULL, 0, 0, NULL, 0 };
    cc_walk(t->stmt, call_visit, &c);
    free(c.seen);
    /* a nested task reads when t submits it, later than t's own submission: its reads are t's too */
    for (int k = 0; k < t->nkids; k++) {
        const cc_task *kid = t->kids[k];
        for (int i = 0; i < kid->nrd; i++) {
            char *x = cc_collapse(kid->rd[i].text);
            add_uread(t, kid->rd[i].base, !is_global(kid->rd[i].base),
                      cc_fmt("'%s' in its nested task at line %u, which reads it when submitted", x, kid->line));
            free(x);
        }
        for (int i = 0; i < kid->nurd; i++)
            add_uread(t, kid->urd[i].base, kid->urd[i].through, cc_fmt("%s in its nested task at line %u", kid->urd[i].what, kid->line));
    }
}

/* ---------------------------------------------------------------- stores after the submission */
typedef struct {
    cc_unit *u; const cc_task *t; cc_node *scope;
    size_t b, e;                /* [end of the task, next taskwait) */
    const cc_node **loops; int nloops; size_t loops_cap; /* enclosing loops with no taskwait: all after */
    int n;
} later_ctx;

/* the taskwaits of the code that submits t: offsets of its directives */
static int waits_in(const cc_unit *u, const cc_task *t, size_t b, size_t e, size_t *first)
{
    int n = 0;
    *first = e;
    if (t->parent) {
        for (int k = 0; k < t->parent->nwait; k++) {
            size_t o = t->parent->wait[k].pr->off;
            if (o >= b && o < e) { n++; if (o < *first) *first = o; }
        }
        return n;
    }
    for (int k = 0; k < u->nsa; k++) {
        const struct cc_standalone *s = &u->sa[k];
        if (s->in || s->fn != t->fn || s->pr->kind != CC_P_TASKWAIT) continue;
        if (s->pr->off >= b && s->pr->off < e) { n++; if (s->pr->off < *first) *first = s->pr->off; }
    }
    return n;
}

static int after(const later_ctx *c, size_t at)
{
    if (at >= c->t->b && at < c->t->e) return 0;
    for (int i = 0; i < c->u->ntasks; i++) { /* inside another task: not the submitting code */
        const cc_task *k = c->u->tasks[i];
        if (k != c->t->parent && k->b >= c->scope->b && at >= k->b && at < k->e) return 0;
    }
    if (at >= c->b && at < c->e) return 1;
    for (int i = 0; i < c->nloops; i++)
        if (at >= c->loops[i]->b && at < c->loops[i]->e) return 1;
    return 0;
}

/* A store to lhs at `at` (or, with callee, a pointer lhs handed to that function: a store
 * through it unless lhs was written '&x'; by_address: it was) that t may not have seen. */
static void warn_store(later_ctx *c, cc_node *at, cc_node *lhs, const char *callee, int by_address)
{
    int ptr;
    cc_node *b = cc_lvalue_base(lhs, &ptr);
    if (!b) return;
    if (callee && !by_address) ptr = 1;
    CXCursor d = clang_getCanonicalCursor(cc_referenced(b));
    for (int i = 0; i < c->t->nurd; i++) {
        const cc_uread *r = &c->t->urd[i];
        if (!clang_equalCursors(r->base, d) || (r->through && !ptr)) continue;
        char *txt = short_text(c->u, lhs);
        char *what = callee ? cc_fmt("this call, which passes '%s' to %s() and may store through it,", txt, callee)
                            : cc_fmt("this store to '%s'", txt);
        const char *verb = callee ? "call" : "store";
        cc_diag(&c->u->src, at->b, CC_WARNING, "%s comes after the task at line %u was submitted%s, with no taskwait "
                "between, and that task reads %s: it may run after this %s and see the new value (the plain build ran it "
                "at once and saw the old one); add '#pragma tamm taskwait' before this %s, or pass the data in a tensor "
                "block", what, c->t->line, at->b < c->t->b ? " in an earlier iteration of the loop" : "", r->what, verb, verb);
        free(what);
        free(txt);
        c->n++;
        return;
    }
}

static int later_visit(cc_node *n, void *arg)
{
    later_ctx *c = arg;
    if (!after(c, n->b)) return 1;
    int post;
    if (((n->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(&c->u->ast, n), "=")) ||
         n->kind == CXCursor_CompoundAssignOperator) && n->nkid == 2) {
        warn_store(c, n, n->kid[0], NULL, 0);
    } else if (n->kind == CXCursor_UnaryOperator && n->nkid == 1) {
        const char *op = cc_unop(&c->u->ast, n, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--")) warn_store(c, n, n->kid[0], NULL, 0);
    } else if (n->kind == CXCursor_CallExpr && !is_call_of(n, "tamm_block_at")) {
        for (int i = 1; i < n->nkid; i++) { /* a pointer handed to a function that may store through it */
            CXType ty = clang_getCanonicalType(clang_getCursorType(n->kid[i]->c));
            if (ty.kind != CXType_Pointer || clang_isConstQualifiedType(clang_getPointeeType(ty)) || is_handle(ty)) continue;
            cc_node *a = cc_down_wrappers(n->kid[i]);
            int post2, amp = a->kind == CXCursor_UnaryOperator && a->nkid == 1 &&
                                    !strcmp(cc_unop(&c->u->ast, a, &post2), "&");
            char *f = cc_spelling(cc_referenced(n));
            warn_store(c, n->kid[i], amp ? a->kid[0] : a, *f ? f : "a function", amp);
            free(f);
        }
    }
    return 1;
}

int cc_warn_later_stores(cc_unit *u, const cc_task *t)
{
    if (!t->nurd) return 0;
    later_ctx c = { u, t, t->parent ? t->parent->stmt : t->fn, t->e, 0, NULL, 0, 0, 0 };
    waits_in(u, t, t->e, c.scope->e, &c.e);
    for (cc_node *p = t->stmt->parent; p && p != c.scope; p = p->parent) {
        size_t first;
        if ((p->kind == CXCursor_ForStmt || p->kind == CXCursor_WhileStmt || p->kind == CXCursor_DoStmt) &&
            !waits_in(u, t, p->b, p->e, &first)) {
            CC_GROW(c.loops, c.loops_cap, c.nloops + 1);
            c.loops[c.nloops++] = p;
        }
    }
    cc_walk(c.scope, later_visit, &c);
    free(c.loops);
    return c.n;
}

void cc_reads_free(cc_task *t)
{
    for (int i = 0; i < t->nrd; i++) free(t->rd[i].text);
    for (int i = 0; i < t->nurd; i++) free(t->urd[i].what);
    free(t->rd);
    free(t->urd);
}
