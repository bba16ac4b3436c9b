/* guard.c — guarded block uses: the branch conditions that decide whether a
 * tamm_block() use or a nested task runs, whether they can be evaluated at
 * submission, and what the task then requests (see guard.h). */
#include "guard.h"
#include "diag.h"
#include "text.h"
#include "xalloc.h"
#include "cc_assert.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* runtime queries whose value does not change while tasks run (no side effects) */
static const char *const pure_calls[] = { "tamm_tensor_nblocks", "tamm_tensor_dim", "tamm_tensor_ndim",
                                          "tamm_block_extent", "tamm_rank", "tamm_nranks", NULL };

typedef struct { cc_ast *a; char *why; } pure_ctx;

static int is_pure_call(const char *name)
{
    for (int i = 0; pure_calls[i]; i++)
        if (!strcmp(pure_calls[i], name)) return 1;
    return 0;
}

/* Can the value of this expression node be computed at submission, equal to
 * what the task body computes?  Sets p->why (a clause: "which ...") if not. */
static int pure_visit(cc_node *n, void *arg)
{
    pure_ctx *p = arg;
    if (p->why) return 0;
    switch (n->kind) {
    case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral: case CXCursor_CharacterLiteral:
    case CXCursor_ParenExpr: case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr: case CXCursor_TypeRef:
    case CXCursor_ConditionalOperator:
        return 1;
    case CXCursor_UnaryExpr: /* sizeof / _Alignof: not evaluated */
        return 0;
    case CXCursor_BinaryOperator: {
        const char *op = cc_binop(p->a, n);
        if (!strcmp(op, "=")) p->why = cc_xstrdup("which assigns a variable");
        return 1;
    }
    case CXCursor_CompoundAssignOperator:
        p->why = cc_xstrdup("which assigns a variable");
        return 0;
    case CXCursor_UnaryOperator: {
        int post;
        const char *op = cc_unop(p->a, n, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--")) p->why = cc_xstrdup("which changes a variable");
        else if (!strcmp(op, "*")) p->why = cc_xstrdup("which loads through a pointer");
        else if (!strcmp(op, "&")) p->why = cc_xstrdup("which takes an address");
        return 1;
    }
    case CXCursor_ArraySubscriptExpr:
        p->why = cc_xstrdup("which reads an array element");
        return 0;
    case CXCursor_MemberRefExpr: {
        size_t from = n->nkid ? n->kid[0]->e : n->b;
        char *s = from < n->e ? cc_src_text(p->a, from, n->e) : NULL;
        if (s && strstr(s, "->")) p->why = cc_xstrdup("which loads through a pointer ('->')");
        free(s);
        return 1;
    }
    case CXCursor_DeclRefExpr: {
        CXCursor d = cc_referenced(n);
        enum CXCursorKind k = clang_getCursorKind(d);
        if (k == CXCursor_EnumConstantDecl) return 0;
        if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl) {
            char *nm = cc_spelling(d);
            p->why = cc_fmt("which uses '%s', not a variable", nm);
            free(nm);
            return 0;
        }
        enum CXCursorKind sp = clang_getCursorKind(clang_getCursorSemanticParent(d));
        int local = sp == CXCursor_FunctionDecl && clang_Cursor_getStorageClass(d) != CX_SC_Static;
        if (!local && !clang_isConstQualifiedType(clang_getCursorType(d))) {
            char *nm = cc_spelling(d);
            p->why = cc_fmt("which reads '%s', a %s variable that may change before the task runs", nm,
                            sp == CXCursor_FunctionDecl ? "static" : "global");
            free(nm);
        }
        return 0;
    }
    case CXCursor_CallExpr: {
        char *nm = cc_spelling(cc_referenced(n));
        if (!is_pure_call(nm)) {
            p->why = cc_fmt("which calls '%s'", *nm ? nm : "a function");
            free(nm);
            return 0;
        }
        free(nm);
        for (int k = 1; k < n->nkid && !p->why; k++) cc_walk(n->kid[k], pure_visit, p);
        return 0;
    }
    default: {
        CXString s = clang_getCursorKindSpelling(n->kind);
        p->why = cc_fmt("which has a %s", clang_getCString(s));
        clang_disposeString(s);
        return 0;
    }
    }
}

