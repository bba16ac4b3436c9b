/* taskfn.c — task functions: permissions inferred through calls (see taskfn.h); the ranges of
 * those permissions (rule 38) are taskfn_range.c's (see taskfn_int.h). */
#include "taskfn_int.h"
#include "frames.h"
#include "diag.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *usr_of(CXCursor c)
{
    CXString s = clang_getCursorUSR(c);
    char *r = cc_xstrdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

fninfo *cc_tf_fn_by_cursor(tf_state *st, CXCursor callee)
{
    if (clang_Cursor_isNull(callee) || clang_getCursorKind(callee) != CXCursor_FunctionDecl) return NULL;
    CXCursor def = clang_getCursorDefinition(callee);
    if (clang_Cursor_isNull(def)) return NULL;
    char *u = usr_of(def);
    fninfo *r = NULL;
    for (int i = 0; i < st->nf && !r; i++)
        if (!strcmp(st->f[i].usr, u)) r = &st->f[i];
    free(u);
    return r;
}

/* ---------------------------------------------------------------- the unit's functions */
static void add_fn(tf_state *st, cc_node *root, int owned)
{
    char *u = usr_of(root->c);
    for (int i = 0; i < st->nf; i++)
        if (!strcmp(st->f[i].usr, u)) {
            free(u);
            if (owned) cc_tree_free(root);
            return;
        }
    CC_GROW(st->f, st->f_cap, st->nf + 1);
    fninfo *f = &st->f[st->nf++];
    memset(f, 0, sizeof *f);
    f->root = root;
    f->owned = owned;
    f->usr = u;
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    tf_state *st = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_VarDecl) {
        CXString s = clang_getCursorSpelling(c);
        CC_GROW(st->globals, st->globals_cap, st->nglobals + 1);
        st->globals[st->nglobals++] = cc_xstrdup(clang_getCString(s));
        clang_disposeString(s);
    } else if (k == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
        size_t b, e;
        if (cc_extent(&st->u->ast, c, &b, &e)) add_fn(st, cc_tree(&st->u->ast, c, NULL), 1);
    }
    return CXChildVisit_Continue;
}

/* ---------------------------------------------------------------- names */
/* text without spaces and enclosing parentheses, if it is one identifier; else NULL */
char *cc_tf_identifier(const char *text)
{
    char *s = cc_collapse(text);
    size_t n = strlen(s);
    while (n >= 2 && s[0] == '(' && s[n - 1] == ')') {
        memmove(s, s + 1, n - 2);
        n -= 2;
        s[n] = 0;
    }
    int ok = n > 0 && (isalpha((unsigned char)s[0]) || s[0] == '_');
    for (size_t i = 0; ok && i < n; i++) ok = isalnum((unsigned char)s[i]) || s[i] == '_';
    if (!ok) {
        free(s);
        return NULL;
    }
    return s;
}

typedef struct { const char *name; int hit; } decl_find;
static int find_decl(cc_node *n, void *arg)
{
    decl_find *df = arg;
    if (n->kind == CXCursor_VarDecl) {
        char *s = cc_spelling(n->c);
        if (!strcmp(s, df->name)) df->hit = 1;
        free(s);
    }
    return !df->hit;
}

/* How `text` names a tensor inside function f: its parameter k (k >= 0), a
 * file-scope variable no declaration of f shadows (NAME_GLOBAL), or neither
 * (NAME_LOCAL: a local, an expression). */
int cc_tf_resolve(tf_state *st, cc_node *f, const char *text)
{
    char *id = cc_tf_identifier(text);
    if (!id) return NAME_LOCAL;
    decl_find df = { id, 0 };
    cc_walk(f, find_decl, &df);
    int r = NAME_LOCAL;
    if (!df.hit) {
        int np = clang_Cursor_getNumArguments(f->c);
        for (int k = 0; k < np && r == NAME_LOCAL; k++) {
            char *pn = cc_spelling(clang_Cursor_getArgument(f->c, (unsigned)k));
            if (!strcmp(pn, id)) r = k;
            free(pn);
        }
        for (int g = 0; g < st->nglobals && r == NAME_LOCAL; g++)
            if (!strcmp(st->globals[g], id)) r = NAME_GLOBAL;
    }
    free(id);
    return r;
}

