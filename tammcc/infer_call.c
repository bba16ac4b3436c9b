/* infer_call.c — a block pointer passed to a call: the callee's summary for that parameter
 * (its body analysed, memoised by USR, recursion-safe), const parameters and TAMM_READS /
 * WRITES / UPDATES / ACCUMULATES annotations, bodies not visible, inline and weak definitions,
 * calls through function pointers, memcpy / memmove / memset and the BLAS and LAPACK routines
 * of blas.c (rules 16-23, 32, 33 and 39 of docs/language.md, "The rules"). */
#include "infer_int.h"
#include "blas.h"
#include "text.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- callee summaries */
static cc_node *fn_body_tree(cc_infer *in, CXCursor def)
{
    CXString u = clang_getCursorUSR(def);
    const char *us = clang_getCString(u);
    for (int i = 0; i < in->nf; i++)
        if (!strcmp(in->f[i].usr, us)) {
            clang_disposeString(u);
            return in->f[i].root;
        }
    CC_GROW(in->f, in->f_cap, in->nf + 1);
    in->f[in->nf].usr = cc_xstrdup(us);
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

/* Does an attribute of declaration d say `weak` (a strong definition elsewhere replaces it at link time)? */
static enum CXChildVisitResult weak_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    int *weak = d;
    if (!clang_isAttribute(clang_getCursorKind(c))) return CXChildVisit_Continue;
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(c);
    CXToken *tk;
    unsigned n;
    clang_tokenize(tu, clang_getCursorExtent(c), &tk, &n);
    for (unsigned i = 0; i < n && !*weak; i++) {
        CXString sp = clang_getTokenSpelling(tu, tk[i]);
        const char *t = clang_getCString(sp);
        *weak = !strcmp(t, "weak") || !strcmp(t, "__weak__") || !strcmp(t, "weakref") || !strcmp(t, "__weakref__");
        clang_disposeString(sp);
    }
    clang_disposeTokens(tu, tk, n);
    return *weak ? CXChildVisit_Break : CXChildVisit_Continue;
}

static int declared_weak(CXCursor d)
{
    int weak = 0;
    if (!clang_Cursor_isNull(d)) clang_visitChildren(d, weak_visit, &weak);
    return weak;
}

/* Is any declaration of function fn in the translation unit weak?  (memoised by USR) */
typedef struct { const char *usr; int weak; } weak_scan;
static enum CXChildVisitResult weak_decl_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    weak_scan *w = d;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl) return CXChildVisit_Continue;
    CXString u = clang_getCursorUSR(c);
    if (!strcmp(clang_getCString(u), w->usr)) w->weak |= declared_weak(c);
    clang_disposeString(u);
    return w->weak ? CXChildVisit_Break : CXChildVisit_Continue;
}

static int any_decl_weak(CXCursor fn)
{
    static struct { char *usr; int weak; } *memo;
    static int nmemo;
    static size_t memo_cap;
    CXString u = clang_getCursorUSR(fn);
    const char *usr = clang_getCString(u);
    int r = -1;
    for (int i = 0; i < nmemo && r < 0; i++)
        if (!strcmp(memo[i].usr, usr)) r = memo[i].weak;
    if (r < 0) {
        weak_scan w = { usr, 0 };
        clang_visitChildren(clang_getTranslationUnitCursor(clang_Cursor_getTranslationUnit(fn)), weak_decl_visit, &w);
        r = w.weak;
        CC_GROW(memo, memo_cap, nmemo + 1);
        memo[nmemo].usr = cc_xstrdup(usr);
        memo[nmemo++].weak = r;
    }
    clang_disposeString(u);
    return r;
}

/* The definition of fn whose body stands for the function at run time, or a
 * null cursor: none visible, a C99 `inline` definition (not static), which a
 * definition in another file may replace, or a `weak` one (any declaration of
 * the function says so), which a strong definition elsewhere replaces. */
static CXCursor trusted_definition(CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (clang_Cursor_isNull(def)) return def;
    if (clang_Cursor_isFunctionInlined(def) && clang_Cursor_getStorageClass(def) != CX_SC_Static)
        return clang_getNullCursor();
    if (any_decl_weak(def)) return clang_getNullCursor();
    return def;
}

int cc_infer_trusted_body(CXCursor fn) { return !clang_Cursor_isNull(trusted_definition(fn)); }

/* Does param_info analyse fn's body for parameter k (no annotation, not const)? */
static int body_followed(CXCursor fn, int k)
{
    if (param_annotation(fn, k)) return 0;
    CXCursor parm = nth_param(fn, k);
    if (clang_Cursor_isNull(parm)) return 0;
    CXType pt = clang_getCanonicalType(clang_getCursorType(parm));
    if (pt.kind != CXType_Pointer || clang_isConstQualifiedType(clang_getPointeeType(pt))) return 0;
    return !clang_Cursor_isNull(trusted_definition(fn));
}

