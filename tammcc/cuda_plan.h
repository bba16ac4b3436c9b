/*
 * cuda_plan.h — the CUDA planner (docs/language.md "Kernels"): for each task, whether it gets
 * a CUDA variant, of which form, and for a generated kernel how it runs: which loops of the nest
 * go on the grid (and on which thread axis), which run in order in each thread, which accumulated
 * elements a thread owns (summed in a register, or updated in place) and which several threads
 * add into (a reduction), and which checks must hold at submission.  The plan is an analysis:
 * the printer of the .cu (emit_cuda.c) and of the submission (emit_c.c) only read it, and
 * `tammcc --explain` prints it (cc_cuda_decide's lines, "cuda kernel: ...").
 *
 * Each form of variant has one planner function (plan_<form> in cuda_plan.c, chosen by
 * cc_cuda_plan_task) and one printer function (emit_cuda.c); a new form adds an enum value,
 * its part of the plan, and those two functions.
 *
 * A kernel is planned over a scope (cc_kscope): the statement that is the loop nest and the
 * names its code may use besides its own locals, each bound to a block's buffer or to a host
 * value fixed for the kernel (a kernel parameter).  For a task body the scope is its pointer
 * locals and captured variables; for a task whose body calls a function of the file that has no
 * TAMM_CUDA_VARIANT, it is that function's body with its parameters bound to the call's
 * arguments (a pointer parameter to the block its argument names, any other to the argument's
 * value, computed before the launch as the call would compute it).
 */
#ifndef TAMMCC_CUDA_PLAN_H
#define TAMMCC_CUDA_PLAN_H

#include "pragma.h"

/* ---------------------------------------------------------------- conditions */
/** A condition on values fixed at submission: st 1 (proven), 0 (never), or -1: the C
 *  expression s over the task's captured variables, evaluated at submission. */
typedef struct cc_kcond { int st; char *s; } cc_kcond;

/* ---------------------------------------------------------------- the text of the .cu */
/** A rewrite of the user's text [b, e) in the .cu: replacement text, an accumulation
 *  (`lhs += rhs` as the plan says: elem is the cc_kelem), or a math call with its arguments
 *  converted to the parameter types (lhs: the call, rhs: the callee). */
enum { CC_ED_TEXT, CC_ED_ACC, CC_ED_CALL };
typedef struct cc_cuda_edit {
    size_t b, e;
    int kind;
    char *text;
    cc_node *lhs, *rhs;
    int elem;
    enum CXTypeKind ek;
} cc_cuda_edit;

/* ---------------------------------------------------------------- form CALL */
typedef struct cc_cuda_call {
    cc_node *call;              /* f(args...) */
    char *g, *gdecl;            /* the variant's name and its extern "C" declaration */
    char **ptypes; int nparams; /* f's parameter types (C++ spelling) */
    int gstatus;                /* the variant returns an integer: a status, nonzero fails the task */
} cc_cuda_call;

/* ---------------------------------------------------------------- form KERNEL */
/** A name the nest may use besides its own locals. */
typedef struct cc_kbind {
    CXCursor d;                 /* its declaration (canonical cursor) */
    char *name;                 /* its name in the kernel (and at submission, for host values) */
    CXType type;
    int acc;                    /* >= 0: a pointer to the buffer of the task's access acc ... */
    char *decl;                 /* ... declared so in the kernel (else NULL: a host value, a kernel parameter) */
    int used;                   /* used by the kernel's code */
    cc_node *arg;               /* a host value that is a parameter of the called function: the call's argument */
} cc_kbind;

/** What a kernel is planned over. */
typedef struct cc_kscope {
    cc_node *nest;              /* the loop nest */
    cc_kbind *b; int nb; size_t b_cap;
    cc_node *fn;                /* the called function whose body the nest is (its tree), or NULL: the task body */
    char *fname;                /* ... its name */
} cc_kscope;

enum { CC_KMAX_LOOPS = 8 };

/** A canonical loop: for (T v = lb; v < ub (or <=); v++) body. */
typedef struct cc_kloop {
    cc_node *f, *body;
    CXCursor var;
    char *name;
    const char *type;           /* the loop variable's type */
    cc_node *lb, *ub;
    int le;                     /* '<=' */
    int host;                   /* its bounds can be computed before the kernel (host values, constants) */
    char *trip;                 /* host: its trip count, C over host values */
    int ctrip; long long ktrip; /* ... a constant */
    int atom;                   /* its variable in the index prover (cuda_index.h), or -1 */
    int assigned, breaks;       /* the body assigns its variable / has a break leaving it */
    cc_node **lead; int nlead;  /* perfect nest: declarations before the next loop in the body */
} cc_kloop;

