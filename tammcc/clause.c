/* clause.c — the `#pragma tamm` grammar: a small lexer and a recursive-descent
 * parser with clang-style diagnostics and "did you mean" (see clause.h). */
#include "clause.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { T_END, T_IDENT, T_NUM, T_STR, T_CHR, T_PUNCT } tkind;
typedef struct { tkind k; size_t b, e; } tok;  /* [b, e) in the pragma text */

typedef struct {
    const cc_source *src;
    const char *s;
    size_t n;
    const size_t *map;
    size_t base;
    tok *t;
    int nt, pos;
    int mute;  /* an error was reported in this clause (or directive): the rest of it would be noise */
    int nerr;  /* errors reported in this pragma */
    size_t t_cap, refs_cap, wait_cap, signal_cap; /* of t and of the directive's refs, wait, signal */
} parser;

static size_t foff(const parser *p, size_t i)
{
    if (i >= p->n) i = p->n ? p->n - 1 : 0;
    return p->map ? p->map[i] : p->base + i;
}

static size_t tok_off(const parser *p, const tok *t) { return t->k == T_END ? foff(p, p->n) : foff(p, t->b); }

static void perr(parser *p, const tok *t, const char *fmt, const char *a, const char *b)
{
    if (p->mute) return; /* one error per clause (per directive outside task clauses) */
    p->mute = 1;
    p->nerr++;
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    cc_diag(p->src, tok_off(p, t), CC_ERROR, "%s", msg);
}

/* ---------------------------------------------------------------- lexer */
static int lex(parser *p)
{
    p->t = NULL;
    p->t_cap = 0;
    p->nt = 0;
    size_t i = 0;
    for (;;) {
        CC_GROW(p->t, p->t_cap, p->nt + 1); /* room for this token, or the END after a comment */
        while (i < p->n && (isspace((unsigned char)p->s[i]) || p->s[i] == '\0')) i++;
        if (i + 1 < p->n && p->s[i] == '/' && p->s[i + 1] == '/') break; /* a comment ends the pragma */
        if (i + 1 < p->n && p->s[i] == '/' && p->s[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < p->n && !(p->s[j] == '*' && p->s[j + 1] == '/')) j++;
            i = j + 2 <= p->n ? j + 2 : p->n;
            continue;
        }
        tok *t = &p->t[p->nt];
        t->b = i;
        if (i >= p->n) {
            t->k = T_END;
            t->e = i;
            p->nt++;
            return 0;
        }
        unsigned char c = (unsigned char)p->s[i];
        if (isalpha(c) || c == '_') {
            while (i < p->n && (isalnum((unsigned char)p->s[i]) || p->s[i] == '_')) i++;
            t->k = T_IDENT;
        } else if (isdigit(c) || (c == '.' && i + 1 < p->n && isdigit((unsigned char)p->s[i + 1]))) {
            while (i < p->n && (isalnum((unsigned char)p->s[i]) || p->s[i] == '.' || p->s[i] == '_' ||
                                ((p->s[i] == '+' || p->s[i] == '-') && (p->s[i - 1] == 'e' || p->s[i - 1] == 'E' ||
                                                                          p->s[i - 1] == 'p' || p->s[i - 1] == 'P'))))
                i++;
            t->k = T_NUM;
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < p->n && p->s[i] != (char)c) {
                if (p->s[i] == '\\' && i + 1 < p->n) i++;
                i++;
            }
            if (i >= p->n) {
                t->e = p->n;
                t->k = T_PUNCT;
                p->nt++;
                perr(p, t, "missing terminating %s character", c == '"' ? "\"" : "'", NULL);
                return -1;
            }
            i++;
            t->k = c == '"' ? T_STR : T_CHR;
        } else if (c == '-' && i + 1 < p->n && p->s[i + 1] == '>') {
            i += 2;
            t->k = T_PUNCT;
        } else {
            i++;
            t->k = T_PUNCT;
        }
        t->e = i;
        p->nt++;
    }
    /* comment: END at the comment */
    p->t[p->nt].k = T_END;
    p->t[p->nt].b = p->t[p->nt].e = i;
    p->nt++;
    return 0;
}

