/* infer.c — access inference over libclang trees (see infer.h). */
#include "infer.h"
#include "blas.h"
#include "guard.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ptr_info {
    unsigned seen;
    char *cov;                 /* bytes fully stored, in the scope's terms */
    char *why[4];              /* first reason per CC_SEEN bit (read, store, acc, esc) */
    char *nocov;               /* why a store proved no coverage (the first such reason) */
    unsigned accty;            /* CC_ACCTY_* the accumulations (CC_SEEN_ACC) go through */
} ptr_info;

typedef struct memo {
    char *usr;
    int k;
    int busy;
    int partial;               /* computed while an enclosing analysis was busy: not reusable */
    ptr_info r;
} memo;

/* Internal to the analysis: the pointer is returned by the function analysed
 * (param_info turns it into a use of the call's value at the call site). */
enum { SEEN_RET = 64 };

typedef struct fn_tree { char *usr; cc_node *root; } fn_tree;

struct cc_infer {
    cc_ast *a;
    const cc_source *src;
    memo *m; int nm;
    int *mstack; int nmstack;  /* memo entries being computed, outermost first */
    fn_tree *f; int nf;
    CXCursor *busyv; int nbusyv; /* variables whose uses are being analysed */
    int *busydepth;              /* nmstack when each busy variable was pushed */
    size_t m_cap, mstack_cap, f_cap, busyv_cap, busydepth_cap; /* capacities (xalloc.h: cc_grow) */
    int punned;                  /* > 0: the pointer on analysis was converted to another element type */
    long budget;                 /* callee analyses left before the rest counts as escapes */
};

cc_infer *cc_infer_new(cc_ast *a, const cc_source *src)
{
    cc_infer *in = cc_xcalloc(1, sizeof *in);
    in->a = a;
    in->src = src;
    in->budget = 20000; /* callee analyses per file (mutual recursion re-analyses incomplete results) */
    return in;
}

static void pi_free(ptr_info *p)
{
    free(p->cov);
    for (int i = 0; i < 4; i++) free(p->why[i]);
    free(p->nocov);
    memset(p, 0, sizeof *p);
}

void cc_infer_free(cc_infer *in)
{
    for (int i = 0; i < in->nm; i++) { free(in->m[i].usr); pi_free(&in->m[i].r); }
    for (int i = 0; i < in->nf; i++) { free(in->f[i].usr); cc_tree_free(in->f[i].root); }
    free(in->m);
    free(in->mstack);
    free(in->f);
    free(in->busyv);
    free(in->busydepth);
    free(in);
}

static int bit_index(unsigned bit) { return bit == CC_SEEN_READ ? 0 : bit == CC_SEEN_STORE ? 1 : bit == CC_SEEN_ACC ? 2 : 3; }

static void see(ptr_info *p, unsigned bit, char *why)
{
    p->seen |= bit;
    if (bit == SEEN_RET) { /* no reason slot: the call site turns it into uses */
        free(why);
        return;
    }
    int i = bit_index(bit);
    if (!p->why[i]) p->why[i] = why;
    else free(why);
}

static void merge(ptr_info *into, const ptr_info *from)
{
    into->seen |= from->seen;
    into->accty |= from->accty;
    if (!into->cov && from->cov) into->cov = cc_xstrdup(from->cov);
    for (int i = 0; i < 4; i++)
        if (!into->why[i] && from->why[i]) into->why[i] = cc_xstrdup(from->why[i]);
    if (!into->nocov && from->nocov) into->nocov = cc_xstrdup(from->nocov);
}

/* Record in *why (if why is not NULL and nothing is recorded yet) why no coverage was proved; takes msg. */
static void no_cov(char **why, char *msg)
{
    if (why && !*why) *why = msg;
    else free(msg);
}

/* The CC_ACCTY_* bit of an element type that '+=' adds to: the tensor dtype whose
 * elements it is (integers by size: unsigned addition has the same bits), or
 * CC_ACCTY_OTHER; 0 for void (an annotated void pointer: the annotation is the contract). */
static unsigned acc_type_bit(CXType t)
{
    t = clang_getCanonicalType(t);
    switch (t.kind) {
    case CXType_Void: return 0;
    case CXType_Float: return CC_ACCTY_F32;
    case CXType_Double: return CC_ACCTY_F64;
    case CXType_Int: case CXType_UInt: case CXType_Long: case CXType_ULong: case CXType_LongLong:
    case CXType_ULongLong: {
        long long n = clang_Type_getSizeOf(t);
        return n == 4 ? CC_ACCTY_I32 : n == 8 ? CC_ACCTY_I64 : CC_ACCTY_OTHER;
    }
    default: return CC_ACCTY_OTHER;
    }
}

static int is_integer_kind(enum CXTypeKind k)
{
    return (k >= CXType_Bool && k <= CXType_Int128) || k == CXType_Enum;
}

static int is_floating_kind(enum CXTypeKind k)
{
    return k == CXType_Float || k == CXType_Double || k == CXType_LongDouble || k == CXType_Half ||
           k == CXType_Float128 || k == CXType_Float16 || k == CXType_Complex;
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

/* the text of n: from the main file as written, from a header as its tokens */
static char *node_text(cc_infer *in, const cc_node *n)
{
    return n->in_main ? cc_src_text(in->a, n->b, n->e) : cc_cursor_text(in->a, n->c);
}

/* ---------------------------------------------------------------- names */
typedef struct { cc_ast *a; const char **names; int n; size_t cap; cc_node *skip; } name_set;

static void add_name(name_set *s, const char *nm)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->names[i], nm)) return;
    CC_GROW(s->names, s->cap, s->n + 1);
    s->names[s->n++] = cc_xstrdup(nm);
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

static ptr_info analyze_var(cc_infer *in, CXCursor var, cc_node *region, int depth);
static void analyze_ptr(cc_infer *in, cc_node *e, cc_node *region, ptr_info *pi, int depth);

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
        if (!strcmp(ann, "tamm_reads")) see(&r, CC_SEEN_READ, w);
        else if (!strcmp(ann, "tamm_accumulates")) {
            see(&r, CC_SEEN_ACC, w);
            if (!clang_Cursor_isNull(parm))
                r.accty |= acc_type_bit(clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(parm))));
        }
        else if (!strcmp(ann, "tamm_writes")) {
            see(&r, CC_SEEN_STORE, w);
            r.cov = cc_xstrdup("(size_t)-1"); /* the annotation promises every element */
        } else {
            see(&r, CC_SEEN_READ, cc_xstrdup(w));
            see(&r, CC_SEEN_STORE, w);
        }
        goto out;
    }
    if (!clang_Cursor_isNull(parm)) {
        CXType pt = clang_getCanonicalType(clang_getCursorType(parm));
        CXType pointee = clang_getPointeeType(pt);
        if (pt.kind != CXType_Pointer) {
            see(&r, CC_SEEN_ESC, cc_fmt("passed to parameter '%s' of %s, which is not a pointer", pname, fname));
            goto out;
        }
        if (clang_isConstQualifiedType(pointee)) {
            char *ts = NULL;
            CXString s = clang_getTypeSpelling(clang_getCursorType(parm));
            ts = cc_xstrdup(clang_getCString(s));
            clang_disposeString(s);
            see(&r, CC_SEEN_READ, cc_fmt("passed as '%s %s' to %s", ts, pname, fname));
            free(ts);
            goto out;
        }
    }
    CXCursor def = trusted_definition(fn);
    if (clang_Cursor_isNull(def) || clang_Cursor_isNull(parm)) {
        see(&r, CC_SEEN_ESC, cc_fmt("escapes into %s, whose body is %s and whose parameter '%s' is not const", fname,
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
                merge(&r, &in->m[i].r);
                free(usr);
                goto out;
            }
            /* an incomplete result: analyse again below, in this entry */
            pi_free(&in->m[i].r);
            in->m[i].partial = 0;
            free(usr);
            usr = NULL;
            k = -1 - i; /* marks the reuse of entry i */
            break;
        }
    if (depth > 64 || in->budget <= 0) {
        see(&r, CC_SEEN_ESC, cc_fmt(depth > 64 ? "call chain into %s is too deep to follow"
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
    ptr_info vr = analyze_var(in, dparm, root, depth + 1);
    /* the callee's coverage names only its parameters (stable_text): the caller substitutes its
     * arguments (subst_args) */
    merge(&in->m[mi].r, &vr);
    pi_free(&vr);
    in->nmstack--;
    in->m[mi].busy = 0;
    merge(&r, &in->m[mi].r);
out:
    free(fname);
    free(pname);
    return r;
}

/* ---------------------------------------------------------------- coverage
 * Write needs a proof that the body stores every element of the block.  The
 * proof accepts a store `p[idx] = ...` that runs each time its region runs
 * (the region is the task body, or the definition of a callee), inside a nest
 * of canonical loops `for (i = 0; i < N; i++)` that idx enumerates densely in
 * row-major order; the coverage is then N1 * ... * Nk elements.  That
 * expression is evaluated elsewhere (at submission, or with a call's arguments
 * substituted for the callee's parameters), so it must have the same value
 * there as when the nest runs.  Hence, besides the shape of the nest:
 *  - on the way from the store (or from a call that covers) up to the region
 *    there are only blocks, the nest's loops (none for a call), parentheses,
 *    casts and declarations: no if, while, switch, label, ?:, && or ||; and no
 *    statement before it in any of those blocks may return, goto, or break /
 *    continue out of itself; the pointer is not one branch of a ?:;
 *  - the loop bodies hold no break, continue, return or goto, and assign no
 *    loop variable and no variable of a bound;
 *  - a loop variable is a local of the region whose address is never taken;
 *  - a bound is "stable": integer literals, enumerators, arithmetic, casts,
 *    sizeof, the runtime's shape queries (tamm_block_extent...), and variables
 *    that keep their value throughout the region (parameters of a callee, or
 *    locals a task captures by value), never assigned and whose address is
 *    never taken in the region; no other calls, no loads through pointers, no
 *    globals.  A bound written with macros is used by its value (it must then
 *    be a constant) unless the region is the task body and no #define or
 *    #undef lies between the task and the bound;
 *  - an index multiplier equals the inner loop's bound: the same text naming
 *    the same declarations; a cast in the index does not narrow.
 * A store that fails says why (ptr_info.nocov, for --explain).
 */
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

/* one loop of a nest: its variable, its bound (the node, and the text the coverage uses) */
typedef struct { CXCursor var; cc_node *bound; char *cov; } loop;

/* Does subtree n assign var (=, op=, ++, --) or take its address?  With addr_only, only the latter. */
typedef struct { cc_ast *a; CXCursor var; int addr_only; int hit; } touch_find;
static int find_touch(cc_node *n, void *arg)
{
    touch_find *f = arg;
    cc_node *v = NULL;
    if (n->kind == CXCursor_UnaryOperator && n->nkid == 1) {
        int post;
        const char *op = cc_unop(f->a, n, &post);
        if (!strcmp(op, "&") || (!f->addr_only && (!strcmp(op, "++") || !strcmp(op, "--")))) v = n->kid[0];
    } else if (!f->addr_only && n->nkid == 2 &&
               (n->kind == CXCursor_CompoundAssignOperator ||
                (n->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(f->a, n), "=")))) {
        v = n->kid[0];
    }
    if (v && refers_to(v, f->var)) f->hit = 1;
    return !f->hit;
}

static int touches(cc_infer *in, cc_node *n, CXCursor var, int addr_only)
{
    touch_find f = { in->a, var, addr_only, 0 };
    cc_walk(n, find_touch, &f);
    return f.hit;
}

/* Is var declared in region (a local or, for a callee, a parameter) with automatic storage? */
static int local_of(cc_infer *in, CXCursor var, cc_node *region)
{
    enum CXCursorKind k = clang_getCursorKind(var);
    if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl) return 0;
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(var);
    if (sc == CX_SC_Static || sc == CX_SC_Extern) return 0;
    if (!region->in_main) /* a callee in a header: a variable of that function */
        return region->kind == CXCursor_FunctionDecl &&
               clang_equalCursors(clang_getCanonicalCursor(clang_getCursorSemanticParent(var)),
                                  clang_getCanonicalCursor(region->c));
    size_t off;
    return cc_offset(in->a, clang_getCursorLocation(var), &off) && off >= region->b && off < region->e;
}

/* Does var keep one value throughout region (see the section comment)? */
static int stable_var(cc_infer *in, CXCursor var, cc_node *region)
{
    var = clang_getCanonicalCursor(var);
    enum CXCursorKind k = clang_getCursorKind(var);
    if (region->kind == CXCursor_FunctionDecl) { /* a callee: its parameters */
        if (k != CXCursor_ParmDecl || !local_of(in, var, region)) return 0;
    } else { /* a task body: the enclosing function's locals, captured by value */
        size_t off;
        if ((k != CXCursor_VarDecl && k != CXCursor_ParmDecl) ||
            clang_getCursorKind(clang_getCursorSemanticParent(var)) != CXCursor_FunctionDecl ||
            clang_Cursor_getStorageClass(var) == CX_SC_Static || clang_Cursor_getStorageClass(var) == CX_SC_Extern ||
            !cc_offset(in->a, clang_getCursorLocation(var), &off) || (off >= region->b && off < region->e))
            return 0;
    }
    return !touches(in, region, var, 0);
}

/* runtime queries whose results never change while a program runs (tensor shapes, ranks) */
static const char *const pure_queries[] = { "tamm_block_extent", "tamm_tensor_nblocks", "tamm_tensor_ndim",
                                            "tamm_tensor_dim", "tamm_rank", "tamm_nranks" };

typedef struct { cc_infer *in; cc_node *region; int ok; int by_value; } stable_ctx;
static int stable_visit(cc_node *n, void *arg)
{
    stable_ctx *s = arg;
    switch (n->kind) {
    case CXCursor_IntegerLiteral: case CXCursor_ParenExpr: case CXCursor_UnexposedExpr:
    case CXCursor_CStyleCastExpr:
        break;
    case CXCursor_TypeRef: case CXCursor_UnaryExpr: /* sizeof: its type may be named otherwise at submission */
        s->by_value = 1;
        break;
    case CXCursor_BinaryOperator: {
        static const char *const ops[] = { "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^" };
        const char *op = cc_binop(s->in->a, n);
        int known = 0;
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) known |= !strcmp(op, ops[i]);
        if (!known) s->ok = 0;
        break;
    }
    case CXCursor_UnaryOperator: {
        int post;
        const char *op = cc_unop(s->in->a, n, &post);
        if (strcmp(op, "-") && strcmp(op, "+") && strcmp(op, "~")) s->ok = 0;
        break;
    }
    case CXCursor_CallExpr: {
        char *f = cc_spelling(cc_referenced(n));
        int pure = 0;
        for (size_t i = 0; i < sizeof pure_queries / sizeof *pure_queries; i++) pure |= !strcmp(f, pure_queries[i]);
        free(f);
        if (!pure) s->ok = 0;
        break;
    }
    case CXCursor_DeclRefExpr: {
        CXCursor d = cc_referenced(n);
        enum CXCursorKind dk = clang_getCursorKind(d);
        cc_node *top = cc_up_wrappers(n);
        if (dk == CXCursor_FunctionDecl) { /* only as the callee of a call accepted above */
            if (!top->parent || top->parent->kind != CXCursor_CallExpr || top->parent->kid[0] != top) s->ok = 0;
        } else if (dk == CXCursor_EnumConstantDecl) {
            s->by_value = 1; /* the name may mean another constant (or a variable) at submission */
        } else if (!stable_var(s->in, d, s->region)) {
            s->ok = 0;
        }
        break;
    }
    default:
        s->ok = 0;
    }
    return s->ok;
}