/* ---------------------------------------------------------------- needs */
static unsigned join(unsigned a, unsigned b)
{
    unsigned m = (a | b) & 7u;
    if ((m & CC_READ) && (m & CC_ACCUM)) m = CC_RW;
    if (m & CC_WRITE) m &= ~(unsigned)CC_ACCUM; /* write permission covers accumulation */
    return m;
}

static void need_add(need **v, int *n, size_t *cap, const char *tensor, unsigned mode, const char *origin)
{
    for (int i = 0; i < *n; i++) {
        need *x = &(*v)[i];
        if ((tensor && x->tensor && !strcmp(tensor, x->tensor)) ||
            (!tensor && !x->tensor && !strcmp(origin, x->origin))) {
            x->mode = join(x->mode, mode);
            return;
        }
    }
    *v = cc_grow(*v, cap, (size_t)*n + 1, sizeof **v);
    (*v)[*n] = (need){ tensor ? cc_xstrdup(tensor) : NULL, join(0, mode), cc_xstrdup(origin) };
    (*n)++;
}

static void needs_free(need *v, int n)
{
    for (int i = 0; i < n; i++) {
        free(v[i].tensor);
        free(v[i].origin);
    }
    free(v);
}

static int needs_equal(const need *a, int na, const need *b, int nb)
{
    if (na != nb) return 0;
    for (int i = 0; i < na; i++) {
        int found = 0;
        for (int j = 0; j < nb && !found; j++)
            found = a[i].mode == b[j].mode && !strcmp(a[i].origin, b[j].origin) &&
                    ((!a[i].tensor && !b[j].tensor) || (a[i].tensor && b[j].tensor && !strcmp(a[i].tensor, b[j].tensor)));
        if (!found) return 0;
    }
    return 1;
}

/* "file:line" of a task */
static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}
/* "file:line" of a task: the file's base name, as the other reasons and --explain give it */
static char *task_origin(cc_unit *u, const cc_task *t) { return cc_fmt("the task at %s:%u", base_name(u->src.name), t->line); }

/* A need of the callee, as the caller (function f) names it at call c. */
char *cc_tf_subst(tf_state *st, const need *n, cc_node *c, cc_node *f)
{
    if (!n->tensor) return NULL;
    if (n->tensor[0] == '#') {
        int k = atoi(n->tensor + 1);
        if (k + 1 >= c->nkid || !c->kid[k + 1]->in_main) return NULL;
        char *arg = cc_src_text(&st->u->ast, c->kid[k + 1]->b, c->kid[k + 1]->e);
        int r = cc_tf_resolve(st, f, arg);
        char *out = r >= 0 ? cc_fmt("#%d", r) : r == NAME_GLOBAL ? cc_tf_identifier(arg) : NULL;
        free(arg);
        return out;
    }
    return cc_tf_resolve(st, f, n->tensor) == NAME_GLOBAL ? cc_xstrdup(n->tensor) : NULL;
}

/* the needs of f from its own top-level tasks and its calls outside them */
static void compute_needs(tf_state *st, fninfo *f, need **v, int *n)
{
    *v = NULL;
    *n = 0;
    size_t cap = 0;
    for (int i = 0; i < st->u->ntasks; i++) {
        cc_task *t = st->u->tasks[i];
        if (t->fn != f->root || t->parent) continue;
        char *origin = task_origin(st->u, t);
        for (int a = 0; a < t->nacc; a++) {
            int r = cc_tf_resolve(st, f->root, t->acc[a].tensor);
            char *name = r >= 0 ? cc_fmt("#%d", r) : r == NAME_GLOBAL ? cc_tf_identifier(t->acc[a].tensor) : NULL;
            need_add(v, n, &cap, name, t->acc[a].mode & 7u, origin);
            free(name);
        }
        free(origin);
    }
    for (int b = 0; b < f->nblocks; b++) { /* tamm_block outside tasks: inside a caller's task, an implicit fetch */
        cc_node *call = f->blocks[b];
        cc_node *tn = call->nkid >= 2 ? cc_down_wrappers(call->kid[1]) : NULL; /* tamm_block's (T) */
        if (!tn || !tn->in_main) {
            char *origin = cc_fmt("the tamm_block at %s:%u", base_name(st->u->src.name), cc_line_of(&st->u->src, call->b));
            need_add(v, n, &cap, NULL, CC_RW, origin);
            free(origin);
            continue;
        }
        char *text = cc_src_text(&st->u->ast, tn->b, tn->e);
        int r = cc_tf_resolve(st, f->root, text);
        char *name = r >= 0 ? cc_fmt("#%d", r) : r == NAME_GLOBAL ? cc_tf_identifier(text) : NULL;
        char *origin = cc_fmt("the tamm_block at %s:%u", base_name(st->u->src.name), cc_line_of(&st->u->src, call->b));
        need_add(v, n, &cap, name, CC_RW, origin);
        free(origin);
        free(name);
        free(text);
    }
    for (int c = 0; c < f->ncalls; c++) {
        fninfo *g = cc_tf_fn_by_cursor(st, cc_referenced(f->calls[c]));
        if (!g) continue;
        for (int k = 0; k < g->nnd; k++) {
            char *name = cc_tf_subst(st, &g->nd[k], f->calls[c], f->root);
            need_add(v, n, &cap, name, g->nd[k].mode, g->nd[k].origin);
            free(name);
        }
    }
}