static tok *cur(parser *p) { return &p->t[p->pos]; }
static int is_punct(const parser *p, const tok *t, char c) { return t->k == T_PUNCT && t->e - t->b == 1 && p->s[t->b] == c; }
static int is_word(const parser *p, const tok *t, const char *w)
{
    return t->k == T_IDENT && t->e - t->b == strlen(w) && !memcmp(p->s + t->b, w, t->e - t->b);
}
static char *tok_str(const parser *p, const tok *t)
{
    if (t->k == T_END) return cc_xstrdup("end of line");
    size_t l = t->e - t->b;
    char *r = cc_xmalloc(l + 1);
    memcpy(r, p->s + t->b, l);
    r[l] = 0;
    return r;
}

/* ---------------------------------------------------------------- pieces */
static int expect(parser *p, char c, const char *after)
{
    if (is_punct(p, cur(p), c)) {
        p->pos++;
        return 0;
    }
    char want[4] = { '\'', c, '\'', 0 };
    char *got = tok_str(p, cur(p));
    char what[160];
    snprintf(what, sizeof what, "%s", after);
    if (cur(p)->k == T_END) perr(p, cur(p), "expected %s %s", want, what);
    else {
        char m[400];
        snprintf(m, sizeof m, "expected %s %s, found '%s'", want, what, got);
        perr(p, cur(p), "%s%s", m, NULL);
    }
    free(got);
    return -1;
}

/* A balanced token run up to (not including) a stop character at depth 0:
 * one of `stops`.  Returns its text (trimmed) or NULL if empty / unbalanced. */
static int balanced(parser *p, const char *stops, cc_text *out, const char *what)
{
    int depth = 0;
    int start = p->pos;
    for (;;) {
        tok *t = cur(p);
        if (t->k == T_END) break;
        if (t->k == T_PUNCT && t->e - t->b == 1) {
            char c = p->s[t->b];
            if (depth == 0 && strchr(stops, c)) break;
            if (c == '(' || c == '[' || c == '{') depth++;
            if (c == ')' || c == ']' || c == '}') {
                if (depth == 0) break; /* a closer that is not ours */
                depth--;
            }
        }
        p->pos++;
    }
    if (p->pos == start) {
        perr(p, cur(p), "expected an expression in %s", what, NULL);
        return -1;
    }
    if (cur(p)->k == T_END) {
        char want[8] = "')'";
        if (strchr(stops, ']') && !strchr(stops, ')')) strcpy(want, "']'");
        perr(p, cur(p), "expected %s to close %s", want, what);
        return -1;
    }
    size_t b = p->t[start].b, e = p->t[p->pos - 1].e;
    out->s = cc_xmalloc(e - b + 1);
    memcpy(out->s, p->s + b, e - b);
    out->s[e - b] = 0;
    out->off = foff(p, b);
    return 0;
}

/* The token index of the range ':' in the index starting at p->pos (a ':' at
 * depth 0 that closes no '?' of a conditional expression), or -1; *end gets
 * the index of the token that ends the index (a closer at depth 0 or END), and
 * *second a second range ':' (or -1). */
static int find_range_colon(parser *p, int *end, int *second)
{
    int depth = 0, q = 0, colon = -1;
    *second = -1;
    int i = p->pos;
    for (;; i++) {
        tok *t = &p->t[i];
        if (t->k == T_END) break;
        if (t->k != T_PUNCT || t->e - t->b != 1) continue;
        char c = p->s[t->b];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0) break;
            depth--;
        } else if (depth == 0 && c == '?') q++;
        else if (depth == 0 && c == ':') {
            if (q > 0) q--;
            else if (colon < 0) colon = i;
            else if (*second < 0) *second = i;
        }
    }
    *end = i;
    return colon;
}

/* index := ':' | expr | expr ':' expr (a range of blocks lo..hi-1), kept as
 * the text "lo:hi" (cc_range_split finds the ':' again). */
static int parse_index(parser *p, cc_text *out, const char *tensor)
{
    char w2[128];
    snprintf(w2, sizeof w2, "a block index of '%s'", tensor);
    int end, second;
    int colon = find_range_colon(p, &end, &second);
    if (colon < 0) return balanced(p, "]", out, w2);
    if (colon == p->pos) {
        perr(p, &p->t[colon], "expected the first block of the range before ':' in %s (a range is lo:hi, blocks lo to hi-1)",
             w2, NULL);
        return -1;
    }
    if (second >= 0) {
        perr(p, &p->t[second], "expected ']' after the block range in %s, found a second ':'", w2, NULL);
        return -1;
    }
    if (colon + 1 == end) {
        perr(p, &p->t[end], "expected the end of the range after ':' in %s (a range is lo:hi, blocks lo to hi-1)", w2,
             NULL);
        return -1;
    }
    if (p->t[end].k == T_END) {
        perr(p, &p->t[end], "expected ']' to close %s", w2, NULL);
        return -1;
    }
    size_t b = p->t[p->pos].b, e = p->t[end - 1].e;
    out->s = cc_xmalloc(e - b + 1);
    memcpy(out->s, p->s + b, e - b);
    out->s[e - b] = 0;
    out->off = foff(p, b);
    p->pos = end;
    return 0;
}

