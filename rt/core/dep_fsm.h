/*
 * dep_fsm.h — the submission FSM of docs/runtime.md "Dependences" (dependence
 * analysis).
 *
 * Per block and dependence domain, a state (_UNACCESSED, _READ, _WRITE, _ACC)
 * and the sets DT(A,R), DT(A,W), DT(A,ACC) of the last tasks in each role.
 * A new permission either joins the current set (readers with readers,
 * accumulators with accumulators) or starts a new set after it, which puts an
 * edge from every member of the current set to the new task (the table's
 * "follows").  rt/core/dag.c keeps the sets as epochs; this module is the
 * table, pure.
 *
 * Two cells are worth a word:
 *  - _WRITE x Write follows: writes are exclusive and execution must equal the
 *    sequential order, so the new writer gets an edge from the previous one.
 *  - _ACC x Read follows into _READ: T is a reader, so after the edges from the
 *    accumulators T goes into DT(A,R).
 */
#ifndef TAMM_DEP_FSM_H
#define TAMM_DEP_FSM_H

#include "perm.h"

typedef enum tamm__dep_state { TAMM_DS_UNACCESSED, TAMM_DS_READ, TAMM_DS_WRITE, TAMM_DS_ACC, TAMM_DS_COUNT } tamm__dep_state;
/** Permission kinds of the table; read+write counts as Write. */
typedef enum tamm__dep_perm { TAMM_DP_READ, TAMM_DP_WRITE, TAMM_DP_ACC, TAMM_DP_COUNT } tamm__dep_perm;

typedef struct tamm__dep_step_t {
    tamm__dep_state next; /**< state after the transition */
    int after;           /**< 1: edges from the current set to T, then the set is {T}; 0: T joins the set */
} tamm__dep_step_t;

/* The table lives in dep_fsm.c (the single source of truth); the step is inline. */
extern const tamm__dep_step_t tamm__dep_table[TAMM_DS_COUNT][TAMM_DP_COUNT];

static inline tamm__dep_step_t tamm__dep_step(tamm__dep_state s, tamm__dep_perm p)
{
    if ((unsigned)s >= TAMM_DS_COUNT || (unsigned)p >= TAMM_DP_COUNT) {
        tamm__dep_step_t bad = { TAMM_DS_WRITE, 1 }; /* the safe, exclusive answer */
        return bad;
    }
    return tamm__dep_table[s][p];
}

/** The table's kind for a permission mask (TAMM_READ/WRITE/ACCUM bits = 1/2/4,
 *  TAMM__PERM_ORDERED: reproducible accumulation, exclusive). */
static inline tamm__dep_perm tamm__dep_perm_of(unsigned mask)
{
    if (mask & (2u | TAMM__PERM_ORDERED)) return TAMM_DP_WRITE; /* write, or an ordered accumulation */
    if ((mask & 1u) && (mask & 4u)) return TAMM_DP_WRITE; /* read+accumulate: exclusive */
    if (mask & 4u) return TAMM_DP_ACC;
    return TAMM_DP_READ;
}
const char *tamm__dep_state_name(tamm__dep_state s);

#endif
