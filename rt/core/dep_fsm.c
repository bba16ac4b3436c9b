/* dep_fsm.c — the submission-FSM table (see dep_fsm.h for the two cells read from the text). */
#include "dep_fsm.h"
#include <tamm.h>

#define J(s) { s, 0 }
#define A(s) { s, 1 }
const tamm__dep_step_t tamm__dep_table[TAMM_DS_COUNT][TAMM_DP_COUNT] = {
    /*                      Read               Write               Accum */
    [TAMM_DS_UNACCESSED] = { A(TAMM_DS_READ), A(TAMM_DS_WRITE), A(TAMM_DS_ACC) },
    [TAMM_DS_READ]       = { J(TAMM_DS_READ), A(TAMM_DS_WRITE), A(TAMM_DS_ACC) },
    [TAMM_DS_WRITE]      = { A(TAMM_DS_READ), A(TAMM_DS_WRITE), A(TAMM_DS_ACC) },
    [TAMM_DS_ACC]        = { A(TAMM_DS_READ), A(TAMM_DS_WRITE), J(TAMM_DS_ACC) },
};

const char *tamm__dep_state_name(tamm__dep_state s)
{
    static const char *n[TAMM_DS_COUNT] = { "_UNACCESSED", "_READ", "_WRITE", "_ACC" };
    return (unsigned)s < TAMM_DS_COUNT ? n[s] : "?";
}
