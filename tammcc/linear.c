/* linear.c — integer linear forms read from C text, facts, and a prover (see linear.h). */
#include "linear.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ALTS = 256, MAX_ROWS = 4000, MAX_DEPTH = 16 };
#define BIG ((long)1 << 48) /* coefficients beyond this: give up rather than risk overflow */

typedef struct conj { cc_lin *v; int n; size_t cap; } conj;        /* every row e >= 0 */
typedef struct dnf { conj *alt; int n; int unknown; size_t cap; } dnf; /* unknown: no information */

typedef struct memo { char *name; size_t where; int ok; cc_lin val; } memo;

struct cc_lin_prob {
    cc_lin_lookup lookup;
    void *arg;
    int nvar;
    char *var[CC_LIN_MAXV];
    memo *m; int nm; size_t m_cap;
    dnf facts;
    int depth;
};

/* ---------------------------------------------------------------- forms */
static int is_const(const cc_lin *a)
{
    for (int i = 0; i < CC_LIN_MAXV; i++)
        if (a->c[i]) return 0;
    return 1;
}

static int lin_ok(const cc_lin *a)
{
    if (a->k > BIG || a->k < -BIG) return 0;
    for (int i = 0; i < CC_LIN_MAXV; i++)
        if (a->c[i] > BIG || a->c[i] < -BIG) return 0;
    return 1;
}

/* r = x*a + y*b, 0 on overflow */
static int lin_comb(cc_lin *r, long x, const cc_lin *a, long y, const cc_lin *b)
{
    cc_lin o;
    __int128 k = (__int128)x * a->k + (__int128)y * b->k;
    if (k > BIG || k < -BIG) return 0;
    o.k = (long)k;
    for (int i = 0; i < CC_LIN_MAXV; i++) {
        __int128 c = (__int128)x * a->c[i] + (__int128)y * b->c[i];
        if (c > BIG || c < -BIG) return 0;
        o.c[i] = (long)c;
    }
    *r = o;
    return 1;
}

static cc_lin lin_const(long k)
{
    cc_lin r;
    memset(&r, 0, sizeof r);
    r.k = k;
    return r;
}

/* ---------------------------------------------------------------- DNF */
static void conj_push(conj *c, const cc_lin *e)
{
    CC_GROW(c->v, c->cap, c->n + 1);
    c->v[c->n++] = *e;
}

static void dnf_free(dnf *d)
{
    for (int i = 0; i < d->n; i++) free(d->alt[i].v);
    free(d->alt);
    memset(d, 0, sizeof *d);
}

static dnf dnf_true(void) { return (dnf){ NULL, 0, 1, 0 }; }

/* one alternative of the given rows */
static dnf dnf_rows(const cc_lin *rows, int n)
{
    dnf d = { cc_xcalloc(1, sizeof(conj)), 1, 0, 1 };
    for (int i = 0; i < n; i++) conj_push(&d.alt[0], &rows[i]);
    return d;
}

/* a and b (consumes both) */
static dnf dnf_and(dnf a, dnf b)
{
    if (a.unknown) { dnf_free(&a); return b; }
    if (b.unknown) { dnf_free(&b); return a; }
    if (a.n * b.n > MAX_ALTS) { /* too many cases: keep the smaller (a weaker fact) */
        if (a.n <= b.n) { dnf_free(&b); return a; }
        dnf_free(&a);
        return b;
    }
    dnf r = { cc_xcalloc((size_t)(a.n * b.n) + 1, sizeof(conj)), 0, 0, (size_t)(a.n * b.n) + 1 };
    for (int i = 0; i < a.n; i++)
        for (int j = 0; j < b.n; j++) {
            conj *c = &r.alt[r.n++];
            for (int k = 0; k < a.alt[i].n; k++) conj_push(c, &a.alt[i].v[k]);
            for (int k = 0; k < b.alt[j].n; k++) conj_push(c, &b.alt[j].v[k]);
        }
    dnf_free(&a);
    dnf_free(&b);
    return r;
}

/* a or b (consumes both) */
static dnf dnf_or(dnf a, dnf b)
{
    if (a.unknown || b.unknown || a.n + b.n > MAX_ALTS) {
        dnf_free(&a);
        dnf_free(&b);
        return dnf_true();
    }
    CC_GROW(a.alt, a.cap, a.n + b.n);
    for (int j = 0; j < b.n; j++) a.alt[a.n++] = b.alt[j];
    free(b.alt);
    return a;
}

