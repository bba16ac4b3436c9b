/*
 * test_perm_rt.c — the "Permissions Checks" table as a user meets it: every
 * (tamm_get_buf_* , permission) pair inside a task, the permission given either
 * as a PERMISSION_ONLY ref or as an access ref; the commit of temp buffers
 * (put needs W, add needs ACC or W); TEMP refs carrying no permission; and
 * nested tasks whose permissions must lie within the parent's.
 *
 *  permitted     -> a non-NULL buffer, TAMM_OK from tamm_wait_all, the effect on the block;
 *  not permitted -> TAMM_ON_ERROR=return: TAMM_EPERM from tamm_wait_all, a scratch
 *                   (non-NULL, writable) buffer, the block unchanged, one message;
 *                   default mode: exit status 1, message "tamm: error: task 'LABEL'
 *                   (FILE:LINE): ..." naming the tensor and the access.
 * Pure table: test_perm_table.c.
 */
#include "tamm_util.h"

enum { G_READ, G_WRITE, G_RW, G_ACCUM, G_TMP, G_CWRITE, G_CREADWRITE, G_COUNT };
static const char *const gname[G_COUNT] = { "read", "write", "readwrite", "accum", "tmp", "cwrite", "creadwrite" };
static const unsigned perms[4] = { TAMM_READ, TAMM_WRITE, TAMM_READWRITE, TAMM_ACCUM };
static const char *const pname[4] = { "R", "W", "RW", "ACC" };

/* The permission table (docs/runtime.md "Permission checks"), for the gets: 1 = ok.
 * cwrite/creadwrite are cancellable WRITE/RW; tmp needs no permission. */
static const int allowed[G_COUNT][4] = {
    /*            R  W  RW ACC */
    [G_READ]   = { 1, 1, 1, 0 },
    [G_WRITE]  = { 0, 1, 1, 0 },
    [G_RW]     = { 0, 1, 1, 0 },
    [G_ACCUM]  = { 0, 1, 1, 1 },
    [G_TMP]    = { 1, 1, 1, 1 },
    [G_CWRITE] = { 0, 1, 1, 0 },
    [G_CREADWRITE] = { 0, 1, 1, 0 },
};
/* Block value after the permitted task (block starts at 0; see perm_body). */
static const long effect[G_COUNT] = { 0, 7, 5, 3, 0, 0, 0 };

#define TILE 4
#define FILE_NAME "perm_user.c"

typedef struct { tamm_tensor *T; int get; int expect_ok; } pargs;

static void *get_buf(tamm_ctx *ctx, tamm_tensor *T, int get, const long *idx)
{
    switch (get) {
    case G_READ: return tamm_get_buf_read(ctx, T, idx);
    case G_WRITE: return tamm_get_buf_write(ctx, T, idx);
    case G_RW: return tamm_get_buf_readwrite(ctx, T, idx);
    case G_ACCUM: return tamm_get_buf_accum(ctx, T, idx);
    case G_TMP: return tamm_get_buf_tmp(ctx, T, idx);
    case G_CWRITE: return tamm_get_buf_cwrite(ctx, T, idx);
    default: return tamm_get_buf_creadwrite(ctx, T, idx);
    }
}

static void perm_body(tamm_ctx *ctx, void *vp)
{
    pargs *a = vp;
    long idx[1] = { 0 };
    long *p = get_buf(ctx, a->T, a->get, idx);
    TCHECK_MSG(p != NULL, "get_buf_%s returned NULL", gname[a->get]);
    if (!p) return;
    if (!a->expect_ok) {
        /* The scratch buffer must be writable memory of the block's size. */
        for (int i = 0; i < TILE; i++) p[i] = 99;
        return; /* discarded by the runtime */
    }
    int rc = 0;
    switch (a->get) {
    case G_READ:
        for (int i = 0; i < TILE; i++) TCHECK(p[i] == 0);
        rc = tamm_release_cancel(ctx, p);
        break;
    case G_WRITE:
        for (int i = 0; i < TILE; i++) p[i] = 7;
        rc = tamm_release_put(ctx, p);
        break;
    case G_RW:
        for (int i = 0; i < TILE; i++) { TCHECK(p[i] == 0); p[i] += 5; }
        rc = tamm_release_put(ctx, p);
        break;
    case G_ACCUM:
        for (int i = 0; i < TILE; i++) p[i] += 3;
        rc = tamm_release_add(ctx, p);
        break;
    case G_TMP:
        for (int i = 0; i < TILE; i++) p[i] = 11;
        rc = tamm_release_cancel(ctx, p);
        break;
    case G_CWRITE:
        for (int i = 0; i < TILE; i++) p[i] = 13;
        rc = tamm_release_cancel(ctx, p);
        break;
    default:
        for (int i = 0; i < TILE; i++) { TCHECK(p[i] == 0); p[i] = 17; }
        rc = tamm_release_cancel(ctx, p);
        break;
    }
    TCHECK_MSG(rc == TAMM_OK, "release after get_buf_%s returned %d", gname[a->get], rc);
}

