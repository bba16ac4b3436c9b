/*
 * cuda_plan.c — the CUDA planner (cuda_plan.h): the form of each task's CUDA variant, and for a
 * loop nest the kernel's mapping, accumulations and checks.
 *
 * A kernel's mapping is chosen among the loops of the perfect nest (each loop's body exactly the
 * next loop) whose bounds are fixed for the kernel: one or two of them go on the grid (grid-stride
 * loops over 64-bit indices, within the grid limits), the others run in each thread in their
 * order.  A choice is valid when the threads never touch one element that any of them stores:
 * every block stored to is accessed at one subscript, distinct across threads (cuda_index.h).  A
 * block only accumulated into ('+=' / '-=') is either owned (its one subscript is distinct across
 * threads: a register summed in order when the subscript is fixed in the thread, else updates in
 * place) or, when each of its subscripts is one element for the whole nest, reduced (per thread,
 * per block in shared memory, then the blocks' partial sums in index order: the same result run
 * after run).  Among valid choices: more loops on the grid, then a loop whose index is the
 * contiguous one on threadIdx.x for more accesses, then fewer reductions, then a proven choice
 * over one checked at submission.  What must hold at run time (distinct subscripts that depend on
 * captured values, two accesses that must not be one block) is evaluated at submission; where it
 * fails the task is submitted without its CUDA variant and runs its CPU variant.
 */
#include "cuda_plan.h"
#include "cuda_blas.h"
#include "cuda_index.h"
#include "cuda_nest.h"
#include "cuda_src.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cc_cuda_no(cc_cuda_plan *p, const char *f, ...)
{
    if (p->why) return 0;
    va_list ap;
    va_start(ap, f);
    p->why = cc_vfmt(f, ap);
    va_end(ap);
    return 0;
}

static void kernel_free(cc_kernel *k)
{
    if (!k) return;
    for (int i = 0; i < k->sc.nb; i++) { free(k->sc.b[i].name); free(k->sc.b[i].decl); }
    free(k->sc.b);
    cc_tree_free(k->sc.fn);
    free(k->sc.fname);
    for (int i = 0; i < k->nloop; i++) cc_kn_loop_free(&k->loop[i]);
    for (int i = 0; i < k->ninner; i++) cc_kn_loop_free(&k->inner[i]);
    free(k->inner);
    for (int i = 0; i < k->nel; i++) { free(k->el[i].key); free(k->el[i].ix); }
    free(k->el);
    free(k->brk);
    free(k->cont);
    free(k->asg);
    for (int i = 0; i < k->nka; i++) free(k->ka[i].guard);
    free(k->ka);
    free(k->check.s);
    free(k->alias);
    free(k);
}

void cc_cuda_plan_free(cc_cuda_plan *p)
{
    free(p->why);
    for (int i = 0; i < p->ned; i++) free(p->ed[i].text);
    free(p->ed);
    free(p->en);
    free(p->call.g);
    free(p->call.gdecl);
    for (int i = 0; i < p->call.nparams; i++) free(p->call.ptypes[i]);
    free(p->call.ptypes);
    kernel_free(p->k);
    cc_blas_free(p->blas);
    for (int i = 0; i < p->ndev; i++) cc_tree_free(p->dev[i]);
    free(p->dev);
    memset(p, 0, sizeof *p);
}

/* ---------------------------------------------------------------- form CALL */
typedef struct { const char *usr; char *g; int found_static; const char *gname; int gdeclared; CXType gret; } ann_ctx;

static enum CXChildVisitResult ann_attr(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    ann_ctx *a = d;
    if (clang_getCursorKind(c) == CXCursor_AnnotateAttr) {
        CXString s = clang_getCursorSpelling(c);
        const char *v = clang_getCString(s);
        if (!strncmp(v, "tamm_cuda_variant:", 18) && !a->g) a->g = cc_xstrdup(v + 18);
        clang_disposeString(s);
    }
    return CXChildVisit_Continue;
}

static enum CXChildVisitResult ann_top(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    ann_ctx *a = d;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl) return CXChildVisit_Continue;
    if (a->usr) {
        CXString u = clang_getCursorUSR(c);
        if (!strcmp(clang_getCString(u), a->usr)) clang_visitChildren(c, ann_attr, a);
        clang_disposeString(u);
    } else {
        CXString s = clang_getCursorSpelling(c);
        if (!strcmp(clang_getCString(s), a->gname)) {
            if (clang_Cursor_getStorageClass(c) == CX_SC_Static) a->found_static = 1;
            if (!a->gdeclared) { /* the variant's own declaration: its return type */
                a->gdeclared = 1;
                a->gret = clang_getCanonicalType(clang_getResultType(clang_getCursorType(c)));
            }
        }
        clang_disposeString(s);
    }
    return CXChildVisit_Continue;
}

/* Does expression n read a block (a block use in it)?  A value the host computes before the launch
 * cannot: the block's buffer is then the device's. */
typedef struct { const cc_cuda_plan *p; int found; } rb_ctx;
static int rb_visit(cc_node *n, void *arg)
{
    rb_ctx *c = arg;
    if (cc_cu_block_use(c->p, n) >= 0) c->found = 1;
    return !c->found;
}
static int reads_block(const cc_cuda_plan *p, cc_node *n)
{
    rb_ctx c = { p, 0 };
    cc_walk(n, rb_visit, &c);
    return c.found;
}

/* The name TAMM_CUDA_VARIANT gives function f (on any of its declarations), or NULL (caller frees). */
static char *variant_of(cc_unit *u, CXCursor f)
{
    ann_ctx a;
    memset(&a, 0, sizeof a);
    CXString usr = clang_getCursorUSR(f);
    a.usr = clang_getCString(usr);
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), ann_top, &a);
    clang_visitChildren(f, ann_attr, &a);
    clang_disposeString(usr);
    return a.g;
}

