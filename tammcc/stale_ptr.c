/* stale_ptr.c — top-level block pointers used after a task that writes their block,
 * with no taskwait between (see stale_ptr.h). */
#include "stale_ptr.h"
#include "infer.h"
#include "text.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* Is offset at inside the statement of some task of u? */
static int in_task(const cc_unit *u, size_t at)
{
    for (int i = 0; i < u->ntasks; i++)
        if (at >= u->tasks[i]->b && at < u->tasks[i]->e) return 1;
    return 0;
}

typedef struct {                  /* `p = tamm_block(...)` or `T *p = tamm_block(...)` outside tasks */
    CXCursor var;
    size_t at;                    /* the end of the assignment */
    unsigned line;
    char *key, *tensor;           /* "A[i]", "A" (collapsed, as access keys) */
} holder;

typedef struct {
    const cc_unit *u;
    holder *h; int nh; size_t cap;
    size_t *sync; int nsync; size_t sync_cap; /* tamm_wait_all, tamm_barrier, tamm_fence_wait calls */
} scan;

/* The variable that the value of node n is stored into: `T *p = n` or `p = n`; else null. */
static CXCursor stored_into(cc_node *n)
{
    cc_node *top = cc_up_wrappers(n), *p = top->parent;
    if (p && p->kind == CXCursor_VarDecl) return p->c;
    if (p && p->kind == CXCursor_BinaryOperator && p->nkid == 2 && p->kid[1] == top) {
        cc_node *l = cc_down_wrappers(p->kid[0]);
        if (l->kind == CXCursor_DeclRefExpr) return cc_referenced(l);
    }
    return clang_getNullCursor();
}

static int find_holders(cc_node *n, void *arg)
{
    scan *s = arg;
    if (n->kind != CXCursor_CallExpr || !n->in_main || in_task(s->u, n->b)) return 1;
    char *callee = cc_spelling(cc_referenced(n));
    int block = !strcmp(callee, "tamm_block_at");
    int sync = !strcmp(callee, "tamm_wait_all") || !strcmp(callee, "tamm_barrier") ||
               !strcmp(callee, "tamm_fence_wait") || !strcmp(callee, "tamm_timeline_wait");
    free(callee);
    if (sync) {
        CC_GROW(s->sync, s->sync_cap, s->nsync + 1);
        s->sync[s->nsync++] = n->b;
        return 1;
    }
    if (!block) return 1;
    CXCursor var = stored_into(n);
    char *args[CC_MAX_DIMS + 2];
    int nargs = 0;
    if (clang_Cursor_isNull(var) || !cc_infer_block_args((cc_ast *)&s->u->ast, n->b, args, &nargs) || nargs < 2) {
        for (int i = 0; i < nargs; i++) free(args[i]);
        return 1;
    }
    cc_ref r;
    memset(&r, 0, sizeof r);
    char *tensor = cc_collapse(args[0]), *idx[CC_MAX_DIMS];
    r.tensor.s = tensor;
    r.nidx = nargs - 1 < CC_MAX_DIMS ? nargs - 1 : CC_MAX_DIMS;
    for (int d = 0; d < r.nidx; d++) r.idx[d].s = idx[d] = cc_collapse(args[d + 1]);
    CC_GROW(s->h, s->cap, s->nh + 1);
    s->h[s->nh++] = (holder){ clang_getCanonicalCursor(var), n->e, cc_line_of(&s->u->src, n->b), cc_ref_text(&r), tensor };
    for (int d = 0; d < r.nidx; d++) free(idx[d]);
    for (int i = 0; i < nargs; i++) free(args[i]);
    return 1;
}

typedef struct { CXCursor var; size_t after; size_t first; int assigned; size_t assigned_at; const cc_unit *u; } use_find;

/* The first use of var after offset `after` outside tasks, and whether var is assigned
 * (a new value) in between. */
