/* infer_explain.c — the --explain report of a task: its accesses and permissions with their
 * modes and the reasons the analyses recorded (infer.c, infer_ptr.c, infer_call.c,
 * infer_cov.c), its captures, continuations and variants. */
#include "infer_int.h"
#include "guard.h"
#include "text.h"
#include "xalloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of the parenthesised group that starts at s (*s == '('), or NULL. */
static const char *group_end(const char *s)
{
    for (int depth = 0; *s; s++)
        if (*s == '(') depth++;
        else if (*s == ')' && --depth == 0) return s;
    return NULL;
}

/* A condition as a reader writes it: no parentheses around a single name or
 * number, spaces around '<' and '&&'.  Caller frees. */
static char *readable_cond(const char *c)
{
    size_t n = strlen(c);
    char *r = cc_xmalloc(3 * n + 1), *o = r;
    for (size_t i = 0; i < n; i++) {
        if (c[i] == '(') { /* "(name)": the name alone */
            size_t j = i + 1;
            while (j < n && (isalnum((unsigned char)c[j]) || c[j] == '_')) j++;
            if (j > i + 1 && j < n && c[j] == ')') {
                memcpy(o, c + i + 1, j - i - 1);
                o += j - i - 1;
                i = j;
                continue;
            }
        }
        if (c[i] == '<' && c[i + 1] != '<' && c[i + 1] != '=' && (i == 0 || c[i - 1] != '<')) {
            memcpy(o, " < ", 3);
            o += 3;
        } else if (c[i] == '&' && c[i + 1] == '&') {
            memcpy(o, " && ", 4);
            o += 4;
            i++;
        } else {
            *o++ = c[i];
        }
    }
    *o = 0;
    return r;
}

/* An index range that a call's range (rule 38) guards with the callee's
 * assumptions: "((C)?(LO):0):((C)?(HI):0)", or for a point
 * "((C)?(P):0):((C)?(P)+1:0)" (collapsed text).  Sets *cond to C and *plain
 * to "LO:HI" or "P" (caller frees both); 0 when ix has another form. */
static int unguard(const char *ix, char **cond, char **plain)
{
    if (ix[0] != '(' || ix[1] != '(') return 0;
    const char *ce = group_end(ix + 1); /* the ')' of "(C)" */
    if (!ce || ce[1] != '?' || ce[2] != '(') return 0;
    const char *le = group_end(ce + 2); /* the ')' of "(LO)" */
    if (!le || strncmp(le + 1, ":0):(", 5)) return 0;
    size_t clen = (size_t)(ce - ix); /* "(C)" */
    const char *h = le + 6;          /* the second half, after its "(" */
    if (strncmp(h, ix + 1, clen) || h[clen] != '?' || h[clen + 1] != '(') return 0;
    const char *he = group_end(h + clen + 1); /* the ')' of "(HI)" or "(P)" */
    if (!he) return 0;
    char *lo = cc_xstrndup(ce + 3, (size_t)(le - ce - 3));
    char *hi = cc_xstrndup(h + clen + 2, (size_t)(he - h - clen - 2));
    int ok = 1;
    if (!strcmp(he + 1, ":0)")) {
        *plain = cc_fmt("%s:%s", lo, hi);
    } else if (!strcmp(he + 1, "+1:0)") && !strcmp(lo, hi)) {
        *plain = cc_xstrdup(lo);
    } else {
        ok = 0;
    }
    if (ok) *cond = cc_xstrndup(ix + 2, clen - 2);
    free(lo);
    free(hi);
    return ok;
}

/* The access's key as the report prints it: a range guarded by a call's
 * assumptions (rule 38) as the range, then its condition once: "C[i0:m][j] if
 * i0 < m (where that fails, the whole dimension)".  Caller frees. */
static char *readable_key(const cc_access *a)
{
    const char *k = a->key, *b = strchr(k, '[');
    if (!b) return cc_xstrdup(k);
    char *out = cc_xstrndup(k, (size_t)(b - k)), *conds = NULL;
    int guarded = 0;
    while (*b == '[') {
        int depth = 0;
        const char *e = b;
        for (; *e; e++) {
            if (*e == '[') depth++;
            else if (*e == ']' && --depth == 0) break;
        }
        if (!*e) break;
        char *ix = cc_xstrndup(b + 1, (size_t)(e - b - 1)), *cond, *plain, *w;
        if (unguard(ix, &cond, &plain)) {
            guarded = 1;
            if (!conds || strcmp(conds, cond)) { /* each different condition once */
                char *rc = readable_cond(cond);
                w = conds ? cc_fmt("%s && %s", conds, rc) : cc_xstrdup(rc);
                free(rc);
                free(conds);
                conds = w;
            }
            w = cc_fmt("%s[%s]", out, plain);
            free(cond);
            free(plain);
        } else {
            w = cc_fmt("%s[%s]", out, ix);
        }
        free(ix);
        free(out);
        out = w;
        b = e + 1;
    }
    if (*b) { /* not brackets all the way: as it is */
        free(out);
        free(conds);
        return cc_xstrdup(k);
    }
    if (guarded) {
        char *w = cc_fmt("%s if %s (where that fails, the whole dimension)", out, conds);
        free(out);
        out = w;
    }
    free(conds);
    return out;
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
        char *rk = readable_key(a);
        char *key = cc_fmt("%s%s", rk, cc_guard_explain(a)); /* a guarded block: "A[I-1][J] if (I > 0)" */
        free(rk);
        char *sync = a->sync ? cc_fmt(" [%s]", a->sync) : NULL;
        char *acc = (a->mode & 7u) == CC_ACCUM && a->accty && !cc_inf_accty_conflict(a->accty)
                        ? cc_fmt(" [if %s is %s (checked at submission); else readwrite]", a->tensor, cc_accty_name(a->accty))
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
    if (t->frame_why) fprintf(o, "  waits for its children before its frame goes (%s)\n", t->frame_why);
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
