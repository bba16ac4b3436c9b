/* infer.c — access inference over libclang trees (see infer.h). */
#include "infer.h"
#include "text.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ptr_info {
    unsigned seen;
    char *cov;                 /* bytes fully stored, in the scope's terms */
    char *why[4];              /* first reason per CC_SEEN bit (read, store, acc, esc) */
} ptr_info;

typedef struct memo {
    char *usr;
    int k;
    int busy;
    ptr_info r;
} memo;

typedef struct fn_tree { char *usr; cc_node *root; } fn_tree;

struct cc_infer {
    cc_ast *a;
    const cc_source *src;
    memo *m; int nm;
    fn_tree *f; int nf;
};

cc_infer *cc_infer_new(cc_ast *a, const cc_source *src)
{
    cc_infer *in = calloc(1, sizeof *in);
    in->a = a;
    in->src = src;
    return in;
}

static void pi_free(ptr_info *p)
{
    free(p->cov);
    for (int i = 0; i < 4; i++) free(p->why[i]);
    memset(p, 0, sizeof *p);
}

void cc_infer_free(cc_infer *in)
{
    for (int i = 0; i < in->nm; i++) { free(in->m[i].usr); pi_free(&in->m[i].r); }
    for (int i = 0; i < in->nf; i++) { free(in->f[i].usr); cc_tree_free(in->f[i].root); }
    free(in->m);
    free(in->f);
    free(in);
}

static int bit_index(unsigned bit) { return bit == CC_SEEN_READ ? 0 : bit == CC_SEEN_STORE ? 1 : bit == CC_SEEN_ACC ? 2 : 3; }

static void see(ptr_info *p, unsigned bit, char *why)
{
    p->seen |= bit;
    int i = bit_index(bit);
    if (!p->why[i]) p->why[i] = why;
    else free(why);
}

static void merge(ptr_info *into, const ptr_info *from)
{
    into->seen |= from->seen;
    if (!into->cov && from->cov) into->cov = strdup(from->cov);
    for (int i = 0; i < 4; i++)
        if (!into->why[i] && from->why[i]) into->why[i] = strdup(from->why[i]);
}

/* "file:line:col" of a cursor */
static char *where(CXCursor c)
{
    CXFile f;
    unsigned line, col;
    clang_getSpellingLocation(clang_getCursorLocation(c), &f, &line, &col, NULL);
    CXString fn = clang_getFileName(f);
    const char *s = clang_getCString(fn);
    const char *base = s ? strrchr(s, '/') : NULL;
    char *r = cc_fmt("%s:%u:%u", base ? base + 1 : s ? s : "?", line, col);
    clang_disposeString(fn);
    return r;
}

static char *node_text(cc_infer *in, const cc_node *n) { return cc_src_text(in->a, n->b, n->e); }

/* ---------------------------------------------------------------- names */
typedef struct { cc_ast *a; const char **names; int n, cap; cc_node *skip; } name_set;

static void add_name(name_set *s, const char *nm)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->names[i], nm)) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->names = realloc(s->names, (size_t)s->cap * sizeof *s->names);
    }
    s->names[s->n++] = strdup(nm);
}

/* the variable an lvalue expression names directly (x, not p[i] or *p) */
static cc_node *lvalue_var(cc_node *n)
{
    n = cc_down_wrappers(n);
    return n->kind == CXCursor_DeclRefExpr ? n : NULL;
}

static int collect_varying(cc_node *n, void *arg)
{
    name_set *s = arg;
    if (n->kind == CXCursor_VarDecl) {
        char *nm = cc_spelling(n->c);
        add_name(s, nm);
        free(nm);
    } else if (n->kind == CXCursor_BinaryOperator || n->kind == CXCursor_CompoundAssignOperator) {
        const char *op = cc_binop(s->a, n);
        int assign = n->kind == CXCursor_CompoundAssignOperator || !strcmp(op, "=");
        cc_node *v = assign && n->nkid ? lvalue_var(n->kid[0]) : NULL;
        if (v) {
            char *nm = cc_spelling(cc_referenced(v));
            add_name(s, nm);
            free(nm);
        }
    } else if (n->kind == CXCursor_UnaryOperator) {
        int post;
        const char *op = cc_unop(s->a, n, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, "&")) {
            cc_node *v = n->nkid ? lvalue_var(n->kid[0]) : NULL;
            if (v) {
                char *nm = cc_spelling(cc_referenced(v));
                add_name(s, nm);
                free(nm);
            }
        }
    }
    return 1;
}

int cc_varies_in(cc_infer *in, const cc_task *t, const char *text)
{
    name_set s = { in->a, NULL, 0, 0, NULL };
    cc_walk(t->stmt, collect_varying, &s);
    int v = 0;
    for (int i = 0; i < s.n; i++) {
        if (!v && cc_ident_in(text, s.names[i])) v = 1;
        free((char *)s.names[i]);
    }
    free(s.names);
    return v;
}

