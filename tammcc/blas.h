/*
 * blas.h — what tammcc knows of the BLAS and LAPACK routines a task body may
 * call on blocks: their names (CBLAS `cblas_?xxx`, LAPACKE `LAPACKE_?xxx`,
 * ? = s or d), the role of each argument, and what each pointer argument does
 * to the data by the routine's documented semantics.  Access inference
 * (infer_call.c) reads the roles to give a block passed to such a routine its mode;
 * the CUDA variant (cuda_blas.c) reads them to call cuBLAS or cuSOLVER instead.
 */
#ifndef TAMMCC_BLAS_H
#define TAMMCC_BLAS_H

#include "ast.h"

/* the role of an argument: one letter per argument in cc_blas_fn.args */
enum {
    CC_BA_LAYOUT = 'L',   /* CblasRowMajor / CblasColMajor, LAPACK_ROW_MAJOR / LAPACK_COL_MAJOR */
    CC_BA_TRANS = 'T',    /* CblasNoTrans / CblasTrans / CblasConjTrans (of A; gemm: TransA) */
    CC_BA_TRANSB = 'U',   /* gemm's TransB */
    CC_BA_SIDE = 'S',     /* CblasLeft / CblasRight */
    CC_BA_UPLO = 'F',     /* CblasUpper / CblasLower */
    CC_BA_DIAG = 'D',     /* CblasNonUnit / CblasUnit */
    CC_BA_UPLOC = 'c',    /* LAPACK's uplo: 'U' or 'L' */
    CC_BA_DIM = 'n',      /* M, N, K */
    CC_BA_ALPHA = 'a',
    CC_BA_BETA = 'b',
    CC_BA_LD = 'l',       /* a leading dimension */
    CC_BA_INC = 'i',      /* a vector increment */
    CC_BA_IN = 'R',       /* a matrix or vector only read */
    CC_BA_OUT = 'W',      /* C (y of gemv): read and written; only written where beta is 0; accumulated where beta is 1 */
    CC_BA_INOUT = 'X',    /* read and written */
    CC_BA_ACC = 'Y',      /* y of axpy: y += alpha * x */
    CC_BA_STORE = 'P'     /* only written (ipiv, tau), every element not provably */
};

enum { CC_LIB_CUBLAS = 1, CC_LIB_CUSOLVER = 2 };   /* the values of TAMM_CUBLAS, TAMM_CUSOLVER (tamm.h) */

typedef struct cc_blas_fn {
    const char *name;     /* "cblas_dgemm" */
    const char *op;       /* "dgemm": the routine, as --explain names it */
    char prec;            /* 's' (float) or 'd' (double) */
    unsigned lib;         /* what the CUDA variant calls: CC_LIB_CUBLAS or CC_LIB_CUSOLVER */
    const char *args;     /* one CC_BA_* letter per argument */
    const char *names;    /* the arguments' names, separated by spaces ("Layout TransA ...") */
    const char *formula;  /* what it computes, for --explain: "C := alpha*op(A)*op(B) + beta*C" */
    char ret;             /* 0: void; 'v': a value (dot); 'i': LAPACK's info */
} cc_blas_fn;

/** The routine called `name`, or NULL. */
const cc_blas_fn *cc_blas_find(const char *name);
/** The name of argument k of f ("lda"), into buf. */
const char *cc_blas_arg_name(const cc_blas_fn *f, int k, char *buf, unsigned size);
/** The index of the first argument of f with role `role` after argument `from` (-1: from the start), or -1. */
int cc_blas_arg(const cc_blas_fn *f, int role, int from);

/** Is expression n a constant written with literals, enumerators, casts and operators (CblasRowMajor,
 *  1.0, -1, a macro of those: what a beta or a layout "is" for tammcc)? */
int cc_blas_const_shape(cc_node *n);
/** n's value, when it is such a constant (Int or Float), into *v; else 0. */
int cc_blas_const(cc_node *n, double *v);

/* What pointer argument k of a call of f does to its data (CC_SEEN_* bits of model.h), and why.
 * beta: 1 when the call's beta is the constant 1, 0 when it is the constant 0, -1 otherwise.
 * cov: for an output that is only written, the bytes the call provably stores (a C expression
 * over the texts args[] of the call's arguments as the submission sees them, any of them NULL
 * when not known there; layout and trans the constant values of those arguments, or -1), else
 * NULL with the reason in *nocov.  at: "file:line:col" of the call.  The caller frees the texts. */
unsigned cc_blas_effect(const cc_blas_fn *f, int k, int beta, long layout, long trans, char *const *args,
                        const char *at, char **why, char **cov, char **nocov);

#endif
