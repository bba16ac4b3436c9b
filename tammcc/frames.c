/* frames.c — pointers into a parent's frame: implicit waits and warnings (see frames.h). */
#include "frames.h"
#include "diag.h"
#include "text.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* A value of type ty may hold the address of a variable: a data pointer (not a function
 * pointer, not a tamm_tensor handle), an array of such, or a struct or union (its members
 * are not followed: conservative). */
static int holds_pointer(CXType ty)
{
    ty = clang_getCanonicalType(ty);
    switch (ty.kind) {
    case CXType_Pointer: {
        CXType pt = clang_getCanonicalType(clang_getPointeeType(ty));
        if (pt.kind == CXType_FunctionProto || pt.kind == CXType_FunctionNoProto) return 0;
        if (pt.kind == CXType_Record) {
            CXString s = clang_getTypeSpelling(pt);
            int tensor = strstr(clang_getCString(s), "tamm_tensor") != NULL;
            clang_disposeString(s);
            return !tensor;
        }
        return 1;
    }
    case CXType_ConstantArray:
    case CXType_IncompleteArray:
    case CXType_VariableArray: return holds_pointer(clang_getArrayElementType(ty));
    case CXType_Record: return 1;
    default: return 0;
    }
}

/* d (canonical) is declared in t's statement (a local of its body) */
static int body_local(cc_unit *u, const cc_task *t, CXCursor d)
{
    size_t off;
    return cc_offset(&u->ast, clang_getCursorLocation(d), &off) && off >= t->stmt->b && off < t->e;
}

static int captured(const cc_task *t, CXCursor d)
{
    for (int i = 0; i < t->ncap; i++)
        if (clang_equalCursors(clang_getCanonicalCursor(t->cap[i].decl), d)) return 1;
    return 0;
}

/* t: a task's outlined frame; else fn: a function's */
typedef struct { cc_unit *u; const cc_task *t; const cc_node *fn; CXCursor hit; int found; } arg_scan;

/* A variable of the frame that the argument may take the address of: of t's (a body local,
 * or the copy of a captured variable), or of fn's (a local, or a parameter).  A captured
 * pointer or a pointer parameter read as a value points outside that frame. */
static int scan_arg(cc_node *n, void *arg)
{
    arg_scan *s = arg;
    if (s->found || n->kind != CXCursor_DeclRefExpr) return !s->found;
    CXCursor d = clang_getCanonicalCursor(cc_referenced(n));
    enum CXCursorKind dk = clang_getCursorKind(d);
    if (dk != CXCursor_VarDecl && dk != CXCursor_ParmDecl) return 1;
    int local, cap;
    if (s->t) {
        local = body_local(s->u, s->t, d);
        cap = !local && captured(s->t, d);
    } else {
        size_t off;
        int in_fn = cc_offset(&s->u->ast, clang_getCursorLocation(d), &off) && off >= s->fn->b && off < s->fn->e;
        local = in_fn && dk == CXCursor_VarDecl && clang_Cursor_getStorageClass(d) != CX_SC_Static;
        cap = in_fn && dk == CXCursor_ParmDecl;
    }
    if (!local && !cap) return 1;
    cc_node *up = cc_up_wrappers(n);
    int addr = 0;
    if (up->parent && up->parent->kind == CXCursor_UnaryOperator) {
        int post;
        addr = !strcmp(cc_unop(&s->u->ast, up->parent, &post), "&");
    }
    if (local || addr || clang_getCanonicalType(clang_getCursorType(d)).kind != CXType_Pointer) {
        s->hit = d;
        s->found = 1;
    }
    return 0;
}

/* The children submitted at `site` (a nested task's statement, a call) may reach t's frame:
 * every block of t's body around it that declares variables waits for them before its '}'
 * (the pointee may be any variable alive at the submission), as the body's end does. */
static void wait_around(const cc_unit *u, cc_task *t, cc_node *site)
{
    for (cc_node *n = site; n && n != t->stmt->parent; n = n->parent) {
        if (n->kind != CXCursor_CompoundStmt || n->e == 0 || u->ast.text[n->e - 1] != '}') continue;
        int decls = 0; /* its own declarations, or those of the `for` it is the body of */
        for (int i = 0; i < n->nkid; i++) decls |= n->kid[i]->kind == CXCursor_DeclStmt;
        if (n->parent && n->parent->kind == CXCursor_ForStmt)
            for (int i = 0; i < n->parent->nkid; i++) decls |= n->parent->kid[i]->kind == CXCursor_DeclStmt;
        int seen = 0;
        for (int i = 0; i < t->nframe_at; i++) seen |= t->frame_at[i] == n->e - 1;
        if (!decls || seen) continue;
        t->frame_at = cc_grow(t->frame_at, &t->frame_at_cap, (size_t)t->nframe_at + 1, sizeof *t->frame_at);
        t->frame_at[t->nframe_at++] = n->e - 1;
    }
}

