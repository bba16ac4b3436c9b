/* emit_c.c — outlining, submissions and continuations in the generated C (see emit_c.h). */
#include "emit_c.h"
#include "capture.h"
#include "capture_read.h"
#include "cuda_blas.h"
#include "guard.h"
#include "text.h"
#include "xalloc.h"
#include "cc_assert.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { E_USE, E_SYNC_USE, E_TASK, E_WAIT_IN_TASK, E_TASKWAIT, E_FENCE, E_STREAM_BEGIN, E_STREAM_END, E_OUTLINE,
       E_INCLUDE, E_CALL_PRE, E_CALL_POST, E_FRAME_WAIT, E_READ };
typedef struct edit { size_t b, e; int kind; void *p; int n; } edit;
typedef struct { edit *v; int n; size_t cap; } edits;

static void add_edit(edits *es, size_t b, size_t e, int kind, void *p, int n)
{
    CC_ASSERT(b <= e); /* an edit replaces [b, e) of the source */
    CC_GROW(es->v, es->cap, es->n + 1);
    es->v[es->n++] = (edit){ b, e, kind, p, n };
}

static int cmp_edit(const void *x, const void *y)
{
    const edit *a = x, *b = y;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    int ra = a->kind == E_INCLUDE ? 0 : a->kind == E_OUTLINE ? 1 : 2;
    int rb = b->kind == E_INCLUDE ? 0 : b->kind == E_OUTLINE ? 1 : 2;
    return ra - rb;
}

/* text for a comment: a '*' '/' pair would end it (static buffer) */
static const char *comment_safe(const char *s)
{
    static char buf[512];
    size_t n = 0;
    for (; *s && n + 3 < sizeof buf; s++) {
        buf[n++] = *s;
        if (*s == '*' && s[1] == '/') buf[n++] = ' ';
    }
    buf[n] = 0;
    return buf;
}

/* the task submits children (nested tasks, or tasks of the task functions it calls) or
 * waits: its blocks are fetched on first use and given back before each submission */
static int has_kids_or_waits(const cc_task *t) { return t->nkids > 0 || t->nwait > 0 || t->ntfcall > 0; }

int cc_mode_at_submit(const cc_access *a)
{
    unsigned m = a->mode & 7u;
    if (m == CC_WRITE && a->cov && !a->explicit_mode) return CC_AT_SUBMIT_WRITE;
    /* one element type known (a single CC_ACCTY_* dtype bit) */
    if (m == CC_ACCUM && a->accty && !(a->accty & (a->accty - 1)) && a->accty < CC_ACCTY_OTHER) return CC_AT_SUBMIT_ACCUM;
    return 0;
}

char *cc_access_how(const cc_task *t, int i, const char *args)
{
    CC_ASSERT(i >= 0 && i < t->nacc);
    const cc_access *a = &t->acc[i];
    unsigned m = a->mode & 7u;
    CC_ASSERT(m != 0); /* inference gave every access a mode */
    int c = (a->mode & CC_CANCEL) != 0;
    if (cc_mode_at_submit(a)) return cc_fmt("%s->tamm_m%d", args, i);
    const char *s = m == CC_READ ? "TAMM_CC_READ" : m == CC_WRITE ? (c ? "TAMM_CC_CWRITE" : "TAMM_CC_WRITE") :
                    m == CC_ACCUM ? (c ? "TAMM_CC_CACC" : "TAMM_CC_ACC") : (c ? "TAMM_CC_CRW" : "TAMM_CC_RW");
    return cc_xstrdup(s);
}

/* the tamm_dtype of a single CC_ACCTY_* bit, and its C type */
static const char *accty_ctype(unsigned t)
{
    return t == CC_ACCTY_F32 ? "float" : t == CC_ACCTY_F64 ? "double" : t == CC_ACCTY_I32 ? "a 4-byte integer" : "an 8-byte integer";
}

static int is_array(CXType t) { return clang_getCanonicalType(t).kind == CXType_ConstantArray; }

/* ---------------------------------------------------------------- labels */
char *cc_task_label(cc_unit *u, cc_task *t)
{
    char *r = NULL;
    if (t->pr->label.s) return cc_xstrdup(t->pr->label.s);
    cc_node *s = t->stmt;
    while (s->kind == CXCursor_CompoundStmt && s->nkid == 1) s = s->kid[0];
    s = cc_down_wrappers(s);
    if (s->kind == CXCursor_CallExpr) {
        char *f = cc_spelling(cc_referenced(s));
        if (*f) r = cc_fmt("\"%s\"", f);
        free(f);
        if (r) return r;
    }
    (void)u;
    return cc_fmt("\"%s:%u\"", t->fname, t->line);
}

static void c_string(cc_out *o, const char *s)
{
    cc_puts(o, "\"");
    for (; *s; s++) {
        if (*s == '\n') { cc_puts(o, "\\n"); continue; }
        if (*s == '"' || *s == '\\') cc_puts(o, "\\");
        cc_putn(o, s, 1);
    }
    cc_puts(o, "\"");
}

/* ---------------------------------------------------------------- macros
 * Outlined code comes before the function it is taken from, where the macros
 * that function defines are not in effect yet.  So the outlined code of a
 * function saves every macro the function changes (push_macro), replays
 * before each task the function's macro directives that precede the task's
 * body, in source order (a macro #undef'd or redefined there is so in the
 * outlined code too), and restores the macros at its end (pop_macro): the rest
 * of the file sees the macros as written.  A task statement replaced by its
 * submission keeps, after the submission, the macro directives it held. */
