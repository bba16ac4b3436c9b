/*
 * test_block_rt.c — the "Execution FSM" cells a user's task can reach, and the
 * buffer rules of docs/runtime.md ("Buffers inside a task"), with
 * TAMM_ON_ERROR=return so every error cell is seen as a code:
 *   - get_buf_read twice (Ready x READ, RC += 1), both released (RC > 0 twice);
 *   - a second exclusive buffer while one is held (RC == 0 fails) -> TAMM_EFSM;
 *   - the same after releasing (RC back to 0) is fine, and sees the data
 *     (Dirty x READ puts first, DirtyAcc x READ/RW sums first, ...);
 *   - releasing twice, or a pointer never obtained (RELEASE on no buffer = ERR) -> TAMM_EBUF;
 *   - never releasing -> TAMM_ELEAK; cancel of write/readwrite/accum -> TAMM_ECANCEL;
 *   - wrong release kinds -> TAMM_EBUF; cancellable buffers are private copies;
 *   - temp buffers (TMP x any state = IGNORE: never touch the block until put/add);
 *   - tamm_block_at / tamm_temp_at / tamm_put inside a task;
 *   - readers handing their read reference on between them (child_handoff).
 * Each case runs in its own child process.  Pure table: test_block_fsm.c.
 */
#include "tamm_util.h"

#define TILE 4

enum { G_READ, G_WRITE, G_RW, G_ACCUM, G_TMP, G_CWRITE, G_CREADWRITE, G_BLOCK, G_TEMP_AT, G_OTHER_READ };
enum { R_PUT, R_ADD, R_CANCEL, R_TPUT, R_TADD, R_TCANCEL };
enum {
    OP_END, OP_GET,      /* kind, slot: get a buffer (must be non-NULL) */
    OP_FILL,             /* slot, val: every element = val */
    OP_ADDV,             /* slot, val: every element += val */
    OP_EXPECT,           /* slot, val: every element == val */
    OP_REL,              /* kind, slot, rc: release, expect rc (ANY_ERR: any negative) */
    OP_REL_LOCAL,        /* kind, rc: release a pointer never obtained from the runtime */
    OP_REL_NULL,         /* kind: release NULL: an error, no crash */
    OP_DISTINCT,         /* slot, slot2: the two buffers are different memory */
    OP_NOT_HOME          /* slot: the buffer is not the block's memory (top-level tamm_block pointer) */
};
#define ANY_ERR (-1000)
#define NOCHECK (-99999)

typedef struct { int op, kind, slot, slot2; long val; int rc; } step;
typedef struct {
    const char *name;
    unsigned perm;       /* on block 0 */
    int ponly;           /* permission-only ref (else an access ref) */
    long init;           /* block 0 before the task */
    step s[12];
    int wait_rc;         /* what tamm_wait_all returns */
    long final;          /* block 0 after (NOCHECK: not checked) */
} bcase;

typedef struct { tamm_tensor *T; long *home; int k; } bargs;

#define GET(k, sl) { OP_GET, k, sl, 0, 0, 0 }
#define FILL(sl, v) { OP_FILL, 0, sl, 0, v, 0 }
#define ADDV(sl, v) { OP_ADDV, 0, sl, 0, v, 0 }
#define EXPECT(sl, v) { OP_EXPECT, 0, sl, 0, v, 0 }
#define REL(k, sl, r) { OP_REL, k, sl, 0, 0, r }
#define REL_LOCAL(k, r) { OP_REL_LOCAL, k, 0, 0, 0, r }
#define REL_NULL(k) { OP_REL_NULL, k, 0, 0, 0, 0 }
#define DISTINCT(a, b) { OP_DISTINCT, 0, a, b, 0, 0 }
#define NOT_HOME(sl) { OP_NOT_HOME, 0, sl, 0, 0, 0 }

enum { PR = TAMM_READ, PW = TAMM_WRITE, PRW = TAMM_READWRITE, PA = TAMM_ACCUM };

