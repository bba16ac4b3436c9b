/* infer_ptr.c — the uses of a value derived from a block pointer: element reads, stores and
 * accumulations, offsets, conversions, copies into locals and aggregates, escapes (rules 1-15,
 * 24-31 and 37 of docs/language.md, "The rules"); a pointer passed to a call goes to
 * infer_call.c, a store's coverage proof to infer_cov.c.  Also the primitives of ptr_info, the
 * result of one analysis (infer_int.h). */
#include "infer_int.h"
#include "text.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- ptr_info, types */
void cc_inf_pi_free(ptr_info *p)
{
    free(p->cov);
    for (int i = 0; i < 4; i++) free(p->why[i]);
    free(p->nocov);
    memset(p, 0, sizeof *p);
}

static int bit_index(unsigned bit) { return bit == CC_SEEN_READ ? 0 : bit == CC_SEEN_STORE ? 1 : bit == CC_SEEN_ACC ? 2 : 3; }

void cc_inf_see(ptr_info *p, unsigned bit, char *why)
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

void cc_inf_merge(ptr_info *into, const ptr_info *from)
{
    into->seen |= from->seen;
    into->accty |= from->accty;
    if (!into->cov && from->cov) into->cov = cc_xstrdup(from->cov);
    for (int i = 0; i < 4; i++)
        if (!into->why[i] && from->why[i]) into->why[i] = cc_xstrdup(from->why[i]);
    if (!into->nocov && from->nocov) into->nocov = cc_xstrdup(from->nocov);
}

/* Record in *why (if why is not NULL and nothing is recorded yet) why no coverage was proved; takes msg. */
void cc_inf_no_cov(char **why, char *msg)
{
    if (why && !*why) *why = msg;
    else free(msg);
}

/* The CC_ACCTY_* bit of an element type that '+=' adds to: the tensor dtype whose
 * elements it is (integers by size: unsigned addition has the same bits), or
 * CC_ACCTY_OTHER; 0 for void (an annotated void pointer: the annotation is the contract). */
unsigned cc_inf_acc_type_bit(CXType t)
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

/* ---------------------------------------------------------------- pointer uses
 * Sound by construction: a use of a value derived from a block pointer counts
 * as read, store or accumulation only in the contexts listed below, where C
 * fixes what happens to the data; every other context (one tammcc does not
 * recognise, an operator it cannot spell, a conversion to an integer, a store
 * of the pointer into memory it does not track) is an escape, which makes the
 * access readwrite.  The table in docs/language.md lists the rules. */

CXType cc_inf_canon_type(const cc_node *n) { return clang_getCanonicalType(clang_getCursorType(n->c)); }

int cc_inf_is_array_type(CXType t)
{
    return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray ||
           t.kind == CXType_DependentSizedArray;
}

static int is_ptr_type(CXType t) { return t.kind == CXType_Pointer || cc_inf_is_array_type(t); }

/* The element type seen through `from` differs from the one seen through its
 * conversion `to` (neither void): an accumulation through `to` would add in
 * another type than the block's. */
static int pointee_changes(const cc_node *from, const cc_node *to)
{
    CXType a = cc_inf_canon_type(from), b = cc_inf_canon_type(to);
    CXType ea = cc_inf_is_array_type(a) ? clang_getCanonicalType(clang_getArrayElementType(a)) : clang_getCanonicalType(clang_getPointeeType(a));
    CXType eb = cc_inf_is_array_type(b) ? clang_getCanonicalType(clang_getArrayElementType(b)) : clang_getCanonicalType(clang_getPointeeType(b));
    if (ea.kind == CXType_Void || eb.kind == CXType_Void || ea.kind == CXType_Invalid || eb.kind == CXType_Invalid) return 0;
    return ea.kind != eb.kind; /* arithmetic element types (what += applies to) differ by kind */
}

/* A variable with automatic storage (a local or a parameter of some function). */
int cc_inf_auto_var(CXCursor v)
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
    char *w = cc_inf_where(at->c);
    cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("%s at %s", what, w));
    free(w);
}

