/* translate.c — the per-file pipeline of tammcc (see translate.h). */
#include "translate.h"
#include "taskfn.h"
#include "capture.h"
#include "frames.h"
#include "capture_read.h"
#include "emit_c.h"
#include "cuda_plan.h"
#include "emit_cuda.h"
#include "missing_wait.h"
#include "stale_ptr.h"
#include "infer.h"
#include "guard.h"
#include "pragma.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* Report libclang's diagnostics; main-file ones in our format with the source line. */
static int report_clang(CXTranslationUnit tu, cc_unit *u, const size_t *remap_from, const size_t *remap_to,
                        const char *remap_kind, int nremap, int only_main)
{
    int errors = 0;
    unsigned n = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        if (sev < CXDiagnostic_Warning) { clang_disposeDiagnostic(d); continue; }
        CXString msg = clang_getDiagnosticSpelling(d);
        CXFile f;
        unsigned off;
        clang_getFileLocation(clang_getDiagnosticLocation(d), &f, NULL, NULL, &off);
        int in_main = f && u->ast.file && clang_File_isEqual(f, u->ast.file);
        if (nremap) { /* a check translation unit: only diagnostics inside the inserted checks */
            int hit = -1;
            for (int k = 0; k < nremap && hit < 0; k++) /* clang may point at the check's '(' or operator */
                if (off + 1 >= remap_from[2 * k] && off < remap_from[2 * k + 1] + 8) hit = k;
            if (!in_main || hit < 0 || sev < CXDiagnostic_Error) {
                clang_disposeString(msg);
                clang_disposeDiagnostic(d);
                continue;
            }
            size_t at = off < remap_from[2 * hit] ? remap_from[2 * hit] : off;
            if (at >= remap_from[2 * hit + 1]) at = remap_from[2 * hit];
            size_t o = remap_to[hit] + (at - remap_from[2 * hit]);
            const char *m = clang_getCString(msg);
            const char *gen = strstr(m, "controlling expression type '");
            const char *bin = strstr(m, "invalid operands to binary expression ('");
            if (gen) {
                char ty[200] = "";
                sscanf(gen + strlen("controlling expression type '"), "%199[^']", ty);
                if (remap_kind && remap_kind[hit] == 'f')
                    cc_diag(&u->src, o, CC_ERROR, "this is not a fence: expected a 'tamm_fence *', found '%s'", ty);
                else
                    cc_diag(&u->src, o, CC_ERROR, "this is not a tensor: expected a 'tamm_tensor *', found '%s'", ty);
            } else if (bin) {
                char ty[200] = "";
                sscanf(bin + strlen("invalid operands to binary expression ('"), "%199[^']", ty);
                cc_diag(&u->src, o, CC_ERROR, "this is not an integer: %s must be an integer expression, found '%s'",
                        remap_kind && remap_kind[hit] == 'p' ? "a priority or rank" : "a block index", ty);
            } else {
                cc_diag(&u->src, o, CC_ERROR, "%s", m);
            }
            errors++;
        } else if (in_main) {
            cc_diag(&u->src, off, sev >= CXDiagnostic_Error ? CC_ERROR : CC_WARNING, "%s", clang_getCString(msg));
            if (sev >= CXDiagnostic_Error) errors++;
        } else if (!only_main || sev >= CXDiagnostic_Error) {
            CXString s = clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions());
            fprintf(stderr, "%s\n", clang_getCString(s));
            clang_disposeString(s);
            if (sev >= CXDiagnostic_Error) { errors++; cc_diag(NULL, 0, CC_ERROR, "errors in included files"); }
        }
        clang_disposeString(msg);
        clang_disposeDiagnostic(d);
    }
    return errors;
}

/* Clause expressions are checked by libclang in the scope of their statement:
 * a copy of the file where each task/taskwait directive's line holds checks
 * of its expressions (same line count), parsed once more. */