int cc_emit_macros(cc_out *o, const cc_unit *u, size_t b, size_t e, int undef_first)
{
    unsigned next = 0; /* the user's line that the next output line maps to (0: unknown) */
    int n = 0;
    for (int i = 0; i < u->nmac; i++) {
        const cc_macro_dir *m = &u->mac[i];
        if (m->b < b || m->b >= e) continue;
        cc_newline(o);
        if (undef_first && m->kind == CC_MAC_DEFINE) {
            cc_printf(o, "#undef %s\n", m->name);
            next = 0;
        }
        unsigned line = cc_line_of(&u->src, m->b);
        if (line != next) cc_line_to(o, line, u->src.name);
        cc_putn(o, u->ast.text + m->b, m->e - m->b);
        cc_puts(o, "\n");
        next = line + cc_count_nl(u->ast.text, m->b, m->e) + 1;
        n++;
    }
    return n;
}

/* the distinct names that the macro directives starting in [b, e) change, in order of first appearance */
static int macro_names(const cc_unit *u, size_t b, size_t e, const char ***names)
{
    int n = 0;
    size_t cap = 0;
    *names = NULL;
    for (int i = 0; i < u->nmac; i++) {
        const cc_macro_dir *m = &u->mac[i];
        int seen = m->b < b || m->b >= e;
        for (int k = 0; k < n && !seen; k++) seen = !strcmp((*names)[k], m->name);
        if (seen) continue;
        *names = cc_grow(*names, &cap, (size_t)n + 1, sizeof **names);
        (*names)[n++] = m->name;
    }
    return n;
}

int cc_emit_macro_save(cc_out *o, const cc_unit *u, size_t b, size_t e)
{
    const char **names;
    int n = macro_names(u, b, e, &names);
    if (n) cc_newline(o);
    for (int k = 0; k < n; k++) cc_printf(o, "#pragma push_macro(\"%s\")\n", names[k]);
    free(names);
    return n;
}

void cc_emit_macro_restore(cc_out *o, const cc_unit *u, size_t b, size_t e, size_t at)
{
    const char **names;
    int n = macro_names(u, b, e, &names);
    if (n) cc_newline(o);
    for (int k = n - 1; k >= 0; k--) {
        int depth = 0; /* the user's push_macro of the name replayed in [b, at) and not popped */
        for (int i = 0; i < u->nmac; i++) {
            const cc_macro_dir *m = &u->mac[i];
            if (m->b < b || m->b >= at || strcmp(m->name, names[k])) continue;
            if (m->kind == CC_MAC_PUSH) depth++;
            else if (m->kind == CC_MAC_POP && depth > 0) depth--;
        }
        for (; depth >= 0; depth--) cc_printf(o, "#pragma pop_macro(\"%s\")\n", names[k]);
    }
    free(names);
}

/* ---------------------------------------------------------------- submission */
static void emit_region(cc_out *o, cc_unit *u, cc_task *scope, size_t b, size_t e, int indent_body);

/* tamm_cc_release of every block t fetches (last first with `reverse`), each
 * written between pre and post: statements, or the operands of a ','. */
static void emit_give_back(cc_out *o, cc_task *t, int reverse, const char *pre, const char *post)
{
    for (int k = 0; k < t->nacc; k++) {
        int i = reverse ? t->nacc - 1 - k : k;
        if (!t->acc[i].fetched) continue;
        char *how = cc_access_how(t, i, "tamm_a_");
        cc_printf(o, "%stamm_cc_release(tamm_ctx_, &tamm_b%d_, %s)%s", pre, i, how, post);
        free(how);
    }
}

/* The checks of a CUDA kernel that hold only for some values (docs/language.md, "Variants: CPU
 * and CUDA"), evaluated on the task's arguments: tamm_nocuda_ says which failed (then the task is
 * submitted without its CUDA variant, with tamm_task_opts.cuda_withheld, which the runtime
 * counts), or is NULL.  Not evaluated without a CUDA variant linked in or a GPU to run it. */
static void emit_cuda_checks(cc_out *o, const cc_task *t, const char *A)
{
    cc_printf(o, "    const char *tamm_nocuda_ = NULL;  /* the CUDA kernel's checks (tammcc --explain) */\n"
                 "    if (%s && tamm_num_gpus()) {\n", t->cuda_sym);
    if (t->cuda_params) { /* the check is over values the CUDA variant computes before its launch */
        cc_puts(o, "        /* the kernel's values computed before its launch (a called function's parameters) */\n");
        for (const char *l = t->cuda_params; *l;) {
            const char *nl = strchr(l, '\n');
            size_t n = nl ? (size_t)(nl - l) : strlen(l);
            cc_printf(o, "        %.*s\n", (int)n, l);
            l += n + (nl != NULL);
        }
    }
    const char *kw = "if";
    if (t->cuda_check) {
        char *c = cc_fmt("the elements it stores or accumulates into are not proven distinct per GPU thread: %s does not hold",
                         t->cuda_check);
        cc_printf(o, "        %s (!(%s))\n            tamm_nocuda_ = ", kw, t->cuda_check);
        c_string(o, c);
        cc_puts(o, ";\n");
        free(c);
        kw = "else if";
    }
    for (int i = 0; i < t->ncuda_alias; i++) {
        int a = t->cuda_alias[i][0], b = t->cuda_alias[i][1];
        char *ia = t->acc[a].nidx ? cc_fmt("%s.tamm_i%d", A, a) : cc_xstrdup("NULL");
        char *ib = t->acc[b].nidx ? cc_fmt("%s.tamm_i%d", A, b) : cc_xstrdup("NULL");
        cc_printf(o, "        %s (tamm_cc_same_block(%s.tamm_T%d, %d, %s, %s.tamm_T%d, %d, %s))\n            tamm_nocuda_ = ", kw,
                  A, a, t->acc[a].nidx, ia, A, b, t->acc[b].nidx, ib);
        char *c = cc_fmt("%s and %s are one block", t->acc[a].key, t->acc[b].key);
        c_string(o, c);
        cc_puts(o, ";\n");
        free(c);
        free(ia);
        free(ib);
        kw = "else if";
    }
    cc_puts(o, "    }\n");
}