/* why t must wait for its children before its frame goes (the first reason), or NULL;
 * fills t->frame_at */
static char *task_frame_why(cc_unit *u, cc_task *t)
{
    char *why = NULL;
    for (int k = 0; k < t->nkids; k++) {
        cc_task *kid = t->kids[k];
        for (int i = 0; i < kid->ncap; i++) {
            CXCursor d = clang_getCanonicalCursor(kid->cap[i].decl);
            if (!body_local(u, t, d) || !holds_pointer(kid->cap[i].type)) continue;
            if (!why)
                why = cc_fmt("the nested task at line %u captures '%s', which may point into this task's frame",
                             kid->line, kid->cap[i].name);
            wait_around(u, t, kid->stmt);
            break;
        }
    }
    for (int c = 0; c < t->ntfcall; c++) {
        cc_node *call = t->tfcall[c];
        for (int a = 1; a < call->nkid; a++) {
            CXType ty = clang_getCanonicalType(clang_getCursorType(call->kid[a]->c));
            if (!holds_pointer(ty)) continue;
            arg_scan s = { u, t, NULL, clang_getNullCursor(), 0 };
            cc_walk(call->kid[a], scan_arg, &s);
            if (!s.found) continue;
            if (!why) {
                char *callee = cc_spelling(cc_referenced(call)), *var = cc_spelling(s.hit);
                unsigned line, col;
                cc_line_col(&u->src, call->b, &line, &col);
                why = cc_fmt("the call of %s at line %u passes a pointer to '%s' to the tasks it submits", callee,
                             line, var);
                free(callee);
                free(var);
            }
            wait_around(u, t, call);
            break;
        }
    }
    return why;
}

/* a taskwait of function fn (outside any task) after offset at */
static int waited_after(cc_unit *u, const cc_node *fn, size_t at)
{
    for (int i = 0; i < u->nsa; i++)
        if (u->sa[i].pr->kind == CC_P_TASKWAIT && !u->sa[i].in && u->sa[i].fn &&
            clang_equalCursors(u->sa[i].fn->c, fn->c) && u->sa[i].pr->off >= at)
            return 1;
    return 0;
}

void cc_frames_call(cc_unit *u, cc_node *fn, cc_node *call)
{
    char *fname = cc_spelling(fn->c);
    if (!strcmp(fname, "main") || waited_after(u, fn, call->e)) {
        free(fname);
        return;
    }
    for (int a = 1; a < call->nkid; a++) {
        if (!holds_pointer(clang_getCursorType(call->kid[a]->c))) continue;
        arg_scan s = { u, NULL, fn, clang_getNullCursor(), 0 };
        cc_walk(call->kid[a], scan_arg, &s);
        if (!s.found) continue;
        char *callee = cc_spelling(cc_referenced(call)), *var = cc_spelling(s.hit);
        unsigned line, col;
        size_t off = 0;
        cc_offset(&u->ast, clang_getCursorLocation(s.hit), &off);
        cc_line_col(&u->src, off, &line, &col);
        cc_diag(&u->src, call->b, CC_WARNING,
                "the call of %s passes a pointer to '%s' (declared at line %u) to the tasks it submits; %s() may "
                "return before they run: add '#pragma tamm taskwait' before it returns, or point into memory that "
                "outlives the tasks", callee, var, line, fname);
        free(callee);
        free(var);
        break;
    }
    free(fname);
}

void cc_frames(cc_unit *u, cc_task *t)
{
    t->frame_why = task_frame_why(u, t);
    if (t->parent || !strcmp(t->fname, "main") || waited_after(u, t->fn, t->e)) return;
    for (int i = 0; i < t->ncap; i++) {
        CXCursor d = t->cap[i].decl;
        if (clang_getCursorKind(d) != CXCursor_VarDecl || !holds_pointer(t->cap[i].type)) continue;
        unsigned line, col;
        cc_line_col(&u->src, t->cap[i].decl_off, &line, &col);
        cc_diag(&u->src, t->pr->off, CC_WARNING,
                "the task captures '%s' (declared at line %u), which may point into the frame of %s(); %s() may "
                "return before the task runs: add '#pragma tamm taskwait' before it returns, or point into memory "
                "that outlives the task", t->cap[i].name, line, t->fname, t->fname);
        return;
    }
}