static ptr_info analyze_carrier(cc_infer *in, CXCursor var, cc_node *region, int depth);

/* The value of e points into the block but not (provably) at its start, or
 * may be another pointer: its uses count, its stores prove no coverage (the
 * reason names the place `at`). */
void cc_inf_analyze_derived(cc_infer *in, cc_node *e, cc_node *at, cc_node *region, ptr_info *pi, int depth,
                            const char *why)
{
    ptr_info sub = { 0 };
    cc_inf_analyze_ptr(in, e, region, &sub, depth);
    if (sub.cov) {
        char *w = cc_inf_where(at->c);
        cc_inf_no_cov(&pi->nocov, cc_fmt("%s at %s", why, w));
        free(w);
    }
    free(sub.cov);
    sub.cov = NULL;
    cc_inf_merge(pi, &sub);
    cc_inf_pi_free(&sub);
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
    case CXCursor_CStyleCastExpr: return cc_inf_canon_type(p).kind != CXType_Void;
    case CXCursor_BinaryOperator: return !(k == 0 && !strcmp(cc_binop(in->a, p), ","));
    default: return 1;
    }
}

/* An element lvalue (p[i], *p, p->f) of the block: how it is used. */
static void analyze_elem(cc_infer *in, cc_node *el, cc_node *region, ptr_info *pi, int depth, int derived)
{
    CXType et = cc_inf_canon_type(el);
    if (cc_inf_is_array_type(et)) { /* a row of a pointer-to-array view: it decays to a pointer */
        cc_inf_analyze_derived(in, el, el, region, pi, depth, "a row of the block is used");
        return;
    }
    if (et.kind == CXType_Pointer) {
        escape(pi, "an element of the block is used as a pointer", el);
        return;
    }
    cc_node *top = cc_up_wrappers(el);
    cc_node *p = top->parent;
    char *w = cc_inf_where(el->c);
    if (p && (p->kind == CXCursor_BinaryOperator || p->kind == CXCursor_CompoundAssignOperator) && p->kid[0] == top) {
        const char *op = cc_binop(in->a, p);
        if (!strcmp(op, "=")) {
            char *cov = NULL;
            if (derived || el->kind != CXCursor_ArraySubscriptExpr)
                cc_inf_no_cov(&pi->nocov, cc_fmt("the store at %s is not 'p[index] = ...' on the block pointer", w));
            else
                cov = cc_inf_store_coverage(in, p, el, region, &pi->nocov);
            if (cov && !pi->cov) pi->cov = cov;
            else free(cov);
            cc_inf_see(pi, CC_SEEN_STORE, cc_fmt("stored to at %s", w));
        } else if ((!strcmp(op, "+=") || !strcmp(op, "-=")) && (in->punned || value_used(in, p))) {
            /* not an accumulation: through another element type (the runtime sums in the block's),
             * or the new value is read */
            cc_inf_see(pi, CC_SEEN_READ, cc_fmt("'%s' at %s %s", op, w, in->punned ? "through a pointer to another element "
                                         "type" : "whose value is used"));
            cc_inf_see(pi, CC_SEEN_STORE, cc_fmt("'%s' at %s", op, w));
        } else if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
            /* an accumulation if the contributions can be summed: C converts the sum to the element
             * type after every addition, which only an integer element fed a floating value notices */
            CXType vt = p->nkid == 2 ? clang_getCanonicalType(clang_getCursorType(p->kid[1]->c)) : et;
            if (is_integer_kind(et.kind) && is_floating_kind(vt.kind)) {
                CXString ts = clang_getTypeSpelling(vt), es = clang_getTypeSpelling(clang_getCursorType(el->c));
                char *why = cc_fmt("'%s' at %s adds a %s to an element of type %s, which C converts after every "
                                   "addition: not a sum of contributions", op, w, clang_getCString(ts), clang_getCString(es));
                cc_inf_see(pi, CC_SEEN_READ, cc_xstrdup(why));
                cc_inf_see(pi, CC_SEEN_STORE, why);
                clang_disposeString(ts);
                clang_disposeString(es);
            } else {
                cc_inf_see(pi, CC_SEEN_ACC, cc_fmt("'%s' at %s", op, w));
                pi->accty |= cc_inf_acc_type_bit(et);
            }
        } else if (p->kind == CXCursor_CompoundAssignOperator) {
            if (!*op) {
                cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("a compound assignment tammcc cannot spell at %s", w));
            } else {
                cc_inf_see(pi, CC_SEEN_READ, cc_fmt("'%s' at %s", op, w));
                cc_inf_see(pi, CC_SEEN_STORE, cc_fmt("'%s' at %s", op, w));
            }
        } else if (!*op) {
            cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("an operator tammcc cannot spell at %s", w));
        } else {
            cc_inf_see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
        }
    } else if (p && p->kind == CXCursor_UnaryOperator) {
        int post;
        const char *op = cc_unop(in->a, p, &post);
        if (!strcmp(op, "++") || !strcmp(op, "--")) {
            cc_inf_see(pi, CC_SEEN_READ, cc_fmt("'%s' at %s", op, w));
            cc_inf_see(pi, CC_SEEN_STORE, cc_fmt("'%s' at %s", op, w));
        } else if (!strcmp(op, "&")) {
            cc_inf_analyze_derived(in, p, el, region, pi, depth, "a pointer into the block is taken");
        } else if (!*op) {
            cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("an operator tammcc cannot spell at %s", w));
        } else {
            cc_inf_see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
        }
    } else if (p && (p->kind == CXCursor_ArraySubscriptExpr || p->kind == CXCursor_MemberRefExpr) && p->kid[0] == top) {
        analyze_elem(in, p, region, pi, depth, 1);
    } else if (p && (p->kind == CXCursor_GCCAsmStmt || p->kind == CXCursor_MSAsmStmt)) {
        cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("used by an asm statement at %s", w));
    } else if (p && p->kind == CXCursor_UnaryExpr) {
        /* sizeof / _Alignof: no access */
    } else {
        /* C has no other context that modifies an arithmetic lvalue: the value is read */
        cc_inf_see(pi, CC_SEEN_READ, cc_fmt("read at %s", w));
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
            cc_inf_analyze_derived(in, p, p, region, pi, depth, "the pointer is moved");
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
            cc_inf_analyze_derived(in, p, p, region, pi, depth, "the pointer is moved");
            return;
        }
        if (!strcmp(op, "&")) {
            escape(pi, "the address of the variable holding the pointer is taken", p);
            return;
        }
    }
    cc_inf_analyze_ptr(in, n, region, pi, depth);
}

