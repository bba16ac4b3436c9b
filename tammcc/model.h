/*
 * model.h — what tammcc knows about a translation unit's tasks: each task's
 * pragma, statement, accesses (inferred and declared), captured variables,
 * nesting and continuation points.  Filled by pragma.c (directives and their
 * statements), infer.c (accesses), capture.c (variables), read by emit_c.c
 * and emit_cuda.c; cuda_plan.c decides the CUDA variant.
 */
#ifndef TAMMCC_MODEL_H
#define TAMMCC_MODEL_H

#include "ast.h"
#include "clause.h"

/* what the body does through a block pointer */
enum { CC_SEEN_READ = 1, CC_SEEN_STORE = 2, CC_SEEN_ACC = 4, CC_SEEN_ESC = 8 };

/* the element types the '+=' / '-=' of an accumulation go through: bit d for the tensor
 * dtype d (TAMM_F32 = 0, F64, I32, I64: float, double, 4- and 8-byte integers), and
 * CC_ACCTY_OTHER for a type no dtype has (char, short, _Bool, long double...) */
enum { CC_ACCTY_F32 = 1, CC_ACCTY_F64 = 2, CC_ACCTY_I32 = 4, CC_ACCTY_I64 = 8, CC_ACCTY_OTHER = 16 };

/* The dtype name ("F32", "F64", "I32" or "I64", as in TAMM_F32...) of a single CC_ACCTY_* bit t
 * other than CC_ACCTY_OTHER. */
static inline const char *cc_accty_name(unsigned t)
{
    return t == CC_ACCTY_F32 ? "F32" : t == CC_ACCTY_F64 ? "F64" : t == CC_ACCTY_I32 ? "I32" : "I64";
}

typedef struct cc_access {
    char *key;                  /* normalised text "T[i][j]" (tensor and indices, no spaces) */
    char *tensor;               /* tensor expression text */
    int nidx;                   /* 0: whole tensor */
    char *idx[CC_MAX_DIMS];     /* index texts; NULL: ':' */
    unsigned mode;              /* CC_READ/WRITE/ACCUM bits | CC_CANCEL | CC_PERMONLY */
    unsigned seen;              /* CC_SEEN_* of the task's own body */
    unsigned accty;             /* CC_ACCTY_* of its accumulations and its children's: an accum of one
                                   dtype is checked at submission (tamm_cc_accum_mode), else readwrite */
    int own;                    /* the task's own body uses the block */
    int fetched;                /* obtained at the start of the task (indices known at submission) */
    int explicit_mode;          /* the mode comes from a clause */
    char *cov;                  /* write needs: bytes stored (expression at submission) >= block bytes */
    char *nocov;                /* --explain: why no coverage was proved (a store's first reason) */
    char *why;                  /* --explain: what decided the mode */
    size_t off;                 /* where it was first seen */
    unsigned loop_range;        /* bit d: idx[d] is a range "lo:hi" inferred from a loop of the body
                                   (cc_infer_finish), emitted clamped to the dimension (tamm_cc_range) */
    /* guards (guard.c) */
    char *guard;                /* requested only if this C expression holds at submission (NULL: always) */
    int g_uncond;               /* some use (or nested task) needs the block whatever the branches */
    int g_seen;                 /* some use or nested task has been noted */
    char *sync;                 /* why it is fetched synchronously although its indices are known at submission */
    size_t sync_off;            /* the use that decided it */
    int wide;                   /* every index widened to ':' (a guard not evaluable at submission) */
} cc_access;

typedef struct cc_use {         /* one tamm_block(...) in a task's own body */
    size_t b, e;                /* its text, replaced by the buffer variable when fetched */
    int acc;                    /* index into the task's accesses */
    char *src;                  /* its text as a block reference, "A[I-1][J]" (runtime errors) */
} cc_use;

typedef struct cc_var {         /* a variable captured by value or carried across a taskwait */
    char *name;
    char *field;                /* its name in the args/frame struct */
    CXType type;
    CXCursor decl;
    size_t decl_off;
} cc_var;