typedef struct { int get, perm, ponly, line; char label[64]; } pcase;

static int child_get_case(void *vp)
{
    const pcase *c = vp;
    tu_init();
    tamm_tensor *T = tu_vec("PermT", 2, TILE);
    CHECK_NOTNULL(T);
    int ok = allowed[c->get][c->perm];
    pargs a = { T, c->get, ok };
    tamm_ref ref = tu_ref1(T, perms[c->perm] | (c->ponly ? TAMM_PERMISSION_ONLY : 0u), 0);
    tamm_task t = tu_task(perm_body, &a, sizeof a, &ref, 1, c->label, FILE_NAME, c->line);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    int rc = tamm_wait_all();
    CHECK_EQ_INT(rc, ok ? TAMM_OK : TAMM_EPERM);
    CHECK_TASKS_OK();
    long *blk = tamm_block(T, 0);
    CHECK_NOTNULL(blk);
    if (blk)
        for (int i = 0; i < TILE; i++) CHECK_EQ_INT(blk[i], ok ? effect[c->get] : 0);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK); /* the error was taken by the first wait */
    TU_FINALIZE();
    return 0;
}

static void check_message(const char *err, const char *label, int line, const char *what)
{
    char loc[64];
    snprintf(loc, sizeof loc, FILE_NAME ":%d", line);
    CHECK_CONTAINS(err, "tamm: error");
    CHECK_CONTAINS(err, label);
    CHECK_CONTAINS(err, loc);
    if (what) CHECK_CONTAINS(err, what);
}

static void test_gets(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    int line = 1000;
    for (int g = 0; g < G_COUNT; g++)
        for (int p = 0; p < 4; p++)
            for (int ponly = 0; ponly <= 1; ponly++) {
                pcase c = { g, p, ponly, ++line, "" };
                snprintf(c.label, sizeof c.label, "get_%s_with_%s%s", gname[g], pname[p], ponly ? "_ponly" : "");
                h_context("%s (return mode)", c.label);
                const char *env[] = { "TAMM_ON_ERROR=return", "TAMM_NUM_WORKERS=2", NULL };
                run_child(child_get_case, &c, env, 20, &st, err);
                h__merge_counts(&st);
                if (!CHECK_MSG(child_ok(&st), "child ended cleanly (got %s)", child_how(&st, how, sizeof how)))
                    h_dump_child(c.label, &st, err);
                if (!allowed[g][p]) {
                    check_message(err, c.label, c.line, "PermT");
                    CHECK_EQ_INT(h_count(err, "tamm: error"), 1);
                } else {
                    CHECK_NOT_CONTAINS(err, "tamm: error");
                }
                /* Default mode: a denied access stops the program with status 1 and the message. */
                if (!allowed[g][p] && ponly) {
                    h_context("%s (default mode)", c.label);
                    const char *env2[] = { "TAMM_NUM_WORKERS=2", NULL };
                    run_child(child_get_case, &c, env2, 20, &st, err);
                    if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
                        h_dump_child(c.label, &st, err);
                    check_message(err, c.label, c.line, "PermT");
                    /* the access asked for is named: "read", "write", "readwrite", ... */
                    CHECK_MSG(h_contains(err, g == G_READ ? "read" : g == G_ACCUM ? "acc" : "write"),
                              "message names the access (%s): %.300s", gname[g], err);
                    CHECK_MSG(h_contains(err, "permi"), "message mentions the permission: %.300s", err);
                }
            }
    h_context(NULL);
}

/* ---- temp commits: put needs W, add needs ACC or W, cancel always ---- */
enum { REL_PUT, REL_ADD, REL_CANCEL };
static const char *const relname[3] = { "put", "add", "cancel" };
static const int tmp_allowed[3][4] = {
    /*              R  W  RW ACC */
    [REL_PUT]    = { 0, 1, 1, 0 },
    [REL_ADD]    = { 0, 1, 1, 1 },
    [REL_CANCEL] = { 1, 1, 1, 1 },
};
typedef struct { tamm_tensor *T; int rel; } targs;
static atomic_int tmp_rc;

static void tmp_body(tamm_ctx *ctx, void *vp)
{
    targs *a = vp;
    long idx[1] = { 0 };
    long *p = tamm_get_buf_tmp(ctx, a->T, idx);
    TCHECK(p != NULL);
    if (!p) return;
    for (int i = 0; i < TILE; i++) p[i] = 6;
    int rc = a->rel == REL_PUT ? tamm_release_put(ctx, p) : a->rel == REL_ADD ? tamm_release_add(ctx, p)
                                                                            : tamm_release_cancel(ctx, p);
    atomic_store(&tmp_rc, rc); /* the code, for the top level */
}

