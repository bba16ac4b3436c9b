/*
 * block_fsm.h — the execution FSM (docs/runtime.md "Block states"): the state of one
 * block in one memory unit (host memory of a rank, a GPU's memory), its
 * reference count, and the actions each operation triggers.
 *
 * Pure: tamm__blk_step() says what a cell of the table does; rt/core/buffer.c
 * applies it to real buffers and issues the actions (Allocate, Dealloc and the
 * non-blocking Get, Put, AccAll of rt/core/xfer.c); rt/gpu/cuda_unit.c and
 * rt/core/spill.c apply it to a GPU's copies and to the host under a limit.
 */
#ifndef TAMM_BLOCK_FSM_H
#define TAMM_BLOCK_FSM_H

typedef enum tamm__blk_state {
    TAMM_BS_UNALLOC, TAMM_BS_UNI, TAMM_BS_READY, TAMM_BS_DIRTY, TAMM_BS_DIRTYACC, TAMM_BS_COUNT
} tamm__blk_state;

typedef enum tamm__blk_op {
    TAMM_BOP_READ, TAMM_BOP_WRITE, TAMM_BOP_RW, TAMM_BOP_ACC, TAMM_BOP_TMP,
    TAMM_BOP_RELEASE, TAMM_BOP_CANCEL, TAMM_BOP_EVICT, TAMM_BOP_FLUSH, TAMM_BOP_COUNT
} tamm__blk_op;

/** Actions, in the order they must be issued. */
enum {
    TAMM_ACT_ALLOCATE = 1u << 0,
    TAMM_ACT_ACCALL   = 1u << 1,  /* sum this unit's partial result into the home */
    TAMM_ACT_PUT      = 1u << 2,  /* write this unit's copy back to the home */
    TAMM_ACT_GET      = 1u << 3,  /* fetch the home's copy into this unit */
    TAMM_ACT_DEALLOC  = 1u << 4
};

typedef enum tamm__blk_result {
    TAMM_BLK_OK = 0,       /**< transition taken */
    TAMM_BLK_IGNORE,       /**< the table says IGNORE (TMP): nothing changes */
    TAMM_BLK_ERR,          /**< the table says ERR for this cell */
    TAMM_BLK_PRECOND       /**< the cell exists but its precondition (RC, pending) fails */
} tamm__blk_result;

typedef struct tamm__blk_step_t {
    tamm__blk_result result;
    tamm__blk_state next;   /**< new state (unchanged unless OK) */
    int rc;                /**< new reference count */
    unsigned actions;      /**< TAMM_ACT_* to issue */
    int again;             /**< 1: the op is not consumed yet (Unalloc -> UNI); apply it again */
} tamm__blk_step_t;

/* The table itself lives in block_fsm.c (the single source of truth); the
 * step is inline so that callers with a constant op reduce to a table load. */
enum { TAMM_BLK_P_NONE, TAMM_BLK_P_RC0, TAMM_BLK_P_RC0_NOTPENDING, TAMM_BLK_P_RCPOS, TAMM_BLK_P_RC1 };
enum { TAMM_BLK_R_KEEP, TAMM_BLK_R_SET0, TAMM_BLK_R_SET1, TAMM_BLK_R_INC, TAMM_BLK_R_DEC };
typedef struct tamm__blk_cell {
    unsigned char kind;   /* 0 transition, 1 ERR, 2 IGNORE */
    unsigned char pre, rc_op, next, again;
    unsigned char actions;
} tamm__blk_cell;
extern const tamm__blk_cell tamm__blk_table[TAMM_BOP_COUNT][TAMM_BS_COUNT];

/** One cell: state s with reference count rc (pending: a transfer is in flight). */
static inline tamm__blk_step_t tamm__blk_step(tamm__blk_state s, int rc, int pending, tamm__blk_op op)
{
    tamm__blk_step_t st = { TAMM_BLK_ERR, s, rc, 0, 0 };
    if ((unsigned)s >= TAMM_BS_COUNT || (unsigned)op >= TAMM_BOP_COUNT)
        return st;
    const tamm__blk_cell *c = &tamm__blk_table[op][s];
    if (c->kind == 1) return st;
    if (c->kind == 2) { st.result = TAMM_BLK_IGNORE; return st; }
    int ok;
    switch (c->pre) {
    case TAMM_BLK_P_RC0: ok = rc == 0; break;
    case TAMM_BLK_P_RC0_NOTPENDING: ok = rc == 0 && !pending; break;
    case TAMM_BLK_P_RCPOS: ok = rc > 0; break;
    case TAMM_BLK_P_RC1: ok = rc == 1; break;
    default: ok = 1; break;
    }
    if (!ok) { st.result = TAMM_BLK_PRECOND; return st; }
    st.result = TAMM_BLK_OK;
    st.next = (tamm__blk_state)c->next;
    st.actions = c->actions;
    st.again = c->again;
    switch (c->rc_op) {
    case TAMM_BLK_R_SET0: st.rc = 0; break;
    case TAMM_BLK_R_SET1: st.rc = 1; break;
    case TAMM_BLK_R_INC: st.rc = rc + 1; break;
    case TAMM_BLK_R_DEC: st.rc = rc - 1; break;
    default: break;
    }
    return st;
}

/** Whether state s with reference count rc is a pair the table can reach: a
 *  valid state, RC >= 0, no buffer handed out without memory (Unalloc: RC 0),
 *  at most one exclusive buffer (Dirty, DirtyAcc: RC <= 1).  Each applier
 *  asserts it of the unit before and after a step (TAMM_ASSERT, tamm_assert.h). */
static inline int tamm__blk_consistent(int s, int rc)
{
    if (s < 0 || s >= TAMM_BS_COUNT || rc < 0) return 0;
    if (s == TAMM_BS_UNALLOC) return rc == 0;
    if (s == TAMM_BS_DIRTY || s == TAMM_BS_DIRTYACC) return rc <= 1;
    return 1;
}

const char *tamm__blk_state_name(tamm__blk_state s);
const char *tamm__blk_op_name(tamm__blk_op op);
/** Why a PRECOND/ERR step failed, as text ("RC == 0 required, RC is 2"). */
const char *tamm__blk_why(tamm__blk_state s, int rc, int pending, tamm__blk_op op, char *buf, int n);

#endif
