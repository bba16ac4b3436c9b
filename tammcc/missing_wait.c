/* missing_wait.c — nested tasks whose results the body reads too early (see missing_wait.h). */
#include "missing_wait.h"
#include <string.h>

/* Does a nested task's own access in mode c conflict with the body's use in mode p
 * (CC_READ/WRITE/ACCUM bits)?  Two reads or two accumulations do not. */
static int conflicts(unsigned c, unsigned p)
{
    c &= 7u;
    p &= 7u;
    if (c == CC_READ && p == CC_READ) return 0;
    if (c == CC_ACCUM && p == CC_ACCUM) return 0;
    return 1;
}

/* Is there a taskwait of t in the text [b, e)? */
static int waits_between(const cc_task *t, size_t b, size_t e)
{
    for (int k = 0; k < t->nwait; k++)
        if (t->wait[k].pr->off >= b && t->wait[k].pr->off < e) return 1;
    return 0;
}

/* Is the text offset `at` in the other branch of an if (or ?:) that holds the nested task's
 * statement in one branch: both never run in one execution. */
static int other_branch(const cc_task *kid, size_t at)
{
    for (const cc_node *n = kid->stmt; n && n->parent; n = n->parent) {
        const cc_node *p = n->parent;
        if ((p->kind != CXCursor_IfStmt && p->kind != CXCursor_ConditionalOperator) || p->nkid < 3) continue;
        int k = n == p->kid[1] ? 1 : n == p->kid[2] ? 2 : 0;
        if (!k) continue;
        const cc_node *o = p->kid[3 - k];
        if (at >= o->b && at < o->e) return 1;
    }
    return 0;
}

static const char *verb(unsigned m)
{
    m &= 7u;
    return m == CC_READ ? "reads" : m == CC_ACCUM ? "accumulates into" : "writes";
}

int cc_warn_missing_waits(const cc_source *src, const cc_task *t)
{
    int n = 0;
    for (int k = 0; k < t->nuse; k++) {
        const cc_use *u = &t->use[k];
        const cc_access *pa = &t->acc[u->acc];
        const cc_task *hit = NULL;
        const cc_access *ha = NULL;
        /* the last nested task before the use whose own access names the same block text */
        for (int c = 0; c < t->nkids; c++) {
            const cc_task *kid = t->kids[c];
            if (kid->e > u->b || waits_between(t, kid->e, u->b) || other_branch(kid, u->b)) continue;
            for (int i = 0; i < kid->nacc; i++) {
                const cc_access *ca = &kid->acc[i];
                if ((ca->mode & CC_PERMONLY) || !ca->own || strcmp(ca->key, pa->key) || !conflicts(ca->mode, pa->mode))
                    continue;
                if (!hit || kid->b > hit->b) {
                    hit = kid;
                    ha = ca;
                }
            }
        }
        if (!hit) continue;
        cc_diag(src, u->b, CC_WARNING, "the task names %s here, after the nested task at line %u that %s it, with no "
                "taskwait between: that task may not have run yet (the plain build runs it at once); add "
                "'#pragma tamm taskwait' before this use (TAMM_CHECK_ACCESS=1 reports it at run time)",
                u->src, hit->line, verb(ha->mode));
        n++;
    }
    return n;
}