int cc_range_split(const char *s, size_t *lo_end, size_t *hi_begin)
{
    int depth = 0, q = 0;
    for (size_t i = 0; s && s[i]; i++) {
        char c = s[i];
        if (c == '"' || c == '\'') { /* a literal */
            for (i++; s[i] && s[i] != c; i++)
                if (s[i] == '\\' && s[i + 1]) i++;
            if (!s[i]) return 0;
            continue;
        }
        if (c == '/' && s[i + 1] == '*') { /* a comment */
            const char *e = strstr(s + i + 2, "*/");
            if (!e) return 0;
            i = (size_t)(e - s) + 1;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') depth--;
        else if (depth == 0 && c == '?') q++;
        else if (depth == 0 && c == ':') {
            if (q > 0) { q--; continue; }
            if (lo_end) *lo_end = i;
            if (hi_begin) *hi_begin = i + 1;
            return 1;
        }
    }
    return 0;
}

char *cc_index_expr(const char *idx)
{
    size_t le, hb;
    char *r;
    if (!idx) return cc_xstrdup("TAMM_ALL");
    if (!cc_range_split(idx, &le, &hb)) {
        size_t n = strlen(idx);
        r = cc_xmalloc(n + 3);
        snprintf(r, n + 3, "(%s)", idx);
        return r;
    }
    size_t n = strlen(idx) + 32;
    r = cc_xmalloc(n);
    snprintf(r, n, "TAMM_RANGE((%.*s), (%s))", (int)le, idx, idx + hb);
    return r;
}

char *cc_loop_range_expr(const char *idx, const char *tensor, int d)
{
    size_t le, hb;
    if (!idx || !cc_range_split(idx, &le, &hb)) return cc_index_expr(idx);
    size_t n = strlen(idx) + strlen(tensor) + 48;
    char *r = cc_xmalloc(n);
    snprintf(r, n, "tamm_cc_range(%s, %d, (%.*s), (%s))", tensor, d, (int)le, idx, idx + hb);
    return r;
}

/* ref := primary { '[' (':' | expr | expr ':' expr) ']' } */
static int parse_ref(parser *p, cc_ref *r, unsigned mode, const char *clause)
{
    memset(r, 0, sizeof *r);
    r->mode = mode;
    tok *t0 = cur(p);
    r->off = tok_off(p, t0);
    int start = p->pos;
    char what[96];
    snprintf(what, sizeof what, "'%s' list", clause);
    if (t0->k == T_IDENT) {
        p->pos++;
    } else if (is_punct(p, t0, '(')) {
        p->pos++;
        cc_text tmp;
        if (balanced(p, ")", &tmp, what)) return -1;
        free(tmp.s);
        if (expect(p, ')', "to close the parenthesised tensor expression")) return -1;
    } else {
        char *got = tok_str(p, t0);
        perr(p, t0, t0->k == T_END ? "expected a block reference (T[i][j], T[i][:], T[lo:hi][j] or T) in %s" :
                                     "expected a block reference (T[i][j], T[i][:], T[lo:hi][j] or T) in %s, found '%s'",
             what, got);
        free(got);
        return -1;
    }
    for (;;) { /* member access and calls belong to the tensor expression */
        tok *t = cur(p);
        if (is_punct(p, t, '.') || (t->k == T_PUNCT && t->e - t->b == 2 && !memcmp(p->s + t->b, "->", 2))) {
            p->pos++;
            if (cur(p)->k != T_IDENT) {
                perr(p, cur(p), "expected a member name in %s", what, NULL);
                return -1;
            }
            p->pos++;
        } else if (is_punct(p, t, '(')) {
            p->pos++;
            cc_text tmp = { 0, 0 };
            if (!is_punct(p, cur(p), ')')) {
                if (balanced(p, ")", &tmp, what)) return -1;
                free(tmp.s);
            }
            if (expect(p, ')', "to close the call")) return -1;
        } else {
            break;
        }
    }
    size_t b = p->t[start].b, e = p->t[p->pos - 1].e;
    r->tensor.s = cc_xmalloc(e - b + 1);
    memcpy(r->tensor.s, p->s + b, e - b);
    r->tensor.s[e - b] = 0;
    r->tensor.off = foff(p, b);
    while (is_punct(p, cur(p), '[')) {
        tok *lb = cur(p);
        p->pos++;
        if (r->nidx == CC_MAX_DIMS) {
            perr(p, lb, "too many block indices (a tensor has at most %s dimensions)", "8", NULL);
            return -1;
        }
        if (is_punct(p, cur(p), ':') && is_punct(p, &p->t[p->pos + 1], ']')) {
            r->idx[r->nidx].s = NULL;
            r->idx[r->nidx].off = tok_off(p, cur(p));
            p->pos++;
        } else if (parse_index(p, &r->idx[r->nidx], r->tensor.s)) {
            return -1;
        }
        r->nidx++;
        if (expect(p, ']', "after the block index")) return -1;
    }
    return 0;
}

static int parse_list(parser *p, cc_ref **refs, int *nrefs, unsigned mode, const char *clause)
{
    for (;;) {
        *refs = cc_grow(*refs, &p->refs_cap, (size_t)*nrefs + 1, sizeof **refs);
        if (parse_ref(p, &(*refs)[*nrefs], mode, clause)) {
            cc_ref *r = &(*refs)[*nrefs];
            free(r->tensor.s);
            for (int d = 0; d < r->nidx; d++) free(r->idx[d].s);
            return -1;
        }
        (*nrefs)++;
        if (!is_punct(p, cur(p), ',')) return 0;
        p->pos++;
    }
}

static int parse_exprs(parser *p, cc_text **v, int *n, size_t *cap, const char *what)
{
    for (;;) {
        cc_text t;
        if (balanced(p, ",)", &t, what)) return -1;
        *v = cc_grow(*v, cap, (size_t)*n + 1, sizeof **v);
        (*v)[(*n)++] = t;
        if (!is_punct(p, cur(p), ',')) return 0;
        p->pos++;
    }
}

static const char *const directives[] = { "task", "taskwait", "fence", "streaming", NULL };
static const char *const task_clauses[] = { "read", "write", "readwrite", "accum", "cwrite", "creadwrite", "caccum",
                                            "permission", "device", "priority", "if", "on", "label", "wait",
                                            "signal", "collective", NULL };
static const unsigned clause_mode[] = { CC_READ, CC_WRITE, CC_RW, CC_ACCUM, CC_WRITE | CC_CANCEL,
                                        CC_RW | CC_CANCEL, CC_ACCUM | CC_CANCEL };

const char *cc_mode_name(unsigned mode)
{
    int c = (mode & CC_CANCEL) != 0;
    switch (mode & 7u) {
    case CC_READ: return "read";
    case CC_WRITE: return c ? "cwrite" : "write";
    case CC_RW: return c ? "creadwrite" : "readwrite";
    case CC_ACCUM: return c ? "caccum" : "accum";
    case CC_READ | CC_ACCUM: return "readwrite";
    default: return "readwrite";
    }
}

static int once(parser *p, tok *t, int *seen, const char *name)
{
    if (*seen) {
        perr(p, t, "clause '%s' appears twice", name, NULL);
        return -1;
    }
    *seen = 1;
    return 0;
}

static int paren_expr(parser *p, cc_text *out, const char *name)
{
    char what[64];
    snprintf(what, sizeof what, "'%s(...)'", name);
    if (expect(p, '(', what + 0)) return -1;
    if (balanced(p, ")", out, what)) return -1;
    return expect(p, ')', what);
}

/* The device that another name of it means (`gpu` is `cuda`, `CPU` is
 * `cpu`), or NULL, and in *why what makes it that device: a hint that edit
 * distance would get wrong (`gpu` is one letter from `cpu`). */
static const char *device_alias(const char *d, const char **why)
{
    static const char *const alias[][3] = { { "gpu", "cuda", " (tamm's GPU variants are CUDA)" },
                                            { "nvidia", "cuda", " (tamm's GPU variants are CUDA)" },
                                            { "host", "cpu", "" }, { "cuda", "cuda", "" }, { "cpu", "cpu", "" },
                                            { "any", "any", "" } };
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++) {
        size_t n = strlen(alias[i][0]);
        int same = strlen(d) == n;
        for (size_t j = 0; same && j < n; j++) same = tolower((unsigned char)d[j]) == alias[i][0][j];
        if (same) {
            *why = alias[i][2];
            return alias[i][1];
        }
    }
    return NULL;
}

