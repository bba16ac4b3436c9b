/* pragma.c — directive recovery and attachment (see pragma.h). */
#include "pragma.h"
#include "capture_read.h"
#include "xalloc.h"
#include "cc_assert.h"
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_pragma(cc_unit *u, cc_pragma *p)
{
    CC_GROW(u->pr, u->pr_cap, u->npr + 1);
    u->pr[u->npr++] = *p;
}

static int in_skipped(CXSourceRangeList *sk, cc_unit *u, size_t off)
{
    for (unsigned i = 0; sk && i < sk->count; i++) {
        size_t b, e;
        if (cc_offset(&u->ast, clang_getRangeStart(sk->ranges[i]), &b) &&
            cc_offset(&u->ast, clang_getRangeEnd(sk->ranges[i]), &e) && off >= b && off < e)
            return 1;
    }
    return 0;
}

/* the logical line from off: its end (past backslash-newlines) */
static size_t logical_end(const char *s, size_t n, size_t off)
{
    size_t i = off;
    while (i < n) {
        if (s[i] == '\n') {
            size_t j = i;
            while (j > off && (s[j - 1] == '\r')) j--;
            if (j > off && s[j - 1] == '\\') { i++; continue; }
            return i;
        }
        i++;
    }
    return n;
}

/* the text [b, e) without backslash-newlines, with a map to file offsets */
static char *join_lines(const char *s, size_t b, size_t e, size_t **map, size_t *len)
{
    char *t = cc_xmalloc(e - b + 1);
    *map = cc_xmalloc((e - b + 1) * sizeof **map);
    size_t n = 0;
    for (size_t i = b; i < e; i++) {
        if (s[i] == '\\' && (i + 1 < e && (s[i + 1] == '\n' || s[i + 1] == '\r'))) {
            while (i + 1 < e && (s[i + 1] == '\r' || s[i + 1] == '\n')) i++;
            continue;
        }
        (*map)[n] = i;
        t[n++] = s[i];
    }
    t[n] = 0;
    (*map)[n] = e;
    *len = n;
    return t;
}

/* contents of a string literal token at [b, e) (quotes included), unescaped, with a map */
static char *unescape(const char *s, size_t b, size_t e, size_t **map, size_t *len, size_t map_all_to)
{
    char *t = cc_xmalloc(e - b + 1);
    *map = cc_xmalloc((e - b + 1) * sizeof **map);
    size_t n = 0;
    for (size_t i = b + 1; i + 1 < e; i++) {
        size_t at = map_all_to != (size_t)-1 ? map_all_to : i;
        if (s[i] == '\\' && i + 2 < e) {
            i++;
            (*map)[n] = at;
            t[n++] = s[i] == 'n' ? ' ' : s[i] == 't' ? ' ' : s[i];
            continue;
        }
        (*map)[n] = at;
        t[n++] = s[i];
    }
    t[n] = 0;
    (*map)[n] = map_all_to != (size_t)-1 ? map_all_to : e;
    *len = n;
    return t;
}

static int starts_tamm(const char *t)
{
    while (isspace((unsigned char)*t)) t++;
    return !strncmp(t, "tamm", 4) && !(isalnum((unsigned char)t[4]) || t[4] == '_');
}

static void parse_one(cc_unit *u, size_t off, size_t end, const char *text, size_t len, const size_t *map)
{
    cc_pragma p;
    memset(&p, 0, sizeof p);
    p.off = off;
    p.end = end;
    if (cc_parse_pragma(&u->src, text, len, map, 0, &p) == 0) add_pragma(u, &p);
}

typedef struct { cc_unit *u; } mac_ctx;

/* _Pragma("tamm ...") in the definition of a macro still expanded in the file:
 * one that tammcc could not expand in place (mexpand.h), refused */