/* Does the text of e name a macro (an identifier that is no declaration e refers to)? */
typedef struct { const char *name; int found; } name_find;
static int find_name(cc_node *n, void *arg)
{
    name_find *f = arg;
    if (n->kind == CXCursor_DeclRefExpr || n->kind == CXCursor_TypeRef) {
        char *s = cc_spelling(n->kind == CXCursor_DeclRefExpr ? cc_referenced(n) : n->c);
        const char *nm = strrchr(s, ' '); /* a TypeRef spells "struct s" */
        if (!strcmp(nm ? nm + 1 : s, f->name)) f->found = 1;
        free(s);
    }
    return !f->found;
}

static int uses_macro(cc_infer *in, cc_node *e)
{
    CXTranslationUnit tu = in->a->tu;
    CXSourceRange r = e->in_main ? clang_getRange(clang_getLocationForOffset(tu, in->a->file, (unsigned)e->b),
                                                  clang_getLocationForOffset(tu, in->a->file, (unsigned)e->e))
                                 : clang_getCursorExtent(e->c);
    CXToken *tk;
    unsigned n;
    clang_tokenize(tu, r, &tk, &n);
    int macro = 0;
    for (unsigned i = 0; i < n && !macro; i++) {
        if (clang_getTokenKind(tk[i]) != CXToken_Identifier) continue;
        CXString s = clang_getTokenSpelling(tu, tk[i]);
        name_find f = { clang_getCString(s), 0 };
        cc_walk(e, find_name, &f);
        macro = !f.found;
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, tk, n);
    return macro;
}

/* The text by which a coverage expression names the value of e, which must be
 * stable in region (see the section comment); NULL if it is not.  Caller frees. */
/* e's value if it is an integer constant: *v (its bits), *uns (an unsigned type); 0 if it is not one */
static int const_value(cc_node *e, unsigned long long *v, int *uns)
{
    CXEvalResult r = clang_Cursor_Evaluate(e->c);
    int ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok) {
        *uns = clang_EvalResult_isUnsignedInt(r) != 0;
        *v = *uns ? clang_EvalResult_getAsUnsigned(r) : (unsigned long long)clang_EvalResult_getAsLongLong(r);
    }
    if (r) clang_EvalResult_dispose(r);
    return ok;
}

static char *stable_text(cc_infer *in, cc_node *e, cc_node *region);
char *cc_infer_stable_text(cc_infer *in, cc_node *e, cc_node *region) { return stable_text(in, e, region); }
int cc_infer_touches(cc_infer *in, cc_node *region, CXCursor var) { return touches(in, region, var, 0); }

static char *stable_text(cc_infer *in, cc_node *e, cc_node *region)
{
    stable_ctx s = { in, region, 1, 0 };
    cc_walk(e, stable_visit, &s);
    if (!s.ok || (!e->in_main && region->kind != CXCursor_FunctionDecl)) return NULL;
    /* Names that the submission site may resolve otherwise (enumerators, types in sizeof, macros,
     * whose definitions can change between the body and the submission or mean something else
     * there) are used by value: the expression must then be a constant. */
    if (s.by_value || uses_macro(in, e)) {
        unsigned long long v;
        int uns;
        if (!const_value(e, &v, &uns)) return NULL;
        return uns ? cc_fmt("%lluu", v) : cc_fmt("%lld", (long long)v);
    }
    char *t = node_text(in, e);
    char *r = cc_collapse(t); /* keeps the spaces C needs between tokens (sizeof n, n - -1) */
    free(t);
    return r;
}

/* Do a and b compute the same value: the same text, naming the same declarations? */
typedef struct { CXCursor *d; int n; size_t cap; } ref_list;
static int list_refs(cc_node *n, void *arg)
{
    ref_list *l = arg;
    if (n->kind == CXCursor_DeclRefExpr) {
        CC_GROW(l->d, l->cap, l->n + 1);
        l->d[l->n++] = clang_getCanonicalCursor(cc_referenced(n));
    }
    return 1;
}

static int same_value(cc_infer *in, cc_node *a, cc_node *b)
{
    if (uses_macro(in, a) || uses_macro(in, b)) { /* a macro may mean other values in the two places */
        unsigned long long x, y;
        int ux, uy;
        return const_value(a, &x, &ux) && const_value(b, &y, &uy) && x == y;
    }
    char *ta = node_text(in, a), *tb = node_text(in, b);
    char *sa = cc_squeeze(ta), *sb = cc_squeeze(tb);
    int same = !strcmp(sa, sb);
    free(ta); free(tb); free(sa); free(sb);
    ref_list ra = { NULL, 0, 0 }, rb = { NULL, 0, 0 };
    cc_walk(a, list_refs, &ra);
    cc_walk(b, list_refs, &rb);
    same = same && ra.n == rb.n;
    for (int i = 0; same && i < ra.n; i++) same = clang_equalCursors(ra.d[i], rb.d[i]);
    free(ra.d);
    free(rb.d);
    return same;
}

/* Does a jump in n leave n: return, goto, or a break / continue whose loop (or switch) is not inside n? */
typedef struct { cc_node *root; int out; } jump_find;
static int find_jump(cc_node *n, void *arg)
{
    jump_find *j = arg;
    if (n->kind == CXCursor_ReturnStmt || n->kind == CXCursor_GotoStmt || n->kind == CXCursor_IndirectGotoStmt) {
        j->out = 1;
    } else if (n->kind == CXCursor_BreakStmt || n->kind == CXCursor_ContinueStmt) {
        int inside = 0; /* the loop (or, for break, the switch) it leaves is n or inside n */
        for (cc_node *p = n->parent; p && n != j->root && !inside; p = p->parent) {
            inside = p->kind == CXCursor_ForStmt || p->kind == CXCursor_WhileStmt || p->kind == CXCursor_DoStmt ||
                     (p->kind == CXCursor_SwitchStmt && n->kind == CXCursor_BreakStmt);
            if (p == j->root) break;
        }
        if (!inside) j->out = 1;
    }
    return !j->out;
}

static int jumps_out(cc_node *n)
{
    jump_find j = { n, 0 };
    cc_walk(n, find_jump, &j);
    return j.out;
}

/* Any jump at all in n (a loop body of the nest must run every iteration to its end)? */
static int has_jump(cc_node *n, void *arg)
{
    int *bad = arg;
    if (n->kind == CXCursor_BreakStmt || n->kind == CXCursor_ContinueStmt || n->kind == CXCursor_ReturnStmt ||
        n->kind == CXCursor_GotoStmt || n->kind == CXCursor_IndirectGotoStmt)
        *bad = 1;
    return !*bad;
}

/* Is f written `for (i = 0; i < N; i++)` (or `i += 1`, or `int i = 0`)?  Its variable i. */
static int for_shape(cc_infer *in, cc_node *f, CXCursor *var)
{
    if (f->kind != CXCursor_ForStmt || f->nkid != 4) return 0;
    cc_node *init = f->kid[0], *cond = f->kid[1], *inc = f->kid[2];
    CXCursor v;
    if (init->kind == CXCursor_DeclStmt && init->nkid == 1 && init->kid[0]->kind == CXCursor_VarDecl) {
        cc_node *vd = init->kid[0];
        if (vd->nkid < 1 || !is_zero(in, vd->kid[vd->nkid - 1])) return 0;
        v = vd->c;
    } else if (init->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(in->a, init), "=") &&
               lvalue_var(init->kid[0]) && is_zero(in, init->kid[1])) {
        v = cc_referenced(lvalue_var(init->kid[0]));
    } else {
        return 0;
    }
    v = clang_getCanonicalCursor(v);
    if (cond->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, cond), "<") || !refers_to(cond->kid[0], v))
        return 0;
    int post;
    if (inc->kind == CXCursor_UnaryOperator) {
        const char *op = cc_unop(in->a, inc, &post);
        if (strcmp(op, "++") || !refers_to(inc->kid[0], v)) return 0;
    } else if (inc->kind == CXCursor_CompoundAssignOperator) {
        char *rhs = node_text(in, inc->kid[1]);
        int one = !strcmp(cc_binop(in->a, inc), "+=") && refers_to(inc->kid[0], v) && !strcmp(rhs, "1");
        free(rhs);
        if (!one) return 0;
    } else {
        return 0;
    }
    *var = v;
    return 1;
}

/* A canonical loop (for_shape) of region whose body changes neither its
 * variable nor the variables of its bound and always runs to its end: its
 * variable and bound.  If not, why. */
static int canonical_for(cc_infer *in, cc_node *f, cc_node *region, loop *l, char **why)
{
    CXCursor var;
    char *w = where(f->c);
    int ok = 0;
    if (!for_shape(in, f, &var)) {
        no_cov(why, cc_fmt("the loop at %s is not of the form 'for (i = 0; i < N; i++)'", w));
        free(w);
        return 0;
    }
    cc_node *bound = f->kid[1]->kid[1], *body = f->kid[3];
    int jump = 0;
    cc_walk(body, has_jump, &jump);
    char *vn = cc_spelling(var);
    if (jump) {
        no_cov(why, cc_fmt("the loop at %s may end early (break, continue, return or goto in its body)", w));
    } else if (!local_of(in, var, region) || touches(in, region, var, 1) || touches(in, body, var, 0)) {
        no_cov(why, cc_fmt("the variable '%s' of the loop at %s is changed in the loop's body, or its address "
                           "is taken", vn, w));
    } else if (!(l->cov = stable_text(in, bound, region))) {
        char *bt = node_text(in, bound);
        no_cov(why, cc_fmt("the bound '%s' of the loop at %s may change: a bound may use only constants and %s "
                           "that are never assigned and whose address is never taken", bt, w,
                           region->kind == CXCursor_FunctionDecl ? "parameters" : "captured variables"));
        free(bt);
    } else {
        l->var = var;
        l->bound = bound;
        ok = 1;
    }
    free(vn);
    free(w);
    return ok;
}

/* Does n run each time region runs?  Loops on the way are allowed only with
 * loops != NULL: canonical ones, collected innermost first (at most max).  If not, why. */
