/*
 * tamm_blas_cuda.h — what the CUDA variants tammcc generates for tasks that call BLAS and LAPACK
 * on blocks use (not for users): one function per routine, with the CBLAS / LAPACKE arguments,
 * that runs it with cuBLAS or cuSOLVER on the task's stream (tamm_cuda_stream()).
 *
 * CBLAS and LAPACKE take row-major or column-major matrices; cuBLAS and cuSOLVER are
 * column-major.  A row-major matrix is the column-major matrix of its transpose with the same
 * leading dimension, so a row-major call becomes the column-major call on transposes:
 *   gemm  C = op(A) op(B)            ->  C^T = op(B)^T op(A)^T: operands swapped, M and N swapped
 *   symm  C = A B (A symmetric)      ->  C^T = B^T A: the other side, the other triangle
 *   syrk  C = op(A) op(A)^T          ->  the other triangle, the other transposition
 *   trsm, trmm  B = op(A)^-1 B ...   ->  the other side, the other triangle, M and N swapped
 *   gemv  y = op(A) x                ->  the other transposition, M and N swapped
 *   potrf (symmetric A)              ->  the other triangle: the row-major lower factor L is, in
 *                                        the same memory, the column-major upper factor L^T
 *   getrf, geqrf                     ->  no such identity (row pivots of A are column pivots of
 *                                        A^T): the matrix is transposed into scratch memory
 *                                        (cublas?geam), factorised there and transposed back,
 *                                        as LAPACKE itself does for row-major calls.
 * Scalars go by value (cuBLAS's host pointer mode, set on each call).  ?dot returns a value: a
 * task writes it into a block element (`d[0] = cblas_ddot(...)`: cuBLAS's device pointer mode
 * writes it there) or adds it (`d[0] += ...`: a gemv, or a 1 x 1 gemm, with beta 1 into it).
 * LAPACK's info goes to devInfo: into the block element the task stores it in (`*info =
 * LAPACKE_dpotrf(...)`), else into scratch memory, unread, as the CPU variant drops it.
 * Workspaces come from tamm_cuda_scratch (stream-ordered, within TAMM_CUDA_MEMORY_LIMIT).
 *
 * The libraries are the runtime's (tamm_cuda_lib_sym: loaded with dlopen), so a program with
 * such variants links libcudart and nothing more.  Each function returns 0, or reports the
 * task's error (TAMM_EDEVICE: an argument the routine rejects, a library status, no handle) and
 * returns -1; the generated code then skips the task's remaining calls.
 */
#ifndef TAMM_BLAS_CUDA_H
#define TAMM_BLAS_CUDA_H

#include <stdarg.h>
#include <stdio.h>
#include <tamm.h>

#ifdef __CUDACC__
#include <cublas_v2.h>
#include <cusolverDn.h>
#else
/* compiled for the host with tamm_cuda_emu.h, which declares cuBLAS's handle, status and operation
 * types and cublasDgemm (<cublas_v2.h>'s types would clash with its CUDA types): the rest of what is
 * called here, with the values and entry points of the real libraries (the stand-ins of
 * tests/rt/gpu/cudart_emu implement them over the emulated device) */