/* ---------------------------------------------------------------- functions */
static cc_node *fn_body_tree(cc_infer *in, CXCursor def)
{
    CXString u = clang_getCursorUSR(def);
    const char *us = clang_getCString(u);
    for (int i = 0; i < in->nf; i++)
        if (!strcmp(in->f[i].usr, us)) {
            clang_disposeString(u);
            return in->f[i].root;
        }
    in->f = realloc(in->f, (size_t)(in->nf + 1) * sizeof *in->f);
    in->f[in->nf].usr = strdup(us);
    in->f[in->nf].root = cc_tree(in->a, def, NULL);
    clang_disposeString(u);
    return in->f[in->nf++].root;
}

static CXCursor nth_param(CXCursor fn, int k)
{
    int n = clang_Cursor_getNumArguments(fn);
    if (k < n) return clang_Cursor_getArgument(fn, (unsigned)k);
    return clang_getNullCursor();
}

typedef struct { const char *found; } ann_find;
static enum CXChildVisitResult ann_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    ann_find *af = d;
    if (clang_getCursorKind(c) == CXCursor_AnnotateAttr) {
        CXString s = clang_getCursorSpelling(c);
        const char *cs = clang_getCString(s);
        static const char *const known[] = { "tamm_reads", "tamm_writes", "tamm_updates", "tamm_accumulates" };
        for (int i = 0; i < 4; i++)
            if (!strcmp(cs, known[i])) af->found = known[i];
        clang_disposeString(s);
    }
    return CXChildVisit_Continue;
}

/* the annotation of parameter k on any of the declarations we can reach */
static const char *param_annotation(CXCursor fn, int k)
{
    CXCursor decls[3] = { fn, clang_getCanonicalCursor(fn), clang_getCursorDefinition(fn) };
    for (int i = 0; i < 3; i++) {
        if (clang_Cursor_isNull(decls[i])) continue;
        CXCursor p = nth_param(decls[i], k);
        if (clang_Cursor_isNull(p)) continue;
        ann_find af = { NULL };
        clang_visitChildren(p, ann_visit, &af);
        if (af.found) return af.found;
    }
    return NULL;
}

static ptr_info analyze_var(cc_infer *in, CXCursor var, cc_node *region, int depth);
static void analyze_ptr(cc_infer *in, cc_node *e, cc_node *region, ptr_info *pi, int depth);

/* How function fn treats its pointer parameter k (memoised; recursion-safe). */
static ptr_info param_info(cc_infer *in, CXCursor fn, int k, int depth)
{
    ptr_info r = { 0, NULL, { 0 } };
    char *fname = cc_spelling(fn);
    const char *ann = param_annotation(fn, k);
    CXCursor parm = nth_param(fn, k);
    char *pname = clang_Cursor_isNull(parm) ? strdup("...") : cc_spelling(parm);
    if (ann) {
        char *w = cc_fmt("parameter '%s' of %s is annotated %s", pname, fname,
                      !strcmp(ann, "tamm_reads") ? "TAMM_READS" : !strcmp(ann, "tamm_writes") ? "TAMM_WRITES" :
                      !strcmp(ann, "tamm_updates") ? "TAMM_UPDATES" : "TAMM_ACCUMULATES");
        if (!strcmp(ann, "tamm_reads")) see(&r, CC_SEEN_READ, w);
        else if (!strcmp(ann, "tamm_accumulates")) see(&r, CC_SEEN_ACC, w);
        else if (!strcmp(ann, "tamm_writes")) {
            see(&r, CC_SEEN_STORE, w);
            r.cov = strdup("(size_t)-1"); /* the annotation promises every element */
        } else {
            see(&r, CC_SEEN_READ, strdup(w));
            see(&r, CC_SEEN_STORE, w);
        }
        goto out;
    }
    if (!clang_Cursor_isNull(parm)) {
        CXType pt = clang_getCursorType(parm);
        CXType pointee = clang_getPointeeType(pt);
        if (pt.kind == CXType_Pointer && clang_isConstQualifiedType(pointee)) {
            char *ts = NULL;
            CXString s = clang_getTypeSpelling(pt);
            ts = strdup(clang_getCString(s));
            clang_disposeString(s);
            see(&r, CC_SEEN_READ, cc_fmt("passed as '%s %s' to %s", ts, pname, fname));
            free(ts);
            goto out;
        }
    }
    CXCursor def = clang_getCursorDefinition(fn);
    if (clang_Cursor_isNull(def) || clang_Cursor_isNull(parm)) {
        see(&r, CC_SEEN_ESC, cc_fmt("escapes into %s, whose body is not visible and whose parameter '%s' is not const",
                                 fname, pname));
        goto out;
    }
    CXString u = clang_getCursorUSR(def);
    char *usr = strdup(clang_getCString(u));
    clang_disposeString(u);
    for (int i = 0; i < in->nm; i++)
        if (!strcmp(in->m[i].usr, usr) && in->m[i].k == k) {
            if (!in->m[i].busy) merge(&r, &in->m[i].r);
            free(usr);
            goto out; /* recursion: contributes what the other uses contribute */
        }
    if (depth > 64) {
        see(&r, CC_SEEN_ESC, cc_fmt("call chain into %s is too deep to follow", fname));
        free(usr);
        goto out;
    }
    in->m = realloc(in->m, (size_t)(in->nm + 1) * sizeof *in->m);
    int mi = in->nm++;
    memset(&in->m[mi], 0, sizeof in->m[mi]);
    in->m[mi].usr = usr;
    in->m[mi].k = k;
    in->m[mi].busy = 1;
    cc_node *root = fn_body_tree(in, def);
    CXCursor dparm = nth_param(def, k);
    ptr_info vr = analyze_var(in, dparm, root, depth + 1);
    /* the callee's coverage is in terms of its parameters: keep it only if every name in it is a parameter
     * or not a local of the callee; the caller substitutes the arguments */
    merge(&in->m[mi].r, &vr);
    pi_free(&vr);
    in->m[mi].busy = 0;
    merge(&r, &in->m[mi].r);
out:
    free(fname);
    free(pname);
    return r;
}