static int runs_with_region(cc_infer *in, cc_node *n, cc_node *region, loop *loops, int *nl, int max, char **why)
{
    cc_node *from = n;
    while (n != region) {
        cc_node *p = n->parent;
        if (!p) return 0;
        switch (p->kind) {
        case CXCursor_CompoundStmt:
            for (int i = 0; i < p->nkid && p->kid[i] != n; i++)
                if (jumps_out(p->kid[i])) {
                    char *w = where(p->kid[i]->c);
                    no_cov(why, cc_fmt("the statement at %s may jump past the store (a return, goto, break or "
                                       "continue)", w));
                    free(w);
                    return 0;
                }
            break;
        case CXCursor_ForStmt:
            if (p->nkid != 4 || p->kid[3] != n || !loops) {
                char *w = where(from->c);
                no_cov(why, cc_fmt("the %s at %s is in a loop that may run zero times",
                                   from->kind == CXCursor_CallExpr ? "call" : "store", w));
                free(w);
                return 0;
            }
            if (*nl == max) {
                no_cov(why, cc_fmt("the loop nest is deeper than %d", max));
                return 0;
            }
            if (!canonical_for(in, p, region, &loops[*nl], why)) return 0;
            (*nl)++;
            break;
        case CXCursor_ParenExpr: case CXCursor_UnexposedExpr: case CXCursor_CStyleCastExpr: case CXCursor_DeclStmt:
            break;
        case CXCursor_VarDecl: /* the initialiser of an automatic variable */
            if (clang_Cursor_getStorageClass(p->c) == CX_SC_Static) return 0;
            break;
        case CXCursor_FunctionDecl:
            if (p != region) return 0;
            break;
        default: {
            char *w = where(from->c);
            no_cov(why, cc_fmt("the %s at %s may not run: it is under an if, a while, a switch or an operator",
                               from->kind == CXCursor_CallExpr ? "call" : "store", w));
            free(w);
            return 0;
        }
        }
        n = p;
    }
    return 1;
}

/* An index operand without parentheses, implicit conversions and widening casts
 * (a cast to a narrower type could wrap around). */
static cc_node *index_operand(cc_node *n)
{
    for (;;) {
        if ((n->kind == CXCursor_ParenExpr || n->kind == CXCursor_UnexposedExpr) && n->nkid == 1) {
            n = n->kid[0];
        } else if (n->kind == CXCursor_CStyleCastExpr && n->nkid >= 1 &&
                   clang_Type_getSizeOf(clang_getCursorType(n->c)) >= 4) {
            n = n->kid[n->nkid - 1];
        } else {
            return n;
        }
    }
}

/* Is idx a dense row-major linearisation of loops[0..n) (outermost first)? */
static int dense(cc_infer *in, cc_node *idx, loop *loops, int n)
{
    idx = index_operand(idx);
    if (n == 1) return idx->kind == CXCursor_DeclRefExpr && refers_to(idx, loops[0].var);
    if (idx->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, idx), "+")) return 0;
    for (int side = 0; side < 2; side++) {
        cc_node *v = index_operand(idx->kid[side]), *rest = index_operand(idx->kid[1 - side]);
        if (v->kind != CXCursor_DeclRefExpr || !refers_to(v, loops[n - 1].var)) continue;
        if (rest->kind != CXCursor_BinaryOperator || strcmp(cc_binop(in->a, rest), "*")) return 0;
        for (int m = 0; m < 2; m++)
            if (same_value(in, index_operand(rest->kid[m]), index_operand(loops[n - 1].bound)) &&
                dense(in, rest->kid[1 - m], loops, n - 1))
                return 1;
        return 0;
    }
    return 0;
}

/* A store `p[idx] = ...` (assign: the '=' node, sub: the subscript node): if
 * it runs with region over a canonical loop nest that idx enumerates densely,
 * the bytes it covers; else NULL, and why in *why. */
static char *store_coverage(cc_infer *in, cc_node *assign, cc_node *sub, cc_node *region, char **why)
{
    loop loops[8];
    int nl = 0;
    char *r = NULL;
    char *w = where(sub->c);
    if (!runs_with_region(in, assign, region, loops, &nl, 8, why)) {
        /* why is said */
    } else if (nl == 0) {
        no_cov(why, cc_fmt("the store at %s is in no loop", w));
    } else {
        /* outermost first */
        for (int i = 0; i < nl / 2; i++) { loop t = loops[i]; loops[i] = loops[nl - 1 - i]; loops[nl - 1 - i] = t; }
        if (sub->nkid == 2 && dense(in, sub->kid[1], loops, nl)) {
            char *cov = cc_fmt("TAMM_CC_COUNT(%s)", loops[0].cov);
            for (int i = 1; i < nl; i++) {
                char *t = cc_fmt("%s*TAMM_CC_COUNT(%s)", cov, loops[i].cov);
                free(cov);
                cov = t;
            }
            long long esz = clang_Type_getSizeOf(clang_getCursorType(sub->c));
            r = cc_fmt("%s*%lld", cov, esz > 0 ? esz : 1);
            free(cov);
        } else {
            no_cov(why, cc_fmt("the index at %s does not run densely, row-major, over the loop nest", w));
        }
    }
    for (int i = 0; i < nl; i++) free(loops[i].cov);
    free(w);
    return r;
}

/* The spelling of an integer or _Bool type t (after typedefs), or NULL. */
static const char *arith_spelling(CXType t)
{
    enum CXTypeKind k = clang_getCanonicalType(t).kind;
    if (k == CXType_Float || k == CXType_Double || k == CXType_LongDouble) return NULL;
    return cc_arith_type_name(k, 0);
}

/* A callee's coverage cov (in terms of its parameters) at the call `call` in
 * region: each parameter replaced by the stable text of its argument, in one
 * pass (an argument's text is not substituted again); NULL if an argument is
 * not stable, and why in *why.  Caller frees. */
static char *subst_args(cc_infer *in, const char *cov, CXCursor fn, cc_node *call, cc_node *region, char **why)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (clang_Cursor_isNull(def)) def = fn;
    int np = clang_Cursor_getNumArguments(def);
    char *out = NULL;
    size_t len = 0;
    FILE *f = cc_xmemstream(&out, &len);
    int ok = 1;
    for (const char *s = cov; *s && ok;) {
        int start = (isalpha((unsigned char)*s) || *s == '_') &&
                    (s == cov || !(isalnum((unsigned char)s[-1]) || s[-1] == '_'));
        if (!start) {
            fputc(*s++, f);
            continue;
        }
        size_t L = 1;
        while (isalnum((unsigned char)s[L]) || s[L] == '_') L++;
        int k = -1;
        for (int i = 0; i < np && k < 0; i++) {
            char *pn = cc_spelling(clang_Cursor_getArgument(def, (unsigned)i));
            if (strlen(pn) == L && !strncmp(pn, s, L)) k = i;
            free(pn);
        }
        if (k < 0) {
            fwrite(s, 1, L, f);
        } else {
            char *arg = k + 1 < call->nkid ? stable_text(in, call->kid[k + 1], region) : NULL;
            /* the callee sees the argument converted to its parameter's type */
            const char *pt = arith_spelling(clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)k)));
            if (arg && pt) {
                fprintf(f, "((%s)(%s))", pt, arg);
            } else {
                char *w = where(call->c);
                no_cov(why, cc_fmt("the argument for '%.*s' in the call at %s may change before the callee's "
                                   "loops run", (int)L, s, w));
                free(w);
                ok = 0;
            }
            free(arg);
        }
        s += L;
    }
    cc_xmemclose(f);
    if (!ok) {
        free(out);
        out = NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- pointer uses
 * Sound by construction: a use of a value derived from a block pointer counts
 * as read, store or accumulation only in the contexts listed below, where C
 * fixes what happens to the data; every other context (one tammcc does not
 * recognise, an operator it cannot spell, a conversion to an integer, a store
 * of the pointer into memory it does not track) is an escape, which makes the
 * access readwrite.  The table in docs/language.md lists the rules. */

static CXType canon_type(const cc_node *n) { return clang_getCanonicalType(clang_getCursorType(n->c)); }

static int is_array_type(CXType t)
{
    return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray ||
           t.kind == CXType_DependentSizedArray;
}

static int is_ptr_type(CXType t) { return t.kind == CXType_Pointer || is_array_type(t); }

/* The element type seen through `from` differs from the one seen through its
 * conversion `to` (neither void): an accumulation through `to` would add in
 * another type than the block's. */
static int pointee_changes(const cc_node *from, const cc_node *to)
{
    CXType a = canon_type(from), b = canon_type(to);
    CXType ea = is_array_type(a) ? clang_getCanonicalType(clang_getArrayElementType(a)) : clang_getCanonicalType(clang_getPointeeType(a));
    CXType eb = is_array_type(b) ? clang_getCanonicalType(clang_getArrayElementType(b)) : clang_getCanonicalType(clang_getPointeeType(b));
    if (ea.kind == CXType_Void || eb.kind == CXType_Void || ea.kind == CXType_Invalid || eb.kind == CXType_Invalid) return 0;
    return ea.kind != eb.kind; /* arithmetic element types (what += applies to) differ by kind */
}

/* A variable with automatic storage (a local or a parameter of some function). */
static int auto_var(CXCursor v)
{
    enum CXCursorKind k = clang_getCursorKind(v);
    if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl) return 0;
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(v);
    if (sc == CX_SC_Static || sc == CX_SC_Extern) return 0;
    enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(v));
    return pk == CXCursor_FunctionDecl;
}

/* n without enclosing parentheses: the lvalue's own node as its parent sees it */
static cc_node *up_parens(cc_node *n)
{
    while (n->parent && n->parent->kind == CXCursor_ParenExpr) n = n->parent;
    return n;
}

static void escape(ptr_info *pi, const char *what, cc_node *at)
{
    char *w = where(at->c);
    see(pi, CC_SEEN_ESC, cc_fmt("%s at %s", what, w));
    free(w);
}

static ptr_info analyze_carrier(cc_infer *in, CXCursor var, cc_node *region, int depth);

/* The value of e points into the block but not (provably) at its start, or
 * may be another pointer: its uses count, its stores prove no coverage (the
 * reason names the place `at`). */
static void analyze_derived(cc_infer *in, cc_node *e, cc_node *at, cc_node *region, ptr_info *pi, int depth,
                            const char *why)
{
    ptr_info sub = { 0 };
    analyze_ptr(in, e, region, &sub, depth);
    if (sub.cov) {
        char *w = where(at->c);
        no_cov(&pi->nocov, cc_fmt("%s at %s", why, w));
        free(w);
    }
    free(sub.cov);
    sub.cov = NULL;
    merge(pi, &sub);
    pi_free(&sub);
}

/* Is the value of expression n used (not a statement of its own, the step of a
 * for, the left of a ',', or cast to void)? */
static int value_used(cc_infer *in, cc_node *n)
{
    cc_node *top = n;
    while (top->parent && top->parent->kind == CXCursor_ParenExpr) top = top->parent;
    cc_node *p = top->parent;
    if (!p) return 1;
    int k = cc_kid_index(top);
    switch (p->kind) {
    case CXCursor_CompoundStmt: return 0;
    case CXCursor_IfStmt: case CXCursor_WhileStmt: case CXCursor_SwitchStmt: return k == 0; /* the condition */
    case CXCursor_DoStmt: return k == 1;
    case CXCursor_ForStmt: return p->nkid != 4 || k == 1; /* init; cond; step; body (all present) */
    case CXCursor_CaseStmt: case CXCursor_DefaultStmt: case CXCursor_LabelStmt: return k != p->nkid - 1;
    case CXCursor_CStyleCastExpr: return canon_type(p).kind != CXType_Void;
    case CXCursor_BinaryOperator: return !(k == 0 && !strcmp(cc_binop(in->a, p), ","));
    default: return 1;
    }
}

