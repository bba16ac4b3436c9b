/*
 * taskfn_range.c — ranges through calls (docs/language.md, rule 38): the range summaries of the
 * task functions, proved by induction over their calls, and the slice of a callee's need that a
 * call gives to its task and the enclosing ones (see taskfn_int.h; the needs are taskfn.c's).
 *
 * A recursive reduction on [lo, hi) submits tasks that touch only blocks lo..hi-1:
 * with whole-tensor permissions its two halves would depend on each other.  A
 * claim of function f says: in every call of f with pa < pb (two integer
 * parameters), every block of tensor `key` (a parameter "#k" or a file-scope
 * variable) that the tasks the call submits use lies, in dimension d, within
 * [pa, pb).  Claims are proved together, by induction over calls (the greatest
 * set of candidates whose obligations hold when the others are assumed):
 *   - each access of a task of f to the tensor (its index, or its range lo:hi,
 *     with lo < hi) lies within [pa, pb), from f's parameters, the locals
 *     defined once from them, the conditions of the enclosing `if`s and of the
 *     earlier `if (...) return;`, and pa < pb (linear.h proves it);
 *   - each call of a task function g, from a task of f or outside tasks, that
 *     passes the tensor, has a claim of g whose range, at the call, is nonempty
 *     and within [pa, pb) (and, in a task, computable at its submission).
 * A task calling f is given the range of f's claim, computed at its submission
 * and clamped to the dimension (tamm_cc_range); a range empty at run time gives
 * the whole dimension, so the precondition pa < pb needs no proof at the top.
 * The runtime checks every child against its parent's permissions all the same.
 */
#include "taskfn_int.h"
#include "diag.h"
#include "linear.h"
#include "text.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- range summaries */
/* A claim of a function (above): the blocks of tensor key (nidx indices) its tasks use lie, in
 * dimension d, within [pa, pb) (its parameters pa, pb), or are block pa when pb < 0. */
typedef struct claim {
    char *key;
    int nidx, d, pa, pb;
    int alive;
    char *why_not;            /* refuted: the first obligation that failed, for --explain */
    int progress;             /* ... how many of its obligations held before that one */
} claim;

/* the tensor key ("#k" or a file-scope name) of tensor text in function f, or NULL */
static char *key_of(tf_state *st, cc_node *f, const char *text)
{
    int r = cc_tf_resolve(st, f, text);
    return r >= 0 ? cc_fmt("#%d", r) : r == NAME_GLOBAL ? cc_tf_identifier(text) : NULL;
}

static int signed_int(CXType t)
{
    enum CXTypeKind k = clang_getCanonicalType(t).kind;
    return k == CXType_Short || k == CXType_Int || k == CXType_Long || k == CXType_LongLong;
}

/* e without parentheses and implicit conversions (an explicit cast stays: its type is what it yields) */
static cc_node *implicit_stripped(cc_node *e)
{
    while (e && (e->kind == CXCursor_ParenExpr || e->kind == CXCursor_UnexposedExpr) && e->nkid == 1) e = e->kid[0];
    return e;
}

/* Is the value of expression e (before any implicit conversion) unchanged when converted to type t:
 * both signed integer types, t at least as wide? */
static int fits(cc_node *e, CXType t)
{
    CXType et = clang_getCursorType(e->c);
    return signed_int(et) && signed_int(t) && clang_Type_getSizeOf(clang_getCanonicalType(et)) > 0 &&
           clang_Type_getSizeOf(clang_getCanonicalType(et)) <= clang_Type_getSizeOf(clang_getCanonicalType(t));
}

/* Argument k of call c converted to g's parameter k unchanged? */
static int arg_fits(fninfo *g, cc_node *c, int k)
{
    cc_node *a = c->nkid > k + 1 ? c->kid[k + 1] : NULL;
    return a && fits(implicit_stripped(a), clang_getCursorType(clang_Cursor_getArgument(g->root->c, (unsigned)k)));
}

/* lookup of identifiers for linear.h: f's parameters and its locals defined once */
typedef struct { tf_state *st; fninfo *f; } rs_lookup;
/* the declaration of a local named name that is in scope at offset where (the
 * innermost, as C resolves it), if any */