/* How function fn treats its pointer parameter k (memoised; recursion-safe).
 * A recursive call met while its own analysis is under way contributes what
 * the other uses contribute (the result is a union, so the fixpoint is the
 * first pass); every analysis that started after that busy one and is still
 * running is then incomplete (mutual recursion: g called from f sees f busy)
 * and is not memoised, so a later call of g from elsewhere analyses it anew. */
static ptr_info param_info(cc_infer *in, CXCursor fn, int k, int depth)
{
    ptr_info r = { 0 };
    char *fname = cc_spelling(fn);
    const char *ann = param_annotation(fn, k);
    CXCursor parm = nth_param(fn, k);
    char *pname = clang_Cursor_isNull(parm) ? cc_xstrdup("...") : cc_spelling(parm);
    if (ann) {
        char *w = cc_fmt("parameter '%s' of %s is annotated %s", pname, fname,
                      !strcmp(ann, "tamm_reads") ? "TAMM_READS" : !strcmp(ann, "tamm_writes") ? "TAMM_WRITES" :
                      !strcmp(ann, "tamm_updates") ? "TAMM_UPDATES" : "TAMM_ACCUMULATES");
        if (!strcmp(ann, "tamm_reads")) cc_inf_see(&r, CC_SEEN_READ, w);
        else if (!strcmp(ann, "tamm_accumulates")) {
            cc_inf_see(&r, CC_SEEN_ACC, w);
            if (!clang_Cursor_isNull(parm))
                r.accty |= cc_inf_acc_type_bit(clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(parm))));
        }
        else if (!strcmp(ann, "tamm_writes")) {
            cc_inf_see(&r, CC_SEEN_STORE, w);
            r.cov = cc_xstrdup("(size_t)-1"); /* the annotation promises every element */
        } else {
            cc_inf_see(&r, CC_SEEN_READ, cc_xstrdup(w));
            cc_inf_see(&r, CC_SEEN_STORE, w);
        }
        goto out;
    }
    if (!clang_Cursor_isNull(parm)) {
        CXType pt = clang_getCanonicalType(clang_getCursorType(parm));
        CXType pointee = clang_getPointeeType(pt);
        if (pt.kind != CXType_Pointer) {
            cc_inf_see(&r, CC_SEEN_ESC, cc_fmt("passed to parameter '%s' of %s, which is not a pointer", pname, fname));
            goto out;
        }
        if (clang_isConstQualifiedType(pointee)) {
            char *ts = NULL;
            CXString s = clang_getTypeSpelling(clang_getCursorType(parm));
            ts = cc_xstrdup(clang_getCString(s));
            clang_disposeString(s);
            cc_inf_see(&r, CC_SEEN_READ, cc_fmt("passed as '%s %s' to %s", ts, pname, fname));
            free(ts);
            goto out;
        }
    }
    CXCursor def = trusted_definition(fn);
    if (clang_Cursor_isNull(def) || clang_Cursor_isNull(parm)) {
        cc_inf_see(&r, CC_SEEN_ESC, cc_fmt("escapes into %s, whose body is %s and whose parameter '%s' is not const", fname,
                                    clang_Cursor_isNull(clang_getCursorDefinition(fn))
                                        ? "not visible" : "an inline or weak definition that another file may replace",
                                    pname));
        goto out;
    }
    CXString u = clang_getCursorUSR(def);
    char *usr = cc_xstrdup(clang_getCString(u));
    clang_disposeString(u);
    for (int i = 0; i < in->nm; i++)
        if (!strcmp(in->m[i].usr, usr) && in->m[i].k == k) {
            if (in->m[i].busy) {
                /* recursion: contributes what the other uses contribute; the analyses started
                 * since this one are incomplete */
                int from = 0;
                while (from < in->nmstack && in->mstack[from] != i) from++;
                for (int j = from + 1; j < in->nmstack; j++) in->m[in->mstack[j]].partial = 1;
                free(usr);
                goto out;
            }
            if (!in->m[i].partial) {
                cc_inf_merge(&r, &in->m[i].r);
                free(usr);
                goto out;
            }
            /* an incomplete result: analyse again below, in this entry */
            cc_inf_pi_free(&in->m[i].r);
            in->m[i].partial = 0;
            free(usr);
            usr = NULL;
            k = -1 - i; /* marks the reuse of entry i */
            break;
        }
    if (depth > 64 || in->budget <= 0) {
        cc_inf_see(&r, CC_SEEN_ESC, cc_fmt(depth > 64 ? "call chain into %s is too deep to follow"
                                               : "the calls into %s are too many to follow", fname));
        free(usr);
        goto out;
    }
    in->budget--;
    int mi;
    if (k < 0) {
        mi = -1 - k;
        k = in->m[mi].k;
    } else {
        CC_GROW(in->m, in->m_cap, in->nm + 1);
        mi = in->nm++;
        memset(&in->m[mi], 0, sizeof in->m[mi]);
        in->m[mi].usr = usr;
        in->m[mi].k = k;
    }
    in->m[mi].busy = 1;
    CC_GROW(in->mstack, in->mstack_cap, in->nmstack + 1);
    in->mstack[in->nmstack++] = mi;
    cc_node *root = fn_body_tree(in, def);
    CXCursor dparm = nth_param(def, k);
    ptr_info vr = cc_inf_analyze_var(in, dparm, root, depth + 1);
    /* the callee's coverage names only its parameters (cc_infer_stable_text): the caller substitutes its
     * arguments (cc_inf_subst_args) */
    cc_inf_merge(&in->m[mi].r, &vr);
    cc_inf_pi_free(&vr);
    in->nmstack--;
    in->m[mi].busy = 0;
    cc_inf_merge(&r, &in->m[mi].r);