/* An element lvalue (p[i], *p, p->f) of the block: how it is used. */
static void analyze_elem(cc_infer *in, cc_node *el, cc_node *region, ptr_info *pi, int depth, int derived)
{
    CXType et = canon_type(el);
    if (is_array_type(et)) { /* a row of a pointer-to-array view: it decays to a pointer */
        analyze_derived(in, el, el, region, pi, depth, "a row of the block is used");
        return;
    }
    if (et.kind == CXType_Pointer) {
        escape(pi, "an element of the block is used as a pointer", el);
        return;
    }
    cc_node *top = cc_up_wrappers(el);
    cc_node *p = top->parent;
    char *w = where(el->c);
    if (p && (p->kind == CXCursor_BinaryOperator || p->kind == CXCursor_CompoundAssignOperator) && p->kid[0] == top) {
        const char *op = cc_binop(in->a, p);
        if (!strcmp(op, "=")) {
            char *cov = NULL;
            if (derived || el->kind != CXCursor_ArraySubscriptExpr)
                no_cov(&pi->nocov, cc_fmt("the store at %s is not 'p[index] = ...' on the block pointer", w));
            else
                cov = store_coverage(in, p, el, region, &pi->nocov);
            if (cov && !pi->cov) pi->cov = cov;
            else free(cov);
            see(pi, CC_SEEN_STORE, cc_fmt("stored to at %s", w));
        } else if ((!strcmp(op, "+=") || !strcmp(op, "-=")) && (in->punned || value_used(in, p))) {
            /* not an accumulation: through another element type (the runtime sums in the block's),
             * or the new value is read */
            see(pi, CC_SEEN_READ, cc_fmt("'%s' at %s %s", op, w, in->punned ? "through a pointer to another element "
                                         "type" : "whose value is used"));
            see(pi, CC_SEEN_STORE, cc_fmt("'%s' at %s", op, w));
        } else if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
            /* an accumulation if the contributions can be summed: C converts the sum to the element
             * type after every addition, which only an integer element fed a floating value notices */
            CXType vt = p->nkid == 2 ? clang_getCanonicalType(clang_getCursorType(p->kid[1]->c)) : et;
            if (is_integer_kind(et.kind) && is_floating_kind(vt.kind)) {
                CXString ts = clang_getTypeSpelling(vt), es = clang_getTypeSpelling(clang_getCursorType(el->c));
                char *why = cc_fmt("'%s' at %s adds a %s to an element of type %s, which C converts after every "
                                   "addition: not a sum of contributions", op, w, clang_getCString(ts), clang_getCString(es));
                see(pi, CC_SEEN_READ, cc_xstrdup(why));
                see(pi, CC_SEEN_STORE, why);
                clang_disposeString(ts);
                clang_disposeString(es);
            } else {
                see(pi, CC_SEEN_ACC, cc_fmt("'%s' at %s", op, w));
                pi->accty |= acc_type_bit(et);
            }
        } else if (p->kind == CXCursor_CompoundAssignOperator) {
            if (!*op) {
                see(pi, CC_SEEN_ESC, cc_fmt("a compound assignment tammcc cannot spell at %s", w));
            } else {
                see(pi, CC_SEEN_READ, cc_fmt("'%s' at %s", op, w));
                see(pi, CC_SEEN_STORE, cc_fmt("'%s' at %s", op, w));
            }
        } else if (!*op) {
            see(pi, CC_SEEN_ESC, cc_fmt("an operator tammcc cannot spell at %s", w));
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
            analyze_derived(in, p, el, region, pi, depth, "a pointer into the block is taken");
        } else if (!*op) {
            see(pi, CC_SEEN_ESC, cc_fmt("an operator tammcc cannot spell at %s", w));
        } else {
            see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
        }
    } else if (p && (p->kind == CXCursor_ArraySubscriptExpr || p->kind == CXCursor_MemberRefExpr) && p->kid[0] == top) {
        analyze_elem(in, p, region, pi, depth, 1);
    } else if (p && (p->kind == CXCursor_GCCAsmStmt || p->kind == CXCursor_MSAsmStmt)) {
        see(pi, CC_SEEN_ESC, cc_fmt("used by an asm statement at %s", w));
    } else if (p && p->kind == CXCursor_UnaryExpr) {
        /* sizeof / _Alignof: no access */
    } else {
        /* C has no other context that modifies an arithmetic lvalue: the value is read */
        see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
    }
    free(w);
}

/* A use of lvalue n that holds the pointer (a variable, a struct field, an
 * array element of a local): re-pointing it is no access (its new value is
 * analysed where it comes from), ++/--/+= make the result a derived pointer,
 * & escapes, anything else uses the value. */
static void analyze_slot(cc_infer *in, cc_node *n, cc_node *region, ptr_info *pi, int depth, cc_node **moved)
{
    cc_node *top = up_parens(n);
    cc_node *p = top->parent;
    if (p && (p->kind == CXCursor_BinaryOperator || p->kind == CXCursor_CompoundAssignOperator) && p->kid[0] == top) {
        const char *op = cc_binop(in->a, p);
        if (!strcmp(op, "=")) {
            if (moved && !*moved) *moved = p;
            return;
        }
        if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
            if (moved && !*moved) *moved = p;
            analyze_derived(in, p, p, region, pi, depth, "the pointer is moved");
            return;
        }
        escape(pi, "the pointer is modified by an operator tammcc does not follow", p);
        return;
    }
    if (p && p->kind == CXCursor_UnaryOperator) {
        int post;
        const char *op = cc_unop(in->a, p, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--")) {
            if (moved && !*moved) *moved = p;
            analyze_derived(in, p, p, region, pi, depth, "the pointer is moved");
            return;
        }
        if (!strcmp(op, "&")) {
            escape(pi, "the address of the variable holding the pointer is taken", p);
            return;
        }
    }
    analyze_ptr(in, n, region, pi, depth);
}

/* The pointer is stored into the lvalue lhs (lhs = e): follow the variable it lands in. */
static void store_pointer(cc_infer *in, cc_node *lhs, cc_node *region, ptr_info *pi, int depth)
{
    cc_node *n = cc_down_wrappers(lhs);
    if (n->kind == CXCursor_DeclRefExpr) {
        CXCursor v = cc_referenced(n);
        if (auto_var(v) && canon_type(n).kind == CXType_Pointer) {
            ptr_info vr = analyze_var(in, v, region, depth);
            merge(pi, &vr);
            pi_free(&vr);
            return;
        }
        escape(pi, "the pointer is stored in a variable that is not a local", lhs);
        return;
    }
    /* s.f, s.a[k], a[k] with s / a a local aggregate (not through a pointer) */
    cc_node *b = n;
    for (;;) {
        if (b->kind == CXCursor_MemberRefExpr && b->nkid >= 1) {
            cc_node *base = cc_down_wrappers(b->kid[0]);
            if (canon_type(base).kind != CXType_Record) break; /* '->': through a pointer */
            b = base;
        } else if (b->kind == CXCursor_ArraySubscriptExpr && b->nkid == 2) {
            cc_node *base = cc_down_wrappers(b->kid[0]);
            if (!is_array_type(canon_type(base))) break; /* through a pointer */
            b = base;
        } else {
            break;
        }
    }
    if (b != n && b->kind == CXCursor_DeclRefExpr && auto_var(cc_referenced(b))) {
        ptr_info vr = analyze_carrier(in, cc_referenced(b), region, depth);
        merge(pi, &vr);
        pi_free(&vr);
        return;
    }
    escape(pi, "the pointer is stored into memory tammcc does not follow", lhs);
}

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
        runs = runs_with_region(in, p, region, NULL, &nl, 0, &rwhy);
        for (int i = 0; i < na && runs; i++)
            if (f->args[i] == CC_BA_DIM || f->args[i] == CC_BA_LD || f->args[i] == CC_BA_INC)
                args[i] = stable_text(in, p->kid[i + 1], region);
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
        if (seen & bit) see(pi, bit, cc_xstrdup(why));
    if (seen & CC_SEEN_ACC) { /* the routine adds in the element type of its parameter (s: float, d: double) */
        CXCursor fn = cc_referenced(p);
        CXCursor parm = clang_Cursor_getArgument(fn, (unsigned)k);
        pi->accty |= clang_Cursor_isNull(parm) ? (unsigned)CC_ACCTY_OTHER
                   : acc_type_bit(clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(parm))));
    }
    if (cov && !pi->cov) pi->cov = cov;
    else free(cov);
    if (nocov) no_cov(&pi->nocov, nocov);
    for (int i = 0; i < na; i++) free(args[i]);
    free(args);
    free(why);
    free(rwhy);
}

/* The pointer is argument k of call p (top: the argument's node). */
static void analyze_arg(cc_infer *in, cc_node *p, int k, cc_node *region, ptr_info *pi, int depth)
{
    CXCursor fn = cc_referenced(p);
    char *w = where(p->c);
    if (clang_Cursor_isNull(fn) || clang_getCursorKind(fn) != CXCursor_FunctionDecl) {
        see(pi, CC_SEEN_ESC, cc_fmt("passed to a call through a function pointer at %s", w));
        free(w);
        return;
    }
    char *fname = cc_spelling(fn);
    int dst, src, len;
    if (mem_builtin(fname, &dst, &src, &len) && p->nkid == 4) {
        if (k == src) {
            see(pi, CC_SEEN_READ, cc_fmt("source of %s at %s", fname, w));
        } else if (k == dst) {
            see(pi, CC_SEEN_STORE, cc_fmt("destination of %s at %s", fname, w));
            int nl = 0;
            char *why = NULL;
            char *bytes = runs_with_region(in, p, region, NULL, &nl, 0, &why) ? stable_text(in, p->kid[len + 1], region)
                                                                               : NULL;
            if (bytes && !pi->cov) pi->cov = cc_fmt("(size_t)(%s)", bytes);
            else if (!bytes) no_cov(&pi->nocov, why ? why : cc_fmt("the length of %s at %s is not known at submission",
                                                                   fname, w));
            else free(why);
            free(bytes);
            /* it returns its destination */
            analyze_derived(in, p, p, region, pi, depth, "the pointer returned by a mem function is used");
        } else {
            see(pi, CC_SEEN_ESC, cc_fmt("passed as the length of %s at %s", fname, w));
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
            analyze_derived(in, p, p, region, &r, depth, "the callee may return the pointer");
        int np = clang_Cursor_getNumArguments(fn);
        for (int i = 0; i < np; i++) {
            CXType pt = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));
            if (i != k && pt.kind == CXType_Pointer &&
                clang_getCanonicalType(clang_getPointeeType(pt)).kind == CXType_Pointer) {
                see(&r, CC_SEEN_ESC, cc_fmt("passed to a call at %s that may store it through a pointer to a "
                                            "pointer", w));
                break;
            }
        }
    }
    if (in->punned && (r.seen & CC_SEEN_ACC)) { /* the callee adds in another element type than the block's */
        see(&r, CC_SEEN_READ, cc_fmt("accumulation through a pointer to another element type at %s", w));
        see(&r, CC_SEEN_STORE, cc_fmt("accumulation through a pointer to another element type at %s", w));
    }
    if (r.seen & SEEN_RET) { /* the callee returns the pointer: the call's value is a use */
        r.seen &= ~(unsigned)SEEN_RET;
        analyze_derived(in, p, p, region, &r, depth, "the pointer is returned by a call");
    }
    if (r.cov) {
        /* the callee stores every element each time it runs: so must the call, and the coverage
         * is in terms of the callee's parameters: substitute the call's arguments */
        int nl = 0;
        char *why = NULL;
        char *cov = runs_with_region(in, p, region, NULL, &nl, 0, &why) ? subst_args(in, r.cov, fn, p, region, &why)
                                                                        : NULL;
        free(r.cov);
        r.cov = cov;
        if (why) { /* the callee's proof holds, the call's does not: that is the reason */
            free(r.nocov);
            r.nocov = why;
        }
    }
    merge(pi, &r);
    pi_free(&r);
    free(w);
}

