/* blas.c — the BLAS and LAPACK routines tammcc knows, and their effects (see blas.h). */
#include "blas.h"
#include "model.h"
#include "text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMM "C := alpha*op(A)*op(B) + beta*C"
#define SYMM "C := alpha*A*B + beta*C, or alpha*B*A + beta*C (A symmetric)"
#define SYRK "C := alpha*op(A)*op(A)^T + beta*C, one triangle of C"
#define TRSM "B := alpha*op(A)^-1*B, or alpha*B*op(A)^-1 (A triangular)"
#define TRMM "B := alpha*op(A)*B, or alpha*B*op(A) (A triangular)"
#define GEMV "y := alpha*op(A)*x + beta*y"

/* one routine in both precisions */
#define BOTH(base, lib, args, names, formula, ret) \
    { "cblas_s" base, "s" base, 's', lib, args, names, formula, ret }, \
    { "cblas_d" base, "d" base, 'd', lib, args, names, formula, ret }
#define LAPACK(base, args, names, formula) \
    { "LAPACKE_s" base, "s" base, 's', CC_LIB_CUSOLVER, args, names, formula, 'i' }, \
    { "LAPACKE_d" base, "d" base, 'd', CC_LIB_CUSOLVER, args, names, formula, 'i' }

static const cc_blas_fn table[] = {
    BOTH("gemm", CC_LIB_CUBLAS, "LTUnnnaRlRlbWl", "Layout TransA TransB M N K alpha A lda B ldb beta C ldc", GEMM, 0),
    BOTH("symm", CC_LIB_CUBLAS, "LSFnnaRlRlbWl", "Layout Side Uplo M N alpha A lda B ldb beta C ldc", SYMM, 0),
    BOTH("syrk", CC_LIB_CUBLAS, "LFTnnaRlbWl", "Layout Uplo Trans N K alpha A lda beta C ldc", SYRK, 0),
    BOTH("trsm", CC_LIB_CUBLAS, "LSFTDnnaRlXl", "Layout Side Uplo TransA Diag M N alpha A lda B ldb", TRSM, 0),
    BOTH("trmm", CC_LIB_CUBLAS, "LSFTDnnaRlXl", "Layout Side Uplo TransA Diag M N alpha A lda B ldb", TRMM, 0),
    BOTH("gemv", CC_LIB_CUBLAS, "LTnnaRlRibWi", "Layout Trans M N alpha A lda X incX beta Y incY", GEMV, 0),
    BOTH("axpy", CC_LIB_CUBLAS, "naRiYi", "N alpha X incX Y incY", "y := alpha*x + y", 0),
    BOTH("scal", CC_LIB_CUBLAS, "naXi", "N alpha X incX", "x := alpha*x", 0),
    BOTH("dot", CC_LIB_CUBLAS, "nRiRi", "N X incX Y incY", "x . y", 'v'),
    LAPACK("potrf", "LcnXl", "matrix_layout uplo n a lda", "A := its Cholesky factor"),
    LAPACK("getrf", "LnnXlP", "matrix_layout m n a lda ipiv", "A := L and U with P*A = L*U, ipiv := P"),
    LAPACK("geqrf", "LnnXlP", "matrix_layout m n a lda tau", "A := R and the reflectors of Q with A = Q*R, tau := their scalars"),
};

const cc_blas_fn *cc_blas_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (!strcmp(table[i].name, name)) return &table[i];
    return NULL;
}

const char *cc_blas_arg_name(const cc_blas_fn *f, int k, char *buf, unsigned size)
{
    const char *s = f->names;
    for (int i = 0; i < k && s; i++) {
        s = strchr(s, ' ');
        if (s) s++;
    }
    size_t n = s ? strcspn(s, " ") : 0;
    snprintf(buf, size, "%.*s", (int)n, s ? s : "");
    return buf;
}

int cc_blas_arg(const cc_blas_fn *f, int role, int from)
{
    for (int i = from + 1; f->args[i]; i++)
        if (f->args[i] == role) return i;
    return -1;
}

