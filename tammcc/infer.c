/* infer.c — access inference over libclang trees (see infer.h): the per-task driver.  The
 * block uses of a task's body (each tamm_block pointer analysed by infer_ptr.c) and the modes
 * they give, the indices known at submission (rules 35 and 36 of docs/language.md, "The
 * rules"), then the explicit clauses and the children's accesses merged into the task's
 * permissions, with those taskfn.c finds through calls (rule 34; their ranges, rule 38, are
 * taskfn_range.c's).  The other files of the inference: infer_int.h. */
#include "infer_int.h"
#include "guard.h"
#include "text.h"
#include "xalloc.h"
#include "cc_assert.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

cc_infer *cc_infer_new(cc_ast *a, const cc_source *src)
{
    cc_infer *in = cc_xcalloc(1, sizeof *in);
    in->a = a;
    in->src = src;
    in->budget = 20000; /* callee analyses per file (mutual recursion re-analyses incomplete results) */
    return in;
}

void cc_infer_free(cc_infer *in)
{
    for (int i = 0; i < in->nm; i++) { free(in->m[i].usr); cc_inf_pi_free(&in->m[i].r); }
    for (int i = 0; i < in->nf; i++) { free(in->f[i].usr); cc_tree_free(in->f[i].root); }
    free(in->m);
    free(in->mstack);
    free(in->f);
    free(in->busyv);
    free(in->busydepth);
    free(in);
}