/* An expression e whose value points into the block: classify its uses. */
static void analyze_ptr(cc_infer *in, cc_node *e, cc_node *region, ptr_info *pi, int depth)
{
    int punned = 0; /* conversions to another element type on the way up (undone at the end) */
    /* parentheses and conversions between pointer types keep the value */
    cc_node *top = e;
    while (top->parent && (top->parent->kind == CXCursor_ParenExpr || top->parent->kind == CXCursor_CStyleCastExpr ||
                           (top->parent->kind == CXCursor_UnexposedExpr && top->parent->nkid == 1)) &&
           is_ptr_type(canon_type(top->parent))) {
        if (pointee_changes(top, top->parent)) in->punned++, punned++;
        top = top->parent;
    }
    cc_node *p = top->parent;
    if (!p) {
        escape(pi, "the pointer's use is outside what tammcc analyses", top);
        goto out;
    }
    int ki = cc_kid_index(top);
    switch (p->kind) {
    case CXCursor_UnexposedExpr:
        /* an expression libclang does not expose: a conversion (one operand), or a GNU ?:,
         * __builtin_choose_expr, an atomic builtin... whose value may be the pointer and whose
         * effect on the data is unknown */
        if (p->nkid > 1 && is_ptr_type(canon_type(p))) {
            analyze_derived(in, p, top, region, pi, depth, "the pointer is an operand of an expression tammcc does "
                                                           "not see into");
            see(pi, CC_SEEN_ESC, cc_fmt("the pointer is an operand of an expression tammcc does not see into"));
            goto out;
        }
        escape(pi, "the pointer is an operand of an expression tammcc does not see into", p);
        goto out;
    case CXCursor_ParenExpr: case CXCursor_CStyleCastExpr:
        if (p->kind == CXCursor_CStyleCastExpr && canon_type(p).kind == CXType_Void) goto out; /* (void)p */
        escape(pi, "the pointer is converted to an integer", p);
        goto out;
    case CXCursor_CompoundStmt:
        /* the last statement of a GNU statement expression ({ ...; p; }) is its value */
        if (p->parent && p->parent->kind == CXCursor_StmtExpr && ki == p->nkid - 1) {
            analyze_derived(in, p->parent, top, region, pi, depth, "the pointer is the value of a ({ ... })");
            goto out;
        }
        goto out; /* a discarded value */
    case CXCursor_ConditionalOperator:
        if (ki == 0) goto out; /* a null test */
        analyze_derived(in, p, top, region, pi, depth, "the pointer is a branch of the '?:'");
        goto out;
    case CXCursor_ArraySubscriptExpr:
        /* p[i], or i[p] (C allows both) */
        analyze_elem(in, p, region, pi, depth, ki != 0);
        goto out;
    case CXCursor_MemberRefExpr:
        if (ki == 0) {
            analyze_elem(in, p, region, pi, depth, 1);
            goto out;
        }
        break;
    case CXCursor_UnaryOperator: {
        int post;
        const char *op = cc_unop(in->a, p, &post);
        if (!strcmp(op, "*")) analyze_elem(in, p, region, pi, depth, 1);
        else if (!strcmp(op, "!")) { /* a null test */ }
        else escape(pi, *op ? "an operator tammcc does not follow is applied to the pointer"
                            : "an operator tammcc cannot spell is applied to the pointer", p);
        goto out;
    }
    case CXCursor_BinaryOperator: {
        const char *op = cc_binop(in->a, p);
        int ptr_result = is_ptr_type(canon_type(p));
        if ((!strcmp(op, "+") || !strcmp(op, "-")) && ptr_result) {
            analyze_derived(in, p, top, region, pi, depth, "an offset pointer is made");
        } else if (!strcmp(op, "-") && p->nkid == 2 && is_ptr_type(canon_type(p->kid[0])) &&
                   is_ptr_type(canon_type(p->kid[1]))) {
            /* a difference of pointers: no data access */
        } else if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, ">") ||
                   !strcmp(op, "<=") || !strcmp(op, ">=") || !strcmp(op, "&&") || !strcmp(op, "||")) {
            /* compares or tests pointers: no data access */
        } else if (!strcmp(op, ",")) {
            if (ki == 1) analyze_derived(in, p, top, region, pi, depth, "the pointer is the value of a ','");
        } else if (!strcmp(op, "=") && ki == 1) {
            store_pointer(in, p->kid[0], region, pi, depth);
            analyze_derived(in, p, top, region, pi, depth, "the value of an assignment is used");
        } else {
            escape(pi, *op ? "the pointer is used with an operator tammcc does not follow"
                           : "the pointer is used with an operator tammcc cannot spell", p);
        }
        goto out;
    }
    case CXCursor_CallExpr:
        if (ki >= 1) {
            analyze_arg(in, p, ki - 1, region, pi, depth);
            goto out;
        }
        break;
    case CXCursor_VarDecl:
        if (auto_var(p->c) && canon_type(p).kind == CXType_Pointer) {
            ptr_info v = analyze_var(in, p->c, region, depth);
            merge(pi, &v);
            pi_free(&v);
        } else {
            escape(pi, "the pointer initialises a variable that is not a local pointer", p);
        }
        goto out;
    case CXCursor_InitListExpr: {
        /* { ..., p, ... } initialising a local struct or array: follow that variable */
        cc_node *d = p;
        while (d && (d->kind == CXCursor_InitListExpr || d->kind == CXCursor_UnexposedExpr ||
                     d->kind == CXCursor_ParenExpr))
            d = d->parent;
        if (d && d->kind == CXCursor_VarDecl && auto_var(d->c)) {
            ptr_info v = analyze_carrier(in, d->c, region, depth);
            merge(pi, &v);
            pi_free(&v);
        } else {
            escape(pi, "the pointer is part of an initialiser tammcc does not follow", p);
        }
        goto out;
    }
    case CXCursor_ReturnStmt:
        if (region->kind == CXCursor_FunctionDecl) {
            char *w = where(p->c);
            see(pi, SEEN_RET, cc_fmt("returned at %s", w));
            free(w);
        } else {
            escape(pi, "the pointer is returned", p);
        }
        goto out;
    case CXCursor_IfStmt: case CXCursor_WhileStmt: case CXCursor_DoStmt: case CXCursor_ForStmt:
        goto out; /* a condition (a null test) or a discarded value */
    case CXCursor_UnaryExpr:
        goto out; /* sizeof */
    default:
        break;
    }
    escape(pi, "the pointer escapes", top);
out:
    in->punned -= punned;
}

/* Is var's use analysis under way further up?  Then its uses are counted there,
 * and every callee analysis started since is incomplete (not memoised). */
static int var_busy(cc_infer *in, CXCursor var)
{
    CXCursor c = clang_getCanonicalCursor(var);
    for (int i = 0; i < in->nbusyv; i++)
        if (clang_equalCursors(in->busyv[i], c)) {
            for (int j = in->busydepth[i]; j < in->nmstack; j++) in->m[in->mstack[j]].partial = 1;
            return 1;
        }
    return 0;
}

static void var_push(cc_infer *in, CXCursor var)
{
    CC_GROW(in->busyv, in->busyv_cap, in->nbusyv + 1);
    CC_GROW(in->busydepth, in->busydepth_cap, in->nbusyv + 1);
    in->busydepth[in->nbusyv] = in->nmstack;
    in->busyv[in->nbusyv++] = clang_getCanonicalCursor(var);
}

typedef struct { CXCursor var; cc_node **hits; int n; size_t cap; } ref_find;
static int find_refs(cc_node *n, void *arg)
{
    ref_find *rf = arg;
    if (n->kind == CXCursor_DeclRefExpr && refers_to(n, rf->var)) {
        CC_GROW(rf->hits, rf->cap, rf->n + 1);
        rf->hits[rf->n++] = n;
    }
    return 1;
}

/* All uses of pointer variable var inside region (a variable whose uses are
 * already being analysed further up contributes nothing more). */
static ptr_info analyze_var(cc_infer *in, CXCursor var, cc_node *region, int depth)
{
    ptr_info r = { 0 };
    if (var_busy(in, var)) return r;
    var_push(in, var);
    ref_find rf = { var, NULL, 0, 0 };
    cc_walk(region, find_refs, &rf);
    cc_node *moved = NULL; /* where the variable is re-pointed: later uses may be elsewhere in the block */
    for (int i = 0; i < rf.n; i++) analyze_slot(in, rf.hits[i], region, &r, depth, &moved);
    if (moved && r.cov) {
        char *w = where(moved->c);
        free(r.cov);
        r.cov = NULL;
        free(r.nocov);
        r.nocov = cc_fmt("the pointer variable is re-pointed at %s", w);
        free(w);
    }
    free(rf.hits);
    in->nbusyv--;
    return r;
}

/* A local struct or array var holds the pointer somewhere: every pointer-typed
 * field or element reached from var (s.p, a[k], s.a[k].p) counts as the
 * pointer; var used whole (copied, passed, its address taken) escapes. */
static ptr_info analyze_carrier(cc_infer *in, CXCursor var, cc_node *region, int depth)
{
    ptr_info r = { 0 };
    if (var_busy(in, var)) return r;
    var_push(in, var);
    ref_find rf = { var, NULL, 0, 0 };
    cc_walk(region, find_refs, &rf);
    for (int i = 0; i < rf.n; i++) {
        cc_node *cur = rf.hits[i];
        for (;;) {
            CXType t = canon_type(cur);
            if (t.kind == CXType_Pointer) {
                analyze_slot(in, cur, region, &r, depth, NULL);
                break;
            }
            if (t.kind == CXType_Record && clang_getCursorKind(clang_getTypeDeclaration(t)) == CXCursor_UnionDecl) {
                escape(&r, "the pointer is kept in a union, whose other members read it as another type", cur);
                break;
            }
            if (t.kind != CXType_Record && !is_array_type(t)) break; /* a field that holds no pointer */
            cc_node *top = cur;
            while (top->parent && (top->parent->kind == CXCursor_ParenExpr || top->parent->kind == CXCursor_UnexposedExpr))
                top = top->parent;
            cc_node *p = top->parent;
            if (p && p->kind == CXCursor_MemberRefExpr && p->kid[0] == top && t.kind == CXType_Record) {
                cur = p;
            } else if (p && p->kind == CXCursor_ArraySubscriptExpr && p->kid[0] == top && is_array_type(t)) {
                cur = p;
            } else if (p && p->kind == CXCursor_UnaryExpr) {
                break; /* sizeof */
            } else if (p && p->kind == CXCursor_VarDecl && cur == rf.hits[i] && clang_equalCursors(p->c, var)) {
                break; /* the declaration's own name (not a use) */
            } else {
                escape(&r, "the variable holding the pointer is used as a whole", cur);
                break;
            }
        }
    }
    free(rf.hits);
    in->nbusyv--;
    if (r.cov) { /* the slots may be moved or re-pointed: no write proof through an aggregate */
        free(r.cov);
        r.cov = NULL;
        free(r.nocov);
        r.nocov = cc_fmt("the pointer is kept in a struct or an array");
    }
    return r;
}

/* ---------------------------------------------------------------- indices read at submission
 * A block requested at submission has its indices evaluated there; the body
 * sees the value they have where it names the block.  Besides the variables the
 * body assigns (cc_varies_in), an index may read memory the body changes
 * before: a global (a call in the body may write it), anything through a
 * pointer, an element of a local array the body writes.  Such a block is
 * fetched in the body instead. */
typedef struct { cc_infer *in; CXCursor arr; int hit; } arr_write;
static int find_arr_write(cc_node *n, void *arg)
{
    arr_write *aw = arg;
    cc_node *lv = NULL;
    if ((n->kind == CXCursor_BinaryOperator && !strcmp(cc_binop(aw->in->a, n), "=")) ||
        n->kind == CXCursor_CompoundAssignOperator)
        lv = n->nkid ? n->kid[0] : NULL;
    else if (n->kind == CXCursor_UnaryOperator && n->nkid) {
        int post;
        const char *op = cc_unop(aw->in->a, n, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, "&") || !*op) lv = n->kid[0];
    } else if (n->kind == CXCursor_DeclRefExpr && refers_to(n, aw->arr)) {
        /* the array used as a pointer (passed to a call, stored) may be written through */
        cc_node *top = cc_up_wrappers(n);
        if (!top->parent || top->parent->kind != CXCursor_ArraySubscriptExpr || top->parent->kid[0] != top) aw->hit = 1;
    }
    while (lv) {
        lv = cc_down_wrappers(lv);
        if (lv->kind == CXCursor_ArraySubscriptExpr || lv->kind == CXCursor_MemberRefExpr) lv = lv->nkid ? lv->kid[0] : NULL;
        else break;
    }
    if (lv && lv->kind == CXCursor_DeclRefExpr && refers_to(lv, aw->arr)) aw->hit = 1;
    return !aw->hit;
}

typedef struct { cc_infer *in; const cc_task *t; const char *why; } idx_ctx;
static int index_visit(cc_node *n, void *arg)
{
    idx_ctx *c = arg;
    if (c->why) return 0;
    switch (n->kind) {
    case CXCursor_DeclRefExpr: {
        CXCursor d = cc_referenced(n);
        enum CXCursorKind dk = clang_getCursorKind(d);
        if (dk == CXCursor_VarDecl && !auto_var(d) &&
            !clang_isConstQualifiedType(clang_getCursorType(d)))
            c->why = "a global or static variable, which a call in the body may change";
        break;
    }
    case CXCursor_UnaryOperator: {
        int post;
        const char *op = cc_unop(c->in->a, n, &post);
        if (!strcmp(op, "*") || !*op) c->why = "memory read through a pointer, which the body may change";
        break;
    }
    case CXCursor_MemberRefExpr:
        if (n->nkid && canon_type(cc_down_wrappers(n->kid[0])).kind == CXType_Pointer)
            c->why = "memory read through a pointer, which the body may change";
        break;
    case CXCursor_ArraySubscriptExpr: {
        cc_node *base = n->nkid ? cc_down_wrappers(n->kid[0]) : NULL;
        if (!base || !is_array_type(canon_type(base)) || base->kind != CXCursor_DeclRefExpr) {
            c->why = "memory read through a pointer, which the body may change";
        } else {
            arr_write aw = { c->in, cc_referenced(base), 0 };
            cc_walk(c->t->stmt, find_arr_write, &aw);
            if (aw.hit) c->why = "an element of an array that the body writes";
        }
        break;
    }
    case CXCursor_CallExpr: {
        char *f = cc_spelling(cc_referenced(n));
        int pure = 0;
        for (size_t i = 0; i < sizeof pure_queries / sizeof *pure_queries; i++) pure |= !strcmp(f, pure_queries[i]);
        free(f);
        if (!pure) c->why = "a call, whose result may differ in the body";
        break;
    }
    default:
        break;
    }
    return !c->why;
}

/* Why the indices of tamm_block call `call` may differ between the submission
 * and the body's use, or NULL. */
static const char *index_unstable(cc_infer *in, const cc_task *t, cc_node *call)
{
    cc_node *lit = NULL; /* the index list: TAMM__IDX's compound literal */
    for (int k = 2; k < call->nkid && !lit; k++) lit = call->kid[k];
    cc_node *list = lit;
    while (list && list->kind != CXCursor_InitListExpr) list = list->nkid ? list->kid[list->nkid - 1] : NULL;
    if (!list) return "indices tammcc cannot see";
    idx_ctx c = { in, t, NULL };
    cc_walk(list, index_visit, &c);
    return c.why;
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
    CC_GROW(t->acc, t->acc_cap, t->nacc + 1);
    cc_access *a = &t->acc[t->nacc];
    memset(a, 0, sizeof *a);
    a->key = key;
    a->tensor = cc_collapse(tensor);
    a->nidx = nidx;
    for (int d = 0; d < nidx; d++) a->idx[d] = idx[d] ? cc_collapse(idx[d]) : NULL;
    a->off = off;
    return t->nacc++;
}

static char *squeezed(const char *s, size_t n);