typedef struct { const char *name; size_t where; cc_node *decl; int other; } var_find;
static int find_var(cc_node *n, void *arg)
{
    var_find *v = arg;
    if (n->kind == CXCursor_EnumConstantDecl) { /* an enumerator may shadow a parameter or a local */
        char *s = cc_spelling(n->c);
        v->other |= !strcmp(s, v->name);
        free(s);
    }
    if (n->kind == CXCursor_VarDecl && n->in_main) {
        cc_node *scope = n->parent ? n->parent->parent : NULL; /* VarDecl < DeclStmt < block (or for) */
        char *s = cc_spelling(n->c);
        if (!strcmp(s, v->name) && scope && n->e <= v->where && v->where < scope->e && (!v->decl || n->b > v->decl->b))
            v->decl = n;
        free(s);
    }
    return 1;
}

static char *rs_lookup_fn(void *arg, const char *name, size_t where, int *is_var, size_t *def_where)
{
    rs_lookup *lk = arg;
    cc_node *f = lk->f->root;
    var_find vf = { name, where, NULL, 0 };
    cc_walk(f, find_var, &vf);
    if (vf.other) return NULL;
    for (int i = 0; i < lk->st->u->nmac; i++) /* a macro of that name: the text does not mean the variable */
        if (!strcmp(lk->st->u->mac[i].name, name)) return NULL;
    cc_node *d = vf.decl;
    if (!d) { /* a parameter */
        int np = clang_Cursor_getNumArguments(f->c);
        for (int k = 0; k < np; k++) {
            CXCursor p = clang_Cursor_getArgument(f->c, (unsigned)k);
            char *pn = cc_spelling(p);
            int same = !strcmp(pn, name);
            free(pn);
            if (!same) continue;
            if (!signed_int(clang_getCursorType(p)) || cc_infer_touches(lk->st->in, f, p)) return NULL;
            *is_var = 1;
            return cc_xstrdup(name);
        }
        return NULL;
    }
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(d->c);
    if (sc == CX_SC_Static || sc == CX_SC_Extern || !signed_int(clang_getCursorType(d->c)) || !d->nkid ||
        !clang_isExpression(d->kid[d->nkid - 1]->kind) || cc_infer_touches(lk->st->in, f, d->c))
        return NULL;
    cc_node *init = d->kid[d->nkid - 1];
    if (!init->in_main || !fits(implicit_stripped(init), clang_getCursorType(d->c))) return NULL; /* `short m = lo;` */
    *is_var = 0;
    *def_where = init->b;
    return cc_src_text(&lk->st->u->ast, init->b, init->e);
}

typedef struct { int hit; } jump_find;
static int find_jump(cc_node *n, void *arg)
{
    jump_find *j = arg;
    enum CXCursorKind k = n->kind;
    if (k == CXCursor_GotoStmt || k == CXCursor_IndirectGotoStmt || k == CXCursor_LabelStmt ||
        k == CXCursor_SwitchStmt || k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt)
        j->hit = 1;
    return !j->hit;
}

static int ends_in_return(const cc_node *s)
{
    if (s->kind == CXCursor_ReturnStmt) return 1;
    return s->kind == CXCursor_CompoundStmt && s->nkid && s->kid[s->nkid - 1]->kind == CXCursor_ReturnStmt;
}

static void assume_cond(tf_state *st, cc_lin_prob *p, cc_node *cond, int negated)
{
    if (!cond->in_main) return;
    char *text = cc_src_text(&st->u->ast, cond->b, cond->e);
    cc_lin_assume(p, text, cond->b, negated);
    free(text);
}

/* The preconditions of g: the (pa, pb) of its current claims, without repeats; returns their number. */
static claim *current_claim(rs_state *rs, fninfo *g, const char *key, int d);
static int preconditions(rs_state *rs, fninfo *g, int (*pre)[2], int max)
{
    int gi = (int)(g - rs->st->f), n = 0;
    for (int i = 0; i < rs->ncl[gi]; i++) {
        claim *c = &rs->cl[gi][i];
        if (c->pb < 0 || current_claim(rs, g, c->key, c->d) != c) continue; /* a point claim assumes nothing */
        int dup = 0;
        for (int j = 0; j < n && !dup; j++) dup = pre[j][0] == c->pa && pre[j][1] == c->pb;
        if (!dup && n < max) {
            pre[n][0] = c->pa;
            pre[n][1] = c->pb;
            n++;
        }
    }
    return n;
}

