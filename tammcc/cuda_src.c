/*
 * cuda_src.c — what of the user's C the CUDA file can hold, and its rewrites (cuda_src.h).
 */
#include "cuda_src.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int is_wrapper_kind(enum CXCursorKind k)
{
    return k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr || k == CXCursor_CStyleCastExpr;
}

/* a cast may have a TypeRef kid before its operand */
cc_node *cc_cu_down(cc_node *n)
{
    while (n && is_wrapper_kind(n->kind) && n->nkid >= 1) {
        cc_node *k = n->kid[n->nkid - 1];
        if (!clang_isExpression(k->kind)) break;
        n = k;
    }
    return n;
}

cc_node *cc_cu_up_parens(cc_node *n)
{
    while (n->parent && n->parent->kind == CXCursor_ParenExpr) n = n->parent;
    return n;
}

int cc_cu_same_cursor(CXCursor a, CXCursor b)
{
    return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b));
}

const char *cc_cu_arith(enum CXTypeKind k) { return cc_arith_type_name(k, 1); }

int cc_cu_is_integer(enum CXTypeKind k)
{
    return cc_cu_arith(k) && k != CXType_Bool && k != CXType_Float && k != CXType_Double && k != CXType_LongDouble;
}

const char *cc_cu_scalar(CXType ty)
{
    CXType c = clang_getCanonicalType(ty);
    if (c.kind == CXType_Enum) c = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
    return cc_cu_arith(c.kind);
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

char *cc_cu_decl(CXType ty, const char *name)
{
    CXType c = clang_getCanonicalType(ty);
    const char *sp = *name ? " " : "";
    const char *s = cc_cu_scalar(c);
    if (s) return cc_fmt("%s%s%s", s, sp, name);
    if (c.kind != CXType_Pointer) return NULL;
    CXType pt = clang_getCanonicalType(clang_getPointeeType(c));
    const char *q = clang_isConstQualifiedType(pt) ? "const " : "";
    const char *v = clang_isVolatileQualifiedType(pt) ? "volatile " : "";
    if (pt.kind == CXType_Void) return cc_fmt("%s%svoid *%s", q, v, name);
    if (pt.kind == CXType_Record && is_tensor_record(pt)) return cc_fmt("%s%stamm_tensor *%s", q, v, name);
    if (pt.kind == CXType_Enum) return NULL;
    s = cc_cu_arith(pt.kind);
    if (s) return cc_fmt("%s%s%s *%s", q, v, s, name);
    if (pt.kind == CXType_ConstantArray) {
        CXType et = clang_getCanonicalType(clang_getArrayElementType(pt));
        s = cc_cu_arith(et.kind);
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

int cc_cu_reserved(const char *w)
{
    for (int i = 0; cxx_words[i]; i++)
        if (!strcmp(cxx_words[i], w)) return 1;
    return 0;
}

static const char *const math_fns[] = {
    "sqrt", "sqrtf", "cbrt", "cbrtf", "rsqrt", "rsqrtf", "exp", "expf", "exp2", "exp2f", "expm1", "expm1f", "log",
    "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "pow", "powf", "fabs", "fabsf", "fmin", "fminf",
    "fmax", "fmaxf", "fmod", "fmodf", "remainder", "remainderf", "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin",
    "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf",
    "asinh", "acosh", "atanh", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc", "truncf", "rint",
    "rintf", "nearbyint", "lround", "llround", "lrint", "llrint", "hypot", "hypotf", "erf", "erff", "erfc", "erfcf",
    "fma", "fmaf", "copysign", "copysignf", "fdim", "fdimf", "lgamma", "lgammaf", "tgamma", "tgammaf", "ldexp",
    "ldexpf", "abs", "labs", "llabs", NULL };

int cc_cu_math_fn(const char *f)
{
    if (!strncmp(f, "__builtin_", 10)) return 1;
    for (int i = 0; math_fns[i]; i++)
        if (!strcmp(math_fns[i], f)) return 1;
    return 0;
}

int cc_cu_valid_ident(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

int cc_cu_text_is(const cc_cuda_plan *p, const cc_node *n, const char *s)
{
    size_t l = strlen(s);
    return n->in_main && n->e - n->b == l && !strncmp(p->u->ast.text + n->b, s, l);
}

char *cc_cu_node_text(const cc_cuda_plan *p, const cc_node *n) { return cc_src_text(&p->u->ast, n->b, n->e); }

/* ---------------------------------------------------------------- edits */
void cc_cu_edit(cc_cuda_plan *p, cc_cuda_edit e)
{
    for (int i = 0; i < p->ned; i++)
        if (p->ed[i].b == e.b && p->ed[i].e == e.e && p->ed[i].kind == e.kind) { free(e.text); return; }
    CC_GROW(p->ed, p->ed_cap, p->ned + 1);
    p->ed[p->ned++] = e;
}

void cc_cu_text_edit(cc_cuda_plan *p, size_t b, size_t e, char *text)
{
    cc_cuda_edit x;
    memset(&x, 0, sizeof x);
    x.b = b;
    x.e = e;
    x.kind = CC_ED_TEXT;
    x.text = text;
    cc_cu_edit(p, x);
}

void cc_cu_edits_back(cc_cuda_plan *p, int n)
{
    for (int i = n; i < p->ned; i++) free(p->ed[i].text);
    if (n < p->ned) p->ned = n;
}

static int cmp_edit(const void *x, const void *y)
{
    const cc_cuda_edit *a = x, *b = y;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    return a->e > b->e ? -1 : a->e < b->e ? 1 : 0;
}

void cc_cu_edits_sort(cc_cuda_plan *p)
{
    if (p->ned > 1) qsort(p->ed, (size_t)p->ned, sizeof *p->ed, cmp_edit);
}

/* ---------------------------------------------------------------- rendering */
void cc_cu_put(cc_cu_buf *o, const char *s, size_t n)
{
    CC_GROW(o->s, o->cap, o->n + n + 1);
    memcpy(o->s + o->n, s, n);
    o->n += n;
    o->s[o->n] = 0;
}

static void puts_(cc_cu_buf *o, const char *s) { cc_cu_put(o, s, strlen(s)); }

static void pad_lines(cc_cu_buf *o, const cc_cuda_plan *p, size_t b, size_t e)
{
    for (unsigned n = cc_count_nl(p->u->ast.text, b, e); n; n--) puts_(o, "\n");
}

static void render_edit(cc_cu_buf *o, const cc_cuda_plan *p, const cc_cuda_edit *x, cc_cu_acc_fn acc, void *arg)
{
    switch (x->kind) {
    case CC_ED_TEXT:
        puts_(o, x->text);
        pad_lines(o, p, x->b, x->e);
        return;
    case CC_ED_CALL: {
        cc_node *c = x->lhs;
        CXType ft = clang_getCanonicalType(clang_getCursorType(cc_referenced(x->rhs)));
        cc_cu_render_to(o, p, x->rhs->b, x->rhs->e, acc, arg);
        puts_(o, "(");
        for (int i = 1; i < c->nkid; i++) {
            char *t = cc_fmt("%s(%s)(", i > 1 ? ", " : "", cc_cu_scalar(clang_getArgType(ft, (unsigned)(i - 1))));
            puts_(o, t);
            free(t);
            cc_cu_render_to(o, p, c->kid[i]->b, c->kid[i]->e, acc, arg);
            puts_(o, ")");
        }
        puts_(o, ")");
        pad_lines(o, p, x->rhs->e, x->e);
        return;
    }
    default:
        if (acc) acc(o, p, x, arg);
        else { /* as written, with the edits inside */
            cc_cu_render_to(o, p, x->lhs->b, x->lhs->e, acc, arg);
            cc_cu_put(o, p->u->ast.text + x->lhs->e, x->rhs->b - x->lhs->e);
            cc_cu_render_to(o, p, x->rhs->b, x->rhs->e, acc, arg);
            cc_cu_put(o, p->u->ast.text + x->rhs->e, x->e - x->rhs->e);
        }
        return;
    }
}

void cc_cu_render_to(cc_cu_buf *o, const cc_cuda_plan *p, size_t b, size_t e, cc_cu_acc_fn acc, void *arg)
{
    const char *s = p->u->ast.text;
    size_t pos = b;
    for (int i = 0; i < p->ned; i++) {
        const cc_cuda_edit *x = &p->ed[i];
        if (x->b < pos || x->e > e || x->b >= e) continue;
        cc_cu_put(o, s + pos, x->b - pos);
        render_edit(o, p, x, acc, arg);
        pos = x->e;
    }
    if (pos < e) cc_cu_put(o, s + pos, e - pos);
}

char *cc_cu_render(const cc_cuda_plan *p, size_t b, size_t e)
{
    cc_cu_buf o = { NULL, 0, 0 };
    cc_cu_put(&o, "", 0);
    cc_cu_render_to(&o, p, b, e, NULL, NULL);
    return o.s;
}

/* ---------------------------------------------------------------- names */
static int use_at(const cc_task *t, size_t off)
{
    for (int i = 0; i < t->nuse; i++)
        if (off >= t->use[i].b && off < t->use[i].e) return i;
    return -1;
}

int cc_cu_block_use(const cc_cuda_plan *p, const cc_node *n)
{
    if (!n->in_main) return -1;
    int k = use_at(p->t, n->b);
    if (k < 0 || n->e > p->t->use[k].e) return -1;
    return k;
}

int cc_cu_cap_index(const cc_task *t, CXCursor d)
{
    for (int i = 0; i < t->ncap; i++)
        if (cc_cu_same_cursor(t->cap[i].decl, d)) return i;
    return -1;
}

int cc_cu_decl_in(const cc_cuda_plan *p, CXCursor d, size_t b, size_t e)
{
    size_t off;
    return cc_offset(&p->u->ast, clang_getCursorLocation(d), &off) && off >= b && off < e;
}

int cc_cu_stored(const cc_cuda_plan *p, cc_node *n, int addr)
{
    cc_node *top = cc_cu_up_parens(n), *q = top->parent;
    int post;
    if (!q) return 0;
    if (q->kind == CXCursor_CompoundAssignOperator && q->kid[0] == top) return 1;
    if (q->kind == CXCursor_BinaryOperator && q->kid[0] == top) {
        const char *op = cc_binop(&p->u->ast, q);
        return !strcmp(op, "=") || !*op;
    }
    if (q->kind == CXCursor_UnaryOperator) {
        const char *op = cc_unop(&p->u->ast, q, &post);
        return !strcmp(op, "++") || !strcmp(op, "--") || (addr && (!strcmp(op, "&") || !*op));
    }
    return 0;
}

cc_kbind *cc_cu_bind(const cc_kscope *sc, CXCursor d)
{
    for (int i = 0; sc && i < sc->nb; i++)
        if (cc_cu_same_cursor(sc->b[i].d, d)) return &sc->b[i];
    return NULL;
}

int cc_cu_enum_const(cc_cuda_plan *p, cc_node *n, CXCursor d)
{
    CXCursor ed = clang_getCursorSemanticParent(d);
    size_t b, e;
    if (cc_extent(&p->u->ast, ed, &b, &e)) {
        if (b >= p->t->fn->b && b < p->t->fn->e) return 1; /* in t->pre */
        if (clang_getCursorKind(clang_getCursorSemanticParent(ed)) != CXCursor_TranslationUnit) goto value;
        for (int i = 0; i < p->nen; i++)
            if (p->en[i][0] == b) return 1;
        CC_GROW(p->en, p->en_cap, p->nen + 1);
        p->en[p->nen][0] = b;
        p->en[p->nen][1] = e;
        p->nen++;
        return 1;
    }
value:;
    char *nm = cc_spelling(d);
    int ok = cc_cu_text_is(p, n, nm);
    if (ok) cc_cu_text_edit(p, n->b, n->e, cc_fmt("(%lld)", clang_getEnumConstantDeclValue(d)));
    else cc_cuda_no(p, "the enum constant '%s' is used through a macro", nm);
    free(nm);
    return ok;
}

int cc_cu_typeref(cc_cuda_plan *p, cc_node *n)
{
    CXCursor d = cc_referenced(n);
    char *nm = cc_spelling(d);
    if (clang_getCursorKind(d) != CXCursor_TypedefDecl) {
        cc_cuda_no(p, "the code uses the type '%s', which the CUDA file does not have", nm);
        free(nm);
        return 0;
    }
    const char *s = cc_cu_scalar(clang_getTypedefDeclUnderlyingType(d));
    int ok = s && cc_cu_text_is(p, n, nm);
    if (ok) cc_cu_text_edit(p, n->b, n->e, cc_xstrdup(s));
    else cc_cuda_no(p, "the code uses the type '%s', which is not an arithmetic type (or is named through a macro)", nm);
    free(nm);
    return ok;
}

/* ---------------------------------------------------------------- expressions computed on the host */
typedef struct { cc_cuda_plan *p; const cc_kscope *sc; } host_ctx;

static int host_expr_visit(cc_node *n, void *arg)
{
    host_ctx *h = arg;
    cc_cuda_plan *p = h->p;
    int kernel = h->sc != NULL;
    if (p->why) return 0;
    int k = cc_cu_block_use(p, n);
    if (k >= 0) {
        if (kernel) { cc_cuda_no(p, "a loop bound of the nest reads a block"); return 0; }
        cc_cu_text_edit(p, p->t->use[k].b, p->t->use[k].e, cc_fmt("tamm_b%d_", p->t->use[k].acc));
        return 0;
    }
    switch (n->kind) {
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        enum CXCursorKind dk = clang_getCursorKind(d);
        char *nm = cc_spelling(d);
        if (dk == CXCursor_EnumConstantDecl) cc_cu_enum_const(p, n, d);
        else if (dk == CXCursor_FunctionDecl) {
            cc_node *c = cc_up_wrappers(n)->parent;
            if (!c || c->kind != CXCursor_CallExpr || !(cc_cu_math_fn(nm) || (!kernel && !strncmp(nm, "tamm_", 5))))
                cc_cuda_no(p, "the code calls %s(), which the CUDA file cannot call", nm);
        } else if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) {
            if (!kernel) {
                if (cc_cu_cap_index(p->t, d) < 0) cc_cuda_no(p, "the code uses '%s', which is not a captured variable (a global?)", nm);
            } else {
                cc_kbind *b = cc_cu_bind(h->sc, d);
                if (!b || b->acc >= 0) cc_cuda_no(p, "a loop bound of the nest uses '%s', which is not fixed for the kernel", nm);
                else if (!cc_cu_scalar(b->type)) cc_cuda_no(p, "a loop bound of the nest uses '%s', which is not arithmetic", nm);
            }
        } else {
            cc_cuda_no(p, "the code uses '%s', which the CUDA file does not have", nm);
        }
        free(nm);
        return 1;
    }
    case CXCursor_TypeRef: cc_cu_typeref(p, n); return 1;
    case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_CharacterLiteral:
    case CXCursor_ParenExpr: case CXCursor_UnaryOperator: case CXCursor_BinaryOperator:
    case CXCursor_ConditionalOperator: case CXCursor_CStyleCastExpr: case CXCursor_UnexposedExpr:
    case CXCursor_CallExpr: case CXCursor_UnaryExpr: case CXCursor_StringLiteral:
        if (kernel && n->kind == CXCursor_StringLiteral) return cc_cuda_no(p, "a loop bound uses a string");
        if (n->kind == CXCursor_UnaryOperator || n->kind == CXCursor_BinaryOperator) {
            int post;
            const char *op = n->kind == CXCursor_UnaryOperator ? cc_unop(&p->u->ast, n, &post) : cc_binop(&p->u->ast, n);
            if (!strcmp(op, "=") || !strcmp(op, "++") || !strcmp(op, "--"))
                return cc_cuda_no(p, "an expression evaluated at submission has a side effect");
        }
        return 1;
    case CXCursor_ArraySubscriptExpr: case CXCursor_MemberRefExpr:
        if (!kernel) return 1;
        /* fall through */
    default: {
        CXString s = clang_getCursorKindSpelling(n->kind);
        cc_cuda_no(p, "an expression evaluated at submission holds a %s", clang_getCString(s));
        clang_disposeString(s);
        return 0;
    }
    }
}

int cc_cu_host_expr(cc_cuda_plan *p, cc_node *n, const cc_kscope *sc)
{
    host_ctx h = { p, sc };
    if (!n->in_main || n->e <= n->b) return cc_cuda_no(p, "an expression comes from a macro expansion");
    cc_walk(n, host_expr_visit, &h);
    return !p->why;
}