/* The pointer is stored into the lvalue lhs (lhs = e): follow the variable it lands in. */
static void store_pointer(cc_infer *in, cc_node *lhs, cc_node *region, ptr_info *pi, int depth)
{
    cc_node *n = cc_down_wrappers(lhs);
    if (n->kind == CXCursor_DeclRefExpr) {
        CXCursor v = cc_referenced(n);
        if (cc_inf_auto_var(v) && cc_inf_canon_type(n).kind == CXType_Pointer) {
            ptr_info vr = cc_inf_analyze_var(in, v, region, depth);
            cc_inf_merge(pi, &vr);
            cc_inf_pi_free(&vr);
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
            if (cc_inf_canon_type(base).kind != CXType_Record) break; /* '->': through a pointer */
            b = base;
        } else if (b->kind == CXCursor_ArraySubscriptExpr && b->nkid == 2) {
            cc_node *base = cc_down_wrappers(b->kid[0]);
            if (!cc_inf_is_array_type(cc_inf_canon_type(base))) break; /* through a pointer */
            b = base;
        } else {
            break;
        }
    }
    if (b != n && b->kind == CXCursor_DeclRefExpr && cc_inf_auto_var(cc_referenced(b))) {
        ptr_info vr = analyze_carrier(in, cc_referenced(b), region, depth);
        cc_inf_merge(pi, &vr);
        cc_inf_pi_free(&vr);
        return;
    }
    escape(pi, "the pointer is stored into memory tammcc does not follow", lhs);
}