static int plan_call(cc_cuda_plan *p, cc_node *call)
{
    cc_unit *u = p->u;
    cc_cuda_call *pc = &p->call;
    CXCursor f = cc_referenced(call);
    if (clang_getCursorKind(f) != CXCursor_FunctionDecl) return cc_cuda_no(p, "the body calls through a function pointer");
    char *fname = cc_spelling(f);
    int ok = 0;
    pc->g = variant_of(u, f);
    if (!pc->g) {
        cc_cuda_no(p, "the body calls %s(), which has no TAMM_CUDA_VARIANT", fname);
        goto out;
    }
    if (!cc_cu_valid_ident(pc->g) || cc_cu_reserved(pc->g)) {
        cc_cuda_no(p, "TAMM_CUDA_VARIANT(%s) of %s() does not name a function", pc->g, fname);
        goto out;
    }
    ann_ctx s;
    memset(&s, 0, sizeof s);
    s.gname = pc->g;
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), ann_top, &s);
    if (s.found_static) {
        cc_cuda_no(p, "%s(), the CUDA variant of %s(), is static: the CUDA file cannot call it", pc->g, fname);
        goto out;
    }
    CXType ft = clang_getCanonicalType(clang_getCursorType(f));
    if (ft.kind != CXType_FunctionProto || clang_isFunctionTypeVariadic(ft)) {
        cc_cuda_no(p, "%s() has no prototype or is variadic", fname);
        goto out;
    }
    /* the variant's return type: its declaration's when the file declares it, else f's; an integer
     * is a status (docs/language.md "Variants"): nonzero makes the task fail with TAMM_EDEVICE */
    CXType rt = s.gdeclared ? s.gret : clang_getCanonicalType(clang_getResultType(ft));
    const char *ret = rt.kind == CXType_Void ? "void" : cc_cu_scalar(rt);
    pc->gstatus = cc_cu_is_integer(rt.kind);
    if (!ret) {
        cc_cuda_no(p, "%s() returns a type the CUDA file does not have", fname);
        goto out;
    }
    int np = clang_getNumArgTypes(ft);
    pc->nparams = np;
    pc->ptypes = cc_xcalloc((size_t)(np ? np : 1), sizeof *pc->ptypes);
    char *params = cc_xstrdup("");
    for (int i = 0; i < np; i++) {
        pc->ptypes[i] = cc_cu_decl(clang_getArgType(ft, (unsigned)i), "");
        if (!pc->ptypes[i]) {
            CXString ts = clang_getTypeSpelling(clang_getArgType(ft, (unsigned)i));
            cc_cuda_no(p, "parameter %d of %s() has type '%s', which the CUDA file does not have", i + 1, fname,
                       clang_getCString(ts));
            clang_disposeString(ts);
            break;
        }
        char *t = cc_fmt("%s%s%s", params, i ? ", " : "", pc->ptypes[i]);
        free(params);
        params = t;
    }
    if (!p->why) pc->gdecl = cc_fmt("extern \"C\" %s %s(%s);", ret, pc->g, np ? params : "void");
    free(params);
    if (p->why) goto out;
    if (call->nkid != np + 1) {
        cc_cuda_no(p, "the call of %s() does not have one argument per parameter", fname);
        goto out;
    }
    for (int i = 0; i < np; i++) {
        cc_node *arg = call->kid[i + 1];
        int k = cc_cu_block_use(p, cc_cu_down(arg));
        if (k >= 0 && cc_cu_block_use(p, arg) >= 0) { /* the block: the buffer, cast to the parameter's type */
            cc_cu_text_edit(p, p->t->use[k].b, p->t->use[k].e, cc_fmt("(%s)tamm_b%d_", pc->ptypes[i], p->t->use[k].acc));
            continue;
        }
        if (reads_block(p, arg)) {
            cc_cuda_no(p, "argument %d of %s() reads a block, which the host cannot read while the task's blocks are on "
                          "the GPU", i + 1, fname);
            goto out;
        }
        if (!cc_cu_host_expr(p, arg, NULL)) goto out;
    }
    pc->call = call;
    p->form = CC_CUDA_CALL;
    ok = 1;
out:
    free(fname);
    return ok;
}

/* ---------------------------------------------------------------- form KERNEL: the scope */
static cc_node *single(cc_node *s)
{
    while (s && s->kind == CXCursor_CompoundStmt && s->nkid == 1) s = s->kid[0];
    return s;
}

static void bind(cc_kscope *sc, CXCursor d, const char *name, CXType type, int acc, char *decl)
{
    CC_GROW(sc->b, sc->b_cap, sc->nb + 1);
    cc_kbind *b = &sc->b[sc->nb++];
    memset(b, 0, sizeof *b);
    b->d = clang_getCanonicalCursor(d);
    b->name = cc_xstrdup(name);
    b->type = type;
    b->acc = acc;
    b->decl = decl;
}

/* Does the code store to (or take the address of) a host value of the scope (a parameter of the called
 * function, a value the task body computes before its nest)?  Its name then, else NULL: such a value is
 * fixed for the kernel, and no thread may change it. */
typedef struct { cc_cuda_plan *p; const cc_kscope *sc; const char *stored; } pstore_ctx;
static int pstore_visit(cc_node *n, void *arg)
{
    pstore_ctx *c = arg;
    if (c->stored || n->kind != CXCursor_DeclRefExpr) return !c->stored;
    const cc_kbind *b = cc_cu_bind(c->sc, clang_getCanonicalCursor(cc_referenced(n)));
    if (b && cc_cu_stored(c->p, n, 1)) c->stored = b->name;
    return 1;
}

/* the task's body: block pointer declarations and values computed from captured ones, then the nest;
 * binds them and the captured variables */
static cc_node *task_scope(cc_cuda_plan *p, cc_kscope *sc)
{
    cc_task *t = p->t;
    cc_node *s = t->stmt, *nest = NULL;
    if (s->kind == CXCursor_ForStmt) {
        nest = s;
    } else if (s->kind == CXCursor_CompoundStmt) {
        for (int i = 0; i < s->nkid; i++) {
            cc_node *k = s->kid[i];
            if (k->kind == CXCursor_NullStmt) continue;
            if (nest) { cc_cuda_no(p, "the body has statements after its loop nest"); return NULL; }
            if (k->kind == CXCursor_ForStmt) { nest = k; continue; }
            if (k->kind != CXCursor_DeclStmt) {
                cc_cuda_no(p, "the body is neither a call of a function with a TAMM_CUDA_VARIANT nor a loop nest over "
                              "block elements (line %u: only block pointer declarations may come before the nest)",
                           cc_line_of(&p->u->src, k->b));
                return NULL;
            }
            for (int j = 0; j < k->nkid; j++) {
                cc_node *vd = k->kid[j];
                char *nm = cc_spelling(vd->c);
                char *decl = vd->kind == CXCursor_VarDecl ? cc_cu_decl(clang_getCursorType(vd->c), nm) : NULL;
                cc_node *init = vd->nkid && clang_isExpression(vd->kid[vd->nkid - 1]->kind) ? vd->kid[vd->nkid - 1] : NULL;
                int ui = init ? cc_cu_block_use(p, cc_cu_down(init)) : -1;
                CXType vt = clang_getCursorType(vd->c);
                if (decl && init && !cc_cu_reserved(nm) && clang_getCanonicalType(vt).kind != CXType_Pointer &&
                    cc_cu_scalar(vt) && clang_Cursor_getStorageClass(vd->c) != CX_SC_Static) {
                    /* a value computed before the nest from captured values: computed before the launch, as the
                     * body computes it, and passed in (a host value of the kernel) */
                    free(decl);
                    if (reads_block(p, init))
                        cc_cuda_no(p, "the body computes '%s' before its loop nest from a block, which the host cannot "
                                      "read while the kernel's blocks are on the GPU", nm);
                    if (!p->why && !cc_cu_host_expr(p, init, NULL)) { /* say which declaration */
                        char *w = p->why;
                        p->why = NULL;
                        cc_cuda_no(p, "the body computes '%s' before its loop nest, which the host cannot compute before "
                                      "the launch: %s", nm, w);
                        free(w);
                    }
                    if (p->why) {
                        free(nm);
                        return NULL;
                    }
                    bind(sc, vd->c, nm, vt, -1, NULL);
                    sc->b[sc->nb - 1].arg = init;
                    free(nm);
                    continue;
                }
                if (!decl || ui < 0 || clang_getCanonicalType(vt).kind != CXType_Pointer || cc_cu_reserved(nm)) {
                    cc_cuda_no(p, "the body declares '%s' before its loop nest, which is neither a block pointer (T *p = "
                                  "tamm_block(...)) nor an arithmetic value computed from captured ones", nm);
                    free(nm);
                    free(decl);
                    return NULL;
                }
                bind(sc, vd->c, nm, clang_getCursorType(vd->c), t->use[ui].acc, decl);
                free(nm);
            }
        }
    }
    if (!nest) {
        cc_cuda_no(p, "the body is neither a call of a function with a TAMM_CUDA_VARIANT nor a loop nest over block elements");
        return NULL;
    }
    pstore_ctx st = { p, sc, NULL }; /* the values computed before the nest are fixed for the kernel */
    cc_walk(nest, pstore_visit, &st);
    if (st.stored) {
        cc_cuda_no(p, "the nest changes '%s', declared before it, which is fixed for the kernel", st.stored);
        return NULL;
    }
    for (int i = 0; i < t->ncap; i++) bind(sc, t->cap[i].decl, t->cap[i].name, t->cap[i].type, -1, NULL);
    sc->nest = nest;
    return nest;
}