static int find_goto(cc_node *n, void *arg)
{
    if (n->kind == CXCursor_GotoStmt || n->kind == CXCursor_IndirectGotoStmt) *(int *)arg = 1;
    return !*(int *)arg;
}

/* Does text use a macro that a #define or #undef in a->text[b, e) changes?  The
 * submission is emitted before those directives take effect.  Returns the
 * macro's name (a fresh string) or NULL. */
static char *body_macro(cc_ast *a, size_t b, size_t e, const char *text)
{
    for (size_t i = b; i < e; i++) {
        if (i != b && a->text[i - 1] != '\n') continue;
        size_t k = i;
        while (k < e && (a->text[k] == ' ' || a->text[k] == '\t')) k++;
        if (k >= e || a->text[k] != '#') continue;
        for (k++; k < e && (a->text[k] == ' ' || a->text[k] == '\t'); k++) {}
        size_t kw = k;
        while (k < e && isalpha((unsigned char)a->text[k])) k++;
        if (!((k - kw == 6 && !strncmp(a->text + kw, "define", 6)) || (k - kw == 5 && !strncmp(a->text + kw, "undef", 5))))
            continue;
        while (k < e && (a->text[k] == ' ' || a->text[k] == '\t')) k++;
        size_t nb = k;
        while (k < e && (isalnum((unsigned char)a->text[k]) || a->text[k] == '_')) k++;
        if (k == nb) continue;
        char *name = cc_src_text(a, nb, k);
        if (cc_ident_in(text, name)) return name;
        free(name);
    }
    return NULL;
}

cc_guard_kind cc_guard_path(cc_infer *in, cc_ast *a, const cc_task *t, cc_node *n, char **expr, char **why)
{
    *expr = *why = NULL;
    char **term = NULL;
    int nterm = 0;
    size_t term_cap = 0;
    cc_node *c = n;
    for (; c && c != t->stmt; c = c->parent) {
        cc_node *p = c->parent;
        if (!p) break;
        int k = cc_kid_index(c), neg = 0;
        cc_node *cond = NULL;
        if (p->kind == CXCursor_IfStmt && k >= 1 && p->nkid >= 2) {
            cond = p->kid[0];
            neg = k == 2;
        } else if (p->kind == CXCursor_ConditionalOperator && k >= 1 && p->nkid == 3) {
            cond = p->kid[0];
            neg = k == 2;
        } else if (p->kind == CXCursor_BinaryOperator && k == 1 && p->nkid == 2) {
            const char *op = cc_binop(a, p);
            if (!strcmp(op, "&&") || !strcmp(op, "||")) {
                cond = p->kid[0];
                neg = op[0] == '|';
            }
        } else if (p->kind == CXCursor_CaseStmt || p->kind == CXCursor_DefaultStmt) {
            *why = cc_xstrdup("used under a 'case' of a switch");
            break;
        }
        if (!cond) continue;
        if (!cond->in_main || cond->e <= cond->b) {
            *why = cc_xstrdup("used under a condition that comes from a macro");
            break;
        }
        char *raw = cc_src_text(a, cond->b, cond->e);
        char *text = cc_collapse(raw);
        free(raw);
        pure_ctx pc = { a, NULL };
        char *mac = body_macro(a, t->stmt->b, cond->b, text);
        if (mac) pc.why = cc_fmt("which uses the macro '%s' that the task body defines", mac);
        else if (cc_varies_in(in, t, text)) pc.why = cc_xstrdup("which depends on variables set in the task body");
        else cc_walk(cond, pure_visit, &pc);
        free(mac);
        if (pc.why) {
            *why = cc_fmt("used only if %s%s, %s", neg ? "not " : "", text, pc.why);
            free(pc.why);
            free(text);
            break;
        }
        CC_GROW(term, term_cap, nterm + 1);
        term[nterm++] = neg ? cc_fmt("!(%s)", text) : text;
        if (neg) free(text);
    }
    if (!*why && c != t->stmt) *why = cc_xstrdup("used where tammcc cannot follow the branches");
    if (!*why && nterm) {
        int has_goto = 0;
        cc_walk(t->stmt, find_goto, &has_goto);
        if (has_goto) *why = cc_xstrdup("used under a condition, and the task body has a goto that may jump past it");
    }
    if (!*why && nterm) {
        /* outermost condition first; several are joined with && */
        size_t len = 1;
        for (int i = 0; i < nterm; i++) len += strlen(term[i]) + 6;
        *expr = cc_xmalloc(len);
        (*expr)[0] = 0;
        for (int i = nterm - 1; i >= 0; i--) {
            int paren = nterm > 1 && term[i][0] != '!';
            if (i != nterm - 1) strcat(*expr, " && ");
            if (paren) strcat(*expr, "(");
            strcat(*expr, term[i]);
            if (paren) strcat(*expr, ")");
        }
    }
    for (int i = 0; i < nterm; i++) free(term[i]);
    free(term);
    return *why ? CC_GUARD_SYNC : *expr ? CC_GUARD_EXPR : CC_GUARD_NONE;
}