/* After an error in the clause whose name is token `start`: go past the
 * clause (its name and the parenthesised group after it; without one, up to
 * the next clause name), so that the next clause is checked too.  Returns -1
 * where the group is not closed (nothing after it can be told apart). */
static int skip_clause(parser *p, int start)
{
    int i = start + 1;
    if (p->t[start].k == T_PUNCT && is_punct(p, &p->t[start], '(')) i = start; /* a stray group */
    if (is_punct(p, &p->t[i], '(')) {
        for (int depth = 0; p->t[i].k != T_END; i++) {
            if (is_punct(p, &p->t[i], '(')) depth++;
            else if (is_punct(p, &p->t[i], ')') && --depth == 0) break;
        }
        if (p->t[i].k == T_END) return -1;
        i++;
    } else {
        for (; p->t[i].k != T_END; i++) {
            int known = 0;
            for (int c = 0; task_clauses[c] && p->t[i].k == T_IDENT && !known; c++) known = is_word(p, &p->t[i], task_clauses[c]);
            if (known) break;
        }
    }
    if (i > p->pos) p->pos = i;
    return 0;
}

static int parse_task(parser *p, cc_pragma *o)
{
    int seen_prio = 0, seen_if = 0, seen_on = 0, seen_label = 0, seen_dev = 0, seen_coll = 0;
    for (int first = 1;; first = 0) {
        p->mute = 0; /* every bad clause is reported, each at its place */
        /* `clause [[,] clause]...`: a comma only between two clauses (not before the first one,
         * where it is reported below as no clause, nor after the last one) */
        if (!first && is_punct(p, cur(p), ',')) {
            p->pos++;
            if (cur(p)->k == T_END) {
                perr(p, cur(p), "expected a clause of '#pragma tamm task' after ',', found end of line%s%s", NULL, NULL);
                return -1;
            }
        }
        tok *t = cur(p);
        int start = p->pos;
        if (t->k == T_END) return p->nerr ? -1 : 0;
        if (t->k != T_IDENT) {
            char *g = tok_str(p, t);
            perr(p, t, "expected a clause of '#pragma tamm task', found '%s'", g, NULL);
            free(g);
            if (skip_clause(p, start)) return -1;
            continue;
        }
        char *w = tok_str(p, t);
        int ci = -1;
        for (int i = 0; task_clauses[i]; i++)
            if (!strcmp(w, task_clauses[i])) ci = i;
        if (ci < 0) {
            const char *s = cc_suggest(w, task_clauses);
            if (!strcmp(w, "depend"))
                perr(p, t, "unknown clause '%s' in '#pragma tamm task': tamm infers dependences from the blocks the "
                     "task body accesses; remove depend(...), or declare the modes with read(...), write(...), "
                     "readwrite(...) or accum(...)%s", w, "");
            else if (s) perr(p, t, "unknown clause '%s' in '#pragma tamm task'; did you mean '%s'?", w, s);
            else perr(p, t, "unknown clause '%s' in '#pragma tamm task'", w, NULL);
            free(w);
            if (skip_clause(p, start)) return -1;
            continue;
        }
        p->pos++;
        int rc = 0;
        char what[64];
        snprintf(what, sizeof what, "after '%s'", w);
        if (ci <= 6) {
            rc = expect(p, '(', what) || parse_list(p, &o->refs, &o->nrefs, clause_mode[ci], w) ||
                 expect(p, ')', "to close the list");
        } else if (!strcmp(w, "permission")) {
            rc = expect(p, '(', what);
            if (!rc) {
                tok *mt = cur(p);
                static const char *const pm[] = { "read", "write", "readwrite", "accum", NULL };
                static const unsigned pmv[] = { CC_READ, CC_WRITE, CC_RW, CC_ACCUM };
                char *m = tok_str(p, mt);
                int mi = -1;
                for (int i = 0; mt->k == T_IDENT && pm[i]; i++)
                    if (!strcmp(m, pm[i])) mi = i;
                if (mi < 0) {
                    const char *s = mt->k == T_IDENT ? cc_suggest(m, pm) : NULL;
                    if (s) perr(p, mt, "unknown permission mode '%s'; did you mean '%s'?", m, s);
                    else perr(p, mt, "expected read, write, readwrite or accum in 'permission(mode: list)', found '%s'", m, NULL);
                    rc = -1;
                } else {
                    p->pos++;
                    rc = expect(p, ':', "after the permission mode") ||
                         parse_list(p, &o->refs, &o->nrefs, pmv[mi] | CC_PERMONLY, "permission") ||
                         expect(p, ')', "to close the list");
                }
                free(m);
            }
        } else if (!strcmp(w, "device")) {
            rc = once(p, t, &seen_dev, w) || expect(p, '(', what);
            if (!rc) {
                tok *dt = cur(p);
                char *d = tok_str(p, dt);
                static const char *const dv[] = { "cpu", "cuda", "any", NULL };
                if (!strcmp(d, "cpu")) o->device = CC_DEV_CPU;
                else if (!strcmp(d, "cuda")) o->device = CC_DEV_CUDA;
                else if (!strcmp(d, "any")) o->device = CC_DEV_ANY;
                else {
                    const char *why = "";
                    const char *a = dt->k == T_IDENT ? device_alias(d, &why) : NULL;
                    const char *s = dt->k == T_IDENT ? cc_suggest(d, dv) : NULL;
                    char m[160];
                    snprintf(m, sizeof m, "unknown device '%%s'; did you mean '%%s'?%s", why);
                    if (a) perr(p, dt, m, d, a);
                    else if (s) perr(p, dt, "unknown device '%s'; did you mean '%s'?", d, s);
                    else perr(p, dt, "unknown device '%s'; expected cpu, cuda or any", d, NULL);
                    rc = -1;
                }
                free(d);
                if (!rc) {
                    p->pos++;
                    o->has_device = 1;
                    rc = expect(p, ')', "after the device");
                }
            }
        } else if (!strcmp(w, "priority")) {
            rc = once(p, t, &seen_prio, w) || paren_expr(p, &o->priority, w);
        } else if (!strcmp(w, "if")) {
            rc = once(p, t, &seen_if, w) || paren_expr(p, &o->ifexpr, w);
        } else if (!strcmp(w, "on")) {
            rc = once(p, t, &seen_on, w) || paren_expr(p, &o->on, w);
        } else if (!strcmp(w, "label")) {
            rc = once(p, t, &seen_label, w) || expect(p, '(', what);
            if (!rc) {
                tok *st = cur(p);
                if (st->k != T_STR) {
                    char *g = tok_str(p, st);
                    perr(p, st, "expected a string literal in 'label(...)', found '%s'", g, NULL);
                    free(g);
                    rc = -1;
                } else {
                    o->label.s = tok_str(p, st);
                    o->label.off = tok_off(p, st);
                    p->pos++;
                    rc = expect(p, ')', "after the label");
                }
            }
        } else if (!strcmp(w, "wait") || !strcmp(w, "signal")) {
            int isw = w[0] == 'w';
            rc = expect(p, '(', what) ||
                 parse_exprs(p, isw ? &o->wait : &o->signal, isw ? &o->nwait : &o->nsignal,
                             isw ? &p->wait_cap : &p->signal_cap, isw ? "'wait(...)'" : "'signal(...)'") ||
                 expect(p, ')', "to close the fence list");
        } else { /* collective */
            rc = once(p, t, &seen_coll, w);
            o->collective = 1;
        }
        free(w);
        if (rc && skip_clause(p, start)) return -1;
    }
}