/* The body of the function the task calls (a function of this file without TAMM_CUDA_VARIANT):
 * its parameters bound to the call's arguments, a pointer to the block its argument names, any
 * other to the argument's value (a host value, computed before the launch as the call computes
 * it); the body must be the loop nest, as a task body's.  NULL and p->why if it cannot be. */
static cc_node *call_scope(cc_cuda_plan *p, cc_kscope *sc, cc_node *call)
{
    cc_unit *u = p->u;
    CXCursor f = cc_referenced(call), def = clang_getCursorDefinition(f);
    size_t b, e;
    char *fname = cc_spelling(f);
    sc->fname = fname;
    CXType ft = clang_getCanonicalType(clang_getCursorType(f));
    if (clang_Cursor_isNull(def) || !cc_extent(&u->ast, def, &b, &e)) {
        cc_cuda_no(p, "the body calls %s(), which has no TAMM_CUDA_VARIANT and whose body is not in this file", fname);
        return NULL;
    }
    if (ft.kind != CXType_FunctionProto || clang_isFunctionTypeVariadic(ft)) {
        cc_cuda_no(p, "the body calls %s(), which has no prototype or is variadic", fname);
        return NULL;
    }
    int np = clang_Cursor_getNumArguments(def);
    if (np < 0 || call->nkid != np + 1) {
        cc_cuda_no(p, "the call of %s() does not have one argument per parameter", fname);
        return NULL;
    }
    sc->fn = cc_tree(&u->ast, def, NULL);
    cc_node *body = sc->fn->nkid ? sc->fn->kid[sc->fn->nkid - 1] : NULL;
    if (!body || body->kind != CXCursor_CompoundStmt) {
        cc_cuda_no(p, "the body calls %s(), whose body cannot be read", fname);
        return NULL;
    }
    for (int i = 0; i < np; i++) {
        CXCursor pd = clang_Cursor_getArgument(def, (unsigned)i);
        CXType pt = clang_getCursorType(pd);
        char *nm = cc_spelling(pd);
        cc_node *arg = call->kid[i + 1];
        int ok = 1;
        if (!*nm || cc_cu_reserved(nm)) {
            ok = cc_cuda_no(p, "parameter %d of %s() is %s", i + 1, fname, *nm ? "a C++ keyword" : "unnamed");
        } else if (clang_getCanonicalType(pt).kind == CXType_Pointer) {
            int k = cc_cu_block_use(p, cc_cu_down(arg));
            char *decl = cc_cu_decl(pt, nm);
            if (k < 0 || cc_cu_block_use(p, arg) < 0 || !decl) {
                ok = cc_cuda_no(p, "argument %d of %s() is a pointer, but not a block (tamm_block(...))", i + 1, fname);
                free(decl);
            } else {
                bind(sc, pd, nm, pt, p->t->use[k].acc, decl);
            }
        } else if (!cc_cu_scalar(pt)) {
            CXString ts = clang_getTypeSpelling(pt);
            ok = cc_cuda_no(p, "parameter '%s' of %s() has type '%s' (only block pointers and arithmetic values go to the "
                               "kernel)", nm, fname, clang_getCString(ts));
            clang_disposeString(ts);
        } else if (reads_block(p, arg)) {
            ok = cc_cuda_no(p, "argument %d of %s() reads a block, which the host cannot read while the kernel's blocks "
                               "are on the GPU", i + 1, fname);
        } else if (cc_cu_host_expr(p, arg, NULL)) {
            bind(sc, pd, nm, pt, -1, NULL);
            sc->b[sc->nb - 1].arg = arg;
        } else {
            ok = 0;
        }
        free(nm);
        if (!ok) return NULL;
    }
    pstore_ctx st = { p, sc, NULL };
    cc_walk(body, pstore_visit, &st);
    if (st.stored) {
        cc_cuda_no(p, "%s() changes its parameter '%s', which is fixed for the kernel", fname, st.stored);
        return NULL;
    }
    cc_node *nest = NULL;
    for (int i = 0; i < body->nkid; i++) {
        cc_node *s = body->kid[i];
        if (s->kind == CXCursor_NullStmt) continue;
        if (nest || s->kind != CXCursor_ForStmt) {
            cc_cuda_no(p, "the body calls %s(), which has no TAMM_CUDA_VARIANT and whose body is not one loop nest (line %u)",
                       fname, cc_line_of(&u->src, s->b));
            return NULL;
        }
        nest = s;
    }
    if (!nest) {
        cc_cuda_no(p, "the body calls %s(), which has no TAMM_CUDA_VARIANT and whose body is not a loop nest", fname);
        return NULL;
    }
    sc->nest = nest;
    return nest;
}

/* Is the called function one whose body a kernel can be made of: no TAMM_CUDA_VARIANT, its
 * definition in this file? */
static int call_into(cc_cuda_plan *p, cc_node *call)
{
    CXCursor f = cc_referenced(call);
    if (clang_getCursorKind(f) != CXCursor_FunctionDecl) return 0;
    char *g = variant_of(p->u, f);
    int has = g != NULL;
    free(g);
    CXCursor def = clang_getCursorDefinition(f);
    size_t b, e;
    return !has && !clang_Cursor_isNull(def) && cc_extent(&p->u->ast, def, &b, &e);
}

/* ---------------------------------------------------------------- form KERNEL: loops */
/* The loop of the perfect nest after l: l's body is that loop, or a block of declarations then
 * that loop (l->lead, checked by leads_ok once the nest is walked); else NULL. */
static cc_node *next_loop(cc_kloop *l)
{
    cc_node *b = single(l->body), *f = NULL;
    size_t cap = 0; /* of l->lead */
    if (b && b->kind == CXCursor_ForStmt) return b;
    if (!b || b->kind != CXCursor_CompoundStmt) return NULL;
    for (int i = 0; i < b->nkid; i++) {
        cc_node *s = b->kid[i];
        if (s->kind == CXCursor_NullStmt) continue;
        if (f || (s->kind != CXCursor_DeclStmt && s->kind != CXCursor_ForStmt)) { f = NULL; break; }
        if (s->kind == CXCursor_ForStmt) { f = s; continue; }
        CC_GROW(l->lead, cap, l->nlead + 1);
        l->lead[l->nlead++] = s;
    }
    if (!f) { free(l->lead); l->lead = NULL; l->nlead = 0; }
    return f;
}