/* An expression e whose value points into the block: classify its uses. */
void cc_inf_analyze_ptr(cc_infer *in, cc_node *e, cc_node *region, ptr_info *pi, int depth)
{
    int punned = 0; /* conversions to another element type on the way up (undone at the end) */
    /* parentheses and conversions between pointer types keep the value */
    cc_node *top = e;
    while (top->parent && (top->parent->kind == CXCursor_ParenExpr || top->parent->kind == CXCursor_CStyleCastExpr ||
                           (top->parent->kind == CXCursor_UnexposedExpr && top->parent->nkid == 1)) &&
           is_ptr_type(cc_inf_canon_type(top->parent))) {
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
        if (p->nkid > 1 && is_ptr_type(cc_inf_canon_type(p))) {
            cc_inf_analyze_derived(in, p, top, region, pi, depth, "the pointer is an operand of an expression tammcc does "
                                                           "not see into");
            cc_inf_see(pi, CC_SEEN_ESC, cc_fmt("the pointer is an operand of an expression tammcc does not see into"));
            goto out;
        }
        escape(pi, "the pointer is an operand of an expression tammcc does not see into", p);
        goto out;
    case CXCursor_ParenExpr: case CXCursor_CStyleCastExpr:
        if (p->kind == CXCursor_CStyleCastExpr && cc_inf_canon_type(p).kind == CXType_Void) goto out; /* (void)p */
        escape(pi, "the pointer is converted to an integer", p);
        goto out;
    case CXCursor_CompoundStmt:
        /* the last statement of a GNU statement expression ({ ...; p; }) is its value */
        if (p->parent && p->parent->kind == CXCursor_StmtExpr && ki == p->nkid - 1) {
            cc_inf_analyze_derived(in, p->parent, top, region, pi, depth, "the pointer is the value of a ({ ... })");
            goto out;
        }
        goto out; /* a discarded value */
    case CXCursor_ConditionalOperator:
        if (ki == 0) goto out; /* a null test */
        cc_inf_analyze_derived(in, p, top, region, pi, depth, "the pointer is a branch of the '?:'");
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
        int ptr_result = is_ptr_type(cc_inf_canon_type(p));
        if ((!strcmp(op, "+") || !strcmp(op, "-")) && ptr_result) {
            cc_inf_analyze_derived(in, p, top, region, pi, depth, "an offset pointer is made");
        } else if (!strcmp(op, "-") && p->nkid == 2 && is_ptr_type(cc_inf_canon_type(p->kid[0])) &&
                   is_ptr_type(cc_inf_canon_type(p->kid[1]))) {
            /* a difference of pointers: no data access */
        } else if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, ">") ||
                   !strcmp(op, "<=") || !strcmp(op, ">=") || !strcmp(op, "&&") || !strcmp(op, "||")) {
            /* compares or tests pointers: no data access */
        } else if (!strcmp(op, ",")) {
            if (ki == 1) cc_inf_analyze_derived(in, p, top, region, pi, depth, "the pointer is the value of a ','");
        } else if (!strcmp(op, "=") && ki == 1) {
            store_pointer(in, p->kid[0], region, pi, depth);
            cc_inf_analyze_derived(in, p, top, region, pi, depth, "the value of an assignment is used");
        } else {
            escape(pi, *op ? "the pointer is used with an operator tammcc does not follow"
                           : "the pointer is used with an operator tammcc cannot spell", p);
        }
        goto out;
    }
    case CXCursor_CallExpr:
        if (ki >= 1) {
            cc_inf_analyze_arg(in, p, ki - 1, region, pi, depth);
            goto out;
        }
        break;
    case CXCursor_VarDecl:
        if (cc_inf_auto_var(p->c) && cc_inf_canon_type(p).kind == CXType_Pointer) {
            ptr_info v = cc_inf_analyze_var(in, p->c, region, depth);
            cc_inf_merge(pi, &v);
            cc_inf_pi_free(&v);
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
        if (d && d->kind == CXCursor_VarDecl && cc_inf_auto_var(d->c)) {
            ptr_info v = analyze_carrier(in, d->c, region, depth);
            cc_inf_merge(pi, &v);
            cc_inf_pi_free(&v);
        } else {
            escape(pi, "the pointer is part of an initialiser tammcc does not follow", p);
        }
        goto out;
    }
    case CXCursor_ReturnStmt:
        if (region->kind == CXCursor_FunctionDecl) {
            char *w = cc_inf_where(p->c);
            cc_inf_see(pi, SEEN_RET, cc_fmt("returned at %s", w));
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
    if (n->kind == CXCursor_DeclRefExpr && cc_inf_refers_to(n, rf->var)) {
        CC_GROW(rf->hits, rf->cap, rf->n + 1);
        rf->hits[rf->n++] = n;
    }
    return 1;
}