/* A problem at node n of f: f's preconditions and the conditions that hold at n. */
static cc_lin_prob *rs_problem(rs_state *rs, rs_lookup *lk, cc_node *n)
{
    cc_lin_prob *p = cc_lin_new(rs_lookup_fn, lk);
    cc_node *f = lk->f->root;
    int pre[64][2], npre = rs->only && rs->only->pb >= 0;
    if (rs->only) {
        pre[0][0] = rs->only->pa;
        pre[0][1] = rs->only->pb;
    } else {
        npre = preconditions(rs, lk->f, pre, 64);
    }
    for (int i = 0; i < npre; i++) {
        char *na = cc_spelling(clang_Cursor_getArgument(f->c, (unsigned)pre[i][0]));
        char *nb = cc_spelling(clang_Cursor_getArgument(f->c, (unsigned)pre[i][1]));
        cc_lin a, b;
        if (cc_lin_expr(p, na, n->b, &a) && cc_lin_expr(p, nb, n->b, &b)) cc_lin_assume_lt(p, &a, &b);
        free(na);
        free(nb);
    }
    jump_find jf = { 0 };
    cc_walk(f, find_jump, &jf); /* with goto or switch, control may enter an if's branch, or pass an
                                 * earlier `if (...) return;`, without its condition: no condition counts */
    for (cc_node *x = n; x && x != f && x->parent && !jf.hit; x = x->parent) {
        cc_node *par = x->parent;
        int k = cc_kid_index(x);
        if (par->kind == CXCursor_IfStmt && (k == 1 || k == 2) && par->nkid >= 2)
            assume_cond(lk->st, p, par->kid[0], k == 2);
        if (par->kind == CXCursor_CompoundStmt)
            for (int i = 0; i < k; i++) {
                cc_node *s = par->kid[i];
                if (s->kind == CXCursor_IfStmt && s->nkid == 2 && ends_in_return(s->kid[1]))
                    assume_cond(lk->st, p, s->kid[0], 1);
            }
    }
    return p;
}

/* In p, at offset where, is the range lo:hi (lo NULL: the index hi) within
 * claim cl's blocks: [pa, pb), or exactly block pa for a point claim (pb < 0)?
 * With nonempty, the range must also hold a block (lo < hi). */
static int rs_within(cc_lin_prob *p, cc_node *f, const claim *cl, const char *lo, const char *hi, size_t where,
                     int nonempty)
{
    char *na = cc_spelling(clang_Cursor_getArgument(f->c, (unsigned)cl->pa));
    char *nb = cl->pb >= 0 ? cc_spelling(clang_Cursor_getArgument(f->c, (unsigned)cl->pb)) : NULL;
    cc_lin A, B, L, H;
    int ok = cc_lin_expr(p, na, where, &A) && cc_lin_expr(p, hi, where, &H) && (!lo || cc_lin_expr(p, lo, where, &L));
    if (ok && !nb) { /* the point A: L == A and H == A + 1, or H == A */
        B = A;
        B.k += 1;
        ok = lo ? cc_lin_prove(p, &L, &A, 0) && cc_lin_prove(p, &A, &L, 0) && cc_lin_prove(p, &H, &B, 0) &&
                      cc_lin_prove(p, &B, &H, 0)
                : cc_lin_prove(p, &H, &A, 0) && cc_lin_prove(p, &A, &H, 0);
    } else if (ok) {
        ok = cc_lin_expr(p, nb, where, &B) &&
             (lo ? cc_lin_prove(p, &A, &L, 0) && (!nonempty || cc_lin_prove(p, &L, &H, 1)) && cc_lin_prove(p, &H, &B, 0)
                 : cc_lin_prove(p, &A, &H, 0) && cc_lin_prove(p, &H, &B, 1));
    }
    free(na);
    free(nb);
    return ok;
}

/* The current claim of g on (key, dimension d): its first candidate not refuted; or NULL. */
static claim *current_claim(rs_state *rs, fninfo *g, const char *key, int d)
{
    int gi = (int)(g - rs->st->f);
    for (int i = 0; i < rs->ncl[gi]; i++) {
        claim *c = &rs->cl[gi][i];
        if (c->alive && c->d == d && !strcmp(c->key, key)) return c;
    }
    return NULL;
}

/* argument k of call c, if it is in the main file */
static cc_node *call_arg(cc_node *c, int k)
{
    cc_node *a = c->nkid > k + 1 ? c->kid[k + 1] : NULL;
    return a && a->in_main ? a : NULL;
}

/* Is argument node a computable at the submission of the task whose statement is task_stmt? */
static int stable_at(tf_state *st, cc_node *a, cc_node *task_stmt)
{
    char *s = cc_infer_stable_text(st->in, a, task_stmt);
    free(s);
    return s != NULL;
}

/* Does call c of g, in f, meet g's preconditions: for each (qa, qb) of g, the
 * call's arguments provably qa < qb there, and in a task (task_stmt) both
 * computable at its submission? */