/* g1 || g2 (g1 consumed) */
static char *guard_or(char *g1, const char *g2)
{
    if (!strcmp(g1, g2)) return g1;
    char *r = cc_fmt("(%s) || (%s)", g1, g2);
    free(g1);
    return r;
}

/* add one use's (or nested task's) guard to an access; takes expr and why */
static void add_guard(cc_access *ac, cc_guard_kind k, char *expr, char *why, size_t off)
{
    ac->g_seen = 1;
    if (k == CC_GUARD_NONE) {
        ac->g_uncond = 1;
    } else if (k == CC_GUARD_EXPR) {
        ac->guard = ac->guard ? guard_or(ac->guard, expr) : cc_xstrdup(expr);
    } else if (!ac->sync) {
        ac->sync = why;
        ac->sync_off = off;
        why = NULL;
    }
    free(expr);
    free(why);
}

void cc_guard_note_use(cc_infer *in, cc_ast *a, const cc_task *t, cc_access *ac, cc_node *n)
{
    char *expr, *why;
    cc_guard_kind k = cc_guard_path(in, a, t, n, &expr, &why);
    add_guard(ac, k, expr, why, n->b);
}

void cc_guard_settle(const cc_source *src, cc_task *t)
{
    for (int i = 0; i < t->nacc; i++) {
        cc_access *ac = &t->acc[i];
        if (!ac->g_seen) continue;
        if (ac->g_uncond) { /* some use needs it whatever the branches: as without guards */
            free(ac->guard);
            ac->guard = NULL;
            free(ac->sync);
            ac->sync = NULL;
        } else if (ac->sync) {
            free(ac->guard);
            ac->guard = NULL;
            ac->fetched = 0;
            ac->wide = 1;
            if (!cc_clause_covers(t, ac->tensor, ac->idx, ac->nidx, NULL, 0)) /* else declared (issue 17) */
                cc_diag(src, ac->sync_off, CC_WARNING, "block %s is %s: it cannot be requested at submission and is "
                    "fetched synchronously (the task's permission covers the whole tensor '%s')", ac->key, ac->sync,
                    ac->tensor);
        }
    }
}

void cc_guard_merge(cc_access *into, const cc_access *from)
{
    if (into->guard && from->guard) into->guard = guard_or(into->guard, from->guard);
    else { free(into->guard); into->guard = NULL; }
    into->wide |= from->wide;
    if (!into->sync && from->sync) { into->sync = cc_xstrdup(from->sync); into->sync_off = from->sync_off; }
}

/* the key of an access made of tensor and idx (NULL: ':') */
static char *key_of(const char *tensor, char *const *idx, int nidx)
{
    cc_ref r;
    memset(&r, 0, sizeof r);
    r.tensor.s = (char *)tensor;
    r.nidx = nidx;
    for (int d = 0; d < nidx; d++) r.idx[d].s = idx[d];
    return cc_ref_text(&r);
}

static int find_key(const cc_task *t, const char *key)
{
    for (int i = 0; i < t->nacc; i++)
        if (!strcmp(t->acc[i].key, key)) return i;
    return -1;
}