/* ---------------------------------------------------------------- coverage */
static int is_zero(cc_infer *in, cc_node *n)
{
    n = cc_down_wrappers(n);
    if (n->kind != CXCursor_IntegerLiteral) return 0;
    char *t = node_text(in, n);
    int z = !strcmp(t, "0");
    free(t);
    return z;
}

static int refers_to(cc_node *n, CXCursor var)
{
    n = cc_down_wrappers(n);
    return n->kind == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCanonicalCursor(cc_referenced(n)),
                                                                  clang_getCanonicalCursor(var));
}

typedef struct { CXCursor var; char *bound; cc_node *body; } loop;

static int has_jump(cc_node *n, void *arg)
{
    int *bad = arg;
    if (n->kind == CXCursor_BreakStmt || n->kind == CXCursor_ContinueStmt || n->kind == CXCursor_ReturnStmt ||
        n->kind == CXCursor_GotoStmt)
        *bad = 1;
    return !*bad;
}

/* A canonical `for (i = 0; i < N; i++)` loop: returns its variable and bound. */
static int canonical_for(cc_infer *in, cc_node *f, loop *l)
{
    if (f->kind != CXCursor_ForStmt || f->nkid != 4) return 0;
    cc_node *init = f->kid[0], *cond = f->kid[1], *inc = f->kid[2];
    CXCursor var;
    if (init->kind == CXCursor_DeclStmt && init->nkid == 1 && init->kid[0]->kind == CXCursor_VarDecl) {
        cc_node *vd = init->kid[0];
        if (vd->nkid < 1 || !is_zero(in, vd->kid[vd->nkid - 1])) return 0;
        var = vd->c;
    } else if (init->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(in->a, init), "=") &&
               lvalue_var(init->kid[0]) && is_zero(in, init->kid[1])) {
        var = cc_referenced(lvalue_var(init->kid[0]));
    } else {
        return 0;
    }
    if (cond->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, cond), "<") || !refers_to(cond->kid[0], var))
        return 0;
    int post;
    if (inc->kind == CXCursor_UnaryOperator) {
        const char *op = cc_unop(in->a, inc, &post);
        if (strcmp(op, "++") || !refers_to(inc->kid[0], var)) return 0;
    } else if (inc->kind == CXCursor_CompoundAssignOperator) {
        char *rhs = node_text(in, inc->kid[1]);
        int ok = !strcmp(cc_binop(in->a, inc), "+=") && refers_to(inc->kid[0], var) && !strcmp(rhs, "1");
        free(rhs);
        if (!ok) return 0;
    } else {
        return 0;
    }
    int bad = 0;
    cc_walk(f->kid[3], has_jump, &bad);
    if (bad) return 0;
    l->var = var;
    char *bt = node_text(in, cond->kid[1]);
    l->bound = cc_squeeze(bt);
    free(bt);
    l->body = f->kid[3];
    return 1;
}

/* Is idx a dense row-major linearisation of loops[0..n) (outermost first)? */
static int dense(cc_infer *in, cc_node *idx, loop *loops, int n)
{
    idx = cc_down_wrappers(idx);
    if (n == 1) return refers_to(idx, loops[0].var);
    if (idx->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, idx), "+")) return 0;
    for (int side = 0; side < 2; side++) {
        cc_node *v = idx->kid[side], *rest = cc_down_wrappers(idx->kid[1 - side]);
        if (!refers_to(v, loops[n - 1].var)) continue;
        if (rest->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, rest), "*")) return 0;
        for (int m = 0; m < 2; m++) {
            char *mult = node_text(in, cc_down_wrappers(rest->kid[m]));
            char *sq = cc_squeeze(mult);
            free(mult);
            int eq = !strcmp(sq, loops[n - 1].bound);
            free(sq);
            if (eq && dense(in, rest->kid[1 - m], loops, n - 1)) return 1;
        }
        return 0;
    }
    return 0;
}

/* A store `p[idx] = ...` (assign: the '=' node, sub: the subscript node):
 * if it runs unconditionally in region over a canonical loop nest that idx
 * enumerates densely, the bytes it covers; else NULL. */