typedef struct { const cc_cuda_plan *p; int ok; } pure_ctx;
static int pure_visit(cc_node *n, void *arg)
{
    pure_ctx *c = arg;
    int post;
    const char *op = NULL;
    if (n->kind == CXCursor_CompoundAssignOperator) c->ok = 0;
    else if (n->kind == CXCursor_BinaryOperator) op = cc_binop(&c->p->u->ast, n);
    else if (n->kind == CXCursor_UnaryOperator) op = cc_unop(&c->p->u->ast, n, &post);
    else if (n->kind == CXCursor_CallExpr) {
        char *f = cc_spelling(cc_referenced(n));
        c->ok &= cc_cu_math_fn(f);
        free(f);
    }
    if (op && (!*op || !strcmp(op, "=") || !strcmp(op, "++") || !strcmp(op, "--"))) c->ok = 0;
    return c->ok;
}

/* Each thread may compute the declarations before loop l's next loop again: variables the nest
 * never assigns, each initialised by an expression without side effects. */
static int leads_ok(const cc_cuda_plan *p, const cc_kernel *k, const cc_kloop *l)
{
    for (int i = 0; i < l->nlead; i++)
        for (int j = 0; j < l->lead[i]->nkid; j++) {
            cc_node *vd = l->lead[i]->kid[j];
            if (vd->kind != CXCursor_VarDecl || !vd->nkid || !clang_isExpression(vd->kid[vd->nkid - 1]->kind)) return 0;
            for (int q = 0; q < k->nasg; q++)
                if (cc_cu_same_cursor(cc_referenced(k->asg[q]), vd->c)) return 0;
            pure_ctx c = { p, 1 };
            cc_walk(vd->kid[vd->nkid - 1], pure_visit, &c);
            if (!c.ok) return 0;
        }
    return 1;
}

typedef struct { cc_node **v; int n; size_t cap; } forlist;
static int collect_for(cc_node *n, void *arg)
{
    forlist *fs = arg;
    if (n->kind == CXCursor_ForStmt) {
        CC_GROW(fs->v, fs->cap, fs->n + 1);
        fs->v[fs->n++] = n;
    }
    return 1;
}

/* whether l's bounds can be computed before the kernel; the reason if not (first loop only) */
static void loop_host(cc_cuda_plan *p, cc_kernel *k, cc_kloop *l, char **why)
{
    int ned = p->ned;
    l->host = cc_cu_host_expr(p, l->lb, &k->sc) && cc_cu_host_expr(p, l->ub, &k->sc);
    if (!l->host) {
        if (why && !*why) *why = p->why;
        else free(p->why);
        p->why = NULL;
        cc_cu_edits_back(p, ned);
    }
    l->assigned = cc_kn_assigned(k, l);
    for (int i = 0; i < k->nbrk; i++) l->breaks |= k->brk[i] == l->f;
}

/* the loop's trip count (for the index prover) */
static void loop_trip(cc_cuda_plan *p, cc_kx *g, cc_kloop *l)
{
    if (!l->host || l->assigned) return;
    cc_kpoly lb, ub, d, one;
    long long kk;
    one.n = 1;
    one.t[0].k = -1; /* '<=': ub - lb - (-1) */
    one.t[0].na = 0;
    int poly = cc_kx_poly(g, l->lb, &lb) && cc_kx_poly(g, l->ub, &ub) && cc_kx_sub(&d, &ub, &lb) && !cc_kx_loops(g, &d) &&
               (!l->le || cc_kx_sub(&d, &d, &one));
    if (poly && cc_kx_is_const(&d, &kk)) {
        l->ctrip = 1;
        l->ktrip = kk;
        l->trip = cc_fmt("%lld", kk);
    } else if (poly) {
        l->trip = cc_kx_str(g, &d);
    } else {
        char *lt = cc_cu_node_text(p, l->lb), *ut = cc_cu_node_text(p, l->ub);
        l->trip = cc_fmt("((long long)(%s) - (long long)(%s)%s)", ut, lt, l->le ? " + 1" : "");
        free(lt);
        free(ut);
    }
    l->atom = cc_kx_atom(g, l->var, l->name, 1, l->trip, l->ctrip, l->ktrip, poly ? &d : NULL);
}

/* ---------------------------------------------------------------- form KERNEL: the blocks */
typedef struct {
    int el;                     /* its first element */
    int ns; cc_kpoly *poly; int *ok; /* its subscripts as polynomials */
    unsigned loops;             /* the loop atoms they use */
    int all;                    /* every subscript is a polynomial */
    int fixed;                  /* every subscript is a polynomial of host values: one element */
} keyinfo;
typedef struct { int kinds; keyinfo *key; int nkey; int same_type; size_t key_cap; } blkinfo;

static void blocks_info(cc_kernel *k, cc_kx *g, blkinfo *bl)
{
    for (int i = 0; i < k->nel; i++) {
        cc_kelem *e = &k->el[i];
        blkinfo *b = &bl[e->acc];
        if (!b->kinds) b->same_type = 1;
        b->kinds |= e->kind;
        if (e->kind == CC_KE_ACC && !e->same_type) b->same_type = 0;
        int q;
        for (q = 0; q < b->nkey && strcmp(k->el[b->key[q].el].key, e->key); q++) {}
        if (q < b->nkey) continue;
        CC_GROW(b->key, b->key_cap, b->nkey + 1);
        keyinfo *ki = &b->key[b->nkey++];
        ki->el = i;
        ki->ns = e->nix;
        ki->poly = cc_xcalloc((size_t)(e->nix ? e->nix : 1), sizeof *ki->poly);
        ki->ok = cc_xcalloc((size_t)(e->nix ? e->nix : 1), sizeof *ki->ok);
        ki->loops = 0;
        ki->all = 1;
        for (int s = 0; s < e->nix; s++) {
            ki->ok[s] = cc_kx_poly(g, e->ix[s], &ki->poly[s]);
            if (ki->ok[s]) ki->loops |= cc_kx_loops(g, &ki->poly[s]);
            else ki->all = 0;
        }
        ki->fixed = ki->all && !ki->loops;
    }
}

static void blocks_free(blkinfo *bl, int nacc)
{
    for (int a = 0; a < nacc; a++) {
        for (int q = 0; q < bl[a].nkey; q++) { free(bl[a].key[q].poly); free(bl[a].key[q].ok); }
        free(bl[a].key);
    }
    free(bl);
}

/* elements reached through subscript set ki are distinct for threads that differ in atom v, the
 * atoms of `fixed` equal */
static cc_kcond key_distinct(cc_kx *g, const keyinfo *ki, int v, unsigned fixed)
{
    cc_kcond any = cc_kcond_const(0);
    for (int s = 0; s < ki->ns && any.st != 1; s++)
        if (ki->ok[s]) any = cc_kcond_or(any, cc_kx_distinct(g, &ki->poly[s], v, fixed));
    return any;
}