static enum CXChildVisitResult mac_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    cc_unit *u = ((mac_ctx *)d)->u;
    if (clang_getCursorKind(c) != CXCursor_MacroExpansion) return CXChildVisit_Continue;
    size_t b, e;
    if (!cc_extent(&u->ast, c, &b, &e)) return CXChildVisit_Continue;
    CXCursor def = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(def)) return CXChildVisit_Continue;
    CXToken *t;
    unsigned n;
    clang_tokenize(u->ast.tu, clang_getCursorExtent(def), &t, &n);
    for (unsigned i = 0; i + 3 < n; i++) {
        CXString s0 = clang_getTokenSpelling(u->ast.tu, t[i]);
        int isp = !strcmp(clang_getCString(s0), "_Pragma");
        clang_disposeString(s0);
        if (!isp || clang_getTokenKind(t[i + 2]) != CXToken_Literal) continue;
        CXString lit = clang_getTokenSpelling(u->ast.tu, t[i + 2]);
        const char *ls = clang_getCString(lit);
        size_t *map, len;
        char *txt = unescape(ls, 0, strlen(ls), &map, &len, b);
        if (ls[0] == '"' && starts_tamm(txt)) {
            char *name = cc_spelling(c);
            cc_diag(&u->src, b, CC_ERROR, "macro '%s' holds '_Pragma(%s)', which tammcc cannot expand here: a macro "
                    "that names itself (other than as a call 'NAME(...)') is not expanded; write the directive outside the macro",
                    name, ls);
            free(name);
            i = n;
        }
        free(txt);
        free(map);
        clang_disposeString(lit);
    }
    clang_disposeTokens(u->ast.tu, t, n);
    return CXChildVisit_Continue;
}