/* a permission on the whole tensor `tensor` (every index ':') of mode m, merged into an existing one */
static void add_wide_permission(cc_task *t, const cc_access *like, unsigned m, const char *why)
{
    CC_ASSERT((m & 7u) != 0 && like->nidx >= 0 && like->nidx <= CC_MAX_DIMS); /* a mode, a block's indices */
    char *idx[CC_MAX_DIMS] = { 0 };
    char *key = key_of(like->tensor, idx, like->nidx);
    int i = find_key(t, key);
    if (i >= 0) {
        cc_access *w = &t->acc[i];
        unsigned nm = (w->mode | m) & 7u;
        if ((nm & CC_READ) && (nm & CC_ACCUM)) nm = CC_RW;
        w->mode = (w->mode & ~7u) | nm;
        free(w->guard); /* the child may need it whatever w's own guard says; all ':' is always in range */
        w->guard = NULL;
        char *both = cc_fmt("%s; %s", w->why ? w->why : "", why);
        free(w->why);
        w->why = both;
        free(key);
        return;
    }
    char *tensor = cc_xstrdup(like->tensor); /* like points into t->acc, which moves */
    int nidx = like->nidx;
    size_t off = like->off;
    CC_GROW(t->acc, t->acc_cap, t->nacc + 1);
    cc_access *w = &t->acc[t->nacc++];
    memset(w, 0, sizeof *w);
    w->key = key;
    w->tensor = tensor;
    w->nidx = nidx;
    w->mode = CC_PERMONLY | (m & 7u);
    w->off = off;
    w->wide = 1;
    w->why = cc_xstrdup(why);
}

/* The access of t on tensor text `tensor` whose indices are idx where idx is a
 * text and a loop's range (loop_range) where idx is NULL (':'), or -1. */
static int find_loop_ranged(const cc_task *t, const char *tensor, char **idx, int nidx)
{
    char *tk = cc_collapse(tensor);
    int found = -1;
    for (int j = 0; j < t->nacc && found < 0; j++) {
        const cc_access *pa = &t->acc[j];
        if (pa->nidx != nidx || !pa->loop_range || strcmp(pa->tensor, tk)) continue;
        int ok = 1;
        for (int d = 0; d < nidx && ok; d++) {
            if (!idx[d]) ok = (pa->loop_range >> d & 1u) || !pa->idx[d];
            else ok = pa->idx[d] && !(pa->loop_range >> d & 1u) && !strcmp(pa->idx[d], idx[d]);
        }
        if (ok) found = j;
    }
    free(tk);
    return found;
}