/* ... for any two threads of the grid (atoms a0 and a1 on it; a1 < 0: one loop) */
static cc_kcond grid_distinct(cc_kx *g, const keyinfo *ki, int a0, int a1)
{
    if (a1 < 0) return key_distinct(g, ki, a0, 0);
    cc_kcond x = cc_kcond_and(key_distinct(g, ki, a0, 0), key_distinct(g, ki, a1, 1u << a0));
    cc_kcond y = cc_kcond_and(key_distinct(g, ki, a1, 0), key_distinct(g, ki, a0, 1u << a1));
    return cc_kcond_or(x, y);
}

static int reducible(enum CXTypeKind k)
{
    return k == CXType_Float || k == CXType_Double || k == CXType_Int || k == CXType_UInt || k == CXType_Long ||
           k == CXType_ULong || k == CXType_LongLong || k == CXType_ULongLong;
}

/* ---------------------------------------------------------------- form KERNEL: the choice */
typedef struct {
    int m[2], nm;               /* the loops on the grid (indices into k->loop) */
    int valid;
    char *why;                  /* not valid: why */
    cc_kcond cond;
    int x;                      /* the one of m on threadIdx.x */
    int coalesced, nreduce;
} cand;

static char *map_names(const cc_kernel *k, const cand *c)
{
    if (c->nm == 1) return cc_xstrdup(k->loop[c->m[0]].name);
    return cc_fmt("%s and %s", k->loop[c->m[0]].name, k->loop[c->m[1]].name);
}

static void cand_fail(cand *c, char *why)
{
    if (c->valid) { c->valid = 0; c->why = why; }
    else free(why);
}

static void eval_cand(cc_cuda_plan *p, cc_kernel *k, cc_kx *g, blkinfo *bl, cand *c)
{
    cc_task *t = p->t;
    c->valid = 1;
    c->cond = cc_kcond_const(1);
    for (int i = 0; i < c->nm; i++) {
        const cc_kloop *l = &k->loop[c->m[i]];
        if (!l->host) cand_fail(c, cc_fmt("the bounds of the loop over %s are not fixed for the kernel", l->name));
        else if (l->breaks) cand_fail(c, cc_fmt("the loop over %s has a 'break'", l->name));
        else if (l->assigned) cand_fail(c, cc_fmt("the loop variable %s is assigned in the body", l->name));
        else if (l->atom < 0) cand_fail(c, cc_fmt("the nest has too many loops and variables to analyse"));
    }
    if (!c->valid) return;
    int a0 = k->loop[c->m[0]].atom, a1 = c->nm > 1 ? k->loop[c->m[1]].atom : -1;
    char *names = map_names(k, c);
    for (int a = 0; a < t->nacc && c->valid; a++) {
        blkinfo *b = &bl[a];
        if (!b->kinds) continue;
        int written = (b->kinds & CC_KE_STORE) || ((b->kinds & CC_KE_ACC) && (b->kinds & CC_KE_READ));
        if (!written && b->kinds != CC_KE_ACC) continue;
        const char *key0 = b->nkey ? k->el[b->key[0].el].key : "";
        if (written) {
            if (b->nkey > 1) {
                cand_fail(c, cc_fmt("block %s is stored to, and accessed at different elements", t->acc[a].key));
                break;
            }
            cc_kcond d = grid_distinct(g, &b->key[0], a0, a1);
            if (d.st == 0)
                cand_fail(c, cc_fmt("block %s is stored to at %s, not proven a distinct element for each %s", t->acc[a].key,
                                    key0, names));
            c->cond = cc_kcond_and(c->cond, d);
            continue;
        }
        cc_kcond d = b->nkey == 1 ? grid_distinct(g, &b->key[0], a0, a1) : cc_kcond_const(0);
        if (d.st != 0) { /* owned */
            c->cond = cc_kcond_and(c->cond, d);
            continue;
        }
        int fixed = 1;
        for (int q = 0; q < b->nkey; q++) fixed &= b->key[q].fixed;
        enum CXTypeKind ek = k->el[b->key[0].el].ek;
        if (!fixed)
            cand_fail(c, cc_fmt("block %s is accumulated into at %s, neither proven an element of one thread for each %s "
                                "nor one element for the whole nest (a reduction)", t->acc[a].key, key0, names));
        else if (!reducible(ek))
            cand_fail(c, cc_fmt("block %s is accumulated at %s by every thread, and a reduction of %s elements is not "
                                "supported", t->acc[a].key, key0, cc_cu_arith(ek)));
        else if (!b->same_type)
            cand_fail(c, cc_fmt("block %s is accumulated at %s by every thread, with values of another type than its "
                                "elements' (each update rounds: they cannot be regrouped)", t->acc[a].key, key0));
        else
            c->nreduce += b->nkey;
    }
    free(names);
    if (!c->valid) return;
    /* threadIdx.x: the loop whose index is the contiguous one (last subscript, step 1) of more accesses */
    int cnt[2] = { 0, 0 };
    for (int i = 0; i < k->nel; i++) {
        const cc_kelem *e = &k->el[i];
        cc_kpoly x;
        if (!e->nix || !cc_kx_poly(g, e->ix[e->nix - 1], &x)) continue;
        for (int j = 0; j < c->nm; j++) cnt[j] += cc_kx_unit(&x, k->loop[c->m[j]].atom);
    }
    c->x = c->nm > 1 && cnt[0] > cnt[1] ? 0 : c->nm - 1; /* a tie: the inner loop */
    c->coalesced = cnt[c->x];
}

/* a better than b */
static int better(const cand *a, const cand *b)
{
    if (a->valid != b->valid) return a->valid;
    if (a->nm != b->nm) return a->nm > b->nm;
    if (a->coalesced != b->coalesced) return a->coalesced > b->coalesced;
    if (a->nreduce != b->nreduce) return a->nreduce < b->nreduce;
    return a->cond.st == 1 && b->cond.st != 1;
}

/* ---------------------------------------------------------------- form KERNEL: registers */
typedef struct { const cc_kernel *k; unsigned mapped; int ok; const cc_cuda_plan *p; } eval_ctx;

static int evaluable_visit(cc_node *n, void *arg)
{
    eval_ctx *e = arg;
    if (!e->ok) return 0;
    if (cc_cu_block_use(e->p, n) >= 0) { e->ok = 0; return 0; }
    if (n->kind != CXCursor_DeclRefExpr) return 1;
    CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
    enum CXCursorKind dk = clang_getCursorKind(d);
    if (dk == CXCursor_EnumConstantDecl || dk == CXCursor_FunctionDecl) return 0;
    const cc_kbind *b = cc_cu_bind(&e->k->sc, d);
    if (b && b->acc < 0) return 0;
    for (int i = 0; i < e->k->nloop; i++)
        if ((e->mapped >> i & 1u) && cc_cu_same_cursor(e->k->loop[i].var, d)) return 0;
    e->ok = 0;
    return 0;
}