/* a token's spelling (caller frees) */
static char *token_text(CXTranslationUnit tu, CXToken t)
{
    CXString s = clang_getTokenSpelling(tu, t);
    char *r = cc_xstrdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

/* If the directive whose tokens start at t[0] ('#'), at [off, end) of the
 * file, is a #define, #undef or #pragma push_macro / pop_macro: record it. */
static void macro_directive(cc_unit *u, CXToken *t, unsigned n, size_t off, size_t end)
{
    CXTranslationUnit tu = u->ast.tu;
    char *w[5] = { NULL };
    unsigned k = 0;
    for (; k < 5 && k + 1 < n; k++) {
        size_t o;
        if (!cc_offset(&u->ast, clang_getTokenLocation(tu, t[k + 1]), &o) || o >= end) break;
        w[k] = token_text(tu, t[k + 1]);
    }
    char *name = NULL;
    cc_mac_kind kind = CC_MAC_DEFINE;
    if (k >= 2 && (!strcmp(w[0], "define") || !strcmp(w[0], "undef"))) {
        name = cc_xstrdup(w[1]);
        kind = !strcmp(w[0], "define") ? CC_MAC_DEFINE : CC_MAC_UNDEF;
    } else if (k >= 5 && !strcmp(w[0], "pragma") && (!strcmp(w[1], "push_macro") || !strcmp(w[1], "pop_macro")) &&
               !strcmp(w[2], "(") && w[3][0] == '"' && strlen(w[3]) >= 2 && !strcmp(w[4], ")")) {
        name = cc_xstrndup(w[3] + 1, strlen(w[3]) - 2);
        kind = !strcmp(w[1], "push_macro") ? CC_MAC_PUSH : CC_MAC_POP;
    }
    for (unsigned i = 0; i < k; i++) free(w[i]);
    if (!name) return;
    CC_GROW(u->mac, u->mac_cap, u->nmac + 1);
    u->mac[u->nmac++] = (cc_macro_dir){ off, end, name, kind };
}

static int cmp_pragma(const void *x, const void *y)
{
    const cc_pragma *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

int cc_pragmas_collect(cc_unit *u)
{
    int e0 = cc_error_count();
    cc_ast *a = &u->ast;
    CXSourceRange all = clang_getRange(clang_getLocationForOffset(a->tu, a->file, 0),
                                       clang_getLocationForOffset(a->tu, a->file, (unsigned)a->len));
    CXToken *t;
    unsigned n;
    clang_tokenize(a->tu, all, &t, &n);
    CXSourceRangeList *sk = clang_getSkippedRanges(a->tu, a->file);
    size_t directive_end = 0; /* end of the current preprocessor directive line */
    unsigned prev_line = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t off;
        unsigned line;
        CXSourceLocation loc = clang_getTokenLocation(a->tu, t[i]);
        clang_getFileLocation(loc, NULL, &line, NULL, NULL);
        if (!cc_offset(a, loc, &off)) continue;
        CXString sp = clang_getTokenSpelling(a->tu, t[i]);
        const char *s = clang_getCString(sp);
        int first_on_line = line != prev_line;
        prev_line = line;
        if (first_on_line && !strcmp(s, "#") && off >= directive_end) {
            directive_end = logical_end(a->text, a->len, off);
            if (i + 2 < n && !in_skipped(sk, u, off)) {
                CXString s1 = clang_getTokenSpelling(a->tu, t[i + 1]);
                CXString s2 = clang_getTokenSpelling(a->tu, t[i + 2]);
                size_t o2;
                if (!strcmp(clang_getCString(s1), "pragma") && !strcmp(clang_getCString(s2), "tamm") &&
                    cc_offset(a, clang_getTokenLocation(a->tu, t[i + 2]), &o2) && o2 < directive_end) {
                    size_t *map, len;
                    char *txt = join_lines(a->text, o2, directive_end, &map, &len);
                    parse_one(u, off, directive_end, txt, len, map);
                    free(txt);
                    free(map);
                } else {
                    macro_directive(u, t + i, n - i, off, directive_end);
                }
                clang_disposeString(s1);
                clang_disposeString(s2);
            }
        } else if (!strcmp(s, "_Pragma") && off >= directive_end && i + 3 < n && !in_skipped(sk, u, off)) {
            size_t lb, le, ce;
            CXSourceRange lr = clang_getTokenExtent(a->tu, t[i + 2]);
            if (clang_getTokenKind(t[i + 2]) == CXToken_Literal && cc_offset(a, clang_getRangeStart(lr), &lb) &&
                cc_offset(a, clang_getRangeEnd(lr), &le) &&
                cc_offset(a, clang_getRangeEnd(clang_getTokenExtent(a->tu, t[i + 3])), &ce) && a->text[lb] == '"') {
                size_t *map, len;
                /* from a macro tammcc expanded: diagnostics point at the macro's invocation */
                const cc_expansion *ex = u->xp ? cc_expansion_at(u->xp, off) : NULL;
                char *txt = unescape(a->text, lb, le, &map, &len, ex ? ex->b : (size_t)-1);
                if (starts_tamm(txt)) parse_one(u, off, ce, txt, len, map);
                free(txt);
                free(map);
            }
        }
        clang_disposeString(sp);
    }
    clang_disposeTokens(a->tu, t, n);
    if (sk) clang_disposeSourceRangeList(sk);
    mac_ctx mc = { u };
    clang_visitChildren(clang_getTranslationUnitCursor(a->tu), mac_visit, &mc);
    if (u->npr > 0) qsort(u->pr, (size_t)u->npr, sizeof *u->pr, cmp_pragma);
    return cc_error_count() - e0;
}

/* ---------------------------------------------------------------- attaching */
typedef struct { cc_unit *u; } fn_ctx;

static enum CXChildVisitResult fn_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    cc_unit *u = ((fn_ctx *)d)->u;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c)) return CXChildVisit_Continue;
    size_t b, e;
    if (!cc_extent(&u->ast, c, &b, &e)) return CXChildVisit_Continue;
    int has = 0;
    for (int i = 0; i < u->npr; i++)
        if (u->pr[i].off >= b && u->pr[i].off < e) has = 1;
    if (!has) return CXChildVisit_Continue;
    CC_GROW(u->fns, u->fns_cap, u->nfns + 1);
    u->fns[u->nfns++] = cc_tree(&u->ast, c, NULL);
    return CXChildVisit_Continue;
}

static int is_stmt_parent(enum CXCursorKind k)
{
    return k == CXCursor_CompoundStmt || k == CXCursor_IfStmt || k == CXCursor_ForStmt || k == CXCursor_WhileStmt ||
           k == CXCursor_DoStmt || k == CXCursor_LabelStmt || k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt;
}

typedef struct { const cc_pragma *p; cc_node *best; const char *text; } find_ctx;

