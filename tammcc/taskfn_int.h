/*
 * taskfn_int.h — private to the task-function pass: what its two files share, and nothing else
 * in tammcc includes (the rest of tammcc uses taskfn.h).  The files, one concern each:
 *   taskfn.c        the unit's functions, the needs of the tasks each may submit (per tensor, in
 *                   the function's own terms), and those needs given to the tasks that call them
 *   taskfn_range.c  the ranges of those needs (rule 38): per-function range summaries proved
 *                   by induction over the calls (linear.h), and the slice of a need a call takes
 */
#ifndef TAMMCC_TASKFN_INT_H
#define TAMMCC_TASKFN_INT_H

#include "taskfn.h"

/* What the tasks a function may submit need on one tensor.  tensor: "#k" for
 * the function's parameter k, the name of a file-scope variable, or NULL when
 * the tensor cannot be named outside the function (origin says where). */
typedef struct need {
    char *tensor;
    unsigned mode;
    char *origin;
} need;

/* A function defined in the translation unit, as the pass sees it. */
typedef struct fninfo {
    cc_node *root;        /* the definition's tree */
    int owned;            /* built here (the unit keeps trees of functions holding directives) */
    char *usr;
    int submits;          /* submits tasks or waits for them (a taskwait), itself or through calls */
    need *nd; int nnd;
    cc_node **calls; int ncalls; /* calls outside the function's tasks */
    cc_node **blocks; int nblocks; /* tamm_block_at calls outside the function's tasks */
    size_t calls_cap, blocks_cap;
    int opaque_calls;     /* calls outside its tasks of functions this pass does not follow (range summaries) */
} fninfo;

/* The pass over one translation unit. */
typedef struct tf_state {
    cc_unit *u;
    cc_infer *in;
    fninfo *f; int nf;
    char **globals; int nglobals; /* file-scope variables of the translation unit */
    size_t f_cap, globals_cap;
    struct rs_state *rs;  /* range summaries (taskfn_range.c; once proved; NULL: whole tensors) */
} tf_state;

/* The range summaries of the unit's functions (taskfn_range.c): per function, its candidate
 * claims (struct claim, private to taskfn_range.c), refuted until the others hold. */
typedef struct rs_state {
    tf_state *st;
    struct claim **cl; int *ncl; /* per function (index into st->f) */
    size_t *clcap;            /* ... the capacities of cl[i] */
    int *nacc0;               /* per task: accesses before this pass */
    const struct claim *only; /* choosing candidates: assume only this claim's precondition */
} rs_state;

/* How a text names a tensor inside a function (cc_tf_resolve): its parameter k (k >= 0), or these. */
enum { NAME_LOCAL = -3, NAME_GLOBAL = -2 };

/* ---- taskfn.c */
/** The function of the unit that callee (a call's referenced cursor) defines, or NULL. */
fninfo *cc_tf_fn_by_cursor(tf_state *st, CXCursor callee);
/** text without spaces and enclosing parentheses, if it is one identifier; else NULL (caller frees). */
char *cc_tf_identifier(const char *text);
/** How `text` names a tensor inside function f: its parameter k (k >= 0), a file-scope variable
 *  no declaration of f shadows (NAME_GLOBAL), or neither (NAME_LOCAL: a local, an expression). */
int cc_tf_resolve(tf_state *st, cc_node *f, const char *text);
/** A need of the callee, as the caller (function f) names it at call c: "#k", a file-scope name,
 *  or NULL when the caller cannot name it (caller frees). */
char *cc_tf_subst(tf_state *st, const need *n, cc_node *c, cc_node *f);

/* ---- taskfn_range.c */
/** Prove the range summaries of st's functions (their final needs, st->f[i].nd) into rs: the
 *  candidate claims, then the greatest set of them whose obligations hold.  nacc0[i]: how many
 *  accesses task i had before this pass (the task's own).  Free with cc_tf_ranges_free. */
void cc_tf_ranges_prove(rs_state *rs, tf_state *st, int *nacc0);
/** Free what rs holds (not rs itself). */
void cc_tf_ranges_free(rs_state *rs);
/** The slice of need n of g that call c needs, as task p computes it at its submission: per
 *  dimension of g's current claims (st->rs), the range of the call's arguments ("lo:hi") in
 *  idx[d], else ':' (NULL); returns the number of indices, 0 for the whole tensor.  *proof: why,
 *  for --explain (caller frees it and idx[]). */
int cc_tf_call_slice(tf_state *st, fninfo *g, const need *n, cc_node *c, cc_task *p, char **idx, char **proof);

#endif