int cc_guard_finish(cc_infer *in, cc_ast *a, cc_task *t)
{
    /* accesses named by the task's clauses are requested as written */
    int n0 = t->nacc;
    int *clause = cc_xcalloc((size_t)(n0 ? n0 : 1), sizeof *clause);
    for (int i = 0; i < t->pr->nrefs; i++) {
        const cc_ref *r = &t->pr->refs[i];
        char *idx[CC_MAX_DIMS];
        for (int d = 0; d < r->nidx; d++) idx[d] = r->idx[d].s ? cc_collapse(r->idx[d].s) : NULL;
        char *key = key_of(r->tensor.s, idx, r->nidx);
        int j = find_key(t, key);
        if (j >= 0 && !clause[j]) {
            clause[j] = 1;
            free(t->acc[j].guard); /* requested as the clause says, unconditionally */
            t->acc[j].guard = NULL;
        }
        free(key);
        for (int d = 0; d < r->nidx; d++) free(idx[d]);
    }
    /* what the children contribute, under the guards of their statements in t's body */
    int *from_kid = cc_xcalloc((size_t)(n0 ? n0 : 1), sizeof *from_kid);
    for (int k = 0; k < t->nkids; k++) {
        cc_task *c = t->kids[k];
        char *pexpr, *pwhy;
        cc_guard_kind pk = cc_guard_path(in, a, t, c->stmt, &pexpr, &pwhy);
        for (int i = 0; i < c->nacc; i++) {
            const cc_access *ca = &c->acc[i];
            if (cc_varies_in(in, t, ca->tensor)) continue; /* an error of cc_infer_finish */
            char *idx[CC_MAX_DIMS];
            for (int d = 0; d < ca->nidx; d++)
                idx[d] = ca->idx[d] && !cc_varies_in(in, t, ca->idx[d]) ? cc_xstrdup(ca->idx[d]) : NULL;
            char *key = key_of(ca->tensor, idx, ca->nidx);
            int j = find_key(t, key);
            free(key);
            if (j < 0) /* the parent's access may give a varying index as a loop's range (cc_infer_finish) */
                j = find_loop_ranged(t, ca->tensor, idx, ca->nidx);
            for (int d = 0; d < ca->nidx; d++) free(idx[d]);
            if (j < 0 || j >= n0 || clause[j]) continue;
            cc_access *pa = &t->acc[j];
            int all_wide = 1; /* every index ':': in range whatever the guards */
            for (int d = 0; d < pa->nidx; d++) if (pa->idx[d]) all_wide = 0;
            cc_guard_kind kk = pk;
            char *expr = NULL, *why = NULL, *mac = NULL;
            if (pk == CC_GUARD_SYNC) {
                why = cc_xstrdup(pwhy);
            } else if (ca->guard && (mac = body_macro(a, t->stmt->b, c->stmt->b, ca->guard))) {
                kk = CC_GUARD_SYNC;
                why = cc_fmt("needed only if %s, which uses the macro '%s' that the task body defines", ca->guard, mac);
                free(mac);
            } else if (ca->guard && cc_varies_in(in, t, ca->guard)) {
                kk = CC_GUARD_SYNC;
                why = cc_fmt("needed only if %s, which depends on variables set in the task body", ca->guard);
            } else if (ca->guard) {
                kk = CC_GUARD_EXPR;
                expr = pexpr ? cc_fmt("(%s) && (%s)", pexpr, ca->guard) : cc_xstrdup(ca->guard);
            } else if (pk == CC_GUARD_EXPR) {
                expr = cc_xstrdup(pexpr);
            }
            if (all_wide && kk == CC_GUARD_SYNC) { /* in range whatever the guards: needed whenever the child is */
                kk = CC_GUARD_NONE;
                free(why);
                why = NULL;
            }
            if (pa->own && pa->fetched) {
                /* the body fetches it itself: its own guard stands; a child's that cannot be evaluated
                 * at submission gets a permission on the whole tensor beside it */
                if (kk == CC_GUARD_SYNC && pa->guard) {
                    char *w = cc_fmt("a nested task at line %u needs %s, %s", c->line, ca->key, why);
                    add_wide_permission(t, pa, ca->mode, w);
                    free(w);
                    pa = &t->acc[j];
                } else if (kk == CC_GUARD_NONE) {
                    free(pa->guard);
                    pa->guard = NULL;
                } else if (pa->guard) {
                    pa->guard = guard_or(pa->guard, expr);
                }
                free(expr);
                free(why);
                continue;
            }
            if (!pa->own && !from_kid[j]) { /* only children use it: their guards decide */
                pa->g_seen = 0;
                pa->g_uncond = 0;
            }
            if (pa->own && !pa->guard && !pa->wide) { free(expr); free(why); continue; } /* unconditional already */
            if (pa->own && !from_kid[j]) pa->g_uncond = 0;
            from_kid[j] = 1;
            add_guard(pa, kk, expr, why ? cc_fmt("%s (for the nested task at line %u)", why, c->line) : NULL, ca->off);
            free(why);
        }
        free(pexpr);
        free(pwhy);
    }
    /* settle the children's contributions: a permission no guard can protect covers the whole tensor */
    for (int j = 0; j < n0; j++) {
        cc_access *pa = &t->acc[j];
        if (!from_kid[j]) continue;
        if (pa->g_uncond) {
            free(pa->guard);
            pa->guard = NULL;
            free(pa->sync);
            pa->sync = NULL;
        } else if (pa->sync) {
            free(pa->guard);
            pa->guard = NULL;
            if (!pa->wide) {
                for (int d = 0; d < pa->nidx; d++) { free(pa->idx[d]); pa->idx[d] = NULL; }
                free(pa->key);
                pa->key = key_of(pa->tensor, pa->idx, pa->nidx);
                pa->wide = 1;
            }
        }
    }
    free(clause);
    free(from_kid);
    return 0;
}

const char *cc_guard_explain(const cc_access *ac)
{
    static char buf[1024];
    if (!ac->guard) return "";
    snprintf(buf, sizeof buf, " if (%s)", ac->guard);
    return buf;
}
