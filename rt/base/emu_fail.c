/* emu_fail.c — the grammar of TAMM_CUDA_EMU_FAIL (see emu_fail.h). */
#include "emu_fail.h"
#include <stdlib.h>
#include <string.h>

const char *const tamm__emu_call_names[TAMM_EMU_NCALLS] = {
    "alloc", "free", "host_alloc", "stream_create", "event_create", "h2d", "d2h",
    "d2d", "zero", "record", "wait", "query", "launch", "blas_create"
};

int tamm__emu_fail_parse(const char *s, tamm__emu_fault *out)
{
    int n = 0;
    while (s && *s) {
        const char *c = strchr(s, ':');
        if (!c) return -1;
        int call = -1;
        for (int i = 0; i < TAMM_EMU_NCALLS; i++)
            if (strlen(tamm__emu_call_names[i]) == (size_t)(c - s) && !strncmp(s, tamm__emu_call_names[i], (size_t)(c - s)))
                call = i;
        if (call < 0) return -1;
        char *e;
        long nth = strtol(c + 1, &e, 10);
        if (e == c + 1 || nth < 1) return -1;
        int st = 0;
        if (!strncmp(e, ":sticky", 7)) { st = 1; e += 7; }
        if (*e && *e != ',') return -1;
        if (n == TAMM_EMU_MAX_FAULTS) return -1;
        if (out) { out[n].call = call; out[n].nth = nth; out[n].sticky = st; }
        n++;
        s = *e ? e + 1 : e;
    }
    return n;
}