static char *store_coverage(cc_infer *in, cc_node *assign, cc_node *sub, cc_node *region)
{
    loop loops[8];
    int nl = 0;
    cc_node *n = assign;
    while (n != region && n->parent) {
        cc_node *p = n->parent;
        if (p->kind == CXCursor_CompoundStmt || p == region) { n = p; continue; }
        if (p->kind == CXCursor_ForStmt && p->nkid == 4 && p->kid[3] == n) {
            if (nl == 8 || !canonical_for(in, p, &loops[nl])) goto fail;
            nl++;
            n = p;
            continue;
        }
        if (p->kind == CXCursor_UnexposedExpr || p->kind == CXCursor_ParenExpr) { n = p; continue; }
        goto fail; /* conditional, while, switch...: not provably executed */
    }
    if (nl == 0) goto fail;
    /* outermost first */
    for (int i = 0; i < nl / 2; i++) { loop t = loops[i]; loops[i] = loops[nl - 1 - i]; loops[nl - 1 - i] = t; }
    if (sub->nkid != 2 || !dense(in, sub->kid[1], loops, nl)) goto fail;
    char *cov = NULL;
    for (int i = 0; i < nl; i++) {
        char *t = cov ? cc_fmt("%s*(size_t)(%s)", cov, loops[i].bound) : cc_fmt("(size_t)(%s)", loops[i].bound);
        free(cov);
        cov = t;
    }
    long long esz = clang_Type_getSizeOf(clang_getCursorType(sub->c));
    char *r = cov ? cc_fmt("%s*%lld", cov, esz > 0 ? esz : 1) : NULL;
    free(cov);
    for (int i = 0; i < nl; i++) free(loops[i].bound);
    return r;
fail:
    for (int i = 0; i < nl; i++) free(loops[i].bound);
    return NULL;
}

/* ---------------------------------------------------------------- pointer uses */
/* An element lvalue (p[i], *p): how it is used. */
static void analyze_elem(cc_infer *in, cc_node *el, cc_node *region, ptr_info *pi, int depth, int derived)
{
    cc_node *top = cc_up_wrappers(el);
    cc_node *p = top->parent;
    char *w = where(el->c);
    if (p && (p->kind == CXCursor_BinaryOperator || p->kind == CXCursor_CompoundAssignOperator) && p->kid[0] == top) {
        const char *op = cc_binop(in->a, p);
        if (!strcmp(op, "=")) {
            char *cov = (!derived && el->kind == CXCursor_ArraySubscriptExpr) ? store_coverage(in, p, el, region) : NULL;
            if (cov && !pi->cov) pi->cov = cov;
            else free(cov);
            see(pi, CC_SEEN_STORE, cc_fmt("stored to at %s", w));
        } else if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
            see(pi, CC_SEEN_ACC, cc_fmt("'%s' at %s", op, w));
        } else if (p->kind == CXCursor_CompoundAssignOperator) {
            see(pi, CC_SEEN_READ, cc_fmt("'%s' at %s", op, w));
            see(pi, CC_SEEN_STORE, cc_fmt("'%s' at %s", op, w));
        } else {
            see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
        }
    } else if (p && p->kind == CXCursor_UnaryOperator) {
        int post;
        const char *op = cc_unop(in->a, p, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--")) {
            see(pi, CC_SEEN_READ, cc_fmt("'%s' at %s", op, w));
            see(pi, CC_SEEN_STORE, cc_fmt("'%s' at %s", op, w));
        } else if (!strcmp(op, "&")) {
            analyze_ptr(in, p, region, pi, depth);
            /* &p[i] is a pointer into the block: no coverage from it */
            free(pi->cov);
            pi->cov = NULL;
        } else {
            see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
        }
    } else if (p && (p->kind == CXCursor_ArraySubscriptExpr || p->kind == CXCursor_MemberRefExpr) && p->kid[0] == top) {
        analyze_elem(in, p, region, pi, depth, 1);
    } else {
        see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
    }
    free(w);
}

