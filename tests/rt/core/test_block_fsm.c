/*
 * test_block_fsm.c — every cell of the execution state machine's table (docs/runtime.md
 * "Block states": 9 operations x 5 block states), transcribed here
 * independently of rt/core/block_fsm.c, checked through tamm__blk_step() at each
 * precondition boundary: RC in {0, 1, 2, 3} and pending in {0, 1}.
 *
 *  - precondition holds  -> TAMM_BLK_OK, the cell's next state, RC and actions;
 *  - precondition fails  -> TAMM_BLK_PRECOND, state and RC unchanged, no action;
 *  - ERR cell            -> TAMM_BLK_ERR, unchanged;  TMP row -> TAMM_BLK_IGNORE, unchanged;
 *  - "-- / Allocate, RC = 0 / _UNI" (Unalloc x READ/WRITE/RW/ACC) -> again = 1
 *    (the access itself is applied next, from _UNI); again = 0 everywhere else.
 * The cells reachable from a user's task: test_block_rt.c.
 */
#include "harness.h"
#include "block_fsm.h"

enum { PRE_NONE, PRE_RC0, PRE_RC0_NP, PRE_RCPOS, PRE_RC1 };
enum { RC_KEEP, RC_0, RC_1, RC_INC, RC_DEC };
enum { K_T, K_ERR, K_IGN };

typedef struct {
    tamm__blk_op op;
    tamm__blk_state s;
    int kind, pre, rc;
    unsigned actions;
    tamm__blk_state next; /* for "--" as a new state: the same state */
    int again;
    const char *text;    /* the cell as written, for failure messages */
} blk_cell;

#define U TAMM_BS_UNALLOC
#define I TAMM_BS_UNI
#define R TAMM_BS_READY
#define D TAMM_BS_DIRTY
#define DA TAMM_BS_DIRTYACC
#define AL TAMM_ACT_ALLOCATE
#define GET TAMM_ACT_GET
#define PUT TAMM_ACT_PUT
#define ACCALL TAMM_ACT_ACCALL
#define DEALLOC TAMM_ACT_DEALLOC
#define ALLOC_CELL(o) { o, U, K_T, PRE_NONE, RC_0, AL, I, 1, "-- / Allocate, RC = 0 / _UNI" }