/* "file:line:col" of a cursor */
char *cc_inf_where(CXCursor c)
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
char *cc_inf_node_text(cc_infer *in, const cc_node *n)
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
cc_node *cc_inf_lvalue_var(cc_node *n)
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
        cc_node *v = assign && n->nkid ? cc_inf_lvalue_var(n->kid[0]) : NULL;
        if (v) {
            char *nm = cc_spelling(cc_referenced(v));
            add_name(s, nm);
            free(nm);
        }
    } else if (n->kind == CXCursor_UnaryOperator) {
        int post;
        const char *op = cc_unop(s->a, n, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, "&")) {
            cc_node *v = n->nkid ? cc_inf_lvalue_var(n->kid[0]) : NULL;
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
    } else if (n->kind == CXCursor_DeclRefExpr && cc_inf_refers_to(n, aw->arr)) {
        /* the array used as a pointer (passed to a call, stored) may be written through */
        cc_node *top = cc_up_wrappers(n);
        if (!top->parent || top->parent->kind != CXCursor_ArraySubscriptExpr || top->parent->kid[0] != top) aw->hit = 1;
    }
    while (lv) {
        lv = cc_down_wrappers(lv);
        if (lv->kind == CXCursor_ArraySubscriptExpr || lv->kind == CXCursor_MemberRefExpr) lv = lv->nkid ? lv->kid[0] : NULL;
        else break;
    }
    if (lv && lv->kind == CXCursor_DeclRefExpr && cc_inf_refers_to(lv, aw->arr)) aw->hit = 1;
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
        if (dk == CXCursor_VarDecl && !cc_inf_auto_var(d) &&
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
        if (n->nkid && cc_inf_canon_type(cc_down_wrappers(n->kid[0])).kind == CXType_Pointer)
            c->why = "memory read through a pointer, which the body may change";
        break;
    case CXCursor_ArraySubscriptExpr: {
        cc_node *base = n->nkid ? cc_down_wrappers(n->kid[0]) : NULL;
        if (!base || !cc_inf_is_array_type(cc_inf_canon_type(base)) || base->kind != CXCursor_DeclRefExpr) {
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
        int pure = cc_inf_pure_query(f);
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
    CC_ASSERT(tensor != NULL && nidx >= 0 && nidx <= CC_MAX_DIMS);
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
    if (!fn || cc_inf_touches(in, fn, var, 0)) return 0;
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

int cc_infer_block_args(cc_ast *a, size_t b, char **args, int *nargs)
{
    size_t end;
    return macro_args(a, b, args, nargs, &end);
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
    cc_inf_analyze_ptr(in, n, t->stmt, &pi, 0);
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
    cc_inf_pi_free(&pi);
    CC_ASSERT(ai >= 0 && ai < t->nacc && n->b <= end);
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
const char *cc_inf_accty_conflict(unsigned t)
{
    if (t & CC_ACCTY_OTHER) return "through an element type that no tensor dtype has (float, double, int32_t, int64_t)";
    if (t & (t - 1)) return "through pointers to more than one element type";
    return NULL;
}

static unsigned mode_of(const cc_access *a)
{
    unsigned s = a->seen;
    if (s & CC_SEEN_ESC) return CC_RW;
    if ((s & CC_SEEN_READ) && (s & (CC_SEEN_STORE | CC_SEEN_ACC))) return CC_RW;
    if ((s & CC_SEEN_STORE) && (s & CC_SEEN_ACC)) return CC_RW;
    if (s & CC_SEEN_STORE) return a->cov ? CC_WRITE : CC_RW;
    if (s & CC_SEEN_ACC) return cc_inf_accty_conflict(a->accty) ? CC_RW : CC_ACCUM;
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
        if ((a->seen & CC_SEEN_ACC) && a->mode == CC_RW && cc_inf_accty_conflict(a->accty) &&
            !(a->seen & (CC_SEEN_READ | CC_SEEN_STORE | CC_SEEN_ESC))) {
            /* the runtime sums contributions in the tensor's dtype: added as another type, they are not */
            char *w = cc_fmt("%s: added to %s, which the runtime cannot sum in the tensor's dtype",
                             a->why ? a->why : "'+='", cc_inf_accty_conflict(a->accty));
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
    /* after the merge every use still names one of the accesses, and each has a mode */
    for (int k = 0; k < t->nuse; k++) CC_ASSERT(t->use[k].acc >= 0 && t->use[k].acc < t->nacc);
    for (int i = 0; i < t->nacc; i++) CC_ASSERT((t->acc[i].mode & 7u) != 0 && t->acc[i].key != NULL);
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
 * cc_infer_stable_text).  Returns "lo:hi" (caller frees), or NULL. */
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
               cc_inf_lvalue_var(init->kid[0])) {
        v = cc_referenced(cc_inf_lvalue_var(init->kid[0]));
        lo = init->kid[1];
    } else {
        return NULL;
    }
    v = clang_getCanonicalCursor(v);
    char *vn = cc_spelling(v);
    int same = !strcmp(vn, name);
    free(vn);
    if (!same || cond->kind != CXCursor_BinaryOperator || cond->nkid != 2 || strcmp(cc_binop(in->a, cond), "<") ||
        !cc_inf_refers_to(cond->kid[0], v))
        return NULL;
    int post;
    if (inc->kind == CXCursor_UnaryOperator) {
        if (strcmp(cc_unop(in->a, inc, &post), "++") || !cc_inf_refers_to(inc->kid[0], v)) return NULL;
    } else if (inc->kind == CXCursor_CompoundAssignOperator && inc->nkid == 2) {
        char *rhs = cc_inf_node_text(in, inc->kid[1]);
        int one = !strcmp(cc_binop(in->a, inc), "+=") && cc_inf_refers_to(inc->kid[0], v) && !strcmp(rhs, "1");
        free(rhs);
        if (!one) return NULL;
    } else {
        return NULL;
    }
    decl_count dc = { name, 0 }; /* no other j in the body may shadow it */
    cc_walk(body, count_decls, &dc);
    if (dc.n || cc_inf_touches(in, body, v, 0) || cc_inf_touches(in, t->stmt, v, 1)) return NULL;
    char *l = cc_infer_stable_text(in, lo, t->stmt), *h = cc_infer_stable_text(in, cond->kid[1], t->stmt), *r = NULL;
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
    if ((m & 7u) == CC_READ && (s & CC_SEEN_ESC)) return "may modify";
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
        if (bad && (m & 7u) == CC_READ && !(a->seen & (CC_SEEN_STORE | CC_SEEN_ACC))) {
            /* an escape: tammcc cannot see what the receiver does; say how to tell it */
            cc_diag(in->src, r->off, CC_ERROR, "'%s' clause on %s, but the task body may modify it: %s, where tammcc cannot "
                    "follow it; if the body only reads through it, pass it on as a 'const T *' or TAMM_READS parameter (tammcc "
                    "takes those as reads), or omit the clause (the block is then readwrite)", cc_mode_name(m), a->key, a->why ? a->why : "the pointer escapes");
            continue;
        }
        if (bad) {
            cc_diag(in->src, r->off, CC_ERROR, "'%s' clause on %s, but the task body %s it (%s)", cc_mode_name(m), a->key,
                    bad, a->why ? a->why : "");
            continue;
        }
        if ((m & 7u) == CC_ACCUM && cc_inf_accty_conflict(a->accty)) {
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
            } else if ((a->mode & 7u) == CC_ACCUM && cc_inf_accty_conflict(a->accty)) {
                /* children (or the body and a child) add through different element types */
                a->mode = (a->mode & ~7u) | CC_RW;
                char *w = cc_fmt("%s; widened to readwrite for a nested task at line %u that adds %s", a->why ? a->why : "",
                                 c->line, cc_inf_accty_conflict(a->accty));
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