static const bcase cases[] = {
    /* Ready x READ: RC += 1; RELEASE / CANCEL with RC > 0, twice. */
    { "read_twice", PR, 1, 10, { GET(G_READ, 0), GET(G_READ, 1), EXPECT(0, 10), EXPECT(1, 10), REL(R_CANCEL, 0, 0), REL(R_PUT, 1, 0) }, TAMM_OK, 10 },
    { "read_twice_then_write", PW, 1, 10, { GET(G_READ, 0), GET(G_READ, 1), REL(R_CANCEL, 0, 0), REL(R_CANCEL, 1, 0), GET(G_WRITE, 2), FILL(2, 3), REL(R_PUT, 2, 0) }, TAMM_OK, 3 },
    { "read_read_release_one_write", PW, 1, 10, { GET(G_READ, 0), GET(G_READ, 1), REL(R_CANCEL, 0, 0), GET(G_WRITE, 2), REL(R_CANCEL, 1, 0) }, TAMM_EFSM, NOCHECK },
    /* A second exclusive buffer while one is held: RC == 0 fails. */
    { "write_twice", PW, 1, 10, { GET(G_WRITE, 0), FILL(0, 8), GET(G_WRITE, 1), REL(R_PUT, 0, 0) }, TAMM_EFSM, NOCHECK },
    { "readwrite_twice", PW, 1, 10, { GET(G_RW, 0), GET(G_RW, 1), REL(R_PUT, 0, 0) }, TAMM_EFSM, NOCHECK },
    { "accum_twice", PA, 1, 10, { GET(G_ACCUM, 0), GET(G_ACCUM, 1), REL(R_ADD, 0, 0) }, TAMM_EFSM, NOCHECK },
    { "read_then_write", PRW, 1, 10, { GET(G_READ, 0), GET(G_WRITE, 1), REL(R_CANCEL, 0, 0) }, TAMM_EFSM, NOCHECK },
    { "write_then_read", PRW, 1, 10, { GET(G_WRITE, 0), GET(G_READ, 1), REL(R_PUT, 0, 0) }, TAMM_EFSM, NOCHECK },
    { "accum_then_read", PW, 1, 10, { GET(G_ACCUM, 0), GET(G_READ, 1), REL(R_ADD, 0, 0) }, TAMM_EFSM, NOCHECK },
    { "read_then_accum", PW, 1, 10, { GET(G_READ, 0), GET(G_ACCUM, 1), REL(R_CANCEL, 0, 0) }, TAMM_EFSM, NOCHECK },
    { "write_then_accum", PW, 1, 10, { GET(G_WRITE, 0), GET(G_ACCUM, 1), REL(R_PUT, 0, 0) }, TAMM_EFSM, NOCHECK },
    /* After the release (RC back to 0) the next access is fine and sees the data. */
    { "write_put_write_put", PW, 1, 10, { GET(G_WRITE, 0), FILL(0, 5), REL(R_PUT, 0, 0), GET(G_WRITE, 1), FILL(1, 6), REL(R_PUT, 1, 0) }, TAMM_OK, 6 },
    { "write_put_read (Dirty x READ)", PW, 1, 10, { GET(G_WRITE, 0), FILL(0, 5), REL(R_PUT, 0, 0), GET(G_READ, 1), EXPECT(1, 5), REL(R_CANCEL, 1, 0) }, TAMM_OK, 5 },
    { "write_put_readwrite (Dirty x RW)", PW, 1, 10, { GET(G_WRITE, 0), FILL(0, 5), REL(R_PUT, 0, 0), GET(G_RW, 1), EXPECT(1, 5), ADDV(1, 1), REL(R_PUT, 1, 0) }, TAMM_OK, 6 },
    { "write_put_accum (Dirty x ACC)", PW, 1, 10, { GET(G_WRITE, 0), FILL(0, 5), REL(R_PUT, 0, 0), GET(G_ACCUM, 1), ADDV(1, 2), REL(R_ADD, 1, 0) }, TAMM_OK, 7 },
    { "accum_add_read (DirtyAcc x READ)", PW, 1, 10, { GET(G_ACCUM, 0), ADDV(0, 3), REL(R_ADD, 0, 0), GET(G_READ, 1), EXPECT(1, 13), REL(R_CANCEL, 1, 0) }, TAMM_OK, 13 },
    { "accum_add_write (DirtyAcc x WRITE)", PW, 1, 10, { GET(G_ACCUM, 0), ADDV(0, 3), REL(R_ADD, 0, 0), GET(G_WRITE, 1), FILL(1, 9), REL(R_PUT, 1, 0) }, TAMM_OK, 9 },
    { "accum_add_readwrite (DirtyAcc x RW)", PW, 1, 10, { GET(G_ACCUM, 0), ADDV(0, 3), REL(R_ADD, 0, 0), GET(G_RW, 1), EXPECT(1, 13), ADDV(1, 1), REL(R_PUT, 1, 0) }, TAMM_OK, 14 },
    { "accum_add_accum_add (DirtyAcc x ACC)", PA, 1, 10, { GET(G_ACCUM, 0), ADDV(0, 3), REL(R_ADD, 0, 0), GET(G_ACCUM, 1), ADDV(1, 4), REL(R_ADD, 1, 0) }, TAMM_OK, 17 },
    { "read_release_write (Ready x WRITE)", PW, 1, 10, { GET(G_READ, 0), EXPECT(0, 10), REL(R_CANCEL, 0, 0), GET(G_WRITE, 1), FILL(1, 6), REL(R_PUT, 1, 0) }, TAMM_OK, 6 },
    { "read_release_readwrite (Ready x RW)", PW, 1, 10, { GET(G_READ, 0), REL(R_CANCEL, 0, 0), GET(G_RW, 1), EXPECT(1, 10), ADDV(1, 2), REL(R_PUT, 1, 0) }, TAMM_OK, 12 },
    { "read_release_accum (Ready x ACC)", PW, 1, 10, { GET(G_READ, 0), REL(R_CANCEL, 0, 0), GET(G_ACCUM, 1), ADDV(1, 2), REL(R_ADD, 1, 0) }, TAMM_OK, 12 },
    { "readwrite_in_place", PRW, 0, 10, { GET(G_RW, 0), EXPECT(0, 10), ADDV(0, 5), REL(R_PUT, 0, 0) }, TAMM_OK, 15 },
    /* Releasing twice / what was never obtained: TAMM_EBUF. */
    { "release_twice_read", PR, 1, 10, { GET(G_READ, 0), REL(R_CANCEL, 0, 0), REL(R_CANCEL, 0, TAMM_EBUF) }, TAMM_EBUF, 10 },
    { "release_twice_write", PW, 1, 10, { GET(G_WRITE, 0), FILL(0, 4), REL(R_PUT, 0, 0), REL(R_PUT, 0, TAMM_EBUF) }, TAMM_EBUF, 4 },
    { "release_twice_accum", PA, 1, 10, { GET(G_ACCUM, 0), ADDV(0, 1), REL(R_ADD, 0, 0), REL(R_ADD, 0, TAMM_EBUF) }, TAMM_EBUF, 11 },
    { "release_twice_tmp", PW, 1, 10, { GET(G_TMP, 0), REL(R_CANCEL, 0, 0), REL(R_CANCEL, 0, TAMM_EBUF) }, TAMM_EBUF, 10 },
    { "release_never_obtained", PW, 1, 10, { REL_LOCAL(R_PUT, TAMM_EBUF) }, TAMM_EBUF, 10 },
    { "cancel_never_obtained", PW, 1, 10, { REL_LOCAL(R_CANCEL, TAMM_EBUF) }, TAMM_EBUF, 10 },
    { "release_null", PW, 1, 10, { REL_NULL(R_PUT), REL_NULL(R_ADD), REL_NULL(R_CANCEL) }, ANY_ERR, 10 },
    /* Never releasing: TAMM_ELEAK at the task's end. */
    { "never_release_read", PR, 1, 10, { GET(G_READ, 0) }, TAMM_ELEAK, 10 },
    { "never_release_write", PW, 1, 10, { GET(G_WRITE, 0) }, TAMM_ELEAK, NOCHECK },
    { "never_release_tmp", PW, 1, 10, { GET(G_TMP, 0) }, TAMM_ELEAK, 10 },
    { "never_release_cwrite", PW, 1, 10, { GET(G_CWRITE, 0), FILL(0, 3) }, TAMM_ELEAK, 10 },
    /* Cancel of a non-cancellable modifying buffer. */
    { "cancel_write", PW, 1, 10, { GET(G_WRITE, 0), REL(R_CANCEL, 0, TAMM_ECANCEL) }, TAMM_ECANCEL, NOCHECK },
    { "cancel_readwrite", PW, 1, 10, { GET(G_RW, 0), REL(R_CANCEL, 0, TAMM_ECANCEL) }, TAMM_ECANCEL, NOCHECK },
    { "cancel_accum", PA, 1, 10, { GET(G_ACCUM, 0), REL(R_CANCEL, 0, TAMM_ECANCEL) }, TAMM_ECANCEL, NOCHECK },
    { "cancel_accum_cancellable", PA | TAMM_CANCELLABLE, 0, 10, { GET(G_ACCUM, 0), ADDV(0, 5), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    /* Wrong release kinds (docs/runtime.md table). */
    { "read_put_ends_use", PR, 1, 10, { GET(G_READ, 0), REL(R_PUT, 0, 0) }, TAMM_OK, 10 },
    { "read_add", PR, 1, 10, { GET(G_READ, 0), REL(R_ADD, 0, TAMM_EBUF) }, TAMM_EBUF, 10 },
    { "write_add", PW, 1, 10, { GET(G_WRITE, 0), FILL(0, 1), REL(R_ADD, 0, TAMM_EBUF) }, TAMM_EBUF, NOCHECK },
    { "readwrite_add", PW, 1, 10, { GET(G_RW, 0), REL(R_ADD, 0, TAMM_EBUF) }, TAMM_EBUF, NOCHECK },
    { "accum_put", PA, 1, 10, { GET(G_ACCUM, 0), REL(R_PUT, 0, TAMM_EBUF) }, TAMM_EBUF, NOCHECK },
    { "cwrite_add", PW, 1, 10, { GET(G_CWRITE, 0), FILL(0, 1), REL(R_ADD, 0, TAMM_EBUF) }, TAMM_EBUF, NOCHECK },
    { "creadwrite_add", PW, 1, 10, { GET(G_CREADWRITE, 0), REL(R_ADD, 0, TAMM_EBUF) }, TAMM_EBUF, NOCHECK },
    /* Cancellable buffers: private, never the block's memory; committed only by put. */
    { "cwrite_cancel", PW, 1, 10, { GET(G_CWRITE, 0), NOT_HOME(0), FILL(0, 9), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    { "cwrite_put", PW, 1, 10, { GET(G_CWRITE, 0), NOT_HOME(0), FILL(0, 9), REL(R_PUT, 0, 0) }, TAMM_OK, 9 },
    { "cwrite_access_ref", PW | TAMM_CANCELLABLE, 0, 10, { GET(G_CWRITE, 0), NOT_HOME(0), FILL(0, 9), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    { "creadwrite_cancel", PW, 1, 10, { GET(G_CREADWRITE, 0), NOT_HOME(0), EXPECT(0, 10), FILL(0, 9), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    { "creadwrite_put", PRW, 1, 10, { GET(G_CREADWRITE, 0), NOT_HOME(0), EXPECT(0, 10), ADDV(0, 1), REL(R_PUT, 0, 0) }, TAMM_OK, 11 },
    { "creadwrite_access_ref", PRW | TAMM_CANCELLABLE, 0, 10, { GET(G_CREADWRITE, 0), NOT_HOME(0), EXPECT(0, 10), ADDV(0, 1), REL(R_PUT, 0, 0) }, TAMM_OK, 11 },
    /* A cancellable permission (a TAMM_CANCELLABLE ref: what the cwrite / creadwrite / caccum
     * clauses make) makes every modifying buffer of the block private, whatever asks for it:
     * tamm_get_buf_write / _readwrite and tamm_block, so that a cancel drops what the task
     * wrote (docs/runtime.md, "Cancellation"); tamm_block's copy commits at the end unless cancelled. */
    { "write_cancellable_ref_cancel", PW | TAMM_CANCELLABLE, 0, 10, { GET(G_WRITE, 0), NOT_HOME(0), FILL(0, 9), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    { "write_cancellable_ref_put", PW | TAMM_CANCELLABLE, 0, 10, { GET(G_WRITE, 0), NOT_HOME(0), FILL(0, 9), REL(R_PUT, 0, 0) }, TAMM_OK, 9 },
    { "readwrite_cancellable_ref_cancel", PRW | TAMM_CANCELLABLE, 0, 10, { GET(G_RW, 0), NOT_HOME(0), EXPECT(0, 10), ADDV(0, 1), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    { "readwrite_cancellable_ref_put", PRW | TAMM_CANCELLABLE, 0, 10, { GET(G_RW, 0), NOT_HOME(0), EXPECT(0, 10), ADDV(0, 1), REL(R_PUT, 0, 0) }, TAMM_OK, 11 },
    { "block_at_cancellable_cancel", PW | TAMM_CANCELLABLE, 0, 10, { GET(G_BLOCK, 0), NOT_HOME(0), EXPECT(0, 10), ADDV(0, 1), REL(R_TCANCEL, 0, 0) }, TAMM_OK, 10 },
    { "block_at_cancellable_put", PW | TAMM_CANCELLABLE, 0, 10, { GET(G_BLOCK, 0), ADDV(0, 1), REL(R_TPUT, 0, 0) }, TAMM_OK, 11 },
    { "block_at_cancellable_commits_at_end", PW | TAMM_CANCELLABLE, 0, 10, { GET(G_BLOCK, 0), NOT_HOME(0), ADDV(0, 1) }, TAMM_OK, 11 },
    { "block_at_cancellable_twice_one_copy", PRW | TAMM_CANCELLABLE, 0, 10, { GET(G_BLOCK, 0), ADDV(0, 1), GET(G_BLOCK, 1), EXPECT(1, 11), REL(R_TCANCEL, 1, 0) }, TAMM_OK, 10 },
    { "cwrite_then_block_cancel", PW | TAMM_CANCELLABLE, 0, 10, { GET(G_CWRITE, 0), FILL(0, 5), GET(G_BLOCK, 1), EXPECT(1, 5), REL(R_TCANCEL, 1, 0) }, TAMM_OK, 10 },
    { "block_at_caccum_cancel", PA | TAMM_CANCELLABLE, 0, 10, { GET(G_BLOCK, 0), NOT_HOME(0), ADDV(0, 4), REL(R_TCANCEL, 0, 0) }, TAMM_OK, 10 },
    { "block_at_caccum_commits_at_end", PA | TAMM_CANCELLABLE, 0, 10, { GET(G_BLOCK, 0), ADDV(0, 4) }, TAMM_OK, 14 },
    { "read_cancellable_ref_shares_home", PRW | TAMM_CANCELLABLE, 0, 10, { GET(G_READ, 0), EXPECT(0, 10), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    /* Temp buffers: unbounded, private, no effect until put/add. */
    { "tmp_put", PW, 1, 10, { GET(G_TMP, 0), NOT_HOME(0), FILL(0, 6), REL(R_PUT, 0, 0) }, TAMM_OK, 6 },
    { "tmp_add", PA, 1, 10, { GET(G_TMP, 0), FILL(0, 2), REL(R_ADD, 0, 0) }, TAMM_OK, 12 },
    { "tmp_cancel", PW, 1, 10, { GET(G_TMP, 0), FILL(0, 2), REL(R_CANCEL, 0, 0) }, TAMM_OK, 10 },
    { "tmp_two_at_once", PW, 1, 10, { GET(G_TMP, 0), GET(G_TMP, 1), DISTINCT(0, 1), FILL(0, 1), FILL(1, 2), REL(R_CANCEL, 0, 0), REL(R_PUT, 1, 0) }, TAMM_OK, 2 },
    { "tmp_while_writing", PW, 1, 10, { GET(G_WRITE, 0), GET(G_TMP, 1), DISTINCT(0, 1), FILL(1, 4), FILL(0, 3), REL(R_PUT, 0, 0), REL(R_ADD, 1, 0) }, TAMM_OK, 7 },
    /* tamm_block_at inside a task: the widest mode the permission allows, released at the end. */
    { "block_at_write_perm", PW, 1, 10, { GET(G_BLOCK, 0), EXPECT(0, 10), ADDV(0, 1) }, TAMM_OK, 11 },
    { "block_at_accum_perm", PA, 1, 10, { GET(G_BLOCK, 0), ADDV(0, 4) }, TAMM_OK, 14 },
    { "block_at_read_perm", PR, 1, 10, { GET(G_BLOCK, 0), EXPECT(0, 10) }, TAMM_OK, 10 },
    { "block_at_tamm_put_ends_use", PW, 1, 10, { GET(G_BLOCK, 0), ADDV(0, 1), REL(R_TPUT, 0, 0) }, TAMM_OK, 11 },
    { "temp_at_tamm_put", PW, 1, 10, { GET(G_TEMP_AT, 0), FILL(0, 3), REL(R_TPUT, 0, 0) }, TAMM_OK, 3 },
    { "temp_at_tamm_add", PA, 1, 10, { GET(G_TEMP_AT, 0), FILL(0, 3), REL(R_TADD, 0, 0) }, TAMM_OK, 13 },
    { "temp_at_tamm_cancel", PW, 1, 10, { GET(G_TEMP_AT, 0), FILL(0, 3), REL(R_TCANCEL, 0, 0) }, TAMM_OK, 10 },
    /* A block with no permission at all, read through tamm_get_buf_read: EPERM. */
    { "read_other_block", PW, 1, 10, { GET(G_OTHER_READ, 0) }, TAMM_EPERM, 10 },
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static void *do_get(tamm_ctx *ctx, tamm_tensor *T, int kind)
{
    long idx[1] = { 0 }, other[1] = { 1 };
    switch (kind) {
    case G_READ: return tamm_get_buf_read(ctx, T, idx);
    case G_WRITE: return tamm_get_buf_write(ctx, T, idx);
    case G_RW: return tamm_get_buf_readwrite(ctx, T, idx);
    case G_ACCUM: return tamm_get_buf_accum(ctx, T, idx);
    case G_TMP: return tamm_get_buf_tmp(ctx, T, idx);
    case G_CWRITE: return tamm_get_buf_cwrite(ctx, T, idx);
    case G_CREADWRITE: return tamm_get_buf_creadwrite(ctx, T, idx);
    case G_BLOCK: return tamm_block(T, 0);
    case G_TEMP_AT: return tamm_temp(T, 0);
    default: return tamm_get_buf_read(ctx, T, other);
    }
}

static int do_rel(tamm_ctx *ctx, int kind, void *p)
{
    switch (kind) {
    case R_PUT: return tamm_release_put(ctx, p);
    case R_ADD: return tamm_release_add(ctx, p);
    case R_CANCEL: return tamm_release_cancel(ctx, p);
    case R_TPUT: return tamm_put(p);
    case R_TADD: return tamm_add(p);
    default: return tamm_cancel(p);
    }
}

static void script_body(tamm_ctx *ctx, void *vp)
{
    bargs *a = vp;
    const bcase *c = &cases[a->k];
    long *slot[4] = { 0 };
    long local[TILE] = { 0 };
    for (int i = 0; i < 12 && c->s[i].op != OP_END; i++) {
        const step *s = &c->s[i];
        long *p = slot[s->slot];
        switch (s->op) {
        case OP_GET:
            slot[s->slot] = do_get(ctx, a->T, s->kind);
            TCHECK_MSG(slot[s->slot] != NULL, "step %d: get returned NULL", i);
            if (!slot[s->slot]) return;
            break;
        case OP_FILL:
            for (int e = 0; e < TILE; e++) p[e] = s->val;
            break;
        case OP_ADDV:
            for (int e = 0; e < TILE; e++) p[e] += s->val;
            break;
        case OP_EXPECT:
            for (int e = 0; e < TILE; e++) TCHECK_MSG(p[e] == s->val, "step %d: element %d is %ld, expected %ld", i, e, p[e], s->val);
            break;
        case OP_REL: {
            int rc = do_rel(ctx, s->kind, p);
            TCHECK_MSG(rc == s->rc, "step %d: release returned %d, expected %d", i, rc, s->rc);
            break;
        }
        case OP_REL_LOCAL: {
            int rc = do_rel(ctx, s->kind, local);
            TCHECK_MSG(rc == s->rc, "step %d: release of a local array returned %d, expected %d", i, rc, s->rc);
            break;
        }
        case OP_REL_NULL: {
            int rc = do_rel(ctx, s->kind, NULL);
            TCHECK_MSG(rc < 0, "step %d: release of NULL returned %d, expected an error", i, rc);
            break;
        }
        case OP_DISTINCT:
            TCHECK_MSG(slot[s->slot] != slot[s->slot2], "step %d: two buffers share memory", i);
            break;
        case OP_NOT_HOME:
            TCHECK_MSG((void *)p != (void *)a->home, "step %d: the buffer is the block's own memory", i);
            break;
        default:
            break;
        }
    }
}

static int child_case(void *vp)
{
    int k = *(int *)vp;
    const bcase *c = &cases[k];
    tu_init();
    tamm_tensor *T = tu_vec("BlkT", 2, TILE);
    CHECK_NOTNULL(T);
    long *home = tamm_block(T, 0);
    CHECK_NOTNULL(home);
    if (!home) return 1;
    for (int e = 0; e < TILE; e++) home[e] = c->init;
    long *o = tamm_block(T, 1);
    for (int e = 0; e < TILE; e++) o[e] = 77;
    bargs a = { T, home, k };
    tamm_ref ref = tu_ref1(T, c->perm | (c->ponly ? TAMM_PERMISSION_ONLY : 0u), 0);
    tamm_task t = tu_task(script_body, &a, sizeof a, &ref, 1, c->name, "blk_user.c", 300 + k);
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    int rc = tamm_wait_all();
    if (c->wait_rc == ANY_ERR) CHECK_MSG(rc < 0, "tamm_wait_all returned %d, expected an error", rc);
    else CHECK_EQ_INT(rc, c->wait_rc);
    CHECK_TASKS_OK();
    long *b = tamm_block(T, 0);
    CHECK_NOTNULL(b);
    if (b && c->final != NOCHECK)
        for (int e = 0; e < TILE; e++) CHECK_EQ_INT(b[e], c->final);
    o = tamm_block(T, 1);
    if (o)
        for (int e = 0; e < TILE; e++) CHECK_EQ_INT(o[e], 77);
    TU_FINALIZE();
    return 0;
}

/* Readers of one block running one after another on a worker hand their
 * read reference on (dag.h tamm__held) instead of releasing it: whoever
 * comes next for the block must still find RC == 0 and the data right.
 * Each round: readers of block 0 and of block 1 interleaved (the kept
 * reference of one block must never serve the other), released by put and
 * by cancel, then a readwrite of each block, which fails with TAMM_EFSM if
 * a kept reference outlived its read set. */
#define HO_ROUNDS 40
#define HO_READERS 48
typedef struct { tamm_tensor *T; long blk, want; int cancel; atomic_int *bad; } ho_args;

static void ho_read(tamm_ctx *ctx, void *vp)
{
    const ho_args *a = vp;
    const long *p = tamm_get_buf_read(ctx, a->T, &a->blk);
    if (!p) { atomic_fetch_add(a->bad, 1); return; }
    for (int e = 0; e < TILE; e++)
        if (p[e] != a->want) atomic_fetch_add(a->bad, 1);
    int rc = a->cancel ? tamm_release_cancel(ctx, (void *)p) : tamm_release_put(ctx, (void *)p);
    if (rc != TAMM_OK) atomic_fetch_add(a->bad, 1);
}

static void ho_bump(tamm_ctx *ctx, void *vp)
{
    const ho_args *a = vp;
    long *p = tamm_get_buf_readwrite(ctx, a->T, &a->blk);
    if (!p) { atomic_fetch_add(a->bad, 1); return; }
    for (int e = 0; e < TILE; e++) p[e] += a->blk ? -1 : 1;
    if (tamm_release_put(ctx, p) != TAMM_OK) atomic_fetch_add(a->bad, 1);
}

static int child_handoff(void *vp)
{
    (void)vp;
    static atomic_int bad;
    tu_init();
    tamm_tensor *T = tu_vec("HandT", 2, TILE);
    CHECK_NOTNULL(T);
    if (!T) return 1;
    for (long b = 0; b < 2; b++) {
        long *h = tamm_block(T, b);
        for (int e = 0; e < TILE; e++) h[e] = 0;
    }
    for (int r = 0; r < HO_ROUNDS; r++) {
        for (int i = 0; i < HO_READERS; i++) {
            long b = (i / 3) & 1; /* runs of three readers of each block */
            ho_args a = { T, b, b ? -r : r, i & 1, &bad };
            tamm_ref ref = tu_ref1(T, TAMM_READ, b);
            tamm_task t = tu_task(ho_read, &a, sizeof a, &ref, 1, "ho-reader", "ho_user.c", 1);
            CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
        }
        for (long b = 0; b < 2; b++) {
            ho_args a = { T, b, 0, 0, &bad };
            tamm_ref ref = tu_ref1(T, TAMM_READWRITE, b);
            tamm_task t = tu_task(ho_bump, &a, sizeof a, &ref, 1, "ho-writer", "ho_user.c", 2);
            CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
        }
        if (r % 8 == 7) CHECK_EQ_INT(tamm_wait_all(), TAMM_OK); /* readers last, then new writers */
    }
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_TASKS_OK();
    CHECK_EQ_INT(atomic_load(&bad), 0);
    for (long b = 0; b < 2; b++) {
        long *h = tamm_block(T, b);
        for (int e = 0; e < TILE; e++) CHECK_EQ_INT(h[e], b ? -HO_ROUNDS : HO_ROUNDS);
    }
    TU_FINALIZE();
    return 0;
}

int main(void)
{
    static char err[H_ERRBUF_SIZE];
    static h_status st;
    char how[128], loc[64];
    const char *env[] = { "TAMM_ON_ERROR=return", "TAMM_NUM_WORKERS=2", NULL };
    for (int k = 0; k < NCASES; k++) {
        h_context("%s", cases[k].name);
        run_child(child_case, &k, env, 20, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "child ended cleanly (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child(cases[k].name, &st, err);
        if (cases[k].wait_rc == TAMM_OK) {
            CHECK_NOT_CONTAINS(err, "tamm: error");
        } else {
            /* the error is reported on stderr, naming the task and where it was submitted */
            snprintf(loc, sizeof loc, "blk_user.c:%d", 300 + k);
            CHECK_CONTAINS(err, "tamm: error");
            CHECK_CONTAINS(err, cases[k].name);
            CHECK_CONTAINS(err, loc);
        }
    }
    for (int nw = 1; nw <= 2; nw++) {
        const char *envh[] = { "TAMM_ON_ERROR=return", nw == 1 ? "TAMM_NUM_WORKERS=1" : "TAMM_NUM_WORKERS=2", NULL };
        h_context("read reference handed on, %d worker(s)", nw);
        run_child(child_handoff, NULL, envh, 60, &st, err);
        h__merge_counts(&st);
        if (!CHECK_MSG(child_ok(&st), "child ended cleanly (got %s)", child_how(&st, how, sizeof how)))
            h_dump_child("handoff", &st, err);
        CHECK_NOT_CONTAINS(err, "tamm: error");
    }
    h_context(NULL);
    return test_summary();
}
