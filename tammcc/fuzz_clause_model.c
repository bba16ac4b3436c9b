/*
 * fuzz_clause_model.c — an independent reference recognizer of the `#pragma tamm` grammar, for
 * the clause fuzzer (fuzz_clause.c): it decides accept / reject for a pragma text and, for a
 * reject, the class and offset of the first error.  Written from docs/language.md ("Directives",
 * "Task clauses", "Block references: blocks, slices, ranges, whole tensors"), sharing no code with
 * clause.c:
 *
 *   pragma    := 'tamm' ( 'task' [clause { [','] clause }] | 'taskwait' [ 'on' '(' list ')' ]
 *                       | 'fence' | 'streaming' )
 *   clause    := mode '(' list ')'            mode: read write readwrite accum cwrite creadwrite caccum
 *              | 'permission' '(' pmode ':' list ')'       pmode: read write readwrite accum
 *              | 'device' '(' ('cpu'|'cuda'|'any') ')'
 *              | ('priority'|'if'|'on') '(' expr ')' | 'label' '(' string ')'
 *              | ('wait'|'signal') '(' expr { ',' expr } ')' | 'collective'
 *              (device, priority, if, on, label and collective at most once each)
 *   list      := ref { ',' ref }
 *   ref       := tensor { '[' ( ':' | expr | expr ':' expr ) ']' }
 *   tensor    := ( ident | '(' expr ')' ) { '.' ident | '->' ident | '(' [expr] ')' }
 *
 * An expr is a non-empty run of C tokens with balanced brackets (whether it is a valid C
 * expression is clang's business, later); a ':' that closes a '?' belongs to it.  Comments
 * are white space and `//` ends the text; the whole text is split into tokens before it is
 * parsed, as C does, so an unterminated literal is the first error wherever it is.  Where the documentation does not decide (a NUL
 * byte, an unterminated comment, brackets of different kinds closing each other inside an
 * expr, a tensor expression that starts with another token than a name or '(', more than
 * 8 indices), the model answers MODEL_UNSPEC and the fuzzer compares nothing.  An error at
 * the end of the text has the offset of the text's length.
 */
#include "fuzz_clause_model.h"
#include <ctype.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t n, i;     /* text, length, position */
    model_result r;  /* the verdict, once decided */
    int done;
} M;

enum { K_END, K_ID, K_NUM, K_STR, K_CHR, K_P }; /* K_P: punctuation; "->" is one token */
typedef struct { int k; size_t b, e; } T;

static void stop(M *m, int cls, size_t off)
{
    if (m->done) return;
    m->done = 1;
    m->r.verdict = cls == MODEL_UNSPEC_CLASS ? MODEL_UNSPEC : MODEL_REJECT;
    m->r.cls = cls;
    m->r.off = off;
}

/* the token at position m->i (not consumed); errors in it stop the model */
static T peek(M *m)
{
    T t = { K_END, m->n, m->n };
    size_t i = m->i;
    for (;;) {
        while (i < m->n && isspace((unsigned char)m->s[i])) i++;
        if (i + 1 < m->n && m->s[i] == '/' && m->s[i + 1] == '/') return t; /* the rest is a comment */
        if (i + 1 < m->n && m->s[i] == '/' && m->s[i + 1] == '*') {
            const char *e = NULL;
            for (size_t j = i + 2; j + 1 < m->n; j++)
                if (m->s[j] == '*' && m->s[j + 1] == '/') { e = m->s + j; break; }
            if (!e) { stop(m, MODEL_UNSPEC_CLASS, i); return t; }
            i = (size_t)(e - m->s) + 2;
            continue;
        }
        break;
    }
    if (i >= m->n) return t;
    unsigned char c = (unsigned char)m->s[i];
    t.b = i;
    if (isalpha(c) || c == '_') {
        while (i < m->n && (isalnum((unsigned char)m->s[i]) || m->s[i] == '_')) i++;
        t.k = K_ID;
    } else if (isdigit(c) || (c == '.' && i + 1 < m->n && isdigit((unsigned char)m->s[i + 1]))) {
        /* a C preprocessing number: digits, letters, '.', '_', and a sign after e E p P */
        for (i++; i < m->n; i++) {
            char d = m->s[i];
            if (isalnum((unsigned char)d) || d == '.' || d == '_') continue;
            if ((d == '+' || d == '-') && strchr("eEpP", m->s[i - 1])) continue;
            break;
        }
        t.k = K_NUM;
    } else if (c == '"' || c == '\'') {
        for (i++; i < m->n && m->s[i] != (char)c; i++)
            if (m->s[i] == '\\' && i + 1 < m->n) i++;
        if (i >= m->n) { stop(m, MODEL_E_LEX, t.b); t.k = K_END; t.b = t.e = m->n; return t; }
        i++;
        t.k = c == '"' ? K_STR : K_CHR;
    } else if (c == '-' && i + 1 < m->n && m->s[i + 1] == '>') {
        i += 2;
        t.k = K_P;
    } else {
        i++;
        t.k = K_P;
    }
    t.e = i;
    return t;
}

