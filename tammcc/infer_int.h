/*
 * infer_int.h — private to access inference: what its files share, and nothing else in tammcc
 * includes (the rest of tammcc uses infer.h).  The files, one concern each (the rule numbers
 * are those of docs/language.md, "The rules"):
 *   infer.c          the per-task driver: the block uses of a body and their modes, indices
 *                    known at submission (rules 35, 36), clauses and children's accesses
 *                    merged into permissions (with those taskfn.c and taskfn_range.c find,
 *                    rules 34, 38)
 *   infer_ptr.c      the uses of a value derived from a block pointer (rules 1-15, 24-31, 37)
 *   infer_call.c     a pointer passed to a call: callee summaries, annotations, mem functions,
 *                    BLAS (rules 16-23, 32, 33, 39)
 *   infer_cov.c      the coverage proofs of writes, and stable texts (rules 2, 3; the lengths
 *                    and dimensions of rules 22 and 39)
 *   infer_explain.c  the --explain report
 * The analyses recurse across files: a pointer passed to a call (infer_ptr.c) is analysed in
 * the callee's body (infer_call.c), which analyses the parameter's uses (infer_ptr.c).
 */
#ifndef TAMMCC_INFER_INT_H
#define TAMMCC_INFER_INT_H

#include "infer.h"

/* What the analysis of one pointer found: CC_SEEN_* bits with a reason each, and the coverage of its stores. */
typedef struct ptr_info {
    unsigned seen;
    char *cov;                 /* bytes fully stored, in the scope's terms */
    char *why[4];              /* first reason per CC_SEEN bit (read, store, acc, esc) */
    char *nocov;               /* why a store proved no coverage (the first such reason) */
    unsigned accty;            /* CC_ACCTY_* the accumulations (CC_SEEN_ACC) go through */
} ptr_info;

typedef struct memo {
    char *usr;
    int k;
    int busy;
    int partial;               /* computed while an enclosing analysis was busy: not reusable */
    ptr_info r;
} memo;

/* Internal to the analysis: the pointer is returned by the function analysed
 * (param_info turns it into a use of the call's value at the call site). */
enum { SEEN_RET = 64 };

typedef struct fn_tree { char *usr; cc_node *root; } fn_tree;

struct cc_infer {
    cc_ast *a;
    const cc_source *src;
    memo *m; int nm;
    int *mstack; int nmstack;  /* memo entries being computed, outermost first */
    fn_tree *f; int nf;
    CXCursor *busyv; int nbusyv; /* variables whose uses are being analysed */
    int *busydepth;              /* nmstack when each busy variable was pushed */
    size_t m_cap, mstack_cap, f_cap, busyv_cap, busydepth_cap; /* capacities (xalloc.h: cc_grow) */
    int punned;                  /* > 0: the pointer on analysis was converted to another element type */
    long budget;                 /* callee analyses left before the rest counts as escapes */
};

/* ---- infer.c */
/** "file:line:col" of a cursor (caller frees). */
char *cc_inf_where(CXCursor c);
/** The text of n: from the main file as written, from a header as its tokens (caller frees). */
char *cc_inf_node_text(cc_infer *in, const cc_node *n);
/** The variable an lvalue expression names directly (x, not p[i] or *p), or NULL. */
cc_node *cc_inf_lvalue_var(cc_node *n);
/** Why accumulations through the element types t (CC_ACCTY_* bits) cannot be summed as one
 *  tensor's dtype, or NULL when they can. */
const char *cc_inf_accty_conflict(unsigned t);

/* ---- infer_ptr.c */
void cc_inf_pi_free(ptr_info *p);
/** Record the use bit (CC_SEEN_* or SEEN_RET) in p, with its reason if it is the first (takes why). */
void cc_inf_see(ptr_info *p, unsigned bit, char *why);
/** The union of two analyses (reasons and coverage: the first one found). */
void cc_inf_merge(ptr_info *into, const ptr_info *from);
/** Record in *why (if why is not NULL and nothing is recorded yet) why no coverage was proved; takes msg. */
void cc_inf_no_cov(char **why, char *msg);
/** The CC_ACCTY_* bit of an element type that '+=' adds to (0 for void). */
unsigned cc_inf_acc_type_bit(CXType t);
CXType cc_inf_canon_type(const cc_node *n);
int cc_inf_is_array_type(CXType t);
/** A variable with automatic storage (a local or a parameter of some function). */
int cc_inf_auto_var(CXCursor v);
/** An expression e whose value points into the block: classify its uses into pi. */
void cc_inf_analyze_ptr(cc_infer *in, cc_node *e, cc_node *region, ptr_info *pi, int depth);
/** The value of e points into the block but not (provably) at its start: its uses count, its
 *  stores prove no coverage (why, at `at`). */
void cc_inf_analyze_derived(cc_infer *in, cc_node *e, cc_node *at, cc_node *region, ptr_info *pi, int depth,
                            const char *why);
/** All uses of pointer variable var inside region. */
ptr_info cc_inf_analyze_var(cc_infer *in, CXCursor var, cc_node *region, int depth);

/* ---- infer_call.c */
/** The pointer is argument k of call p: what the callee does with it. */
void cc_inf_analyze_arg(cc_infer *in, cc_node *p, int k, cc_node *region, ptr_info *pi, int depth);

/* ---- infer_cov.c (stable texts: cc_infer_stable_text, infer.h) */
struct cc_inf_loop;
/** Does n (an expression node) refer to variable var? */
int cc_inf_refers_to(cc_node *n, CXCursor var);
/** Does subtree n assign var (=, op=, ++, --) or take its address?  With addr_only, only the latter. */
int cc_inf_touches(cc_infer *in, cc_node *n, CXCursor var, int addr_only);
/** Is f a runtime query whose result never changes while a program runs (tensor shapes, ranks)? */
int cc_inf_pure_query(const char *f);
/** Does n run each time region runs?  Loops on the way are allowed only with loops != NULL
 *  (canonical ones, collected innermost first, at most max).  If not, why. */
int cc_inf_runs_with_region(cc_infer *in, cc_node *n, cc_node *region, struct cc_inf_loop *loops, int *nl, int max,
                            char **why);
/** The bytes a store `p[idx] = ...` covers (assign: the '=', sub: the subscript), or NULL and why. */
char *cc_inf_store_coverage(cc_infer *in, cc_node *assign, cc_node *sub, cc_node *region, char **why);
/** A callee's coverage cov at the call `call` in region, its arguments substituted for its
 *  parameters; NULL and why if an argument is not stable. */
char *cc_inf_subst_args(cc_infer *in, const char *cov, CXCursor fn, cc_node *call, cc_node *region, char **why);

#endif