static int check_clauses(cc_unit *u, CXIndex idx, const char *file, const char *const *args, int nargs)
{
    size_t cap = u->ast.len * 2 + 1024, n = 0;
    char *t = cc_xmalloc(cap);
    size_t *from = NULL, *to = NULL;
    char *kind = NULL; /* per check: 't' tensor, 'i' index, 'p' priority/rank, 'c' condition, 'f' fence */
    size_t from_cap = 0, to_cap = 0, kind_cap = 0;
    int nr = 0;
    size_t pos = 0;
#define PUT(s, l) do { size_t L_ = (l); CC_GROW(t, cap, n + L_ + 1); memcpy(t + n, (s), L_); n += L_; } while (0)
#define PUTS(s) PUT((s), strlen(s))
#define EXPR(text, off, pre, post, k) do { PUTS(pre); CC_GROW(from, from_cap, 2 * ((size_t)nr + 1)); \
        CC_GROW(to, to_cap, nr + 1); CC_GROW(kind, kind_cap, nr + 1); from[2 * nr] = n; \
        PUTS(text); from[2 * nr + 1] = n; to[nr] = (off); kind[nr] = (k); nr++; PUTS(post); } while (0)
    for (int i = 0; i < u->npr; i++) {
        cc_pragma *p = &u->pr[i];
        if (p->kind != CC_P_TASK && !(p->kind == CC_P_TASKWAIT && p->has_on_list)) continue;
        int attached = 0;
        for (int k = 0; k < u->ntasks; k++) if (u->tasks[k]->pr == p) attached = 1;
        for (int k = 0; k < u->nsa; k++) if (u->sa[k].pr == p) attached = 1;
        if (!attached) continue;
        PUT(u->ast.text + pos, p->off - pos);
        PUTS("{");
        for (int r = 0; r < p->nrefs; r++) {
            cc_ref *rf = &p->refs[r];
            EXPR(rf->tensor.s, rf->tensor.off, "(void)_Generic((", "), tamm_tensor *: 0);", 't');
            for (int d = 0; d < rf->nidx; d++)
                if (rf->idx[d].s) {
                    size_t le, hb;
                    if (cc_range_split(rf->idx[d].s, &le, &hb)) { /* a range lo:hi: both bounds are integers */
                        char *lo = cc_xstrndup(rf->idx[d].s, le);
                        EXPR(lo, rf->idx[d].off, "(void)((", ") % 1);", 'i');
                        EXPR(rf->idx[d].s + hb, rf->idx[d].off + hb, "(void)((", ") % 1);", 'i');
                        free(lo);
                    } else {
                        EXPR(rf->idx[d].s, rf->idx[d].off, "(void)((", ") % 1);", 'i');
                    }
                }
        }
        if (p->priority.s) EXPR(p->priority.s, p->priority.off, "(void)((", ") % 1);", 'p');
        if (p->on.s) EXPR(p->on.s, p->on.off, "(void)((", ") % 1);", 'p');
        if (p->ifexpr.s) EXPR(p->ifexpr.s, p->ifexpr.off, "(void)!(", ");", 'c');
        for (int w = 0; w < p->nwait; w++) EXPR(p->wait[w].s, p->wait[w].off, "(void)_Generic((", "), tamm_fence *: 0);", 'f');
        for (int w = 0; w < p->nsignal; w++) EXPR(p->signal[w].s, p->signal[w].off, "(void)_Generic((", "), tamm_fence *: 0);", 'f');
        PUTS("}");
        for (size_t k = p->off; k < p->end; k++) if (u->ast.text[k] == '\n') PUTS("\n");
        pos = p->end;
    }
    PUT(u->ast.text + pos, u->ast.len - pos);
    t[n] = 0;
    int errors = 0;
    /* nothing to check: no copy (whose braces would move a braceless loop's task statement out of the loop) */
    if (nr > 0) {
        struct CXUnsavedFile uf = { file, t, (unsigned long)n };
        CXTranslationUnit tu = clang_parseTranslationUnit(idx, file, args, nargs, &uf, 1, CXTranslationUnit_KeepGoing);
        if (tu) {
            cc_ast saved = u->ast;
            u->ast.file = clang_getFile(tu, file);
            errors = report_clang(tu, u, from, to, kind, nr, 1);
            u->ast = saved;
            clang_disposeTranslationUnit(tu);
        }
    }
    free(t);
    free(from);
    free(to);
    free(kind);