static void next(M *m, T t) { m->i = t.e; }
static int punct(const M *m, T t, char c) { return t.k == K_P && t.e == t.b + 1 && m->s[t.b] == c; }
static int word(const M *m, T t, const char *w)
{
    return t.k == K_ID && t.e - t.b == strlen(w) && !memcmp(m->s + t.b, w, t.e - t.b);
}
static int is_closer(const M *m, T t) { return punct(m, t, ')') || punct(m, t, ']') || punct(m, t, '}'); }
static int is_opener(const M *m, T t) { return punct(m, t, '(') || punct(m, t, '[') || punct(m, t, '{'); }

/* want punctuation c here, else an error of class cls at the token */
static int want(M *m, char c, int cls)
{
    T t = peek(m);
    if (m->done) return -1;
    if (punct(m, t, c)) { next(m, t); return 0; }
    stop(m, t.k == K_END ? MODEL_E_PAREN : cls, t.b);
    return -1;
}

/* An expr up to a stop character at depth 0 (one of stops) or an unmatched closer; with
 * range != 0 (a block index), a ':' at depth 0 that closes no '?' also stops it.  Returns
 * the number of tokens, or -1 after an error. */
static int expr(M *m, const char *stops, int range)
{
    char stack[256];
    int depth = 0, q = 0, ntok = 0;
    for (;;) {
        T t = peek(m);
        if (m->done) return -1;
        if (t.k == K_END) {
            if (depth > 0) { stop(m, MODEL_E_PAREN, t.b); return -1; }
            return ntok;
        }
        if (t.k == K_P && t.e == t.b + 1) {
            char c = m->s[t.b];
            if (depth == 0 && strchr(stops, c)) return ntok;
            if (depth == 0 && c == '?') q++;
            if (depth == 0 && c == ':' && range) {
                if (q == 0) return ntok;
                q--;
            }
            if (is_opener(m, t)) {
                if (depth == (int)sizeof stack) { stop(m, MODEL_UNSPEC_CLASS, t.b); return -1; }
                stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
            } else if (is_closer(m, t)) {
                if (depth == 0) return ntok; /* not ours: the caller's closer decides */
                if (stack[depth - 1] != c) { stop(m, MODEL_UNSPEC_CLASS, t.b); return -1; }
                depth--;
            }
        }
        next(m, t);
        ntok++;
    }
}

/* '(' expr ')' after a clause name */
static void paren_expr(M *m)
{
    if (want(m, '(', MODEL_E_PAREN)) return;
    T t = peek(m);
    int n = expr(m, ")", 0);
    if (n < 0) return;
    if (n == 0) { stop(m, MODEL_E_EMPTY, t.b); return; }
    want(m, ')', MODEL_E_PAREN);
}