static void emit_submit(cc_out *o, cc_unit *u, cc_task *t, const char *ctx)
{
    cc_pragma *p = t->pr;
    cc_printf(o, "{   /* #pragma tamm task (%s:%u) */\n", u->src.name, t->line);
    if (t->parent && has_kids_or_waits(t->parent)) {
        emit_give_back(o, t->parent, 0, "    ", ";\n"); /* the parent's blocks, before a child may need them */
    }
    const char *A = t->parent ? "tamm_c_" : "tamm_a_";
    cc_printf(o, "    struct %s_args %s;\n    memset(&%s, 0, sizeof %s);\n", t->name, A, A, A);
    for (int i = 0; i < t->ncap; i++) {
        cc_var *v = &t->cap[i];
        if (is_array(v->type) || clang_isConstQualifiedType(v->type)) /* arrays, and const fields, are copied */
            cc_printf(o, "    memcpy((void *)&%s.%s, &%s, sizeof %s.%s);\n", A, v->field, v->name, A, v->field);
        else cc_printf(o, "    %s.%s = %s;\n", A, v->field, v->name);
    }
    for (int i = 0; i < t->nrd; i++) { /* values outside tensors the body reads, as the plain build reads them (rule 40) */
        cc_read *r = &t->rd[i];
        char *x = cc_collapse(r->text);
        if (cc_read_by_copy(r))
            cc_printf(o, "    memcpy((void *)&%s.tamm_r%d, &(%s), sizeof %s.tamm_r%d);", A, i, x, A, i);
        else
            cc_printf(o, "    %s.tamm_r%d = (%s);", A, i, x);
        cc_printf(o, "  /* read at submission: the body reads it at line %u */\n", r->line);
        free(x);
    }
    for (int i = 0; i < t->nacc; i++) {
        cc_access *a = &t->acc[i];
        if (a->guard) /* a guarded block: its tensor and indices are evaluated, and it is requested, only if the guard holds */
        {
            cc_printf(o, "    if ((%s.tamm_g%d = !!(%s))) {  /* %s ", A, i, a->guard, cc_mode_name(a->mode & (7u | CC_CANCEL)));
            cc_printf(o, "%s", comment_safe(a->key));
            cc_printf(o, "%s */\n    ", comment_safe(cc_guard_explain(a)));
        }
        cc_printf(o, "    %s.tamm_T%d = (%s);", A, i, a->tensor);
        for (int d = 0; d < a->nidx; d++) {
            /* (i), TAMM_ALL, TAMM_RANGE((lo), (hi)), or a loop's range clamped to the dimension */
            char *T = cc_fmt("%s.tamm_T%d", A, i);
            char *ix = a->loop_range >> d & 1u ? cc_loop_range_expr(a->idx[d], T, d) : cc_index_expr(a->idx[d]);
            cc_printf(o, " %s.tamm_i%d[%d] = %s;", A, i, d, ix);
            free(ix);
            free(T);
        }
        if (a->guard) cc_puts(o, "\n");
        else cc_printf(o, "  /* %s %s */\n", cc_mode_name(a->mode & (7u | CC_CANCEL)), comment_safe(a->key));
        if (cc_mode_at_submit(a) == CC_AT_SUBMIT_WRITE)
            cc_printf(o, "    %s%s.tamm_m%d = tamm_cc_write_mode(%s.tamm_T%d, %s.tamm_i%d, %s);\n", a->guard ? "    " : "",
                      A, i, A, i, A, i, a->cov);
        else if (cc_mode_at_submit(a) == CC_AT_SUBMIT_ACCUM)
            cc_printf(o, "    %s%s.tamm_m%d = tamm_cc_accum_mode(%s.tamm_T%d, TAMM_%s, %s);  /* adds as %s */\n",
                      a->guard ? "    " : "", A, i, A, i, cc_accty_name(a->accty),
                      a->mode & CC_CANCEL ? "TAMM_CC_CACC" : "TAMM_CC_ACC", accty_ctype(a->accty));
        if (a->guard) cc_puts(o, "    }\n");
    }
    char *label = cc_task_label(u, t);
    int K = t->nacc > 0 ? t->nacc : 1;
    cc_printf(o, "    tamm_ref tamm_r_[%d];\n    const char *tamm_s_[%d];\n", K, K);
    int checks = t->has_cuda && (t->cuda_check || t->ncuda_alias);
    if (checks) emit_cuda_checks(o, t, A);
    /* a CUDA variant that calls cuBLAS / cuSOLVER is given only where the GPUs can serve them (cuda_blas.c);
     * a kernel whose checks failed at submission is not given (the CPU variant runs) */
    char *gpu = cc_blas_gpu_test(t);
    char *cuda = !t->has_cuda ? cc_xstrdup("NULL")
               : t->cuda_libs ? cc_fmt("%s ? %s : NULL", gpu, t->cuda_sym)
               : checks ? cc_fmt("tamm_nocuda_ ? NULL : %s", t->cuda_sym) : cc_xstrdup(t->cuda_sym);
    if (t->has_cuda && p->has_device && p->device == CC_DEV_CUDA) /* device(cuda): the CPU variant only without a GPU */
        cc_printf(o, "    tamm_task tamm_t_ = { %s && %s%s ? NULL : %s, %s, &%s, sizeof %s, tamm_r_, "
                     "%s_refs(&%s, tamm_r_, tamm_s_),\n", gpu, t->cuda_sym, checks ? " && !tamm_nocuda_" : "", t->name,
                  cuda, A, A, t->name, A);
    else
        cc_printf(o, "    tamm_task tamm_t_ = { %s, %s, &%s, sizeof %s, tamm_r_, %s_refs(&%s, tamm_r_, tamm_s_),\n", t->name,
                  cuda, A, A, t->name, A);
    free(gpu);
    free(cuda);
    cc_printf(o, "                          %s, %s%s%s, %s%s%s, ", label, p->priority.s ? "(int)(" : "0",
              p->priority.s ? p->priority.s : "", p->priority.s ? ")" : "", p->on.s ? "(int)(" : "-1",
              p->on.s ? p->on.s : "", p->on.s ? ")" : "");
    c_string(o, u->src.name);
    cc_printf(o, ", %u, tamm_s_ };\n", t->line);
    free(label);
    int opts = p->ifexpr.s || p->nwait || p->nsignal || p->collective || checks || t->outside;
    if (opts) {
        cc_puts(o, "    tamm_task_opts tamm_o_;\n    memset(&tamm_o_, 0, sizeof tamm_o_);\n");
        if (p->ifexpr.s) cc_printf(o, "    tamm_o_.undeferred = !(%s);\n", p->ifexpr.s);
        if (p->nwait) {
            cc_puts(o, "    tamm_fence *tamm_wf_[] = {");
            for (int i = 0; i < p->nwait; i++) cc_printf(o, "%s (%s)", i ? "," : "", p->wait[i].s);
            cc_printf(o, " };\n    tamm_o_.wait = tamm_wf_;\n    tamm_o_.nwait = %d;\n", p->nwait);
        }
        if (p->nsignal) {
            cc_puts(o, "    tamm_fence *tamm_sf_[] = {");
            for (int i = 0; i < p->nsignal; i++) cc_printf(o, "%s (%s)", i ? "," : "", p->signal[i].s);
            cc_printf(o, " };\n    tamm_o_.signal = tamm_sf_;\n    tamm_o_.nsignal = %d;\n", p->nsignal);
        }
        if (p->collective) cc_puts(o, "    tamm_o_.collective = 1;\n");
        if (checks) cc_puts(o, "    tamm_o_.cuda_withheld = tamm_nocuda_;  /* counted (TAMM_STATS) and traced */\n");
        if (t->outside) {
            cc_puts(o, "    tamm_o_.outside_store = ");
            c_string(o, t->outside);
            cc_puts(o, ";  /* an error with several ranks */\n");
        }
        cc_printf(o, "    (void)tamm_submit_ex(%s, &tamm_t_, &tamm_o_);\n}", ctx);
    } else {
        cc_printf(o, "    (void)tamm_submit(%s, &tamm_t_);\n}", ctx);
    }
}

