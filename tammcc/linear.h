/*
 * linear.h — integer linear arithmetic for tammcc's proofs about indices: C
 * expressions and conditions read from source text as linear forms over named
 * integer variables, facts in disjunctive normal form, and a prover that shows
 * `a <= b` (or `a < b`) in every case the facts allow (Fourier–Motzkin
 * elimination with integer tightening; a case split for `!=`, `||` and the sign
 * of a truncating division's dividend).
 *
 * Understood: decimal and hexadecimal constants (no unsigned suffix),
 * identifiers (a callback says what each one is), unary and binary `+` `-`,
 * `*` with a constant factor, `/` by a positive constant (C truncates toward
 * zero), `>>` by a constant (arithmetic shift), parentheses, casts to signed
 * types at least as wide as long; conditions `==` `!=` `<` `<=` `>` `>=` `&&`
 * `||`, and `!` before a parenthesised condition.  The
 * variables are assumed not to overflow.  Anything else is "not understood":
 * an expression fails to parse, and a condition adds no fact (never a wrong
 * one).  A proof that cannot be found in a bounded effort is "not proved".
 */
#ifndef TAMMCC_LINEAR_H
#define TAMMCC_LINEAR_H

#include <stddef.h>

enum { CC_LIN_MAXV = 24 };

/** sum c[i] * var_i + k */
typedef struct cc_lin {
    long c[CC_LIN_MAXV];
    long k;
} cc_lin;

typedef struct cc_lin_prob cc_lin_prob;

/** What an identifier at source offset `where` is: return NULL when it is not
 *  understood; set *is_var (a variable whose value does not change: the name
 *  itself is the variable) or return its definition's text, which is read at
 *  *def_where (the definition's offset).  The returned text is the caller's
 *  to free (return strdup(name) with *is_var set for a variable). */
typedef char *(*cc_lin_lookup)(void *arg, const char *name, size_t where, int *is_var, size_t *def_where);

cc_lin_prob *cc_lin_new(cc_lin_lookup lookup, void *arg);
void cc_lin_free(cc_lin_prob *p);
/** Read expression text (at source offset where) into *out; 0 if not understood. */
int cc_lin_expr(cc_lin_prob *p, const char *text, size_t where, cc_lin *out);
/** Assume condition text (negated: its negation); returns 0 if nothing was understood. */
int cc_lin_assume(cc_lin_prob *p, const char *text, size_t where, int negated);
/** Assume a < b. */
void cc_lin_assume_lt(cc_lin_prob *p, const cc_lin *a, const cc_lin *b);
/** Does a <= b (strict: a < b) hold in every case the facts allow? */
int cc_lin_prove(cc_lin_prob *p, const cc_lin *a, const cc_lin *b, int strict);

#endif