static void ref(M *m)
{
    T t = peek(m);
    if (m->done) return;
    if (t.k == K_ID) {
        next(m, t);
    } else if (punct(m, t, '(')) {
        next(m, t);
        T u = peek(m);
        int n = expr(m, ")", 0);
        if (n < 0) return;
        if (n == 0) { stop(m, MODEL_E_EMPTY, u.b); return; }
        if (want(m, ')', MODEL_E_PAREN)) return;
    } else if (t.k == K_END || is_closer(m, t) || punct(m, t, ',') || punct(m, t, ':')) {
        stop(m, MODEL_E_REF, t.b); /* no tensor at all */
        return;
    } else {
        stop(m, MODEL_UNSPEC_CLASS, t.b); /* `*p`, `a + 1`, ...: the documentation does not say */
        return;
    }
    for (;;) { /* member access and calls are part of the tensor expression */
        t = peek(m);
        if (m->done) return;
        if (punct(m, t, '.') || (t.k == K_P && t.e == t.b + 2)) {
            next(m, t);
            T id = peek(m);
            if (m->done) return;
            if (id.k != K_ID) { stop(m, MODEL_E_REF, id.b); return; }
            next(m, id);
        } else if (punct(m, t, '(')) {
            next(m, t);
            if (expr(m, ")", 0) < 0 || want(m, ')', MODEL_E_PAREN)) return;
        } else {
            break;
        }
    }
    for (int nidx = 0;; nidx++) {
        t = peek(m);
        if (m->done || !punct(m, t, '[')) return;
        if (nidx == 8) { stop(m, MODEL_UNSPEC_CLASS, t.b); return; }
        next(m, t);
        T a = peek(m);
        if (m->done) return;
        if (punct(m, a, ':')) {
            size_t save = m->i;
            next(m, a);
            T b = peek(m);
            if (m->done) return;
            if (punct(m, b, ']')) { next(m, b); continue; } /* a slice */
            m->i = save;
            stop(m, MODEL_E_EMPTY, a.b); /* ":hi": no first block */
            return;
        }
        int n = expr(m, "]", 1);
        if (n < 0) return;
        T c = peek(m);
        if (m->done) return;
        if (n == 0) { stop(m, c.k == K_END ? MODEL_E_PAREN : MODEL_E_EMPTY, c.b); return; } /* "[]" */
        if (punct(m, c, ':')) {
            next(m, c);
            T h = peek(m);
            int k = expr(m, "]", 1);
            if (k < 0) return;
            T d = peek(m);
            if (m->done) return;
            if (punct(m, d, ':')) { stop(m, MODEL_E_RANGE, d.b); return; } /* "lo:hi:x", "lo::" */
            if (k == 0) { stop(m, d.k == K_END ? MODEL_E_PAREN : MODEL_E_EMPTY, h.b); return; } /* "lo:" */
        }
        if (want(m, ']', MODEL_E_PAREN)) return;
    }
}

static void list(M *m)
{
    for (;;) {
        ref(m);
        if (m->done) return;
        T t = peek(m);
        if (m->done || !punct(m, t, ',')) return;
        next(m, t);
    }
}

static const char *const modes[] = { "read", "write", "readwrite", "accum", "cwrite", "creadwrite", "caccum", NULL };

static int in(const M *m, T t, const char *const *words, int nwords)
{
    for (int i = 0; i < nwords && words[i]; i++)
        if (word(m, t, words[i])) return 1;
    return 0;
}

/* one of the words here, else an error of class cls at the token */
static int one_of(M *m, const char *const *words, int nwords, int cls)
{
    T t = peek(m);
    if (m->done) return -1;
    if (!in(m, t, words, nwords)) { stop(m, cls, t.b); return -1; }
    next(m, t);
    return 0;
}