static int find_stmt(cc_node *n, void *arg)
{
    find_ctx *f = arg;
    if (n->parent && is_stmt_parent(n->parent->kind) && n->in_main && n->b >= f->p->end &&
        n->parent->b <= f->p->off && f->p->off < n->parent->e &&
        (clang_isStatement(n->kind) || clang_isExpression(n->kind) || n->kind == CXCursor_DeclStmt) &&
        !memchr(f->text + f->p->end, '}', n->b - f->p->end)) { /* not past the end of the directive's block */
        if (!f->best || n->b < f->best->b || (n->b == f->best->b && n->e > f->best->e)) f->best = n;
    }
    return 1;
}

size_t cc_stmt_end(const cc_unit *u, const cc_node *s)
{
    const char *t = u->ast.text;
    size_t e = s->e;
    if (e > 0 && (t[e - 1] == '}' || t[e - 1] == ';')) return e;
    size_t i = e;
    for (;;) {
        while (i < u->ast.len && isspace((unsigned char)t[i])) i++;
        if (i + 1 < u->ast.len && t[i] == '/' && t[i + 1] == '*') {
            char *c = strstr(t + i + 2, "*/");
            i = c ? (size_t)(c - t) + 2 : u->ast.len;
            continue;
        }
        if (i + 1 < u->ast.len && t[i] == '/' && t[i + 1] == '/') {
            while (i < u->ast.len && t[i] != '\n') i++;
            continue;
        }
        break;
    }
    return i < u->ast.len && t[i] == ';' ? i + 1 : e;
}

static const char *kind_word(cc_pkind k)
{
    return k == CC_P_TASK ? "task" : k == CC_P_TASKWAIT ? "taskwait" : k == CC_P_FENCE ? "fence" : "streaming";
}

int cc_pragmas_attach(cc_unit *u)
{
    int e0 = cc_error_count();
    fn_ctx fc = { u };
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), fn_visit, &fc);
    for (int i = 0; i < u->npr; i++) {
        cc_pragma *p = &u->pr[i];
        cc_node *fn = NULL;
        for (int k = 0; k < u->nfns; k++)
            if (p->off >= u->fns[k]->b && p->off < u->fns[k]->e) fn = u->fns[k];
        if (!fn) {
            cc_diag(&u->src, p->off, CC_ERROR, "'#pragma tamm %s' must be inside a function body", kind_word(p->kind));
            continue;
        }
        /* the innermost task whose statement contains the directive */
        cc_task *in = NULL;
        for (int k = 0; k < u->ntasks; k++) {
            cc_task *t = u->tasks[k];
            if (t->fn == fn && p->off >= t->stmt->b && p->off < t->e && (!in || t->stmt->b >= in->stmt->b)) in = t;
        }
        cc_node *stmt = NULL;
        if (p->kind == CC_P_TASK || p->kind == CC_P_STREAMING) {
            find_ctx f = { p, NULL, u->ast.text };
            cc_walk(fn, find_stmt, &f);
            stmt = f.best;
            if (!stmt) {
                cc_diag(&u->src, p->off, CC_ERROR, "'#pragma tamm %s' must be followed by a statement", kind_word(p->kind));
                continue;
            }
            if (stmt->kind == CXCursor_DeclStmt) {
                cc_diag(&u->src, stmt->b, CC_ERROR, "'#pragma tamm %s' applies to a statement, not a declaration "
                        "(wrap it in braces)", kind_word(p->kind));
                continue;
            }
        }
        if (p->kind == CC_P_TASK) {
            cc_task *t = cc_xcalloc(1, sizeof *t);
            t->pr = p;
            t->stmt = stmt;
            t->b = p->off;
            t->e = cc_stmt_end(u, stmt);
            t->fn = fn;
            t->fname = cc_spelling(fn->c);
            t->parent = in;
            unsigned col;
            cc_line_col(&u->src, p->off, &t->line, &col);
            snprintf(t->name, sizeof t->name, "tamm_task_%s_%u", t->fname, t->line);
            for (int k = 0, dup = 1; k < u->ntasks; k++) /* two tasks on one line */
                if (!strcmp(u->tasks[k]->name, t->name))
                    snprintf(t->name, sizeof t->name, "tamm_task_%s_%u_%d", t->fname, t->line, ++dup);
            /* the CUDA variant is a global symbol (the CPU variant is static): two files with a task in
             * functions of the same name at the same line must not define the same one, so it carries a
             * hash of the file's name (without directories, so that goldens do not depend on where the
             * tree is) and contents (so that two main.c files differ) */
            {
                const char *bn = strrchr(u->src.name, '/');
                bn = bn ? bn + 1 : u->src.name;
                uint32_t h = 2166136261u;
                for (const char *c = bn; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
                for (size_t k = 0; k < u->ast.len; k++) h = (h ^ (unsigned char)u->ast.text[k]) * 16777619u;
                snprintf(t->cuda_sym, sizeof t->cuda_sym, "%s_cuda_%08x", t->name, (unsigned)h);
            }
            CC_ASSERT(t->b <= t->e && t->e <= u->ast.len);
            if (in) {
                /* a nested task lies inside its parent's text: emission replaces it within the parent's body */
                CC_ASSERT(in->b <= t->b && t->e <= in->e);
                CC_GROW(in->kids, in->kids_cap, in->nkids + 1);
                in->kids[in->nkids++] = t;
            }
            CC_GROW(u->tasks, u->tasks_cap, u->ntasks + 1);
            u->tasks[u->ntasks++] = t;
        } else {
            if (in && p->kind == CC_P_FENCE) {
                cc_diag(&u->src, p->off, CC_ERROR, "'#pragma tamm fence' is an execution fence for the whole program: "
                        "it is allowed only outside tasks");
                continue;
            }
            if (in && p->kind == CC_P_STREAMING) {
                cc_diag(&u->src, p->off, CC_ERROR, "'#pragma tamm streaming' is allowed only outside tasks");
                continue;
            }
            if (in && p->kind == CC_P_TASKWAIT) {
                CC_GROW(in->wait, in->wait_cap, in->nwait + 1);
                memset(&in->wait[in->nwait], 0, sizeof in->wait[0]);
                in->wait[in->nwait].pr = p;
                in->wait[in->nwait].id = in->nwait + 1;
                in->nwait++;
            }
            CC_GROW(u->sa, u->sa_cap, u->nsa + 1);
            u->sa[u->nsa].pr = p;
            u->sa[u->nsa].in = in;
            u->sa[u->nsa].fn = fn;
            u->sa[u->nsa].stmt = stmt;
            u->sa[u->nsa].e = stmt ? cc_stmt_end(u, stmt) : p->end;
            u->nsa++;
        }
    }
    return cc_error_count() - e0;
}