/* ---------------------------------------------------------------- outlined code */
static void emit_releases(cc_out *o, cc_task *t) { emit_give_back(o, t, 1, "    ", ";\n"); }

/* Children that may point into the body's frame (frames.h): they complete before it goes.  The
 * worker runs other tasks meanwhile (tamm_cc_taskwait); the blocks were given back. */
static void emit_frame_wait(cc_out *o, const cc_task *t)
{
    if (t->frame_why) cc_puts(o, "    (void)tamm_cc_taskwait();  /* the children may point into this frame */\n");
}

static void emit_split(cc_out *o, cc_task *t, cc_wait *w)
{
    cc_puts(o, "{   /* #pragma tamm taskwait: the rest of the task runs as a continuation */\n");
    if (t->frame_why) { /* the children may point into the blocks this split leaves */
        emit_give_back(o, t, 1, "    ", ";\n");
        cc_puts(o, "    (void)tamm_cc_taskwait();\n");
    }
    for (int i = 0; i < w->nlive; i++) {
        cc_var *v = &t->loc[w->live[i]];
        cc_printf(o, "    memcpy(&tamm_a_->%s, &%s, sizeof %s);\n", v->field, v->name, v->name);
    }
    cc_printf(o, "    tamm_a_->tamm_resume = %d;\n    goto tamm_split_;\n}\ntamm_resume_%d: ;", w->id, w->id);
    for (int i = 0; i < w->nlive; i++) {
        cc_var *v = &t->loc[w->live[i]];
        cc_printf(o, "\n    memcpy((void *)&%s, &tamm_a_->%s, sizeof %s);", v->name, v->field, v->name);
    }
}

/* a field's declaration in the .c: the type as the user's file spells it */
static char *c_decl(CXType ty, const char *name) { return cc_decl(ty, name, 0); }