static int call_meets_pre(rs_state *rs, fninfo *f, fninfo *g, cc_node *c, cc_node *task_stmt)
{
    tf_state *st = rs->st;
    int pre[64][2], n = preconditions(rs, g, pre, 64), ok = 1;
    rs_lookup lk = { st, f };
    cc_lin_prob *p = rs_problem(rs, &lk, c);
    for (int i = 0; i < n && ok; i++) {
        cc_node *A = call_arg(c, pre[i][0]), *B = call_arg(c, pre[i][1]);
        ok = A && B && arg_fits(g, c, pre[i][0]) && arg_fits(g, c, pre[i][1]) &&
             (!task_stmt || (stable_at(st, A, task_stmt) && stable_at(st, B, task_stmt)));
        if (!ok) break;
        char *ta = cc_src_text(&st->u->ast, A->b, A->e), *tb = cc_src_text(&st->u->ast, B->b, B->e);
        cc_lin la, lb;
        ok = cc_lin_expr(p, ta, c->b, &la) && cc_lin_expr(p, tb, c->b, &lb) && cc_lin_prove(p, &la, &lb, 1);
        free(ta);
        free(tb);
    }
    cc_lin_free(p);
    return ok;
}

/* Record why an obligation failed (*why, taking w), free name, and return 0. */
static int refuted(char **why, char *name, char *w)
{
    free(*why);
    *why = w;
    free(name);
    return 0;
}

/* Obligations of claim cl (of f, on its tensor key) at call c of a task
 * function g, from the task whose statement is task_stmt (NULL: outside
 * tasks): for each of g's tensors the call passes as key, g's current claim on
 * it in dimension cl->d, at the call, lies within [pa, pb), and (unless local)
 * the call meets g's preconditions (so that g's claims hold). */
static int call_obligations(rs_state *rs, fninfo *f, cc_node *c, const claim *cl, cc_node *task_stmt, int local,
                            char **why)
{
    tf_state *st = rs->st;
    fninfo *g = cc_tf_fn_by_cursor(st, cc_referenced(c));
    if (!g) return 1;
    char *gname = cc_spelling(g->root->c);
    unsigned line = cc_line_of(&st->u->src, c->b);
    int passed = 0;
    for (int k = 0; k < g->nnd; k++) {
        if (!g->nd[k].tensor) continue;
        char *mine = cc_tf_subst(st, &g->nd[k], c, f->root);
        int passes = mine && !strcmp(mine, cl->key);
        free(mine);
        if (!passes) continue;
        passed = 1;
        claim *use = current_claim(rs, g, g->nd[k].tensor, cl->d);
        if (!use || use->nidx != cl->nidx)
            return refuted(why, gname, cc_fmt("the call of %s at line %u has no range of its own blocks", gname, line));
        cc_node *A = call_arg(c, use->pa), *B = use->pb >= 0 ? call_arg(c, use->pb) : NULL;
        if (!A || (use->pb >= 0 && !B) || !arg_fits(g, c, use->pa) || (B && !arg_fits(g, c, use->pb)))
            return refuted(why, gname, cc_fmt("the bounding arguments of the call of %s at line %u are converted "
                                              "or not in this file", gname, line));
        if (task_stmt && (!stable_at(st, A, task_stmt) || (B && !stable_at(st, B, task_stmt))))
            return refuted(why, gname, cc_fmt("the bounding arguments of the call of %s at line %u are not known "
                                              "when its task is submitted", gname, line));
        char *ta = cc_src_text(&st->u->ast, A->b, A->e), *tb = B ? cc_src_text(&st->u->ast, B->b, B->e) : NULL;
        rs_lookup lk = { st, f };
        cc_lin_prob *p = rs_problem(rs, &lk, c);
        /* lo < hi: one of g's preconditions, proved by call_meets_pre */
        int ok = tb ? rs_within(p, f->root, cl, ta, tb, c->b, 0) : rs_within(p, f->root, cl, NULL, ta, c->b, 0);
        cc_lin_free(p);
        char *w = ok ? NULL : tb ? cc_fmt("the call of %s at line %u uses blocks %s:%s of that tensor", gname, line, ta, tb)
                                 : cc_fmt("the call of %s at line %u uses block %s of that tensor", gname, line, ta);
        free(ta);
        free(tb);
        if (!ok) return refuted(why, gname, w);
    }
    if (passed && !local && !call_meets_pre(rs, f, g, c, task_stmt))
        return refuted(why, gname, cc_fmt("the arguments of the call of %s at line %u do not provably meet its "
                                          "precondition (a nonempty range)", gname, line));
    free(gname);
    return 1;
}