/* ---------------------------------------------------------------- calls */
typedef struct {
    tf_state *st;
    cc_node ***v; int *n; size_t *cap; /* calls of known functions */
    cc_node *skip_fn;          /* walking this function's body: its tasks are skipped */
    cc_task *task;             /* walking this task's body: its nested tasks are skipped */
    cc_node ***bv; int *bn; size_t *bcap; /* tamm_block_at calls (function bodies only) */
    int *opaque;               /* calls of functions not followed (function bodies only) */
} call_find;

/* A callee that can touch no block and submit no task: a function of a system
 * header (it knows no tamm tensor), or a query of tamm.h. */
static int harmless_callee(CXCursor callee)
{
    if (clang_Cursor_isNull(callee) || clang_getCursorKind(callee) != CXCursor_FunctionDecl) return 0; /* a pointer */
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(callee))) return 1;
    static const char *const queries[] = { "tamm_block_elems", "tamm_block_extent", "tamm_tensor_nblocks",
                                           "tamm_tensor_ndim", "tamm_nranks", "tamm_rank", "tamm_num_workers",
                                           "tamm_strerror", "tamm_block_at", NULL };
    char *name = cc_spelling(callee);
    int ok = 0;
    for (int i = 0; queries[i] && !ok; i++) ok = !strcmp(name, queries[i]);
    free(name);
    return ok; /* tamm_block_at: f->blocks has it */
}

static int is_task_stmt(cc_unit *u, cc_node *n, cc_node *fn, cc_task *except)
{
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        if (t != except && t->stmt == n && (!fn || t->fn == fn)) return 1;
    }
    return 0;
}

static int find_calls(cc_node *n, void *arg)
{
    call_find *cf = arg;
    if (cf->skip_fn && is_task_stmt(cf->st->u, n, cf->skip_fn, NULL)) return 0; /* a task: its own business */
    if (cf->task && n != cf->task->stmt && is_task_stmt(cf->st->u, n, NULL, cf->task)) return 0; /* a nested task */
    if (cf->skip_fn && n->kind == CXCursor_CallExpr && n->in_main) {
        char *callee = cc_spelling(cc_referenced(n));
        int is_block = !strcmp(callee, "tamm_block_at");
        free(callee);
        if (is_block) {
            *cf->bv = cc_grow(*cf->bv, cf->bcap, (size_t)*cf->bn + 1, sizeof **cf->bv);
            (*cf->bv)[(*cf->bn)++] = n;
            return 1;
        }
    }
    if (n->kind == CXCursor_CallExpr && n->in_main && cc_tf_fn_by_cursor(cf->st, cc_referenced(n))) {
        *cf->v = cc_grow(*cf->v, cf->cap, (size_t)*cf->n + 1, sizeof **cf->v);
        (*cf->v)[(*cf->n)++] = n;
    } else if (n->kind == CXCursor_CallExpr && cf->opaque && !harmless_callee(cc_referenced(n))) {
        (*cf->opaque)++;
    }
    return 1;
}

/* ---------------------------------------------------------------- tasks */
/* Give task t what call c (to g) needs, and the same to every enclosing task.
 * With report, name what cannot be inferred. */