static void add_fact(cc_lin_prob *p, dnf d) { p->facts = dnf_and(p->facts, d); }

/* ---------------------------------------------------------------- tokens */
typedef struct tok { char s[64]; } tok;

static int tokenize(const char *text, tok **out)
{
    tok *t = NULL;
    int n = 0;
    size_t cap = 0;
    const char *s = text;
    while (*s) {
        if (isspace((unsigned char)*s)) { s++; continue; }
        size_t len = 1;
        if (isalnum((unsigned char)*s) || *s == '_')
            while (isalnum((unsigned char)s[len]) || s[len] == '_') len++;
        else if (strchr("<>=!&|", *s) && s[1] && strchr("<>=&|", s[1]) &&
                 (s[1] == '=' || s[1] == *s))
            len = 2;
        if (len >= sizeof t->s) { free(t); return -1; }
        CC_GROW(t, cap, n + 1);
        memcpy(t[n].s, s, len);
        t[n].s[len] = 0;
        n++;
        s += len;
    }
    *out = t;
    return n;
}

typedef struct parser {
    cc_lin_prob *p;
    tok *t; int n, i;
    size_t where;
} parser;

static int at(parser *ps, const char *s) { return ps->i < ps->n && !strcmp(ps->t[ps->i].s, s); }
static int eat(parser *ps, const char *s)
{
    if (!at(ps, s)) return 0;
    ps->i++;
    return 1;
}

static int parse_number(const char *s, long *v)
{
    char *e;
    if (!isdigit((unsigned char)s[0])) return 0;
    long x = strtol(s, &e, 0);
    for (; *e; e++)
        if (*e != 'l' && *e != 'L') return 0; /* an unsigned suffix changes the arithmetic */
    if (x > BIG) return 0;
    *v = x;
    return 1;
}

/* words of a cast to a signed type at least as wide as long (a narrower cast may truncate) */
static const char *const wide_words[] = { "long", "int", "signed", "int64_t", "ptrdiff_t", "ssize_t", "intptr_t",
                                          "intmax_t", NULL };
static int is_signed_type_word(const char *s)
{
    for (int i = 0; wide_words[i]; i++)
        if (!strcmp(s, wide_words[i])) return 1;
    return 0;
}

/* Are tokens [b, e) a cast to a wide signed type: some of wide_words, with "long" or a 64-bit name among them? */
static int wide_cast(const tok *t, int b, int e)
{
    int wide = 0;
    for (int i = b; i < e; i++) {
        if (!is_signed_type_word(t[i].s)) return 0;
        wide |= strcmp(t[i].s, "int") && strcmp(t[i].s, "signed");
    }
    return wide;
}

static int new_var(cc_lin_prob *p, const char *name)
{
    for (int i = 0; i < p->nvar; i++)
        if (name && p->var[i] && !strcmp(p->var[i], name)) return i;
    if (p->nvar >= CC_LIN_MAXV) return -1;
    p->var[p->nvar] = name ? cc_xstrdup(name) : NULL;
    return p->nvar++;
}

static int parse_text(cc_lin_prob *p, const char *text, size_t where, cc_lin *out);

static int ident(parser *ps, const char *name, cc_lin *out)
{
    cc_lin_prob *p = ps->p;
    for (int i = 0; i < p->nm; i++)
        if (p->m[i].where == ps->where && !strcmp(p->m[i].name, name)) {
            *out = p->m[i].val;
            return p->m[i].ok;
        }
    int is_var = 0, ok = 0;
    size_t dw = 0;
    cc_lin v = lin_const(0);
    char *def = p->lookup(p->arg, name, ps->where, &is_var, &dw);
    if (def && is_var) {
        int k = new_var(p, name);
        if (k >= 0) {
            v.c[k] = 1;
            ok = 1;
        }
    } else if (def && p->depth < MAX_DEPTH) {
        p->depth++;
        ok = parse_text(p, def, dw, &v);
        p->depth--;
    }
    free(def);
    CC_GROW(p->m, p->m_cap, p->nm + 1);
    p->m[p->nm++] = (memo){ cc_xstrdup(name), ps->where, ok, v };
    *out = v;
    return ok;
}

static int shift_expr(parser *ps, cc_lin *out);