/* An expression e whose value points into the block: classify its uses. */
static void analyze_ptr(cc_infer *in, cc_node *e, cc_node *region, ptr_info *pi, int depth)
{
    cc_node *top = cc_up_wrappers(e);
    cc_node *p = top->parent;
    if (!p) return;
    char *w = where(top->c);
    if (p->kind == CXCursor_ConditionalOperator && cc_kid_index(top) > 0) {
        analyze_ptr(in, p, region, pi, depth);
    } else if (p->kind == CXCursor_ArraySubscriptExpr && p->kid[0] == top) {
        analyze_elem(in, p, region, pi, depth, 0);
    } else if (p->kind == CXCursor_UnaryOperator) {
        int post;
        const char *op = cc_unop(in->a, p, &post);
        if (!strcmp(op, "*")) analyze_elem(in, p, region, pi, depth, 1);
        else if (!strcmp(op, "!")) { /* a null test */ }
        else see(pi, CC_SEEN_ESC, cc_fmt("'%s' applied to the pointer at %s", op, w));
    } else if (p->kind == CXCursor_BinaryOperator) {
        const char *op = cc_binop(in->a, p);
        if ((!strcmp(op, "+") || !strcmp(op, "-")) && clang_getCursorType(p->c).kind == CXType_Pointer) {
            ptr_info sub = { 0, NULL, { 0 } };
            analyze_ptr(in, p, region, &sub, depth);
            free(sub.cov);
            sub.cov = NULL; /* an offset pointer proves no coverage */
            merge(pi, &sub);
            pi_free(&sub);
        } else if (!strcmp(op, "=") && p->kid[1] == top && lvalue_var(p->kid[0])) {
            ptr_info v = analyze_var(in, cc_referenced(lvalue_var(p->kid[0])), region, depth);
            merge(pi, &v);
            pi_free(&v);
        } else if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, ">") ||
                   !strcmp(op, "<=") || !strcmp(op, ">=") || !strcmp(op, "-") || !strcmp(op, "&&") ||
                   !strcmp(op, "||")) {
            /* compares pointers: no data access */
        } else {
            see(pi, CC_SEEN_ESC, cc_fmt("pointer used with '%s' at %s", op, w));
        }
    } else if (p->kind == CXCursor_CallExpr && cc_kid_index(top) >= 1) {
        CXCursor fn = cc_referenced(p);
        int k = cc_kid_index(top) - 1;
        if (clang_Cursor_isNull(fn) || clang_getCursorKind(fn) != CXCursor_FunctionDecl) {
            see(pi, CC_SEEN_ESC, cc_fmt("passed to a call through a function pointer at %s", w));
        } else {
            ptr_info r = param_info(in, fn, k, depth);
            if (r.cov) {
                /* substitute the call's arguments for the callee's parameters */
                CXCursor def = clang_getCursorDefinition(fn);
                if (clang_Cursor_isNull(def)) def = fn;
                char *cov = strdup(r.cov);
                int ok = 1;
                int np = clang_Cursor_getNumArguments(def);
                for (int i = 0; i < np && ok; i++) {
                    char *pn = cc_spelling(clang_Cursor_getArgument(def, (unsigned)i));
                    if (*pn && cc_ident_in(cov, pn)) {
                        if (i + 1 >= p->nkid) { ok = 0; free(pn); break; }
                        char *arg = node_text(in, p->kid[i + 1]);
                        /* replace whole-identifier occurrences */
                        size_t L = strlen(pn);
                        char *o = malloc(strlen(cov) * (strlen(arg) + 3) + 1), *q = o;
                        for (const char *s = cov; *s;) {
                            if (!strncmp(s, pn, L) && (s == cov || !(isalnum((unsigned char)s[-1]) || s[-1] == '_')) &&
                                !(isalnum((unsigned char)s[L]) || s[L] == '_')) {
                                q += sprintf(q, "(%s)", arg);
                                s += L;
                            } else {
                                *q++ = *s++;
                            }
                        }
                        *q = 0;
                        free(cov);
                        cov = o;
                        free(arg);
                    }
                    free(pn);
                }
                free(r.cov);
                r.cov = ok ? cov : NULL;
                if (!ok) free(cov);
            }
            merge(pi, &r);
            pi_free(&r);
        }
    } else if (p->kind == CXCursor_VarDecl) {
        ptr_info v = analyze_var(in, p->c, region, depth);
        merge(pi, &v);
        pi_free(&v);
    } else if (p->kind == CXCursor_ReturnStmt) {
        see(pi, CC_SEEN_ESC, cc_fmt("returned at %s", w));
    } else if (p->kind == CXCursor_CallExpr) {
        /* the callee position: not a data pointer */
    } else {
        see(pi, CC_SEEN_ESC, cc_fmt("the pointer escapes at %s", w));
    }
    free(w);
}

typedef struct { CXCursor var; cc_node **hits; int n; } ref_find;
static int find_refs(cc_node *n, void *arg)
{
    ref_find *rf = arg;
    if (n->kind == CXCursor_DeclRefExpr && refers_to(n, rf->var)) {
        rf->hits = realloc(rf->hits, (size_t)(rf->n + 1) * sizeof *rf->hits);
        rf->hits[rf->n++] = n;
    }
    return 1;
}

/* All uses of pointer variable var inside region. */
static ptr_info analyze_var(cc_infer *in, CXCursor var, cc_node *region, int depth)
{
    ptr_info r = { 0, NULL, { 0 } };
    ref_find rf = { var, NULL, 0 };
    cc_walk(region, find_refs, &rf);
    int moved = 0;
    for (int i = 0; i < rf.n; i++) {
        cc_node *top = cc_up_wrappers(rf.hits[i]);
        cc_node *p = top->parent;
        if (p && (p->kind == CXCursor_BinaryOperator || p->kind == CXCursor_CompoundAssignOperator) &&
            p->kid[0] == top) {
            moved = 1; /* the variable is re-pointed: later uses may be elsewhere in the block */
            continue;
        }
        if (p && p->kind == CXCursor_UnaryOperator) {
            int post;
            const char *op = cc_unop(in->a, p, &post);
            if (!strcmp(op, "++") || !strcmp(op, "--")) { moved = 1; continue; }
            if (!strcmp(op, "&")) {
                char *w = where(p->c);
                see(&r, CC_SEEN_ESC, cc_fmt("its address is taken at %s", w));
                free(w);
                continue;
            }
        }
        analyze_ptr(in, rf.hits[i], region, &r, depth);
    }
    if (moved) { free(r.cov); r.cov = NULL; }
    free(rf.hits);
    return r;
}