int cc_parse_pragma(const cc_source *src, const char *text, size_t len, const size_t *map, size_t base, cc_pragma *o)
{
    parser p = { src, text, len, map, base, NULL, 0, 0, 0, 0, 0, 0, 0, 0 };
    size_t off0 = o->off, end0 = o->end;
    memset(o, 0, sizeof *o);
    o->off = off0;
    o->end = end0;
    if (lex(&p)) goto fail;
    if (!is_word(&p, cur(&p), "tamm")) {
        perr(&p, cur(&p), "not a tamm pragma%s%s", NULL, NULL);
        goto fail;
    }
    p.pos++;
    tok *d = cur(&p);
    o->name_off = tok_off(&p, d);
    if (d->k != T_IDENT) {
        perr(&p, d, "expected a tamm directive (task, taskwait, fence or streaming)%s%s", NULL, NULL);
        goto fail;
    }
    char *w = tok_str(&p, d);
    p.pos++;
    if (!strcmp(w, "task")) {
        o->kind = CC_P_TASK;
        free(w);
        if (parse_task(&p, o)) goto fail;
    } else if (!strcmp(w, "taskwait")) {
        o->kind = CC_P_TASKWAIT;
        free(w);
        tok *t = cur(&p);
        if (t->k != T_END) {
            char *cw = tok_str(&p, t);
            static const char *const tw[] = { "on", NULL };
            if (!is_word(&p, t, "on")) {
                const char *s = t->k == T_IDENT ? cc_suggest(cw, tw) : NULL;
                if (s) perr(&p, t, "unknown clause '%s' in '#pragma tamm taskwait'; did you mean '%s'?", cw, s);
                else perr(&p, t, "unexpected '%s' in '#pragma tamm taskwait' (only 'on(list)' is allowed)", cw, NULL);
                free(cw);
                goto fail;
            }
            free(cw);
            p.pos++;
            o->has_on_list = 1;
            if (expect(&p, '(', "after 'on'") || parse_list(&p, &o->refs, &o->nrefs, CC_READ, "on") ||
                expect(&p, ')', "to close the list"))
                goto fail;
            if (cur(&p)->k != T_END) {
                char *g = tok_str(&p, cur(&p));
                perr(&p, cur(&p), "unexpected '%s' after 'on(...)' in '#pragma tamm taskwait'", g, NULL);
                free(g);
                goto fail;
            }
        }
    } else if (!strcmp(w, "fence") || !strcmp(w, "streaming")) {
        o->kind = w[0] == 'f' ? CC_P_FENCE : CC_P_STREAMING;
        if (cur(&p)->k != T_END) {
            char *g = tok_str(&p, cur(&p));
            char m[200];
            snprintf(m, sizeof m, "unexpected '%s' after '#pragma tamm %s' (it takes no clauses)", g, w);
            perr(&p, cur(&p), "%s%s", m, NULL);
            free(g);
            free(w);
            goto fail;
        }
        free(w);
    } else {
        const char *s = cc_suggest(w, directives);
        if (s) perr(&p, d, "unknown tamm directive '%s'; did you mean '%s'?", w, s);
        else perr(&p, d, "unknown tamm directive '%s' (expected task, taskwait, fence or streaming)", w, NULL);
        free(w);
        goto fail;
    }
    free(p.t);
    return 0;
fail:
    free(p.t);
    cc_pragma_free(o);
    return -1;
}

