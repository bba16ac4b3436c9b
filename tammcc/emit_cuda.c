/*
 * emit_cuda.c — CUDA variants (SPEC 3.4; see emit_cuda.h).
 *
 * Two forms of task body get a CUDA variant:
 *
 *  A. a single call `f(args...)` where a declaration of f carries
 *     TAMM_CUDA_VARIANT(g) (annotate("tamm_cuda_variant:g")): the variant gets
 *     the blocks like the CPU variant and calls g with the same arguments,
 *     block uses replaced by the buffers (cast to f's parameter types);
 *
 *  B. an (optional) prefix of pointer locals initialised from tamm_block(...)
 *     uses, then one `for` nest over block elements: the outer loop (and the
 *     second one, when perfectly nested and also independent) becomes a
 *     grid-stride loop of a __global__ kernel; `+=` / `-=` into block elements
 *     become atomicAdd.  A loop is independent when every block stored to in
 *     the nest is always accessed at the same element, whose index involves
 *     the loop variable (and only +, -, *).
 *
 * The decision (cc_cuda_decide) and the emission (cc_emit_cuda) run the same
 * analysis, `plan_task`, which either fills a plan or says why not.  The .cu
 * file repeats the C file's args struct with the same fields in the same
 * order (canonical type spellings), so the variant reads the same bytes.
 */
#include "emit_cuda.h"
#include "capture.h"
#include "cuda_blas.h"
#include "emit_c.h"
#include "text.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- small helpers */
static int is_wrapper_kind(enum CXCursorKind k)
{
    return k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr || k == CXCursor_CStyleCastExpr;
}

/* down through parens and casts (a cast may have a TypeRef kid before its operand) */
static cc_node *down(cc_node *n)
{
    while (n && is_wrapper_kind(n->kind) && n->nkid >= 1) {
        cc_node *k = n->kid[n->nkid - 1];
        if (!clang_isExpression(k->kind)) break;
        n = k;
    }
    return n;
}

/* up through parens only */
static cc_node *up_parens(cc_node *n)
{
    while (n->parent && n->parent->kind == CXCursor_ParenExpr) n = n->parent;
    return n;
}

static int same_cursor(CXCursor a, CXCursor b)
{
    return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b));
}

static const char *arith_name(enum CXTypeKind k) { return cc_arith_type_name(k, 1); }

static int is_integer_kind(enum CXTypeKind k)
{
    return arith_name(k) && k != CXType_Bool && k != CXType_Float && k != CXType_Double && k != CXType_LongDouble;
}

/* spelling of an arithmetic or enum type (enums as their integer type), else NULL */
static const char *scalar_name(CXType ty)
{
    CXType c = clang_getCanonicalType(ty);
    if (c.kind == CXType_Enum) c = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
    return arith_name(c.kind);
}

static int is_tensor_record(CXType pointee)
{
    CXType c = clang_getCanonicalType(pointee);
    if (c.kind != CXType_Record) return 0;
    CXString s = clang_getCursorSpelling(clang_getTypeDeclaration(c));
    int r = !strcmp(clang_getCString(s), "tamm_tensor");
    clang_disposeString(s);
    return r;
}

/* A C++ declaration of `name` with type ty for the supported types: arithmetic,
 * enum (as its integer type), pointer to (const) arithmetic / void /
 * tamm_tensor, pointer to an array of arithmetic.  Top-level qualifiers are
 * dropped.  NULL if unsupported. */
static char *cu_decl(CXType ty, const char *name)
{
    CXType c = clang_getCanonicalType(ty);
    const char *sp = *name ? " " : "";
    const char *s = scalar_name(c);
    if (s) return cc_fmt("%s%s%s", s, sp, name);
    if (c.kind != CXType_Pointer) return NULL;
    CXType pt = clang_getCanonicalType(clang_getPointeeType(c));
    const char *q = clang_isConstQualifiedType(pt) ? "const " : "";
    const char *v = clang_isVolatileQualifiedType(pt) ? "volatile " : "";
    if (pt.kind == CXType_Void) return cc_fmt("%s%svoid *%s", q, v, name);
    if (pt.kind == CXType_Record && is_tensor_record(pt)) return cc_fmt("%s%stamm_tensor *%s", q, v, name);
    if (pt.kind == CXType_Enum) return NULL;
    s = arith_name(pt.kind);
    if (s) return cc_fmt("%s%s%s *%s", q, v, s, name);
    if (pt.kind == CXType_ConstantArray) {
        CXType et = clang_getCanonicalType(clang_getArrayElementType(pt));
        s = arith_name(et.kind);
        if (!s || et.kind == CXType_Bool) return NULL;
        q = clang_isConstQualifiedType(et) ? "const " : "";
        return cc_fmt("%s%s (*%s)[%lld]", q, s, name, clang_getArraySize(pt));
    }
    return NULL;
}

static const char *const cxx_words[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char8_t", "char16_t",
    "char32_t", "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await",
    "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
    "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this",
    "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", NULL };

static int cxx_reserved(const char *w)
{
    for (int i = 0; cxx_words[i]; i++)
        if (!strcmp(cxx_words[i], w)) return 1;
    return 0;
}

/* functions a kernel may call (CUDA's math library has device versions of these) */
static const char *const math_fns[] = {
    "sqrt", "sqrtf", "cbrt", "cbrtf", "rsqrt", "rsqrtf", "exp", "expf", "exp2", "exp2f", "expm1", "expm1f", "log",
    "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "pow", "powf", "fabs", "fabsf", "fmin", "fminf",
    "fmax", "fmaxf", "fmod", "fmodf", "remainder", "remainderf", "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin",
    "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf",
    "asinh", "acosh", "atanh", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc", "truncf", "rint",
    "rintf", "nearbyint", "lround", "llround", "lrint", "llrint", "hypot", "hypotf", "erf", "erff", "erfc", "erfcf",
    "fma", "fmaf", "copysign", "copysignf", "fdim", "fdimf", "lgamma", "lgammaf", "tgamma", "tgammaf", "ldexp",
    "ldexpf", "abs", "labs", "llabs", NULL };

static int math_fn(const char *f)
{
    if (!strncmp(f, "__builtin_", 10)) return 1;
    for (int i = 0; math_fns[i]; i++)
        if (!strcmp(math_fns[i], f)) return 1;
    return 0;
}

/* ---------------------------------------------------------------- the plan */
enum { ED_TEXT, ED_ATOMIC, ED_CALL };
typedef struct edit {
    size_t b, e;
    int kind;
    char *text;          /* ED_TEXT: the replacement */
    cc_node *lhs, *rhs;  /* ED_ATOMIC; ED_CALL: the call, and its callee */
    int neg;             /* '-=' */
    enum CXTypeKind ek;  /* element type */
} edit;

enum { K_READ = 1, K_STORE = 2, K_ACC = 4 };
typedef struct elem {    /* one element access of a block in the nest */
    int acc;
    char *key;           /* "[i*NB+j]..." or "*" */
    int kind;
    cc_node **ix; int nix;
    cc_node *at;
} elem;

typedef struct loop {
    cc_node *f, *body;
    CXCursor var;
    char *name;
    const char *type;
    cc_node *lb, *ub;
    int le;              /* '<=' */
} loop;

typedef struct plan {
    cc_unit *u;
    cc_task *t;
    char *why;
    int form;            /* 1: call of a TAMM_CUDA_VARIANT function, 2: loop nest */
    edit *ed; int ned;
    size_t (*en)[2]; int nen;   /* file-scope enums the code uses */
    /* form A */
    cc_node *call;
    char *g, *gdecl;
    char **ptypes; int nparams; /* f's parameter types (C++ spelling) */
    int gstatus;         /* the variant returns an integer: a status, nonzero fails the task */
    /* form B */
    struct pl { CXCursor d; char *decl, *name; int acc; } *pl; int npl;
    cc_node *nest;
    loop lp[2]; int nmap;
    /* the grid: option 2 both mapped loops, 1 the outer only, 3 the inner only, each under a
     * condition (st 1: always, 0: never, -1: the C expression s, evaluated at launch); else one thread */
    struct gcond { int st; char *s; } opt[4];
    struct gcond alias;        /* no two accesses of the nest share a block (else one thread) */
    char *grid_why;            /* --explain: which loops go on the grid, when, and why */
    elem *el; int nel;
    cc_node **brk; int nbrk;    /* break statements whose target is a for */
    cc_node **asg; int nasg;    /* assignments to nest locals (the lhs DeclRef) */
    int *capuse;               /* captured variable used in the nest */
    cc_blas_calls *blas;       /* form C (3): BLAS and LAPACK calls, by cuBLAS and cuSOLVER (cuda_blas.c) */
} plan;

static void plan_free(plan *p)
{
    free(p->why);
    for (int i = 0; i < p->ned; i++) free(p->ed[i].text);
    free(p->ed);
    free(p->en);
    free(p->g);
    free(p->gdecl);
    for (int i = 0; i < p->nparams; i++) free(p->ptypes[i]);
    free(p->ptypes);
    for (int i = 0; i < p->npl; i++) { free(p->pl[i].decl); free(p->pl[i].name); }
    free(p->pl);
    for (int i = 0; i < 2; i++) free(p->lp[i].name);
    for (int i = 0; i < 4; i++) free(p->opt[i].s);
    free(p->alias.s);
    free(p->grid_why);
    for (int i = 0; i < p->nel; i++) { free(p->el[i].key); free(p->el[i].ix); }
    free(p->el);
    free(p->brk);
    free(p->asg);
    free(p->capuse);
    cc_blas_free(p->blas);
    memset(p, 0, sizeof *p);
}

static int no(plan *p, const char *f, ...) __attribute__((format(printf, 2, 3)));
static int no(plan *p, const char *f, ...)
{
    if (p->why) return 0;
    va_list ap;
    va_start(ap, f);
    if (vasprintf(&p->why, f, ap) < 0) p->why = strdup("no CUDA variant");
    va_end(ap);
    return 0;
}

static void add_edit(plan *p, edit e)
{
    for (int i = 0; i < p->ned; i++)
        if (p->ed[i].b == e.b && p->ed[i].e == e.e && p->ed[i].kind == e.kind) { free(e.text); return; }
    p->ed = realloc(p->ed, (size_t)(p->ned + 1) * sizeof *p->ed);
    p->ed[p->ned++] = e;
}

static void add_text_edit(plan *p, size_t b, size_t e, char *text)
{
    edit x;
    memset(&x, 0, sizeof x);
    x.b = b;
    x.e = e;
    x.kind = ED_TEXT;
    x.text = text;
    add_edit(p, x);
}

static char *node_text(plan *p, const cc_node *n)
{
    return cc_src_text(&p->u->ast, n->b, n->e);
}

/* the task's block use covering offset off, or -1 */
static int use_at(const cc_task *t, size_t off)
{
    for (int i = 0; i < t->nuse; i++)
        if (off >= t->use[i].b && off < t->use[i].e) return i;
    return -1;
}

