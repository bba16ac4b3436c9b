/* infer_explain.c — the --explain report of a task: its accesses and permissions with their
 * modes and the reasons the analyses recorded (infer.c, infer_ptr.c, infer_call.c,
 * infer_cov.c), its captures, continuations and variants. */
#include "infer_int.h"
#include "guard.h"
#include "text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tensor dtype name of a single CC_ACCTY_* bit. */
static const char *accty_name(unsigned t)
{
    return t == CC_ACCTY_F32 ? "F32" : t == CC_ACCTY_F64 ? "F64" : t == CC_ACCTY_I32 ? "I32" : "I64";
}

void cc_infer_explain(cc_infer *in, const cc_task *t, void *fo)
{
    FILE *o = fo;
    unsigned line, col;
    cc_line_col(in->src, t->pr->off, &line, &col);
    /* the task as the user wrote it: its file (base name, as in the access lines), its label if
     * it has one, its function; a task it is nested in by label or line.  The generated names
     * (tamm_task_F_LINE) are the compiler's, not the program's, and stay out of the report. */
    const char *base = strrchr(in->src->name, '/');
    base = base ? base + 1 : in->src->name;
    if (t->pr->label.s) fprintf(o, "%s:%u: task %s in %s()", base, line, t->pr->label.s, t->fname);
    else fprintf(o, "%s:%u: task in %s()", base, line, t->fname);
    if (t->parent) {
        unsigned pl, pc;
        cc_line_col(in->src, t->parent->pr->off, &pl, &pc);
        if (t->parent->pr->label.s) fprintf(o, ", nested in task %s (line %u)", t->parent->pr->label.s, pl);
        else fprintf(o, ", nested in the task at line %u", pl);
    }
    fputc('\n', o);
    for (int i = 0; i < t->nacc; i++) {
        const cc_access *a = &t->acc[i];
        const char *kind = (a->mode & CC_PERMONLY) ? "permission" : a->fetched ? "access" : "access (fetched in the body)";
        char *key = cc_fmt("%s%s", a->key, cc_guard_explain(a)); /* a guarded block: "A[I-1][J] if (I > 0)" */
        char *sync = a->sync ? cc_fmt(" [%s]", a->sync) : NULL;
        char *acc = (a->mode & 7u) == CC_ACCUM && a->accty && !cc_inf_accty_conflict(a->accty)
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
    for (int i = 0; i < t->nrd; i++) fprintf(o, "  reads %s at submission (line %u; rule 40)\n", t->rd[i].text, t->rd[i].line);
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