/* ---------------------------------------------------------------- block uses */
/* Parse `tamm_block(T, i, ...)` at offset b of the main file: the argument texts, and the end. */
static int macro_args(cc_ast *a, size_t b, char **args, int *nargs, size_t *end)
{
    const char *s = a->text;
    size_t n = a->len, i = b;
    if (strncmp(s + b, "tamm_block", 10) || isalnum((unsigned char)s[b + 10]) || s[b + 10] == '_') return 0;
    i += 10;
    while (i < n && isspace((unsigned char)s[i])) i++;
    if (i >= n || s[i] != '(') return 0;
    i++;
    int depth = 0;
    size_t start = i;
    *nargs = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            for (i++; i < n && s[i] != c; i++)
                if (s[i] == '\\') i++;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
        else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
            if (*nargs == CC_MAX_DIMS + 1) return 0;
            char *t = cc_src_text(a, start, i);
            args[(*nargs)++] = t;
            start = i + 1;
            if (c == ')') {
                *end = i + 1;
                return 1;
            }
        }
    }
    return 0;
}

typedef struct { cc_infer *in; cc_task *t; int errors; } body_ctx;

static int is_nested_stmt(const cc_task *t, const cc_node *n)
{
    for (int i = 0; i < t->nkids; i++)
        if (t->kids[i]->stmt == n) return 1;
    return 0;
}

static int add_access(cc_task *t, const char *tensor, char **idx, int nidx, size_t off)
{
    cc_ref r;
    memset(&r, 0, sizeof r);
    r.tensor.s = (char *)tensor;
    r.nidx = nidx;
    for (int d = 0; d < nidx; d++) r.idx[d].s = idx[d];
    char *key = cc_ref_text(&r);
    for (int i = 0; i < t->nacc; i++)
        if (!strcmp(t->acc[i].key, key)) { free(key); return i; }
    t->acc = realloc(t->acc, (size_t)(t->nacc + 1) * sizeof *t->acc);
    cc_access *a = &t->acc[t->nacc];
    memset(a, 0, sizeof *a);
    a->key = key;
    a->tensor = cc_collapse(tensor);
    a->nidx = nidx;
    for (int d = 0; d < nidx; d++) a->idx[d] = idx[d] ? cc_collapse(idx[d]) : NULL;
    a->off = off;
    return t->nacc++;
}

static int body_visit(cc_node *n, void *arg)
{
    body_ctx *bc = arg;
    cc_infer *in = bc->in;
    cc_task *t = bc->t;
    if (n != t->stmt && is_nested_stmt(t, n)) return 0; /* a child's body: the child's business */
    if (n->kind != CXCursor_CallExpr) return 1;
    char *callee = cc_spelling(cc_referenced(n));
    int is_block = !strcmp(callee, "tamm_block_at");
    free(callee);
    if (!is_block || !n->in_main) return 1;
    char *args[CC_MAX_DIMS + 2];
    int nargs = 0;
    size_t end = 0;
    if (!macro_args(in->a, n->b, args, &nargs, &end) || nargs < 2) {
        for (int i = 0; i < nargs; i++) free(args[i]);
        cc_diag(in->src, n->b, CC_WARNING, "this block is not known at submission (tamm_block_at with an index "
                                          "array): it is fetched synchronously in the mode the task's permissions allow");
        return 1;
    }
    char *idx[CC_MAX_DIMS];
    for (int i = 1; i < nargs; i++) idx[i - 1] = cc_collapse(args[i]);
    int ai = add_access(t, args[0], idx, nargs - 1, n->b);
    cc_access *a = &t->acc[ai];
    a->own = 1;
    int dyn = cc_varies_in(in, t, args[0]);
    for (int i = 1; i < nargs && !dyn; i++) dyn = cc_varies_in(in, t, args[i]);
    if (dyn) {
        a->fetched = 0;
        cc_diag(in->src, n->b, CC_WARNING, "block %s has indices that vary inside the task: it cannot be requested "
                                          "at submission and is fetched synchronously (the task's permission covers "
                                          "it as a slice)", a->key);
    } else if (a->seen == 0 && !a->fetched) {
        a->fetched = 1;
    }
    ptr_info pi = { 0, NULL, { 0 } };
    analyze_ptr(in, n, t->stmt, &pi, 0);
    a->seen |= pi.seen;
    if (pi.cov && !a->cov) {
        /* the coverage must be computable at submission */
        if (!cc_varies_in(in, t, pi.cov)) a->cov = strdup(pi.cov);
    }
    /* reason text */
    unsigned s = a->seen;
    const char *w = NULL;
    if (s & CC_SEEN_ESC) w = pi.why[3];
    else if ((s & CC_SEEN_STORE) && (s & (CC_SEEN_READ | CC_SEEN_ACC))) w = pi.why[1] ? pi.why[1] : pi.why[0];
    else if (s & CC_SEEN_STORE) w = pi.why[1];
    else if (s & CC_SEEN_ACC) w = pi.why[2];
    else if (s & CC_SEEN_READ) w = pi.why[0];
    if (w) {
        char *both = a->why ? cc_fmt("%s; %s", a->why, w) : strdup(w);
        free(a->why);
        a->why = both;
    }
    pi_free(&pi);
    if (t->nuse % 8 == 0) t->use = realloc(t->use, (size_t)(t->nuse + 8) * sizeof *t->use);
    t->use[t->nuse].b = n->b;
    t->use[t->nuse].e = end;
    t->use[t->nuse].acc = ai;
    t->nuse++;
    for (int i = 0; i < nargs; i++) free(args[i]);
    for (int i = 1; i < nargs; i++) free(idx[i - 1]);
    return 1;
}