/* n can be computed where the thread starts on a point of the grid loops (mapped: their mask) */
static int evaluable(const cc_cuda_plan *p, const cc_kernel *k, cc_node *n, unsigned mapped)
{
    eval_ctx e = { k, mapped, 1, p };
    cc_walk(n, evaluable_visit, &e);
    return e.ok;
}

static const cc_kloop *loop_of(const cc_kernel *k, const cc_node *f)
{
    for (int i = 0; i < k->nloop; i++)
        if (k->loop[i].f == f) return &k->loop[i];
    for (int i = 0; i < k->ninner; i++)
        if (k->inner[i].f == f) return &k->inner[i];
    return NULL;
}

static char *bound_text(const cc_cuda_plan *p, const cc_node *n)
{
    char *s = cc_cu_render(p, n->b, n->e);
    for (const char *c = s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_')) {
            char *t = cc_fmt("(%s)", s);
            free(s);
            return t;
        }
    return s;
}

/* "lb < ub": loop l runs at least once */
static char *runs_text(const cc_cuda_plan *p, const cc_kloop *l)
{
    char *a = bound_text(p, l->lb), *b = bound_text(p, l->ub), *r = cc_fmt("%s %s %s", a, l->le ? "<=" : "<", b);
    free(a);
    free(b);
    return r;
}

/* Element group ka is accumulated only by its own thread at one place: may it live in a register
 * (loaded where the thread starts on its point of the grid, stored after the loops in the thread)?
 * Every update must be reached from there through blocks and canonical loops only, whose bounds
 * are known there; the load and store then happen when one of those chains of loops runs at all
 * (ka->guard; NULL: always). */
static int register_ok(const cc_cuda_plan *p, cc_kernel *k, cc_kacc *ka, unsigned mapped)
{
    if (k->nbrk || k->ncont) return 0;
    cc_node *B = k->loop[k->nloop - 1].body;
    char *guard = NULL;
    int always = 0;
    for (int i = 0; i < k->nel; i++) {
        cc_kelem *e = &k->el[i];
        if (e->acc != ka->acc) continue;
        char *path = cc_xstrdup("");
        int ok = 1;
        for (int j = 0; j < k->nloop && ok; j++) { /* the perfect nest's loops that run in the thread */
            const cc_kloop *l = &k->loop[j];
            if (mapped >> j & 1u) continue;
            if (!evaluable(p, k, l->lb, mapped) || !evaluable(p, k, l->ub, mapped)) { ok = 0; break; }
            if (l->ctrip && l->ktrip > 0) continue;
            char *r = runs_text(p, l), *t = cc_fmt("%s%s%s", path, *path ? " && " : "", r);
            free(r);
            free(path);
            path = t;
        }
        for (cc_node *a = e->op->parent; ok && a && e->op != B && a != B->parent; a = a->parent) {
            if (a->kind == CXCursor_CompoundStmt) continue;
            const cc_kloop *l = a->kind == CXCursor_ForStmt ? loop_of(k, a) : NULL;
            if (!l || l->assigned || !evaluable(p, k, l->lb, mapped) || !evaluable(p, k, l->ub, mapped)) { ok = 0; break; }
            if (l->ctrip && l->ktrip > 0) continue;
            char *r = runs_text(p, l), *t = cc_fmt("%s%s%s", r, *path ? " && " : "", path);
            free(r);
            free(path);
            path = t;
        }
        if (!ok) { free(path); free(guard); return 0; }
        if (!*path) always = 1;
        if (!guard) guard = path;
        else if (strcmp(guard, path)) {
            char *t = cc_fmt("(%s) || (%s)", guard, path);
            free(guard);
            free(path);
            guard = t;
        } else {
            free(path);
        }
    }
    if (always) { free(guard); guard = NULL; }
    ka->guard = guard;
    return 1;
}