/* n is (a wrapper of) exactly one block use: its index, else -1 */
static int block_use_node(plan *p, const cc_node *n)
{
    if (!n->in_main) return -1;
    int k = use_at(p->t, n->b);
    if (k < 0 || n->e > p->t->use[k].e) return -1;
    return k;
}

static int cap_index(const cc_task *t, CXCursor d)
{
    for (int i = 0; i < t->ncap; i++)
        if (same_cursor(t->cap[i].decl, d)) return i;
    return -1;
}

static int decl_in(plan *p, CXCursor d, size_t b, size_t e)
{
    size_t off;
    return cc_offset(&p->u->ast, clang_getCursorLocation(d), &off) && off >= b && off < e;
}

static int text_is(plan *p, const cc_node *n, const char *s)
{
    size_t l = strlen(s);
    return n->in_main && n->e - n->b == l && !strncmp(p->u->ast.text + n->b, s, l);
}

/* an enum constant: a file-scope enum of the main file is copied; one of the
 * enclosing function is in t->pre; a header's is replaced by its value */
static int use_enum_const(plan *p, cc_node *n, CXCursor d)
{
    CXCursor ed = clang_getCursorSemanticParent(d);
    size_t b, e;
    if (cc_extent(&p->u->ast, ed, &b, &e)) {
        if (b >= p->t->fn->b && b < p->t->fn->e) return 1; /* in t->pre */
        if (clang_getCursorKind(clang_getCursorSemanticParent(ed)) != CXCursor_TranslationUnit) goto value;
        for (int i = 0; i < p->nen; i++)
            if (p->en[i][0] == b) return 1;
        p->en = realloc(p->en, (size_t)(p->nen + 1) * sizeof *p->en);
        p->en[p->nen][0] = b;
        p->en[p->nen][1] = e;
        p->nen++;
        return 1;
    }
value:;
    char *nm = cc_spelling(d);
    int ok = text_is(p, n, nm);
    if (ok) add_text_edit(p, n->b, n->e, cc_fmt("(%lld)", clang_getEnumConstantDeclValue(d)));
    else no(p, "the enum constant '%s' is used through a macro", nm);
    free(nm);
    return ok;
}

/* a typedef name in the code: replaced by its (arithmetic) canonical type */
static int use_typeref(plan *p, cc_node *n)
{
    CXCursor d = cc_referenced(n);
    if (clang_getCursorKind(d) != CXCursor_TypedefDecl) {
        char *nm = cc_spelling(d);
        no(p, "the code uses the type '%s', which the CUDA file does not have", nm);
        free(nm);
        return 0;
    }
    char *nm = cc_spelling(d);
    const char *s = scalar_name(clang_getTypedefDeclUnderlyingType(d));
    int ok = s && text_is(p, n, nm);
    if (ok) add_text_edit(p, n->b, n->e, strdup(s));
    else no(p, "the code uses the type '%s', which is not an arithmetic type (or is named through a macro)", nm);
    free(nm);
    return ok;
}

/* ---------------------------------------------------------------- expressions evaluated on the host */
typedef struct { plan *p; int kernel; } host_ctx;

/* an expression evaluated where only captured variables, constants and macros
 * exist (form A arguments, the mapped loops' bounds); block uses are edited */
static int host_expr_visit(cc_node *n, void *arg)
{
    host_ctx *h = arg;
    plan *p = h->p;
    if (p->why) return 0;
    int k = block_use_node(p, n);
    if (k >= 0) {
        if (h->kernel) { no(p, "a loop bound of the nest reads a block"); return 0; }
        add_text_edit(p, p->t->use[k].b, p->t->use[k].e, cc_fmt("tamm_b%d_", p->t->use[k].acc));
        return 0;
    }
    switch (n->kind) {
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        enum CXCursorKind dk = clang_getCursorKind(d);
        char *nm = cc_spelling(d);
        if (dk == CXCursor_EnumConstantDecl) use_enum_const(p, n, d);
        else if (dk == CXCursor_FunctionDecl) {
            cc_node *c = cc_up_wrappers(n)->parent;
            if (!c || c->kind != CXCursor_CallExpr || !(math_fn(nm) || (!h->kernel && !strncmp(nm, "tamm_", 5))))
                no(p, "the code calls %s(), which the CUDA file cannot call", nm);
        } else if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) {
            int ci = cap_index(p->t, d);
            if (ci < 0) no(p, "the code uses '%s', which is not a captured variable (a global?)", nm);
            else if (h->kernel && !scalar_name(p->t->cap[ci].type))
                no(p, "a loop bound of the nest uses '%s', which is not arithmetic", nm);
        } else {
            no(p, "the code uses '%s', which the CUDA file does not have", nm);
        }
        free(nm);
        return 1;
    }
    case CXCursor_TypeRef: use_typeref(p, n); return 1;
    case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_CharacterLiteral:
    case CXCursor_ParenExpr: case CXCursor_UnaryOperator: case CXCursor_BinaryOperator:
    case CXCursor_ConditionalOperator: case CXCursor_CStyleCastExpr: case CXCursor_UnexposedExpr:
    case CXCursor_CallExpr: case CXCursor_UnaryExpr: case CXCursor_StringLiteral:
        if (h->kernel && n->kind == CXCursor_StringLiteral) return no(p, "a loop bound uses a string");
        if (n->kind == CXCursor_UnaryOperator || n->kind == CXCursor_BinaryOperator) {
            int post;
            const char *op = n->kind == CXCursor_UnaryOperator ? cc_unop(&p->u->ast, n, &post) : cc_binop(&p->u->ast, n);
            if (!strcmp(op, "=") || !strcmp(op, "++") || !strcmp(op, "--"))
                return no(p, "an expression evaluated at submission has a side effect");
        }
        return 1;
    case CXCursor_ArraySubscriptExpr: case CXCursor_MemberRefExpr:
        if (!h->kernel) return 1;
        /* fall through */
    default: {
        CXString s = clang_getCursorKindSpelling(n->kind);
        no(p, "an expression evaluated at submission holds a %s", clang_getCString(s));
        clang_disposeString(s);
        return 0;
    }
    }
}

static int host_expr(plan *p, cc_node *n, int kernel)
{
    host_ctx h = { p, kernel };
    if (!n->in_main || n->e <= n->b) return no(p, "an expression comes from a macro expansion");
    cc_walk(n, host_expr_visit, &h);
    return !p->why;
}

/* ---------------------------------------------------------------- form A */
typedef struct { const char *usr; char *g; int found_static; const char *gname; int gdeclared; CXType gret; } ann_ctx;

static enum CXChildVisitResult ann_attr(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    ann_ctx *a = d;
    if (clang_getCursorKind(c) == CXCursor_AnnotateAttr) {
        CXString s = clang_getCursorSpelling(c);
        const char *v = clang_getCString(s);
        if (!strncmp(v, "tamm_cuda_variant:", 18) && !a->g) a->g = strdup(v + 18);
        clang_disposeString(s);
    }
    return CXChildVisit_Continue;
}

static enum CXChildVisitResult ann_top(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    ann_ctx *a = d;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl) return CXChildVisit_Continue;
    if (a->usr) {
        CXString u = clang_getCursorUSR(c);
        if (!strcmp(clang_getCString(u), a->usr)) clang_visitChildren(c, ann_attr, a);
        clang_disposeString(u);
    } else {
        CXString s = clang_getCursorSpelling(c);
        if (!strcmp(clang_getCString(s), a->gname)) {
            if (clang_Cursor_getStorageClass(c) == CX_SC_Static) a->found_static = 1;
            if (!a->gdeclared) { /* the variant's own declaration: its return type */
                a->gdeclared = 1;
                a->gret = clang_getCanonicalType(clang_getResultType(clang_getCursorType(c)));
            }
        }
        clang_disposeString(s);
    }
    return CXChildVisit_Continue;
}

static int valid_ident(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

static int plan_call(plan *p, cc_node *call)
{
    cc_unit *u = p->u;
    CXCursor f = cc_referenced(call);
    char *fname = cc_spelling(f);
    if (clang_getCursorKind(f) != CXCursor_FunctionDecl) {
        free(fname);
        return no(p, "the body calls through a function pointer");
    }
    ann_ctx a;
    memset(&a, 0, sizeof a);
    CXString usr = clang_getCursorUSR(f);
    a.usr = clang_getCString(usr);
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), ann_top, &a);
    clang_visitChildren(f, ann_attr, &a);
    clang_disposeString(usr);
    if (!a.g) {
        no(p, "the body calls %s(), which has no TAMM_CUDA_VARIANT", fname);
        free(fname);
        return 0;
    }
    p->g = a.g;
    if (!valid_ident(p->g) || cxx_reserved(p->g)) {
        no(p, "TAMM_CUDA_VARIANT(%s) of %s() does not name a function", p->g, fname);
        free(fname);
        return 0;
    }
    ann_ctx s;
    memset(&s, 0, sizeof s);
    s.gname = p->g;
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), ann_top, &s);
    if (s.found_static) {
        no(p, "%s(), the CUDA variant of %s(), is static: the CUDA file cannot call it", p->g, fname);
        free(fname);
        return 0;
    }
    CXType ft = clang_getCanonicalType(clang_getCursorType(f));
    if (ft.kind != CXType_FunctionProto || clang_isFunctionTypeVariadic(ft)) {
        no(p, "%s() has no prototype or is variadic", fname);
        free(fname);
        return 0;
    }
    /* the variant's return type: its declaration's when the file declares it, else f's; an integer
     * is a status (SPEC 3.4): nonzero makes the task fail with TAMM_EDEVICE */
    CXType rt = s.gdeclared ? s.gret : clang_getCanonicalType(clang_getResultType(ft));
    const char *ret = rt.kind == CXType_Void ? "void" : scalar_name(rt);
    switch (rt.kind) {
    case CXType_Bool: case CXType_Char_U: case CXType_UChar: case CXType_UShort: case CXType_UInt: case CXType_ULong:
    case CXType_ULongLong: case CXType_Char_S: case CXType_SChar: case CXType_Short: case CXType_Int: case CXType_Long:
    case CXType_LongLong:
        p->gstatus = 1;
        break;
    default: break;
    }
    int np = clang_getNumArgTypes(ft);
    if (!ret) {
        no(p, "%s() returns a type the CUDA file does not have", fname);
        free(fname);
        return 0;
    }
    p->nparams = np;
    p->ptypes = calloc((size_t)(np ? np : 1), sizeof *p->ptypes);
    size_t cap = 64, n = 0;
    char *params = malloc(cap);
    params[0] = 0;
    for (int i = 0; i < np; i++) {
        p->ptypes[i] = cu_decl(clang_getArgType(ft, (unsigned)i), "");
        if (!p->ptypes[i]) {
            CXString ts = clang_getTypeSpelling(clang_getArgType(ft, (unsigned)i));
            no(p, "parameter %d of %s() has type '%s', which the CUDA file does not have", i + 1, fname,
               clang_getCString(ts));
            clang_disposeString(ts);
            break;
        }
        size_t need = n + strlen(p->ptypes[i]) + 4;
        if (need > cap) { cap = need * 2; params = realloc(params, cap); }
        n += (size_t)sprintf(params + n, "%s%s", i ? ", " : "", p->ptypes[i]);
    }
    if (!p->why) p->gdecl = cc_fmt("extern \"C\" %s %s(%s);", ret, p->g, np ? params : "void");
    free(params);
    if (p->why) { free(fname); return 0; }
    if (call->nkid != np + 1) {
        no(p, "the call of %s() does not have one argument per parameter", fname);
        free(fname);
        return 0;
    }
    free(fname);
    for (int i = 0; i < np; i++) {
        cc_node *arg = call->kid[i + 1];
        cc_node *inner = down(arg);
        int k = block_use_node(p, inner);
        if (k >= 0 && block_use_node(p, arg) >= 0) {
            /* the argument is the block: the buffer, cast to the parameter's type */
            add_text_edit(p, p->t->use[k].b, p->t->use[k].e, cc_fmt("(%s)tamm_b%d_", p->ptypes[i], p->t->use[k].acc));
            continue;
        }
        if (!host_expr(p, arg, 0)) return 0;
    }
    p->call = call;
    p->form = 1;
    return 1;
}