static const blk_cell seed[] = {
    /* READ */
    ALLOC_CELL(TAMM_BOP_READ),
    { TAMM_BOP_READ, I,  K_T, PRE_RC0_NP, RC_1,   GET,          R, 0, "RC == 0, !pending / Nb(Get), RC = 1 / _Ready" },
    { TAMM_BOP_READ, R,  K_T, PRE_NONE,   RC_INC, 0,            R, 0, "-- / NoOp, RC += 1 / _Ready" },
    { TAMM_BOP_READ, D,  K_T, PRE_RC0,    RC_1,   PUT,          R, 0, "RC == 0 / Nb(Put), RC = 1 / _Ready" },
    { TAMM_BOP_READ, DA, K_T, PRE_RC0,    RC_1,   ACCALL | GET, R, 0, "RC == 0 / Nb(AccAll), Nb(Get), RC = 1 / _Ready" },
    /* WRITE */
    ALLOC_CELL(TAMM_BOP_WRITE),
    { TAMM_BOP_WRITE, I,  K_T, PRE_RC0, RC_1, 0,      D, 0, "RC == 0 / NoOp, RC = 1 / _Dirty" },
    { TAMM_BOP_WRITE, R,  K_T, PRE_RC0, RC_1, 0,      D, 0, "RC == 0 / NoOp, RC = 1 / _Dirty" },
    { TAMM_BOP_WRITE, D,  K_T, PRE_RC0, RC_1, 0,      D, 0, "RC == 0 / NoOp, RC = 1 / _Dirty" },
    { TAMM_BOP_WRITE, DA, K_T, PRE_RC0, RC_1, ACCALL, D, 0, "RC == 0 / Nb(AccAll), RC = 1 / _Dirty" },
    /* RW */
    ALLOC_CELL(TAMM_BOP_RW),
    { TAMM_BOP_RW, I,  K_T, PRE_RC0_NP, RC_1, GET,          D, 0, "RC == 0, !pending / Nb(Get), RC = 1 / _Dirty" },
    { TAMM_BOP_RW, R,  K_T, PRE_RC0,    RC_1, 0,            D, 0, "RC == 0 / NoOp, RC = 1 / _Dirty" },
    { TAMM_BOP_RW, D,  K_T, PRE_RC0,    RC_1, 0,            D, 0, "RC == 0 / NoOp, RC = 1 / _Dirty" },
    { TAMM_BOP_RW, DA, K_T, PRE_RC0,    RC_1, ACCALL | GET, D, 0, "RC == 0 / Nb(AccAll), Nb(Get), RC = 1 / _Dirty" },
    /* ACC */
    ALLOC_CELL(TAMM_BOP_ACC),
    { TAMM_BOP_ACC, I,  K_T, PRE_RC0, RC_1, 0,   DA, 0, "RC == 0 / NoOp, RC = 1 / _DirtyAcc" },
    { TAMM_BOP_ACC, R,  K_T, PRE_RC0, RC_1, 0,   DA, 0, "RC == 0 / NoOp, RC = 1 / _DirtyAcc" },
    { TAMM_BOP_ACC, D,  K_T, PRE_RC0, RC_1, PUT, DA, 0, "RC == 0 / Nb(Put), RC = 1 / _DirtyAcc" },
    { TAMM_BOP_ACC, DA, K_T, PRE_RC0, RC_1, 0,   DA, 0, "RC == 0 / NoOp, RC = 1 / _DirtyAcc" },
    /* TMP */
    { TAMM_BOP_TMP, U,  K_IGN, 0, 0, 0, U,  0, "IGNORE" },
    { TAMM_BOP_TMP, I,  K_IGN, 0, 0, 0, I,  0, "IGNORE" },
    { TAMM_BOP_TMP, R,  K_IGN, 0, 0, 0, R,  0, "IGNORE" },
    { TAMM_BOP_TMP, D,  K_IGN, 0, 0, 0, D,  0, "IGNORE" },
    { TAMM_BOP_TMP, DA, K_IGN, 0, 0, 0, DA, 0, "IGNORE" },
    /* RELEASE */
    { TAMM_BOP_RELEASE, U,  K_ERR, 0, 0, 0, U, 0, "ERR" },
    { TAMM_BOP_RELEASE, I,  K_ERR, 0, 0, 0, I, 0, "ERR" },
    { TAMM_BOP_RELEASE, R,  K_T, PRE_RCPOS, RC_DEC, 0, R,  0, "RC > 0 / NoOp, RC -= 1 / _Ready" },
    { TAMM_BOP_RELEASE, D,  K_T, PRE_RC1,   RC_DEC, 0, D,  0, "RC == 1 / NoOp, RC -= 1 / _Dirty" },
    { TAMM_BOP_RELEASE, DA, K_T, PRE_RCPOS, RC_DEC, 0, DA, 0, "RC > 0 / NoOp, RC -= 1 / _DirtyAcc" },
    /* CANCEL */
    { TAMM_BOP_CANCEL, U,  K_ERR, 0, 0, 0, U, 0, "ERR" },
    { TAMM_BOP_CANCEL, I,  K_ERR, 0, 0, 0, I, 0, "ERR" },
    { TAMM_BOP_CANCEL, R,  K_T, PRE_RCPOS, RC_DEC, 0, R,  0, "RC > 0 / NoOp, RC -= 1 / _Ready" },
    { TAMM_BOP_CANCEL, D,  K_T, PRE_RC1,   RC_DEC, 0, D,  0, "RC == 1 / NoOp, RC -= 1 / _Dirty" },
    { TAMM_BOP_CANCEL, DA, K_T, PRE_RCPOS, RC_DEC, 0, DA, 0, "RC > 0 / NoOp, RC -= 1 / _DirtyAcc" },
    /* EVICT */
    { TAMM_BOP_EVICT, U,  K_T, PRE_NONE, RC_KEEP, 0,       U, 0, "-- / NoOp / --" },
    { TAMM_BOP_EVICT, I,  K_T, PRE_RC0,  RC_KEEP, DEALLOC, U, 0, "RC == 0 / Dealloc / _Unalloc" },
    { TAMM_BOP_EVICT, R,  K_T, PRE_RC0,  RC_KEEP, DEALLOC, U, 0, "RC == 0 / Dealloc / _Unalloc" },
    { TAMM_BOP_EVICT, D,  K_T, PRE_RC0,  RC_KEEP, PUT,     R, 0, "RC == 0 / Nb(Put) / _Ready" },
    { TAMM_BOP_EVICT, DA, K_T, PRE_RC0,  RC_KEEP, ACCALL,  I, 0, "RC == 0 / Nb(AccAll) / _UNI" },
    /* FLUSH */
    { TAMM_BOP_FLUSH, U,  K_T, PRE_NONE, RC_KEEP, 0,      U, 0, "-- / NoOp / --" },
    { TAMM_BOP_FLUSH, I,  K_T, PRE_NONE, RC_KEEP, 0,      I, 0, "-- / NoOp / --" },
    { TAMM_BOP_FLUSH, R,  K_T, PRE_NONE, RC_KEEP, 0,      R, 0, "-- / NoOp / --" },
    { TAMM_BOP_FLUSH, D,  K_T, PRE_RC0,  RC_KEEP, PUT,    R, 0, "RC == 0 / Nb(Put) / _Ready" },
    { TAMM_BOP_FLUSH, DA, K_T, PRE_RC0,  RC_KEEP, ACCALL, I, 0, "RC == 0 / Nb(AccAll) / _UNI" },
};