#ifndef TAMM_CUDA_EMU
#error "tamm_blas_cuda.h: include <cuda_runtime.h> (nvcc) or tamm_cuda_emu.h first"
#endif
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUSOLVER_STATUS_SUCCESS = 0 } cusolverStatus_t;
typedef struct cusolverDnContext *cusolverDnHandle_t;
#define TAMM__BLAS_DECLS(P, T) \
    cublasStatus_t cublas##P##symm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, int, int, const T *, const T *, \
                                      int, const T *, int, const T *, T *, int); \
    cublasStatus_t cublas##P##syrk_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const T *, const T *, \
                                      int, const T *, T *, int); \
    cublasStatus_t cublas##P##trsm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, \
                                      cublasDiagType_t, int, int, const T *, const T *, int, T *, int); \
    cublasStatus_t cublas##P##trmm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, \
                                      cublasDiagType_t, int, int, const T *, const T *, int, const T *, int, T *, int); \
    cublasStatus_t cublas##P##gemv_v2(cublasHandle_t, cublasOperation_t, int, int, const T *, const T *, int, const T *, \
                                      int, const T *, T *, int); \
    cublasStatus_t cublas##P##axpy_v2(cublasHandle_t, int, const T *, const T *, int, T *, int); \
    cublasStatus_t cublas##P##scal_v2(cublasHandle_t, int, const T *, T *, int); \
    cublasStatus_t cublas##P##dot_v2(cublasHandle_t, int, const T *, int, const T *, int, T *); \
    cublasStatus_t cublas##P##geam(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, const T *, const T *, \
                                   int, const T *, const T *, int, T *, int); \
    cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t, cublasFillMode_t, int, T *, int, int *); \
    cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t, cublasFillMode_t, int, T *, int, T *, int, int *); \
    cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t, int, int, T *, int, int *); \
    cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t, int, int, T *, int, T *, int *, int *); \
    cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t, int, int, T *, int, int *); \
    cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t, int, int, T *, int, T *, T *, int, int *);
extern "C" {
TAMM__BLAS_DECLS(S, float)
TAMM__BLAS_DECLS(D, double)
cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,
                              const float *, int, const float *, int, const float *, float *, int);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t, cublasPointerMode_t);
}
#undef TAMM__BLAS_DECLS
#define cublasSgemm cublasSgemm_v2
#define cublasSsymm cublasSsymm_v2
#define cublasDsymm cublasDsymm_v2
#define cublasSsyrk cublasSsyrk_v2
#define cublasDsyrk cublasDsyrk_v2
#define cublasStrsm cublasStrsm_v2
#define cublasDtrsm cublasDtrsm_v2
#define cublasStrmm cublasStrmm_v2
#define cublasDtrmm cublasDtrmm_v2
#define cublasSgemv cublasSgemv_v2
#define cublasDgemv cublasDgemv_v2
#define cublasSaxpy cublasSaxpy_v2
#define cublasDaxpy cublasDaxpy_v2
#define cublasSscal cublasSscal_v2
#define cublasDscal cublasDscal_v2
#define cublasSdot cublasSdot_v2
#define cublasDdot cublasDdot_v2
#define cublasSetPointerMode cublasSetPointerMode_v2
#endif

/* ---- the entry points, looked up once through the runtime (an unresolved one stays NULL and is asked again) */
#define TAMM__BLAS_STR_(x) #x
#define TAMM__BLAS_STR(x) TAMM__BLAS_STR_(x)
static inline void *tamm__blas_sym(void **slot, unsigned lib, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p && (p = tamm_cuda_lib_sym(lib, name))) __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    return p;
}
/* fn(&name): the entry point `sym` of library lib, its name into *name */
#define TAMM__BLAS_ENTRY(fn, lib, sym) \
    static decltype(&sym) fn(const char **name) \
    { \
        static void *slot; \
        *name = TAMM__BLAS_STR(sym); \
        return (decltype(&sym))tamm__blas_sym(&slot, (lib), TAMM__BLAS_STR(sym)); \
    }
