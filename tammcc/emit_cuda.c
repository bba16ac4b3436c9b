/* emit_cuda.c — CUDA variants (see emit_cuda.h). */
#include "emit_cuda.h"
#include <stdlib.h>
#include <string.h>

void cc_cuda_decide(cc_unit *u, cc_task *t)
{
    (void)u;
    t->has_cuda = 0;
    if (t->pr->has_device && t->pr->device == CC_DEV_CPU) t->cuda_why = strdup("device(cpu)");
    else t->cuda_why = strdup("CUDA variants are not generated yet");
}

int cc_emit_cuda(cc_unit *u, cc_out *o)
{
    (void)u;
    (void)o;
    return 0;
}