void cc_pragma_free(cc_pragma *o)
{
    for (int i = 0; i < o->nrefs; i++) {
        free(o->refs[i].tensor.s);
        for (int d = 0; d < o->refs[i].nidx; d++) free(o->refs[i].idx[d].s);
    }
    free(o->refs);
    free(o->priority.s);
    free(o->ifexpr.s);
    free(o->on.s);
    free(o->label.s);
    for (int i = 0; i < o->nwait; i++) free(o->wait[i].s);
    for (int i = 0; i < o->nsignal; i++) free(o->signal[i].s);
    free(o->wait);
    free(o->signal);
    o->refs = NULL;
    o->nrefs = 0;
    o->priority.s = o->ifexpr.s = o->on.s = o->label.s = NULL;
    o->wait = o->signal = NULL;
    o->nwait = o->nsignal = 0;
}

/* whitespace-free copy of an expression text */
static void squeeze(char **o, size_t *n, size_t *cap, const char *s)
{
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) continue;
        CC_GROW(*o, *cap, *n + 2);
        (*o)[(*n)++] = *s;
    }
    (*o)[*n] = 0;
}

char *cc_ref_text(const cc_ref *r)
{
    size_t n = 0, cap = 64;
    char *o = cc_xmalloc(cap);
    o[0] = 0;
    squeeze(&o, &n, &cap, r->tensor.s);
    for (int d = 0; d < r->nidx; d++) {
        squeeze(&o, &n, &cap, "[");
        squeeze(&o, &n, &cap, r->idx[d].s ? r->idx[d].s : ":");
        squeeze(&o, &n, &cap, "]");
    }
    return o;
}
