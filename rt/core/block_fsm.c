/* block_fsm.c — the execution-FSM table of docs/runtime.md "Block states", cell for cell. */
#include "block_fsm.h"
#include <stdio.h>

/* Preconditions and RC changes of a cell (block_fsm.h). */
enum { P_NONE = TAMM_BLK_P_NONE, P_RC0 = TAMM_BLK_P_RC0, P_RC0_NOTPENDING = TAMM_BLK_P_RC0_NOTPENDING,
       P_RCPOS = TAMM_BLK_P_RCPOS, P_RC1 = TAMM_BLK_P_RC1 };
enum { R_KEEP = TAMM_BLK_R_KEEP, R_SET0 = TAMM_BLK_R_SET0, R_SET1 = TAMM_BLK_R_SET1, R_INC = TAMM_BLK_R_INC,
       R_DEC = TAMM_BLK_R_DEC };
typedef tamm__blk_cell cell;

#define T(pre, act, rc, nx) { 0, pre, rc, nx, 0, act }
#define TA(act, nx) { 0, P_NONE, R_SET0, nx, 1, act }  /* "-- / Allocate, RC = 0 / _UNI", op re-applied */
#define ERR { 1, 0, 0, 0, 0, 0 }
#define IGN { 2, 0, 0, 0, 0, 0 }
#define NOP_SAME(s) { 0, P_NONE, R_KEEP, s, 0, 0 }

enum { U = TAMM_BS_UNALLOC, I = TAMM_BS_UNI, R = TAMM_BS_READY, D = TAMM_BS_DIRTY, DA = TAMM_BS_DIRTYACC };
enum { AL = TAMM_ACT_ALLOCATE, GET = TAMM_ACT_GET, PUT = TAMM_ACT_PUT, ACC = TAMM_ACT_ACCALL, DEAL = TAMM_ACT_DEALLOC };

const cell tamm__blk_table[TAMM_BOP_COUNT][TAMM_BS_COUNT] = {
    /*                    _Unalloc     _UNI                              _Ready                     _Dirty                    _DirtyAcc */
    [TAMM_BOP_READ]    = { TA(AL, I), T(P_RC0_NOTPENDING, GET, R_SET1, R), T(P_NONE, 0, R_INC, R), T(P_RC0, PUT, R_SET1, R), T(P_RC0, ACC | GET, R_SET1, R) },
    [TAMM_BOP_WRITE]   = { TA(AL, I), T(P_RC0, 0, R_SET1, D),             T(P_RC0, 0, R_SET1, D),   T(P_RC0, 0, R_SET1, D),   T(P_RC0, ACC, R_SET1, D) },
    [TAMM_BOP_RW]      = { TA(AL, I), T(P_RC0_NOTPENDING, GET, R_SET1, D), T(P_RC0, 0, R_SET1, D),  T(P_RC0, 0, R_SET1, D),   T(P_RC0, ACC | GET, R_SET1, D) },
    [TAMM_BOP_ACC]     = { TA(AL, I), T(P_RC0, 0, R_SET1, DA),            T(P_RC0, 0, R_SET1, DA),  T(P_RC0, PUT, R_SET1, DA), T(P_RC0, 0, R_SET1, DA) },
    [TAMM_BOP_TMP]     = { IGN, IGN, IGN, IGN, IGN },
    [TAMM_BOP_RELEASE] = { ERR, ERR, T(P_RCPOS, 0, R_DEC, R), T(P_RC1, 0, R_DEC, D), T(P_RCPOS, 0, R_DEC, DA) },
    [TAMM_BOP_CANCEL]  = { ERR, ERR, T(P_RCPOS, 0, R_DEC, R), T(P_RC1, 0, R_DEC, D), T(P_RCPOS, 0, R_DEC, DA) },
    [TAMM_BOP_EVICT]   = { NOP_SAME(U), T(P_RC0, DEAL, R_KEEP, U), T(P_RC0, DEAL, R_KEEP, U), T(P_RC0, PUT, R_KEEP, R), T(P_RC0, ACC, R_KEEP, I) },
    [TAMM_BOP_FLUSH]   = { NOP_SAME(U), NOP_SAME(I), NOP_SAME(R), T(P_RC0, PUT, R_KEEP, R), T(P_RC0, ACC, R_KEEP, I) },
};

const char *tamm__blk_state_name(tamm__blk_state s)
{
    static const char *n[TAMM_BS_COUNT] = { "_Unalloc", "_UNI", "_Ready", "_Dirty", "_DirtyAcc" };
    return (unsigned)s < TAMM_BS_COUNT ? n[s] : "?";
}

const char *tamm__blk_op_name(tamm__blk_op op)
{
    static const char *n[TAMM_BOP_COUNT] = { "READ", "WRITE", "RW", "ACC", "TMP", "RELEASE", "CANCEL", "EVICT", "FLUSH" };
    return (unsigned)op < TAMM_BOP_COUNT ? n[op] : "?";
}

const char *tamm__blk_why(tamm__blk_state s, int rc, int pending, tamm__blk_op op, char *buf, int n)
{
    if ((unsigned)s >= TAMM_BS_COUNT || (unsigned)op >= TAMM_BOP_COUNT) {
        snprintf(buf, (size_t)n, "invalid state or operation");
        return buf;
    }
    const cell *c = &tamm__blk_table[op][s];
    if (c->kind == 1) {
        snprintf(buf, (size_t)n, "%s is an error in state %s (no buffer is held)", tamm__blk_op_name(op), tamm__blk_state_name(s));
        return buf;
    }
    switch (c->pre) {
    case P_RC0: snprintf(buf, (size_t)n, "%s in state %s needs RC == 0, RC is %d", tamm__blk_op_name(op), tamm__blk_state_name(s), rc); break;
    case P_RC0_NOTPENDING: snprintf(buf, (size_t)n, "%s in state %s needs RC == 0 and no pending transfer, RC is %d%s", tamm__blk_op_name(op), tamm__blk_state_name(s), rc, pending ? ", a transfer is pending" : ""); break;
    case P_RCPOS: snprintf(buf, (size_t)n, "%s in state %s needs RC > 0, RC is %d", tamm__blk_op_name(op), tamm__blk_state_name(s), rc); break;
    case P_RC1: snprintf(buf, (size_t)n, "%s in state %s needs RC == 1, RC is %d", tamm__blk_op_name(op), tamm__blk_state_name(s), rc); break;
    default: snprintf(buf, (size_t)n, "allowed"); break;
    }
    return buf;
}
