/* mexpand.c — in-place expansion of the user's macros that hold tamm directives
 * or tamm API names (see mexpand.h). */
#include "mexpand.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *s; int space; } mtok;   /* a token of a replacement list; space: whitespace before it */

typedef struct {
    CXCursor def;
    char *name;
    int funlike, variadic, nparam;   /* variadic: the last parameter is __VA_ARGS__ or GNU `name...` */
    char **param;
    mtok *body; int nbody;
    int tamm;                        /* holds a tamm directive or name, directly or through another macro */
    int usable;                      /* names itself only as a function call `NAME(...)`, which the
                                      * expansion writes `(NAME)(...)` */
} mdef;

typedef struct { mdef *v; int n; size_t cap; CXFile main; const char *text; size_t len; } mctx;

static char *spell(CXTranslationUnit tu, CXToken t)
{
    CXString s = clang_getTokenSpelling(tu, t);
    char *r = cc_xstrdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

static size_t tok_off(CXTranslationUnit tu, CXToken t, int end)
{
    CXSourceRange r = clang_getTokenExtent(tu, t);
    unsigned o;
    clang_getFileLocation(end ? clang_getRangeEnd(r) : clang_getRangeStart(r), NULL, NULL, NULL, &o);
    return o;
}

/* the header of tamm itself, whose macros (tamm_block ...) tammcc reads as they are */
static int tamm_header(CXSourceLocation loc)
{
    CXFile f;
    clang_getFileLocation(loc, &f, NULL, NULL, NULL);
    if (!f) return 0;
    CXString s = clang_getFileName(f);
    const char *p = clang_getCString(s), *bn = p ? strrchr(p, '/') : NULL;
    bn = bn ? bn + 1 : p ? p : "";
    int r = !strcmp(bn, "tamm.h") || !strcmp(bn, "tamm_cc.h") || !strcmp(bn, "tamm_cuda_emu.h") ||
            !strcmp(bn, "tamm_blas_cuda.h");
    clang_disposeString(s);
    return r;
}

/* a string literal whose contents start with the word tamm */
static int starts_tamm_word(const char *lit)
{
    if (lit[0] != '"') return 0;
    lit++;
    while (*lit == ' ' || *lit == '\t') lit++;
    return !strncmp(lit, "tamm", 4) && !(isalnum((unsigned char)lit[4]) || lit[4] == '_');
}

/* a macro definition: its parameters and replacement list */
static void read_def(CXTranslationUnit tu, CXCursor c, mdef *m)
{
    memset(m, 0, sizeof *m);
    m->def = c;
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned last;
    clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &last);
    CXToken *t;
    unsigned n;
    clang_tokenize(tu, r, &t, &n);
    while (n > 0 && tok_off(tu, t[n - 1], 0) > last) n--; /* libclang may add the token after the range */
    m->funlike = clang_Cursor_isMacroFunctionLike(c);
    m->usable = 1;
    unsigned i = 0;
    if (n > 0) m->name = spell(tu, t[i++]);
    else m->name = cc_xstrdup("");
    if (m->funlike && i < n) {
        i++; /* ( */
        for (; i < n; i++) {
            char *s = spell(tu, t[i]);
            if (!strcmp(s, ")")) { free(s); i++; break; }
            if (!strcmp(s, ",")) { free(s); continue; }
            if (!strcmp(s, "...")) {
                free(s);
                if (m->variadic) continue; /* GNU `name...`: the name is already the last parameter */
                s = cc_xstrdup("__VA_ARGS__");
            } else if (i + 1 < n) {
                char *nx = spell(tu, t[i + 1]);
                if (!strcmp(nx, "...")) m->variadic = 1;
                free(nx);
            }
            if (!strcmp(s, "__VA_ARGS__")) m->variadic = 1;
            m->param = cc_xrealloc(m->param, (size_t)(m->nparam + 1) * sizeof *m->param);
            m->param[m->nparam++] = s;
        }
    }
    m->body = cc_xcalloc(n - (i < n ? i : n) + 1, sizeof *m->body);
    for (unsigned k = i; k < n; k++) {
        mtok *b = &m->body[m->nbody++];
        b->s = spell(tu, t[k]);
        b->space = k > i && tok_off(tu, t[k], 0) > tok_off(tu, t[k - 1], 1);
        if (k > i && !strcmp(m->body[m->nbody - 2].s, m->name) && (!m->funlike || strcmp(b->s, "(")))
            m->usable = 0; /* names itself other than as a call of the function of its name */
        if (!strncmp(b->s, "tamm_", 5)) m->tamm = 1;
        /* _Pragma("tamm ..."), or _Pragma(#x) whose argument may be one (`#define PRAGMA(x) _Pragma(#x)`) */
        if (!strcmp(b->s, "_Pragma") && k + 2 < n) {
            char *lit = spell(tu, t[k + 2]);
            if (starts_tamm_word(lit) || !strcmp(lit, "#")) m->tamm = 1;
            free(lit);
        }
    }
    if (m->nbody > 0 && !strcmp(m->body[m->nbody - 1].s, m->name)) m->usable = 0;
    clang_disposeTokens(tu, t, n);
}