static int task_within(const cc_task *t, const cc_task *anc)
{
    for (const cc_task *p = t->parent; p; p = p->parent)
        if (p == anc) return 1;
    return 0;
}

/* Do the obligations of claim cl of f hold, assuming the current claims?
 * local (choosing candidates, rs->only = cl): assuming only cl's own
 * precondition, and not that calls meet their callees' preconditions; and one
 * of the tasks' own accesses of the tensor, if there is any, must be reachable
 * under it (a precondition that no access can meet proves nothing useful). */
static int claim_holds(rs_state *rs, fninfo *f, const claim *cl, int local, char **why, int *progress)
{
    *progress = 0;
    tf_state *st = rs->st;
    cc_unit *u = st->u;
    rs_lookup lk = { st, f };
    cc_lin zero = { { 0 }, 0 };
    if (!local) {
        cc_lin_prob *pp = rs_problem(rs, &lk, f->root);
        int contradictory = cc_lin_prove(pp, &zero, &zero, 1); /* the preconditions exclude each other */
        cc_lin_free(pp);
        if (contradictory) return refuted(why, NULL, cc_fmt("its preconditions exclude each other"));
    }
    if (f->opaque_calls) /* a call outside its tasks that may touch blocks or submit tasks */
        return refuted(why, NULL, cc_fmt("a call outside its tasks is not followed"));
    for (int b = 0; b < f->nblocks; b++) { /* tamm_block outside tasks: not followed */
        cc_node *tn = f->blocks[b]->nkid >= 2 ? cc_down_wrappers(f->blocks[b]->kid[1]) : NULL;
        if (!tn || !tn->in_main) return 0;
        char *text = cc_src_text(&u->ast, tn->b, tn->e), *k = key_of(st, f->root, text);
        int same = !k || !strcmp(k, cl->key);
        free(text);
        free(k);
        if (same)
            return refuted(why, NULL, cc_fmt("tamm_block is called outside its tasks at line %u", cc_line_of(&u->src, f->blocks[b]->b)));
    }
    int points = 0, reachable = 0;
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        if (t->fn != f->root || t->parent) continue;
        for (int a = 0; a < rs->nacc0[i]; a++) {
            cc_access *ac = &t->acc[a];
            char *k = key_of(st, f->root, ac->tensor);
            int same = !k || !strcmp(k, cl->key);
            free(k);
            if (!same) continue;
            if (ac->nidx != cl->nidx || !ac->idx[cl->d])
                return refuted(why, NULL, cc_fmt("the task at line %u uses %s, not provably within them", t->line, ac->key));
            const char *ix = ac->idx[cl->d];
            size_t le, hb;
            char *lo = NULL, *hi;
            if (cc_range_split(ix, &le, &hb)) {
                lo = cc_fmt("%.*s", (int)le, ix);
                hi = cc_xstrdup(ix + hb);
            } else {
                hi = cc_xstrdup(ix);
            }
            cc_lin_prob *p = rs_problem(rs, &lk, t->stmt);
            points++;
            reachable += !cc_lin_prove(p, &zero, &zero, 1);
            int ok = rs_within(p, f->root, cl, lo, hi, t->stmt->b, 1);
            cc_lin_free(p);
            free(lo);
            free(hi);
            if (!ok) return refuted(why, NULL, cc_fmt("the task at line %u uses %s, not provably within them", t->line, ac->key));
            ++*progress;
        }
    }
    for (int c = 0; c < f->ncalls; c++, ++*progress) /* the function's own tasks are within cl; then its calls */
        if (!call_obligations(rs, f, f->calls[c], cl, NULL, local, why)) return 0;
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        if (t->fn != f->root || t->parent) continue;
        for (int c = 0; c < t->ntfcall; c++, ++*progress)
            if (!call_obligations(rs, f, t->tfcall[c], cl, t->stmt, local, why)) return 0;
        for (int j = 0; j < u->ntasks; j++) { /* calls in nested tasks: their permissions are not followed */
            cc_task *dsc = u->tasks[j];
            if (!task_within(dsc, t)) continue;
            for (int c = 0; c < dsc->ntfcall; c++) {
                fninfo *g = cc_tf_fn_by_cursor(st, cc_referenced(dsc->tfcall[c]));
                for (int k = 0; g && k < g->nnd; k++) {
                    char *mine = cc_tf_subst(st, &g->nd[k], dsc->tfcall[c], f->root);
                    int passes = !mine || !strcmp(mine, cl->key);
                    free(mine);
                    if (passes)
                        return refuted(why, NULL, cc_fmt("the call at line %u in a nested task is not followed",
                                                         cc_line_of(&u->src, dsc->tfcall[c]->b)));
                }
            }
        }
    }
    if (local && points && !reachable) {
        *progress = 0; /* a precondition no access meets: the nearest of nothing */
        return refuted(why, NULL, cc_fmt("no task's block is reachable under its precondition"));
    }
    return 1;
}