void cc_emit_args_struct(cc_out *o, const cc_task *t, char *(*decl)(CXType ty, const char *name), int full)
{
    cc_printf(o, "struct %s_args {\n", t->name);
    for (int i = 0; i < t->ncap; i++) {
        char *d = decl(t->cap[i].type, t->cap[i].field);
        cc_printf(o, "    %s;\n", d);
        free(d);
    }
    for (int i = 0; i < t->nacc; i++) {
        CC_ASSERT(t->acc[i].nidx >= 0 && t->acc[i].nidx <= CC_MAX_DIMS);
        cc_printf(o, "    tamm_tensor *tamm_T%d;", i);
        if (t->acc[i].nidx) cc_printf(o, " long tamm_i%d[%d];", i, t->acc[i].nidx);
        if (cc_mode_at_submit(&t->acc[i])) cc_printf(o, " unsigned tamm_m%d;", i);
        if (t->acc[i].guard) cc_printf(o, " int tamm_g%d;", i);
        cc_printf(o, "  /* %s", comment_safe(t->acc[i].key));
        cc_printf(o, "%s */\n", full ? comment_safe(cc_guard_explain(&t->acc[i])) : "");
    }
    int more = 0; /* fields after the block accesses (the .c's only) */
    if (full) {
        for (int i = 0; i < t->nrd; i++) {
            char *f = cc_fmt("tamm_r%d", i), *d = cc_read_decl(&t->rd[i], f), *x = cc_collapse(t->rd[i].text);
            cc_printf(o, "    %s;  /* %s", d, comment_safe(x));
            cc_printf(o, " at submission (line %u) */\n", t->rd[i].line);
            free(f);
            free(d);
            free(x);
        }
        if (t->nwait) {
            cc_puts(o, "    int tamm_resume;               /* continuation point */\n");
            for (int i = 0; i < t->nloc; i++) {
                char *d = cc_decl(t->loc[i].type, t->loc[i].field, 0);
                cc_printf(o, "    %s;\n", d);
                free(d);
            }
        }
        more = t->nwait || t->nrd;
    }
    if (t->ncap == 0 && t->nacc == 0 && !more) cc_puts(o, "    char tamm_unused;\n");
    cc_puts(o, "};\n\n");
}

/* Where the macro directives of the function being outlined have been replayed up to. */
typedef struct { const cc_node *fn; size_t at; } macro_replay;

/* Bring the macros to their state at the start of t's body (see "macros"). */
static void macros_at(cc_out *o, cc_unit *u, macro_replay *mr, const cc_task *t)
{
    if (t->stmt->b < mr->at) { /* a parent after its children: from the function's start again */
        cc_emit_macro_restore(o, u, mr->fn->b, mr->fn->e, mr->at);
        cc_emit_macro_save(o, u, mr->fn->b, mr->fn->e);
        mr->at = mr->fn->b;
    }
    cc_emit_macros(o, u, mr->at, t->stmt->b, 0);
    mr->at = t->stmt->b;
}

