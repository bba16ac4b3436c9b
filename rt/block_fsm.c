/* block_fsm.c — the execution-FSM table of seeds/tamm-runtime.md, cell for cell. */
#include "block_fsm.h"
#include <stdio.h>

/* Preconditions of a cell. */
enum { P_NONE, P_RC0, P_RC0_NOTPENDING, P_RCPOS, P_RC1 };
/* How the cell changes RC. */
enum { R_KEEP, R_SET0, R_SET1, R_INC, R_DEC };

typedef struct {
    unsigned char kind;   /* 0 transition, 1 ERR, 2 IGNORE */
    unsigned char pre, rc_op, next, again;
    unsigned char actions;
} cell;

#define T(pre, act, rc, nx) { 0, pre, rc, nx, 0, act }
#define TA(act, nx) { 0, P_NONE, R_SET0, nx, 1, act }  /* "-- / Allocate, RC = 0 / _UNI", op re-applied */
#define ERR { 1, 0, 0, 0, 0, 0 }
#define IGN { 2, 0, 0, 0, 0, 0 }
#define NOP_SAME(s) { 0, P_NONE, R_KEEP, s, 0, 0 }

enum { U = TAMM_BS_UNALLOC, I = TAMM_BS_UNI, R = TAMM_BS_READY, D = TAMM_BS_DIRTY, DA = TAMM_BS_DIRTYACC };
enum { AL = TAMM_ACT_ALLOCATE, GET = TAMM_ACT_GET, PUT = TAMM_ACT_PUT, ACC = TAMM_ACT_ACCALL, DEAL = TAMM_ACT_DEALLOC };

static const cell table[TAMM_BOP_COUNT][TAMM_BS_COUNT] = {
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

static int pre_holds(int pre, int rc, int pending)
{
    switch (pre) {
    case P_RC0: return rc == 0;
    case P_RC0_NOTPENDING: return rc == 0 && !pending;
    case P_RCPOS: return rc > 0;
    case P_RC1: return rc == 1;
    default: return 1;
    }
}

tamm_blk_step tamm__blk_step(tamm_blk_state s, int rc, int pending, tamm_blk_op op)
{
    tamm_blk_step st = { TAMM_BLK_ERR, s, rc, 0, 0 };
    if ((unsigned)s >= TAMM_BS_COUNT || (unsigned)op >= TAMM_BOP_COUNT)
        return st;
    const cell *c = &table[op][s];
    if (c->kind == 1) return st;
    if (c->kind == 2) { st.result = TAMM_BLK_IGNORE; return st; }
    if (!pre_holds(c->pre, rc, pending)) { st.result = TAMM_BLK_PRECOND; return st; }
    st.result = TAMM_BLK_OK;
    st.next = (tamm_blk_state)c->next;
    st.actions = c->actions;
    st.again = c->again;
    switch (c->rc_op) {
    case R_SET0: st.rc = 0; break;
    case R_SET1: st.rc = 1; break;
    case R_INC: st.rc = rc + 1; break;
    case R_DEC: st.rc = rc - 1; break;
    default: break;
    }
    return st;
}

const char *tamm__blk_state_name(tamm_blk_state s)
{
    static const char *n[TAMM_BS_COUNT] = { "_Unalloc", "_UNI", "_Ready", "_Dirty", "_DirtyAcc" };
    return (unsigned)s < TAMM_BS_COUNT ? n[s] : "?";
}

const char *tamm__blk_op_name(tamm_blk_op op)
{
    static const char *n[TAMM_BOP_COUNT] = { "READ", "WRITE", "RW", "ACC", "TMP", "RELEASE", "CANCEL", "EVICT", "FLUSH" };
    return (unsigned)op < TAMM_BOP_COUNT ? n[op] : "?";
}

const char *tamm__blk_why(tamm_blk_state s, int rc, int pending, tamm_blk_op op, char *buf, int n)
{
    if ((unsigned)s >= TAMM_BS_COUNT || (unsigned)op >= TAMM_BOP_COUNT) {
        snprintf(buf, (size_t)n, "invalid state or operation");
        return buf;
    }
    const cell *c = &table[op][s];
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
