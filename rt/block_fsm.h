/*
 * block_fsm.h — the execution FSM of seeds/tamm-runtime.md: the state of one
 * block in one memory unit (host memory of a rank, a GPU's memory), its
 * reference count, and the actions each operation triggers.
 *
 * Pure: tamm__blk_step() says what a cell of the table does; rt/buffer.c
 * applies it to real buffers and issues the actions (Allocate, Dealloc and the
 * non-blocking Get, Put, AccAll of rt/xfer.c).
 */
#ifndef TAMM_BLOCK_FSM_H
#define TAMM_BLOCK_FSM_H

typedef enum tamm_blk_state {
    TAMM_BS_UNALLOC, TAMM_BS_UNI, TAMM_BS_READY, TAMM_BS_DIRTY, TAMM_BS_DIRTYACC, TAMM_BS_COUNT
} tamm_blk_state;

typedef enum tamm_blk_op {
    TAMM_BOP_READ, TAMM_BOP_WRITE, TAMM_BOP_RW, TAMM_BOP_ACC, TAMM_BOP_TMP,
    TAMM_BOP_RELEASE, TAMM_BOP_CANCEL, TAMM_BOP_EVICT, TAMM_BOP_FLUSH, TAMM_BOP_COUNT
} tamm_blk_op;

/** Actions, in the order they must be issued. */
enum {
    TAMM_ACT_ALLOCATE = 1u << 0,
    TAMM_ACT_ACCALL   = 1u << 1,  /* sum this unit's partial result into the home */
    TAMM_ACT_PUT      = 1u << 2,  /* write this unit's copy back to the home */
    TAMM_ACT_GET      = 1u << 3,  /* fetch the home's copy into this unit */
    TAMM_ACT_DEALLOC  = 1u << 4
};

typedef enum tamm_blk_result {
    TAMM_BLK_OK = 0,       /**< transition taken */
    TAMM_BLK_IGNORE,       /**< the table says IGNORE (TMP): nothing changes */
    TAMM_BLK_ERR,          /**< the table says ERR for this cell */
    TAMM_BLK_PRECOND       /**< the cell exists but its precondition (RC, pending) fails */
} tamm_blk_result;

typedef struct tamm_blk_step {
    tamm_blk_result result;
    tamm_blk_state next;   /**< new state (unchanged unless OK) */
    int rc;                /**< new reference count */
    unsigned actions;      /**< TAMM_ACT_* to issue */
    int again;             /**< 1: the op is not consumed yet (Unalloc -> UNI); apply it again */
} tamm_blk_step;

/** One cell: state s with reference count rc (pending: a transfer is in flight). */
tamm_blk_step tamm__blk_step(tamm_blk_state s, int rc, int pending, tamm_blk_op op);

const char *tamm__blk_state_name(tamm_blk_state s);
const char *tamm__blk_op_name(tamm_blk_op op);
/** Why a PRECOND/ERR step failed, as text ("RC == 0 required, RC is 2"). */
const char *tamm__blk_why(tamm_blk_state s, int rc, int pending, tamm_blk_op op, char *buf, int n);

#endif