static int find_use(cc_node *n, void *arg)
{
    use_find *f = arg;
    if (n->kind != CXCursor_DeclRefExpr || n->b <= f->after || !n->in_main) return 1;
    if (!clang_equalCursors(clang_getCanonicalCursor(cc_referenced(n)), f->var)) return 1;
    cc_node *top = cc_up_wrappers(n), *p = top->parent;
    if (p && p->kind == CXCursor_BinaryOperator && p->nkid == 2 && p->kid[0] == top &&
        !strcmp(cc_binop((cc_ast *)&f->u->ast, p), "=")) {
        if (!f->assigned || n->b < f->assigned_at) {
            f->assigned = 1;
            f->assigned_at = n->b;
        }
        return 1;
    }
    if (in_task(f->u, n->b)) return 1;
    if (!f->first || n->b < f->first) f->first = n->b;
    return 1;
}

/* Does the task access the holder's block (the same block text, or the whole tensor)
 * in a mode that changes it?  Its access, or NULL. */
static const cc_access *writes_block(const cc_task *t, const holder *h)
{
    for (int i = 0; i < t->nacc; i++) {
        const cc_access *a = &t->acc[i];
        if ((a->mode & 7u) == CC_READ) continue;
        if (!strcmp(a->key, h->key) || (a->nidx == 0 && !strcmp(a->tensor, h->tensor))) return a;
    }
    return NULL;
}

/* Is there a top-level wait (taskwait, fence, or a waiting call) in [b, e) of fn? */
static int waits_in(const cc_unit *u, const scan *s, const cc_node *fn, size_t b, size_t e)
{
    for (int i = 0; i < u->nsa; i++)
        if (u->sa[i].fn == fn && !u->sa[i].in && u->sa[i].pr->kind != CC_P_STREAMING && u->sa[i].pr->off >= b &&
            u->sa[i].pr->off < e)
            return 1;
    for (int i = 0; i < s->nsync; i++)
        if (s->sync[i] >= b && s->sync[i] < e) return 1;
    return 0;
}

int cc_warn_stale_pointers(const cc_unit *u)
{
    int n = 0;
    for (int f = 0; f < u->nfns; f++) {
        cc_node *fn = u->fns[f];
        scan s = { u, NULL, 0, 0, NULL, 0, 0 };
        cc_walk(fn, find_holders, &s);
        for (int k = 0; k < s.nh; k++) {
            const holder *h = &s.h[k];
            /* the pointer given a new value (by a later holder, or otherwise) after this holder: once per holder */
            use_find before = { h->var, h->at, 0, 0, 0, u };
            cc_walk(fn, find_use, &before);
            for (int i = 0; i < u->ntasks; i++) {
                const cc_task *t = u->tasks[i];
                if (t->parent || t->fn != fn || t->b < h->at) continue;
                const cc_access *a = writes_block(t, h);
                if (!a) continue;
                use_find uf = { h->var, t->e, 0, 0, 0, u };
                cc_walk(fn, find_use, &uf);
                if (!uf.first || (before.assigned && before.assigned_at < uf.first)) continue;
                if (waits_in(u, &s, fn, t->e, uf.first)) continue;
                char *var = cc_spelling(h->var);
                cc_diag(&u->src, uf.first, CC_WARNING, "'%s' points to block %s (tamm_block at line %u), and the task at "
                        "line %u %s it; this use has no taskwait after that task, so it may see the block before the "
                        "task ran (the plain build runs it at once): add '#pragma tamm taskwait' before this use, or "
                        "call tamm_block again after it", var, h->key, h->line, t->line,
                        (a->mode & 7u) == CC_ACCUM ? "accumulates into" : "writes");
                free(var);
                n++;
                break; /* one warning per pointer */
            }
        }
        for (int k = 0; k < s.nh; k++) {
            free(s.h[k].key);
            free(s.h[k].tensor);
        }
        free(s.h);
        free(s.sync);
    }
    return n;
}