static void emit_outlined(cc_out *o, cc_unit *u, cc_task *t, macro_replay *mr)
{
    for (int k = 0; k < t->nkids; k++) emit_outlined(o, u, t->kids[k], mr);
    cc_newline(o);
    macros_at(o, u, mr, t);
    cc_line_self(o);
    cc_printf(o, "\n/* ---- task %s: %s:%u, in %s() ---- */\n", t->name, u->src.name, t->line, t->fname);
    /* arguments (and, with taskwaits, the continuation's frame) */
    cc_emit_args_struct(o, t, c_decl, 1);
    /* refs */
    cc_printf(o, "/* the task's refs (guarded ones only if their guard held at submission), and their source texts */\n"
                 "static int %s_refs(const struct %s_args *tamm_p_, tamm_ref *tamm_r_, const char **tamm_s_)\n{\n", t->name, t->name);
    if (!t->nacc) cc_puts(o, "    (void)tamm_p_;\n    (void)tamm_r_;\n    (void)tamm_s_;\n");
    else cc_puts(o, "    int tamm_n_ = 0;\n");
    for (int i = 0; i < t->nacc; i++) {
        cc_access *ac = &t->acc[i];
        char *how;
        if (cc_mode_at_submit(ac)) {
            how = cc_fmt("tamm_p_->tamm_m%d%s", i, ac->mode & CC_PERMONLY ? " | TAMM_PERMISSION_ONLY" : "");
        } else {
            unsigned m = ac->mode & 7u;
            const char *mm = m == CC_READ ? "TAMM_READ" : m == CC_WRITE ? "TAMM_WRITE" : m == CC_ACCUM ? "TAMM_ACCUM" : "TAMM_READWRITE";
            how = cc_fmt("%s%s%s", mm, ac->mode & CC_CANCEL ? " | TAMM_CANCELLABLE" : "",
                         ac->mode & CC_PERMONLY ? " | TAMM_PERMISSION_ONLY" : "");
        }
        const char *in = ac->guard ? "    " : "";
        if (ac->guard) cc_printf(o, "    if (tamm_p_->tamm_g%d) {\n", i);
        if (ac->nidx) cc_printf(o, "%s    tamm_cc_ref(&tamm_r_[tamm_n_], tamm_p_->tamm_T%d, %d, tamm_p_->tamm_i%d, %s);\n", in, i, ac->nidx, i, how);
        else cc_printf(o, "%s    tamm_cc_ref(&tamm_r_[tamm_n_], tamm_p_->tamm_T%d, 0, NULL, %s);\n", in, i, how);
        cc_printf(o, "%s    tamm_s_[tamm_n_++] = ", in);
        c_string(o, ac->key);
        cc_puts(o, ";\n");
        if (ac->guard) cc_puts(o, "    }\n");
        free(how);
    }
    cc_printf(o, "    return %s;\n}\n\n", t->nacc ? "tamm_n_" : "0");
    if (t->has_cuda) cc_printf(o, "extern void %s(tamm_ctx *, void *) __attribute__((weak));\n\n", t->cuda_sym);
    /* the CPU variant */
    cc_printf(o, "static void %s(tamm_ctx *tamm_ctx_, void *tamm_args_)\n{\n", t->name);
    for (int i = 0; i < t->npre; i++) cc_printf(o, "    %s;  /* from %s() */\n", t->pre[i], t->fname);
    cc_printf(o, "    struct %s_args *tamm_a_ = (struct %s_args *)tamm_args_;\n", t->name, t->name);
    cc_puts(o, "    (void)tamm_ctx_;  /* a body that fetches no block and submits nothing does not use it */\n");
    for (int i = 0; i < t->ncap; i++) {
        cc_var *v = &t->cap[i];
        char *d = cc_decl(v->type, v->name, 0);
        if (is_array(v->type)) cc_printf(o, "    %s;\n    memcpy(%s, tamm_a_->%s, sizeof %s);\n", d, v->name, v->field, v->name);
        else cc_printf(o, "    %s = tamm_a_->%s;\n", d, v->field);
        free(d);
    }
    int lazy = has_kids_or_waits(t);
    for (int i = 0; i < t->nacc; i++) {
        if (!t->acc[i].fetched) continue;
        if (lazy) {
            cc_printf(o, "    void *tamm_b%d_ = NULL;  /* %s, fetched on first use */\n", i, comment_safe(t->acc[i].key));
        } else {
            char *how = cc_access_how(t, i, "tamm_a_");
            char *g = NULL; /* a guarded block is fetched if its guard held at submission */
            if (t->acc[i].guard) g = cc_fmt("tamm_a_->tamm_g%d ? ", i);
            if (t->acc[i].nidx)
                cc_printf(o, "    void *tamm_b%d_ = %stamm_cc_get(tamm_ctx_, tamm_a_->tamm_T%d, tamm_a_->tamm_i%d, %s)%s;  /* %s",
                          i, g ? g : "", i, i, how, g ? " : NULL" : "", comment_safe(t->acc[i].key));
            else
                cc_printf(o, "    void *tamm_b%d_ = %stamm_cc_get(tamm_ctx_, tamm_a_->tamm_T%d, NULL, %s)%s;  /* %s", i,
                          g ? g : "", i, how, g ? " : NULL" : "", comment_safe(t->acc[i].key));
            cc_printf(o, "%s */\n", comment_safe(cc_guard_explain(&t->acc[i])));
            free(g);
            free(how);
        }
    }
    if (t->ncap) {
        cc_puts(o, "   ");
        for (int i = 0; i < t->ncap; i++) cc_printf(o, " (void)%s;", t->cap[i].name);
        cc_puts(o, "\n");
    }
    if (t->nwait) {
        cc_puts(o, "    switch (tamm_a_->tamm_resume) {  /* a continuation resumes after its taskwait */\n");
        for (int i = 0; i < t->nwait; i++) cc_printf(o, "    case %d: goto tamm_resume_%d;\n", t->wait[i].id, t->wait[i].id);
        cc_puts(o, "    default: break;\n    }\n");
    }
    emit_region(o, u, t, t->stmt->b, t->e, 1);
    cc_line_self(o);
    emit_releases(o, t);
    emit_frame_wait(o, t);
    if (t->nwait) {
        cc_puts(o, "    return;\ntamm_split_:\n");
        emit_releases(o, t);
        emit_frame_wait(o, t);
        char *label = cc_task_label(u, t);
        cc_printf(o, "    {\n        tamm_ref tamm_r_[%d];\n        const char *tamm_s_[%d];\n", t->nacc ? t->nacc : 1,
                  t->nacc ? t->nacc : 1);
        cc_printf(o, "        tamm_task tamm_t_ = { %s, NULL, tamm_a_, sizeof *tamm_a_, tamm_r_, %s_refs(tamm_a_, tamm_r_, tamm_s_),\n"
                     "                              %s, 0, -1, ", t->name, t->name, label);
        c_string(o, u->src.name);
        cc_printf(o, ", %u, tamm_s_ };\n        (void)tamm_submit_continuation(tamm_ctx_, &tamm_t_, NULL);\n    }\n", t->line);
        free(label);
    }
    cc_puts(o, "}\n");
    mr->at = t->e; /* the body replayed the directives it holds */
}

/* ---------------------------------------------------------------- regions */
/* Does [b, e) of s hold a preprocessing directive (a line that starts with '#')? */
static int holds_directive(const char *s, size_t b, size_t e)
{
    for (size_t i = b; i < e; i++) {
        if (s[i] != '\n') continue;
        size_t j = i + 1;
        while (j < e && (s[j] == ' ' || s[j] == '\t')) j++;
        if (j < e && s[j] == '#') return 1;
    }
    return 0;
}

/* Emit what replaces edit ed; returns 1 if it wrote `#line` directives to the
 * user's file that leave the output mapped elsewhere than the edit's end. */
