/*
 * divert.c — where a top-level task goes when tamm__submit_divert is set
 * (divert.h): the submission filter (layer.h: installed here by
 * tamm__flow_install) or a streaming scope (scope.c).
 */
#include "divert.h"
#include "scope.h"
#include "layer.h"
#include "task.h"

int tamm__submit_divert; /* tamm__flow_on, or a streaming scope keeps tasks */
int tamm__flow_on;
const tamm__flow_ops *tamm__flow;

void tamm__divert_update(void) { tamm__submit_divert = tamm__flow_on || tamm__scope_keeping(); }

void tamm__flow_install(const tamm__flow_ops *ops)
{
    tamm__flow = ops;
    tamm__flow_on = ops != NULL;
    tamm__divert_update();
}

/* tamm__submit's one test for a top-level task found tamm__submit_divert set */
int tamm__divert_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, tamm__task_s **out)
{
    if (tamm__flow_on) { /* several ranks: the submission filter (the sequential task flow), given a valid task */
        if (out) *out = NULL;
        int rc = tamm__task_check(u, flags);
        return rc ? rc : tamm__flow->submit(u, o, flags, out);
    }
    int kept = tamm__scope_submit(u, o, flags, out);
    if (kept != -1) return kept;
    /* submitted now (the kept ones before it); the flag only keeps it from coming back here */
    return tamm__submit(NULL, u, o, flags | TAMM_TF_INTERNAL, out);
}