static void free_def(mdef *m)
{
    free(m->name);
    for (int i = 0; i < m->nparam; i++) free(m->param[i]);
    free(m->param);
    for (int i = 0; i < m->nbody; i++) free(m->body[i].s);
    free(m->body);
}

static enum CXChildVisitResult def_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    mctx *x = d;
    if (clang_getCursorKind(c) != CXCursor_MacroDefinition) return CXChildVisit_Continue;
    CXSourceLocation loc = clang_getCursorLocation(c);
    if (clang_Location_isInSystemHeader(loc) || tamm_header(loc)) return CXChildVisit_Continue;
    CC_GROW(x->v, x->cap, x->n + 1);
    read_def(clang_Cursor_getTranslationUnit(c), c, &x->v[x->n++]);
    return CXChildVisit_Continue;
}

/* ---------------------------------------------------------------- invocations */
typedef struct { size_t b, e; char *rep; char *name; size_t xl; } repl; /* xl: rep's length without its line breaks */
typedef struct { repl *v; int n; size_t cap; mctx *m; } rctx;

/* skip whitespace, comments and backslash-newlines from i */
static size_t skip_space(const char *s, size_t n, size_t i)
{
    for (;;) {
        if (i < n && (isspace((unsigned char)s[i]) || (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n'))) { i++; continue; }
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            const char *c = strstr(s + i + 2, "*/");
            i = c && (size_t)(c - s) < n ? (size_t)(c - s) + 2 : n;
            continue;
        }
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n') i++;
            continue;
        }
        return i;
    }
}

/* an argument's text: comments and line breaks become spaces, trimmed */
static char *arg_text(const char *s, size_t b, size_t e)
{
    char *r = cc_xmalloc(e - b + 1);
    size_t n = 0;
    char q = 0;
    for (size_t i = b; i < e; i++) {
        char c = s[i];
        if (!q && i + 1 < e && c == '/' && (s[i + 1] == '*' || s[i + 1] == '/')) {
            size_t j = skip_space(s, e, i);
            i = j - 1;
            c = ' ';
        } else if (c == '\\' && i + 1 < e && s[i + 1] == '\n') {
            i++;
            continue;
        } else if (q && c == '\\' && i + 1 < e) {
            r[n++] = c;
            c = s[++i];
        } else if (c == '"' || c == '\'') {
            q = !q ? c : q == c ? 0 : q;
        }
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
        if (c == ' ' && (n == 0 || r[n - 1] == ' ')) continue;
        r[n++] = c;
    }
    while (n > 0 && r[n - 1] == ' ') n--;
    r[n] = 0;
    return r;
}

/* the invocation's arguments: [open, close) holds them; raw texts of each and of the variadic part */
static int split_args(const char *s, size_t open, size_t close, const mdef *m, char ***args, char **va)
{
    size_t cuts[512];
    int nc = 0, depth = 0;
    char q = 0;
    cuts[nc++] = open + 1;
    for (size_t i = open + 1; i < close; i++) {
        char c = s[i];
        if (q) { if (c == '\\') i++; else if (c == q) q = 0; continue; }
        if (c == '"' || c == '\'') q = c;
        else if (c == '/' && i + 1 < close && (s[i + 1] == '*' || s[i + 1] == '/')) i = skip_space(s, close, i) - 1;
        else if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') depth--;
        else if (c == ',' && depth == 0 && nc < 511) cuts[nc++] = i + 1;
    }
    cuts[nc] = close + 1;
    int named = m->variadic ? m->nparam - 1 : m->nparam;
    if (nc < named || (!m->variadic && nc > (m->nparam ? m->nparam : 1))) return 0;
    *args = cc_xcalloc((size_t)m->nparam + 1, sizeof **args);
    for (int k = 0; k < named; k++) (*args)[k] = arg_text(s, cuts[k], cuts[k + 1] - 1);
    *va = m->variadic ? (nc > named ? arg_text(s, cuts[named], close) : cc_xstrdup("")) : NULL;
    if (m->variadic) (*args)[named] = cc_xstrdup(*va);
    return 1;
}

static int param_index(const mdef *m, const char *s)
{
    for (int i = 0; i < m->nparam; i++) if (!strcmp(m->param[i], s)) return i;
    return -1;
}

typedef struct { char *s; size_t n, cap; } sbuf;

static void put(sbuf *b, const char *s, size_t l)
{
    CC_GROW(b->s, b->cap, b->n + l + 1);
    memcpy(b->s + b->n, s, l);
    b->n += l;
    b->s[b->n] = 0;
}

static void stringify(sbuf *b, const char *a)
{
    put(b, "\"", 1);
    char q = 0;
    for (const char *p = a; *p; p++) {
        if (*p == '"' || (*p == '\\' && q)) put(b, "\\", 1);
        if (q && *p == '\\' && p[1]) { put(b, p, 1); p++; if (*p == '"' || *p == '\\') put(b, "\\", 1); }
        else if (*p == '"' || *p == '\'') q = !q ? *p : q == *p ? 0 : q;
        put(b, p, 1);
    }
    put(b, "\"", 1);
}

/* tokens [from, to) of the replacement list with the arguments substituted into b */
static void subst_range(sbuf *b, const mdef *m, char **args, int from, int to)
{
    int paste = 0;
    const char *va = m->variadic ? args[m->nparam - 1] : "";
    for (int i = from; i < to; i++) {
        const mtok *t = &m->body[i];
        if (!strcmp(t->s, "##")) {
            while (b->n > 0 && b->s[b->n - 1] == ' ') b->s[--b->n] = 0;
            paste = 1;
            /* GNU: `, ## __VA_ARGS__` drops the comma when there are no variadic arguments */
            int v = i + 1 < to ? param_index(m, m->body[i + 1].s) : -1;
            if (m->variadic && v == m->nparam - 1 && !va[0] && b->n > 0 && b->s[b->n - 1] == ',') b->s[--b->n] = 0;
            continue;
        }
        if (m->variadic && !strcmp(t->s, "__VA_OPT__") && i + 1 < to && !strcmp(m->body[i + 1].s, "(")) {
            int close = i + 2, depth = 1; /* its tokens, if there are variadic arguments */
            for (; close < to; close++) {
                depth += !strcmp(m->body[close].s, "(") - !strcmp(m->body[close].s, ")");
                if (!depth) break;
            }
            if (va[0]) {
                if (!paste && b->n > 0 && b->s[b->n - 1] != ' ') put(b, " ", 1);
                subst_range(b, m, args, i + 2, close);
            }
            i = close;
            paste = 0;
            continue;
        }
        int pi = m->funlike ? param_index(m, t->s) : -1;
        int str = m->funlike && !strcmp(t->s, "#") && i + 1 < to && param_index(m, m->body[i + 1].s) >= 0;
        int next_paste = i + 1 < to && !strcmp(m->body[i + 1].s, "##");
        if (!paste && b->n > 0 && b->s[b->n - 1] != ' ' && (t->space || pi >= 0 || str)) put(b, " ", 1);
        if (str) {
            stringify(b, args[param_index(m, m->body[++i].s)]);
        } else if (pi >= 0) {
            put(b, args[pi], strlen(args[pi]));
        } else if (!strcmp(t->s, m->name)) { /* the macro's own name: not expanded again, so the function */
            put(b, "(", 1);
            put(b, t->s, strlen(t->s));
            put(b, ")", 1);
        } else {
            put(b, t->s, strlen(t->s));
        }
        paste = 0;
        if (pi >= 0 && !next_paste && i + 1 < to) put(b, " ", 1); /* the argument's last token stays apart */
    }
}

/* the replacement list with the arguments substituted (no rescanning: the
 * compiler rescans the new text at the same place) */
static char *substitute(const mdef *m, char **args)
{
    sbuf b = { cc_xstrdup(""), 0, 1 };
    subst_range(&b, m, args, 0, m->nbody);
    return b.s;
}

static enum CXChildVisitResult use_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    rctx *r = d;
    mctx *x = r->m;
    if (clang_getCursorKind(c) != CXCursor_MacroExpansion) return CXChildVisit_Continue;
    CXFile f;
    unsigned off;
    clang_getFileLocation(clang_getCursorLocation(c), &f, NULL, NULL, &off);
    if (!f || !clang_File_isEqual(f, x->main)) return CXChildVisit_Continue;
    CXCursor def = clang_getCursorReferenced(c);
    const mdef *m = NULL;
    for (int i = 0; i < x->n && !m; i++) if (clang_equalCursors(def, x->v[i].def)) m = &x->v[i];
    if (!m || !m->tamm || !m->usable) return CXChildVisit_Continue;
    size_t b = off, e = b + strlen(m->name);
    if (e > x->len || memcmp(x->text + b, m->name, strlen(m->name))) return CXChildVisit_Continue;
    char **args = NULL, *va = NULL;
    if (m->funlike) {
        size_t open = skip_space(x->text, x->len, e), close = open + 1;
        if (open >= x->len || x->text[open] != '(') return CXChildVisit_Continue;
        int depth = 1;
        char q = 0;
        for (; close < x->len && depth > 0; close++) {
            char ch = x->text[close];
            if (q) { if (ch == '\\') close++; else if (ch == q) q = 0; continue; }
            if (ch == '"' || ch == '\'') q = ch;
            else if (ch == '/' && close + 1 < x->len && (x->text[close + 1] == '*' || x->text[close + 1] == '/'))
                close = skip_space(x->text, x->len, close) - 1;
            else if (ch == '(') depth++;
            else if (ch == ')') depth--;
        }
        if (depth) return CXChildVisit_Continue;
        close--; /* the ')' */
        if (!split_args(x->text, open, close, m, &args, &va)) return CXChildVisit_Continue;
        e = close + 1;
    }
    char *rep = substitute(m, args);
    for (int k = 0; args && k < m->nparam; k++) free(args[k]);
    free(args);
    free(va);
    CC_GROW(r->v, r->cap, r->n + 1);
    r->v[r->n++] = (repl){ b, e, rep, cc_xstrdup(m->name), 0 };
    return CXChildVisit_Continue;
}