template <class T> struct tamm__blas_lib;
#define TAMM__BLAS_LIB(T, P) \
    template <> struct tamm__blas_lib<T> { \
        TAMM__BLAS_ENTRY(gemm, TAMM_CUBLAS, cublas##P##gemm) \
        TAMM__BLAS_ENTRY(symm, TAMM_CUBLAS, cublas##P##symm) \
        TAMM__BLAS_ENTRY(syrk, TAMM_CUBLAS, cublas##P##syrk) \
        TAMM__BLAS_ENTRY(trsm, TAMM_CUBLAS, cublas##P##trsm) \
        TAMM__BLAS_ENTRY(trmm, TAMM_CUBLAS, cublas##P##trmm) \
        TAMM__BLAS_ENTRY(gemv, TAMM_CUBLAS, cublas##P##gemv) \
        TAMM__BLAS_ENTRY(axpy, TAMM_CUBLAS, cublas##P##axpy) \
        TAMM__BLAS_ENTRY(scal, TAMM_CUBLAS, cublas##P##scal) \
        TAMM__BLAS_ENTRY(dot, TAMM_CUBLAS, cublas##P##dot) \
        TAMM__BLAS_ENTRY(geam, TAMM_CUBLAS, cublas##P##geam) \
        TAMM__BLAS_ENTRY(potrf_size, TAMM_CUSOLVER, cusolverDn##P##potrf_bufferSize) \
        TAMM__BLAS_ENTRY(potrf, TAMM_CUSOLVER, cusolverDn##P##potrf) \
        TAMM__BLAS_ENTRY(getrf_size, TAMM_CUSOLVER, cusolverDn##P##getrf_bufferSize) \
        TAMM__BLAS_ENTRY(getrf, TAMM_CUSOLVER, cusolverDn##P##getrf) \
        TAMM__BLAS_ENTRY(geqrf_size, TAMM_CUSOLVER, cusolverDn##P##geqrf_bufferSize) \
        TAMM__BLAS_ENTRY(geqrf, TAMM_CUSOLVER, cusolverDn##P##geqrf) \
    };
TAMM__BLAS_LIB(float, S)
TAMM__BLAS_LIB(double, D)
#undef TAMM__BLAS_LIB
TAMM__BLAS_ENTRY(tamm__blas_pointer_mode, TAMM_CUBLAS, cublasSetPointerMode)

/* ---- errors: the task's, naming the call as written ("cblas_dgemm at cholesky.c:63") */
static inline int tamm__blas_fail(tamm_ctx *ctx, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int tamm__blas_fail(tamm_ctx *ctx, const char *where, const char *fmt, ...)
{
    char m[384];
    int n = snprintf(m, sizeof m, "%s on the GPU: ", where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m + n, sizeof m - (size_t)n, fmt, ap);
    va_end(ap);
    (void)tamm_task_error(ctx, TAMM_EDEVICE, m);
    return -1;
}

static inline const char *tamm__cublas_status(int s)
{
    static const char *const n[] = { "CUBLAS_STATUS_SUCCESS", "CUBLAS_STATUS_NOT_INITIALIZED", "", "CUBLAS_STATUS_ALLOC_FAILED",
                                     "", "", "", "CUBLAS_STATUS_INVALID_VALUE", "CUBLAS_STATUS_ARCH_MISMATCH", "", "",
                                     "CUBLAS_STATUS_MAPPING_ERROR", "", "CUBLAS_STATUS_EXECUTION_FAILED",
                                     "CUBLAS_STATUS_INTERNAL_ERROR", "CUBLAS_STATUS_NOT_SUPPORTED" };
    return s >= 0 && s < 16 && *n[s] ? n[s] : "an unknown status";
}
static inline const char *tamm__cusolver_status(int s)
{
    static const char *const n[] = { "CUSOLVER_STATUS_SUCCESS", "CUSOLVER_STATUS_NOT_INITIALIZED", "CUSOLVER_STATUS_ALLOC_FAILED",
                                     "CUSOLVER_STATUS_INVALID_VALUE", "CUSOLVER_STATUS_ARCH_MISMATCH",
                                     "CUSOLVER_STATUS_MAPPING_ERROR", "CUSOLVER_STATUS_EXECUTION_FAILED",
                                     "CUSOLVER_STATUS_INTERNAL_ERROR", "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
                                     "CUSOLVER_STATUS_NOT_SUPPORTED" };
    return s >= 0 && s < 10 ? n[s] : "an unknown status";
}
/* a library call's status: 0, or the task's error */
static inline int tamm__blas_check(tamm_ctx *ctx, const char *where, const char *fn, int lib, int status)
{
    if (status == 0) return 0;
    return tamm__blas_fail(ctx, where, "%s returned %d (%s)", fn, status,
                           lib == TAMM_CUBLAS ? tamm__cublas_status(status) : tamm__cusolver_status(status));
}
/* an argument CBLAS or LAPACKE would reject before computing anything */
static inline int tamm__blas_bad(tamm_ctx *ctx, const char *where, const char *arg, long v, const char *accepted)
{
    return tamm__blas_fail(ctx, where, "%s is %ld, not %s", arg, v, accepted);
}

/* ---- the arguments' values, CBLAS's and LAPACK's, as cuBLAS's (row-major: as for the transposes) */
enum { TAMM__ROW = 101, TAMM__COL = 102 }; /* CblasRowMajor, LAPACK_ROW_MAJOR; CblasColMajor, LAPACK_COL_MAJOR */
static inline int tamm__blas_layout(tamm_ctx *ctx, const char *where, const char *arg, int v)
{
    return v == TAMM__ROW || v == TAMM__COL ? 0 : tamm__blas_bad(ctx, where, arg, v, "CblasRowMajor (101) or CblasColMajor (102)");
}
static inline int tamm__blas_op(tamm_ctx *ctx, const char *where, const char *arg, int v, int flip, cublasOperation_t *op)
{
    if (v < 111 || v > 113) return tamm__blas_bad(ctx, where, arg, v, "CblasNoTrans, CblasTrans or CblasConjTrans (111 to 113)");
    int t = v != 111; /* real matrices: the conjugate transpose is the transpose */
    *op = (t != flip) ? CUBLAS_OP_T : CUBLAS_OP_N;
    return 0;
}
static inline int tamm__blas_uplo(tamm_ctx *ctx, const char *where, const char *arg, int v, int flip, cublasFillMode_t *u)
{
    if (v != 121 && v != 122) return tamm__blas_bad(ctx, where, arg, v, "CblasUpper (121) or CblasLower (122)");
    *u = ((v == 121) != flip) ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    return 0;
}
static inline int tamm__blas_side(tamm_ctx *ctx, const char *where, const char *arg, int v, int flip, cublasSideMode_t *s)
{
    if (v != 141 && v != 142) return tamm__blas_bad(ctx, where, arg, v, "CblasLeft (141) or CblasRight (142)");
    *s = ((v == 141) != flip) ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    return 0;
}
static inline int tamm__blas_diag(tamm_ctx *ctx, const char *where, const char *arg, int v, cublasDiagType_t *d)
{
    if (v != 131 && v != 132) return tamm__blas_bad(ctx, where, arg, v, "CblasNonUnit (131) or CblasUnit (132)");
    *d = v == 131 ? CUBLAS_DIAG_NON_UNIT : CUBLAS_DIAG_UNIT;
    return 0;
}
static inline int tamm__lapack_uplo(tamm_ctx *ctx, const char *where, int v, int flip, cublasFillMode_t *u)
{
    int up = v == 'U' || v == 'u', lo = v == 'L' || v == 'l';
    if (!up && !lo) return tamm__blas_bad(ctx, where, "uplo", v, "'U' or 'L'");
    *u = (up != flip) ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    return 0;
}

/* the task's cuBLAS handle in host pointer mode, or the task's error */
static inline cublasHandle_t tamm__blas_handle(tamm_ctx *ctx, const char *where)
{
    const char *nm;
    cublasHandle_t h = (cublasHandle_t)tamm_cublas_handle();
    decltype(&cublasSetPointerMode) pm = tamm__blas_pointer_mode(&nm);
    if (!h || !pm) {
        tamm__blas_fail(ctx, where, "cuBLAS is not available (%s)", h ? "no cublasSetPointerMode_v2" : "no handle");
        return NULL;
    }
    if (tamm__blas_check(ctx, where, nm, TAMM_CUBLAS, (int)pm(h, CUBLAS_POINTER_MODE_HOST))) return NULL;
    return h;
}
static inline cusolverDnHandle_t tamm__solver_handle(tamm_ctx *ctx, const char *where)
{
    cusolverDnHandle_t h = (cusolverDnHandle_t)tamm_cusolver_handle();
    if (!h) tamm__blas_fail(ctx, where, "cuSOLVER is not available (no handle: cusolverDnCreate failed)");
    return h;
}
/* an entry point, or the task's error */
#define TAMM__BLAS_GET(f, ctx, where, T, entry) \
    const char *f##_name; \
    decltype(tamm__blas_lib<T>::entry(&f##_name)) f = tamm__blas_lib<T>::entry(&f##_name); \
    if (!f) return tamm__blas_fail((ctx), (where), "the runtime's library has no %s", f##_name)

/* ---------------------------------------------------------------- level 3 */
template <class T>
static inline int tamm_cuda_cblas_gemm(tamm_ctx *ctx, const char *where, int layout, int transa, int transb, int m, int n,
                                       int k, T alpha, const T *a, int lda, const T *b, int ldb, T beta, T *c, int ldc)
{
    cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
    if (tamm__blas_layout(ctx, where, "Layout", layout) || tamm__blas_op(ctx, where, "TransA", transa, 0, &ta) ||
        tamm__blas_op(ctx, where, "TransB", transb, 0, &tb))
        return -1;
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    TAMM__BLAS_GET(f, ctx, where, T, gemm);
    cublasStatus_t s = layout == TAMM__COL ? f(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)
                                           : f(h, tb, ta, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, (int)s);
}

template <class T>
static inline int tamm_cuda_cblas_symm(tamm_ctx *ctx, const char *where, int layout, int side, int uplo, int m, int n,
                                       T alpha, const T *a, int lda, const T *b, int ldb, T beta, T *c, int ldc)
{
    int row = layout == TAMM__ROW;
    cublasSideMode_t sd = CUBLAS_SIDE_LEFT;
    cublasFillMode_t ul = CUBLAS_FILL_MODE_LOWER;
    if (tamm__blas_layout(ctx, where, "Layout", layout) || tamm__blas_side(ctx, where, "Side", side, row, &sd) ||
        tamm__blas_uplo(ctx, where, "Uplo", uplo, row, &ul))
        return -1;
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    TAMM__BLAS_GET(f, ctx, where, T, symm);
    cublasStatus_t s = row ? f(h, sd, ul, n, m, &alpha, a, lda, b, ldb, &beta, c, ldc)
                           : f(h, sd, ul, m, n, &alpha, a, lda, b, ldb, &beta, c, ldc);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, (int)s);
}

template <class T>
static inline int tamm_cuda_cblas_syrk(tamm_ctx *ctx, const char *where, int layout, int uplo, int trans, int n, int k,
                                       T alpha, const T *a, int lda, T beta, T *c, int ldc)
{
    int row = layout == TAMM__ROW;
    cublasFillMode_t ul = CUBLAS_FILL_MODE_LOWER;
    cublasOperation_t op = CUBLAS_OP_N;
    if (tamm__blas_layout(ctx, where, "Layout", layout) || tamm__blas_uplo(ctx, where, "Uplo", uplo, row, &ul) ||
        tamm__blas_op(ctx, where, "Trans", trans, row, &op))
        return -1;
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    TAMM__BLAS_GET(f, ctx, where, T, syrk);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, (int)f(h, ul, op, n, k, &alpha, a, lda, &beta, c, ldc));
}

/* trsm and trmm: B := alpha op(A)^-1 B ... in place (cuBLAS's trmm writes C: C = B gives BLAS's in-place form) */
template <class T>
static inline int tamm__blas_tri(tamm_ctx *ctx, const char *where, int trmm, int layout, int side, int uplo, int transa,
                                 int diag, int m, int n, T alpha, const T *a, int lda, T *b, int ldb)
{
    int row = layout == TAMM__ROW;
    cublasSideMode_t sd = CUBLAS_SIDE_LEFT;
    cublasFillMode_t ul = CUBLAS_FILL_MODE_LOWER;
    cublasOperation_t op = CUBLAS_OP_N;
    cublasDiagType_t dg = CUBLAS_DIAG_NON_UNIT;
    if (tamm__blas_layout(ctx, where, "Layout", layout) || tamm__blas_side(ctx, where, "Side", side, row, &sd) ||
        tamm__blas_uplo(ctx, where, "Uplo", uplo, row, &ul) || tamm__blas_op(ctx, where, "TransA", transa, 0, &op) ||
        tamm__blas_diag(ctx, where, "Diag", diag, &dg))
        return -1;
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    int rows = row ? n : m, cols = row ? m : n;
    if (trmm) {
        TAMM__BLAS_GET(f, ctx, where, T, trmm);
        return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS,
                                (int)f(h, sd, ul, op, dg, rows, cols, &alpha, a, lda, b, ldb, b, ldb));
    }
    TAMM__BLAS_GET(f, ctx, where, T, trsm);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, (int)f(h, sd, ul, op, dg, rows, cols, &alpha, a, lda, b, ldb));
}
template <class T>
static inline int tamm_cuda_cblas_trsm(tamm_ctx *ctx, const char *where, int layout, int side, int uplo, int transa, int diag,
                                       int m, int n, T alpha, const T *a, int lda, T *b, int ldb)
{
    return tamm__blas_tri<T>(ctx, where, 0, layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}
template <class T>
static inline int tamm_cuda_cblas_trmm(tamm_ctx *ctx, const char *where, int layout, int side, int uplo, int transa, int diag,
                                       int m, int n, T alpha, const T *a, int lda, T *b, int ldb)
{
    return tamm__blas_tri<T>(ctx, where, 1, layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}

/* ---------------------------------------------------------------- levels 1 and 2 */
template <class T>
static inline int tamm_cuda_cblas_gemv(tamm_ctx *ctx, const char *where, int layout, int trans, int m, int n, T alpha,
                                       const T *a, int lda, const T *x, int incx, T beta, T *y, int incy)
{
    int row = layout == TAMM__ROW;
    cublasOperation_t op = CUBLAS_OP_N;
    if (tamm__blas_layout(ctx, where, "Layout", layout) || tamm__blas_op(ctx, where, "Trans", trans, row, &op)) return -1;
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    TAMM__BLAS_GET(f, ctx, where, T, gemv);
    cublasStatus_t s = row ? f(h, op, n, m, &alpha, a, lda, x, incx, &beta, y, incy)
                           : f(h, op, m, n, &alpha, a, lda, x, incx, &beta, y, incy);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, (int)s);
}

template <class T>
static inline int tamm_cuda_cblas_axpy(tamm_ctx *ctx, const char *where, int n, T alpha, const T *x, int incx, T *y, int incy)
{
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    TAMM__BLAS_GET(f, ctx, where, T, axpy);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, (int)f(h, n, &alpha, x, incx, y, incy));
}

template <class T>
static inline int tamm_cuda_cblas_scal(tamm_ctx *ctx, const char *where, int n, T alpha, T *x, int incx)
{
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    TAMM__BLAS_GET(f, ctx, where, T, scal);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, (int)f(h, n, &alpha, x, incx));
}

/* `*r = x . y` (sign 0: cuBLAS's dot in device pointer mode, into the element), or `*r += x . y`
 * (sign 1) and `*r -= x . y` (sign -1): a matrix-vector product with beta 1 into the element, the
 * vector of increment 1 as a one-column matrix (or, when neither increment is 1, a 1 x 1 gemm of a
 * row of x, leading dimension incx, and a column of y, leading dimension incy) */
template <class T>
static inline int tamm_cuda_cblas_dot(tamm_ctx *ctx, const char *where, T *r, int sign, int n, const T *x, int incx,
                                      const T *y, int incy)
{
    cublasHandle_t h = tamm__blas_handle(ctx, where);
    if (!h) return -1;
    const char *pm_name;
    decltype(&cublasSetPointerMode) pm = tamm__blas_pointer_mode(&pm_name);
    if (sign == 0) {
        TAMM__BLAS_GET(f, ctx, where, T, dot);
        if (tamm__blas_check(ctx, where, pm_name, TAMM_CUBLAS, (int)pm(h, CUBLAS_POINTER_MODE_DEVICE))) return -1;
        int st = (int)f(h, n, x, incx, y, incy, r);
        pm(h, CUBLAS_POINTER_MODE_HOST);
        return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS, st);
    }
    T alpha = sign > 0 ? (T)1 : (T)-1, one = 1;
    if (n <= 0) return 0; /* the dot of empty vectors is 0: nothing to add */
    if (incy == 1 || incy == -1) { /* the dot is symmetric: let x be the vector of increment +-1 */
        const T *t = x;
        x = y;
        y = t;
        int i = incx;
        incx = incy;
        incy = i;
    }
    if (incx == 1 || incx == -1) {
        if (incx == -1) incy = -incy; /* reversed pairs: x forwards with y the other way */
        TAMM__BLAS_GET(f, ctx, where, T, gemv);
        return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS,
                                (int)f(h, CUBLAS_OP_T, n, 1, &alpha, x, n, y, incy, &one, r, 1));
    }
    if ((incx < 0) != (incy < 0))
        return tamm__blas_fail(ctx, where, "increments %d and %d: with '+=' or '-=' the GPU variant needs them of one sign, "
                               "or one of them 1 or -1", incx, incy);
    if (incx < 0) { incx = -incx; incy = -incy; } /* both reversed: the same pairs */
    TAMM__BLAS_GET(f, ctx, where, T, gemm);
    return tamm__blas_check(ctx, where, f_name, TAMM_CUBLAS,
                            (int)f(h, CUBLAS_OP_N, CUBLAS_OP_T, 1, 1, n, &alpha, x, incx, y, incy, &one, r, 1));
}

/* ---------------------------------------------------------------- LAPACK */
/* scratch for the task: n bytes after `at` bytes, each part 256-byte aligned; NULL: the runtime reported it */
static inline size_t tamm__blas_align(size_t n) { return (n + 255) / 256 * 256; }

template <class T>
static inline int tamm_cuda_LAPACKE_potrf(tamm_ctx *ctx, const char *where, int *info, int layout, int uplo, int n, T *a,
                                          int lda)
{
    cublasFillMode_t ul = CUBLAS_FILL_MODE_LOWER;
    if (tamm__blas_layout(ctx, where, "matrix_layout", layout) ||
        tamm__lapack_uplo(ctx, where, uplo, layout == TAMM__ROW, &ul))
        return -1;
    cusolverDnHandle_t h = tamm__solver_handle(ctx, where);
    if (!h) return -1;
    TAMM__BLAS_GET(fs, ctx, where, T, potrf_size);
    TAMM__BLAS_GET(f, ctx, where, T, potrf);
    int lwork = 0;
    if (tamm__blas_check(ctx, where, fs_name, TAMM_CUSOLVER, (int)fs(h, ul, n, a, lda, &lwork))) return -1;
    size_t wb = tamm__blas_align((size_t)(lwork > 0 ? lwork : 1) * sizeof(T));
    char *s = (char *)tamm_cuda_scratch(wb + sizeof(int));
    if (!s) return -1;
    return tamm__blas_check(ctx, where, f_name, TAMM_CUSOLVER,
                            (int)f(h, ul, n, a, lda, (T *)s, lwork, info ? info : (int *)(s + wb)));
}

/* getrf and geqrf: row-major through a transposed copy */
template <class T>
static inline int tamm__lapack_lu_qr(tamm_ctx *ctx, const char *where, int qr, int *info, int layout, int m, int n, T *a,
                                     int lda, int *ipiv, T *tau)
{
    if (tamm__blas_layout(ctx, where, "matrix_layout", layout)) return -1;
    cusolverDnHandle_t h = tamm__solver_handle(ctx, where);
    if (!h) return -1;
    int row = layout == TAMM__ROW, ldw = m > 1 ? m : 1;
    cublasHandle_t bh = row ? tamm__blas_handle(ctx, where) : NULL;
    if (row && !bh) return -1;
    T one = 1, zero = 0;
    size_t mn = m > 0 && n > 0 ? (size_t)m * (size_t)n : 0;
    size_t cb = row ? tamm__blas_align(mn * sizeof(T) + 1) : 0; /* the column-major copy */
    /* the copy first: the workspace size is asked for the matrix it factorises */
    char *c0 = row ? (char *)tamm_cuda_scratch(cb) : NULL;
    if (row && !c0) return -1;
    T *w = row ? (T *)c0 : a;
    int ldm = row ? ldw : lda;
    if (row && mn) {
        TAMM__BLAS_GET(g, ctx, where, T, geam);
        if (tamm__blas_check(ctx, where, g_name, TAMM_CUBLAS,
                             (int)g(bh, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, w, ldw, w, ldw)))
            return -1;
    }
    int lwork = 0, st;
    const char *fn_name;
    if (qr) {
        TAMM__BLAS_GET(fs, ctx, where, T, geqrf_size);
        if (tamm__blas_check(ctx, where, fs_name, TAMM_CUSOLVER, (int)fs(h, m, n, w, ldm, &lwork))) return -1;
    } else {
        TAMM__BLAS_GET(fs, ctx, where, T, getrf_size);
        if (tamm__blas_check(ctx, where, fs_name, TAMM_CUSOLVER, (int)fs(h, m, n, w, ldm, &lwork))) return -1;
    }
    size_t wb = tamm__blas_align((size_t)(lwork > 0 ? lwork : 1) * sizeof(T));
    char *s = (char *)tamm_cuda_scratch(wb + sizeof(int));
    if (!s) return -1;
    int *dinfo = info ? info : (int *)(s + wb);
    if (qr) {
        TAMM__BLAS_GET(f, ctx, where, T, geqrf);
        fn_name = f_name;
        st = (int)f(h, m, n, w, ldm, tau, (T *)s, lwork, dinfo);
    } else {
        TAMM__BLAS_GET(f, ctx, where, T, getrf);
        fn_name = f_name;
        st = (int)f(h, m, n, w, ldm, (T *)s, ipiv, dinfo);
    }
    if (tamm__blas_check(ctx, where, fn_name, TAMM_CUSOLVER, st)) return -1;
    if (row && mn) {
        TAMM__BLAS_GET(g, ctx, where, T, geam);
        return tamm__blas_check(ctx, where, g_name, TAMM_CUBLAS,
                                (int)g(bh, CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, w, ldw, &zero, a, lda, a, lda));
    }
    return 0;
}
template <class T>
static inline int tamm_cuda_LAPACKE_getrf(tamm_ctx *ctx, const char *where, int *info, int layout, int m, int n, T *a,
                                          int lda, int *ipiv)
{
    return tamm__lapack_lu_qr<T>(ctx, where, 0, info, layout, m, n, a, lda, ipiv, (T *)0);
}
template <class T>
static inline int tamm_cuda_LAPACKE_geqrf(tamm_ctx *ctx, const char *where, int *info, int layout, int m, int n, T *a,
                                          int lda, T *tau)
{
    return tamm__lapack_lu_qr<T>(ctx, where, 1, info, layout, m, n, a, lda, (int *)0, tau);
}

#endif