static unsigned mode_of(const cc_access *a)
{
    unsigned s = a->seen;
    if (s & CC_SEEN_ESC) return CC_RW;
    if ((s & CC_SEEN_READ) && (s & (CC_SEEN_STORE | CC_SEEN_ACC))) return CC_RW;
    if ((s & CC_SEEN_STORE) && (s & CC_SEEN_ACC)) return CC_RW;
    if (s & CC_SEEN_STORE) return a->cov ? CC_WRITE : CC_RW;
    if (s & CC_SEEN_ACC) return CC_ACCUM;
    return CC_READ;
}

int cc_infer_body(cc_infer *in, cc_task *t)
{
    int e0 = cc_error_count();
    body_ctx bc = { in, t, 0 };
    cc_walk(t->stmt, body_visit, &bc);
    for (int i = 0; i < t->nacc; i++) {
        cc_access *a = &t->acc[i];
        a->mode = mode_of(a);
        if (a->seen & CC_SEEN_STORE && !(a->seen & ~(unsigned)CC_SEEN_STORE) && !a->cov) {
            char *w = cc_fmt("%s; not every element is provably stored (no canonical loop nest over the block), so readwrite",
                          a->why ? a->why : "stored to");
            free(a->why);
            a->why = w;
        }
        if (!a->why) a->why = strdup("the pointer is not dereferenced");
        if (!a->fetched) {
            /* widen: indices that vary in the body become ':' */
            for (int d = 0; d < a->nidx; d++)
                if (a->idx[d] && cc_varies_in(in, t, a->idx[d])) { free(a->idx[d]); a->idx[d] = NULL; }
            if (a->mode == CC_WRITE) a->mode = CC_RW;
            free(a->cov);
            a->cov = NULL;
            cc_ref r;
            memset(&r, 0, sizeof r);
            r.tensor.s = a->tensor;
            r.nidx = a->nidx;
            for (int d = 0; d < a->nidx; d++) r.idx[d].s = a->idx[d];
            free(a->key);
            a->key = cc_ref_text(&r);
        }
    }
    /* widened accesses may now name the same slice: keep one, with the union of the modes */
    for (int i = 0; i < t->nacc; i++)
        for (int j = i + 1; j < t->nacc; j++) {
            cc_access *x = &t->acc[i], *y = &t->acc[j];
            if (x->fetched || y->fetched || strcmp(x->key, y->key)) continue;
            x->seen |= y->seen;
            unsigned m = (x->mode | y->mode) & 7u;
            x->mode = (m & CC_READ) && (m & CC_ACCUM) ? CC_RW : m;
            /* uses of y now refer to x */
            for (int k = 0; k < t->nuse; k++)
                if (t->use[k].acc == j) t->use[k].acc = i;
                else if (t->use[k].acc > j) t->use[k].acc--;
            free(y->key); free(y->tensor); free(y->cov); free(y->why);
            for (int d = 0; d < y->nidx; d++) free(y->idx[d]);
            memmove(y, y + 1, (size_t)(t->nacc - j - 1) * sizeof *y);
            t->nacc--;
            j--;
        }
    return cc_error_count() - e0;
}

/* ---------------------------------------------------------------- merging */
static int within(unsigned c, unsigned p)
{
    if ((c & CC_READ) && !(p & (CC_READ | CC_WRITE))) return 0;
    if ((c & CC_WRITE) && !(p & CC_WRITE)) return 0;
    if ((c & CC_ACCUM) && !(p & (CC_ACCUM | CC_WRITE))) return 0;
    return 1;
}

static const char *perm_word(unsigned m)
{
    switch (m & 7u) {
    case CC_READ: return "read";
    case CC_WRITE: return "write";
    case CC_RW: return "readwrite";
    case CC_ACCUM: return "accum";
    default: return "readwrite";
    }
}