/* Does one of t's clauses (read, write, readwrite, accum, cwrite, permission,
 * range clauses included) name the block tensor[idx[0]]...[idx[nidx-1]] with
 * every index that is not known at submission as ':' or a range?  Then the
 * user has declared what the block may be, and the warning that it is fetched
 * synchronously says nothing new.  An index is known at submission when it
 * does not vary in the body (varies[d] == 0) and the use reads no memory the
 * body may change (unstable == 0); a clause index covers it then also by
 * naming the same text. */
int cc_clause_covers(const cc_task *t, const char *tensor, char *const *idx, int nidx, const int *varies, int unstable)
{
    char *tn = squeezed(tensor, strlen(tensor));
    int yes = 0;
    for (int i = 0; i < t->pr->nrefs && !yes; i++) {
        const cc_ref *r = &t->pr->refs[i];
        char *rn = squeezed(r->tensor.s, strlen(r->tensor.s));
        int same = !strcmp(rn, tn);
        free(rn);
        if (!same || (r->nidx != 0 && r->nidx != nidx)) continue;
        int ok = 1;
        for (int d = 0; d < r->nidx && ok; d++) {
            const char *ci = r->idx[d].s;
            if (!ci || cc_range_split(ci, NULL, NULL)) continue; /* ':' or lo:hi */
            if (!idx[d] || (varies && varies[d]) || unstable) { ok = 0; continue; }
            char *a = squeezed(ci, strlen(ci)), *b = squeezed(idx[d], strlen(idx[d]));
            ok = !strcmp(a, b);
            free(a);
            free(b);
        }
        yes = ok;
    }
    free(tn);
    return yes;
}

/* The number of dimensions of the tensor that tamm_block's first argument
 * (call->kid[1]) names, when the program fixes it at compile time: a local
 * variable of the enclosing function, initialised by tamm_tensor_create or
 * tamm_tensor_create_ex with a constant rank, never assigned and its address
 * never taken in that function.  Else 0.  *line: the creation's line. */
typedef struct { CXCursor call; int found; } create_find;
static enum CXChildVisitResult find_create(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    create_find *f = d;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        f->call = c;
        f->found = 1;
        return CXChildVisit_Break;
    }
    return clang_getCursorKind(c) == CXCursor_UnexposedExpr || clang_getCursorKind(c) == CXCursor_ParenExpr
               ? CXChildVisit_Recurse : CXChildVisit_Continue;
}

static int known_rank(cc_infer *in, cc_node *call, unsigned *line, char **name)
{
    if (call->nkid < 2) return 0;
    cc_node *e = cc_down_wrappers(call->kid[1]);
    if (e->kind != CXCursor_DeclRefExpr) return 0;
    CXCursor var = clang_getCanonicalCursor(cc_referenced(e));
    if (clang_getCursorKind(var) != CXCursor_VarDecl ||
        clang_getCursorKind(clang_getCursorSemanticParent(var)) != CXCursor_FunctionDecl ||
        clang_Cursor_getStorageClass(var) == CX_SC_Static || clang_Cursor_getStorageClass(var) == CX_SC_Extern)
        return 0;
    cc_node *fn = call;
    while (fn && fn->kind != CXCursor_FunctionDecl) fn = fn->parent;
    if (!fn || touches(in, fn, var, 0)) return 0;
    create_find f = { clang_getNullCursor(), 0 };
    clang_visitChildren(var, find_create, &f);
    if (!f.found || clang_Cursor_getNumArguments(f.call) < 5) return 0;
    char *callee = cc_spelling(clang_getCursorReferenced(f.call));
    int create = !strcmp(callee, "tamm_tensor_create") || !strcmp(callee, "tamm_tensor_create_ex");
    free(callee);
    if (!create) return 0;
    CXEvalResult r = clang_Cursor_Evaluate(clang_Cursor_getArgument(f.call, 2));
    if (!r) return 0;
    int rank = clang_EvalResult_getKind(r) == CXEval_Int ? clang_EvalResult_getAsInt(r) : 0;
    clang_EvalResult_dispose(r);
    if (rank < 1 || rank > CC_MAX_DIMS) return 0;
    unsigned l = 0;
    clang_getExpansionLocation(clang_getCursorLocation(f.call), NULL, &l, NULL, NULL);
    *line = l;
    *name = NULL; /* the creation name, when it is a string literal */
    CXEvalResult nr = clang_Cursor_Evaluate(clang_Cursor_getArgument(f.call, 0));
    if (nr) {
        if (clang_EvalResult_getKind(nr) == CXEval_StrLiteral) *name = cc_xstrdup(clang_EvalResult_getAsStr(nr));
        clang_EvalResult_dispose(nr);
    }
    return rank;
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
    unsigned cline = 0;
    char *cname = NULL;
    int rank = known_rank(in, n, &cline, &cname);
    if (rank && rank != nargs - 1) {
        /* the runtime would refuse the task's ref at submission: say it now */
        char *call = NULL;
        for (int i = 0; i < nargs; i++) {
            char *a = cc_collapse(args[i]);
            char *c2 = call ? cc_fmt("%s, %s", call, a) : cc_fmt("tamm_block(%s", a);
            free(a);
            free(call);
            call = c2;
        }
        char *tn = cc_collapse(args[0]);
        char *cn = cname ? cc_fmt("'%s', ", cname) : cc_xstrdup("");
        cc_diag(in->src, n->b, CC_ERROR, "%s) gives %d ind%s, but the tensor %s (%screated at line %u) has %d "
                                        "dimensions: give one index per dimension", call, nargs - 1,
                nargs == 2 ? "ex" : "ices", tn, cn, cline, rank);
        free(cn);
        free(tn);
        free(cname);
        free(call);
        for (int i = 0; i < nargs; i++) free(args[i]);
        return 1;
    }
    free(cname);
    char *idx[CC_MAX_DIMS];
    for (int i = 1; i < nargs; i++) idx[i - 1] = cc_collapse(args[i]);
    int ai = add_access(t, args[0], idx, nargs - 1, n->b);
    cc_access *a = &t->acc[ai];
    a->own = 1;
    if (cc_varies_in(in, t, args[0])) {
        /* the permission would name the variable's value at submission, the body another tensor */
        cc_diag(in->src, n->b, CC_ERROR, "the tensor expression '%s' names a variable declared or assigned inside the "
                                        "task, so its blocks cannot be requested at submission; name the tensor "
                                        "through a variable of the enclosing function", args[0]);
        for (int i = 0; i < nargs; i++) free(args[i]);
        for (int i = 1; i < nargs; i++) free(idx[i - 1]);
        return 1;
    }
    int dyn = 0, varies[CC_MAX_DIMS] = { 0 };
    for (int i = 1; i < nargs; i++) dyn |= varies[i - 1] = cc_varies_in(in, t, args[i]);
    const char *unstable = dyn ? NULL : index_unstable(in, t, n);
    /* no warning where a clause declares the block (issue 17) */
    int declared = (unstable || dyn) && cc_clause_covers(t, args[0], args + 1, nargs - 1, varies, unstable != NULL);
    if (unstable) {
        a->fetched = 0;
        a->wide = 1; /* its indices are not known at submission: the permission covers the whole tensor */
        if (!declared)
            cc_diag(in->src, n->b, CC_WARNING, "block %s has an index that reads %s: it is fetched synchronously when "
                                              "the body names it (the task's permission covers the whole tensor)",
                    a->key, unstable);
    } else if (dyn) {
        a->fetched = 0;
        if (!declared)
            cc_diag(in->src, n->b, CC_WARNING, "block %s has indices that vary inside the task: it cannot be requested "
                                              "at submission and is fetched synchronously (the task's permission "
                                              "covers it as a slice)", a->key);
    } else if (a->seen == 0 && !a->fetched) {
        a->fetched = 1;
    }
    cc_guard_note_use(in, in->a, t, a, n); /* the branches that lead to this use */
    ptr_info pi = { 0 };
    analyze_ptr(in, n, t->stmt, &pi, 0);
    a->seen |= pi.seen;
    a->accty |= pi.accty;
    if (pi.cov && !a->cov) {
        /* the coverage must be computable at submission */
        if (!cc_varies_in(in, t, pi.cov)) a->cov = cc_xstrdup(pi.cov);
        else if (!a->nocov) a->nocov = cc_fmt("the extent stored, %s bytes, depends on variables of the task body", pi.cov);
    } else if (!pi.cov && pi.nocov && !a->nocov) {
        a->nocov = cc_xstrdup(pi.nocov);
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
        char *both = a->why ? cc_fmt("%s; %s", a->why, w) : cc_xstrdup(w);
        free(a->why);
        a->why = both;
    }
    pi_free(&pi);
    CC_GROW(t->use, t->use_cap, t->nuse + 1);
    t->use[t->nuse].b = n->b;
    t->use[t->nuse].e = end;
    t->use[t->nuse].acc = ai;
    t->use[t->nuse].src = cc_xstrdup(a->key);
    t->nuse++;
    for (int i = 0; i < nargs; i++) free(args[i]);
    for (int i = 1; i < nargs; i++) free(idx[i - 1]);
    return 1;
}

/* Why accumulations through these element types (CC_ACCTY_*) cannot be summed as one
 * tensor's dtype, or NULL when they can (one dtype, or none known). */
static const char *accty_conflict(unsigned t)
{
    if (t & CC_ACCTY_OTHER) return "through an element type that no tensor dtype has (float, double, int32_t, int64_t)";
    if (t & (t - 1)) return "through pointers to more than one element type";
    return NULL;
}

/* The tensor dtype name of a single CC_ACCTY_* bit. */
static const char *accty_name(unsigned t)
{
    return t == CC_ACCTY_F32 ? "F32" : t == CC_ACCTY_F64 ? "F64" : t == CC_ACCTY_I32 ? "I32" : "I64";
}

static unsigned mode_of(const cc_access *a)
{
    unsigned s = a->seen;
    if (s & CC_SEEN_ESC) return CC_RW;
    if ((s & CC_SEEN_READ) && (s & (CC_SEEN_STORE | CC_SEEN_ACC))) return CC_RW;
    if ((s & CC_SEEN_STORE) && (s & CC_SEEN_ACC)) return CC_RW;
    if (s & CC_SEEN_STORE) return a->cov ? CC_WRITE : CC_RW;
    if (s & CC_SEEN_ACC) return accty_conflict(a->accty) ? CC_RW : CC_ACCUM;
    return CC_READ;
}

