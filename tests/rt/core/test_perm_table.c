/*
 * test_perm_table.c — every cell of the permission table (docs/runtime.md
 * "Permission checks"), transcribed here independently of rt/core/perm.c, checked
 * against tamm__perm_cell(); and tamm__perm_allows() for every permission mask.
 * (The same cells seen from a user's task: test_perm_rt.c.)
 */
#include "harness.h"
#include "perm.h"
#include <tamm.h>

/* 'o' = ok, '.' = blank, '*' = runtime-internal.  Columns: ReadPermission,
 * WritePermission, ReadWritePermission, AccumPermission (read, write, read+write, accumulate). */
static const struct { tamm__op op; const char *name; const char cells[5]; } seed[] = {
    { TAMM_OP_READ,         "READ",         "ooo." },
    { TAMM_OP_WRITE,        "WRITE",        ".oo." },
    { TAMM_OP_RW,           "RW",           ".oo." },
    { TAMM_OP_ACC,          "ACC",          ".ooo" },
    { TAMM_OP_TMP,          "TMP",          "...." },
    { TAMM_OP_RELEASE,      "RELEASE",      "oooo" },
    { TAMM_OP_CANCEL,       "CANCEL",       "oooo" },
    { TAMM_OP_EVICT,        "EVICT",        "****" },
    { TAMM_OP_FLUSH,        "FLUSH",        "oooo" },
    { TAMM_OP_DONE_WAITING, "DONE_WAITING", "**.*" },
};
static const tamm__perm_col cols[4] = { TAMM_PCOL_READ, TAMM_PCOL_WRITE, TAMM_PCOL_READWRITE, TAMM_PCOL_ACCUM };
static const char *const colname[4] = { "ReadPermission", "WritePermission", "ReadWritePermission", "AccumPermission" };

static tamm__perm_cell_t expect_cell(char c)
{
    return c == 'o' ? TAMM_PERM_OK : c == '*' ? TAMM_PERM_INTERNAL : TAMM_PERM_DENIED;
}

/* Which columns a mask of TAMM_READ/TAMM_WRITE/TAMM_ACCUM bits stands for:
 * READ|WRITE is the ReadWritePermission column; ACCUM adds the Accum column. */
static int mask_columns(unsigned mask, int *out)
{
    int n = 0;
    if ((mask & TAMM_READWRITE) == TAMM_READWRITE) out[n++] = 2;
    else if (mask & TAMM_WRITE) out[n++] = 1;
    else if (mask & TAMM_READ) out[n++] = 0;
    if (mask & TAMM_ACCUM) out[n++] = 3;
    return n;
}

static void test_cells(void)
{
    CHECK_EQ_INT(sizeof seed / sizeof seed[0], TAMM_OP_COUNT);
    CHECK_EQ_INT(TAMM_PCOL_COUNT, 4);
    for (size_t r = 0; r < sizeof seed / sizeof seed[0]; r++)
        for (int c = 0; c < 4; c++) {
            h_context("cell %s x %s", seed[r].name, colname[c]);
            CHECK_EQ_INT(tamm__perm_cell(seed[r].op, cols[c]), expect_cell(seed[r].cells[c]));
        }
    h_context(NULL);
    /* Out-of-range arguments are not cells: denied, no crash. */
    CHECK_EQ_INT(tamm__perm_cell(TAMM_OP_COUNT, TAMM_PCOL_READ), TAMM_PERM_DENIED);
    CHECK_EQ_INT(tamm__perm_cell(TAMM_OP_READ, TAMM_PCOL_COUNT), TAMM_PERM_DENIED);
    CHECK_EQ_INT(tamm__perm_cell((tamm__op)-1, TAMM_PCOL_READ), TAMM_PERM_DENIED);
}

static void test_allows(void)
{
    /* Every mask of the three permission bits, alone and with flags that carry no permission. */
    for (unsigned mask = 0; mask < 8; mask++)
        for (size_t r = 0; r < sizeof seed / sizeof seed[0]; r++) {
            int expect;
            if (seed[r].op == TAMM_OP_TMP) {
                expect = 1; /* blank row: obtaining a temp needs no permission (perm.h) */
            } else if (seed[r].op == TAMM_OP_EVICT || seed[r].op == TAMM_OP_DONE_WAITING) {
                expect = 1; /* runtime-internal: not checked against the permission */
            } else {
                int c[2], n = mask_columns(mask, c);
                expect = 0;
                for (int i = 0; i < n; i++)
                    if (seed[r].cells[c[i]] != '.') expect = 1;
            }
            h_context("allows %s with mask %u", seed[r].name, mask);
            CHECK_EQ_INT(!!tamm__perm_allows(seed[r].op, mask), expect);
            /* TEMP/CANCELLABLE/PERMISSION_ONLY flags do not change the permission. */
            CHECK_EQ_INT(!!tamm__perm_allows(seed[r].op, mask | TAMM_TEMP | TAMM_CANCELLABLE | TAMM_PERMISSION_ONLY),
                         expect);
        }
    h_context(NULL);
    /* Spot checks, spelled out, of the cells a user meets most. */
    CHECK(tamm__perm_allows(TAMM_OP_READ, TAMM_READ));
    CHECK(!tamm__perm_allows(TAMM_OP_READ, TAMM_ACCUM));
    CHECK(!tamm__perm_allows(TAMM_OP_WRITE, TAMM_READ));
    CHECK(tamm__perm_allows(TAMM_OP_WRITE, TAMM_WRITE));
    CHECK(tamm__perm_allows(TAMM_OP_ACC, TAMM_ACCUM));
    CHECK(tamm__perm_allows(TAMM_OP_ACC, TAMM_WRITE));
    CHECK(!tamm__perm_allows(TAMM_OP_ACC, TAMM_READ));
    CHECK(!tamm__perm_allows(TAMM_OP_RW, TAMM_ACCUM));
    CHECK(tamm__perm_allows(TAMM_OP_READ, TAMM_READ | TAMM_ACCUM));
    CHECK(!tamm__perm_allows(TAMM_OP_RELEASE, 0));
    CHECK(!tamm__perm_allows(TAMM_OP_COUNT, TAMM_READWRITE | TAMM_ACCUM));
}

static void test_names(void)
{
    for (size_t r = 0; r < sizeof seed / sizeof seed[0]; r++) {
        const char *n = tamm__op_name(seed[r].op);
        h_context("op name %s", seed[r].name);
        CHECK(n && strcmp(n, seed[r].name) == 0);
    }
    h_context(NULL);
    CHECK_NOTNULL(tamm__op_name(TAMM_OP_COUNT));
    CHECK(strcmp(tamm__perm_name(TAMM_READ), "read") == 0);
    CHECK(strcmp(tamm__perm_name(TAMM_WRITE), "write") == 0);
    CHECK(strcmp(tamm__perm_name(TAMM_READWRITE), "read+write") == 0);
    CHECK(strcmp(tamm__perm_name(TAMM_ACCUM), "accumulate") == 0);
    for (unsigned m = 0; m < 64; m++) CHECK_NOTNULL(tamm__perm_name(m));
}

int main(void)
{
    test_cells();
    test_allows();
    test_names();
    return test_summary();
}