static const char *const opn[] = { "READ", "WRITE", "RW", "ACC", "TMP", "RELEASE", "CANCEL", "EVICT", "FLUSH" };
static const char *const stn[] = { "_Unalloc", "_UNI", "_Ready", "_Dirty", "_DirtyAcc" };

static int pre_holds(int pre, int rc, int pending)
{
    switch (pre) {
    case PRE_RC0: return rc == 0;
    case PRE_RC0_NP: return rc == 0 && !pending;
    case PRE_RCPOS: return rc > 0;
    case PRE_RC1: return rc == 1;
    default: return 1;
    }
}

static int new_rc(int how, int rc)
{
    switch (how) {
    case RC_0: return 0;
    case RC_1: return 1;
    case RC_INC: return rc + 1;
    case RC_DEC: return rc - 1;
    default: return rc;
    }
}

static void test_cells(void)
{
    int seen[TAMM_BOP_COUNT][TAMM_BS_COUNT];
    memset(seen, 0, sizeof seen);
    CHECK_EQ_INT(TAMM_BOP_COUNT, 9);
    CHECK_EQ_INT(TAMM_BS_COUNT, 5);
    CHECK_EQ_INT(sizeof seed / sizeof seed[0], 45);
    for (size_t i = 0; i < sizeof seed / sizeof seed[0]; i++) {
        const blk_cell *c = &seed[i];
        seen[c->op][c->s]++;
        int ok_seen = 0, fail_seen = 0;
        for (int rc = 0; rc <= 3; rc++)
            for (int pending = 0; pending <= 1; pending++) {
                tamm__blk_step_t st = tamm__blk_step(c->s, rc, pending, c->op);
                h_context("%s x %s [%s] with RC=%d pending=%d", opn[c->op], stn[c->s], c->text, rc, pending);
                if (c->kind == K_ERR) {
                    CHECK_EQ_INT(st.result, TAMM_BLK_ERR);
                    CHECK_EQ_INT(st.next, c->s);
                    CHECK_EQ_INT(st.rc, rc);
                    CHECK_EQ_INT(st.actions, 0);
                    CHECK_EQ_INT(st.again, 0);
                } else if (c->kind == K_IGN) {
                    CHECK_EQ_INT(st.result, TAMM_BLK_IGNORE);
                    CHECK_EQ_INT(st.next, c->s);
                    CHECK_EQ_INT(st.rc, rc);
                    CHECK_EQ_INT(st.actions, 0);
                    CHECK_EQ_INT(st.again, 0);
                } else if (pre_holds(c->pre, rc, pending)) {
                    ok_seen++;
                    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
                    CHECK_EQ_INT(st.next, c->next);
                    CHECK_EQ_INT(st.rc, new_rc(c->rc, rc));
                    CHECK_EQ_INT(st.actions, c->actions);
                    CHECK_EQ_INT(st.again, c->again);
                } else {
                    fail_seen++;
                    CHECK_EQ_INT(st.result, TAMM_BLK_PRECOND);
                    CHECK_EQ_INT(st.next, c->s);
                    CHECK_EQ_INT(st.rc, rc);
                    CHECK_EQ_INT(st.actions, 0);
                    CHECK_EQ_INT(st.again, 0);
                    char why[256];
                    const char *w = tamm__blk_why(c->s, rc, pending, c->op, why, (int)sizeof why);
                    CHECK(w && h_contains(w, "RC"));
                }
            }
        /* Every transition cell was exercised on both sides of its precondition. */
        if (c->kind == K_T) {
            CHECK(ok_seen > 0);
            if (c->pre != PRE_NONE) CHECK(fail_seen > 0);
        }
    }
    h_context(NULL);
    for (int o = 0; o < TAMM_BOP_COUNT; o++)
        for (int s = 0; s < TAMM_BS_COUNT; s++)
            CHECK_MSG(seen[o][s] == 1, "cell %s x %s transcribed exactly once", opn[o], stn[s]);
}