static void claim_add(rs_state *rs, int fi, const char *key, int nidx)
{
    fninfo *f = &rs->st->f[fi];
    for (int i = 0; i < rs->ncl[fi]; i++)
        if (!strcmp(rs->cl[fi][i].key, key)) return;
    if (!cc_infer_trusted_body(f->root->c)) return; /* inline or weak: another definition may run */
    int np = clang_Cursor_getNumArguments(f->root->c);
    /* candidates in order: parameters in their order before the reverse, nearer ones first */
    for (int d = 0; d < nidx; d++) {
        for (int pa = 0; pa < np; pa++) /* a point: block pa, whatever the call */
            if (signed_int(clang_getCursorType(clang_Cursor_getArgument(f->root->c, (unsigned)pa)))) {
                CC_GROW(rs->cl[fi], rs->clcap[fi], rs->ncl[fi] + 1);
                rs->cl[fi][rs->ncl[fi]++] = (claim){ cc_xstrdup(key), nidx, d, pa, -1, 1, NULL, 0 };
            }
        for (int rev = 0; rev < 2; rev++)
            for (int dist = 1; dist < np; dist++)
                for (int a = 0; a + dist < np; a++) {
                    int pa = rev ? a + dist : a, pb = rev ? a : a + dist;
                    if (!signed_int(clang_getCursorType(clang_Cursor_getArgument(f->root->c, (unsigned)pa))) ||
                        !signed_int(clang_getCursorType(clang_Cursor_getArgument(f->root->c, (unsigned)pb))))
                        continue;
                    CC_GROW(rs->cl[fi], rs->clcap[fi], rs->ncl[fi] + 1);
                    rs->cl[fi][rs->ncl[fi]++] = (claim){ cc_xstrdup(key), nidx, d, pa, pb, 1, NULL, 0 };
                }
    }
}

/* Candidates: per function, per tensor its tasks index (with one number of
 * indices), every dimension and ordered pair of integer parameters; then the
 * greatest set of them whose obligations hold. */