/* ---------------------------------------------------------------- form KERNEL */
static int plan_kernel(cc_cuda_plan *p, cc_node *call)
{
    cc_task *t = p->t;
    cc_kernel *k = cc_xcalloc(1, sizeof *k);
    p->k = k;
    k->x = k->y = -1;
    cc_node *nest = call ? call_scope(p, &k->sc, call) : task_scope(p, &k->sc);
    if (!nest) return 0;
    k->nest = nest;
    if (!cc_kn_parse_for(p, nest, &k->loop[0]))
        return cc_cuda_no(p, "the loop nest's outer loop is not canonical (for (T i = lb; i < ub; i++))");
    k->nloop = 1;
    while (k->nloop < CC_KMAX_LOOPS) {
        cc_kloop *l = &k->loop[k->nloop - 1];
        cc_node *in = next_loop(l);
        if (!in || !cc_kn_parse_for(p, in, &k->loop[k->nloop])) {
            cc_kn_loop_free(&k->loop[k->nloop]);
            free(l->lead);
            l->lead = NULL;
            l->nlead = 0;
            break;
        }
        k->nloop++;
    }
    if (!cc_kn_walk(p, k)) return 0;
    if (!k->nel) return cc_cuda_no(p, "the loop nest does not access any block element");
    for (int i = 0; i + 1 < k->nloop; i++) /* the nest is perfect up to declarations each thread may compute again */
        if (!leads_ok(p, k, &k->loop[i])) {
            for (int j = i + 1; j < k->nloop; j++) cc_kn_loop_free(&k->loop[j]);
            free(k->loop[i].lead);
            k->loop[i].lead = NULL;
            k->loop[i].nlead = 0;
            k->nloop = i + 1;
        }
    for (int i = 0; i < k->nasg; i++) {
        const cc_kbind *b = cc_cu_bind(&k->sc, clang_getCanonicalCursor(cc_referenced(k->asg[i])));
        if (b) return cc_cuda_no(p, "the nest assigns '%s', which each GPU thread would hold a copy of", b->name);
    }
    /* the loops: bounds fixed for the kernel, trip counts */
    char *why0 = NULL;
    for (int i = 0; i < k->nloop; i++) loop_host(p, k, &k->loop[i], i == 0 ? &why0 : NULL);
    forlist fs = { NULL, 0, 0 };
    cc_walk(k->loop[k->nloop - 1].body, collect_for, &fs);
    k->inner = cc_xcalloc((size_t)(fs.n ? fs.n : 1), sizeof *k->inner);
    for (int i = 0; i < fs.n; i++) {
        cc_kloop *l = &k->inner[k->ninner];
        if (!cc_kn_parse_for(p, fs.v[i], l)) { cc_kn_loop_free(l); continue; }
        loop_host(p, k, l, NULL);
        k->ninner++;
    }
    free(fs.v);
    cc_kx *g = cc_kx_new(p);
    for (int i = 0; i < k->sc.nb; i++) /* host values first: the loops' trip counts are written with them */
        if (k->sc.b[i].acc < 0 && cc_cu_is_integer(clang_getCanonicalType(k->sc.b[i].type).kind))
            cc_kx_atom(g, k->sc.b[i].d, k->sc.b[i].name, 0, NULL, 0, 0, NULL);
    for (int i = 0; i < k->nloop; i++) loop_trip(p, g, &k->loop[i]);
    for (int i = 0; i < k->ninner; i++) loop_trip(p, g, &k->inner[i]);
    /* the candidates: one loop or two of the perfect nest on the grid */
    blkinfo *bl = cc_xcalloc((size_t)(t->nacc ? t->nacc : 1), sizeof *bl);
    blocks_info(k, g, bl);
    cand best;
    memset(&best, 0, sizeof best);
    cand first; /* the outer loop alone: its failure is the reason when nothing goes on the grid */
    memset(&first, 0, sizeof first);
    for (int i = 0; i < k->nloop; i++)
        for (int j = i; j < k->nloop; j++) {
            cand c;
            memset(&c, 0, sizeof c);
            c.m[0] = i;
            c.m[1] = j;
            c.nm = i == j ? 1 : 2;
            eval_cand(p, k, g, bl, &c);
            if (i == 0 && j == 0) { first = c; first.cond = cc_kcond_dup(&c.cond); first.why = c.why ? cc_xstrdup(c.why) : NULL; }
            if (!best.nm || better(&c, &best)) {
                free(best.why);
                free(best.cond.s);
                best = c;
            } else {
                free(c.why);
                free(c.cond.s);
            }
        }
    int ok = best.valid;
    if (!ok) {
        if (why0) cc_cuda_no(p, "%s", why0);
        else cc_cuda_no(p, "the outer loop (over %s) is not independent: %s", k->loop[0].name, first.why ? first.why : "?");
    }
    free(why0);
    free(first.why);
    free(first.cond.s);
    free(best.why);
    if (!ok) {
        free(best.cond.s);
        blocks_free(bl, t->nacc);
        cc_kx_free(g);
        return 0;
    }
    cc_cu_edits_sort(p);
    /* the mapping */
    k->x = best.m[best.x];
    k->y = best.nm > 1 ? best.m[1 - best.x] : -1;
    k->bx = best.nm > 1 ? 32 : 256;
    k->by = best.nm > 1 ? 8 : 1;
    k->check = best.cond;
    unsigned mapped = 1u << k->x | (k->y >= 0 ? 1u << k->y : 0u), matoms = 1u << k->loop[k->x].atom;
    if (k->y >= 0) matoms |= 1u << k->loop[k->y].atom;
    /* the accumulated elements */
    for (int a = 0; a < t->nacc; a++) {
        blkinfo *b = &bl[a];
        if (!(b->kinds & CC_KE_ACC)) continue;
        int written = (b->kinds & CC_KE_STORE) || (b->kinds & CC_KE_READ);
        int owned = written || (b->nkey == 1 && !b->key[0].fixed); /* else a reduction (eval_cand) */
        for (int q = 0; q < (owned ? 1 : b->nkey); q++) {
            CC_GROW(k->ka, k->ka_cap, k->nka + 1);
            cc_kacc *ka = &k->ka[k->nka];
            memset(ka, 0, sizeof *ka);
            ka->acc = a;
            ka->el = b->key[q].el;
            ka->key = k->el[ka->el].key;
            ka->ek = k->el[ka->el].ek;
            ka->slot = -1;
            if (!owned) {
                ka->how = CC_KA_REDUCE;
                ka->slot = k->nslot++;
            } else if (!written && b->key[0].ns > 0 && b->key[0].all && (b->key[0].loops & ~matoms) == 0 &&
                       b->key[0].loops && register_ok(p, k, ka, mapped)) { /* fixed in the thread */
                ka->how = CC_KA_REGISTER;
            } else {
                ka->how = CC_KA_MEMORY;
            }
            for (int i = 0; i < k->nel; i++)
                if (k->el[i].acc == a && (owned || !strcmp(k->el[i].key, ka->key))) k->el[i].group = k->nka;
            k->nka++;
        }
    }
    /* accesses that must not be one block: a buffer shared by two accesses, one of them stored or
     * accumulated into, would break the analysis above (which is per access) */
    for (int a = 0; a < t->nacc; a++)
        for (int b = a + 1; b < t->nacc; b++) {
            int ka = bl[a].kinds, kb = bl[b].kinds;
            if (!ka || !kb || !t->acc[a].fetched || !t->acc[b].fetched) continue;
            if (!((ka | kb) & (CC_KE_STORE | CC_KE_ACC))) continue;
            CC_GROW(k->alias, k->alias_cap, k->nalias + 1);
            k->alias[k->nalias][0] = a;
            k->alias[k->nalias][1] = b;
            k->nalias++;
        }
    blocks_free(bl, t->nacc);
    cc_kx_free(g);
    p->form = CC_CUDA_KERNEL;
    return 1;
}

/* ---------------------------------------------------------------- the plan */
int cc_cuda_plan_task(cc_unit *u, cc_task *t, cc_cuda_plan *p)
{
    memset(p, 0, sizeof *p);
    p->u = u;
    p->t = t;
    if (t->pr->has_device && t->pr->device == CC_DEV_CPU) return cc_cuda_no(p, "device(cpu)");
    if (t->nkids || t->nwait)
        return cc_cuda_no(p, "the task %s: its CUDA variant would have to run host code between kernels",
                          t->nkids ? "submits nested tasks" : "has a taskwait");
    if (t->pr->collective) return cc_cuda_no(p, "a collective task runs on CPUs");
    for (int i = 0; i < t->nacc; i++) {
        if (!t->acc[i].fetched && !(t->acc[i].mode & CC_PERMONLY))
            return cc_cuda_no(p, "block %s is not obtained at the start of the task (%s)", t->acc[i].key,
                              t->acc[i].sync ? t->acc[i].sync : "its indices vary in the body");
    }
    for (int i = 0; i < t->ncap; i++) {
        char *d = cc_cu_decl(t->cap[i].type, t->cap[i].name);
        CXType c = clang_getCanonicalType(t->cap[i].type);
        int ok = d != NULL && !(c.kind == CXType_Pointer &&
                                clang_getCanonicalType(clang_getPointeeType(c)).kind == CXType_ConstantArray);
        free(d);
        if (!ok) {
            CXString s = clang_getTypeSpelling(t->cap[i].type);
            cc_cuda_no(p, "the task captures '%s' of type '%s' (only arithmetic values, pointers to them and tensors can "
                          "go to the CUDA file)", t->cap[i].name, clang_getCString(s));
            clang_disposeString(s);
            return 0;
        }
        if (cc_cu_reserved(t->cap[i].name)) return cc_cuda_no(p, "the task captures '%s', a C++ keyword", t->cap[i].name);
    }
    for (int i = 0; i < t->npre; i++)
        if (strstr(t->pre[i], "struct") || strstr(t->pre[i], "union")) return cc_cuda_no(p, "the body uses a local struct or union type");
    /* form BLAS: a body of BLAS and LAPACK calls (cuda_blas.c); -1: it is one, and p->why says why not */
    int ok, bl = cc_blas_plan(u, t, &p->blas, &p->why);
    if (bl) {
        ok = bl > 0;
        if (ok) p->form = CC_CUDA_BLAS;
    } else {
        cc_node *s = single(t->stmt);
        cc_node *c = s ? cc_cu_down(s) : NULL;
        if (c && c->kind == CXCursor_CallExpr && cc_cu_block_use(p, c) < 0)
            ok = call_into(p, c) ? plan_kernel(p, c) : plan_call(p, c);
        else
            ok = plan_kernel(p, NULL);
    }
    for (int i = 0; i < t->nacc && ok && !p->why; i++)
        if (t->acc[i].guard) /* the CUDA variant would need its blocks whatever the branches */
            ok = cc_cuda_no(p, "block %s is requested only if %s (a guarded block: the CPU variant fetches it under its "
                               "guard)", t->acc[i].key, t->acc[i].guard);
    if (!ok || p->why) p->form = CC_CUDA_NONE;
    if (p->form != CC_CUDA_NONE) cc_cu_edits_sort(p);
    return p->form != CC_CUDA_NONE;
}