static int emit_edit(cc_out *o, cc_unit *u, cc_task *scope, edit *ed)
{
    switch (ed->kind) {
    case E_USE: {
        cc_task *t = scope;
        int i = ed->n;
        CC_ASSERT(t != NULL && i >= 0 && i < t->nacc); /* a block use belongs to a task's access */
        if (has_kids_or_waits(t)) {
            char *how = cc_access_how(t, i, "tamm_a_");
            if (t->acc[i].nidx)
                cc_printf(o, "TAMM_CC_LAZY(tamm_ctx_, tamm_b%d_, tamm_a_->tamm_T%d, tamm_a_->tamm_i%d, %s)", i, i, i, how);
            else
                cc_printf(o, "TAMM_CC_LAZY(tamm_ctx_, tamm_b%d_, tamm_a_->tamm_T%d, NULL, %s)", i, i, how);
            free(how);
        } else {
            cc_printf(o, "tamm_b%d_", i);
        }
        break;
    }
    case E_SYNC_USE:
        cc_puts(o, "tamm_cc_block(");
        c_string(o, ((cc_use *)ed->p)->src);
        cc_puts(o, ", ");
        break;
    case E_TASK: {
        cc_task *t = ed->p;
        size_t from = ed->b;
        if (holds_directive(u->ast.text, t->pr->end, t->stmt->b)) {
            /* the #else / #elif / #endif (and the branches not taken) of an #if that chose the directive:
             * kept as they are, the task follows them */
            cc_line_to(o, cc_line_of(&u->src, t->pr->end), u->src.name);
            cc_putn(o, u->ast.text + t->pr->end, t->stmt->b - t->pr->end);
            from = t->stmt->b;
        }
        cc_line_to(o, t->line, u->src.name);
        emit_submit(o, u, t, scope ? "tamm_ctx_" : "NULL");
        return cc_emit_macros(o, u, from, ed->e, 0) > 0 || from != ed->b; /* those the task statement held */
    }
    case E_WAIT_IN_TASK: emit_split(o, scope, ed->p); break;
    case E_TASKWAIT: {
        cc_pragma *p = ed->p;
        if (!p->has_on_list) {
            cc_puts(o, "(void)tamm_cc_taskwait();  /* #pragma tamm taskwait */");
            break;
        }
        cc_printf(o, "{   /* #pragma tamm taskwait on(...) */\n    tamm_ref tamm_r_[%d];\n", p->nrefs);
        for (int i = 0; i < p->nrefs; i++) {
            cc_ref *r = &p->refs[i];
            cc_printf(o, "    tamm_cc_ref(&tamm_r_[%d], (%s), %d, ", i, r->tensor.s, r->nidx);
            if (r->nidx) {
                cc_puts(o, "(const long[]){");
                for (int d = 0; d < r->nidx; d++) {
                    char *ix = r->idx[d].s && cc_range_split(r->idx[d].s, NULL, NULL) ? cc_index_expr(r->idx[d].s) : NULL;
                    cc_printf(o, "%s%s", d ? ", " : "", ix ? ix : r->idx[d].s ? r->idx[d].s : "TAMM_ALL");
                    free(ix);
                }
                cc_puts(o, "}");
            } else {
                cc_puts(o, "NULL");
            }
            cc_puts(o, ", TAMM_READWRITE);\n");
        }
        cc_printf(o, "    (void)tamm_wait_on(tamm_r_, %d);\n}", p->nrefs);
        break;
    }
    case E_CALL_PRE: { /* a call of a task function: the task gives its blocks back first */
        cc_puts(o, "(");
        emit_give_back(o, scope, 0, "", ", ");
        break;
    }
    case E_CALL_POST: cc_puts(o, ")"); break;
    case E_FRAME_WAIT: /* before the '}' of a block whose variables the children may point into */
        emit_give_back(o, scope, 1, " ", ";");
        cc_puts(o, " (void)tamm_cc_taskwait(); ");
        break;
    case E_READ:
        CC_ASSERT(scope != NULL && ed->n >= 0 && ed->n < scope->nrd);
        cc_printf(o, "tamm_a_->tamm_r%d", ed->n);
        break; /* the value read at submission */
    case E_FENCE: cc_puts(o, "(void)tamm_cc_fence();  /* #pragma tamm fence */"); break;
    case E_STREAM_BEGIN: cc_puts(o, "{ (void)tamm_streaming_begin();  /* #pragma tamm streaming */"); break;
    case E_STREAM_END: cc_puts(o, " (void)tamm_streaming_end(); }"); break;
    case E_INCLUDE:
        cc_line_self(o);
        cc_puts(o, "#include <tamm_cc.h>\n");
        break;
    case E_OUTLINE: {
        cc_node *fn = ed->p;
        CC_ASSERT(fn != NULL && fn->b <= fn->e);
        /* the enclosing function's prototype first: a task body may call it (recursion) */
        cc_node *body = fn->nkid ? fn->kid[fn->nkid - 1] : NULL;
        if (body && body->kind == CXCursor_CompoundStmt && body->b > fn->b) {
            size_t e = body->b;
            while (e > fn->b && (u->ast.text[e - 1] == ' ' || u->ast.text[e - 1] == '\n' || u->ast.text[e - 1] == '\t')) e--;
            cc_line_self(o);
            cc_putn(o, u->ast.text + fn->b, e - fn->b);
            cc_puts(o, ";\n");
        }
        macro_replay mr = { fn, fn->b };
        cc_emit_macro_save(o, u, fn->b, fn->e);
        for (int i = 0; i < u->ntasks; i++)
            if (u->tasks[i]->fn == fn && !u->tasks[i]->parent) emit_outlined(o, u, u->tasks[i], &mr);
        cc_emit_macro_restore(o, u, fn->b, fn->e, mr.at);
        cc_puts(o, "\n");
        break;
    }
    }
    return 0;
}