out:
    free(fname);
    free(pname);
    return r;
}

/* ---------------------------------------------------------------- arguments of calls */
/* memcpy / memmove / memset and their __builtin_ forms: which argument is what */
static int mem_builtin(const char *f, int *dst, int *src, int *len)
{
    if (!strncmp(f, "__builtin_", 10)) f += 10;
    if (!strcmp(f, "memcpy") || !strcmp(f, "memmove")) { *dst = 0; *src = 1; *len = 2; return 1; }
    if (!strcmp(f, "memset")) { *dst = 0; *src = -1; *len = 2; return 1; }
    return 0;
}

/* The pointer is argument k of a call p of the BLAS or LAPACK routine f (blas.c): what the routine
 * does to the data by its documented semantics.  An output only written (beta 0) covers the block
 * when the call runs each time the region runs and its dimensions are known at submission. */
static void blas_arg(cc_infer *in, cc_node *p, int k, cc_node *region, const cc_blas_fn *f, ptr_info *pi,
                     const char *at)
{
    int na = p->nkid - 1, kb = cc_blas_arg(f, CC_BA_BETA, -1), kl = cc_blas_arg(f, CC_BA_LAYOUT, -1);
    int kt = cc_blas_arg(f, CC_BA_TRANS, -1);
    double v;
    int beta = kb >= 0 && cc_blas_const(p->kid[kb + 1], &v) && (v == 0 || v == 1) ? (int)v : -1;
    long layout = kl >= 0 && cc_blas_const(p->kid[kl + 1], &v) ? (long)v : -1;
    long trans = kt >= 0 && cc_blas_const(p->kid[kt + 1], &v) ? (long)v : -1;
    char **args = cc_xcalloc((size_t)na, sizeof *args), *why = NULL, *cov = NULL, *nocov = NULL, *rwhy = NULL;
    int nl = 0, runs = 1;
    if (f->args[k] == CC_BA_OUT && beta == 0) {
        runs = cc_inf_runs_with_region(in, p, region, NULL, &nl, 0, &rwhy);
        for (int i = 0; i < na && runs; i++)
            if (f->args[i] == CC_BA_DIM || f->args[i] == CC_BA_LD || f->args[i] == CC_BA_INC)
                args[i] = cc_infer_stable_text(in, p->kid[i + 1], region);
    }
    unsigned seen = cc_blas_effect(f, k, beta, layout, trans, args, at, &why, &cov, &nocov);
    if (!runs) {
        free(cov);
        cov = NULL;
        free(nocov);
        nocov = rwhy;
        rwhy = NULL;
    }
    if (in->punned && (seen & CC_SEEN_ACC)) { /* the routine adds in another element type than the block's */
        seen = CC_SEEN_READ | CC_SEEN_STORE;
        char *w = cc_fmt("%s; through a pointer to another element type: so read and written", why);
        free(why);
        why = w;
    }
    for (unsigned bit = 1; bit <= CC_SEEN_ESC; bit <<= 1)
        if (seen & bit) cc_inf_see(pi, bit, cc_xstrdup(why));
    if (seen & CC_SEEN_ACC) { /* the routine adds in the element type of its parameter (s: float, d: double) */
        CXCursor fn = cc_referenced(p);
        CXCursor parm = clang_Cursor_getArgument(fn, (unsigned)k);
        pi->accty |= clang_Cursor_isNull(parm) ? (unsigned)CC_ACCTY_OTHER
                   : cc_inf_acc_type_bit(clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(parm))));
    }
    if (cov && !pi->cov) pi->cov = cov;
    else free(cov);
    if (nocov) cc_inf_no_cov(&pi->nocov, nocov);
    for (int i = 0; i < na; i++) free(args[i]);
    free(args);
    free(why);
    free(rwhy);
}

