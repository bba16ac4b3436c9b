/* perm.c — the permission-check table of seeds/tamm-runtime.md, cell for cell. */
#include "perm.h"
#include <tamm.h>

#define OK TAMM_PERM_OK
#define NO TAMM_PERM_DENIED
#define ST TAMM_PERM_INTERNAL

/* Rows: operations; columns: Read, Write, ReadWrite, Accum permission. */
static const unsigned char table[TAMM_OP_COUNT][TAMM_PCOL_COUNT] = {
    [TAMM_OP_READ]         = { OK, OK, OK, NO },
    [TAMM_OP_WRITE]        = { NO, OK, OK, NO },
    [TAMM_OP_RW]           = { NO, OK, OK, NO },
    [TAMM_OP_ACC]          = { NO, OK, OK, OK },
    [TAMM_OP_TMP]          = { NO, NO, NO, NO },
    [TAMM_OP_RELEASE]      = { OK, OK, OK, OK },
    [TAMM_OP_CANCEL]       = { OK, OK, OK, OK },
    [TAMM_OP_EVICT]        = { ST, ST, ST, ST },
    [TAMM_OP_FLUSH]        = { OK, OK, OK, OK },
    [TAMM_OP_DONE_WAITING] = { ST, ST, NO, ST },
};

tamm_perm_cell tamm__perm_cell(tamm_op op, tamm_perm_col col)
{
    if ((unsigned)op >= TAMM_OP_COUNT || (unsigned)col >= TAMM_PCOL_COUNT)
        return TAMM_PERM_DENIED;
    return (tamm_perm_cell)table[op][col];
}

int tamm__perm_allows(tamm_op op, unsigned mask)
{
    mask &= TAMM_READWRITE | TAMM_ACCUM;
    if ((unsigned)op >= TAMM_OP_COUNT)
        return 0;
    if (op == TAMM_OP_TMP)
        return 1; /* blank row: a temp is never checked, its commit is */
    if (op == TAMM_OP_EVICT || op == TAMM_OP_DONE_WAITING)
        return 1; /* runtime-internal requests */
    if (mask == 0)
        return 0;
    int cols[3], n = 0;
    if ((mask & TAMM_READWRITE) == TAMM_READWRITE) cols[n++] = TAMM_PCOL_READWRITE;
    else if (mask & TAMM_WRITE) cols[n++] = TAMM_PCOL_WRITE;
    else if (mask & TAMM_READ) cols[n++] = TAMM_PCOL_READ;
    if (mask & TAMM_ACCUM) cols[n++] = TAMM_PCOL_ACCUM;
    for (int i = 0; i < n; i++)
        if (table[op][cols[i]] != NO)
            return 1;
    return 0;
}

const char *tamm__op_name(tamm_op op)
{
    static const char *names[TAMM_OP_COUNT] = {
        "READ", "WRITE", "RW", "ACC", "TMP", "RELEASE", "CANCEL", "EVICT", "FLUSH", "DONE_WAITING"};
    return (unsigned)op < TAMM_OP_COUNT ? names[op] : "?";
}

const char *tamm__perm_name(unsigned mask)
{
    switch (mask & 7u) {
    case 0: return "no";
    case TAMM_READ: return "read";
    case TAMM_WRITE: return "write";
    case TAMM_READWRITE: return "read+write";
    case TAMM_ACCUM: return "accumulate";
    case TAMM_READ | TAMM_ACCUM: return "read+accumulate";
    case TAMM_WRITE | TAMM_ACCUM: return "write+accumulate";
    default: return "read+write+accumulate";
    }
}