static int cmp_repl(const void *p, const void *q)
{
    const repl *a = p, *b = q;
    return a->b != b->b ? (a->b < b->b ? -1 : 1) : a->e > b->e ? -1 : a->e < b->e;
}

/* where offset o of the old text lies in the new one (end: o is the end of a span) */
static size_t map_off(const repl *v, const size_t *nb, int n, size_t o, int end)
{
    long d = 0;
    for (int i = 0; i < n; i++) {
        if (end ? v[i].e <= o : v[i].e <= o && v[i].b < o) { d = (long)nb[i] + (long)strlen(v[i].rep) - (long)v[i].e; continue; }
        if (v[i].b < o) return nb[i] + (end ? strlen(v[i].rep) : 0); /* inside an expansion */
        break;
    }
    return (size_t)((long)o + d);
}

int cc_expand_macros(CXTranslationUnit tu, CXFile file, const char *text, size_t len, cc_expanded *x)
{
    mctx m = { NULL, 0, 0, file, text, len };
    CXCursor root = clang_getTranslationUnitCursor(tu);
    clang_visitChildren(root, def_visit, &m);
    for (int changed = 1; changed;) { /* through other macros: a macro that invokes a tamm macro is one */
        changed = 0;
        for (int i = 0; i < m.n; i++) {
            if (m.v[i].tamm) continue;
            for (int k = 0; k < m.v[i].nbody && !m.v[i].tamm; k++)
                for (int j = 0; j < m.n && !m.v[i].tamm; j++)
                    if (m.v[j].tamm && !strcmp(m.v[i].body[k].s, m.v[j].name)) m.v[i].tamm = changed = 1;
        }
    }
    rctx r = { NULL, 0, 0, &m };
    clang_visitChildren(root, use_visit, &r);
    if (r.n > 0) qsort(r.v, (size_t)r.n, sizeof *r.v, cmp_repl);
    int k = 0; /* an invocation in another one's arguments is expanded in a later round */
    for (int i = 0; i < r.n; i++) {
        if (k > 0 && r.v[i].b < r.v[k - 1].e) { free(r.v[i].rep); free(r.v[i].name); continue; }
        r.v[k++] = r.v[i];
    }
    r.n = k;
    if (r.n) {
        sbuf nt = { cc_xstrdup(""), 0, 1 };
        size_t *nb = cc_xmalloc((size_t)r.n * sizeof *nb), pos = 0;
        for (int i = 0; i < r.n; i++) {
            size_t nl = 0, rl = strlen(r.v[i].rep); /* the invocation's line breaks after it: lines keep their numbers */
            for (size_t j = r.v[i].b; j < r.v[i].e; j++) nl += text[j] == '\n';
            r.v[i].rep = cc_xrealloc(r.v[i].rep, rl + nl + 1);
            memset(r.v[i].rep + rl, '\n', nl);
            r.v[i].rep[rl + nl] = 0;
            r.v[i].xl = rl;
            put(&nt, text + pos, r.v[i].b - pos);
            nb[i] = nt.n;
            put(&nt, r.v[i].rep, rl + nl);
            pos = r.v[i].e;
        }
        put(&nt, text + pos, len - pos);
        for (int i = 0; i < x->nexp; i++) {
            x->exp[i].b = map_off(r.v, nb, r.n, x->exp[i].b, 0);
            x->exp[i].e = map_off(r.v, nb, r.n, x->exp[i].e, 1);
        }
        for (int i = 0; i < r.n; i++) {
            CC_GROW(x->exp, x->exp_cap, x->nexp + 1);
            x->exp[x->nexp++] = (cc_expansion){ nb[i], nb[i] + r.v[i].xl, r.v[i].name };
            r.v[i].name = NULL;
        }
        free(nb);
        free(x->text);
        x->text = nt.s;
        x->len = nt.n;
    }
    for (int i = 0; i < r.n; i++) { free(r.v[i].rep); free(r.v[i].name); }
    free(r.v);
    for (int i = 0; i < m.n; i++) free_def(&m.v[i]);
    free(m.v);
    return r.n;
}

const cc_expansion *cc_expansion_at(const cc_expanded *x, size_t off)
{
    const cc_expansion *best = NULL;
    for (int i = 0; i < x->nexp; i++)
        if (off >= x->exp[i].b && off < x->exp[i].e && (!best || x->exp[i].b < best->b ||
                                                          (x->exp[i].b == best->b && x->exp[i].e > best->e)))
            best = &x->exp[i];
    return best;
}

void cc_expanded_free(cc_expanded *x)
{
    free(x->text);
    for (int i = 0; i < x->nexp; i++) free(x->exp[i].name);
    free(x->exp);
    memset(x, 0, sizeof *x);
}