void cc_unit_free(cc_unit *u)
{
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        for (int k = 0; k < t->nacc; k++) {
            cc_access *a = &t->acc[k];
            free(a->key);
            free(a->tensor);
            for (int d = 0; d < a->nidx; d++) free(a->idx[d]);
            free(a->cov);
            free(a->nocov);
            free(a->why);
            free(a->guard);
            free(a->sync);
        }
        for (int k = 0; k < t->nuse; k++) free(t->use[k].src);
        for (int k = 0; k < t->ncap; k++) { free(t->cap[k].name); free(t->cap[k].field); }
        for (int k = 0; k < t->nloc; k++) { free(t->loc[k].name); free(t->loc[k].field); }
        for (int k = 0; k < t->nwait; k++) free(t->wait[k].live);
        for (int k = 0; k < t->npre; k++) free(t->pre[k]);
        cc_reads_free(t);
        free(t->pre);
        free(t->acc); free(t->use); free(t->cap); free(t->loc); free(t->wait); free(t->kids); free(t->tfcall); free(t->frame_why); free(t->frame_at);
        free(t->fname); free(t->cuda_why); free(t->outside); free(t->cuda_plan); free(t->cuda_check); free(t->cuda_params); free(t->cuda_alias); free(t->cuda_calls); free(t->label);
        free(t);
    }
    free(u->tasks);
    for (int i = 0; i < u->nfns; i++) cc_tree_free(u->fns[i]);
    free(u->fns);
    for (int i = 0; i < u->npr; i++) cc_pragma_free(&u->pr[i]);
    free(u->pr);
    for (int i = 0; i < u->nmac; i++) free(u->mac[i].name);
    free(u->mac);
    free(u->sa);
}
