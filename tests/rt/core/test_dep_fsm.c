/*
 * test_dep_fsm.c — every cell of the table of docs/runtime.md "Dependences", transcribed
 * here independently of rt/core/dep_fsm.c; each cell's text in the runtime's first notation:
 *
 * A cell "DT(A,X) = DT(A,X) U {T}" means T joins the current set (after = 0);
 * "DT(A,X) = T" (with or without Remove(...)) means the set becomes {T}, after
 * edges from every member of the current set (after = 1; from _UNACCESSED the
 * set is empty, so no edge).  The two readings documented in dep_fsm.h:
 *   _WRITE x Write -> after (writes are exclusive); _ACC x Read -> _READ with T a reader.
 * The same cells seen from a user's tasks: test_dep_rt.c.
 */
#include "harness.h"
#include "dep_fsm.h"
#include <tamm.h>

typedef struct { tamm__dep_state s; tamm__dep_perm p; tamm__dep_state next; int after; const char *seed_text; } dep_cell;

static const dep_cell seed[] = {
    { TAMM_DS_UNACCESSED, TAMM_DP_READ,  TAMM_DS_READ,  1, "DT(A,R) = T /_READ" },
    { TAMM_DS_UNACCESSED, TAMM_DP_WRITE, TAMM_DS_WRITE, 1, "DT(A, W)= T /_WRITE" },
    { TAMM_DS_UNACCESSED, TAMM_DP_ACC,   TAMM_DS_ACC,   1, "DT(A,ACC) = T /_ACC" },
    { TAMM_DS_READ,       TAMM_DP_READ,  TAMM_DS_READ,  0, "DT(A,R) = DT(A,R) U {T} /_READ" },
    { TAMM_DS_READ,       TAMM_DP_WRITE, TAMM_DS_WRITE, 1, "Remove(DT(A,R)), DT(A,W) = T /_WRITE" },
    { TAMM_DS_READ,       TAMM_DP_ACC,   TAMM_DS_ACC,   1, "Remove(DT(A,R)), DT(A,ACC)= T /_ACC" },
    { TAMM_DS_WRITE,      TAMM_DP_READ,  TAMM_DS_READ,  1, "Remove(DT(A,W)), DT(A,R) =T /_READ" },
    { TAMM_DS_WRITE,      TAMM_DP_WRITE, TAMM_DS_WRITE, 1, "DT(A,W) = T /_WRITE (+ edge: writes are exclusive)" },
    { TAMM_DS_WRITE,      TAMM_DP_ACC,   TAMM_DS_ACC,   1, "Remove(DT(A,W)), DT(A,ACC)= T /_ACC" },
    { TAMM_DS_ACC,        TAMM_DP_READ,  TAMM_DS_READ,  1, "Remove(DT(A, ACC)), DT(A, W) = T /_Read (T is a reader)" },
    { TAMM_DS_ACC,        TAMM_DP_WRITE, TAMM_DS_WRITE, 1, "Remove(DT(A, ACC)), DT(A, W) = T /_WRITE" },
    { TAMM_DS_ACC,        TAMM_DP_ACC,   TAMM_DS_ACC,   0, "DT(A,ACC)= DT(A,ACC) U {T} /_ACC" },
};

static const char *sname(tamm__dep_state s)
{
    static const char *n[] = { "_UNACCESSED", "_READ", "_WRITE", "_ACC" };
    return (unsigned)s < 4 ? n[s] : "?";
}
static const char *pname(tamm__dep_perm p)
{
    static const char *n[] = { "Read", "Write", "Accum" };
    return (unsigned)p < 3 ? n[p] : "?";
}

static void test_cells(void)
{
    CHECK_EQ_INT(TAMM_DS_COUNT, 4);
    CHECK_EQ_INT(TAMM_DP_COUNT, 3);
    CHECK_EQ_INT(sizeof seed / sizeof seed[0], TAMM_DS_COUNT * TAMM_DP_COUNT);
    for (size_t i = 0; i < sizeof seed / sizeof seed[0]; i++) {
        const dep_cell *c = &seed[i];
        tamm__dep_step_t st = tamm__dep_step(c->s, c->p);
        h_context("%s x %s: %s", sname(c->s), pname(c->p), c->seed_text);
        CHECK_EQ_INT(st.next, c->next);
        CHECK_EQ_INT(!!st.after, c->after);
    }
    h_context(NULL);
}

/* Replaying a sequence through the table: which tasks may run together. */
static void test_sequences(void)
{
    /* R R R W: the three readers form one set, the writer goes after all of them. */
    tamm__dep_state s = TAMM_DS_UNACCESSED;
    tamm__dep_perm seq1[] = { TAMM_DP_READ, TAMM_DP_READ, TAMM_DP_READ, TAMM_DP_WRITE, TAMM_DP_WRITE };
    int after1[] = { 1, 0, 0, 1, 1 };
    for (int i = 0; i < 5; i++) {
        tamm__dep_step_t st = tamm__dep_step(s, seq1[i]);
        h_context("sequence R R R W W, step %d", i);
        CHECK_EQ_INT(!!st.after, after1[i]);
        s = st.next;
    }
    CHECK_EQ_INT(s, TAMM_DS_WRITE);
    /* ACC ACC R R ACC: accumulators join, readers after them join each other, then ACC after. */
    s = TAMM_DS_UNACCESSED;
    tamm__dep_perm seq2[] = { TAMM_DP_ACC, TAMM_DP_ACC, TAMM_DP_READ, TAMM_DP_READ, TAMM_DP_ACC, TAMM_DP_ACC };
    int after2[] = { 1, 0, 1, 0, 1, 0 };
    for (int i = 0; i < 6; i++) {
        tamm__dep_step_t st = tamm__dep_step(s, seq2[i]);
        h_context("sequence ACC ACC R R ACC ACC, step %d", i);
        CHECK_EQ_INT(!!st.after, after2[i]);
        s = st.next;
    }
    h_context(NULL);
    CHECK_EQ_INT(s, TAMM_DS_ACC);
}

static void test_perm_of(void)
{
    /* "read+write counts as Write"; read+accumulate is exclusive (docs/runtime.md). */
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_READ), TAMM_DP_READ);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_WRITE), TAMM_DP_WRITE);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_READWRITE), TAMM_DP_WRITE);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_ACCUM), TAMM_DP_ACC);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_READ | TAMM_ACCUM), TAMM_DP_WRITE);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_WRITE | TAMM_ACCUM), TAMM_DP_WRITE);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_READWRITE | TAMM_ACCUM), TAMM_DP_WRITE);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_ACCUM | TAMM_CANCELLABLE), TAMM_DP_ACC);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_READ | TAMM_PERMISSION_ONLY), TAMM_DP_READ);
    CHECK_EQ_INT(tamm__dep_perm_of(TAMM_WRITE | TAMM_CANCELLABLE), TAMM_DP_WRITE);
}

static void test_names(void)
{
    for (int s = 0; s < TAMM_DS_COUNT; s++) {
        const char *n = tamm__dep_state_name((tamm__dep_state)s);
        CHECK(n && strcmp(n, sname((tamm__dep_state)s)) == 0);
    }
    CHECK_NOTNULL(tamm__dep_state_name(TAMM_DS_COUNT));
}

int main(void)
{
    test_cells();
    test_sequences();
    test_perm_of();
    test_names();
    return test_summary();
}