static void range_summaries(rs_state *rs)
{
    tf_state *st = rs->st;
    cc_unit *u = st->u;
    for (int round = 0; round < 8; round++) { /* keys reached only through calls: from the callees' */
        int before = 0;
        for (int i = 0; i < st->nf; i++) before += rs->ncl[i];
        for (int i = 0; i < u->ntasks; i++) {
            cc_task *t = u->tasks[i];
            fninfo *f = cc_tf_fn_by_cursor(st, t->fn->c);
            if (!f || t->parent) continue;
            for (int a = 0; a < rs->nacc0[i]; a++) {
                char *k = key_of(st, f->root, t->acc[a].tensor);
                if (k && t->acc[a].nidx > 0) claim_add(rs, (int)(f - st->f), k, t->acc[a].nidx);
                free(k);
            }
        }
        for (int i = 0; i < st->nf; i++) {
            fninfo *f = &st->f[i];
            for (int pass = 0; pass < 2; pass++) {
                int n = pass ? f->ncalls : 0;
                for (int c = 0; c < n; c++) {
                    fninfo *g = cc_tf_fn_by_cursor(st, cc_referenced(f->calls[c]));
                    int gi = g ? (int)(g - st->f) : -1;
                    for (int j = 0; g && j < rs->ncl[gi]; j++) {
                        need tmp = { rs->cl[gi][j].key, 0, NULL };
                        char *mine = cc_tf_subst(st, &tmp, f->calls[c], f->root);
                        if (mine) claim_add(rs, i, mine, rs->cl[gi][j].nidx);
                        free(mine);
                    }
                }
            }
        }
        for (int i = 0; i < u->ntasks; i++) {
            cc_task *t = u->tasks[i];
            fninfo *f = cc_tf_fn_by_cursor(st, t->fn->c);
            if (!f) continue;
            for (int c = 0; c < t->ntfcall; c++) {
                fninfo *g = cc_tf_fn_by_cursor(st, cc_referenced(t->tfcall[c]));
                int gi = g ? (int)(g - st->f) : -1;
                for (int j = 0; g && j < rs->ncl[gi]; j++) {
                    need tmp = { rs->cl[gi][j].key, 0, NULL };
                    char *mine = cc_tf_subst(st, &tmp, t->tfcall[c], f->root);
                    if (mine) claim_add(rs, (int)(f - st->f), mine, rs->cl[gi][j].nidx);
                    free(mine);
                }
            }
        }
        int after = 0;
        for (int i = 0; i < st->nf; i++) after += rs->ncl[i];
        if (after == before) break;
    }
    /* Candidates are refuted for good, in two steps, until every current one holds:
     * local checks first (each claim alone), so that the full checks, which
     * assume every current claim's precondition, see sensible candidates. */
    for (int round = 0; round < 1000; round++) {
        for (int changed = 1; changed;) {
            changed = 0;
            for (int i = 0; i < st->nf; i++)
                for (int c = 0; c < rs->ncl[i]; c++) {
                    claim *cl = &rs->cl[i][c];
                    if (current_claim(rs, &st->f[i], cl->key, cl->d) != cl) continue;
                    rs->only = cl;
                    int ok = claim_holds(rs, &st->f[i], cl, 1, &cl->why_not, &cl->progress);
                    rs->only = NULL;
                    if (!ok) { /* the next candidate of the same (tensor, dimension) is tried next */
                        cl->alive = 0;
                        changed = 1;
                    }
                }
        }
        int changed = 0;
        for (int i = 0; i < st->nf; i++)
            for (int c = 0; c < rs->ncl[i]; c++) {
                claim *cl = &rs->cl[i][c];
                if (current_claim(rs, &st->f[i], cl->key, cl->d) == cl &&
                    !claim_holds(rs, &st->f[i], cl, 0, &cl->why_not, &cl->progress)) {
                    cl->alive = 0;
                    changed = 1;
                }
            }
        if (!changed) return;
    }
    for (int i = 0; i < st->nf; i++) /* not settled: trust none */
        for (int c = 0; c < rs->ncl[i]; c++) rs->cl[i][c].alive = 0;
}

void cc_tf_ranges_prove(rs_state *rs, tf_state *st, int *nacc0)
{
    *rs = (rs_state){ st,
                      cc_xcalloc((size_t)st->nf + 1, sizeof(claim *)),
                      cc_xcalloc((size_t)st->nf + 1, sizeof(int)),
                      cc_xcalloc((size_t)st->nf + 1, sizeof(size_t)),
                      nacc0,
                      NULL };
    range_summaries(rs);
}

void cc_tf_ranges_free(rs_state *rs)
{
    for (int i = 0; i < rs->st->nf; i++) {
        for (int c = 0; c < rs->ncl[i]; c++) {
            free(rs->cl[i][c].key);
            free(rs->cl[i][c].why_not);
        }
        free(rs->cl[i]);
    }
    free(rs->cl);
    free(rs->ncl);
    free(rs->clcap);
}

/* ---------------------------------------------------------------- the slice a call needs */
/* Why g has no range on the tensor of need n, for --explain: the refutation of
 * the candidate of g that met the most obligations (the first of those); NULL
 * when it had none. */
static char *no_range_reason(tf_state *st, fninfo *g, const need *n)
{
    int gi = (int)(g - st->f);
    const claim *best = NULL;
    for (int i = 0; i < st->rs->ncl[gi]; i++) {
        const claim *c = &st->rs->cl[gi][i];
        if (strcmp(c->key, n->tensor) || !c->why_not) continue;
        if (!best || c->progress > best->progress) best = c;
    }
    if (!best) return NULL;
    char *fname = cc_spelling(g->root->c);
    char *pn = cc_spelling(clang_Cursor_getArgument(g->root->c, (unsigned)best->pa));
    char *qn = best->pb >= 0 ? cc_spelling(clang_Cursor_getArgument(g->root->c, (unsigned)best->pb)) : NULL;
    char *dim = best->nidx > 1 ? cc_fmt(" in dimension %d", best->d + 1) : cc_xstrdup("");
    char *r = cc_fmt("no range (rule 38): the nearest candidate, '%s uses only blocks [%s%s%s]%s', fails: %s", fname, pn,
                     qn ? ":" : "", qn ? qn : "", dim, best->why_not);
    free(fname);
    free(pn);
    free(qn);
    free(dim);
    return r;
}