/* Named boundary checks, spelled out (what the runtime relies on). */
static void test_boundaries(void)
{
    tamm__blk_step_t st;
    /* UNI x READ: pending blocks it even at RC == 0. */
    st = tamm__blk_step(TAMM_BS_UNI, 0, 1, TAMM_BOP_READ);
    CHECK_EQ_INT(st.result, TAMM_BLK_PRECOND);
    st = tamm__blk_step(TAMM_BS_UNI, 0, 0, TAMM_BOP_READ);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK_EQ_INT(st.actions, TAMM_ACT_GET);
    /* UNI x WRITE: pending does not matter (no Get). */
    st = tamm__blk_step(TAMM_BS_UNI, 0, 1, TAMM_BOP_WRITE);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK_EQ_INT(st.next, TAMM_BS_DIRTY);
    /* Ready x READ: shared readers, RC grows. */
    st = tamm__blk_step(TAMM_BS_READY, 2, 0, TAMM_BOP_READ);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK_EQ_INT(st.rc, 3);
    /* Ready x WRITE with a reader outstanding: the "write after read in one task" error. */
    st = tamm__blk_step(TAMM_BS_READY, 1, 0, TAMM_BOP_WRITE);
    CHECK_EQ_INT(st.result, TAMM_BLK_PRECOND);
    /* Dirty x WRITE with RC 1: "write twice". */
    st = tamm__blk_step(TAMM_BS_DIRTY, 1, 0, TAMM_BOP_WRITE);
    CHECK_EQ_INT(st.result, TAMM_BLK_PRECOND);
    /* Dirty x RELEASE: exactly one holder. */
    st = tamm__blk_step(TAMM_BS_DIRTY, 1, 0, TAMM_BOP_RELEASE);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK_EQ_INT(st.rc, 0);
    CHECK_EQ_INT(st.next, TAMM_BS_DIRTY);
    st = tamm__blk_step(TAMM_BS_DIRTY, 0, 0, TAMM_BOP_RELEASE);
    CHECK_EQ_INT(st.result, TAMM_BLK_PRECOND);
    st = tamm__blk_step(TAMM_BS_DIRTY, 2, 0, TAMM_BOP_RELEASE);
    CHECK_EQ_INT(st.result, TAMM_BLK_PRECOND);
    /* Release twice of a read buffer: Ready with RC 0. */
    st = tamm__blk_step(TAMM_BS_READY, 0, 0, TAMM_BOP_RELEASE);
    CHECK_EQ_INT(st.result, TAMM_BLK_PRECOND);
    /* Release with no buffer held. */
    st = tamm__blk_step(TAMM_BS_UNALLOC, 0, 0, TAMM_BOP_RELEASE);
    CHECK_EQ_INT(st.result, TAMM_BLK_ERR);
    /* A full read cycle from _Unalloc: allocate (again), get, release. */
    st = tamm__blk_step(TAMM_BS_UNALLOC, 0, 0, TAMM_BOP_READ);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK(st.again);
    CHECK_EQ_INT(st.actions, TAMM_ACT_ALLOCATE);
    st = tamm__blk_step(st.next, st.rc, 0, TAMM_BOP_READ);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK(!st.again);
    CHECK_EQ_INT(st.next, TAMM_BS_READY);
    CHECK_EQ_INT(st.rc, 1);
    st = tamm__blk_step(st.next, st.rc, 0, TAMM_BOP_RELEASE);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK_EQ_INT(st.rc, 0);
    st = tamm__blk_step(st.next, st.rc, 0, TAMM_BOP_EVICT);
    CHECK_EQ_INT(st.result, TAMM_BLK_OK);
    CHECK_EQ_INT(st.next, TAMM_BS_UNALLOC);
    CHECK_EQ_INT(st.actions, TAMM_ACT_DEALLOC);
    /* Action bits are distinct, and issue order AccAll before Get (bit order). */
    CHECK_EQ_INT(TAMM_ACT_ALLOCATE & TAMM_ACT_ACCALL, 0);
    CHECK_EQ_INT(TAMM_ACT_ACCALL & TAMM_ACT_GET, 0);
    CHECK_EQ_INT(TAMM_ACT_PUT & TAMM_ACT_GET, 0);
    CHECK(TAMM_ACT_ACCALL < TAMM_ACT_GET);
    /* Out-of-range input: an error, no crash. */
    st = tamm__blk_step(TAMM_BS_COUNT, 0, 0, TAMM_BOP_READ);
    CHECK_EQ_INT(st.result, TAMM_BLK_ERR);
    st = tamm__blk_step(TAMM_BS_READY, 0, 0, TAMM_BOP_COUNT);
    CHECK_EQ_INT(st.result, TAMM_BLK_ERR);
}

static void test_names(void)
{
    for (int o = 0; o < TAMM_BOP_COUNT; o++) {
        const char *n = tamm__blk_op_name((tamm__blk_op)o);
        CHECK(n && strcmp(n, opn[o]) == 0);
    }
    for (int s = 0; s < TAMM_BS_COUNT; s++) {
        const char *n = tamm__blk_state_name((tamm__blk_state)s);
        CHECK(n && strcmp(n, stn[s]) == 0);
    }
    char buf[128];
    CHECK_NOTNULL(tamm__blk_why(TAMM_BS_COUNT, 0, 0, TAMM_BOP_READ, buf, (int)sizeof buf));
    const char *w = tamm__blk_why(TAMM_BS_UNI, 0, 1, TAMM_BOP_READ, buf, (int)sizeof buf);
    CHECK(h_contains(w, "pending"));
}

int main(void)
{
    test_cells();
    test_boundaries();
    test_names();
    return test_summary();
}
