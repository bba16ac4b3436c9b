/* dep_fsm.c — the submission-FSM table (see dep_fsm.h for the two cells read from the text). */
#include "dep_fsm.h"
#include <tamm.h>

#define J(s) { s, 0 }
#define A(s) { s, 1 }
static const tamm_dep_step table[TAMM_DS_COUNT][TAMM_DP_COUNT] = {
    /*                      Read               Write               Accum */
    [TAMM_DS_UNACCESSED] = { A(TAMM_DS_READ), A(TAMM_DS_WRITE), A(TAMM_DS_ACC) },
    [TAMM_DS_READ]       = { J(TAMM_DS_READ), A(TAMM_DS_WRITE), A(TAMM_DS_ACC) },
    [TAMM_DS_WRITE]      = { A(TAMM_DS_READ), A(TAMM_DS_WRITE), A(TAMM_DS_ACC) },
    [TAMM_DS_ACC]        = { A(TAMM_DS_READ), A(TAMM_DS_WRITE), J(TAMM_DS_ACC) },
};

tamm_dep_step tamm__dep_step(tamm_dep_state s, tamm_dep_perm p)
{
    if ((unsigned)s >= TAMM_DS_COUNT || (unsigned)p >= TAMM_DP_COUNT) {
        tamm_dep_step bad = { TAMM_DS_WRITE, 1 }; /* the safe, exclusive answer */
        return bad;
    }
    return table[s][p];
}

tamm_dep_perm tamm__dep_perm_of(unsigned mask)
{
    if (mask & TAMM_WRITE) return TAMM_DP_WRITE;
    if ((mask & TAMM_READ) && (mask & TAMM_ACCUM)) return TAMM_DP_WRITE; /* read+accumulate: exclusive */
    if (mask & TAMM_ACCUM) return TAMM_DP_ACC;
    return TAMM_DP_READ;
}

const char *tamm__dep_state_name(tamm_dep_state s)
{
    static const char *n[TAMM_DS_COUNT] = { "_UNACCESSED", "_READ", "_WRITE", "_ACC" };
    return (unsigned)s < TAMM_DS_COUNT ? n[s] : "?";
}
