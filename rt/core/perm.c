/* perm.c — the permission-check table of docs/runtime.md "Permission checks", cell for cell. */
#include "perm.h"
#include <tamm.h>

#define OK TAMM_PERM_OK
#define NO TAMM_PERM_DENIED
#define ST TAMM_PERM_INTERNAL

/* Rows: operations; columns: Read, Write, ReadWrite, Accum permission. */
const unsigned char tamm__perm_table[TAMM_OP_COUNT][TAMM_PCOL_COUNT] = {
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

tamm__perm_cell_t tamm__perm_cell(tamm__op op, tamm__perm_col col)
{
    if ((unsigned)op >= TAMM_OP_COUNT || (unsigned)col >= TAMM_PCOL_COUNT)
        return TAMM_PERM_DENIED;
    return (tamm__perm_cell_t)tamm__perm_table[op][col];
}

const char *tamm__op_name(tamm__op op)
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