/* q = x / c (C: toward zero) or, floor, x >> s: a fresh variable with its defining facts */
static int quotient(parser *ps, const cc_lin *x, long c, int floor_div, cc_lin *out)
{
    if (c <= 0) return 0;
    if (is_const(x)) {
        long q = x->k / c;
        if (floor_div && x->k % c && x->k < 0) q--;
        *out = lin_const(q);
        return 1;
    }
    int k = new_var(ps->p, NULL);
    if (k < 0) return 0;
    cc_lin q = lin_const(0), r1, r2, r3, r4;
    q.c[k] = 1;
    /* x >= 0 (or a floor): c*q <= x <= c*q + c - 1 */
    if (!lin_comb(&r1, 1, x, -c, &q) || !lin_comb(&r2, c, &q, -1, x)) return 0;
    r2.k += c - 1;
    dnf pos = dnf_rows((cc_lin[]){ r1, r2 }, 2);
    if (!floor_div) {
        cc_lin nonneg = *x, neg;
        conj_push(&pos.alt[0], &nonneg);
        /* x <= -1: c*q - (c-1) <= x <= c*q */
        if (!lin_comb(&neg, -1, x, 0, x) || !lin_comb(&r3, 1, x, -c, &q) || !lin_comb(&r4, c, &q, -1, x)) {
            dnf_free(&pos);
            return 0;
        }
        neg.k -= 1;
        r3.k += c - 1;
        pos = dnf_or(pos, dnf_rows((cc_lin[]){ neg, r3, r4 }, 3));
    }
    add_fact(ps->p, pos);
    *out = q;
    return 1;
}

static int unary(parser *ps, cc_lin *out)
{
    if (eat(ps, "-")) {
        cc_lin a;
        return unary(ps, &a) && lin_comb(out, -1, &a, 0, &a);
    }
    if (eat(ps, "+")) return unary(ps, out);
    if (at(ps, "(")) {
        int j = ps->i + 1;
        while (j < ps->n && is_signed_type_word(ps->t[j].s)) j++;
        if (j > ps->i + 1 && j < ps->n && !strcmp(ps->t[j].s, ")")) { /* a cast */
            if (!wide_cast(ps->t, ps->i + 1, j)) return 0; /* (int), (short): may truncate */
            ps->i = j + 1;
            return unary(ps, out);
        }
        ps->i++;
        return shift_expr(ps, out) && eat(ps, ")");
    }
    if (ps->i >= ps->n) return 0;
    const char *s = ps->t[ps->i++].s;
    long v;
    if (parse_number(s, &v)) {
        *out = lin_const(v);
        return 1;
    }
    if (isalpha((unsigned char)s[0]) || s[0] == '_') {
        if (at(ps, "(") || at(ps, "[") || at(ps, ".") || (at(ps, "-") && ps->i + 1 < ps->n && !strcmp(ps->t[ps->i + 1].s, ">")))
            return 0; /* a call, an element, a member */
        return ident(ps, s, out);
    }
    return 0;
}

static int mul_expr(parser *ps, cc_lin *out)
{
    cc_lin a;
    if (!unary(ps, &a)) return 0;
    for (;;) {
        cc_lin b;
        if (eat(ps, "*")) {
            if (!unary(ps, &b)) return 0;
            if (is_const(&b)) { if (!lin_comb(&a, b.k, &a, 0, &a)) return 0; }
            else if (is_const(&a)) { if (!lin_comb(&a, a.k, &b, 0, &b)) return 0; }
            else return 0;
        } else if (eat(ps, "/")) {
            if (!unary(ps, &b) || !is_const(&b) || !quotient(ps, &a, b.k, 0, &a)) return 0;
        } else if (at(ps, "%")) {
            return 0;
        } else {
            break;
        }
    }
    *out = a;
    return 1;
}

static int add_expr(parser *ps, cc_lin *out)
{
    cc_lin a;
    if (!mul_expr(ps, &a)) return 0;
    for (;;) {
        cc_lin b;
        if (eat(ps, "+")) {
            if (!mul_expr(ps, &b) || !lin_comb(&a, 1, &a, 1, &b)) return 0;
        } else if (eat(ps, "-")) {
            if (!mul_expr(ps, &b) || !lin_comb(&a, 1, &a, -1, &b)) return 0;
        } else {
            break;
        }
    }
    *out = a;
    return 1;
}

static int shift_expr(parser *ps, cc_lin *out)
{
    cc_lin a;
    if (!add_expr(ps, &a)) return 0;
    while (eat(ps, ">>")) {
        cc_lin b;
        if (!add_expr(ps, &b) || !is_const(&b) || b.k < 0 || b.k > 30 || !quotient(ps, &a, 1L << b.k, 1, &a)) return 0;
    }
    if (at(ps, "<<")) return 0;
    *out = a;
    return 1;
}