#undef PUT
#undef PUTS
#undef EXPR
    return errors;
}

/* ---- cancellable blocks named more than once (docs/language.md, "Cancellable accesses") ---- */
typedef struct { size_t off; int in_loop; } loop_probe;

static int find_loop(cc_node *n, void *arg)
{
    loop_probe *lp = arg;
    if (n->b > lp->off || n->e <= lp->off) return 0; /* the use is not under n */
    if (n->kind == CXCursor_ForStmt || n->kind == CXCursor_WhileStmt || n->kind == CXCursor_DoStmt) lp->in_loop = 1;
    return !lp->in_loop;
}

/* In the plain build a task body runs at top level, where each tamm_block of a block keeps a new
 * copy for tamm_cancel: a body that may cancel a block and names it twice (or in a loop) cancels
 * back to the last naming there, to the state before the task under tammcc.  Say so. */
static void check_cancel_uses(cc_unit *u, cc_task *t)
{
    const char *txt = u->ast.text;
    size_t b = t->stmt->b, e = t->stmt->e;
    int cancels = 0; /* the body calls tamm_cancel itself */
    for (size_t k = b; k + 11 <= e && !cancels; k++) cancels = !memcmp(txt + k, "tamm_cancel", 11);
    if (!cancels) return;
    for (int i = 0; i < t->nacc; i++) {
        if (!(t->acc[i].mode & CC_CANCEL)) continue;
        int seen = 0;
        for (int k = 0; k < t->nuse; k++) {
            if (t->use[k].acc != i) continue;
            loop_probe lp = { t->use[k].b, 0 };
            cc_walk(t->stmt, find_loop, &lp);
            if (seen++ || lp.in_loop) {
                cc_diag(&u->src, t->use[k].b, CC_WARNING,
                        "block %s, which this task may cancel, is named %s: in the plain build (pragmas ignored) each "
                        "tamm_block of it keeps the copy that tamm_cancel puts back, so a cancel after this point keeps "
                        "what the body wrote before it, which the tammcc build drops; name the block once, outside "
                        "loops, and keep the pointer", t->acc[i].key, lp.in_loop ? "inside a loop" : "again");
                break;
            }
        }
    }
}