/* The slice of need n of g that call c needs, as task p computes it at its
 * submission: per dimension of g's current claims, the range of the call's
 * arguments ("lo:hi"; when g has other preconditions, a range that is empty
 * unless they hold, so that the whole dimension is taken), else ':'; 0 indices
 * when no dimension has a range (the whole tensor).  *proof: for --explain. */
int cc_tf_call_slice(tf_state *st, fninfo *g, const need *n, cc_node *c, cc_task *p, char **idx, char **proof)
{
    *proof = NULL;
    for (int d = 0; d < CC_MAX_DIMS; d++) idx[d] = NULL;
    if (!st->rs || !n->tensor) return 0;
    int pre[64][2], npre = preconditions(st->rs, g, pre, 64);
    char *ptext[64][2];
    int stable = 1;
    for (int i = 0; i < npre; i++) {
        cc_node *A = call_arg(c, pre[i][0]), *B = call_arg(c, pre[i][1]);
        ptext[i][0] = A ? cc_infer_stable_text(st->in, A, p->stmt) : NULL;
        ptext[i][1] = B ? cc_infer_stable_text(st->in, B, p->stmt) : NULL;
        stable &= ptext[i][0] && ptext[i][1] && arg_fits(g, c, pre[i][0]) && arg_fits(g, c, pre[i][1]);
    }
    claim *any = NULL;
    for (int d = 0; d < CC_MAX_DIMS && stable; d++) {
        claim *cl = current_claim(st->rs, g, n->tensor, d);
        if (!cl) continue;
        if (any && cl->nidx != any->nidx) {
            any = NULL;
            break;
        }
        any = cl;
        char *lo = NULL, *hi = NULL, *cond = cc_xstrdup("");
        for (int i = 0; i < npre; i++) {
            if (pre[i][0] == cl->pa && pre[i][1] == cl->pb) {
                lo = ptext[i][0];
                hi = ptext[i][1];
                continue;
            }
            char *w = cc_fmt("%s%s(%s) < (%s)", cond, *cond ? " && " : "", ptext[i][0], ptext[i][1]);
            free(cond);
            cond = w;
        }
        char *pt = NULL;
        if (cl->pb < 0) { /* a point: a range of one block, so that it is clamped to the tensor like the others */
            cc_node *A = call_arg(c, cl->pa);
            pt = A && arg_fits(g, c, cl->pa) ? cc_infer_stable_text(st->in, A, p->stmt) : NULL;
            if (pt && *cond) idx[d] = cc_fmt("((%s) ? (%s) : 0):((%s) ? (%s) + 1 : 0)", cond, pt, cond, pt);
            else if (pt) idx[d] = cc_fmt("%s:(%s) + 1", pt, pt);
        } else if (lo && hi) {
            idx[d] = *cond ? cc_fmt("((%s) ? (%s) : 0):((%s) ? (%s) : 0)", cond, lo, cond, hi) : cc_fmt("%s:%s", lo, hi);
        }
        free(pt);
        free(cond);
    }
    for (int i = 0; i < npre; i++) {
        free(ptext[i][0]);
        free(ptext[i][1]);
    }
    int ranged = 0;
    for (int d = 0; any && d < any->nidx; d++) ranged |= idx[d] != NULL;
    if (!ranged) {
        for (int d = 0; d < CC_MAX_DIMS; d++) free(idx[d]);
        *proof = stable ? no_range_reason(st, g, n)
                        : cc_xstrdup("no range (rule 38): the arguments that bound it are not known at the submission");
        return 0;
    }
    char *fname = cc_spelling(g->root->c), *ranges = cc_xstrdup("");
    for (int d = 0; d < any->nidx; d++) {
        claim *cl = current_claim(st->rs, g, n->tensor, d);
        char *w;
        if (cl) {
            char *pn = cc_spelling(clang_Cursor_getArgument(g->root->c, (unsigned)cl->pa));
            char *qn = cl->pb >= 0 ? cc_spelling(clang_Cursor_getArgument(g->root->c, (unsigned)cl->pb)) : NULL;
            w = qn ? cc_fmt("%s[%s:%s]", ranges, pn, qn) : cc_fmt("%s[%s]", ranges, pn);
            free(pn);
            free(qn);
        } else {
            w = cc_fmt("%s[:]", ranges);
        }
        free(ranges);
        ranges = w;
    }
    *proof = cc_fmt("a range: %s uses only %s%s of that tensor (rule 38, proved over its calls)", fname,
                    n->tensor[0] == '#' ? "its parameter's blocks " : "blocks ", ranges);
    free(ranges);
    free(fname);
    return any->nidx;
}