static int apply_call(tf_state *st, cc_task *t, cc_node *c, fninfo *g, int report)
{
    int changed = 0;
    char *callee = cc_spelling(cc_referenced(c));
    for (int k = 0; k < g->nnd; k++) {
        const need *n = &g->nd[k];
        char *tensor = NULL;
        if (n->tensor && n->tensor[0] == '#') {
            int a = atoi(n->tensor + 1);
            if (a + 1 < c->nkid && c->kid[a + 1]->in_main)
                tensor = cc_src_text(&st->u->ast, c->kid[a + 1]->b, c->kid[a + 1]->e);
        } else if (n->tensor && cc_tf_resolve(st, t->fn, n->tensor) == NAME_GLOBAL) {
            tensor = cc_xstrdup(n->tensor);
        }
        int clauses = 0;
        for (int i = 0; i < t->pr->nrefs; i++) clauses |= (t->pr->refs[i].mode & CC_PERMONLY) != 0;
        if (!tensor) {
            if (report && !clauses)
                cc_diag(&st->u->src, c->b, CC_ERROR,
                        "the call of %s reaches %s, on a tensor that cannot be named here, so "
                        "the permissions of the task at line %u cannot be inferred; give it a permission(...) "
                        "clause naming the tensors",
                        callee, n->origin, t->line);
            continue;
        }
        for (cc_task *p = t; p; p = p->parent) {
            if (cc_varies_in(st->in, p, tensor)) {
                if (report)
                    cc_diag(&st->u->src, c->b, CC_ERROR,
                            "the tensor '%s' passed to %s changes inside the task at line %u, so its permissions "
                            "cannot be inferred; give it a permission(...) clause naming the tensors",
                            tensor, callee, p->line);
                break;
            }
            char *idx[CC_MAX_DIMS], *proof = NULL;
            int nidx = cc_tf_call_slice(st, g, n, c, p, idx, &proof);
            char *why = cc_fmt("the call of %s at line %u needs %s (%s)%s%s", callee, cc_line_of(&st->u->src, c->b),
                               cc_mode_name(n->mode), n->origin, proof ? "; " : "", proof ? proof : "");
            changed |= cc_infer_add_slice_perm(st->in, p, tensor, nidx, idx, n->mode, why);
            for (int d = 0; d < nidx; d++) free(idx[d]);
            free(proof);
            free(why);
        }
        free(tensor);
    }
    free(callee);
    return changed;
}