int cc_translate(const char *file, const char *const *uargs, int nuargs, const char *c_name, const char *cu_name,
                 FILE *explain, cc_result *out)
{
    memset(out, 0, sizeof *out);
    int e0 = cc_error_count();
    const char **args = cc_xmalloc((size_t)(nuargs + 4) * sizeof *args);
    int nargs = 0;
    args[nargs++] = "-D__TAMMCC__";
    for (int i = 0; i < nuargs; i++) args[nargs++] = uargs[i];
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(idx, file, args, nargs, NULL, 0,
                                                      CXTranslationUnit_DetailedPreprocessingRecord |
                                                          CXTranslationUnit_KeepGoing, &tu);
    if (ec != CXError_Success || !tu) {
        cc_diag(NULL, 0, CC_ERROR, "cannot parse '%s' (libclang error %d; does the file exist?)", file, (int)ec);
        clang_disposeIndex(idx);
        free(args);
        return 1;
    }
    /* the macros holding tamm directives or names, expanded where they are invoked (mexpand.h), until
     * none is left: a macro invoked in another one's arguments, or in its expansion, in a later round */
    cc_expanded xp;
    memset(&xp, 0, sizeof xp);
    for (int round = 0; round < 16; round++) {
        CXFile f = clang_getFile(tu, file);
        size_t l0 = 0;
        const char *t0 = f ? clang_getFileContents(tu, f, &l0) : NULL;
        if (!t0 || !cc_expand_macros(tu, f, t0, l0, &xp)) break;
        struct CXUnsavedFile uf = { file, xp.text, (unsigned long)xp.len };
        CXTranslationUnit tu2 = NULL;
        ec = clang_parseTranslationUnit2(idx, file, args, nargs, &uf, 1, CXTranslationUnit_DetailedPreprocessingRecord |
                                                                             CXTranslationUnit_KeepGoing, &tu2);
        if (ec != CXError_Success || !tu2) {
            cc_diag(NULL, 0, CC_ERROR, "cannot parse '%s' after expanding its macros (libclang error %d)", file, (int)ec);
            clang_disposeTranslationUnit(tu);
            clang_disposeIndex(idx);
            cc_expanded_free(&xp);
            free(args);
            return 1;
        }
        clang_disposeTranslationUnit(tu);
        tu = tu2;
    }
    cc_unit u;
    memset(&u, 0, sizeof u);
    u.xp = &xp;
    u.ast.tu = tu;
    u.ast.file = clang_getFile(tu, file);
    size_t len = 0;
    u.ast.text = u.ast.file ? clang_getFileContents(tu, u.ast.file, &len) : NULL;
    u.ast.len = len;
    u.src.name = file;
    u.src.text = u.ast.text ? u.ast.text : "";
    u.src.len = len;
    if (!u.ast.text) {
        cc_diag(NULL, 0, CC_ERROR, "cannot read '%s'", file);
        goto done;
    }
    if (report_clang(tu, &u, NULL, NULL, NULL, 0, 1)) goto done;
    cc_pragmas_collect(&u);
    cc_pragmas_attach(&u);
    if (cc_error_count() > e0) goto done;
    if (check_clauses(&u, idx, file, args, nargs)) goto done;
    cc_infer *in = cc_infer_new(&u.ast, &u.src);
    for (int i = u.ntasks - 1; i >= 0; i--) { /* children (later in the file) before parents */
        cc_task *t = u.tasks[i];
        cc_infer_body(in, t);
        cc_capture(&u, t);
        cc_capture_reads(&u, t);
        cc_infer_finish(in, t);
        cc_guard_finish(in, &u.ast, t);
        cc_cuda_decide(&u, t);
    }
    cc_taskfn_infer(&u, in);
    for (int i = 0; i < u.ntasks; i++) cc_infer_regets(u.tasks[i]);
    for (int i = 0; i < u.ntasks; i++) cc_warn_missing_waits(&u.src, u.tasks[i]);
    cc_warn_stale_pointers(&u);
    for (int i = 0; i < u.ntasks; i++) cc_frames(&u, u.tasks[i]);
    for (int i = 0; i < u.ntasks; i++) cc_warn_later_stores(&u, u.tasks[i]);
    for (int i = 0; i < u.ntasks; i++) check_cancel_uses(&u, u.tasks[i]);
    if (explain)
        for (int i = 0; i < u.ntasks; i++) cc_infer_explain(in, u.tasks[i], explain);
    cc_infer_free(in);
    if (cc_error_count() > e0) goto done;
    cc_out o;
    cc_out_init(&o, c_name);
    cc_emit_c(&u, &o);
    out->c = o.buf;
    out->ntasks = u.ntasks;
    cc_out oc;
    cc_out_init(&oc, cu_name);
    if (cc_emit_cuda(&u, &oc)) out->cuda = oc.buf;
    else cc_out_free(&oc);
done:
    cc_unit_free(&u);
    clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    cc_expanded_free(&xp);
    free(args);
    return cc_error_count() - e0;
}

void cc_result_free(cc_result *r)
{
    free(r->c);
    free(r->cuda);
    memset(r, 0, sizeof *r);
}