/* ---------------------------------------------------------------- form B */
/* a canonical for: for (T v = lb; v < ub (or <=); v++ / ++v / v += 1) body */
static int parse_for(plan *p, cc_node *f, loop *l)
{
    memset(l, 0, sizeof *l);
    if (f->kind != CXCursor_ForStmt || f->nkid != 4) return 0;
    cc_node *init = f->kid[0], *cond = f->kid[1], *inc = f->kid[2];
    if (init->kind != CXCursor_DeclStmt || init->nkid != 1 || init->kid[0]->kind != CXCursor_VarDecl) return 0;
    cc_node *vd = init->kid[0];
    if (vd->nkid < 1 || !clang_isExpression(vd->kid[vd->nkid - 1]->kind)) return 0;
    CXType vt = clang_getCanonicalType(clang_getCursorType(vd->c));
    if (!is_integer_kind(vt.kind)) return 0;
    l->var = clang_getCanonicalCursor(vd->c);
    l->lb = vd->kid[vd->nkid - 1];
    if (cond->kind != CXCursor_BinaryOperator || cond->nkid != 2) return 0;
    const char *op = cc_binop(&p->u->ast, cond);
    if (strcmp(op, "<") && strcmp(op, "<=")) return 0;
    l->le = !strcmp(op, "<=");
    cc_node *lv = down(cond->kid[0]);
    if (lv->kind != CXCursor_DeclRefExpr || !same_cursor(cc_referenced(lv), l->var)) return 0;
    l->ub = cond->kid[1];
    int post;
    if (inc->kind == CXCursor_UnaryOperator && inc->nkid == 1) {
        if (strcmp(cc_unop(&p->u->ast, inc, &post), "++")) return 0;
        lv = down(inc->kid[0]);
    } else if (inc->kind == CXCursor_CompoundAssignOperator && inc->nkid == 2) {
        if (strcmp(cc_binop(&p->u->ast, inc), "+=")) return 0;
        cc_node *one = down(inc->kid[1]);
        if (one->kind != CXCursor_IntegerLiteral || !text_is(p, one, "1")) return 0;
        lv = down(inc->kid[0]);
    } else {
        return 0;
    }
    if (lv->kind != CXCursor_DeclRefExpr || !same_cursor(cc_referenced(lv), l->var)) return 0;
    l->f = f;
    l->body = f->kid[3];
    l->name = cc_spelling(vd->c);
    l->type = arith_name(vt.kind);
    return 1;
}

static void add_elem(plan *p, elem e)
{
    p->el = realloc(p->el, (size_t)(p->nel + 1) * sizeof *p->el);
    p->el[p->nel++] = e;
}

static int atomic_ok(enum CXTypeKind k)
{
    return k == CXType_Float || k == CXType_Double || k == CXType_Int || k == CXType_UInt || k == CXType_Long ||
           k == CXType_ULong || k == CXType_LongLong || k == CXType_ULongLong;
}