/* ---------------------------------------------------------------- conditions */
/* a OP b as rows (negated: its negation) */
static dnf compare(const cc_lin *a, const char *op, const cc_lin *b, int neg)
{
    static const char *const ops[] = { "<", ">=", "<=", ">", "==", "!=", ">", "<=", ">=", "<" };
    (void)ops;
    const char *o = op;
    if (neg) o = !strcmp(op, "<") ? ">=" : !strcmp(op, ">=") ? "<" : !strcmp(op, "<=") ? ">"
               : !strcmp(op, ">") ? "<=" : !strcmp(op, "==") ? "!=" : "==";
    cc_lin ba, ab; /* b - a, a - b */
    if (!lin_comb(&ba, 1, b, -1, a) || !lin_comb(&ab, 1, a, -1, b)) return dnf_true();
    if (!strcmp(o, "<")) { ba.k -= 1; return dnf_rows(&ba, 1); }
    if (!strcmp(o, "<=")) return dnf_rows(&ba, 1);
    if (!strcmp(o, ">")) { ab.k -= 1; return dnf_rows(&ab, 1); }
    if (!strcmp(o, ">=")) return dnf_rows(&ab, 1);
    if (!strcmp(o, "==")) return dnf_rows((cc_lin[]){ ba, ab }, 2);
    ba.k -= 1;
    ab.k -= 1;
    return dnf_or(dnf_rows(&ba, 1), dnf_rows(&ab, 1));
}

static dnf cond_or(parser *ps, int neg, int *ok);

static dnf cond_not(parser *ps, int neg, int *ok)
{
    if (eat(ps, "!")) {
        /* C's ! binds tighter than a comparison: `!x < y` is `(!x) < y`; only `!(...)` and `!!...` are understood */
        if (at(ps, "!")) return cond_not(ps, !neg, ok);
        if (eat(ps, "(")) { /* !( condition ): no comparison may follow the ')' (the caller checks what is left) */
            dnf d = cond_or(ps, !neg, ok);
            if (*ok && eat(ps, ")")) return d;
            dnf_free(&d);
        }
        *ok = 0;
        return dnf_true();
    }
    int save = ps->i;
    cc_lin a, b;
    if (shift_expr(ps, &a) && ps->i < ps->n) {
        const char *op = ps->t[ps->i].s;
        if (!strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, ">") || !strcmp(op, ">=") || !strcmp(op, "==") ||
            !strcmp(op, "!=")) {
            ps->i++;
            if (shift_expr(ps, &b)) return compare(&a, op, &b, neg);
        }
    }
    ps->i = save;
    if (eat(ps, "(")) {
        dnf d = cond_or(ps, neg, ok);
        if (eat(ps, ")")) return d;
        dnf_free(&d);
    }
    *ok = 0;
    return dnf_true();
}

static dnf cond_and(parser *ps, int neg, int *ok)
{
    dnf d = cond_not(ps, neg, ok);
    while (*ok && eat(ps, "&&")) {
        dnf e = cond_not(ps, neg, ok);
        d = neg ? dnf_or(d, e) : dnf_and(d, e);
    }
    return d;
}

static dnf cond_or(parser *ps, int neg, int *ok)
{
    dnf d = cond_and(ps, neg, ok);
    while (*ok && eat(ps, "||")) {
        dnf e = cond_and(ps, neg, ok);
        d = neg ? dnf_and(d, e) : dnf_or(d, e);
    }
    return d;
}

/* ---------------------------------------------------------------- the API */
cc_lin_prob *cc_lin_new(cc_lin_lookup lookup, void *arg)
{
    cc_lin_prob *p = cc_xcalloc(1, sizeof *p);
    p->lookup = lookup;
    p->arg = arg;
    p->facts = dnf_rows(NULL, 0);
    return p;
}

void cc_lin_free(cc_lin_prob *p)
{
    if (!p) return;
    for (int i = 0; i < p->nvar; i++) free(p->var[i]);
    for (int i = 0; i < p->nm; i++) free(p->m[i].name);
    free(p->m);
    dnf_free(&p->facts);
    free(p);
}

static int parse_text(cc_lin_prob *p, const char *text, size_t where, cc_lin *out)
{
    tok *t = NULL;
    int n = tokenize(text, &t);
    if (n <= 0) {
        free(t);
        return 0;
    }
    parser ps = { p, t, n, 0, where };
    int ok = shift_expr(&ps, out) && ps.i == n && lin_ok(out);
    free(t);
    return ok;
}

