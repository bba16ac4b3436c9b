/*
 * perm.h — the permission-check table of docs/runtime.md "Permission checks".
 *
 * A task holds permissions (what it may do to a block: read, write,
 * read+write, accumulate); every operation it performs on a buffer is checked
 * against them here.  Pure functions, no state.
 */
#ifndef TAMM_PERM_H
#define TAMM_PERM_H

/** Operations, the rows of the table. */
typedef enum tamm__op {
    TAMM_OP_READ, TAMM_OP_WRITE, TAMM_OP_RW, TAMM_OP_ACC, TAMM_OP_TMP,
    TAMM_OP_RELEASE, TAMM_OP_CANCEL, TAMM_OP_EVICT, TAMM_OP_FLUSH,
    TAMM_OP_DONE_WAITING, TAMM_OP_COUNT
} tamm__op;

/** Permission columns of the table. */
typedef enum tamm__perm_col {
    TAMM_PCOL_READ, TAMM_PCOL_WRITE, TAMM_PCOL_READWRITE, TAMM_PCOL_ACCUM, TAMM_PCOL_COUNT
} tamm__perm_col;

/** A dependence record's bit (beside TAMM_READ/WRITE/ACCUM and
 *  TAMM_CANCELLABLE) for an accumulation into a tensor with reproducible
 *  accumulation (tamm_tensor.ordered): the submission FSM treats it as Write
 *  (exclusive, in submission order) and the task accumulates on the block
 *  itself.  Permission checks ignore it (they mask with 7). */
#define TAMM__PERM_ORDERED 128u

/** What a cell says: "ok", blank (not allowed), or "*" (runtime-internal, never checked). */
typedef enum tamm__perm_cell_t { TAMM_PERM_DENIED = 0, TAMM_PERM_OK = 1, TAMM_PERM_INTERNAL = 2 } tamm__perm_cell_t;

/** The table's cell for (op, column). */
tamm__perm_cell_t tamm__perm_cell(tamm__op op, tamm__perm_col col);

/** Does a permission mask (TAMM_READ | TAMM_WRITE | TAMM_ACCUM bits) allow op?
 *  A mask allows what any of its columns allows (READ|WRITE is the
 *  ReadWritePermission column).  TMP needs no permission: the row is blank in
 *  every column because obtaining a temp never touches the tensor; committing
 *  one is checked as WRITE (put) or ACC (add).  Internal ops ("*") are allowed. */
static inline int tamm__perm_allows(tamm__op op, unsigned mask);

/** Name of an operation, for messages ("READ", "WRITE", ...). */
const char *tamm__op_name(tamm__op op);
/** Human name of a permission mask ("read", "write", "read+write", "accumulate", "none"...). */
const char *tamm__perm_name(unsigned mask);

/* The table lives in perm.c (the single source of truth); the check is inline. */
extern const unsigned char tamm__perm_table[TAMM_OP_COUNT][TAMM_PCOL_COUNT];

static inline int tamm__perm_allows(tamm__op op, unsigned mask)
{
    mask &= 7u; /* TAMM_READWRITE | TAMM_ACCUM */
    if ((unsigned)op >= TAMM_OP_COUNT)
        return 0;
    if (op == TAMM_OP_TMP)
        return 1; /* blank row: a temp is never checked, its commit is */
    if (op == TAMM_OP_EVICT || op == TAMM_OP_DONE_WAITING)
        return 1; /* runtime-internal requests */
    if (mask == 0)
        return 0;
    int col = (mask & 3u) == 3u ? TAMM_PCOL_READWRITE : (mask & 2u) ? TAMM_PCOL_WRITE
            : (mask & 1u) ? TAMM_PCOL_READ : -1;
    if (col >= 0 && tamm__perm_table[op][col] != TAMM_PERM_DENIED) return 1;
    if ((mask & 4u) && tamm__perm_table[op][TAMM_PCOL_ACCUM] != TAMM_PERM_DENIED) return 1;
    return 0;
}

#endif