/* n is a block base (a pointer local, or a block use): find the element access it is part of */
static int block_element(plan *p, cc_node *n, int acc, const char *what)
{
    elem e;
    memset(&e, 0, sizeof e);
    e.acc = acc;
    cc_node *top = cc_up_wrappers(n), *E = NULL;
    size_t cap = 0;
    for (;;) {
        cc_node *q = top->parent;
        if (q && q->kind == CXCursor_ArraySubscriptExpr && q->nkid == 2 && q->kid[0] == top) {
            if ((size_t)e.nix == cap) { cap = cap ? cap * 2 : 4; e.ix = realloc(e.ix, cap * sizeof *e.ix); }
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
        return no(p, "%s is used other than to access its elements (a pointer escapes into the kernel)", what);
    }
    CXType et = clang_getCanonicalType(clang_getCursorType(E->c));
    if (!arith_name(et.kind)) {
        free(e.ix);
        return no(p, "%s is indexed to something that is not an element", what);
    }
    /* key */
    if (!e.nix) {
        e.key = strdup("*");
    } else {
        size_t kl = 1;
        char **parts = malloc((size_t)e.nix * sizeof *parts);
        for (int i = 0; i < e.nix; i++) {
            char *t = node_text(p, e.ix[i]);
            parts[i] = cc_squeeze(t);
            free(t);
            kl += strlen(parts[i]) + 2;
        }
        e.key = malloc(kl);
        e.key[0] = 0;
        for (int i = 0; i < e.nix; i++) {
            strcat(e.key, "[");
            strcat(e.key, parts[i]);
            strcat(e.key, "]");
            free(parts[i]);
        }
        free(parts);
    }
    cc_node *P = up_parens(E), *Q = P->parent;
    e.at = E;
    int post;
    if (Q && Q->kind == CXCursor_BinaryOperator && Q->nkid == 2 && Q->kid[0] == P && !*cc_binop(&p->u->ast, Q)) {
        free(e.ix);
        free(e.key);
        return no(p, "an element of %s is the left operand of an operator written in a macro", what);
    } else if (Q && Q->kind == CXCursor_BinaryOperator && Q->nkid == 2 && Q->kid[0] == P &&
               !strcmp(cc_binop(&p->u->ast, Q), "=")) {
        e.kind = K_STORE;
    } else if (Q && Q->kind == CXCursor_CompoundAssignOperator && Q->nkid == 2 && Q->kid[0] == P) {
        const char *op = cc_binop(&p->u->ast, Q);
        if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
            e.kind = K_ACC;
            if (!atomic_ok(et.kind)) {
                CXString s = clang_getTypeSpelling(et);
                no(p, "'%s' into an element of type %s: CUDA has no atomicAdd for it", op, clang_getCString(s));
                clang_disposeString(s);
            } else if (!Q->parent || clang_isExpression(Q->parent->kind) || !Q->kid[0]->in_main || !Q->kid[1]->in_main ||
                       Q->kid[0]->e > Q->kid[1]->b || Q->kid[0]->b != Q->b) {
                no(p, "the value of a '%s' into a block is used, or it comes from a macro", op);
            } else {
                edit x;
                memset(&x, 0, sizeof x);
                x.b = Q->b;
                x.e = Q->e;
                x.kind = ED_ATOMIC;
                x.lhs = Q->kid[0];
                x.rhs = Q->kid[1];
                x.neg = op[0] == '-';
                x.ek = et.kind;
                add_edit(p, x);
            }
        } else {
            e.kind = K_STORE | K_READ;
        }
    } else if (Q && Q->kind == CXCursor_UnaryOperator) {
        const char *op = cc_unop(&p->u->ast, Q, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--") || !*op) e.kind = K_STORE | K_READ;
        else if (!strcmp(op, "&")) {
            free(e.ix);
            free(e.key);
            return no(p, "the address of an element of %s is taken", what);
        } else {
            e.kind = K_READ;
        }
    } else {
        e.kind = K_READ;
    }
    add_elem(p, e);
    return !p->why;
}

/* A math call whose arguments C converts to the parameter types: C++ would
 * pick another overload (fmin(int, int) is a host-only template), so the
 * kernel converts them explicitly, as C does. */
static void typed_call(plan *p, cc_node *call, cc_node *callee, CXCursor fn, const char *nm)
{
    CXType ft = clang_getCanonicalType(clang_getCursorType(fn));
    if (ft.kind != CXType_FunctionProto || !strncmp(nm, "__builtin_", 10) || !text_is(p, callee, nm) ||
        call->nkid != clang_getNumArgTypes(ft) + 1 || !call->in_main || callee->b != call->b)
        return;
    size_t at = callee->e;
    for (int i = 1; i < call->nkid; i++) {
        cc_node *a = call->kid[i];
        if (!a->in_main || a->b < at || a->e <= a->b || !scalar_name(clang_getArgType(ft, (unsigned)(i - 1)))) return;
        at = a->e;
    }
    edit x;
    memset(&x, 0, sizeof x);
    x.b = call->b;
    x.e = call->e;
    x.kind = ED_CALL;
    x.lhs = call;
    x.rhs = callee;
    x.ek = clang_getCanonicalType(ft).kind;
    add_edit(p, x);
}

static int pl_index(plan *p, CXCursor d)
{
    for (int i = 0; i < p->npl; i++)
        if (same_cursor(p->pl[i].d, d)) return i;
    return -1;
}

static int nest_visit(cc_node *n, void *arg)
{
    plan *p = arg;
    if (p->why) return 0;
    int k = block_use_node(p, n);
    if (k >= 0) {
        const cc_use *us = &p->t->use[k];
        add_text_edit(p, us->b, us->e, cc_fmt("tamm_b%d_", us->acc));
        char *w = cc_fmt("block %s", p->t->acc[us->acc].key);
        block_element(p, n, us->acc, w);
        free(w);
        return 0;
    }
    if (clang_isStatement(n->kind) || n->kind == CXCursor_VarDecl) {
        switch (n->kind) {
        case CXCursor_CompoundStmt: case CXCursor_ForStmt: case CXCursor_WhileStmt: case CXCursor_DoStmt:
        case CXCursor_IfStmt: case CXCursor_DeclStmt: case CXCursor_NullStmt: case CXCursor_ContinueStmt:
        case CXCursor_SwitchStmt: case CXCursor_CaseStmt: case CXCursor_DefaultStmt:
            return 1;
        case CXCursor_BreakStmt:
            for (cc_node *a = n->parent; a; a = a->parent) {
                if (a->kind == CXCursor_WhileStmt || a->kind == CXCursor_DoStmt || a->kind == CXCursor_SwitchStmt) break;
                if (a->kind == CXCursor_ForStmt) {
                    p->brk = realloc(p->brk, (size_t)(p->nbrk + 1) * sizeof *p->brk);
                    p->brk[p->nbrk++] = a;
                    break;
                }
            }
            return 1;
        case CXCursor_VarDecl: {
            char *nm = cc_spelling(n->c);
            if (!scalar_name(clang_getCursorType(n->c)) || clang_getCanonicalType(clang_getCursorType(n->c)).kind == CXType_Enum)
                no(p, "the nest declares '%s', which is not an arithmetic variable", nm);
            else if (cxx_reserved(nm)) no(p, "the nest declares '%s', a C++ keyword", nm);
            else if (clang_Cursor_getStorageClass(n->c) == CX_SC_Static) no(p, "the nest declares a static '%s'", nm);
            free(nm);
            return !p->why;
        }
        default:
            if (!clang_isExpression(n->kind)) {
                CXString s = clang_getCursorKindSpelling(n->kind);
                no(p, "the nest holds a %s", clang_getCString(s));
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
        int pi = pl_index(p, d), ci;
        if (pi >= 0) {
            char *w = cc_fmt("the block pointer '%s'", nm);
            block_element(p, n, p->pl[pi].acc, w);
            free(w);
        } else if (dk == CXCursor_EnumConstantDecl) {
            use_enum_const(p, n, d);
        } else if (dk == CXCursor_FunctionDecl) {
            cc_node *c = cc_up_wrappers(n)->parent;
            if (!c || c->kind != CXCursor_CallExpr || !math_fn(nm))
                no(p, "the nest calls %s(), which has no device version", nm);
            else
                typed_call(p, c, n, d, nm);
        } else if ((dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) && decl_in(p, d, p->nest->b, p->nest->e)) {
            /* a local of the nest: private to an iteration; remember stores (loop variables must not change) */
            cc_node *top = up_parens(n), *q = top->parent;
            int post;
            int store = 0;
            if (q && ((q->kind == CXCursor_BinaryOperator &&
                       (!strcmp(cc_binop(&p->u->ast, q), "=") || !*cc_binop(&p->u->ast, q))) ||
                      q->kind == CXCursor_CompoundAssignOperator) && q->kid[0] == top)
                store = 1;
            if (q && q->kind == CXCursor_UnaryOperator &&
                (!strcmp(cc_unop(&p->u->ast, q, &post), "++") || !strcmp(cc_unop(&p->u->ast, q, &post), "--")))
                store = 1;
            if (store) {
                p->asg = realloc(p->asg, (size_t)(p->nasg + 1) * sizeof *p->asg);
                p->asg[p->nasg++] = n;
            }
        } else if ((dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) && (ci = cap_index(p->t, d)) >= 0) {
            if (!scalar_name(p->t->cap[ci].type))
                no(p, "the nest uses '%s', a host pointer (only blocks are on the device)", nm);
            else p->capuse[ci] = 1;
        } else {
            no(p, "the nest uses '%s', which is neither captured nor local (a global?)", nm);
        }
        free(nm);
        return 0;
    }
    case CXCursor_TypeRef: use_typeref(p, n); return 0;
    case CXCursor_CallExpr: case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral:
    case CXCursor_CharacterLiteral: case CXCursor_ParenExpr: case CXCursor_UnaryOperator:
    case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator: case CXCursor_ConditionalOperator:
    case CXCursor_CStyleCastExpr: case CXCursor_UnexposedExpr: case CXCursor_ArraySubscriptExpr:
    case CXCursor_UnaryExpr:
        return 1;
    default: {
        CXString s = clang_getCursorKindSpelling(n->kind);
        no(p, "the nest holds a %s", clang_getCString(s));
        clang_disposeString(s);
        return 0;
    }
    }
}

/* May loop l become a grid-stride loop at all?  NULL if so, else why not.  (Whether its
 * iterations store to distinct elements is decided by distinct_cond below.) */
static char *structural(plan *p, const loop *l)
{
    for (int a = 0; a < p->t->nacc; a++) {
        int kinds = 0;
        const char *key = NULL;
        int same = 1;
        for (int i = 0; i < p->nel; i++) {
            if (p->el[i].acc != a || !cc_within(p->el[i].at, l->body)) continue;
            kinds |= p->el[i].kind;
            if (!key) key = p->el[i].key;
            else if (strcmp(key, p->el[i].key)) same = 0;
        }
        if (!(kinds & K_STORE) && !((kinds & K_ACC) && (kinds & K_READ))) continue;
        if (!same) return cc_fmt("block %s is stored to, and accessed at different elements", p->t->acc[a].key);
    }
    for (int i = 0; i < p->nbrk; i++)
        if (p->brk[i] == l->f) return cc_fmt("the loop over %s has a 'break'", l->name);
    for (int i = 0; i < p->nasg; i++)
        if (same_cursor(cc_referenced(p->asg[i]), l->var) && !cc_within(p->asg[i], l->f->kid[2]))
            return cc_fmt("the loop variable %s is assigned in the body", l->name);
    return NULL;
}

/* ---------------------------------------------------------------- distinct elements per iteration
 * A stored index is read as a polynomial over atoms: loop variables of the nest (the mapped loops,
 * and inner canonical loops with bounds fixed for the kernel) and captured integer variables (fixed
 * for the kernel); constants (literals, macros, enum constants) are evaluated.  Iterations i != i'
 * of a mapped loop store to distinct elements when some subscript is c * i + sum of c_w * w + rest,
 * every coefficient fixed, and |c| > sum of |c_w| * (trip count of w - 1) over the loop variables w
 * that may differ between the two iterations: then the two subscripts differ by at least |c| minus
 * what the other variables can make up.  The condition is decided at compile time when everything
 * in it is constant, else evaluated at launch; a grid mapping whose condition fails falls back to
 * fewer loops on the grid, or one thread (the grid-stride loops are right for any grid). */
enum { PT_MAX = 24, PA_MAX = 4, AT_MAX = 24 };
typedef struct { long long k; int na; int a[PA_MAX]; } pterm; /* k * atoms (sorted) */
typedef struct { int n; pterm t[PT_MAX]; } poly;
typedef struct {
    plan *p;
    int n;
    CXCursor c[AT_MAX];
    char *name[AT_MAX];
    int loopv[AT_MAX];        /* a loop variable (else a captured variable) */
    char *trip[AT_MAX];       /* a loop variable's trip count: a C expression, or NULL: unknown */
    long long ktrip[AT_MAX];  /* ... its value when constant (ctrip) */
    int ctrip[AT_MAX];
    cc_node *mn[64];          /* operators written in macros: the node, and its operator (macro_ops) */
    char mo[64][2];
    int nm;
} gctx;

static void poly_norm(poly *x)
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

static int poly_add(poly *r, const poly *a, const poly *b, long long sb)
{
    if (a->n + b->n > PT_MAX) return 0;
    poly x = *a;
    for (int i = 0; i < b->n; i++) { x.t[x.n] = b->t[i]; x.t[x.n++].k *= sb; }
    poly_norm(&x);
    *r = x;
    return 1;
}

static int poly_mul(poly *r, const poly *a, const poly *b)
{
    if (a->n * b->n > PT_MAX) return 0;
    poly x;
    x.n = 0;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            pterm t;
            if (a->t[i].na + b->t[j].na > PA_MAX) return 0;
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

static poly poly_const(long long k)
{
    poly x;
    x.n = k != 0;
    x.t[0].k = k;
    x.t[0].na = 0;
    return x;
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

/* ---- operators written in a macro's body: libclang 14 has no operator-kind API and the cursors
 * of a macro expansion all span the invocation.  The invocation is expanded here (parameters
 * substituted, macros in the body expanded in turn); the operator tokens of the expansion, in order,
 * are the operators of an in-order walk of the expression's AST.  Only + - * and parentheses,
 * identifiers, numbers and keywords (casts) may appear; anything else leaves the operators unknown. */
typedef struct { const char *name; size_t before; CXCursor def; int found; plan *p; } mdef_ctx;
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

typedef struct { char **t; int n; } toks;
static void toks_add(toks *x, const char *s)
{
    x->t = realloc(x->t, (size_t)(x->n + 1) * sizeof *x->t);
    x->t[x->n++] = strdup(s);
}
static void toks_free(toks *x) { for (int i = 0; i < x->n; i++) free(x->t[i]); free(x->t); x->t = NULL; x->n = 0; }

/* append the expansion of tokens in[0..n) (identifiers that are macros expanded) to out; 0 on failure */
static int expand_toks(plan *p, char **in, int n, size_t before, toks *out, int depth);
static int expand_macro(plan *p, CXCursor def, toks *args, int nargs, size_t before, toks *out, int depth)
{
    if (depth > 8) return 0;
    CXTranslationUnit tu = p->u->ast.tu;
    CXToken *tk;
    unsigned nt;
    clang_tokenize(tu, clang_getCursorExtent(def), &tk, &nt);
    toks params = { NULL, 0 }, body = { NULL, 0 };
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

static int expand_toks(plan *p, char **in, int n, size_t before, toks *out, int depth)
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

static void macro_ops(gctx *g, cc_node *n)
{
    plan *p = g->p;
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
        else if (!strcmp(w, "(") ) { depth++; toks_add(&args[na], w); }
        else if (!strcmp(w, ")")) { if (depth-- == 0) { na++; } else toks_add(&args[na], w); }
        else if (!strcmp(w, ",") && depth == 0) { if (++na >= 16) ok = 0; }
        else toks_add(&args[na], w);
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, tk, nt);
    if (!clang_Cursor_isMacroFunctionLike(def)) na = 0;
    toks out = { NULL, 0 };
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
static char *any_op(gctx *g, cc_node *n)
{
    int post;
    plan *p = g->p;
    const char *op = n->kind == CXCursor_BinaryOperator ? cc_binop(&p->u->ast, n) : cc_unop(&p->u->ast, n, &post);
    if (*op) return strdup(op);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < g->nm; i++)
            if (g->mn[i] == n) return strdup(g->mo[i]);
        if (!pass) macro_ops(g, n);
    }
    return NULL;
}

static int int_type_size(CXType t)
{
    CXType c = clang_getCanonicalType(t);
    if (c.kind == CXType_Enum) c = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
    if (!is_integer_kind(c.kind)) return 0;
    long long sz = clang_Type_getSizeOf(c);
    return sz > 0 ? (int)sz : 0;
}

static int atom_of(gctx *g, CXCursor d)
{
    for (int i = 0; i < g->n; i++)
        if (same_cursor(g->c[i], d)) return i;
    return -1;
}

static int poly_of(gctx *g, cc_node *n, poly *out)
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
        return poly_of(g, k, out);
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
        poly a, b;
        int ok = op && (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*")) && poly_of(g, n->kid[0], &a) &&
                 poly_of(g, n->kid[1], &b) && (op[0] == '*' ? poly_mul(out, &a, &b) : poly_add(out, &a, &b, op[0] == '-' ? -1 : 1));
        free(op);
        return ok;
    }
    case CXCursor_UnaryOperator: {
        if (n->nkid != 1) return 0;
        char *op = any_op(g, n);
        poly a;
        int ok = op && (!strcmp(op, "-") || !strcmp(op, "+")) && poly_of(g, n->kid[0], &a);
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

/* the polynomial has only captured variables (fixed for the kernel) */
static int poly_fixed(gctx *g, const poly *x)
{
    for (int i = 0; i < x->n; i++)
        for (int q = 0; q < x->t[i].na; q++)
            if (g->loopv[x->t[i].a[q]]) return 0;
    return 1;
}

static int poly_is_const(const poly *x, long long *k)
{
    if (x->n == 0) { *k = 0; return 1; }
    if (x->n == 1 && x->t[0].na == 0) { *k = x->t[0].k; return 1; }
    return 0;
}

static char *poly_str(gctx *g, const poly *x)
{
    if (!x->n) return strdup("0");
    char *r = strdup("");
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

/* |x| as C */
static char *abs_str(gctx *g, const poly *x)
{
    long long k;
    if (poly_is_const(x, &k)) return cc_fmt("%lld", k < 0 ? -k : k);
    char *s = poly_str(g, x), *r = cc_fmt("tamm_cc_abs(%s)", s);
    free(s);
    return r;
}

typedef struct gcond gcond;
static gcond gc_const(int v) { gcond c = { v, NULL }; return c; }
static gcond gc_bin(gcond a, gcond b, int and_)
{
    if (a.st == !and_ || b.st == !and_) { free(a.s); free(b.s); return gc_const(!and_); }
    if (a.st == and_) { free(a.s); return b; }
    if (b.st == and_) { free(b.s); return a; }
    gcond c = { -1, cc_fmt("(%s %s %s)", a.s, and_ ? "&&" : "||", b.s) };
    free(a.s);
    free(b.s);
    return c;
}

/* distinct subscript x for iterations that differ in loop variable v, where the loop variables in
 * `fixed` (a mask of atoms) are equal and every other loop variable may differ */
static gcond comp_cond(gctx *g, const poly *x, int v, unsigned fixed)
{
    poly c[AT_MAX];
    int used[AT_MAX] = { 0 };
    for (int a = 0; a < g->n; a++) c[a].n = 0;
    for (int i = 0; i < x->n; i++) {
        const pterm *t = &x->t[i];
        int lv = -1, nl = 0;
        for (int q = 0; q < t->na; q++)
            if (g->loopv[t->a[q]]) { lv = t->a[q]; nl++; }
        if (nl == 0) continue; /* fixed for the kernel: the same in both iterations */
        if (nl > 1) return gc_const(0); /* a product of loop variables */
        pterm r = *t;
        r.na = 0;
        for (int q = 0; q < t->na; q++)
            if (t->a[q] != lv) r.a[r.na++] = t->a[q];
        if (c[lv].n >= PT_MAX) return gc_const(0);
        c[lv].t[c[lv].n++] = r;
        used[lv] = 1;
    }
    if (!used[v]) return gc_const(0);
    for (int a = 0; a < g->n; a++) poly_norm(&c[a]);
    if (!c[v].n) return gc_const(0);
    long long kv, kw, lhsk = 0, rhsk = 0;
    int cst = poly_is_const(&c[v], &kv);
    if (cst) lhsk = kv < 0 ? -kv : kv;
    char *lhs = abs_str(g, &c[v]), *rhs = strdup("");
    for (int w = 0; w < g->n; w++) {
        if (w == v || !used[w] || (fixed >> w & 1u) || !c[w].n) continue;
        if (!g->trip[w]) { free(lhs); free(rhs); return gc_const(0); }
        char *cw = abs_str(g, &c[w]);
        int one = !strcmp(cw, "1");
        char *t = cc_fmt("%s%s%s%s(%s > 1 ? %s - 1 : 0)", rhs, *rhs ? " + " : "", one ? "" : cw, one ? "" : " * ", g->trip[w],
                         g->trip[w]);
        free(cw);
        free(rhs);
        rhs = t;
        if (cst && poly_is_const(&c[w], &kw) && g->ctrip[w]) rhsk += (kw < 0 ? -kw : kw) * (g->ktrip[w] > 1 ? g->ktrip[w] - 1 : 0);
        else cst = 0;
    }
    gcond r;
    if (cst) r = gc_const(lhsk > rhsk);
    else r = (gcond){ -1, *rhs ? cc_fmt("%s > %s", lhs, rhs) : cc_fmt("%s != 0", lhs) };
    free(lhs);
    free(rhs);
    return r;
}

/* the stored-to blocks' elements are distinct for iterations that differ in v (fixed: as above) */
static gcond distinct_cond(gctx *g, const loop *l0, int v, unsigned fixed, char **why)
{
    plan *p = g->p;
    gcond all = gc_const(1);
    for (int a = 0; a < p->t->nacc && all.st != 0; a++) {
        int kinds = 0, first = -1;
        for (int i = 0; i < p->nel; i++)
            if (p->el[i].acc == a && cc_within(p->el[i].at, l0->body)) {
                kinds |= p->el[i].kind;
                if (first < 0) first = i;
            }
        if (!(kinds & K_STORE) && !((kinds & K_ACC) && (kinds & K_READ))) continue;
        const elem *e = &p->el[first];
        gcond any = gc_const(0);
        for (int k = 0; k < e->nix && any.st != 1; k++) {
            poly x;
            if (!poly_of(g, e->ix[k], &x)) continue;
            any = gc_bin(any, comp_cond(g, &x, v, fixed), 0);
        }
        if (any.st == 0 && why && !*why)
            *why = cc_fmt("block %s is stored to at %s, not proven a distinct element for each %s", p->t->acc[a].key,
                          e->key, g->name[v]);
        all = gc_bin(all, any, 1);
    }
    return all;
}

typedef struct { cc_node **v; int n; } forlist;
static int collect_for(cc_node *n, void *arg)
{
    forlist *fs = arg;
    if (n->kind == CXCursor_ForStmt) {
        fs->v = realloc(fs->v, (size_t)(fs->n + 1) * sizeof *fs->v);
        fs->v[fs->n++] = n;
    }
    return 1;
}

/* the grid options of the nest (plan_nest): opt[2] both loops, opt[1] the outer, opt[3] the inner */
static void grid_options(plan *p, int two, char **why)
{
    gctx g;
    memset(&g, 0, sizeof g);
    g.p = p;
    cc_task *t = p->t;
    /* loop variables: the mapped loops, then inner canonical loops whose bounds are fixed for the kernel */
    for (int k = 0; k < 1 + two; k++) {
        g.c[g.n] = p->lp[k].var;
        g.name[g.n] = strdup(p->lp[k].name);
        g.loopv[g.n] = 1;
        g.trip[g.n] = cc_fmt("tamm_n%d_", k);
        g.n++;
    }
    /* captured integer variables that the nest does not assign */
    for (int i = 0; i < t->ncap && g.n < AT_MAX; i++) {
        if (!int_type_size(t->cap[i].type)) continue;
        int assigned = 0;
        for (int q = 0; q < p->nasg; q++) assigned |= same_cursor(cc_referenced(p->asg[q]), t->cap[i].decl);
        if (assigned) continue;
        g.c[g.n] = clang_getCanonicalCursor(t->cap[i].decl);
        g.name[g.n] = strdup(t->cap[i].name);
        g.n++;
    }
    /* trip counts of the mapped loops, when constant */
    for (int k = 0; k < 1 + two; k++) {
        poly lb, ub, d;
        long long kk;
        if (poly_of(&g, p->lp[k].lb, &lb) && poly_of(&g, p->lp[k].ub, &ub) && poly_add(&d, &ub, &lb, -1) &&
            poly_is_const(&d, &kk)) {
            g.ctrip[k] = 1;
            g.ktrip[k] = kk + p->lp[k].le;
        }
    }
    /* inner loops */
    forlist fs = { NULL, 0 };
    cc_walk(p->lp[0].body, collect_for, &fs);
    for (int i = 0; i < fs.n && g.n < AT_MAX; i++) {
        loop l;
        if (two && fs.v[i] == p->lp[1].f) continue;
        if (!parse_for(p, fs.v[i], &l)) continue;
        int assigned = 0;
        for (int q = 0; q < p->nasg; q++)
            assigned |= same_cursor(cc_referenced(p->asg[q]), l.var) && !cc_within(p->asg[q], l.f->kid[2]);
        poly lb, ub, d;
        if (!assigned && poly_of(&g, l.lb, &lb) && poly_of(&g, l.ub, &ub) && poly_fixed(&g, &lb) && poly_fixed(&g, &ub) &&
            poly_add(&d, &ub, &lb, -1)) {
            if (l.le) { poly one = poly_const(1); poly_add(&d, &d, &one, 1); }
            long long kk;
            g.c[g.n] = l.var;
            g.name[g.n] = strdup(l.name);
            g.loopv[g.n] = 1;
            g.trip[g.n] = poly_str(&g, &d);
            if ((g.ctrip[g.n] = poly_is_const(&d, &kk))) g.ktrip[g.n] = kk;
            g.n++;
        }
        free(l.name);
    }
    free(fs.v);
    p->opt[1] = distinct_cond(&g, &p->lp[0], 0, 0, why);
    if (two) {
        gcond a = gc_bin(distinct_cond(&g, &p->lp[0], 0, 0, NULL), distinct_cond(&g, &p->lp[0], 1, 1u << 0, NULL), 1);
        gcond b = gc_bin(distinct_cond(&g, &p->lp[0], 1, 0, NULL), distinct_cond(&g, &p->lp[0], 0, 1u << 1, NULL), 1);
        p->opt[2] = gc_bin(a, b, 0);
        p->opt[3] = distinct_cond(&g, &p->lp[0], 1, 0, NULL);
    }
    /* Two accesses are the same block when their indices are equal at run time (tamm_cc_get serves
     * one buffer): the analysis above is per access, so such a pair, one of them stored to, must
     * not share a buffer on the grid (else one thread, in the CPU variant's order). */
    int kinds[64] = { 0 };
    for (int i = 0; i < p->nel; i++)
        if (p->el[i].acc < 64 && cc_within(p->el[i].at, p->lp[0].body)) kinds[p->el[i].acc] |= p->el[i].kind;
    gcond alias = gc_const(1);
    for (int a = 0; a < t->nacc && a < 64; a++)
        for (int b = a + 1; b < t->nacc && b < 64; b++) {
            int k = kinds[a] | kinds[b];
            if (!kinds[a] || !kinds[b] || !t->acc[a].fetched || !t->acc[b].fetched) continue;
            if (!(k & K_STORE) && !((k & K_ACC) && (k & K_READ))) continue;
            alias = gc_bin(alias, (gcond){ -1, cc_fmt("tamm_b%d_ != tamm_b%d_", a, b) }, 1);
        }
    free(p->alias.s);
    p->alias = alias;
    for (int i = 0; i < g.n; i++) { free(g.name[i]); free(g.trip[i]); }
}


static cc_node *single(cc_node *s)
{
    while (s && s->kind == CXCursor_CompoundStmt && s->nkid == 1) s = s->kid[0];
    return s;
}

static int plan_nest(plan *p)
{
    cc_task *t = p->t;
    cc_node *s = t->stmt, *nest = NULL;
    if (s->kind == CXCursor_ForStmt) {
        nest = s;
    } else if (s->kind == CXCursor_CompoundStmt) {
        for (int i = 0; i < s->nkid; i++) {
            cc_node *k = s->kid[i];
            if (k->kind == CXCursor_NullStmt) continue;
            if (nest) return no(p, "the body has statements after its loop nest");
            if (k->kind == CXCursor_ForStmt) { nest = k; continue; }
            if (k->kind != CXCursor_DeclStmt)
                return no(p, "the body is neither a call of a function with a TAMM_CUDA_VARIANT nor a loop nest over "
                             "block elements (line %u: only block pointer declarations may come before the nest)",
                          cc_line_of(&p->u->src, k->b));
            for (int j = 0; j < k->nkid; j++) {
                cc_node *vd = k->kid[j];
                char *nm = cc_spelling(vd->c);
                char *decl = vd->kind == CXCursor_VarDecl ? cu_decl(clang_getCursorType(vd->c), nm) : NULL;
                cc_node *init = vd->nkid && clang_isExpression(vd->kid[vd->nkid - 1]->kind) ? vd->kid[vd->nkid - 1] : NULL;
                int ui = init ? block_use_node(p, down(init)) : -1;
                if (!decl || ui < 0 || clang_getCanonicalType(clang_getCursorType(vd->c)).kind != CXType_Pointer ||
                    cxx_reserved(nm)) {
                    no(p, "the body declares '%s' before its loop nest, which is not a block pointer (T *p = tamm_block(...))", nm);
                    free(nm);
                    free(decl);
                    return 0;
                }
                p->pl = realloc(p->pl, (size_t)(p->npl + 1) * sizeof *p->pl);
                p->pl[p->npl].d = clang_getCanonicalCursor(vd->c);
                p->pl[p->npl].decl = decl;
                p->pl[p->npl].name = nm;
                p->pl[p->npl].acc = t->use[ui].acc;
                p->npl++;
            }
        }
    }
    if (!nest)
        return no(p, "the body is neither a call of a function with a TAMM_CUDA_VARIANT nor a loop nest over block "
                     "elements");
    p->nest = nest;
    if (!parse_for(p, nest, &p->lp[0]))
        return no(p, "the loop nest's outer loop is not canonical (for (T i = lb; i < ub; i++))");
    p->capuse = calloc((size_t)(t->ncap ? t->ncap : 1), sizeof *p->capuse);
    cc_walk(nest, nest_visit, p);
    if (p->why) return 0;
    if (!p->nel) return no(p, "the loop nest does not access any block element");
    if (!host_expr(p, p->lp[0].lb, 1) || !host_expr(p, p->lp[0].ub, 1)) return 0;
    char *w = structural(p, &p->lp[0]);
    if (w) {
        no(p, "the outer loop (over %s) is not independent: %s", p->lp[0].name, w);
        free(w);
        return 0;
    }
    int two = 0;
    cc_node *in = single(p->lp[0].body);
    loop l1;
    if (in && parse_for(p, in, &l1)) {
        int ok;
        /* the inner bounds must not depend on the outer variable, and be computable at submission */
        char *saved = p->why;
        int ned = p->ned;
        ok = host_expr(p, l1.lb, 1) && host_expr(p, l1.ub, 1);
        if (!ok) { /* not an error: the inner loop just stays sequential */
            free(p->why);
            p->why = saved;
            for (int i = ned; i < p->ned; i++) free(p->ed[i].text);
            p->ned = ned;
        }
        if (ok) {
            char *w1 = structural(p, &l1);
            if (w1) ok = 0;
            free(w1);
        }
        if (ok) {
            p->lp[1] = l1;
            two = 1;
        } else {
            free(l1.name);
        }
    }
    char *why = NULL;
    grid_options(p, two, &why);
    if (two && p->opt[2].st == 0 && p->opt[3].st == 0) { /* the inner loop never goes on the grid: sequential */
        free(p->lp[1].name);
        memset(&p->lp[1], 0, sizeof p->lp[1]);
        for (int i = 0; i < 4; i++) { free(p->opt[i].s); p->opt[i].s = NULL; p->opt[i].st = 0; }
        free(why);
        why = NULL;
        two = 0;
        grid_options(p, 0, &why);
    }
    if (p->opt[1].st == 0 && !two) {
        no(p, "the outer loop (over %s) is not independent: %s", p->lp[0].name, why ? why : "its stores are not distinct");
        free(why);
        return 0;
    }
    p->nmap = 1 + two;
    /* --explain: the options in the order the launch tries them */
    static const int order[3] = { 2, 1, 3 };
    char *g = strdup("");
    int settled = 0;
    for (int k = 0; k < 3 && !settled; k++) {
        const struct gcond *c = &p->opt[order[k]];
        if (c->st == 0 || (order[k] != 1 && !two)) continue;
        char *what = order[k] == 2 ? cc_fmt("%s (y) and %s (x)", p->lp[0].name, p->lp[1].name)
                                   : strdup(p->lp[order[k] == 1 ? 0 : 1].name);
        char *t = cc_fmt("%s%s%s%s%s", g, *g ? "; else " : "", what, c->st == 1 ? "" : " if ", c->st == 1 ? "" : c->s);
        free(what);
        free(g);
        g = t;
        settled = c->st == 1;
    }
    if (!settled) {
        char *t = cc_fmt("%s; else one thread", g);
        free(g);
        g = t;
    }
    if (p->alias.st == -1) {
        char *t = cc_fmt("%s (only if %s: two accesses that reach one block at run time share its buffer; else one thread)", g,
                         p->alias.s);
        free(g);
        g = t;
    }
    p->grid_why = cc_fmt("on the grid: %s%s%s%s", g, why ? " (" : "", why ? why : "", why ? ")" : "");
    free(g);
    free(why);
    p->form = 2;
    return 1;
}

/* ---------------------------------------------------------------- the analysis */
static int plan_task(cc_unit *u, cc_task *t, plan *p)
{
    memset(p, 0, sizeof *p);
    p->u = u;
    p->t = t;
    if (t->pr->has_device && t->pr->device == CC_DEV_CPU) return no(p, "device(cpu)");
    if (t->nkids || t->nwait)
        return no(p, "the task %s: its CUDA variant would have to run host code between kernels",
                  t->nkids ? "submits nested tasks" : "has a taskwait");
    if (t->pr->collective) return no(p, "a collective task runs on CPUs");
    for (int i = 0; i < t->nacc; i++) {
        if (!t->acc[i].fetched && !(t->acc[i].mode & CC_PERMONLY))
            return no(p, "block %s is not obtained at the start of the task (%s)", t->acc[i].key,
                      t->acc[i].sync ? t->acc[i].sync : "its indices vary in the body");
    }
    for (int i = 0; i < t->ncap; i++) {
        char *d = cu_decl(t->cap[i].type, t->cap[i].name);
        CXType c = clang_getCanonicalType(t->cap[i].type);
        int ok = d != NULL && !(c.kind == CXType_Pointer &&
                                clang_getCanonicalType(clang_getPointeeType(c)).kind == CXType_ConstantArray);
        free(d);
        if (!ok) {
            CXString s = clang_getTypeSpelling(t->cap[i].type);
            no(p, "the task captures '%s' of type '%s' (only arithmetic values, pointers to them and tensors can go "
                  "to the CUDA file)", t->cap[i].name, clang_getCString(s));
            clang_disposeString(s);
            return 0;
        }
        if (cxx_reserved(t->cap[i].name)) return no(p, "the task captures '%s', a C++ keyword", t->cap[i].name);
    }
    if (t->npre) {
        for (int i = 0; i < t->npre; i++)
            if (strstr(t->pre[i], "struct") || strstr(t->pre[i], "union"))
                return no(p, "the body uses a local struct or union type");
    }
    /* form C: a body of BLAS and LAPACK calls (cuda_blas.c); -1: it is one, and p->why says why not */
    int bl = cc_blas_plan(u, t, &p->blas, &p->why);
    if (bl) return bl > 0 && (p->form = 3);
    cc_node *s = single(t->stmt);
    cc_node *c = s ? down(s) : NULL;
    if (c && c->kind == CXCursor_CallExpr && block_use_node(p, c) < 0) return plan_call(p, c);
    return plan_nest(p);
}

void cc_cuda_decide(cc_unit *u, cc_task *t)
{
    plan p;
    free(t->cuda_why);
    t->cuda_why = NULL;
    t->has_cuda = plan_task(u, t, &p) && !p.why;
    if (!t->has_cuda) t->cuda_why = strdup(p.why ? p.why : "no CUDA variant");
    free(t->cuda_grid);
    t->cuda_grid = t->has_cuda && p.grid_why ? strdup(p.grid_why) : NULL;
    for (int i = 0; i < t->nacc && t->has_cuda; i++)
        if (t->acc[i].guard) { /* the CUDA variant would need its blocks whatever the branches */
            t->has_cuda = 0;
            t->cuda_why = cc_fmt("block %s is requested only if %s (a guarded block: the CPU variant fetches it under "
                                 "its guard)", t->acc[i].key, t->acc[i].guard);
        }
    plan_free(&p);
}

/* ---------------------------------------------------------------- emission */
static int cmp_edit(const void *x, const void *y)
{
    const edit *a = x, *b = y;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    return a->e > b->e ? -1 : a->e < b->e ? 1 : 0;
}

static void emit_text(cc_out *o, plan *p, size_t b, size_t e);

static void pad_lines(cc_out *o, plan *p, size_t b, size_t e)
{
    for (unsigned n = cc_count_nl(p->u->ast.text, b, e); n; n--) cc_puts(o, "\n");
}

static void emit_edit(cc_out *o, plan *p, edit *x)
{
    if (x->kind == ED_TEXT) {
        cc_puts(o, x->text);
        pad_lines(o, p, x->b, x->e);
        return;
    }
    if (x->kind == ED_CALL) {
        cc_node *c = x->lhs;
        CXType ft = clang_getCanonicalType(clang_getCursorType(cc_referenced(x->rhs)));
        emit_text(o, p, x->rhs->b, x->rhs->e);
        cc_puts(o, "(");
        for (int i = 1; i < c->nkid; i++) {
            cc_printf(o, "%s(%s)(", i > 1 ? ", " : "", scalar_name(clang_getArgType(ft, (unsigned)(i - 1))));
            emit_text(o, p, c->kid[i]->b, c->kid[i]->e);
            cc_puts(o, ")");
        }
        cc_puts(o, ")");
        pad_lines(o, p, x->rhs->e, x->e);
        return;
    }
    /* lhs += rhs  ->  atomicAdd(&(lhs), (T)(rhs)) */
    const char *T = arith_name(x->ek);
    int wide = x->ek == CXType_Long || x->ek == CXType_ULong || x->ek == CXType_LongLong || x->ek == CXType_ULongLong;
    if (wide) cc_puts(o, "atomicAdd((unsigned long long *)&(");
    else if (x->neg && (x->ek == CXType_Int || x->ek == CXType_UInt)) cc_puts(o, "atomicSub(&(");
    else cc_puts(o, "atomicAdd(&(");
    emit_text(o, p, x->lhs->b, x->lhs->e);
    if (wide) cc_printf(o, "), %s(unsigned long long)(long long)(", x->neg ? "(unsigned long long)0 - " : "");
    else if (x->neg && (x->ek == CXType_Float || x->ek == CXType_Double)) cc_printf(o, "), -(%s)(", T);
    else cc_printf(o, "), (%s)(", T);
    emit_text(o, p, x->rhs->b, x->rhs->e);
    cc_puts(o, "))");
    pad_lines(o, p, x->lhs->e, x->rhs->b);
    pad_lines(o, p, x->rhs->e, x->e);
}

static void emit_text(cc_out *o, plan *p, size_t b, size_t e)
{
    const char *s = p->u->ast.text;
    size_t pos = b;
    for (int i = 0; i < p->ned; i++) {
        edit *x = &p->ed[i];
        if (x->b < pos || x->e > e || x->b >= e) continue;
        cc_putn(o, s + pos, x->b - pos);
        emit_edit(o, p, x);
        pos = x->e;
    }
    if (pos < e) cc_putn(o, s + pos, e - pos);
}

static void emit_how(cc_out *o, const cc_task *t, int i)
{
    char *how = cc_access_how(t, i, "tamm_a_");
    cc_puts(o, how);
    free(how);
}

/* the struct of emit_c.c, field for field */
static void emit_args_struct(cc_out *o, cc_task *t)
{
    cc_printf(o, "struct %s_args {\n", t->name);
    for (int i = 0; i < t->ncap; i++) {
        char *d = cu_decl(t->cap[i].type, t->cap[i].field);
        cc_printf(o, "    %s;\n", d);
        free(d);
    }
    for (int i = 0; i < t->nacc; i++) {
        cc_printf(o, "    tamm_tensor *tamm_T%d;", i);
        if (t->acc[i].nidx) cc_printf(o, " long tamm_i%d[%d];", i, t->acc[i].nidx);
        if ((t->acc[i].mode & 7u) == CC_WRITE && t->acc[i].cov && !t->acc[i].explicit_mode) cc_printf(o, " unsigned tamm_m%d;", i);
        cc_printf(o, "  /* %s */\n", t->acc[i].key);
    }
    if (t->ncap == 0 && t->nacc == 0) cc_puts(o, "    char tamm_unused;\n");
    cc_puts(o, "};\n\n");
}

static void emit_host_prologue(cc_out *o, cc_task *t)
{
    cc_printf(o, "extern \"C\" void %s(tamm_ctx *tamm_ctx_, void *tamm_args_)\n{\n", t->cuda_sym);
    for (int i = 0; i < t->npre; i++) cc_printf(o, "    %s;  /* from %s() */\n", t->pre[i], t->fname);
    cc_printf(o, "    struct %s_args *tamm_a_ = (struct %s_args *)tamm_args_;\n", t->name, t->name);
    for (int i = 0; i < t->ncap; i++) {
        char *d = cu_decl(t->cap[i].type, t->cap[i].name);
        cc_printf(o, "    %s = tamm_a_->%s;\n", d, t->cap[i].field);
        free(d);
    }
    for (int i = 0; i < t->nacc; i++) {
        if (!t->acc[i].fetched) continue;
        cc_printf(o, "    void *tamm_b%d_ = tamm_cc_get(tamm_ctx_, tamm_a_->tamm_T%d, ", i, i);
        if (t->acc[i].nidx) cc_printf(o, "tamm_a_->tamm_i%d, ", i);
        else cc_puts(o, "NULL, ");
        emit_how(o, t, i);
        cc_printf(o, ");  /* %s */\n", t->acc[i].key);
    }
    /* a buffer the GPU could not provide (TAMM_ON_ERROR=return: the runtime reported the task's
     * error) never reaches a kernel as NULL: nothing is launched */
    int nf = 0;
    for (int i = 0; i < t->nacc; i++) nf += t->acc[i].fetched;
    if (nf) {
        cc_puts(o, "    if (");
        for (int i = 0, k = 0; i < t->nacc; i++)
            if (t->acc[i].fetched) cc_printf(o, "%s!tamm_b%d_", k++ ? " || " : "", i);
        cc_puts(o, ") {  /* no buffer: the task's error says why; nothing runs */\n");
        for (int i = t->nacc - 1; i >= 0; i--)
            if (t->acc[i].fetched) {
                cc_printf(o, "        tamm_cc_release(tamm_ctx_, &tamm_b%d_, ", i);
                emit_how(o, t, i);
                cc_puts(o, ");\n");
            }
        cc_puts(o, "        return;\n    }\n");
    }
    if (t->ncap) {
        cc_puts(o, "   ");
        for (int i = 0; i < t->ncap; i++) cc_printf(o, " (void)%s;", t->cap[i].name);
        cc_puts(o, "\n");
    }
}

static void emit_host_epilogue(cc_out *o, cc_task *t)
{
    for (int i = t->nacc - 1; i >= 0; i--)
        if (t->acc[i].fetched) {
            cc_printf(o, "    tamm_cc_release(tamm_ctx_, &tamm_b%d_, ", i);
            emit_how(o, t, i);
            cc_puts(o, ");\n");
        }
    cc_puts(o, "}\n");
}

static void indent_to(cc_out *o, plan *p, size_t off)
{
    size_t ls = off;
    while (ls > 0 && p->u->ast.text[ls - 1] != '\n') ls--;
    for (size_t i = ls; i < off; i++) cc_putn(o, p->u->ast.text[i] == '\t' ? "\t" : " ", 1);
}

static void emit_call(cc_out *o, plan *p)
{
    cc_task *t = p->t;
    cc_unit *u = p->u;
    emit_host_prologue(o, t);
    char *fn = cc_spelling(cc_referenced(p->call));
    cc_printf(o, "    /* %s() has TAMM_CUDA_VARIANT(%s) */\n", fn, p->g);
    free(fn);
    cc_line_to(o, cc_line_of(&u->src, p->call->b), u->src.name);
    indent_to(o, p, p->call->b);
    cc_printf(o, p->gstatus ? "long long tamm_st_ = (long long)%s(" : "%s(", p->g);
    for (int i = 0; i < p->nparams; i++) {
        if (i) cc_puts(o, ", ");
        cc_node *a = p->call->kid[i + 1];
        emit_text(o, p, a->b, a->e);
    }
    cc_puts(o, ");");
    cc_line_self(o);
    if (p->gstatus) { /* the variant's status: nonzero is the task's error */
        cc_puts(o, "    if (tamm_st_ != 0) {\n        char tamm_m_[256];\n");
        cc_printf(o, "        snprintf(tamm_m_, sizeof tamm_m_, \"the CUDA variant %s() returned %%lld\", tamm_st_);\n", p->g);
        cc_puts(o, "        (void)tamm_task_error(tamm_ctx_, TAMM_EDEVICE, tamm_m_);\n    }\n");
    }
    emit_host_epilogue(o, t);
}

/* A grid-stride loop.  It counts in a 64-bit index, whatever the loop variable's type: the
 * stride blockDim * gridDim converted to a char or short can be zero or negative (an endless
 * kernel), and an int index can overflow past the bound.  The loop variable is that index
 * converted back, once per iteration. */
static void emit_loop_header(cc_out *o, plan *p, const loop *l, int k, char axis)
{
    const char *W = !strcmp(l->type, "unsigned long") || !strcmp(l->type, "unsigned long long") ? "unsigned long long"
                                                                                                 : "long long";
    cc_printf(o, "for (%s tamm_k%d_ = (%s)(", W, k, W);
    emit_text(o, p, l->lb->b, l->lb->e);
    cc_printf(o, ") + (%s)(blockIdx.%c * blockDim.%c + threadIdx.%c); tamm_k%d_ %s (%s)(", W, axis, axis, axis, k,
              l->le ? "<=" : "<", W);
    emit_text(o, p, l->ub->b, l->ub->e);
    cc_printf(o, "); tamm_k%d_ += (%s)blockDim.%c * gridDim.%c) { %s %s = (%s)tamm_k%d_;", k, W, axis, axis, l->type,
              l->name, l->type, k);
}

static void emit_nest(cc_out *o, plan *p)
{
    cc_task *t = p->t;
    cc_unit *u = p->u;
    /* the kernel */
    cc_printf(o, "static __global__ void %s_kernel(", t->name);
    int first = 1;
    for (int i = 0; i < t->ncap; i++) {
        if (!p->capuse[i]) continue;
        char *d = cu_decl(t->cap[i].type, t->cap[i].name);
        cc_printf(o, "%s%s", first ? "" : ", ", d);
        free(d);
        first = 0;
    }
    for (int i = 0; i < t->nacc; i++)
        if (t->acc[i].fetched) {
            cc_printf(o, "%svoid *tamm_b%d_", first ? "" : ", ", i);
            first = 0;
        }
    if (first) cc_puts(o, "void");
    cc_puts(o, ")\n{\n");
    for (int i = 0; i < t->npre; i++) cc_printf(o, "    %s;  /* from %s() */\n", t->pre[i], t->fname);
    for (int i = 0; i < p->npl; i++) {
        char *cast = cu_decl(clang_getCursorType(p->pl[i].d), "");
        cc_printf(o, "    %s = (%s)tamm_b%d_;\n    (void)%s;\n", p->pl[i].decl, cast, p->pl[i].acc, p->pl[i].name);
        free(cast);
    }
    const loop *l0 = &p->lp[0], *l1 = p->nmap > 1 ? &p->lp[1] : NULL;
    cc_line_to(o, cc_line_of(&u->src, l0->f->b), u->src.name);
    indent_to(o, p, l0->f->b);
    emit_loop_header(o, p, l0, 0, l1 ? 'y' : 'x');
    if (l1) {
        cc_line_to(o, cc_line_of(&u->src, l1->f->b), u->src.name);
        indent_to(o, p, l1->f->b);
        emit_loop_header(o, p, l1, 1, 'x');
    }
    cc_node *body = (l1 ? l1 : l0)->body;
    cc_line_to(o, cc_line_of(&u->src, body->b), u->src.name);
    indent_to(o, p, body->b);
    emit_text(o, p, body->b, cc_stmt_end(u, body));
    cc_line_self(o);
    cc_puts(o, l1 ? "    }}\n}\n\n" : "    }\n}\n\n");
    /* the host variant */
    emit_host_prologue(o, t);
    cc_printf(o, "    {   /* the loop over %s%s%s%s on the grid */\n", l0->name, l1 ? " (y) and over " : "", l1 ? l1->name : "",
              l1 ? " (x)" : "");
    for (int k = 0; k < p->nmap; k++) {
        const loop *l = &p->lp[k];
        cc_printf(o, "        long long tamm_n%d_ = (long long)(", k);
        emit_text(o, p, l->ub->b, l->ub->e);
        cc_puts(o, ") - (long long)(");
        emit_text(o, p, l->lb->b, l->lb->e);
        cc_printf(o, ")%s;\n", l->le ? " + 1" : "");
    }
    cc_printf(o, "        if (tamm_n0_ > 0%s) {\n", l1 ? " && tamm_n1_ > 0" : "");
    cc_puts(o, "            cudaStream_t tamm_s_ = (cudaStream_t)tamm_cuda_stream();  /* NULL: the default stream */\n");
    /* the first option whose condition holds (tammcc proved it, or it is checked here); else one thread */
    static const int order[3] = { 2, 1, 3 };
    int opened = 0;
    for (int k = 0; k < 3; k++) {
        struct gcond both = gc_bin((gcond){ p->alias.st, p->alias.s ? strdup(p->alias.s) : NULL },
                                   (gcond){ p->opt[order[k]].st, p->opt[order[k]].s ? strdup(p->opt[order[k]].s) : NULL }, 1);
        struct gcond *c = &both;
        if (c->st == 0 || (order[k] != 1 && !l1)) { free(both.s); continue; }
        char gx[96], gy[96];
        int bx = order[k] == 2 ? 32 : order[k] == 3 ? 256 : l1 ? 1 : 256, by = order[k] == 2 ? 8 : order[k] == 1 && l1 ? 256 : 1;
        const char *nx = l1 ? "tamm_n1_" : "tamm_n0_";
        if (bx == 1) snprintf(gx, sizeof gx, "1");
        else snprintf(gx, sizeof gx, "(unsigned)(%s < 65535LL * %d ? (%s + %d) / %d : 65535)", nx, bx, nx, bx - 1, bx);
        if (by == 1) snprintf(gy, sizeof gy, "1");
        else snprintf(gy, sizeof gy, "(unsigned)(tamm_n0_ < 65535LL * %d ? (tamm_n0_ + %d) / %d : 65535)", by, by - 1, by);
        if (!opened && c->st == 1) { /* proved: the one grid */
            if (l1) cc_printf(o, "            dim3 tamm_blk_(%d, %d);\n            dim3 tamm_grd_(%s,\n                           %s);\n",
                              bx, by, gx, gy);
            else cc_printf(o, "            dim3 tamm_blk_(%d);\n            dim3 tamm_grd_(%s);\n", bx, gx);
            opened = 2;
            free(both.s);
            break;
        }
        if (!opened) {
            cc_printf(o, "            /* %s */\n", p->grid_why);
            cc_puts(o, "            dim3 tamm_blk_(1, 1), tamm_grd_(1, 1);  /* one thread: the loops run in order */\n");
            cc_puts(o, "            ");
            opened = 1;
        } else {
            cc_puts(o, " else ");
        }
        if (c->st == 1) cc_puts(o, "{\n");
        else cc_printf(o, "if (%s) {\n", c->s);
        if (l1) cc_printf(o, "                tamm_blk_ = dim3(%d, %d);\n                tamm_grd_ = dim3(%s, %s);\n", bx, by, gx, gy);
        else cc_printf(o, "                tamm_blk_ = dim3(%d);\n                tamm_grd_ = dim3(%s);\n", bx, gx);
        cc_puts(o, "            }");
        int last = c->st == 1;
        free(both.s);
        if (last) { opened = 2; cc_puts(o, "\n"); break; }
    }
    if (opened == 1) cc_puts(o, "\n");
    cc_puts(o, "            (void)cudaGetLastError();  /* an earlier error (recovered from) is not this launch's */\n");
    cc_printf(o, "            TAMM_CUDA_LAUNCH(%s_kernel, tamm_grd_, tamm_blk_, tamm_s_", t->name);
    for (int i = 0; i < t->ncap; i++)
        if (p->capuse[i]) cc_printf(o, ", %s", t->cap[i].name);
    for (int i = 0; i < t->nacc; i++)
        if (t->acc[i].fetched) cc_printf(o, ", tamm_b%d_", i);
    cc_puts(o, ");\n");
    /* a failed launch is the task's error (docs/errors.md, TAMM_EDEVICE), not a line on stderr */
    cc_puts(o, "            cudaError_t tamm_e_ = cudaGetLastError();\n"
               "            if (tamm_e_ != cudaSuccess) {\n"
               "                char tamm_m_[256];\n"
               "                snprintf(tamm_m_, sizeof tamm_m_, \"kernel launch failed: %s\", cudaGetErrorString(tamm_e_));\n"
               "                (void)tamm_task_error(tamm_ctx_, TAMM_EDEVICE, tamm_m_);\n"
               "            }\n        }\n    }\n");
    emit_host_epilogue(o, t);
}

/* The user's #define lines, in the order the preprocessor met them: the main file's, and those of
 * the headers it includes that are not system headers (the code copied into the kernels may use
 * any of them; the .cu does not include the user's headers, which may not be C++).  Macros of
 * tamm.h (TAMM_, tamm_) and reserved names (__) are left to the headers the .cu includes. */
static void emit_define(cc_out *o, const char *nm, const char *txt, size_t b, size_t len)
{
    size_t x = b; /* the extent may stop before the last token of the body: take the rest of the line */
    while (x < len && txt[x] != '\n') {
        if (txt[x] == '\\' && x + 1 < len && txt[x + 1] == '\n') x++;
        x++;
    }
    cc_printf(o, "#undef %s\n#define ", nm);
    cc_putn(o, txt + b, x - b);
    cc_puts(o, "\n");
}

static enum CXChildVisitResult macro_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    void **a = d;
    cc_unit *u = a[0];
    cc_out *o = a[1];
    if (clang_getCursorKind(c) != CXCursor_MacroDefinition || clang_Cursor_isMacroBuiltin(c)) return CXChildVisit_Continue;
    size_t b, e;
    char *nm = cc_spelling(c);
    if (cc_extent(&u->ast, c, &b, &e)) {
        if (e > b) emit_define(o, nm, u->ast.text, b, u->ast.len);
    } else if (strncmp(nm, "TAMM_", 5) && strncmp(nm, "tamm_", 5) && strncmp(nm, "__", 2)) {
        CXSourceLocation l = clang_getRangeStart(clang_getCursorExtent(c));
        CXFile f;
        unsigned off;
        size_t len;
        clang_getFileLocation(l, &f, NULL, NULL, &off);
        const char *txt = f && !clang_Location_isInSystemHeader(l) ? clang_getFileContents(u->ast.tu, f, &len) : NULL;
        if (txt && off < len) emit_define(o, nm, txt, off, len);
    }
    free(nm);
    return CXChildVisit_Continue;
}

int cc_emit_cuda(cc_unit *u, cc_out *o)
{
    int n = 0, nblas = 0;
    plan *ps = calloc((size_t)(u->ntasks ? u->ntasks : 1), sizeof *ps);
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        if (!t->has_cuda) continue;
        if (plan_task(u, t, &ps[i]) && !ps[i].why) n++, nblas += ps[i].form == 3;
        else t->has_cuda = 0; /* cannot happen: the same analysis decided */
    }
    if (!n) {
        free(ps);
        return 0;
    }
    cc_printf(o, "/* Generated by tammcc from %s: do not edit.  The CUDA variants of its tasks\n"
                 " * (SPEC 3.4); #line directives point back at %s. */\n", u->src.name, u->src.name);
    /* nvcc: the CUDA runtime; a host C++ compiler: the emulation that runs the kernels on the host */
    cc_puts(o, "#ifdef __CUDACC__\n#include <cuda_runtime.h>\n#else\n#include <tamm_cuda_emu.h>\n#endif\n"
               "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <tamm_cc.h>\n");
    cc_puts(o, nblas ? "#include <tamm_blas_cuda.h>\n\n" : "\n");
    cc_puts(o, "/* the #define lines of the source file and of its own (non-system) headers */\n");
    void *a[2] = { u, o };
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), macro_visit, a);
    /* file-scope enums the variants use, in source order */
    size_t (*en)[2] = NULL;
    int nen = 0;
    for (int i = 0; i < u->ntasks; i++)
        for (int k = 0; k < ps[i].nen; k++) {
            int seen = 0;
            for (int j = 0; j < nen; j++) seen |= en[j][0] == ps[i].en[k][0];
            if (seen) continue;
            en = realloc(en, (size_t)(nen + 1) * sizeof *en);
            en[nen][0] = ps[i].en[k][0];
            en[nen][1] = ps[i].en[k][1];
            nen++;
        }
    for (int i = 0; i < nen; i++)
        for (int j = i + 1; j < nen; j++)
            if (en[j][0] < en[i][0]) {
                size_t b = en[i][0], e = en[i][1];
                en[i][0] = en[j][0]; en[i][1] = en[j][1];
                en[j][0] = b; en[j][1] = e;
            }
    if (nen) cc_puts(o, "\n/* enums of the source file */\n");
    for (int i = 0; i < nen; i++) {
        cc_line_to(o, cc_line_of(&u->src, en[i][0]), u->src.name);
        cc_putn(o, u->ast.text + en[i][0], en[i][1] - en[i][0]);
        cc_puts(o, ";");
        cc_line_self(o);
    }
    free(en);
    /* declarations of the TAMM_CUDA_VARIANT functions, once each */
    char **decls = NULL;
    int ndecls = 0;
    for (int i = 0; i < u->ntasks; i++) {
        if (!ps[i].gdecl || ps[i].form != 1) continue;
        int seen = 0;
        for (int j = 0; j < ndecls; j++) seen |= !strcmp(decls[j], ps[i].gdecl);
        if (seen) continue;
        decls = realloc(decls, (size_t)(ndecls + 1) * sizeof *decls);
        decls[ndecls++] = ps[i].gdecl;
    }
    if (ndecls) cc_puts(o, "\n/* CUDA variants named by TAMM_CUDA_VARIANT (host functions that launch on tamm_cuda_stream()) */\n");
    for (int i = 0; i < ndecls; i++) cc_printf(o, "%s\n", decls[i]);
    free(decls);
    for (int i = 0; i < u->ntasks; i++) {
        plan *p = &ps[i];
        cc_task *t = u->tasks[i];
        if (!p->form) continue;
        cc_printf(o, "\n/* ---- task %s: %s:%u, in %s() ---- */\n", t->name, u->src.name, t->line, t->fname);
        /* the macros of the enclosing function in effect at the task (emit_c.c, "macros"), each #define
         * after an #undef: the file's #define lines above hold the last definition of every macro */
        cc_emit_macro_save(o, u, t->fn->b, t->e);
        if (cc_emit_macros(o, u, t->fn->b, t->stmt->b, 1)) cc_line_self(o);
        emit_args_struct(o, t);
        if (p->ned > 0) qsort(p->ed, (size_t)p->ned, sizeof *p->ed, cmp_edit);
        if (p->form == 1) emit_call(o, p);
        else if (p->form == 3) { emit_host_prologue(o, t); cc_blas_emit(o, u, t, p->blas); emit_host_epilogue(o, t); }
        else emit_nest(o, p);
        cc_emit_macro_restore(o, u, t->fn->b, t->e, t->stmt->b);
    }
    for (int i = 0; i < u->ntasks; i++) plan_free(&ps[i]);
    free(ps);
    return 1;
}