static void task(M *m)
{
    static const char *const once_names[] = { "device", "priority", "if", "on", "label", "collective" };
    int seen[6] = { 0 };
    for (int first = 1;; first = 0) {
        T t = peek(m);
        if (m->done) return;
        if (t.k == K_END) return;
        if (!first && punct(m, t, ',')) { /* the optional comma between two clauses */
            next(m, t);
            t = peek(m);
            if (m->done) return;
            if (t.k == K_END) { stop(m, MODEL_E_CLAUSE, t.b); return; } /* a comma after the last clause */
        }
        if (t.k != K_ID) { stop(m, MODEL_E_CLAUSE, t.b); return; }
        for (int i = 0; i < 6; i++)
            if (word(m, t, once_names[i])) {
                if (seen[i]) { stop(m, MODEL_E_TWICE, t.b); return; }
                seen[i] = 1;
            }
        next(m, t);
        if (in(m, t, modes, 7)) {
            if (want(m, '(', MODEL_E_PAREN)) return;
            list(m);
            if (m->done || want(m, ')', MODEL_E_PAREN)) return;
        } else if (word(m, t, "permission")) {
            if (want(m, '(', MODEL_E_PAREN) || one_of(m, modes, 4, MODEL_E_MODE) || want(m, ':', MODEL_E_PAREN)) return;
            list(m);
            if (m->done || want(m, ')', MODEL_E_PAREN)) return;
        } else if (word(m, t, "device")) {
            static const char *const devices[] = { "cpu", "cuda", "any" };
            if (want(m, '(', MODEL_E_PAREN) || one_of(m, devices, 3, MODEL_E_DEVICE) || want(m, ')', MODEL_E_PAREN)) return;
        } else if (word(m, t, "priority") || word(m, t, "if") || word(m, t, "on")) {
            paren_expr(m);
        } else if (word(m, t, "label")) {
            if (want(m, '(', MODEL_E_PAREN)) return;
            T s = peek(m);
            if (m->done) return;
            if (s.k != K_STR) { stop(m, MODEL_E_LABEL, s.b); return; }
            next(m, s);
            if (want(m, ')', MODEL_E_PAREN)) return;
        } else if (word(m, t, "wait") || word(m, t, "signal")) {
            if (want(m, '(', MODEL_E_PAREN)) return;
            for (;;) {
                T e = peek(m);
                int n = expr(m, ",)", 0);
                if (n < 0) return;
                if (n == 0) { stop(m, peek(m).k == K_END ? MODEL_E_PAREN : MODEL_E_EMPTY, e.b); return; }
                T c = peek(m);
                if (!punct(m, c, ',')) break;
                next(m, c);
            }
            if (want(m, ')', MODEL_E_PAREN)) return;
        } else if (!word(m, t, "collective")) {
            stop(m, MODEL_E_CLAUSE, t.b);
            return;
        }
        if (m->done) return;
    }
}

model_result model_parse(const char *s, size_t n)
{
    M m;
    memset(&m, 0, sizeof m);
    m.s = s;
    m.n = n;
    if (memchr(s, 0, n)) { m.r.verdict = MODEL_UNSPEC; return m.r; } /* a NUL byte: undocumented */
    for (;;) { /* the whole text is split into tokens first (C's translation phase 3) */
        T t = peek(&m);
        if (m.done) return m.r;
        if (t.k == K_END) break;
        next(&m, t);
    }
    m.i = 0;
    T t = peek(&m);
    if (!m.done && !word(&m, t, "tamm")) stop(&m, MODEL_E_NOT_TAMM, t.b);
    if (!m.done) {
        next(&m, t);
        T d = peek(&m);
        if (m.done) return m.r;
        next(&m, d);
        if (word(&m, d, "task")) {
            task(&m);
        } else if (word(&m, d, "taskwait")) {
            T o = peek(&m);
            if (!m.done && o.k != K_END) {
                if (!word(&m, o, "on")) stop(&m, MODEL_E_EXTRA, o.b);
                else {
                    next(&m, o);
                    if (!want(&m, '(', MODEL_E_PAREN)) {
                        list(&m);
                        if (!m.done && !want(&m, ')', MODEL_E_PAREN)) {
                            T x = peek(&m);
                            if (!m.done && x.k != K_END) stop(&m, MODEL_E_EXTRA, x.b);
                        }
                    }
                }
            }
        } else if (word(&m, d, "fence") || word(&m, d, "streaming")) {
            T x = peek(&m);
            if (!m.done && x.k != K_END) stop(&m, MODEL_E_EXTRA, x.b);
        } else {
            stop(&m, MODEL_E_DIRECTIVE, d.b);
        }
    }
    if (!m.done) m.r.verdict = MODEL_ACCEPT;
    return m.r;
}

const char *model_class_name(int cls)
{
    static const char *const names[] = { "none", "unterminated literal", "not a tamm pragma", "bad directive",
                                         "not a clause", "clause twice", "bad permission mode", "bad device",
                                         "label not a string", "missing or unbalanced bracket", "empty expression or index",
                                         "second ':' in a range", "no block reference", "text after the directive",
                                         "unspecified" };
    return cls >= 0 && cls < (int)(sizeof names / sizeof names[0]) ? names[cls] : "?";
}