typedef struct { int rel, perm; } tcase;

static int child_tmp_case(void *vp)
{
    const tcase *c = vp;
    tu_init();
    tamm_tensor *T = tu_vec("TmpT", 2, TILE);
    /* the block starts at 1 so that put (6) and add (7) differ */
    long *b = tamm_block(T, 0);
    for (int i = 0; i < TILE; i++) b[i] = 1;
    targs a = { T, c->rel };
    tamm_ref ref = tu_ref1(T, perms[c->perm] | TAMM_PERMISSION_ONLY, 0);
    tamm_task t = tu_task(tmp_body, &a, sizeof a, &ref, 1, "tmp_commit", FILE_NAME, 77);
    atomic_store(&tmp_rc, 12345);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    int ok = tmp_allowed[c->rel][c->perm];
    CHECK_EQ_INT(tamm_wait_all(), ok ? TAMM_OK : TAMM_EPERM);
    CHECK_EQ_INT(atomic_load(&tmp_rc), ok ? TAMM_OK : TAMM_EPERM);
    CHECK_TASKS_OK();
    long want = !ok || c->rel == REL_CANCEL ? 1 : c->rel == REL_PUT ? 6 : 7;
    b = tamm_block(T, 0);
    for (int i = 0; i < TILE; i++) CHECK_EQ_INT(b[i], want);
    TU_FINALIZE();
    return 0;
}

static void test_tmp_commits(void)
{
    for (int r = 0; r < 3; r++)
        for (int p = 0; p < 4; p++) {
            tcase c = { r, p };
            char name[64];
            snprintf(name, sizeof name, "tmp_%s_with_%s", relname[r], pname[p]);
            h_context("%s", name);
            const char *env[] = { "TAMM_ON_ERROR=return", "TAMM_NUM_WORKERS=2", NULL };
            run_test_child(name, child_tmp_case, &c, env, 20);
        }
    h_context(NULL);
}

/* ---- TEMP refs carry no permission; a task without any ref may still use a temp ---- */
static void temp_ref_body(tamm_ctx *ctx, void *vp)
{
    targs *a = vp;
    long idx[1] = { 0 };
    long *t = tamm_get_buf_tmp(ctx, a->T, idx);
    TCHECK(t != NULL);
    if (t) TCHECK(tamm_release_cancel(ctx, t) == TAMM_OK);
    if (a->rel) {
        long *w = tamm_get_buf_write(ctx, a->T, idx); /* not permitted: the ref is TEMP only */
        TCHECK(w != NULL);
    }
}