/* the edits that belong to scope (a task, or NULL: the top level) within [b, e) */
static void collect(cc_unit *u, cc_task *scope, size_t b, size_t e, edits *es)
{
    if (scope) {
        for (int i = 0; i < scope->nuse; i++) {
            cc_use *us = &scope->use[i];
            CC_ASSERT(us->acc >= 0 && us->acc < scope->nacc);
            if (scope->acc[us->acc].fetched) {
                add_edit(es, us->b, us->e, E_USE, NULL, us->acc);
            } else { /* fetched in the body: `tamm_block(` becomes `tamm_cc_block("A[i][j]", `, for errors */
                size_t p = us->b + 10;
                while (p < us->e && u->ast.text[p] != '(') p++;
                if (p < us->e) add_edit(es, us->b, p + 1, E_SYNC_USE, us, 0);
            }
        }
        for (int k = 0; k < scope->nkids; k++) add_edit(es, scope->kids[k]->b, scope->kids[k]->e, E_TASK, scope->kids[k], 0);
        for (int k = 0; k < scope->nwait; k++)
            add_edit(es, scope->wait[k].pr->off, scope->wait[k].pr->end, E_WAIT_IN_TASK, &scope->wait[k], 0);
        for (int k = 0; k < scope->nrd; k++) add_edit(es, scope->rd[k].b, scope->rd[k].e, E_READ, NULL, k);
        for (int k = 0; k < scope->ntfcall; k++) {
            add_edit(es, scope->tfcall[k]->b, scope->tfcall[k]->b, E_CALL_PRE, NULL, k);
            add_edit(es, scope->tfcall[k]->e, scope->tfcall[k]->e, E_CALL_POST, NULL, k);
        }
        for (int k = 0; k < scope->nframe_at; k++)
            add_edit(es, scope->frame_at[k], scope->frame_at[k], E_FRAME_WAIT, NULL, k);
        return;
    }
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        if (!t->parent && t->b >= b && t->e <= e) add_edit(es, t->b, t->e, E_TASK, t, 0);
    }
    for (int i = 0; i < u->nsa; i++) {
        struct cc_standalone *s = &u->sa[i];
        if (s->in || s->pr->off < b || s->pr->off >= e) continue;
        if (s->pr->kind == CC_P_TASKWAIT) add_edit(es, s->pr->off, s->pr->end, E_TASKWAIT, s->pr, 0);
        else if (s->pr->kind == CC_P_FENCE) add_edit(es, s->pr->off, s->pr->end, E_FENCE, s->pr, 0);
        else if (s->pr->kind == CC_P_STREAMING) {
            add_edit(es, s->pr->off, s->pr->end, E_STREAM_BEGIN, s->pr, 0);
            add_edit(es, s->e, s->e, E_STREAM_END, s->pr, 0);
        }
    }
    /* the helpers for generated code, included where the first function with directives starts:
     * after the user's own includes and feature-test macros */
    if (u->nfns) {
        cc_node *first = u->fns[0];
        for (int i = 1; i < u->nfns; i++) if (u->fns[i]->b < first->b) first = u->fns[i];
        add_edit(es, first->b, first->b, E_INCLUDE, NULL, 0);
    }
    for (int i = 0; i < u->nfns; i++) {
        int has = 0;
        for (int k = 0; k < u->ntasks; k++)
            if (u->tasks[k]->fn == u->fns[i]) has = 1;
        if (has) add_edit(es, u->fns[i]->b, u->fns[i]->b, E_OUTLINE, u->fns[i], 0);
    }
}

static void emit_region(cc_out *o, cc_unit *u, cc_task *scope, size_t b, size_t e, int body)
{
    CC_ASSERT(b <= e && e <= u->ast.len);
    edits es = { NULL, 0, 0 };
    collect(u, scope, b, e, &es);
    if (es.n > 0) qsort(es.v, (size_t)es.n, sizeof *es.v, cmp_edit);
    size_t pos = b;
    if (body) cc_puts(o, "    {\n");
    cc_line_to(o, cc_line_of(&u->src, b), u->src.name);
    if (body) { /* keep the first line's indentation */
        size_t ls = b;
        while (ls > 0 && u->ast.text[ls - 1] != '\n') ls--;
        for (size_t i = ls; i < b; i++) cc_putn(o, u->ast.text[i] == '\t' ? "\t" : " ", 1);
    }
    for (int i = 0; i < es.n; i++) {
        edit *ed = &es.v[i];
        if (ed->b < pos) continue; /* inside an earlier edit (cannot happen for well-nested input) */
        CC_ASSERT(ed->e <= e); /* an edit of the region ends inside it: the copy after it has a length */
        cc_putn(o, u->ast.text + pos, ed->b - pos);
        unsigned l0 = o->line;
        int remap = emit_edit(o, u, scope, ed);
        unsigned produced = o->line - l0;
        pos = ed->e;
        int block = ed->kind == E_OUTLINE || ed->kind == E_INCLUDE;
        int moved = remap || produced != cc_count_nl(u->ast.text, ed->b, ed->e);
        if (moved || block) cc_line_to(o, cc_line_of(&u->src, pos), u->src.name);
        if (!block && moved) {
            size_t ls = pos;
            while (ls > 0 && u->ast.text[ls - 1] != '\n') ls--;
            for (size_t k = ls; k < pos; k++) cc_putn(o, u->ast.text[k] == '\t' ? "\t" : " ", 1);
        }
    }
    cc_putn(o, u->ast.text + pos, e - pos);
    if (body) cc_puts(o, "\n    }\n");
    free(es.v);
}

void cc_emit_c(cc_unit *u, cc_out *o)
{
    cc_printf(o, "/* Generated by tammcc from %s: do not edit.  Task variants are outlined before the\n"
                 " * function that holds them; #line directives point back at %s. */\n", u->src.name, u->src.name);
    emit_region(o, u, NULL, 0, u->ast.len, 0);
}