typedef struct cc_read {        /* a value outside tensors the body reads, taken at submission (capture_read.h) */
    size_t b, e;                /* its text in the body, replaced by the copy */
    char *text;                 /* the expression, evaluated at submission ("p->coef") */
    CXType type;                /* its type (a scalar) */
    unsigned line;              /* where the body reads it */
    CXCursor base;              /* the variable it is read from, or through (canonical) */
} cc_read;

typedef struct cc_uread {       /* a read of data outside tensors not taken at submission (capture_read.h) */
    CXCursor base;              /* the variable read, or through which it is read (canonical) */
    int through;                /* read through it (a pointer or array), not the variable itself */
    char *what;                 /* "'pw[k]' at line 13", "'g' in scale(), called at line 14" */
} cc_uread;

typedef struct cc_wait {        /* a taskwait inside a task body: a continuation point */
    cc_pragma *pr;
    int id;                     /* resume label number (1...) */
    int *live; int nlive;       /* body locals in scope there (indices into task->loc) */
    size_t live_cap;            /* (capacities of the vectors, xalloc.h: cc_grow) */
} cc_wait;

typedef struct cc_task {
    cc_pragma *pr;
    cc_node *stmt;              /* the statement the pragma applies to */
    size_t b, e;                /* [pragma, end of statement]: replaced by the submission */
    struct cc_task *parent;
    struct cc_task **kids; int nkids; size_t kids_cap;
    cc_node *fn;                /* enclosing function definition */
    char *fname;
    unsigned line;              /* of the pragma */
    char name[160];             /* tamm_task_<fn>_<line>[_n] */
    char cuda_sym[192];         /* its CUDA variant's (global) symbol: <name>_cuda_<hash of the file> */
    cc_access *acc; int nacc;
    cc_use *use; int nuse;
    cc_var *cap; int ncap;      /* captured at submission */
    cc_var *loc; int nloc;      /* body locals carried across taskwaits */
    cc_wait *wait; int nwait;
    cc_read *rd; int nrd;       /* values outside tensors taken at submission */
    cc_uread *urd; int nurd;    /* reads of such values that are not */
    size_t rd_cap, urd_cap;
    char **pre; int npre;       /* local enum/typedef declarations the body needs, copied */
    size_t acc_cap, use_cap, cap_cap, loc_cap, wait_cap, pre_cap; /* capacities (xalloc.h: cc_grow) */
    int has_cuda;               /* a CUDA variant was generated */
    char *cuda_why;             /* why not (--explain) */
    char *outside;              /* the body's first store outside tensors ("the global 'g' at f.c:3"; capture.c):
                                 * with several ranks the submission fails (tamm_task_opts.outside_store) */
    char *cuda_plan;            /* the CUDA variant's plan, lines "cuda ...: ..." (--explain; cuda_plan.h) */
    char *cuda_check;           /* a kernel runs only if this C expression over captured variables holds at
                                 * submission (NULL: always); else the task is submitted without it */
    char *cuda_params;          /* C declarations, from the task's variables, of the kernel's other host values
                                 * (a called function's parameters, values the body computes before its nest)
                                 * that cuda_check is written over (else NULL) */
    int (*cuda_alias)[2]; int ncuda_alias; /* ... and these pairs of accesses are not one block */
    unsigned cuda_libs;         /* the CUDA variant calls cuBLAS (1) / cuSOLVER (2) (cuda_blas.c) */
    char *cuda_calls;           /* --explain: the routines it calls, "cuBLAS: dgemm; cuSOLVER: dpotrf" */
    char *label;                /* label text (a C string literal) */
    cc_node **tfcall; int ntfcall; /* calls of task functions in the task's own body (taskfn.c): the
                                    * task gives its blocks back before each, as before a nested task */
    size_t tfcall_cap;
    char *frame_why;            /* its children may reach its frame (frames.c): why; it then waits for them at the
                                 * end of its body and before each continuation (tamm_cc_taskwait), else NULL */
    size_t *frame_at; int nframe_at; /* ... and before these '}' of blocks of its body that declare variables
                                      * and enclose a child or call that may reach them */
    size_t frame_at_cap;
} cc_task;

#endif