int cc_lin_expr(cc_lin_prob *p, const char *text, size_t where, cc_lin *out) { return parse_text(p, text, where, out); }

int cc_lin_assume(cc_lin_prob *p, const char *text, size_t where, int negated)
{
    tok *t = NULL;
    int n = tokenize(text, &t);
    if (n <= 0) {
        free(t);
        return 0;
    }
    parser ps = { p, t, n, 0, where };
    int ok = 1;
    dnf d = cond_or(&ps, negated, &ok);
    free(t);
    if (!ok || ps.i != n || d.unknown) { /* a part not understood: no fact at all */
        dnf_free(&d);
        return 0;
    }
    add_fact(p, d);
    return 1;
}

void cc_lin_assume_lt(cc_lin_prob *p, const cc_lin *a, const cc_lin *b) { add_fact(p, compare(a, "<", b, 0)); }

/* ---------------------------------------------------------------- the prover */
static long gcd(long a, long b)
{
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static long floor_div(long a, long b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* Integer tightening of row e >= 0.  Returns -1 if it can never hold, 1 if it
 * always holds, 0 otherwise. */
static int tighten(cc_lin *e)
{
    long g = 0;
    for (int i = 0; i < CC_LIN_MAXV; i++) g = gcd(g, e->c[i]);
    if (!g) return e->k < 0 ? -1 : 1;
    if (g > 1) {
        for (int i = 0; i < CC_LIN_MAXV; i++) e->c[i] /= g;
        e->k = floor_div(e->k, g);
    }
    return 0;
}

/* Do the rows have no integer solution (shown over the rationals, after tightening)? */
static int infeasible(const cc_lin *rows, int n, int nvar)
{
    cc_lin *cur = cc_xmalloc((size_t)(n + 1) * sizeof *cur);
    int m = 0, result = 0;
    for (int i = 0; i < n; i++) {
        cc_lin e = rows[i];
        int t = tighten(&e);
        if (t < 0) { free(cur); return 1; }
        if (!t) cur[m++] = e;
    }
    for (int v = 0; v < nvar && !result; v++) {
        cc_lin *next = NULL;
        int nn = 0, give_up = 0;
        size_t cap = 0;
        for (int i = 0; i < m && !give_up && !result; i++) {
            if (cur[i].c[v] == 0) {
                CC_GROW(next, cap, nn + 1);
                next[nn++] = cur[i];
                continue;
            }
            if (cur[i].c[v] < 0) continue;
            for (int j = 0; j < m && !give_up && !result; j++) {
                if (cur[j].c[v] >= 0) continue;
                cc_lin r;
                long a = cur[i].c[v], b = -cur[j].c[v], g = gcd(a, b);
                if (!lin_comb(&r, b / g, &cur[i], a / g, &cur[j])) { give_up = 1; break; }
                int t = tighten(&r);
                if (t < 0) result = 1;
                else if (!t) {
                    int dup = 0;
                    for (int k = 0; k < nn && !dup; k++) dup = !memcmp(&next[k], &r, sizeof r);
                    if (dup) continue;
                    if (nn >= MAX_ROWS) { give_up = 1; break; }
                    CC_GROW(next, cap, nn + 1);
                    next[nn++] = r;
                }
            }
        }
        free(cur);
        cur = next;
        m = nn;
        if (give_up) { free(cur); return 0; }
    }
    free(cur);
    return result;
}

int cc_lin_prove(cc_lin_prob *p, const cc_lin *a, const cc_lin *b, int strict)
{
    cc_lin goal; /* the negation of the claim, as a row: a - b - 1 >= 0 (a <= b), a - b >= 0 (a < b) */
    if (!lin_comb(&goal, 1, a, -1, b)) return 0;
    if (!strict) goal.k -= 1;
    dnf *f = &p->facts;
    if (f->unknown) return 0; /* cannot happen: facts start as one empty alternative */
    for (int i = 0; i < f->n; i++) {
        conj *c = &f->alt[i];
        cc_lin *rows = cc_xmalloc((size_t)(c->n + 1) * sizeof *rows);
        if (c->n) memcpy(rows, c->v, (size_t)c->n * sizeof *rows);
        rows[c->n] = goal;
        int ok = infeasible(rows, c->n + 1, p->nvar);
        free(rows);
        if (!ok) return 0;
    }
    return 1;
}