int cc_infer_body(cc_infer *in, cc_task *t)
{
    int e0 = cc_error_count();
    body_ctx bc = { in, t, 0 };
    cc_walk(t->stmt, body_visit, &bc);
    cc_guard_settle(in->src, t); /* guarded uses: requested if the guard holds, or fetched in the body */
    for (int i = 0; i < t->nacc; i++) {
        cc_access *a = &t->acc[i];
        a->mode = mode_of(a);
        if ((a->seen & CC_SEEN_ACC) && a->mode == CC_RW && accty_conflict(a->accty) &&
            !(a->seen & (CC_SEEN_READ | CC_SEEN_STORE | CC_SEEN_ESC))) {
            /* the runtime sums contributions in the tensor's dtype: added as another type, they are not */
            char *w = cc_fmt("%s: added to %s, which the runtime cannot sum in the tensor's dtype",
                             a->why ? a->why : "'+='", accty_conflict(a->accty));
            free(a->why);
            a->why = w;
        }
        if (a->mode == CC_WRITE && t->nwait) {
            /* each continuation gets the block again in the task's mode: a proof that the body stores
             * every element covers one segment of it, not the next one's */
            char *w = cc_fmt("%s; but the task has a taskwait, and a continuation gets the block again: so readwrite",
                             a->why ? a->why : "stored to");
            free(a->why);
            a->why = w;
            a->mode = CC_RW;
            free(a->cov);
            a->cov = NULL;
        }
        if (a->seen & CC_SEEN_STORE && !(a->seen & ~(unsigned)CC_SEEN_STORE) && !a->cov) {
            char *w = cc_fmt("%s; not every element is provably stored: %s; so readwrite", a->why ? a->why : "stored to",
                             a->nocov ? a->nocov : "no canonical loop nest over the block");
            free(a->why);
            a->why = w;
        }
        if (!a->why) a->why = cc_xstrdup("the pointer is not dereferenced");
        if (!a->fetched) {
            /* widen: indices that vary in the body become ':' */
            for (int d = 0; d < a->nidx; d++)
                if (a->idx[d] && (a->wide || cc_varies_in(in, t, a->idx[d]))) { free(a->idx[d]); a->idx[d] = NULL; }
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
            x->accty |= y->accty;
            unsigned m = (x->mode | y->mode) & 7u;
            x->mode = (m & CC_READ) && (m & CC_ACCUM) ? CC_RW : m;
            cc_guard_merge(x, y);
            /* uses of y now refer to x */
            for (int k = 0; k < t->nuse; k++)
                if (t->use[k].acc == j) t->use[k].acc = i;
                else if (t->use[k].acc > j) t->use[k].acc--;
            free(y->key); free(y->tensor); free(y->cov); free(y->nocov); free(y->why); free(y->guard); free(y->sync);
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

int cc_infer_add_perm(cc_infer *in, cc_task *t, const char *tensor, unsigned mode, const char *why)
{
    return cc_infer_add_slice_perm(in, t, tensor, 0, NULL, mode, why);
}

int cc_infer_add_slice_perm(cc_infer *in, cc_task *t, const char *tensor, int nidx, char **idx, unsigned mode,
                            const char *why)
{
    (void)in;
    char *tk = cc_collapse(tensor);
    for (int i = 0; i < t->pr->nrefs; i++) { /* a clause naming the tensor wins: the runtime checks the children */
        char *rk = cc_collapse(t->pr->refs[i].tensor.s);
        int same = !strcmp(rk, tk);
        free(rk);
        if (same) {
            free(tk);
            return 0;
        }
    }
    free(tk);
    int before = t->nacc;
    int ai = add_access(t, tensor, idx, nidx, t->pr->off);
    cc_access *a = &t->acc[ai];
    unsigned cm = mode & 7u;
    if (ai >= before) {
        a->mode = CC_PERMONLY | cm;
        a->why = cc_xstrdup(why);
        for (int d = 0; d < nidx; d++) /* a range: emitted clamped to the dimension (tamm_cc_range) */
            if (idx[d] && cc_range_split(idx[d], NULL, NULL)) a->loop_range |= 1u << d;
        return 1;
    }
    if (within(cm, a->mode & 7u)) return 0;
    unsigned nm = (a->mode | cm) & 7u;
    if ((nm & CC_READ) && (nm & CC_ACCUM)) nm = CC_RW;
    if ((nm & CC_WRITE) && !(nm & CC_READ) && a->own) nm = CC_RW;
    a->mode = (a->mode & ~7u) | nm;
    char *w = cc_fmt("%s; widened to %s: %s", a->why ? a->why : "", perm_word(nm), why);
    free(a->why);
    a->why = w;
    return 1;
}

/* ---- ranges: is a child's index provably within a parent's range? ---- */
/* the whitespace-free copy of s[0, n) (how keys compare texts) */
static char *squeezed(const char *s, size_t n)
{
    char *o = cc_xmalloc(n + 1), *q = o;
    for (size_t i = 0; i < n && s[i]; i++)
        if (!isspace((unsigned char)s[i])) *q++ = s[i];
    *q = 0;
    return o;
}

/* a decimal, octal or hex integer constant, nothing else */
static int int_const(const char *s, long *v)
{
    if (!isdigit((unsigned char)*s)) return 0;
    char *e;
    errno = 0;
    *v = strtol(s, &e, 0);
    return !errno && *e == 0;
}

/* a <= b, provably: equal texts or integer constants */
static int le_text(const char *a, const char *b)
{
    long x, y;
    return !strcmp(a, b) || (int_const(a, &x) && int_const(b, &y) && x <= y);
}

/* The bounds of index text s: a range "lo:hi" gives lo, hi (*range = 1), a
 * block i gives i, NULL (*range = 0); squeezed, caller frees both. */
static void index_bounds(const char *s, char **lo, char **hi, int *range)
{
    size_t le, hb;
    *range = cc_range_split(s, &le, &hb);
    *lo = squeezed(s, *range ? le : strlen(s));
    *hi = *range ? squeezed(s + hb, strlen(s + hb)) : NULL;
}

/* Does parent index p (NULL: ':') provably hold every block of child index c
 * (NULL: ':')?  A block i lies in lo:hi when i is lo or lo <= i < hi as
 * integers (the runtime has checked lo < hi at the parent's submission); a
 * range clo:chi when lo <= clo and chi <= hi, each by equal texts or as
 * integers. */
static int index_within(const char *p, const char *c)
{
    if (!p) return 1;
    if (!c) return 0;
    char *plo, *phi, *clo, *chi;
    int pr, cr;
    index_bounds(p, &plo, &phi, &pr);
    index_bounds(c, &clo, &chi, &cr);
    int ok;
    long x, l, h;
    if (!pr) ok = !cr && !strcmp(plo, clo);
    else if (cr) ok = le_text(plo, clo) && le_text(chi, phi);
    else ok = !strcmp(plo, clo) || (int_const(clo, &x) && int_const(plo, &l) && int_const(phi, &h) && l <= x && x < h);
    free(plo); free(phi); free(clo); free(chi);
    return ok;
}

/* Does access a name what one of t's clauses names (access or permission)? */
static int from_clause(const cc_task *t, const cc_access *a)
{
    int yes = 0;
    for (int i = 0; i < t->pr->nrefs && !yes; i++) {
        char *k = cc_ref_text(&t->pr->refs[i]);
        yes = !strcmp(k, a->key);
        free(k);
    }
    return yes;
}

/* The first access of t with a range index on tensor text `tensor` that
 * holds the blocks (idx, nidx), or -1: provably (index_within), or, for an
 * index widened to ':' because it varies in t's body (widened[d]), when the
 * access comes from one of t's clauses and names a range there: the user
 * declared that range, and the runtime checks every block the body or a
 * child uses against it. */
static int covering_range(const cc_task *t, const char *tensor, char **idx, const int *widened, int nidx)
{
    char *tn = squeezed(tensor, strlen(tensor));
    int found = -1;
    for (int k = 0; k < 2 * t->nacc && found < 0; k++) { /* clause accesses first: they decide */
        const cc_access *a = &t->acc[k % t->nacc];
        if (a->nidx != nidx || nidx == 0 || !a->explicit_mode != (k >= t->nacc)) continue;
        int any_range = 0, ok = 1;
        for (int d = 0; d < nidx && ok; d++) {
            int range = a->idx[d] && cc_range_split(a->idx[d], NULL, NULL);
            if (range) any_range = 1;
            ok = index_within(a->idx[d], idx[d]) || (!idx[d] && widened && widened[d] && range && from_clause(t, a));
        }
        if (!any_range || !ok) continue;
        char *an = squeezed(a->tensor, strlen(a->tensor));
        if (!strcmp(an, tn)) found = k % t->nacc;
        free(an);
    }
    free(tn);
    return found;
}

/* The access of t whose key is that of (tensor, idx, nidx), or -1. */
static int find_access(const cc_task *t, const char *tensor, char **idx, int nidx)
{
    cc_ref r;
    memset(&r, 0, sizeof r);
    r.tensor.s = (char *)tensor;
    r.nidx = nidx;
    for (int d = 0; d < nidx; d++) r.idx[d].s = idx[d];
    char *key = cc_ref_text(&r);
    int found = -1;
    for (int i = 0; i < t->nacc && found < 0; i++)
        if (!strcmp(t->acc[i].key, key)) found = i;
    free(key);
    return found;
}

/* ---- the tightest range of a loop variable, computable at submission ---- */
typedef struct { const char *name; int n; } decl_count;
static int count_decls(cc_node *n, void *arg)
{
    decl_count *c = arg;
    if (n->kind == CXCursor_VarDecl) {
        char *nm = cc_spelling(n->c);
        c->n += !strcmp(nm, c->name);
        free(nm);
    }
    return 1;
}

/* f is `for (j = lo; j < hi; j++)` (or `long j = lo`, `++j`, `j += 1`) whose
 * body changes j nowhere, in t's body, which takes j's address nowhere: j,
 * and lo, hi as texts stable in t's body (so computed at t's submission, see
 * stable_text).  Returns "lo:hi" (caller frees), or NULL. */
static char *loop_range_of(cc_infer *in, const cc_task *t, cc_node *f, const char *name)
{
    if (f->kind != CXCursor_ForStmt || f->nkid != 4) return NULL;
    cc_node *init = f->kid[0], *cond = f->kid[1], *inc = f->kid[2], *body = f->kid[3], *lo;
    CXCursor v;
    if (init->kind == CXCursor_DeclStmt && init->nkid == 1 && init->kid[0]->kind == CXCursor_VarDecl &&
        init->kid[0]->nkid >= 1) {
        v = init->kid[0]->c;
        lo = init->kid[0]->kid[init->kid[0]->nkid - 1];
    } else if (init->kind == CXCursor_BinaryOperator && init->nkid == 2 && !strcmp(cc_binop(in->a, init), "=") &&
               lvalue_var(init->kid[0])) {
        v = cc_referenced(lvalue_var(init->kid[0]));
        lo = init->kid[1];
    } else {
        return NULL;
    }
    v = clang_getCanonicalCursor(v);
    char *vn = cc_spelling(v);
    int same = !strcmp(vn, name);
    free(vn);
    if (!same || cond->kind != CXCursor_BinaryOperator || cond->nkid != 2 || strcmp(cc_binop(in->a, cond), "<") ||
        !refers_to(cond->kid[0], v))
        return NULL;
    int post;
    if (inc->kind == CXCursor_UnaryOperator) {
        if (strcmp(cc_unop(in->a, inc, &post), "++") || !refers_to(inc->kid[0], v)) return NULL;
    } else if (inc->kind == CXCursor_CompoundAssignOperator && inc->nkid == 2) {
        char *rhs = node_text(in, inc->kid[1]);
        int one = !strcmp(cc_binop(in->a, inc), "+=") && refers_to(inc->kid[0], v) && !strcmp(rhs, "1");
        free(rhs);
        if (!one) return NULL;
    } else {
        return NULL;
    }
    decl_count dc = { name, 0 }; /* no other j in the body may shadow it */
    cc_walk(body, count_decls, &dc);
    if (dc.n || touches(in, body, v, 0) || touches(in, t->stmt, v, 1)) return NULL;
    char *l = stable_text(in, lo, t->stmt), *h = stable_text(in, cond->kid[1], t->stmt), *r = NULL;
    if (l && h) r = cc_fmt("%s:%s", l, h);
    free(l);
    free(h);
    return r;
}

/* The range "lo:hi" of the loop of t's body whose variable is the index text
 * idx of child c (innermost first), or NULL. */
static char *child_loop_range(cc_infer *in, const cc_task *t, const cc_task *c, const char *idx)
{
    char *name = squeezed(idx, strlen(idx));
    char *r = NULL;
    int ident = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (const char *q = name; *q && ident; q++) ident = isalnum((unsigned char)*q) || *q == '_';
    for (cc_node *n = c->stmt; ident && !r && n && n != t->stmt && n->parent; n = n->parent)
        if (n->parent->kind == CXCursor_ForStmt && n->parent->nkid == 4 && n->parent->kid[3] == n)
            r = loop_range_of(in, t, n->parent, name);
    free(name);
    return r;
}

/* What the body does (CC_SEEN_* bits s) that a clause of mode m forbids, or NULL. */
static const char *contradiction(unsigned m, unsigned s)
{
    if ((m & 7u) == CC_READ && (s & (CC_SEEN_STORE | CC_SEEN_ACC))) return s & CC_SEEN_STORE ? "writes" : "accumulates into";
    if ((m & 7u) == CC_ACCUM && (s & (CC_SEEN_READ | CC_SEEN_STORE))) return s & CC_SEEN_READ ? "reads" : "overwrites";
    if ((m & 7u) == CC_WRITE && (s & CC_SEEN_READ)) return "reads";
    if ((m & 7u) == CC_READ && (s & CC_SEEN_ESC)) return "may modify (it escapes)";
    return NULL;
}

/* Whether the clause reference r names the block key (its indices collapsed,
 * as the accesses' keys are). */
static int ref_names(const cc_ref *r, const char *key)
{
    cc_ref k = *r;
    char *idx[CC_MAX_DIMS];
    for (int d = 0; d < r->nidx; d++) k.idx[d].s = idx[d] = r->idx[d].s ? cc_collapse(r->idx[d].s) : NULL;
    char *rk = cc_ref_text(&k);
    for (int d = 0; d < r->nidx; d++) free(idx[d]);
    int same = !strcmp(rk, key);
    free(rk);
    return same;
}

/* The first access clause before t's clause i that names the block key, or NULL. */
static const cc_ref *earlier_clause(const cc_task *t, int i, const char *key)
{
    for (int j = 0; j < i; j++)
        if (!(t->pr->refs[j].mode & CC_PERMONLY) && ref_names(&t->pr->refs[j], key)) return &t->pr->refs[j];
    return NULL;
}

/* The first permission(...) clause of t that names the block key, or NULL. */
static const cc_ref *perm_clause(const cc_task *t, const char *key)
{
    for (int j = 0; j < t->pr->nrefs; j++)
        if ((t->pr->refs[j].mode & CC_PERMONLY) && ref_names(&t->pr->refs[j], key)) return &t->pr->refs[j];
    return NULL;
}

/* A child's access ca beyond what the parent's permission clause r on pa
 * grants: a compile error (the clause is the parent's declaration; it is not
 * widened), naming the child's access and the clause, both with file:line. */
static void perm_clause_exceeded(cc_infer *in, const cc_task *t, const cc_access *ca, const cc_access *pa,
                                 const cc_ref *r)
{
    unsigned cl, cc;
    cc_line_col(in->src, r->off, &cl, &cc);
    cc_diag(in->src, ca->off, CC_ERROR, "nested task needs %s permission on %s (%s), but its parent (line %u) declares "
            "only 'permission(%s: %s)' at %s:%u:%u; widen the clause to cover the nested task",
            perm_word(ca->mode), ca->key, ca->why ? ca->why : "its access", t->line, perm_word(pa->mode), pa->key,
            in->src->name, cl, cc);
    cc_diag(in->src, r->off, CC_NOTE, "the parent's 'permission(%s: %s)' clause is here", perm_word(pa->mode), pa->key);
}

/* Where a permission(...) clause of t holds a child's blocks (tensor, idx,
 * nidx; widened[d]: an index that varies in t's body, within a clause's slice
 * or range) but no access of t that holds them grants mode cm: the access of
 * that clause; else -1.  The clause is the parent's declaration, not widened. */
static int perm_clause_short(const cc_task *t, const char *tensor, char **idx, const int *widened, int nidx, unsigned cm)
{
    char *tn = squeezed(tensor, strlen(tensor));
    int bad = -1, ok = 0;
    for (int k = 0; k < t->nacc && !ok; k++) {
        const cc_access *a = &t->acc[k];
        if (a->nidx && a->nidx != nidx) continue;
        int holds = 1;
        for (int d = 0; d < a->nidx && holds; d++)
            holds = index_within(a->idx[d], idx[d]) ||
                    (!idx[d] && widened[d] && cc_range_split(a->idx[d], NULL, NULL) && from_clause(t, a));
        char *an = squeezed(a->tensor, strlen(a->tensor));
        if (holds && !strcmp(an, tn)) {
            if (within(cm, a->mode & 7u)) ok = 1;
            else if (bad < 0 && !a->explicit_mode && perm_clause(t, a->key)) bad = k;
        }
        free(an);
    }
    free(tn);
    return ok ? -1 : bad;
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
        /* two clauses with different modes on one block: say so, quoting both
         * (checked first: the earlier clause is not something the body does) */
        if (a->explicit_mode && (a->mode & (7u | CC_CANCEL)) != m) {
            const cc_ref *first = earlier_clause(t, i, a->key);
            cc_diag(in->src, r->off, CC_ERROR,
                    "two clauses name the block %s: '%s(%s)' and the earlier '%s(%s)'; give each block one access clause",
                    a->key, cc_mode_name(m), a->key, cc_mode_name(a->mode), a->key);
            if (first) cc_diag(in->src, first->off, CC_NOTE, "the earlier '%s(%s)' is here", cc_mode_name(a->mode), a->key);
            continue;
        }
        /* a clause that contradicts the body is an error */
        const char *bad = contradiction(m, a->seen);
        if (bad) {
            cc_diag(in->src, r->off, CC_ERROR, "'%s' clause on %s, but the task body %s it (%s)", cc_mode_name(m), a->key,
                    bad, a->why ? a->why : "");
            continue;
        }
        if ((m & 7u) == CC_ACCUM && accty_conflict(a->accty)) {
            cc_diag(in->src, r->off, CC_ERROR, "'%s' clause on %s, but the task body cannot accumulate into it (%s); "
                    "declare it readwrite", cc_mode_name(m), a->key, a->why ? a->why : "");
            continue;
        }
        a->mode = m;
        a->explicit_mode = 1;
        if ((m & 7u) == CC_WRITE) { free(a->cov); a->cov = NULL; } /* declared: no check */
        free(a->why);
        a->why = cc_fmt("'%s' clause", cc_mode_name(m));
        if (!a->own) a->fetched = 0;
    }
    /* the body's blocks whose indices vary (widened to ':') within a range clause:
     * the clause's range is the permission (the runtime checks each block) */
    for (int i = 0; i < t->nacc; i++) {
        cc_access *a = &t->acc[i];
        if (!a->own || a->fetched || a->explicit_mode || !a->nidx) continue;
        int widened[CC_MAX_DIMS];
        for (int d = 0; d < a->nidx; d++) widened[d] = !a->idx[d];
        int cov = covering_range(t, a->tensor, a->idx, widened, a->nidx);
        if (cov < 0 || cov == i) continue;
        cc_access *pa = &t->acc[cov];
        const char *bad = contradiction(pa->mode, a->seen);
        if (bad) {
            cc_diag(in->src, pa->off, CC_ERROR, "'%s' clause on %s, but the task body %s %s in it (%s)",
                    cc_mode_name(pa->mode & (7u | CC_CANCEL)), pa->key, bad, a->key, a->why ? a->why : "");
            continue;
        }
        for (int d = 0; d < a->nidx; d++) {
            free(a->idx[d]);
            a->idx[d] = pa->idx[d] ? cc_xstrdup(pa->idx[d]) : NULL;
        }
        char *w = cc_fmt("%s; within the range of the '%s' clause on %s", a->why ? a->why : "",
                         cc_mode_name(pa->mode & (7u | CC_CANCEL)), pa->key);
        free(a->why);
        a->why = w;
        free(a->key);
        a->key = cc_xstrdup(pa->key);
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
            int widened[CC_MAX_DIMS];
            for (int d = 0; d < ca->nidx; d++) {
                widened[d] = ca->idx[d] && cc_varies_in(in, t, ca->idx[d]);
                idx[d] = ca->idx[d] && !widened[d] ? cc_xstrdup(ca->idx[d]) : NULL;
            }
            unsigned cm = ca->mode & 7u;
            int pk = perm_clause_short(t, ca->tensor, idx, widened, ca->nidx, cm);
            if (pk >= 0) {
                perm_clause_exceeded(in, t, ca, &t->acc[pk], perm_clause(t, t->acc[pk].key));
                for (int d = 0; d < ca->nidx; d++) free(idx[d]);
                continue;
            }
            /* a parent range that provably holds the child's blocks (slices and
             * blocks keep the exact-key rule below); a child's loop range may
             * be TAMM_ALL at run time, so it is never provably within */
            int cov = -1;
            if (!ca->loop_range && find_access(t, ca->tensor, idx, ca->nidx) < 0)
                cov = covering_range(t, ca->tensor, idx, widened, ca->nidx);
            if (cov >= 0 && (within(cm, t->acc[cov].mode & 7u) || t->acc[cov].explicit_mode)) {
                cc_access *pa = &t->acc[cov];
                if (cm & CC_ACCUM) pa->accty |= ca->accty;
                if (!within(cm, pa->mode & 7u))
                    cc_diag(in->src, ca->off, CC_ERROR, "nested task needs %s permission on %s, but its parent "
                            "(line %u) declares only %s on %s", perm_word(cm), ca->key, t->line,
                            perm_word(pa->mode), pa->key);
                for (int d = 0; d < ca->nidx; d++) free(idx[d]);
                continue; /* within the parent's range: nothing to add */
            }
            /* an index that is the variable of a loop of the body: the loop's range,
             * computed at submission, instead of ':' (issue: tightest range) */
            unsigned loopr = 0;
            /* where the parent names the slice that the indices widened as before
             * give (loop ranges as ':'), that slice decides (the exact-key rule) */
            char *sidx[CC_MAX_DIMS];
            for (int d = 0; d < ca->nidx; d++) sidx[d] = ca->loop_range >> d & 1u ? NULL : idx[d];
            if (ca->loop_range && find_access(t, ca->tensor, sidx, ca->nidx) >= 0) {
                for (int d = 0; d < ca->nidx; d++)
                    if (ca->loop_range >> d & 1u) { free(idx[d]); idx[d] = NULL; }
            } else if (find_access(t, ca->tensor, idx, ca->nidx) < 0) {
                for (int d = 0; d < ca->nidx; d++) {
                    if (widened[d]) idx[d] = child_loop_range(in, t, c, ca->idx[d]);
                    if ((widened[d] && idx[d]) || (!widened[d] && (ca->loop_range >> d & 1u))) loopr |= 1u << d;
                }
            }
            int before = t->nacc;
            int ai = add_access(t, ca->tensor, idx, ca->nidx, ca->off);
            for (int d = 0; d < ca->nidx; d++) free(idx[d]);
            cc_access *a = &t->acc[ai];
            if (cm & CC_ACCUM) a->accty |= ca->accty; /* the parent's accum permission is checked as the child's */
            if (ai >= before) a->loop_range = loopr;
            else if ((loopr & ~a->loop_range) && !from_clause(t, a)) a->loop_range |= loopr;
            if (ai >= before) { /* only the child uses it */
                a->mode = CC_PERMONLY | cm;
                a->why = cc_fmt("a nested task at line %u needs %s", c->line, perm_word(cm));
            } else if (a->explicit_mode) {
                if (!within(cm, a->mode & 7u))
                    cc_diag(in->src, ca->off, CC_ERROR, "nested task needs %s permission on %s, but its parent "
                            "(line %u) declares only %s", perm_word(cm), a->key, t->line, perm_word(a->mode));
            } else if ((a->mode & 7u) == CC_ACCUM && accty_conflict(a->accty)) {
                /* children (or the body and a child) add through different element types */
                a->mode = (a->mode & ~7u) | CC_RW;
                char *w = cc_fmt("%s; widened to readwrite for a nested task at line %u that adds %s", a->why ? a->why : "",
                                 c->line, accty_conflict(a->accty));
                free(a->why);
                a->why = w;
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

int cc_infer_regets(cc_task *t)
{
    if (!t->nkids && !t->nwait && !t->ntfcall) return 0;
    int n = 0;
    for (int i = 0; i < t->nacc; i++) {
        cc_access *a = &t->acc[i];
        if (!a->own || (a->mode & CC_PERMONLY) || (a->mode & 7u) != CC_WRITE) continue;
        /* the block is given back before each submission and fetched again after it: a write
         * may then get a buffer without the earlier segment's stores (a cancellable write gets
         * a new private copy), and a proof of coverage covers one segment at most */
        char *w = cc_fmt("%s; but the task gets the block again after a nested submission, a taskwait or a call "
                         "that submits, and must find its earlier stores: so %s", a->why ? a->why : "stored to",
                         a->mode & CC_CANCEL ? "creadwrite" : "readwrite");
        free(a->why);
        a->why = w;
        a->mode = (a->mode & ~7u) | CC_RW;
        free(a->cov);
        a->cov = NULL;
        n++;
    }
    return n;
}

void cc_infer_explain(cc_infer *in, const cc_task *t, void *fo)
{
    FILE *o = fo;
    unsigned line, col;
    cc_line_col(in->src, t->pr->off, &line, &col);
    /* the task as the user named it (label), then the generated function that runs it */
    if (t->pr->label.s)
        fprintf(o, "%s:%u: task %s (%s) in %s()", in->src->name, line, t->pr->label.s, t->name, t->fname);
    else
        fprintf(o, "%s:%u: task %s in %s()", in->src->name, line, t->name, t->fname);
    if (t->parent && t->parent->pr->label.s) fprintf(o, ", nested in %s (%s)\n", t->parent->pr->label.s, t->parent->name);
    else fprintf(o, "%s%s\n", t->parent ? ", nested in " : "", t->parent ? t->parent->name : "");
    for (int i = 0; i < t->nacc; i++) {
        const cc_access *a = &t->acc[i];
        const char *kind = (a->mode & CC_PERMONLY) ? "permission" : a->fetched ? "access" : "access (fetched in the body)";
        char *key = cc_fmt("%s%s", a->key, cc_guard_explain(a)); /* a guarded block: "A[I-1][J] if (I > 0)" */
        char *sync = a->sync ? cc_fmt(" [%s]", a->sync) : NULL;
        char *acc = (a->mode & 7u) == CC_ACCUM && a->accty && !accty_conflict(a->accty)
                        ? cc_fmt(" [if %s is %s (checked at submission); else readwrite]", a->tensor, accty_name(a->accty))
                        : NULL;
        fprintf(o, "  %-10s %-20s %s%s: %s%s%s\n", cc_mode_name(a->mode & (7u | CC_CANCEL)), key, kind, sync ? sync : "",
                a->why ? a->why : "",
                a->cov && (a->mode & 7u) == CC_WRITE ? " [write if that covers the block, checked at submission; else readwrite]" : "",
                acc ? acc : "");
        free(acc);
        free(key);
        free(sync);
    }
    if (t->nacc == 0) fprintf(o, "  (no block accesses)\n");
    for (int i = 0; i < t->ncap; i++) fprintf(o, "  captures %s by value\n", t->cap[i].name);
    if (t->nwait) fprintf(o, "  %d taskwait(s) in the body: continuation(s)\n", t->nwait);
    if (t->has_cuda || !t->cuda_why)
        fprintf(o, "  variants: cpu%s%s%s%s\n", t->has_cuda ? ", cuda" : "", t->has_cuda && t->cuda_calls ? " (" : "",
                t->has_cuda && t->cuda_calls ? t->cuda_calls : "", t->has_cuda && t->cuda_calls ? ")" : "");
    else fprintf(o, "  variants: cpu (no cuda: %s)\n", t->cuda_why);
    if (t->has_cuda && t->cuda_plan) /* lines "cuda kernel: ..." (cuda_plan.c) */
        for (const char *l = t->cuda_plan; *l;) {
            const char *e = strchr(l, '\n');
            size_t n = e ? (size_t)(e - l) : strlen(l);
            fprintf(o, "  %.*s\n", (int)n, l);
            l += n + (e != NULL);
        }
}