int cc_infer_finish(cc_infer *in, cc_task *t)
{
    int e0 = cc_error_count();
    /* explicit clauses override inference for the blocks they name */
    for (int i = 0; i < t->pr->nrefs; i++) {
        cc_ref *r = &t->pr->refs[i];
        char *idx[CC_MAX_DIMS];
        for (int d = 0; d < r->nidx; d++) idx[d] = r->idx[d].s ? cc_collapse(r->idx[d].s) : NULL;
        int ai = add_access(t, r->tensor.s, idx, r->nidx, r->off);
        for (int d = 0; d < r->nidx; d++) free(idx[d]);
        cc_access *a = &t->acc[ai];
        if (r->mode & CC_PERMONLY) {
            if (a->explicit_mode) continue;
            a->mode = (a->own ? a->mode : CC_PERMONLY) | (r->mode & 7u);
            if (a->own) a->mode &= ~(unsigned)CC_PERMONLY;
            free(a->why);
            a->why = cc_fmt("permission(%s: ...) clause", perm_word(r->mode));
            continue;
        }
        unsigned m = r->mode & (7u | CC_CANCEL);
        /* a clause that contradicts the body is an error */
        unsigned s = a->seen;
        const char *bad = NULL;
        if ((m & 7u) == CC_READ && (s & (CC_SEEN_STORE | CC_SEEN_ACC))) bad = s & CC_SEEN_STORE ? "writes" : "accumulates into";
        else if ((m & 7u) == CC_ACCUM && (s & (CC_SEEN_READ | CC_SEEN_STORE))) bad = s & CC_SEEN_READ ? "reads" : "overwrites";
        else if ((m & 7u) == CC_WRITE && (s & CC_SEEN_READ)) bad = "reads";
        else if ((m & 7u) == CC_READ && (s & CC_SEEN_ESC)) bad = "may modify (it escapes)";
        if (bad) {
            cc_diag(in->src, r->off, CC_ERROR, "'%s' clause on %s, but the task body %s it (%s)", cc_mode_name(m), a->key,
                    bad, a->why ? a->why : "");
            continue;
        }
        if (a->explicit_mode && (a->mode & (7u | CC_CANCEL)) != m) {
            cc_diag(in->src, r->off, CC_ERROR, "'%s' clause on %s conflicts with an earlier '%s' clause on the same block",
                    cc_mode_name(m), a->key, cc_mode_name(a->mode));
            continue;
        }
        a->mode = m;
        a->explicit_mode = 1;
        if ((m & 7u) == CC_WRITE) { free(a->cov); a->cov = NULL; } /* declared: no check */
        free(a->why);
        a->why = cc_fmt("'%s' clause", cc_mode_name(m));
        if (!a->own) a->fetched = 0;
    }
    /* children: the parent needs their permissions, widened over what varies in its body */
    for (int k = 0; k < t->nkids; k++) {
        cc_task *c = t->kids[k];
        for (int i = 0; i < c->nacc; i++) {
            cc_access *ca = &c->acc[i];
            if (cc_varies_in(in, t, ca->tensor)) {
                cc_diag(in->src, ca->off, CC_ERROR, "the tensor expression '%s' of a nested task changes inside its "
                        "parent's body, so the parent's permission cannot be inferred; give the parent a "
                        "permission(...) clause naming the tensors", ca->tensor);
                continue;
            }
            char *idx[CC_MAX_DIMS];
            for (int d = 0; d < ca->nidx; d++)
                idx[d] = ca->idx[d] && !cc_varies_in(in, t, ca->idx[d]) ? strdup(ca->idx[d]) : NULL;
            int before = t->nacc;
            int ai = add_access(t, ca->tensor, idx, ca->nidx, ca->off);
            for (int d = 0; d < ca->nidx; d++) free(idx[d]);
            cc_access *a = &t->acc[ai];
            unsigned cm = ca->mode & 7u;
            if (ai >= before) { /* only the child uses it */
                a->mode = CC_PERMONLY | cm;
                a->why = cc_fmt("a nested task at line %u needs %s", c->line, perm_word(cm));
            } else if (a->explicit_mode) {
                if (!within(cm, a->mode & 7u))
                    cc_diag(in->src, ca->off, CC_ERROR, "nested task needs %s permission on %s, but its parent "
                            "(line %u) declares only %s", perm_word(cm), a->key, t->line, perm_word(a->mode));
            } else if (!within(cm, a->mode & 7u)) {
                unsigned nm = (a->mode | cm) & 7u;
                if ((nm & CC_READ) && (nm & CC_ACCUM)) nm = CC_RW;
                if ((nm & CC_WRITE) && !(nm & CC_READ) && a->own) nm = CC_RW; /* a write the body itself does not cover */
                a->mode = (a->mode & ~7u) | nm;
                char *w = cc_fmt("%s; widened to %s for a nested task at line %u", a->why ? a->why : "", perm_word(nm), c->line);
                free(a->why);
                a->why = w;
            }
        }
    }
    return cc_error_count() - e0;
}

void cc_infer_explain(cc_infer *in, const cc_task *t, void *fo)
{
    FILE *o = fo;
    unsigned line, col;
    cc_line_col(in->src, t->pr->off, &line, &col);
    fprintf(o, "%s:%u: task %s in %s()%s%s\n", in->src->name, line, t->name, t->fname,
            t->parent ? ", nested in " : "", t->parent ? t->parent->name : "");
    for (int i = 0; i < t->nacc; i++) {
        const cc_access *a = &t->acc[i];
        const char *kind = (a->mode & CC_PERMONLY) ? "permission" : a->fetched ? "access" : "access (fetched in the body)";
        fprintf(o, "  %-10s %-20s %s: %s%s\n", cc_mode_name(a->mode & (7u | CC_CANCEL)), a->key, kind, a->why ? a->why : "",
                a->cov && (a->mode & 7u) == CC_WRITE ? " [write if that covers the block, checked at submission; else readwrite]" : "");
    }
    if (t->nacc == 0) fprintf(o, "  (no block accesses)\n");
    for (int i = 0; i < t->ncap; i++) fprintf(o, "  captures %s by value\n", t->cap[i].name);
    if (t->nwait) fprintf(o, "  %d taskwait(s) in the body: continuation(s)\n", t->nwait);
    if (t->has_cuda || !t->cuda_why) fprintf(o, "  variants: cpu%s\n", t->has_cuda ? ", cuda" : "");
    else fprintf(o, "  variants: cpu (no cuda: %s)\n", t->cuda_why);
}