/* The pointer is argument k of call p (top: the argument's node). */
void cc_inf_analyze_arg(cc_infer *in, cc_node *p, int k, cc_node *region, ptr_info *pi, int depth)
{
    CXCursor fn = cc_referenced(p);
    char *w = cc_inf_where(p->c);
    if (clang_Cursor_isNull(fn) || clang_getCursorKind(fn) != CXCursor_FunctionDecl) {
        cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("passed to a call through a function pointer at %s", w));
        free(w);
        return;
    }
    char *fname = cc_spelling(fn);
    int dst, src, len;
    if (mem_builtin(fname, &dst, &src, &len) && p->nkid == 4) {
        if (k == src) {
            cc_inf_see(pi, CC_SEEN_READ, cc_fmt("source of %s at %s", fname, w));
        } else if (k == dst) {
            cc_inf_see(pi, CC_SEEN_STORE, cc_fmt("destination of %s at %s", fname, w));
            int nl = 0;
            char *why = NULL;
            char *bytes = cc_inf_runs_with_region(in, p, region, NULL, &nl, 0, &why) ? cc_infer_stable_text(in, p->kid[len + 1], region)
                                                                               : NULL;
            if (bytes && !pi->cov) pi->cov = cc_fmt("(size_t)(%s)", bytes);
            else if (!bytes) cc_inf_no_cov(&pi->nocov, why ? why : cc_fmt("the length of %s at %s is not known at submission",
                                                                   fname, w));
            else free(why);
            free(bytes);
            /* it returns its destination */
            cc_inf_analyze_derived(in, p, p, region, pi, depth, "the pointer returned by a mem function is used");
        } else {
            cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("passed as the length of %s at %s", fname, w));
        }
        free(fname);
        free(w);
        return;
    }
    const cc_blas_fn *bf = cc_blas_find(fname);
    if (bf && p->nkid == (int)strlen(bf->args) + 1 && !cc_infer_trusted_body(fn)) {
        blas_arg(in, p, k, region, bf, pi, w); /* a BLAS or LAPACK routine: its documented semantics (blas.c) */
        free(fname);
        free(w);
        return;
    }
    free(fname);
    ptr_info r = param_info(in, fn, k, depth);
    if (!body_followed(fn, k)) {
        /* the callee's body was not analysed (a const or annotated parameter, an invisible body):
         * a pointer it returns may be this one, and a pointer parameter to a pointer may carry it out */
        CXType rt = clang_getCanonicalType(clang_getResultType(clang_getCursorType(fn)));
        if (rt.kind == CXType_Pointer)
            cc_inf_analyze_derived(in, p, p, region, &r, depth, "the callee may return the pointer");
        int np = clang_Cursor_getNumArguments(fn);
        for (int i = 0; i < np; i++) {
            CXType pt = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));
            if (i != k && pt.kind == CXType_Pointer &&
                clang_getCanonicalType(clang_getPointeeType(pt)).kind == CXType_Pointer) {
                cc_inf_see(&r, CC_SEEN_ESC, cc_fmt("passed to a call at %s that may store it through a pointer to a "
                                            "pointer", w));
                break;
            }
        }
    }
    if (in->punned && (r.seen & CC_SEEN_ACC)) { /* the callee adds in another element type than the block's */
        cc_inf_see(&r, CC_SEEN_READ, cc_fmt("accumulation through a pointer to another element type at %s", w));
        cc_inf_see(&r, CC_SEEN_STORE, cc_fmt("accumulation through a pointer to another element type at %s", w));
    }
    if (r.seen & SEEN_RET) { /* the callee returns the pointer: the call's value is a use */
        r.seen &= ~(unsigned)SEEN_RET;
        cc_inf_analyze_derived(in, p, p, region, &r, depth, "the pointer is returned by a call");
    }
    if (r.cov) {
        /* the callee stores every element each time it runs: so must the call, and the coverage
         * is in terms of the callee's parameters: substitute the call's arguments */
        int nl = 0;
        char *why = NULL;
        char *cov = cc_inf_runs_with_region(in, p, region, NULL, &nl, 0, &why) ? cc_inf_subst_args(in, r.cov, fn, p, region, &why)
                                                                        : NULL;
        free(r.cov);
        r.cov = cov;
        if (why) { /* the callee's proof holds, the call's does not: that is the reason */
            free(r.nocov);
            r.nocov = why;
        }
    }
    cc_inf_merge(pi, &r);
    cc_inf_pi_free(&r);
    free(w);
}