static int child_temp_ref(void *vp)
{
    (void)vp;
    tu_init();
    tamm_tensor *T = tu_vec("TmpRefT", 2, TILE);
    targs a = { T, 0 };
    /* no ref at all: a temp needs no permission */
    tamm_task t0 = tu_task(temp_ref_body, &a, sizeof a, NULL, 0, "tmp_no_ref", FILE_NAME, 90);
    CHECK_EQ_INT(tamm_submit(NULL, &t0), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    /* a TEMP|WRITE ref: temp access, but no write permission */
    a.rel = 1;
    tamm_ref ref = tu_ref1(T, TAMM_TEMP | TAMM_WRITE, 0);
    tamm_task t1 = tu_task(temp_ref_body, &a, sizeof a, &ref, 1, "tmp_ref_write", FILE_NAME, 91);
    CHECK_EQ_INT(tamm_submit(NULL, &t1), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_EPERM);
    CHECK_TASKS_OK();
    TU_FINALIZE();
    return 0;
}

/* ---- nested tasks: child permissions within the parent's ---- */
typedef struct { tamm_tensor *T; unsigned parent, child; int nidx_child; long ci, cj; int parent_whole; } nargs;
static atomic_int child_ran, submit_rc;

static void nested_child(tamm_ctx *ctx, void *vp)
{
    (void)ctx; (void)vp;
    atomic_fetch_add(&child_ran, 1);
}

static void nested_parent(tamm_ctx *ctx, void *vp)
{
    nargs *a = vp;
    tamm_ref ref = a->nidx_child == 2 ? tu_ref2(a->T, a->child, a->ci, a->cj) : tu_ref1(a->T, a->child, a->ci);
    tamm_task t = tu_task(nested_child, a, sizeof *a, &ref, 1, "nested_child", FILE_NAME, 200);
    atomic_store(&submit_rc, tamm_submit(ctx, &t));
}

/* Parent permission (row) x child permission (column), per docs/runtime.md:
 * parent WRITE (and RW) covers everything, ACC only ACC, READ only READ. */
static const int nested_ok[4][4] = {
    /*            R  W  RW ACC */
    /* R   */   { 1, 0, 0, 0 },
    /* W   */   { 1, 1, 1, 1 },
    /* RW  */   { 1, 1, 1, 1 },
    /* ACC */   { 0, 0, 0, 1 },
};

typedef struct { int pp, cp, mode; } ncase; /* mode 0: same block, 1: other block, 2: slices, 3: slice miss, 4: whole */

static int child_nested(void *vp)
{
    const ncase *c = vp;
    tu_init();
    size_t dims[2] = { 8, 8 }, tile[2] = { 4, 4 };
    tamm_tensor *T = tamm_tensor_create("NestT", TAMM_I64, 2, dims, tile);
    nargs a = { T, 0, perms[c->cp], 2, 0, 0, 0 };
    tamm_ref pref;
    int expect_ok;
    switch (c->mode) {
    case 0: pref = tu_ref2(T, perms[c->pp] | TAMM_PERMISSION_ONLY, 0, 0); expect_ok = nested_ok[c->pp][c->cp]; break;
    case 1: pref = tu_ref2(T, TAMM_WRITE | TAMM_PERMISSION_ONLY, 0, 0); a.ci = 1; expect_ok = 0; break;
    case 2: pref = tu_ref2(T, TAMM_WRITE | TAMM_PERMISSION_ONLY, 1, TAMM_ALL); a.ci = 1; a.cj = 1; expect_ok = 1; break;
    case 3: pref = tu_ref2(T, TAMM_WRITE | TAMM_PERMISSION_ONLY, 1, TAMM_ALL); a.ci = 0; a.cj = 1; expect_ok = 0; break;
    default: pref = tu_ref_all(T, TAMM_WRITE | TAMM_PERMISSION_ONLY); a.ci = 1; a.cj = 1; expect_ok = 1; break;
    }
    atomic_store(&child_ran, 0);
    atomic_store(&submit_rc, 12345);
    tamm_task t = tu_task(nested_parent, &a, sizeof a, &pref, 1, "nested_parent", FILE_NAME, 100);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    int rc = tamm_wait_all();
    CHECK_EQ_INT(atomic_load(&submit_rc), expect_ok ? TAMM_OK : TAMM_EPERM);
    CHECK_EQ_INT(rc, expect_ok ? TAMM_OK : TAMM_EPERM);
    CHECK_EQ_INT(atomic_load(&child_ran), expect_ok ? 1 : 0); /* a refused child is not submitted */
    TU_FINALIZE();
    return 0;
}

static void test_nested(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128];
    for (int pp = 0; pp < 4; pp++)
        for (int cp = 0; cp < 4; cp++) {
            ncase c = { pp, cp, 0 };
            char name[64];
            snprintf(name, sizeof name, "nested_parent_%s_child_%s", pname[pp], pname[cp]);
            h_context("%s", name);
            const char *env[] = { "TAMM_ON_ERROR=return", "TAMM_NUM_WORKERS=2", NULL };
            run_test_child(name, child_nested, &c, env, 20);
        }
    static const char *const mname[] = { "", "other_block", "slice_hit", "slice_miss", "whole_tensor" };
    for (int m = 1; m <= 4; m++) {
        ncase c = { 1, 1, m };
        h_context("nested %s", mname[m]);
        const char *env[] = { "TAMM_ON_ERROR=return", "TAMM_NUM_WORKERS=2", NULL };
        run_test_child(mname[m], child_nested, &c, env, 20);
    }
    /* Default mode: the refused child stops the program with a message. */
    ncase c = { 0, 1, 0 };
    h_context("nested violation, default mode");
    const char *env[] = { "TAMM_NUM_WORKERS=2", NULL };
    run_child(child_nested, &c, env, 20, &st, err);
    if (!CHECK_MSG(child_exit_is(&st, 1), "exit status 1 (got %s)", child_how(&st, how, sizeof how)))
        h_dump_child("nested default", &st, err);
    CHECK_CONTAINS(err, "tamm: error");
    CHECK_MSG(h_contains(err, "nested_parent") || h_contains(err, "nested_child"), "message names a task: %.300s", err);
    CHECK_CONTAINS(err, "NestT");
    CHECK_CONTAINS(err, "permi");
    h_context(NULL);
}

int main(void)
{
    test_gets();
    test_tmp_commits();
    run_test_child("temp_refs", child_temp_ref, NULL, (const char *const[]){ "TAMM_ON_ERROR=return", "TAMM_NUM_WORKERS=2", NULL }, 20);
    test_nested();
    return test_summary();
}