int cc_taskfn_infer(cc_unit *u, cc_infer *in)
{
    int e0 = cc_error_count();
    tf_state st = { .u = u, .in = in };
    for (int i = 0; i < u->nfns; i++) add_fn(&st, u->fns[i], 0);
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), top_visit, &st);
    for (int i = 0; i < st.nf; i++) {
        call_find cf = { &st, &st.f[i].calls, &st.f[i].ncalls, &st.f[i].calls_cap, st.f[i].root, NULL, &st.f[i].blocks,
                         &st.f[i].nblocks, &st.f[i].blocks_cap, &st.f[i].opaque_calls };
        cc_walk(st.f[i].root, find_calls, &cf);
    }
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        call_find cf = { &st, &t->tfcall, &t->ntfcall, &t->tfcall_cap, NULL, t, NULL, NULL, NULL, NULL };
        cc_walk(t->stmt, find_calls, &cf);
        fninfo *f = cc_tf_fn_by_cursor(&st, t->fn->c);
        if (f) f->submits = 1;
    }
    for (int i = 0; i < u->nsa; i++) {
        fninfo *f = u->sa[i].fn && !u->sa[i].in && u->sa[i].pr->kind == CC_P_TASKWAIT
                        ? cc_tf_fn_by_cursor(&st, u->sa[i].fn->c)
                        : NULL;
        if (f) f->submits = 1;
    }
    /* what each task has before this pass (restored once the ranges are proved) */
    int *nacc0 = cc_xcalloc((size_t)u->ntasks + 1, sizeof *nacc0);
    unsigned **mode0 = cc_xcalloc((size_t)u->ntasks + 1, sizeof *mode0);
    char ***why0 = cc_xcalloc((size_t)u->ntasks + 1, sizeof *why0);
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        nacc0[i] = t->nacc;
        mode0[i] = cc_xcalloc((size_t)t->nacc + 1, sizeof **mode0);
        why0[i] = cc_xcalloc((size_t)t->nacc + 1, sizeof **why0);
        for (int a = 0; a < t->nacc; a++) {
            mode0[i][a] = t->acc[a].mode;
            why0[i][a] = t->acc[a].why ? cc_xstrdup(t->acc[a].why) : NULL;
        }
    }
    /* to a fixpoint: needs only grow, over finitely many tensors and modes */
    for (int round = 0; round < 256; round++) {
        int changed = 0;
        for (int i = u->ntasks - 1; i >= 0; i--) {
            cc_task *t = u->tasks[i];
            for (int c = 0; c < t->ntfcall; c++)
                changed |= apply_call(&st, t, t->tfcall[c], cc_tf_fn_by_cursor(&st, cc_referenced(t->tfcall[c])), 0);
        }
        for (int i = 0; i < st.nf; i++) {
            for (int c = 0; c < st.f[i].ncalls && !st.f[i].submits; c++) {
                fninfo *g = cc_tf_fn_by_cursor(&st, cc_referenced(st.f[i].calls[c]));
                if (g && g->submits) st.f[i].submits = changed = 1;
            }
            need *v;
            int n;
            compute_needs(&st, &st.f[i], &v, &n);
            if (!needs_equal(v, n, st.f[i].nd, st.f[i].nnd)) changed = 1;
            needs_free(st.f[i].nd, st.f[i].nnd);
            st.f[i].nd = v;
            st.f[i].nnd = n;
        }
        if (!changed) break;
    }
    /* the ranges of the tasks' needs through calls (the needs themselves are final) */
    rs_state rs;
    cc_tf_ranges_prove(&rs, &st, nacc0);
    st.rs = &rs;
    for (int i = 0; i < u->ntasks; i++) { /* back to each task's own accesses, then the calls' again */
        cc_task *t = u->tasks[i];
        for (int a = nacc0[i]; a < t->nacc; a++) {
            cc_access *x = &t->acc[a];
            free(x->key);
            free(x->tensor);
            for (int d = 0; d < x->nidx; d++) free(x->idx[d]);
            free(x->cov);
            free(x->nocov);
            free(x->why);
            free(x->guard);
            free(x->sync);
        }
        t->nacc = nacc0[i];
        for (int a = 0; a < t->nacc; a++) {
            t->acc[a].mode = mode0[i][a];
            free(t->acc[a].why);
            t->acc[a].why = why0[i][a];
        }
        free(mode0[i]);
        free(why0[i]);
    }
    free(mode0);
    free(why0);
    for (int i = u->ntasks - 1; i >= 0; i--) {
        cc_task *t = u->tasks[i];
        for (int c = 0; c < t->ntfcall; c++)
            apply_call(&st, t, t->tfcall[c], cc_tf_fn_by_cursor(&st, cc_referenced(t->tfcall[c])), 0);
    }
    for (int i = 0; i < u->ntasks; i++) { /* what could not be inferred, once */
        cc_task *t = u->tasks[i];
        for (int c = 0; c < t->ntfcall; c++)
            apply_call(&st, t, t->tfcall[c], cc_tf_fn_by_cursor(&st, cc_referenced(t->tfcall[c])), 1);
    }
    /* calls outside tasks that may leave their function's frame to the tasks they submit */
    for (int i = 0; i < st.nf; i++)
        for (int c = 0; c < st.f[i].ncalls; c++) {
            fninfo *g = cc_tf_fn_by_cursor(&st, cc_referenced(st.f[i].calls[c]));
            if (g && g->submits && st.f[i].calls[c]->in_main) cc_frames_call(u, st.f[i].root, st.f[i].calls[c]);
        }
    /* keep only calls that submit tasks or wait: the emitter gives the blocks back before those */
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        int k = 0;
        for (int c = 0; c < t->ntfcall; c++) {
            fninfo *g = cc_tf_fn_by_cursor(&st, cc_referenced(t->tfcall[c]));
            if (g && g->submits) t->tfcall[k++] = t->tfcall[c];
        }
        t->ntfcall = k;
    }
    cc_tf_ranges_free(&rs);
    free(nacc0);
    for (int i = 0; i < st.nf; i++) {
        needs_free(st.f[i].nd, st.f[i].nnd);
        free(st.f[i].calls);
        free(st.f[i].blocks);
        free(st.f[i].usr);
        if (st.f[i].owned) cc_tree_free(st.f[i].root);
    }
    free(st.f);
    for (int g = 0; g < st.nglobals; g++) free(st.globals[g]);
    free(st.globals);
    return cc_error_count() - e0;
}
