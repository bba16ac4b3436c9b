/* test_linear.c — the linear-arithmetic prover of tammcc (tammcc/linear.c):
 * what it must prove, and, as much, what it must not (a claim that is false
 * for some integers, or that rests on a condition it cannot read). */
#include "../../../tammcc/linear.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* identifiers: "mid" and "m2" are defined by text, names starting with 'u' are unknown, others are variables */
static char *lookup(void *arg, const char *name, size_t where, int *is_var, size_t *def_where)
{
    (void)arg;
    (void)where;
    *def_where = 0;
    if (!strcmp(name, "mid")) return strdup("lo + (hi - lo) / 2");
    if (!strcmp(name, "m2")) return strdup("(lo + hi) >> 1");
    if (name[0] == 'u') return NULL;
    *is_var = 1;
    return strdup(name);
}

/* under the facts (conditions separated by ';'), is `a OP b` (OP "<" or "<=") proved? */
static int proves(const char *facts, const char *a, const char *op, const char *b)
{
    cc_lin_prob *p = cc_lin_new(lookup, NULL);
    char *f = strdup(facts), *save = NULL;
    for (char *c = strtok_r(f, ";", &save); c; c = strtok_r(NULL, ";", &save)) cc_lin_assume(p, c, 0, 0);
    free(f);
    cc_lin la, lb;
    int r = cc_lin_expr(p, a, 0, &la) && cc_lin_expr(p, b, 0, &lb) && cc_lin_prove(p, &la, &lb, !strcmp(op, "<"));
    cc_lin_free(p);
    return r;
}

static void expect(int want, const char *facts, const char *a, const char *op, const char *b)
{
    int got = proves(facts, a, op, b);
    if (got != want) {
        printf("FAIL: under {%s}: %s %s %s %s, expected %s\n", facts, a, op, b, got ? "proved" : "not proved",
               want ? "proved" : "not proved");
        failures++;
    }
}

int main(void)
{
    /* basics */
    expect(1, "", "lo", "<=", "lo");
    expect(0, "", "lo", "<", "lo");
    expect(1, "lo < hi", "lo", "<", "hi");
    expect(1, "lo < hi", "lo + 1", "<=", "hi");
    expect(0, "lo < hi", "lo + 2", "<=", "hi");
    expect(1, "hi - lo == 1", "hi", "<=", "lo + 1");
    expect(1, "3 * a <= 2 * b; b <= a", "a", "<=", "0");
    /* the halves of a reduction: mid = lo + (hi - lo) / 2, truncating */
    expect(1, "lo < hi", "lo", "<=", "mid");
    expect(1, "lo < hi", "mid", "<", "hi");
    expect(0, "lo < hi", "lo", "<", "mid"); /* hi = lo + 1: mid = lo */
    expect(1, "lo < hi; hi - lo != 1", "lo", "<", "mid");
    expect(1, "lo < hi; !(hi - lo == 1)", "lo", "<", "mid");
    expect(1, "!(hi - lo <= 1)", "lo", "<", "mid");
    expect(1, "(hi - lo) >= 2", "lo", "<", "mid");
    expect(0, "lo < hi; hi - lo != 1", "mid", "<=", "lo");
    /* (lo + hi) >> 1 floors, for any sign */
    expect(1, "hi - lo >= 2", "lo", "<", "m2");
    expect(1, "hi - lo >= 2", "m2", "<", "hi");
    expect(0, "hi - lo >= 1", "lo", "<", "m2");
    /* (a + b) / 2 truncates toward zero: a = -2, b = -1 gives -1 == b */
    expect(0, "a < b", "(a + b) / 2", "<", "b");
    expect(1, "b - a >= 2", "(a + b) / 2", "<", "b");
    expect(1, "b - a >= 2", "a", "<", "(a + b) / 2");
    /* disjunctions: every case must prove it */
    expect(1, "x < 0 || x > 10; x >= 0", "11", "<=", "x");
    expect(0, "x < 0 || x > 10", "11", "<=", "x");
    expect(1, "!(x >= 0 && y >= 0); y >= 0", "x", "<", "0");
    /* what is not understood adds no fact, and is no expression */
    expect(0, "ux < 3", "ux", "<", "3");
    expect(0, "f(x) < 3 && x < 1", "x", "<", "1"); /* a part not understood: the whole condition is dropped */
    expect(0, "", "1u", "<=", "1");
    expect(0, "x < 3", "x % 2", "<", "3");
    expect(0, "x < 3", "x * y", "<", "3");
    expect(1, "x < 3", "(long)x", "<", "3");
    expect(0, "x < 3", "(unsigned)x", "<", "3");
    expect(0, "x < 3", "a[x]", "<", "3");
    /* C's ! binds tighter than <: `!hi < lo + 2` is `(!hi) < lo + 2`, not `hi >= lo + 2` */
    expect(0, "!hi < lo + 2", "lo + 2", "<=", "hi");
    expect(1, "!(hi < lo + 2)", "lo + 2", "<=", "hi");
    expect(0, "!(hi) < lo + 2", "lo + 2", "<=", "hi");
    expect(1, "!!(lo + 2 <= hi)", "lo + 2", "<=", "hi");
    /* casts that may truncate are not the identity */
    expect(0, "x < 3", "(int)x", "<", "3");
    expect(0, "x < 3", "(short)x", "<", "3");
    expect(0, "x < 3", "(int16_t)x", "<", "3");
    expect(1, "x < 3", "(long long)x", "<", "3");
    expect(1, "x < 3", "(int64_t)x", "<", "3");
    /* integer reasoning: 2x = 1 has no integer solution */
    expect(1, "2 * x >= 1; 2 * x <= 1", "1", "<", "0");
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