/* ---------------------------------------------------------------- the plan as text */
static void line(char **out, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void line(char **out, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *l = cc_vfmt(f, ap);
    va_end(ap);
    char *t = cc_fmt("%s%s\n", *out, l);
    free(l);
    free(*out);
    *out = t;
}

char *cc_cuda_plan_text(const cc_cuda_plan *p)
{
    char *out = cc_xstrdup("");
    const cc_kernel *k = p->k;
    if (p->form == CC_CUDA_BLAS) return out; /* the variants line names the routines (cuda_blas.c) */
    if (p->form == CC_CUDA_CALL) {
        char *fn = cc_spelling(cc_referenced(p->call.call));
        line(&out, "cuda call: %s() has TAMM_CUDA_VARIANT(%s): the CUDA variant calls %s() with the task's buffers", fn,
             p->call.g, p->call.g);
        free(fn);
        return out;
    }
    if (p->form != CC_CUDA_KERNEL) return out;
    const cc_task *t = p->t;
    if (k->sc.fn)
        line(&out, "cuda kernel: the loop nest of %s() (line %u), its parameters bound to the call's arguments", k->sc.fname,
             cc_line_of(&p->u->src, k->sc.nest->b));
    char *inth = cc_xstrdup("");
    for (int i = 0; i < k->nloop; i++) {
        if (i == k->x || i == k->y) continue;
        char *s = cc_fmt("%s%s%s", inth, *inth ? ", " : "", k->loop[i].name);
        free(inth);
        inth = s;
    }
    if (k->y >= 0)
        line(&out, "cuda kernel: on the grid: %s (threadIdx.x) and %s (threadIdx.y), blocks of %d x %d threads, "
                   "grid-stride loops over 64-bit indices%s%s", k->loop[k->x].name, k->loop[k->y].name, k->bx, k->by,
             *inth ? "; in each thread, in order: " : "", inth);
    else
        line(&out, "cuda kernel: on the grid: %s (threadIdx.x), blocks of %d threads, grid-stride loops over 64-bit "
                   "indices%s%s", k->loop[k->x].name, k->bx, *inth ? "; in each thread, in order: " : "", inth);
    free(inth);
    for (int i = 0; i < k->nka; i++) {
        const cc_kacc *ka = &k->ka[i];
        char *el = cc_cu_node_text(p, k->el[ka->el].at);
        const char *blk = t->acc[ka->acc].key;
        switch (ka->how) {
        case CC_KA_REGISTER:
            line(&out, "cuda kernel: %s (%s) is accumulated by one thread: in a register, loaded and stored once%s%s%s", el,
                 blk, ka->guard ? " (if " : "", ka->guard ? ka->guard : "", ka->guard ? ")" : "");
            break;
        case CC_KA_MEMORY:
            line(&out, "cuda kernel: %s (%s) is accumulated by one thread: in place", el, blk);
            break;
        case CC_KA_REDUCE:
            line(&out, "cuda kernel: %s (%s) is accumulated by every thread: a reduction, per thread, per block in shared "
                       "memory, then the blocks' partial sums in index order (a second kernel)", el, blk);
            break;
        }
        free(el);
    }
    if (k->check.st == -1)
        line(&out, "cuda kernel: checked at submission, else the task runs its CPU variant: %s", k->check.s);
    if (k->nalias) {
        char *pairs = cc_xstrdup("");
        for (int i = 0; i < k->nalias; i++) {
            char *s = cc_fmt("%s%s%s and %s", pairs, i ? ", " : "", t->acc[k->alias[i][0]].key, t->acc[k->alias[i][1]].key);
            free(pairs);
            pairs = s;
        }
        line(&out, "cuda kernel: checked at submission, else the task runs its CPU variant: %s%s not one block",
             pairs, k->nalias > 1 ? ": each pair" : " are");
        free(pairs);
    }
    return out;
}

/* The C declarations, at submission, of the kernel's host values that are not captured variables
 * (the parameters of the function whose body is the kernel, the values the body computes before
 * its nest), from their expressions as written (over the task's variables, in scope at
 * submission): every expression first, then the names, which may hide those variables.  The
 * check is written over the names.  NULL when there is none. */
static char *call_params(cc_unit *u, const cc_kscope *sc)
{
    char *out = cc_xstrdup("");
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < sc->nb; i++) {
            const cc_kbind *b = &sc->b[i];
            if (!b->arg) continue;
            CXString ts = clang_getTypeSpelling(b->type);
            char *a = cc_src_text(&u->ast, b->arg->b, b->arg->e), *s;
            if (!pass) s = cc_fmt("%s%s tamm_h%d_ = (%s)(%s);\n", out, clang_getCString(ts), i, clang_getCString(ts), a);
            else s = cc_fmt("%s%s %s = tamm_h%d_; (void)%s;\n", out, clang_getCString(ts), b->name, i, b->name);
            clang_disposeString(ts);
            free(a);
            free(out);
            out = s;
        }
    if (!*out) { /* no values computed before the launch: the check is over captured variables */
        free(out);
        return NULL;
    }
    return out;
}

void cc_cuda_decide(cc_unit *u, cc_task *t)
{
    cc_cuda_plan p;
    free(t->cuda_why);
    free(t->cuda_plan);
    free(t->cuda_check);
    free(t->cuda_params);
    free(t->cuda_alias);
    t->cuda_why = t->cuda_plan = t->cuda_check = t->cuda_params = NULL;
    t->cuda_alias = NULL;
    t->ncuda_alias = 0;
    t->has_cuda = cc_cuda_plan_task(u, t, &p);
    if (t->has_cuda && t->nrd) /* rule 40: the CPU variant uses the value read at submission; the CUDA one would not */
        t->has_cuda = cc_cuda_no(&p, "the body reads %s outside tensors, which the task takes at submission", t->rd[0].text);
    if (!t->has_cuda) {
        t->cuda_why = cc_xstrdup(p.why ? p.why : "no CUDA variant");
    } else {
        t->cuda_plan = cc_cuda_plan_text(&p);
        if (p.k && p.k->check.st == -1) t->cuda_check = cc_xstrdup(p.k->check.s);
        if (p.k && p.k->check.st == -1) t->cuda_params = call_params(u, &p.k->sc);
        if (p.k && p.k->nalias) {
            t->cuda_alias = cc_xmalloc((size_t)p.k->nalias * sizeof *t->cuda_alias);
            memcpy(t->cuda_alias, p.k->alias, (size_t)p.k->nalias * sizeof *t->cuda_alias);
            t->ncuda_alias = p.k->nalias;
        }
    }
    cc_cuda_plan_free(&p);
}
