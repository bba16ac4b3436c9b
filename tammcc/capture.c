/* capture.c — captured variables, carried locals, body checks (see capture.h). */
#include "capture.h"
#include "text.h"
#include "xalloc.h"
#include "cc_assert.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_cx(CXString s)
{
    char *r = cc_xstrdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

char *cc_decl(CXType ty, const char *name, int canonical)
{
    if (canonical) ty = clang_getCanonicalType(ty);
    char *r = NULL;
    if (ty.kind == CXType_ConstantArray) {
        char *inner = cc_fmt("%s[%lld]", name, clang_getArraySize(ty));
        r = cc_decl(clang_getArrayElementType(ty), inner, canonical);
        free(inner);
        return r;
    }
    if (ty.kind == CXType_Pointer) {
        CXType pt = clang_getPointeeType(ty);
        CXType cpt = clang_getCanonicalType(pt);
        int paren = cpt.kind == CXType_ConstantArray || cpt.kind == CXType_FunctionProto ||
                    cpt.kind == CXType_FunctionNoProto;
        if (pt.kind == CXType_Typedef && !canonical) paren = 0;
        const char *q = clang_isConstQualifiedType(ty) ? " const" : "";
        char *inner = cc_fmt(paren ? "(*%s%s)" : "*%s%s", q, name);
        if (!paren && (cpt.kind == CXType_FunctionProto) && pt.kind != CXType_Typedef) {
            free(inner);
            inner = cc_fmt("(*%s)", name);
        }
        r = cc_decl(pt, inner, canonical);
        free(inner);
        return r;
    }
    if (ty.kind == CXType_FunctionProto || ty.kind == CXType_FunctionNoProto) {
        char *ret = dup_cx(clang_getTypeSpelling(clang_getResultType(ty)));
        size_t cap = 256, n = 0;
        char *args = cc_xmalloc(cap);
        args[0] = 0;
        int na = clang_getNumArgTypes(ty);
        for (int i = 0; i < na; i++) {
            char *a = dup_cx(clang_getTypeSpelling(clang_getArgType(ty, (unsigned)i)));
            size_t need = n + strlen(a) + 4;
            CC_GROW(args, cap, need);
            n += (size_t)sprintf(args + n, "%s%s", i ? ", " : "", a);
            free(a);
        }
        if (na == 0 && ty.kind == CXType_FunctionProto) strcpy(args, "void");
        r = cc_fmt("%s %s(%s)", ret, name, args);
        free(ret);
        free(args);
        return r;
    }
    char *s = dup_cx(clang_getTypeSpelling(ty));
    r = cc_fmt("%s %s", s, name);
    free(s);
    return r;
}

static int decl_offset(cc_unit *u, CXCursor d, size_t *off)
{
    return cc_offset(&u->ast, clang_getCursorLocation(d), off);
}

typedef struct { cc_unit *u; cc_task *t; int errors; } cap_ctx;

static int has_var(cc_var *v, int n, CXCursor d)
{
    for (int i = 0; i < n; i++)
        if (clang_equalCursors(v[i].decl, d)) return i;
    return -1;
}

static void add_var(cc_var **v, int *n, size_t *cap, CXCursor d, const char *prefix, size_t off)
{
    *v = cc_grow(*v, cap, (size_t)*n + 1, sizeof **v);
    cc_var *x = &(*v)[*n];
    memset(x, 0, sizeof *x);
    x->name = dup_cx(clang_getCursorSpelling(d));
    x->type = clang_getCursorType(d);
    x->decl = d;
    x->decl_off = off;
    x->field = cc_fmt("%s%s", prefix, x->name);
    (*n)++;
}

cc_node *cc_lvalue_base(cc_node *n, int *through_ptr)
{
    *through_ptr = 0;
    for (;;) {
        n = cc_down_wrappers(n);
        if (n->kind == CXCursor_DeclRefExpr) return n;
        if ((n->kind == CXCursor_ArraySubscriptExpr || n->kind == CXCursor_MemberRefExpr) && n->nkid >= 1) {
            if (n->kind == CXCursor_ArraySubscriptExpr || clang_getCursorType(cc_down_wrappers(n->kid[0])->c).kind == CXType_Pointer)
                *through_ptr = 1;
            n = n->kid[0];
            continue;
        }
        if (n->kind == CXCursor_UnaryOperator && n->nkid == 1) {
            *through_ptr = 1;
            n = n->kid[0];
            continue;
        }
        return NULL;
    }
}

static int inside_block_use(const cc_task *t, size_t off)
{
    for (int i = 0; i < t->nuse; i++)
        if (off >= t->use[i].b && off < t->use[i].e) return 1;
    return 0;
}

/* Keep the first store of t's body outside tensors (what, at offset at), for the run-time
 * error under several ranks, where that store would be made on one rank only; takes what. */
static void note_outside(cc_unit *u, cc_task *t, char *what, size_t at)
{
    if (t->outside) {
        free(what);
        return;
    }
    unsigned line, col;
    cc_line_col(&u->src, at, &line, &col);
    const char *base = strrchr(u->src.name, '/');
    t->outside = cc_fmt("%s at %s:%u", what, base ? base + 1 : u->src.name, line);
    free(what);
}

static void check_write(cap_ctx *c, cc_node *lhs, size_t at)
{
    cc_unit *u = c->u;
    cc_task *t = c->t;
    int ptr;
    cc_node *base = cc_lvalue_base(lhs, &ptr);
    if (!base) return;
    CXCursor d = clang_getCanonicalCursor(cc_referenced(base));
    enum CXCursorKind dk = clang_getCursorKind(d);
    if (dk != CXCursor_VarDecl && dk != CXCursor_ParmDecl) return;
    size_t off;
    int local = decl_offset(u, d, &off) && off >= t->fn->b && off < t->fn->e;
    int in_body = local && off >= t->stmt->b && off < t->e;
    char *nm = dup_cx(clang_getCursorSpelling(d));
    if (local && !in_body && !ptr) {
        cc_diag(&u->src, at, CC_ERROR, "the task assigns '%s', a variable of the enclosing function: tasks capture "
                "such variables by value (like OpenMP firstprivate), so the assignment would be lost; keep the "
                "result in a tensor block", nm);
        c->errors++;
    } else if (!local && !ptr && clang_getCursorKind(d) == CXCursor_VarDecl) {
        cc_diag(&u->src, at, CC_WARNING, "the task writes the global '%s': the runtime cannot order this write "
                "with other tasks (use a tensor block)", nm);
        note_outside(u, t, cc_fmt("the global '%s'", nm), at);
    } else if (ptr && !in_body && clang_getCursorType(d).kind != CXType_Record) {
        /* through a captured or global pointer: not a block (block pointers are body locals or tamm_block calls) */
        CXType ty = clang_getCanonicalType(clang_getCursorType(d));
        if (ty.kind == CXType_Pointer || ty.kind == CXType_ConstantArray || ty.kind == CXType_IncompleteArray) {
            cc_diag(&u->src, at, CC_WARNING, "the task writes memory through '%s', which is not a tensor block: the "
                    "runtime cannot order this write with other tasks", nm);
            if (ty.kind == CXType_Pointer || !local) /* a local array is captured: the store is to the copy */
                note_outside(u, t, cc_fmt("memory through '%s'", nm), at);
        }
    }
    free(nm);
}

/* The task uses variable d (canonical) at offset at: capture it if it is a
 * local of the enclosing function declared outside the task's statement. */
static void capture_decl(cap_ctx *c, CXCursor d, size_t at)
{
    cc_unit *u = c->u;
    cc_task *t = c->t;
    size_t off;
    if (!decl_offset(u, d, &off) || off < t->fn->b || off >= t->fn->e || (off >= t->stmt->b && off < t->e) ||
        has_var(t->cap, t->ncap, d) >= 0)
        return;
    if (clang_Cursor_getStorageClass(d) == CX_SC_Static) {
        char *nm = dup_cx(clang_getCursorSpelling(d));
        cc_diag(&u->src, at, CC_ERROR, "the task uses '%s', a static local of %s(): make it a global "
                "or keep it in a tensor block", nm, t->fname);
        free(nm);
        c->errors++;
    } else if (clang_getCanonicalType(clang_getCursorType(d)).kind == CXType_VariableArray) {
        char *nm = dup_cx(clang_getCursorSpelling(d));
        cc_diag(&u->src, at, CC_ERROR, "the task uses '%s', a variable-length array, which cannot be "
                "captured by value", nm);
        free(nm);
        c->errors++;
    } else {
        add_var(&t->cap, &t->ncap, &t->cap_cap, d, "", off);
    }
}

static int visit(cc_node *n, void *arg)
{
    cap_ctx *c = arg;
    cc_unit *u = c->u;
    cc_task *t = c->t;
    if (n->kind == CXCursor_DeclRefExpr || n->kind == CXCursor_TypeRef) {
        CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
        enum CXCursorKind dk = clang_getCursorKind(d);
        CXCursor holder = dk == CXCursor_EnumConstantDecl ? clang_getCursorSemanticParent(d) : d;
        enum CXCursorKind hk = clang_getCursorKind(holder);
        size_t hb, he;
        if ((hk == CXCursor_EnumDecl || hk == CXCursor_TypedefDecl || hk == CXCursor_StructDecl ||
             hk == CXCursor_UnionDecl) && cc_extent(&u->ast, holder, &hb, &he) && hb >= t->fn->b && hb < t->fn->e &&
            !(hb >= t->stmt->b && hb < t->e)) {
            /* a type or enum declared in the enclosing function: the outlined variant needs its own copy */
            char *txt = cc_src_text(&u->ast, hb, he);
            int seen = 0;
            for (int i = 0; i < t->npre; i++) if (!strcmp(t->pre[i], txt)) seen = 1;
            if (!seen) {
                CC_GROW(t->pre, t->pre_cap, t->npre + 1);
                t->pre[t->npre++] = txt;
            } else {
                free(txt);
            }
            return 1;
        }
        int in_fetched = 0; /* a block use replaced by its buffer: its tensor and indices are evaluated at submission */
        for (int i = 0; i < t->nuse; i++) {
            CC_ASSERT(t->use[i].acc >= 0 && t->use[i].acc < t->nacc);
            if (t->acc[t->use[i].acc].fetched && n->b >= t->use[i].b && n->b < t->use[i].e) in_fetched = 1;
        }
        if (in_fetched) return 1;
        if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) capture_decl(c, d, n->b);
    } else if (n->kind == CXCursor_BinaryOperator || n->kind == CXCursor_CompoundAssignOperator) {
        const char *op = cc_binop(&u->ast, n);
        if ((n->kind == CXCursor_CompoundAssignOperator || !strcmp(op, "=")) && n->nkid == 2 &&
            !inside_block_use(t, n->kid[0]->b))
            check_write(c, n->kid[0], n->b);
    } else if (n->kind == CXCursor_UnaryOperator && n->nkid == 1) {
        int post;
        const char *op = cc_unop(&u->ast, n, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--")) check_write(c, n->kid[0], n->b);
    } else if (n->kind == CXCursor_ReturnStmt) {
        cc_diag(&u->src, n->b, CC_ERROR, "'return' inside a task body (line %u): a task cannot return from its "
                "enclosing function", t->line);
        c->errors++;
    } else if (n->kind == CXCursor_GotoStmt || n->kind == CXCursor_IndirectGotoStmt) {
        /* a goto to a label inside the body is fine */
        CXCursor lab = clang_getCursorReferenced(n->kind == CXCursor_GotoStmt && n->nkid ? n->kid[0]->c : n->c);
        size_t off;
        if (n->kind == CXCursor_IndirectGotoStmt || !decl_offset(u, lab, &off) || off < t->stmt->b || off >= t->e) {
            cc_diag(&u->src, n->b, CC_ERROR, "'goto' out of a task body (line %u)", t->line);
            c->errors++;
        }
    } else if (n->kind == CXCursor_BreakStmt || n->kind == CXCursor_ContinueStmt) {
        int ok = 0;
        for (cc_node *p = n->parent; p && p != t->stmt->parent; p = p->parent) {
            if (p->kind == CXCursor_ForStmt || p->kind == CXCursor_WhileStmt || p->kind == CXCursor_DoStmt ||
                (p->kind == CXCursor_SwitchStmt && n->kind == CXCursor_BreakStmt)) { ok = 1; break; }
            if (p == t->stmt) break;
        }
        if (!ok) {
            cc_diag(&u->src, n->b, CC_ERROR, "'%s' out of a task body (line %u)",
                    n->kind == CXCursor_BreakStmt ? "break" : "continue", t->line);
            c->errors++;
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- nested tasks' clauses
 * A nested task is submitted from its parent's outlined code, where its
 * clause expressions (the tensors and indices of its access clauses,
 * priority, if, on, wait, signal) are evaluated and the variables it captures
 * are copied.  Clause expressions are not in the AST (clang skips the pragma):
 * their variables are found by name, as the innermost declaration of the
 * enclosing function in scope at the directive. */
typedef struct { const char *name; size_t len, at; cc_node *best; } decl_find;
static int find_decl(cc_node *n, void *arg)
{
    decl_find *f = arg;
    if (n->kind != CXCursor_VarDecl && n->kind != CXCursor_ParmDecl) return 1;
    char *nm = cc_spelling(n->c);
    if (strlen(nm) == f->len && !strncmp(nm, f->name, f->len)) {
        /* its scope: the function (a parameter), or the block or for statement holding its declaration */
        cc_node *scope = n->parent;
        if (n->kind == CXCursor_VarDecl && scope && scope->kind == CXCursor_DeclStmt) scope = scope->parent;
        if (scope && n->b < f->at && f->at >= scope->b && f->at < scope->e && (!f->best || n->b > f->best->b))
            f->best = n;
    }
    free(nm);
    return 1;
}

/* Capture the variables that the expression text s, written at offset at, names. */
static void capture_text(cap_ctx *c, const char *s, size_t at)
{
    for (const char *p = s; p && *p;) {
        if (*p == '"' || *p == '\'') { /* a literal: skip it */
            char q = *p++;
            while (*p && *p != q) p += p[0] == '\\' && p[1] ? 2 : 1;
            if (*p) p++;
            continue;
        }
        if (!(isalpha((unsigned char)*p) || *p == '_') || (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            p++;
            continue;
        }
        size_t len = 1;
        while (isalnum((unsigned char)p[len]) || p[len] == '_') len++;
        const char *q = p;
        while (q > s && isspace((unsigned char)q[-1])) q--;
        int member = q > s && (q[-1] == '.' || (q[-1] == '>' && q - 1 > s && q[-2] == '-'));
        if (!member) {
            decl_find f = { p, len, at, NULL };
            cc_walk(c->t->fn, find_decl, &f);
            if (f.best) capture_decl(c, clang_getCanonicalCursor(f.best->c), at);
        }
        p += len;
    }
}

/* What the submission of kid k, in t's outlined code, needs from t's surroundings. */
static void capture_for_kid(cap_ctx *c, cc_task *k)
{
    cc_pragma *p = k->pr;
    for (int r = 0; r < p->nrefs; r++) {
        capture_text(c, p->refs[r].tensor.s, p->refs[r].tensor.off);
        for (int d = 0; d < p->refs[r].nidx; d++) capture_text(c, p->refs[r].idx[d].s, p->refs[r].idx[d].off);
    }
    capture_text(c, p->priority.s, p->priority.off);
    capture_text(c, p->ifexpr.s, p->ifexpr.off);
    capture_text(c, p->on.s, p->on.off);
    for (int w = 0; w < p->nwait; w++) capture_text(c, p->wait[w].s, p->wait[w].off);
    for (int w = 0; w < p->nsignal; w++) capture_text(c, p->signal[w].s, p->signal[w].off);
    for (int i = 0; i < k->ncap; i++) capture_decl(c, k->cap[i].decl, p->off);
}

/* body locals in scope at offset `at` (a taskwait) */
static void live_at(cc_unit *u, cc_task *t, cc_wait *w)
{
    size_t at = w->pr->off;
    /* innermost node of the body containing at */
    cc_node *n = t->stmt;
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; i < n->nkid; i++)
            if (n->kid[i]->in_main && n->kid[i]->b <= at && at < n->kid[i]->e) { n = n->kid[i]; again = 1; break; }
    }
    for (cc_node *a = n; a; a = a->parent) {
        if (a->kind == CXCursor_CompoundStmt || a->kind == CXCursor_ForStmt) {
            for (int i = 0; i < a->nkid; i++) {
                cc_node *k = a->kid[i];
                if (k->kind != CXCursor_DeclStmt || k->b >= at) continue;
                for (int j = 0; j < k->nkid; j++) {
                    if (k->kid[j]->kind != CXCursor_VarDecl) continue;
                    CXCursor d = k->kid[j]->c;
                    int li = has_var(t->loc, t->nloc, d);
                    if (li < 0) {
                        char pre[32];
                        snprintf(pre, sizeof pre, "tamm_l%d_", t->nloc);
                        add_var(&t->loc, &t->nloc, &t->loc_cap, d, pre, k->kid[j]->b);
                        li = t->nloc - 1;
                    }
                    CC_GROW(w->live, w->live_cap, w->nlive + 1);
                    w->live[w->nlive++] = li;
                }
            }
        }
        if (a == t->stmt) break;
    }
    (void)u;
}

int cc_capture(cc_unit *u, cc_task *t)
{
    cap_ctx c = { u, t, 0 };
    cc_walk(t->stmt, visit, &c);
    for (int k = 0; k < t->nkids; k++) capture_for_kid(&c, t->kids[k]); /* captured by now: see capture.h */
    for (int i = 0; i < t->nwait; i++) live_at(u, t, &t->wait[i]);
    return c.errors;
}