/* All uses of pointer variable var inside region (a variable whose uses are
 * already being analysed further up contributes nothing more). */
ptr_info cc_inf_analyze_var(cc_infer *in, CXCursor var, cc_node *region, int depth)
{
    ptr_info r = { 0 };
    if (var_busy(in, var)) return r;
    var_push(in, var);
    ref_find rf = { var, NULL, 0, 0 };
    cc_walk(region, find_refs, &rf);
    cc_node *moved = NULL; /* where the variable is re-pointed: later uses may be elsewhere in the block */
    for (int i = 0; i < rf.n; i++) analyze_slot(in, rf.hits[i], region, &r, depth, &moved);
    if (moved && r.cov) {
        char *w = cc_inf_where(moved->c);
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

/* Whether the array use is an argument of a call that receives it as
 * pointers to const: its type as passed (after the implicit conversions, with
 * no cast) is a pointer to pointers to const. */
static int passed_as_const_pointees(cc_node *use)
{
    cc_node *top = use;
    while (top->parent && (top->parent->kind == CXCursor_ParenExpr || top->parent->kind == CXCursor_UnexposedExpr))
        top = top->parent;
    if (!top->parent || top->parent->kind != CXCursor_CallExpr || top->parent->kid[0] == top) return 0;
    CXType t = cc_inf_canon_type(top);
    if (t.kind != CXType_Pointer) return 0;
    t = clang_getCanonicalType(clang_getPointeeType(t));
    return t.kind == CXType_Pointer && clang_isConstQualifiedType(clang_getCanonicalType(clang_getPointeeType(t)));
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
            CXType t = cc_inf_canon_type(cur);
            if (t.kind == CXType_Pointer) {
                analyze_slot(in, cur, region, &r, depth, NULL);
                break;
            }
            if (t.kind == CXType_Record && clang_getCursorKind(clang_getTypeDeclaration(t)) == CXCursor_UnionDecl) {
                escape(&r, "the pointer is kept in a union, whose other members read it as another type", cur);
                break;
            }
            if (t.kind != CXType_Record && !cc_inf_is_array_type(t)) break; /* a field that holds no pointer */
            cc_node *top = cur;
            while (top->parent && (top->parent->kind == CXCursor_ParenExpr || top->parent->kind == CXCursor_UnexposedExpr))
                top = top->parent;
            cc_node *p = top->parent;
            if (p && p->kind == CXCursor_MemberRefExpr && p->kid[0] == top && t.kind == CXType_Record) {
                cur = p;
            } else if (p && p->kind == CXCursor_ArraySubscriptExpr && p->kid[0] == top && cc_inf_is_array_type(t)) {
                cur = p;
            } else if (p && p->kind == CXCursor_UnaryExpr) {
                break; /* sizeof */
            } else if (p && p->kind == CXCursor_VarDecl && cur == rf.hits[i] && clang_equalCursors(p->c, var)) {
                break; /* the declaration's own name (not a use) */
            } else if (passed_as_const_pointees(cur)) {
                /* its elements point to const: what receives it reads through
                 * them, as through a 'const T *' parameter (rule 17) */
                char *w = cc_inf_where(cur->c);
                cc_inf_see(&r, CC_SEEN_READ, cc_fmt("read through the 'const' pointers of the array used whole at %s", w));
                free(w);
                break;
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