/** One element access of a block in the nest. */
enum { CC_KE_READ = 1, CC_KE_STORE = 2, CC_KE_ACC = 4 };
typedef struct cc_kelem {
    int acc;                    /* the task's access (the block) */
    char *key;                  /* "[i*NB+j]...", or "*" */
    int kind;
    cc_node **ix; int nix;      /* the subscripts */
    cc_node *at;                /* the element expression */
    cc_node *op;                /* CC_KE_ACC: the 'lhs += rhs' / '-=' expression */
    enum CXTypeKind ek;         /* the element type */
    int same_type;              /* CC_KE_ACC: the value added has the element's type (or both are integers) */
    int group;                  /* CC_KE_ACC: its cc_kacc */
    int bind;                   /* reached through the scope's binding bind (a pointer), or -1 (a block use) */
} cc_kelem;

/** What becomes of an element (a block at a key) that the nest accumulates into. */
typedef enum {
    CC_KA_REGISTER = 1,         /* one thread owns it: loaded into a register, summed there, stored once */
    CC_KA_MEMORY,               /* one thread owns it, but it varies in the thread: updated in place */
    CC_KA_REDUCE                /* one element for the whole grid: per thread, per block, then the blocks in order */
} cc_kacc_how;
typedef struct cc_kacc {
    int acc;
    const char *key;
    cc_kacc_how how;
    int el;                     /* its first access (whose text names the element) */
    enum CXTypeKind ek;
    char *guard;                /* REGISTER: load and store only if this holds in the thread (NULL: always) */
    int slot;                   /* REDUCE: its partial sums */
} cc_kacc;

typedef struct cc_kernel {
    cc_kscope sc;
    cc_node *nest;
    cc_kloop loop[CC_KMAX_LOOPS]; int nloop;  /* the perfect nest: loop[i + 1] is loop[i]'s whole body,
                                                 or follows declarations of variables that the nest
                                                 never assigns, initialised without side effects
                                                 (loop[i].lead), which each thread computes again */
    cc_kloop *inner; int ninner;              /* canonical loops inside the innermost body */
    cc_kelem *el; int nel;
    cc_node **brk; int nbrk;                  /* the for loops that break statements leave */
    cc_node **cont; int ncont;                /* the for loops that continue statements continue */
    cc_node **asg; int nasg;                  /* assignments to variables (their DeclRef) */
    /* the mapping */
    int x, y;                  /* the loops (indices into loop[]) on threadIdx.x and .y; y < 0: one loop */
    int bx, by;                /* threads per block */
    cc_kacc *ka; int nka;      /* accumulated elements */
    int nslot;                 /* reductions */
    int wrap;                  /* the body continues its innermost grid loop: run it in do { } while (0) */
    cc_kcond check;            /* the elements stored (or owned) are distinct per thread */
    int (*alias)[2]; int nalias; /* ... and these accesses are not one block (checked at submission) */
    size_t el_cap, brk_cap, cont_cap, asg_cap, ka_cap, alias_cap; /* capacities (xalloc.h: cc_grow) */
} cc_kernel;

/* ---------------------------------------------------------------- the plan */
/** The forms of CUDA variant. */
typedef enum {
    CC_CUDA_NONE = 0,           /* none: why says why */
    CC_CUDA_CALL,               /* a call of f, which has TAMM_CUDA_VARIANT(g): the variant calls g */
    CC_CUDA_KERNEL,             /* a loop nest over block elements: a generated kernel */
    CC_CUDA_BLAS                /* BLAS and LAPACK calls on blocks: cuBLAS and cuSOLVER (cuda_blas.h) */
} cc_cuda_form;

typedef struct cc_cuda_plan {
    cc_unit *u;
    cc_task *t;
    cc_cuda_form form;
    char *why;                  /* no CUDA variant: why (--explain) */
    cc_cuda_edit *ed; int ned;  /* the task's text rewritten for the .cu */
    size_t (*en)[2]; int nen;   /* file-scope enums the code uses */
    cc_cuda_call call;          /* CC_CUDA_CALL */
    cc_kernel *k;               /* CC_CUDA_KERNEL */
    struct cc_blas_calls *blas; /* CC_CUDA_BLAS */
    cc_node **dev; int ndev;    /* CC_CUDA_KERNEL: the functions of the file its code calls, callees first (cuda_devfn.h) */
    size_t ed_cap, en_cap, dev_cap; /* capacities (xalloc.h: cc_grow) */
} cc_cuda_plan;

/** Plan task t's CUDA variant into p (zeroed first): returns 1 and p->form, or 0 and p->why. */
int cc_cuda_plan_task(cc_unit *u, cc_task *t, cc_cuda_plan *p);
void cc_cuda_plan_free(cc_cuda_plan *p);
/** The plan as --explain prints it: lines, each ending in '\n' (caller frees). */
char *cc_cuda_plan_text(const cc_cuda_plan *p);
/** Decide whether task t gets a CUDA variant: sets t->has_cuda or t->cuda_why, and for a
 *  kernel t->cuda_plan (--explain) and the checks the submission evaluates (t->cuda_check,
 *  t->cuda_alias). */
void cc_cuda_decide(cc_unit *u, cc_task *t);

/** Record a reason for no CUDA variant (the first one wins); returns 0. */
int cc_cuda_no(cc_cuda_plan *p, const char *f, ...) __attribute__((format(printf, 2, 3)));

#endif