/* the bytes an output that is only written (beta 0) covers, or NULL and why not */
static char *out_coverage(const cc_blas_fn *f, int k, long layout, long trans, char *const *args, const char *at,
                          char **nocov)
{
    const char *op = f->op + 1;
    int esz = f->prec == 'd' ? 8 : 4;
    int m = cc_blas_arg(f, CC_BA_DIM, -1), n = cc_blas_arg(f, CC_BA_DIM, m), ld = k + 1;
    char nb[32];
    if (!strcmp(op, "syrk")) {
        *nocov = cc_fmt("%s at %s stores only one triangle of C", f->name, at);
        return NULL;
    }
    if (layout != 101 && layout != 102) {
        *nocov = cc_fmt("the layout of %s at %s is not a constant", f->name, at);
        return NULL;
    }
    if (!strcmp(op, "gemv")) {
        if (trans != 111 && trans != 112 && trans != 113) {
            *nocov = cc_fmt("the transposition of %s at %s is not a constant", f->name, at);
            return NULL;
        }
        int len = trans == 111 ? m : n;
        if (!args[len] || !args[ld]) {
            *nocov = cc_fmt("the argument %s of %s at %s is not known at submission",
                            cc_blas_arg_name(f, args[len] ? ld : len, nb, sizeof nb), f->name, at);
            return NULL;
        }
        return cc_fmt("((%s) == 1 ? TAMM_CC_COUNT(%s) * %d : (size_t)0)", args[ld], args[len], esz);
    }
    /* gemm, symm: C is M x N, dense when its leading dimension is N (row-major) or M (column-major) */
    int lead = layout == 101 ? n : m;
    const int need[3] = { m, n, ld };
    for (int i = 0; i < 3; i++)
        if (!args[need[i]]) {
            *nocov = cc_fmt("the argument %s of %s at %s is not known at submission",
                            cc_blas_arg_name(f, need[i], nb, sizeof nb), f->name, at);
            return NULL;
        }
    if (!strcmp(args[ld], args[lead])) return cc_fmt("TAMM_CC_COUNT(%s) * TAMM_CC_COUNT(%s) * %d", args[m], args[n], esz);
    return cc_fmt("((long long)(%s) == (long long)(%s) ? TAMM_CC_COUNT(%s) * TAMM_CC_COUNT(%s) * %d : (size_t)0)",
                  args[ld], args[lead], args[m], args[n], esz);
}

static int const_visit(cc_node *n, void *arg)
{
    int *ok = arg;
    switch (n->kind) {
    case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_CharacterLiteral: case CXCursor_ParenExpr:
    case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr: case CXCursor_TypeRef:
        return 1;
    case CXCursor_UnaryOperator: case CXCursor_BinaryOperator:
        if (!n->nkid) *ok = 0;
        return *ok;
    case CXCursor_DeclRefExpr:
        if (clang_getCursorKind(cc_referenced(n)) == CXCursor_EnumConstantDecl) return 1;
        /* fall through */
    default:
        *ok = 0;
        return 0;
    }
}

int cc_blas_const_shape(cc_node *n)
{
    int ok = clang_isExpression(n->kind);
    if (ok) cc_walk(n, const_visit, &ok);
    return ok;
}

int cc_blas_const(cc_node *n, double *v)
{
    if (!cc_blas_const_shape(n)) return 0;
    CXEvalResult r = clang_Cursor_Evaluate(n->c);
    if (!r) return 0;
    CXEvalResultKind k = clang_EvalResult_getKind(r);
    int ok = k == CXEval_Int || k == CXEval_Float;
    if (k == CXEval_Int) *v = (double)clang_EvalResult_getAsLongLong(r);
    else if (k == CXEval_Float) *v = clang_EvalResult_getAsDouble(r);
    clang_EvalResult_dispose(r);
    return ok;
}

unsigned cc_blas_effect(const cc_blas_fn *f, int k, int beta, long layout, long trans, char *const *args,
                        const char *at, char **why, char **cov, char **nocov)
{
    char nb[32];
    const char *arg = cc_blas_arg_name(f, k, nb, sizeof nb);
    *cov = *nocov = NULL;
    switch (f->args[k]) {
    case CC_BA_IN:
        *why = cc_fmt("%s of %s at %s, which only reads it", arg, f->name, at);
        return CC_SEEN_READ;
    case CC_BA_INOUT:
        *why = cc_fmt("%s of %s at %s (%s)", arg, f->name, at, f->formula);
        return CC_SEEN_READ | CC_SEEN_STORE;
    case CC_BA_ACC:
        *why = cc_fmt("%s of %s at %s (%s): only added to", arg, f->name, at, f->formula);
        return CC_SEEN_ACC;
    case CC_BA_STORE:
        *why = cc_fmt("%s of %s at %s (%s)", arg, f->name, at, f->formula);
        *nocov = cc_fmt("%s stores %s without a proof that it covers the block", f->name, arg);
        return CC_SEEN_STORE;
    case CC_BA_OUT:
        if (beta == 1) {
            *why = cc_fmt("%s of %s at %s (%s), beta 1: only added to", arg, f->name, at, f->formula);
            return CC_SEEN_ACC;
        }
        if (beta == 0) {
            *why = cc_fmt("%s of %s at %s (%s), beta 0: only stored", arg, f->name, at, f->formula);
            *cov = out_coverage(f, k, layout, trans, args, at, nocov);
            return CC_SEEN_STORE;
        }
        *why = cc_fmt("%s of %s at %s (%s), beta neither the constant 0 nor 1", arg, f->name, at, f->formula);
        return CC_SEEN_READ | CC_SEEN_STORE;
    default:
        *why = cc_fmt("passed as %s, which is not a matrix or vector, to %s at %s", arg, f->name, at);
        return CC_SEEN_ESC;
    }
}
