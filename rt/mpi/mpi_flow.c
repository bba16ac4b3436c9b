/* mpi_flow.c — the sequential task flow over several ranks (see mpi_flow.h). */
#include "mpi_flow.h"
#include "dist.h"
#include "error.h"
#include "fence.h"
#include "flow_record.h"
#include "hostmem.h"
#include "memlimit.h"
#include "mpi_comm.h"
#include "runtime.h"
#include "worker.h"
#include "stuck.h"
#include <stdio.h>
#include <string.h>


#define EXEC_ALL (-2)  /* a task that runs on every rank */

static int me, nranks;
static uint32_t *seq_to, *seq_from;        /* messages to / from each rank so far */
static int next_tensor_id, next_fence_id;
static tamm_tensor *token;                 /* orders collective tasks on this rank */
/* Under a memory limit, the block messages between two ranks in one direction
 * are at most MSG_WINDOW at a time in flight: message k's task on each end
 * waits for message k - MSG_WINDOW's (a permission-only write on block
 * (peer, direction, k mod MSG_WINDOW) of this hidden tensor).  Each in-flight
 * message keeps its block resident; without the window every send of a block
 * written early would pin it until the receiver, itself bounded, gets to it. */
#define MSG_WINDOW 2
static tamm_tensor *msgwin;
static tamm__flow_stats stats;
static uint64_t *limits;                   /* [nranks]: each rank's TAMM_MEMORY_LIMIT (0: none) */
static int cache_on;                       /* some rank has a limit: the caches are kept */
static atomic_ullong comm_ns, exposed_ns;

void tamm__flow_tensor_created(tamm_tensor *T)
{
    T->dist->id = next_tensor_id++;
    if (cache_on && !T->dist->replicated)
        T->dist->ce = tamm__xcalloc((size_t)T->nblk * (size_t)nranks, sizeof *T->dist->ce);
    tamm__rec_next(EV_TENSOR)->tid[0] = T->dist->id;
    tamm__rec_tensor_name(T->dist->id, T->name);
    uint64_t h = tamm__rec_mix(tamm__rec_hash(), EV_TENSOR);
    h = tamm__rec_mix(h, (uint64_t)T->dtype * 16 + (uint64_t)T->opts.dist);
    for (int d = 0; d < T->ndim; d++) h = tamm__rec_mix(tamm__rec_mix(h, T->dims[d]), T->tile[d]);
    tamm__rec_done(h);
}

/* ------------------------------------------------------------------ */
/* pseudo-tasks: the local side of block messages                       */
/* ------------------------------------------------------------------ */
enum { PK_SEND, PK_RECV, PK_RECV_ACC, PK_ZERO, PK_FENCE_SEND, PK_FENCE_RECV };
static const char *pk_label[] = { "tamm:send", "tamm:recv", "tamm:recv-acc", "tamm:zero", "tamm:fence-send",
                                  "tamm:fence-recv" };

/* seq: the message's number among those between its two ranks (its tag, modulo the tag bound; traces) */
static int msg_tag(uint32_t seq) { return (int)(seq % ((uint32_t)tamm__comm_tag_ub() + 1u)); }
typedef struct pargs { int kind, peer; uint32_t seq; tamm_tensor *T; long lin; } pargs;

void (*tamm__flow_msg_recorder)(int send, uint64_t task, int peer, uint32_t seq, size_t bytes, uint64_t t0, uint64_t t1);

typedef struct flow_op {
    tamm__comm_op c;
    tamm__task_s *task;
    tamm_tensor *T;
    long lin;
    int acc;
    int kept;          /* TAMM_MEMORY_LIMIT: the task's pins last until the message completes (tamm__ml_keep) */
    uint32_t seq;      /* recording (TAMM_TRACE / TAMM_DAG): the message's number, */
    uint64_t t_post;   /* and when it was posted (0: not recording) */
} flow_op;

/* Recording: the message of f has completed (its slice and arrow in the trace). */
static void record_msg(const flow_op *f)
{
    if (tamm__flow_msg_recorder)
        tamm__flow_msg_recorder(f->c.kind == TAMM_COP_SEND, f->task->id, f->c.peer, f->seq, f->c.bytes, f->t_post,
                                tamm__now_ns());
}

static void op_finish(tamm__handoff *h)
{
    flow_op *f = (flow_op *)h;
    if (TAMM_UNLIKELY(f->t_post)) record_msg(f);
    if (f->acc) {
        tamm__block_s *b = &f->T->blocks[f->lin];
        tamm__spin_lock(&b->lock);
        void *home = tamm__block_home(f->T, f->lin);
        tamm__accumulate(f->T->dtype, home, f->c.buf, b->bytes / f->T->esize);
        if (f->T->ml) tamm__ml_dirty(f->T, f->lin); /* changed outside the FSM: spilled, not dropped */
        tamm__spin_unlock(&b->lock);
        if (tamm__ml_on) {
            tamm__ml_buf_put(f->c.buf, b->bytes);
        } else {
            tamm__mem_sub(b->bytes);
            free(f->c.buf);
        }
    }
    tamm__task_s *t = f->task;
    int kept = f->kept;
    free(f);
    if (kept) tamm__ml_kept_done(t); /* the home (or copy) the message used may be evicted now */
    tamm__handoff_done();
    tamm__task_unhold(t);
}

static void pseudo_body(tamm_ctx *ctx, void *args)
{
    const pargs *a = args;
    tamm__block_s *b = &a->T->blocks[a->lin];
    tamm__spin_lock(&b->lock);
    void *home = tamm__block_home(a->T, a->lin);
    /* a receive or a zeroing changes the block outside the FSM: under a memory limit it must be
     * spilled, not dropped, when evicted (the admitted task's pins keep it resident until then) */
    if (a->T->ml && a->kind != PK_SEND) tamm__ml_dirty(a->T, a->lin);
    tamm__spin_unlock(&b->lock);
    if (a->kind == PK_ZERO) {
        memset(home, 0, b->bytes);
        return;
    }
    flow_op *f = tamm__xcalloc(1, sizeof *f);
    f->c.h.finish = op_finish;
    f->c.kind = a->kind == PK_SEND ? TAMM_COP_SEND : TAMM_COP_RECV;
    f->c.peer = a->peer;
    f->c.tag = msg_tag(a->seq);
    f->c.bytes = b->bytes;
    f->c.buf = home;
    f->task = ctx->task;
    f->T = a->T;
    f->lin = a->lin;
    f->seq = a->seq;
    if (TAMM_UNLIKELY(tamm__rt.recording)) f->t_post = tamm__now_ns();
    if (a->kind == PK_RECV_ACC) {
        f->acc = 1;
        if (tamm__ml_on) { /* within the limit (admission counted it beside the block) */
            f->c.buf = tamm__ml_buf_get(b->bytes);
            if (!f->c.buf) tamm__fatal_oom(b->bytes);
        } else {
            f->c.buf = tamm__xmalloc(b->bytes ? b->bytes : 1);
            tamm__mem_add(b->bytes);
        }
    }
    /* under a memory limit the block stays pinned (not evicted, its memory not reused) until
     * the message has completed, not only until this body returns */
    if (tamm__ml_on) f->kept = tamm__ml_keep(ctx->task);
    tamm__task_hold(ctx->task);  /* completes when the message has */
    tamm__comm_post(&f->c);
}

/* A fence message: zero bytes, its arrival is the news. */
static char fence_byte;
static void fence_body(tamm_ctx *ctx, void *args)
{
    const pargs *a = args;
    flow_op *f = tamm__xcalloc(1, sizeof *f);
    f->c.h.finish = op_finish;
    f->c.kind = a->kind == PK_FENCE_SEND ? TAMM_COP_SEND : TAMM_COP_RECV;
    f->c.peer = a->peer;
    f->c.tag = msg_tag(a->seq);
    f->c.bytes = 0;
    f->c.buf = &fence_byte;
    f->task = ctx->task;
    f->seq = a->seq;
    if (TAMM_UNLIKELY(tamm__rt.recording)) f->t_post = tamm__now_ns();
    tamm__task_hold(ctx->task);
    tamm__comm_post(&f->c);
}

/* The local side of a fence message src -> dst: on src a task that waits for
 * this rank's own signallers of the fence submitted so far (fc->mine: not
 * for the messages this rank received, which would make two ranks telling
 * each other wait for each other) and then sends; on dst a task that signals
 * the fence when the message has arrived. */
static void pseudo_fence(int kind, tamm_fence *fc, int peer, uint32_t seq)
{
    pargs a = { kind, peer, seq, NULL, 0 };
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = fence_body;
    t.args = &a;
    t.args_size = sizeof a;
    t.label = pk_label[kind];
    t.rank = -1;
    t.file = "mpi_flow.c";
    tamm_fence *fl[1] = { kind == PK_FENCE_SEND ? fc->mine : fc };
    tamm_task_opts o;
    memset(&o, 0, sizeof o);
    if (kind == PK_FENCE_SEND) { o.wait = fl; o.nwait = 1; stats.msgs_sent++; }
    else { o.signal = fl; o.nsignal = 1; stats.msgs_recv++; }
    tamm__submit(NULL, &t, &o, TAMM_TF_INTERNAL | TAMM_TF_PSEUDO, NULL);
}

static int pseudo(int kind, tamm_tensor *T, long lin, unsigned perm, int peer, uint32_t seq)
{
    pargs a = { kind, peer, seq, T, lin };
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = T->ndim;
    tamm__block_idx(T, lin, r.idx);
    r.mode = perm;
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = pseudo_body;
    t.args = &a;
    t.args_size = sizeof a;
    t.refs = &r;
    t.nrefs = 1;
    t.label = pk_label[kind];
    t.rank = -1;
    t.file = "mpi_flow.c";
    tamm_ref two[2];
    if (msgwin && kind != PK_ZERO) { /* the message window (msgwin): after message seq - MSG_WINDOW */
        two[0] = r;
        memset(&two[1], 0, sizeof two[1]);
        two[1].tensor = msgwin;
        two[1].nidx = 1;
        two[1].idx[0] = ((long)peer * 2 + (kind == PK_SEND)) * MSG_WINDOW + (long)(seq % MSG_WINDOW);
        two[1].mode = TAMM_WRITE | TAMM_PERMISSION_ONLY;
        t.refs = two;
        t.nrefs = 2;
    }
    if (kind == PK_SEND) stats.msgs_sent++;
    else if (kind != PK_ZERO) stats.msgs_recv++;
    return tamm__submit(NULL, &t, NULL, TAMM_TF_INTERNAL | TAMM_TF_PSEUDO, NULL);
}

/* The number of the next message src -> dst among the messages between the two
 * (only meaningful on its two ends); its MPI tag is msg_tag(seq). */
static uint32_t msg_seq(int src, int dst)
{
    if (cache_on && !msgwin) { /* created on every rank at the same point of the stream */
        size_t n = (size_t)nranks * 2 * MSG_WINDOW, one = 1;
        tamm_tensor_opts to;
        memset(&to, 0, sizeof to);
        to.dist = TAMM_DIST_REPLICATED;
        msgwin = tamm_tensor_create_ex("tamm:message-window", TAMM_I32, 1, &n, &one, &to);
    }
    uint32_t s = 0;
    if (me == src) s = seq_to[dst]++;
    else if (me == dst) s = seq_from[src]++;
    return s;
}

/* ------------------------------------------------------------------ */
/* fences over the ranks                                                 */
/* ------------------------------------------------------------------ */
/* Per fence, the same on every rank: nsig[r], the tasks signalling it that
 * run on rank r so far; sent[r][w], how many of those rank w has been told
 * about (a fence message r -> w covers every signaller on r submitted before
 * it); early[w], rank w has a waiter submitted before any signaller. */
static int *fence_nsig(tamm_fence *f) { return f->flow; }
static int *fence_sent(tamm_fence *f) { return f->flow + nranks; }
static int *fence_early(tamm_fence *f) { return f->flow + nranks + nranks * nranks; }

void tamm__flow_fence_created(tamm_fence *f)
{
    f->fid = next_fence_id++;
    f->flow = tamm__xcalloc((size_t)nranks * (size_t)(nranks + 2), sizeof(int));
    f->mine = tamm__xcalloc(1, sizeof *f->mine);
    tamm__spin_init(&f->mine->lock);
    tamm__rec_next(EV_FENCE)->a = f->fid;
    tamm__rec_done(tamm__rec_mix(tamm__rec_mix(tamm__rec_hash(), EV_FENCE), (uint64_t)f->fid));
}

static void fence_msg(tamm_fence *f, int src, int dst)
{
    uint32_t seq = msg_seq(src, dst);
    if (me == src) pseudo_fence(PK_FENCE_SEND, f, dst, seq);
    else if (me == dst) pseudo_fence(PK_FENCE_RECV, f, src, seq);
    fence_sent(f)[src * nranks + dst] = fence_nsig(f)[src];
}

/* A task (or the top level) on rank w waits for f: every other rank with
 * signallers w has not been told about tells it. */
static void fence_waiter(tamm_fence *f, int w, int top)
{
    int *nsig = fence_nsig(f), *sent = fence_sent(f), any = 0;
    for (int r = 0; r < nranks; r++) {
        any |= nsig[r] > 0;
        if (r != w && nsig[r] > sent[r * nranks + w]) fence_msg(f, r, w);
    }
    if (!any && !top) fence_early(f)[w] = 1; /* it waits for the first signaller to come */
}

static int fence_ok(tamm_fence *f) { return f && f->flow; }

/* The options of a task this rank runs: its signals also signal each fence's
 * `mine` (o itself if it signals no fence). */
static tamm_fence **sigbuf;
static int capsig;
static tamm_task_opts local_opts;
static const tamm_task_opts *with_mine(const tamm_task_opts *o)
{
    if (!o || o->nsignal <= 0 || !o->signal) return o;
    if (capsig < 2 * o->nsignal) {
        capsig = 2 * o->nsignal;
        sigbuf = tamm__xrealloc(sigbuf, (size_t)capsig * sizeof *sigbuf);
    }
    int n = 0;
    for (int i = 0; i < o->nsignal; i++) {
        sigbuf[n++] = o->signal[i];
        if (fence_ok(o->signal[i])) sigbuf[n++] = o->signal[i]->mine;
    }
    local_opts = *o;
    local_opts.signal = sigbuf;
    local_opts.nsignal = n;
    return &local_opts;
}

/* Before a task's local submission: the waits of a task running on exec. */
static void fence_waits(const tamm_task_opts *o, int exec)
{
    if (!o) return;
    for (int i = 0; i < o->nwait && o->wait; i++) {
        if (!fence_ok(o->wait[i])) continue;
        if (exec == EXEC_ALL)
            for (int w = 0; w < nranks; w++) fence_waiter(o->wait[i], w, 0);
        else
            fence_waiter(o->wait[i], exec, 0);
    }
}

/* After a task's local submission: its signals; a rank whose waiter came
 * before any signaller hears from the ranks of the first ones. */
static void fence_signals(const tamm_task_opts *o, int exec)
{
    if (!o) return;
    for (int i = 0; i < o->nsignal && o->signal; i++) {
        tamm_fence *f = o->signal[i];
        if (!fence_ok(f)) continue;
        int *nsig = fence_nsig(f), *early = fence_early(f);
        for (int r = 0; r < nranks; r++)
            if (exec == EXEC_ALL || r == exec) nsig[r]++;
        for (int w = 0; w < nranks; w++) {
            if (!early[w]) continue;
            early[w] = 0;
            for (int r = 0; r < nranks; r++)
                if (r != w && (exec == EXEC_ALL || r == exec)) fence_msg(f, r, w);
        }
    }
}

void tamm__flow_fence_wait(tamm_fence *f)
{
    if (!fence_ok(f)) return;
    tamm__rec_next(EV_FENCE_WAIT)->a = f->fid;
    tamm__rec_done(tamm__rec_mix(tamm__rec_mix(tamm__rec_hash(), EV_FENCE_WAIT), (uint64_t)f->fid));
    for (int w = 0; w < nranks; w++) fence_waiter(f, w, 1);
}

/* ------------------------------------------------------------------ */
/* per-block state                                                       */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; long lin; } blkref;
static blkref *runs;
static int nruns, capruns;

static void cache_stale(tamm_tensor *T, long lin, int keep);

/* The rank whose copy of b is the reference: its owner, or for a replicated
 * tensor the rank recorded in src (a holder, see dist.h). */
static int home_rank(const tamm_tensor *T, long lin)
{
    const tamm__dist_tensor *D = T->dist;
    return D->src ? D->src[lin] : T->blocks[lin].owner;
}

static void holders_all(tamm_tensor *T, long lin)
{
    tamm__dist_tensor *D = T->dist;
    uint64_t *h = tamm__dist_set(D->holders, D, lin);
    for (int r = 0; r < nranks; r++) tamm__rs_add(h, r);
}

static void holders_only(tamm_tensor *T, long lin, int a, int b)
{
    tamm__dist_tensor *D = T->dist;
    cache_stale(T, lin, b);
    uint64_t *h = tamm__dist_set(D->holders, D, lin);
    tamm__rs_clear(h, D->words);
    tamm__rs_add(h, a);
    if (b >= 0) tamm__rs_add(h, b);
}

static void open_run(tamm_tensor *T, long lin)
{
    tamm__dist_tensor *D = T->dist;
    D->st[lin] |= TAMM_DS_RUN | TAMM_DS_WRITTEN;
    tamm__rs_clear(tamm__dist_set(D->contrib, D, lin), D->words);
    holders_only(T, lin, home_rank(T, lin), -1);
    if (nruns == capruns) {
        capruns = capruns ? 2 * capruns : 64;
        runs = tamm__xrealloc(runs, (size_t)capruns * sizeof *runs);
    }
    runs[nruns].T = T;
    runs[nruns].lin = lin;
    nruns++;
}

/* The accumulation run of b closes: every contributor sends its sum to the owner. */
static void end_run(tamm_tensor *T, long lin)
{
    tamm__dist_tensor *D = T->dist;
    if (!(D->st[lin] & TAMM_DS_RUN)) return;
    D->st[lin] &= (unsigned char)~TAMM_DS_RUN;
    int o = home_rank(T, lin);
    uint64_t *c = tamm__dist_set(D->contrib, D, lin);
    for (int r = 0; r < nranks; r++) {
        if (r == o || !tamm__rs_has(c, r)) continue;
        uint32_t seq = msg_seq(r, o);
        if (me == r) pseudo(PK_SEND, T, lin, TAMM_WRITE, o, seq);
        else if (me == o) pseudo(PK_RECV_ACC, T, lin, TAMM_ACCUM, r, seq);
    }
    tamm__rs_clear(c, D->words);
}

static void end_all_runs(void)
{
    for (int i = 0; i < nruns; i++) end_run(runs[i].T, runs[i].lin);
    nruns = 0;
}

/* ------------------------------------------------------------------ */
/* the cache of other ranks' blocks under TAMM_MEMORY_LIMIT               */
/* ------------------------------------------------------------------ */
/* Eviction is decided from the task stream, so every rank knows every
 * rank's cache: each rank keeps, for every rank r, the copies r holds of
 * blocks it does not own (non-replicated tensors), in least-recently-used
 * order (a use in the stream makes a copy the most recent; a copy that stops
 * being the current version goes to the front, so stale copies go first),
 * and the bytes they take.  When r needs room for a new copy beyond its
 * limit it drops copies from the front, skipping the ones the current
 * operation uses; a dropped copy is no longer a holder of the current
 * version (a copy in an open accumulation run closes the run first: its sum
 * goes to the owner), so a later reader on r receives the block again, and
 * every rank agrees without a message.  On r itself a `tamm:evict`
 * pseudo-task with write permission on the dropped copies and on the new
 * one frees them after the tasks that use them, before the new copy is
 * allocated. */
static tamm__centry *lru;     /* [nranks]: list heads */
static uint64_t *used;       /* [nranks]: bytes of copies */
static uint64_t cur_op;
static const tamm_task *cur_task; /* the user task being decided (errors), or NULL */
static int cur_reported;
static uint64_t ev_count, ev_bytes; /* this rank's evictions */
typedef struct { tamm_tensor *T; long lin; } victim_t;
static victim_t *victims;
static int nvictims, capvictims;

static tamm__centry *ce_of(tamm_tensor *T, long lin, int r) { return &T->dist->ce[(size_t)lin * (size_t)nranks + (size_t)r]; }
static void ce_unlink(tamm__centry *c)
{
    c->prev->next = c->next;
    c->next->prev = c->prev;
    c->next = c->prev = NULL;
}
static void ce_link(int r, tamm__centry *c, int front)
{
    tamm__centry *h = &lru[r];
    if (front) { c->prev = h; c->next = h->next; }
    else { c->next = h; c->prev = h->prev; }
    c->prev->next = c;
    c->next->prev = c;
}
static int cached(tamm_tensor *T, long lin, int r)
{
    return cache_on && T->dist->ce && r != T->blocks[lin].owner;
}

/* The operation being decided uses (T, lin) on rank r (EXEC_ALL: every rank). */
static void cache_pin(tamm_tensor *T, long lin, int r)
{
    if (!cache_on || !T->dist->ce) return;
    for (int q = 0; q < nranks; q++)
        if (r == EXEC_ALL || q == r) ce_of(T, lin, q)->pin = cur_op;
}

/* Copies of (T, lin) on ranks other than the owner and `keep` are no longer
 * the current version: first to go. */
static void cache_stale(tamm_tensor *T, long lin, int keep)
{
    if (!cache_on || !T->dist->ce) return;
    for (int q = 0; q < nranks; q++) {
        tamm__centry *c = ce_of(T, lin, q);
        if (q == keep || !c->next) continue;
        ce_unlink(c);
        ce_link(q, c, 1);
    }
}

static void end_run(tamm_tensor *T, long lin);

static void evict_body(tamm_ctx *ctx, void *args)
{
    (void)ctx;
    const int *n = args;
    const victim_t *v = (const victim_t *)((const char *)args + sizeof(victim_t));
    for (int i = 0; i < *n; i++) {
        tamm__block_s *b = &v[i].T->blocks[v[i].lin];
        if (v[i].T->ml) { /* under the host memory limit: its home or spill slot, and its place in the LRU */
            tamm__spin_lock(&b->lock);
            int held = b->units[0].rc != 0;
            tamm__spin_unlock(&b->lock);
            if (!held) tamm__ml_release(v[i].T, v[i].lin);
            continue;
        }
        tamm__spin_lock(&b->lock);
        void *home = b->home;
        if (b->units[0].rc == 0) { /* no buffer of it is held (this task excludes every other user) */
            b->home = NULL;
            b->units[0].buf = NULL;
            b->units[0].state = TAMM_BS_UNALLOC;
        } else {
            home = NULL;
        }
        tamm__spin_unlock(&b->lock);
        tamm__home_free(home, b->bytes); /* from tamm__home_alloc: a mapping of its own, or pinned, for large blocks */
    }
}

/* Rank r is about to hold a new copy of `bytes`: drop copies until it fits. */
static void make_room(int r, size_t bytes, tamm_tensor *T, long lin)
{
    uint64_t lim = limits[r];
    if (!lim) return;
    nvictims = 0;
    tamm__centry *h = &lru[r], *c = h->next;
    while (used[r] + bytes > lim && c != h) {
        tamm__centry *n = c->next;
        if (c->pin == cur_op) { c = n; continue; }
        tamm_tensor *VT = c->T;
        long vl = c->lin;
        tamm__dist_tensor *VD = VT->dist;
        if ((VD->st[vl] & TAMM_DS_RUN) && tamm__rs_has(tamm__dist_set(VD->contrib, VD, vl), r))
            end_run(VT, vl); /* its partial sum goes to the owner first */
        n = c->next;         /* (end_run does not touch the lists; be safe anyway) */
        ce_unlink(c);
        used[r] -= VT->blocks[vl].bytes;
        tamm__rs_del(tamm__dist_set(VD->holders, VD, vl), r);
        if (me == r) {
            if (nvictims == capvictims) {
                capvictims = capvictims ? 2 * capvictims : 16;
                victims = tamm__xrealloc(victims, (size_t)capvictims * sizeof *victims);
            }
            victims[nvictims].T = VT;
            victims[nvictims].lin = vl;
            nvictims++;
            ev_count++;
            ev_bytes += VT->blocks[vl].bytes;
        }
        c = n;
    }
    if (used[r] + bytes > lim && cur_task && me == r && !cur_reported) {
        tamm__task_s w;
        memset(&w, 0, sizeof w);
        w.label = cur_task->label;
        w.file = cur_task->file;
        w.line = cur_task->line;
        cur_reported = 1;
        tamm__error(&w, TAMM_ENOMEM, "the task needs copies of other ranks' blocks on rank %d that do not fit in its "
                    "TAMM_MEMORY_LIMIT of %llu bytes (%llu bytes of copies it uses at once, with this one)",
                    r, (unsigned long long)lim, (unsigned long long)(used[r] + bytes));
    }
    if (me != r || nvictims == 0) return;
    /* the pseudo-task: write permission on every dropped copy and on the new one */
    size_t asz = sizeof(victim_t) * (size_t)(nvictims + 1);
    char *args = tamm__xcalloc(1, asz);
    *(int *)args = nvictims;
    memcpy(args + sizeof(victim_t), victims, (size_t)nvictims * sizeof *victims);
    tamm_ref *refs = tamm__xcalloc((size_t)nvictims + 1, sizeof *refs);
    for (int i = 0; i <= nvictims; i++) {
        tamm_tensor *RT = i < nvictims ? victims[i].T : T;
        refs[i].tensor = RT;
        refs[i].nidx = RT->ndim;
        tamm__block_idx(RT, i < nvictims ? victims[i].lin : lin, refs[i].idx);
        refs[i].mode = TAMM_WRITE;
    }
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = evict_body;
    t.args = args;
    t.args_size = asz;
    t.refs = refs;
    t.nrefs = nvictims + 1;
    t.label = "tamm:evict";
    t.rank = -1;
    t.file = "mpi_flow.c";
    tamm__submit(NULL, &t, NULL, TAMM_TF_INTERNAL | TAMM_TF_PSEUDO, NULL);
    free(refs);
    free(args);
}

/* Rank r uses its copy of (T, lin) now (the stream's order): the most recent;
 * a new copy first makes room. */
static void cache_use(tamm_tensor *T, long lin, int r)
{
    if (!cached(T, lin, r)) return;
    tamm__centry *c = ce_of(T, lin, r);
    if (c->next) {
        ce_unlink(c);
        ce_link(r, c, 0);
        return;
    }
    size_t bytes = T->blocks[lin].bytes;
    make_room(r, bytes, T, lin);
    c->T = T;
    c->lin = lin;
    ce_link(r, c, 0);
    used[r] += bytes;
}

/* Tensor T goes away: its copies leave every cache. */
static void cache_drop_tensor(tamm_tensor *T)
{
    if (!cache_on || !T->dist->ce) return;
    for (long b = 0; b < T->nblk; b++)
        for (int q = 0; q < nranks; q++) {
            tamm__centry *c = ce_of(T, b, q);
            if (!c->next) continue;
            ce_unlink(c);
            used[q] -= T->blocks[b].bytes;
        }
}

/* Rank e needs the current version of b before a task of its reads it. */
static void need_copy(tamm_tensor *T, long lin, int e)
{
    tamm__dist_tensor *D = T->dist;
    uint64_t *h = tamm__dist_set(D->holders, D, lin);
    cache_use(T, lin, e);
    if (tamm__rs_has(h, e)) return;
    int o = home_rank(T, lin);
    if (D->st[lin] & TAMM_DS_WRITTEN) {
        uint32_t seq = msg_seq(o, e);
        if (me == o) pseudo(PK_SEND, T, lin, TAMM_READ, e, seq);
        else if (me == e) pseudo(PK_RECV, T, lin, TAMM_WRITE, o, seq);
    }
    /* never modified: e makes it itself (zeros, or the generator) */
    tamm__rs_add(h, e);
}

/* A block of a replicated tensor used with permission p by an operation on
 * rank exec (EXEC_ALL: every rank, each on its own copy).  Every rank holds a
 * copy, but only the holders' copies are current: src (a holder) sends the
 * block to a rank that needs it (invalidate, then fetch at the next use).
 *   - every rank: the run closes, every stale copy is brought up to date;
 *     a modification (every rank changing its copy the same way) leaves
 *     every copy current;
 *   - accumulate only, one rank: the run of b (rooted at src) takes exec's
 *     contribution as for a distributed block owned by src;
 *   - otherwise, one rank: the run closes, exec brings its copy up to date;
 *     a modification leaves exec the only holder, and the new src.
 * No message goes to a rank that does not use the block. */
static void rep_use(tamm_tensor *T, long lin, unsigned p, int exec)
{
    tamm__dist_tensor *D = T->dist;
    int mod = (p & (TAMM_WRITE | TAMM_ACCUM)) != 0;
    if (exec == EXEC_ALL) {
        end_run(T, lin);
        for (int r = 0; r < nranks; r++) need_copy(T, lin, r);
        if (mod) {
            D->st[lin] |= TAMM_DS_WRITTEN;
            holders_all(T, lin);
        }
        return;
    }
    if (p == TAMM_ACCUM) {
        if (!(D->st[lin] & TAMM_DS_RUN)) open_run(T, lin);
        uint64_t *c = tamm__dist_set(D->contrib, D, lin);
        if (exec != D->src[lin] && !tamm__rs_has(c, exec)) {
            tamm__rs_add(c, exec);
            if (me == exec) pseudo(PK_ZERO, T, lin, TAMM_WRITE, -1, 0);
        }
        return;
    }
    end_run(T, lin);
    need_copy(T, lin, exec);
    if (mod) { /* write, readwrite, read+accumulate */
        D->st[lin] |= TAMM_DS_WRITTEN;
        D->src[lin] = exec;
        holders_only(T, lin, exec, -1);
    }
}

/* ------------------------------------------------------------------ */
/* a task's blocks                                                       */
/* ------------------------------------------------------------------ */
typedef struct { tamm_tensor *T; long lin; unsigned perm; } fblk;
static fblk *fb;
static int nfb, capfb;
static tamm_ref *lrefs;      /* a collective's local refs */
static int caplrefs;
typedef struct { tamm_tensor *T; long lin; int peer; } after_t; /* a put-back exec -> owner peer */
static after_t *after;
static int nafter, capafter;

static void fb_add(tamm_tensor *T, long lin, unsigned perm)
{
    if (nfb == capfb) {
        capfb = capfb ? 2 * capfb : 64;
        fb = tamm__xrealloc(fb, (size_t)capfb * sizeof *fb);
    }
    fb[nfb].T = T;
    fb[nfb].lin = lin;
    fb[nfb].perm = perm;
    nfb++;
}

static int fb_cmp(const void *a, const void *b)
{
    const fblk *x = a, *y = b;
    if (x->T != y->T) return x->T->dist->id < y->T->dist->id ? -1 : 1;
    return x->lin < y->lin ? -1 : x->lin > y->lin;
}

/* The blocks of the refs (slices and whole tensors expanded), each once with
 * the union of its permissions, in a deterministic order. */
static void expand(const tamm_ref *refs, int nrefs)
{
    nfb = 0;
    for (int i = 0; i < nrefs; i++) {
        const tamm_ref *r = &refs[i];
        if (r->mode & TAMM_TEMP) continue;
        tamm_tensor *T = r->tensor;
        unsigned perm = r->mode & 7u;
        /* reproducible accumulation: exclusive, on the current block, like read+accumulate
         * (the block goes to the task's rank and back), not a partial sum for the owner */
        if ((perm & TAMM_ACCUM) && T->ordered) perm |= TAMM_READ;
        if (r->nidx == 0) {
            for (long b = 0; b < T->nblk; b++) fb_add(T, b, perm);
            continue;
        }
        long lo[TAMM_MAX_DIMS], hi[TAMM_MAX_DIMS], idx[TAMM_MAX_DIMS];
        for (int d = 0; d < T->ndim; d++) { /* inclusive bounds */
            tamm__idx_span(T, d, r->idx[d], &lo[d], &hi[d]);
            hi[d]--;
            idx[d] = lo[d];
        }
        for (;;) {
            fb_add(T, tamm__block_lin_checked(T, idx), perm);
            int d = T->ndim - 1;
            while (d >= 0 && idx[d] == hi[d]) { idx[d] = lo[d]; d--; }
            if (d < 0) break;
            idx[d]++;
        }
    }
    if (nfb > 1) {
        if (nfb <= 16) { /* insertion sort: the common few-block task */
            for (int i = 1; i < nfb; i++) {
                fblk x = fb[i];
                int j = i - 1;
                while (j >= 0 && fb_cmp(&fb[j], &x) > 0) { fb[j + 1] = fb[j]; j--; }
                fb[j + 1] = x;
            }
        } else {
            qsort(fb, (size_t)nfb, sizeof *fb, fb_cmp);
        }
        int w = 0;
        for (int i = 0; i < nfb; i++) {
            if (w > 0 && fb[w - 1].T == fb[i].T && fb[w - 1].lin == fb[i].lin) fb[w - 1].perm |= fb[i].perm;
            else fb[w++] = fb[i];
        }
        nfb = w;
    }
}

/* Where a task runs: the owner of the first block it writes or accumulates
 * (every rank if that block is replicated), else of the first block it
 * names, else rank 0. */
static int decide(const tamm_task *u)
{
    const tamm_ref *pick = NULL;
    for (int pass = 0; pass < 2 && !pick; pass++)
        for (int i = 0; i < u->nrefs; i++) {
            const tamm_ref *r = &u->refs[i];
            if (r->mode & TAMM_TEMP) continue;
            if (pass == 0 && !(r->mode & (TAMM_WRITE | TAMM_ACCUM))) continue;
            pick = r;
            break;
        }
    if (!pick) return 0;
    tamm_tensor *T = pick->tensor;
    if (T->dist->replicated) return (pick->mode & (TAMM_WRITE | TAMM_ACCUM)) ? EXEC_ALL : 0;
    long idx[TAMM_MAX_DIMS] = { 0 };
    for (int d = 0; d < pick->nidx; d++) { /* a slice's or range's first block */
        long hi;
        tamm__idx_span(T, d, pick->idx[d], &idx[d], &hi);
    }
    return T->blocks[pick->nidx ? tamm__block_lin_checked(T, idx) : 0].owner;
}

/* Enough validation to read the refs safely; anything wrong goes to
 * tamm__submit, which reports it in the usual words.  The destroy task itself
 * names its tensor after tamm_tensor_destroy marked it: it must go through the
 * flow, which closes the tensor's accumulation runs and drops its cached copies
 * before the tensor's state is freed. */
static int refs_readable(const tamm_task *u, unsigned flags)
{
    if (u->nrefs < 0 || (u->nrefs > 0 && !u->refs)) return 0;
    for (int i = 0; i < u->nrefs; i++) {
        const tamm_ref *r = &u->refs[i];
        if (!r->tensor || !r->tensor->dist) return 0;
        if (atomic_load(&r->tensor->destroyed) && !(flags & TAMM_TF_DESTROY)) return 0;
        if (r->nidx != 0 && r->nidx != r->tensor->ndim) return 0;
        for (int d = 0; d < r->nidx; d++)
            if (!tamm__idx_valid(r->tensor, d, r->idx[d])) return 0;
        if (!(r->mode & TAMM_TEMP) && !(r->mode & 7u)) return 0;
    }
    return 1;
}

static void hash_task(const tamm_task *u, const tamm_task_opts *o, int coll, unsigned flags)
{
    tamm__flow_ev *dd = tamm__rec_next(EV_TASK);
    dd->label = u->label;
    dd->file = u->file;
    dd->line = u->line;
    dd->nref = u->nrefs;
    for (int i = 0; i < u->nrefs && i < 2; i++) {
        const tamm_ref *r = &u->refs[i];
        dd->tid[i] = r->tensor->dist ? r->tensor->dist->id : -1;
        dd->nidx[i] = r->nidx;
        for (int x = 0; x < r->nidx; x++) dd->idx[i][x] = (long)r->idx[x];
    }
    uint64_t h = tamm__rec_mix(tamm__rec_hash(), EV_TASK);
    h = tamm__rec_mix(h, (uint64_t)(u->rank + 2) * 4 + (uint64_t)coll * 2 + ((flags & TAMM_TF_DESTROY) ? 1 : 0));
    if (o) { /* fences: their numbers, waits and signals apart */
        for (int i = 0; i < o->nwait && o->wait; i++)
            h = tamm__rec_mix(h, fence_ok(o->wait[i]) ? (uint64_t)o->wait[i]->fid * 2 : ~0ull);
        for (int i = 0; i < o->nsignal && o->signal; i++)
            h = tamm__rec_mix(h, fence_ok(o->signal[i]) ? (uint64_t)o->signal[i]->fid * 2 + 1 : ~1ull);
    }
    for (int i = 0; i < u->nrefs; i++) {
        const tamm_ref *r = &u->refs[i];
        h = tamm__rec_mix(h, (uint64_t)r->tensor->dist->id * 64 + (uint64_t)r->nidx * 4096 + r->mode);
        for (int d = 0; d < r->nidx; d++) h = tamm__rec_mix(h, (uint64_t)r->idx[d]);
    }
    tamm__rec_done(h);
}

static tamm__task_s where_of(const tamm_task *u)
{
    tamm__task_s w;
    memset(&w, 0, sizeof w);
    w.label = u->label;
    w.file = u->file;
    w.line = u->line;
    return w;
}

static void after_add(tamm_tensor *T, long lin, int peer)
{
    if (nafter == capafter) {
        capafter = capafter ? 2 * capafter : 16;
        after = tamm__xrealloc(after, (size_t)capafter * sizeof *after);
    }
    after[nafter].T = T;
    after[nafter].lin = lin;
    after[nafter].peer = peer;
    nafter++;
}

/* The put-backs of the blocks a task on exec modified that other ranks own: a
 * send on exec after the task, a receive on the owner.  Their numbers are taken
 * here, on every rank, after those of the task's other messages: on both ends
 * the messages between two ranks are then submitted in the order of their
 * numbers, which the message window (msgwin) relies on. */
static void after_flush(int exec)
{
    for (int i = 0; i < nafter; i++) {
        int ow = after[i].peer;
        uint32_t seq = msg_seq(exec, ow);
        if (me == exec) pseudo(PK_SEND, after[i].T, after[i].lin, TAMM_READ, ow, seq);
        else if (me == ow) pseudo(PK_RECV, after[i].T, after[i].lin, TAMM_WRITE, exec, seq);
    }
    nafter = 0;
}

static int submit_collective(const tamm_task *u, const tamm_task_opts *o, unsigned flags)
{
    if (!token) {
        size_t one = 1;
        tamm_tensor_opts to;
        memset(&to, 0, sizeof to);
        to.dist = TAMM_DIST_REPLICATED;
        token = tamm_tensor_create_ex("tamm:collectives", TAMM_I32, 1, &one, &one, &to);
        if (!token) return TAMM_ENOMEM;
    }
    /* the leaf of this rank: its own blocks, in the modes asked; no data moves */
    int n = 0;
    if (caplrefs < nfb + 1) {
        caplrefs = nfb + 1;
        lrefs = tamm__xrealloc(lrefs, (size_t)caplrefs * sizeof *lrefs);
    }
    for (int i = 0; i < nfb; i++) {
        tamm_tensor *T = fb[i].T;
        long lin = fb[i].lin;
        tamm__dist_tensor *D = T->dist;
        int o2 = T->blocks[lin].owner;
        if (D->replicated) {
            /* each leaf uses its rank's copy: every copy is brought up to date first */
            rep_use(T, lin, fb[i].perm, EXEC_ALL);
        } else {
            /* any use closes the block's accumulation run: the owner's leaf sees
             * the contributions of every rank (a read too) */
            end_run(T, lin);
            if (fb[i].perm & (TAMM_WRITE | TAMM_ACCUM)) {
                D->st[lin] |= TAMM_DS_WRITTEN;
                holders_only(T, lin, o2, -1);
            }
        }
        if (o2 != me && !D->replicated) continue;
        tamm_ref *r = &lrefs[n++];
        memset(r, 0, sizeof *r);
        r->tensor = T;
        r->nidx = T->ndim;
        tamm__block_idx(T, lin, r->idx);
        r->mode = fb[i].perm;
    }
    memset(&lrefs[n], 0, sizeof lrefs[n]);
    lrefs[n].tensor = token;
    lrefs[n].nidx = 0;
    lrefs[n].mode = TAMM_WRITE | TAMM_PERMISSION_ONLY;
    n++;
    tamm_task t = *u;
    t.refs = lrefs;
    t.nrefs = n;
    return tamm__submit(NULL, &t, o, flags | TAMM_TF_INTERNAL, NULL);
}

int tamm__flow_submit(const tamm_task *u, const tamm_task_opts *o, unsigned flags, tamm__task_s **out)
{
    if (out) *out = NULL;
    if (!u || !refs_readable(u, flags)) return tamm__submit(NULL, u, o, flags | TAMM_TF_INTERNAL, out);
    uint64_t t0 = tamm__now_ns();
    int coll = o && o->collective;
    int destroy = (flags & TAMM_TF_DESTROY) != 0;
    hash_task(u, o, coll, flags);
    stats.tasks++;
    tamm__task_s w = where_of(u);
    int exec;
    if (destroy || coll) {
        exec = EXEC_ALL;
    } else if (u->rank != -1) {
        int rc = tamm__valid_on(&w, u->rank);
        if (rc) return rc;
        exec = u->rank;
    } else {
        exec = decide(u);
    }
    expand(u->refs, u->nrefs);
    cur_op++;
    cur_task = u;
    cur_reported = 0;
    if (cache_on && !coll && !destroy)
        for (int i = 0; i < nfb; i++) cache_pin(fb[i].T, fb[i].lin, exec);
    if (coll) {
        stats.executed++;
        fence_waits(o, EXEC_ALL);
        cur_task = NULL;
        int rc = submit_collective(u, with_mine(o), flags);
        fence_signals(o, EXEC_ALL);
        return rc;
    }
    /* a task that runs on every rank (its first modified block is replicated)
     * modifies replicated tensors only; a task on one rank may modify any */
    for (int i = 0; i < nfb && !destroy && exec == EXEC_ALL; i++) {
        if (!(fb[i].perm & (TAMM_WRITE | TAMM_ACCUM))) continue;
        char bn[128];
        if (!fb[i].T->dist->replicated)
            return tamm__error(&w, TAMM_EINVAL, "the task modifies replicated data, so it runs on every rank, but it "
                               "also modifies %s of distributed tensor '%s'",
                               tamm__block_name(fb[i].T, fb[i].lin, bn, sizeof bn), fb[i].T->name);
    }
    int mine = exec == EXEC_ALL || exec == me;
    nafter = 0;
    for (int i = 0; i < nfb; i++) {
        tamm_tensor *T = fb[i].T;
        long lin = fb[i].lin;
        unsigned p = fb[i].perm;
        tamm__dist_tensor *D = T->dist;
        int ow = T->blocks[lin].owner;
        if (destroy) {
            end_run(T, lin);
            continue;
        }
        if (D->replicated) {
            rep_use(T, lin, p, exec);
            continue;
        }
        if (p == TAMM_ACCUM) {
            if (!(D->st[lin] & TAMM_DS_RUN)) open_run(T, lin);
            uint64_t *c = tamm__dist_set(D->contrib, D, lin);
            if (exec != ow) cache_use(T, lin, exec);
            if (exec != ow && !tamm__rs_has(c, exec)) {
                tamm__rs_add(c, exec);
                if (me == exec) pseudo(PK_ZERO, T, lin, TAMM_WRITE, -1, 0);
            }
            continue;
        }
        end_run(T, lin);
        if (exec == EXEC_ALL) {
            for (int r = 0; r < nranks; r++)
                if (r != ow) need_copy(T, lin, r);
        } else if (exec != ow) {
            need_copy(T, lin, exec);
        }
        if (p & TAMM_WRITE) { /* write, readwrite, read+accumulate: exclusive */
            D->st[lin] |= TAMM_DS_WRITTEN;
            if (exec != ow) {
                after_add(T, lin, ow); /* the put-back, after the task (after_flush) */
                holders_only(T, lin, ow, exec);
            } else {
                holders_only(T, lin, ow, -1);
            }
        } else if (p == (TAMM_READ | TAMM_ACCUM)) {
            /* read+accumulate counts as write (docs/runtime.md) */
            D->st[lin] |= TAMM_DS_WRITTEN;
            if (exec != ow) {
                after_add(T, lin, ow); /* the put-back, after the task (after_flush) */
                holders_only(T, lin, ow, exec);
            } else {
                holders_only(T, lin, ow, -1);
            }
        }
    }
    if (destroy) {
        /* drop the tensor's entries from the list of open runs: it will be freed */
        int k = 0;
        tamm_tensor *T = u->refs[0].tensor;
        cache_drop_tensor(T);
        for (int i = 0; i < nruns; i++)
            if (runs[i].T != T) runs[k++] = runs[i];
        nruns = k;
    }
    cur_task = NULL;
    fence_waits(o, exec);
    if (!mine) {
        after_flush(exec);
        fence_signals(o, exec);
        stats.skipped++;
        stats.skip_ns += tamm__now_ns() - t0;
        return TAMM_OK;
    }
    stats.executed++;
    int rc = tamm__submit(NULL, u, with_mine(o), flags | TAMM_TF_INTERNAL, out);
    after_flush(exec);
    fence_signals(o, exec);
    return rc;
}

/* ------------------------------------------------------------------ */
/* collective tasks: all ranks at once                                  */
/* ------------------------------------------------------------------ */
typedef struct agree_op { tamm__comm_op c; tamm__task_s *t; } agree_op;

static void agree_finish(tamm__handoff *h)
{
    agree_op *a = (agree_op *)h;
    tamm__task_s *t = a->t;
    free(a);
    tamm__handoff_done();
    t->flags |= TAMM_TF_AGREED;
    tamm__task_make_ready(t);
}

void tamm__flow_collective_ready(tamm__task_s *t)
{
    agree_op *a = tamm__xcalloc(1, sizeof *a);
    a->c.h.finish = agree_finish;
    a->c.kind = TAMM_COP_AGREE;
    a->t = t;
    tamm__comm_post(&a->c);
}

/* ------------------------------------------------------------------ */
/* top level: synchronisation, tamm_block, gather / scatter              */
/* ------------------------------------------------------------------ */
void tamm__flow_sync(int kind)
{
    end_all_runs();
    tamm__rec_next(EV_SYNC)->a = kind;
    tamm__rec_done(tamm__rec_mix(tamm__rec_mix(tamm__rec_hash(), EV_SYNC), (uint64_t)kind));
    tamm__comm_sync(kind, tamm__flow_stream_count(), tamm__rec_hash());
}

void tamm__flow_xfence(void)
{
    end_all_runs();
    tamm__rec_next(EV_XFENCE);
    tamm__rec_done(tamm__rec_mix(tamm__rec_hash(), EV_XFENCE));
}

/* An execution fence reached on this rank fires when every rank has reached
 * it: an MPI_Ibarrier on the progress thread, finished on a worker. */
typedef struct xf_op { tamm__comm_op c; tamm__xfence *x; } xf_op;

static void xf_agreed(tamm__handoff *h)
{
    xf_op *o = (xf_op *)h;
    tamm__xfence *x = o->x;
    free(o);
    tamm__xfence_agreed(x);
    /* after the fire: a waiting thread never finds the run idle in between */
    tamm__handoff_done();
}

static void xf_reached(tamm__xfence *x)
{
    xf_op *o = tamm__xcalloc(1, sizeof *o);
    o->c.h.finish = xf_agreed;
    o->c.kind = TAMM_COP_FENCE;
    o->x = x;
    tamm__comm_post(&o->c);
}

/* the task flow's part in fences (core/fence.h), installed while flow_on */
static const tamm__fence_filter_t flow_fences = {
    .created = tamm__flow_fence_created,
    .wait = tamm__flow_fence_wait,
    .xfence = tamm__flow_xfence,
    .reached = xf_reached,
};

static int sentinel_ready(void *arg)
{
    tamm__task_s *t = arg;
    return atomic_load_explicit(&t->ready_flag, memory_order_acquire) != 0;
}

/* A bodiless local task with refs; returns once it may run (the caller then
 * works and calls tamm__task_finish_sentinel). */
static int local_sentinel(const tamm_ref *refs, int n, const char *what, tamm__task_s **out)
{
    tamm_task sk;
    memset(&sk, 0, sizeof sk);
    sk.refs = refs;
    sk.nrefs = n;
    sk.label = what;
    sk.rank = -1;
    tamm__task_s *t = NULL;
    int rc = tamm__submit(NULL, &sk, NULL, TAMM_TF_SENTINEL | TAMM_TF_INTERNAL, &t);
    if (rc) return rc;
    rc = tamm__help_until(sentinel_ready, t);
    tamm__deadlock_detail(rc);
    if (rc) return tamm__error(NULL, rc, "%s: the tasks using the block can never run", what);
    *out = t;
    return TAMM_OK;
}

void *tamm__flow_block_at(tamm_tensor *T, const long *idx, int n)
{
    long lin = T && idx && T->dist ? tamm__block_lin(T, idx, n) : -1;
    if (lin < 0) {
        if (!T) tamm__error(NULL, TAMM_EINVAL, "tamm_block: the tensor is NULL");
        else if (!idx || n != T->ndim)
            tamm__error(NULL, TAMM_EINVAL, "tamm_block on '%s': %d indices given, the tensor has %d dimensions",
                        T->name, idx ? n : 0, T->ndim);
        else if (T->dist) tamm__range_error(NULL, "tamm_block: ", T, idx, n, 0, NULL);
        else tamm__error(NULL, TAMM_ERANGE, "tamm_block on '%s': block index out of range", T->name);
        return NULL;
    }
    tamm__dist_tensor *D = T->dist;
    tamm__flow_ev *dd = tamm__rec_next(EV_BLOCK);
    dd->tid[0] = D->id;
    dd->b = lin;
    tamm__rec_done(tamm__rec_mix(tamm__rec_mix(tamm__rec_mix(tamm__rec_hash(), EV_BLOCK), (uint64_t)D->id),
                                 (uint64_t)lin));
    int ow = T->blocks[lin].owner;
    unsigned mode = TAMM_READWRITE;
    if (D->replicated) {
        /* every rank's copy is brought up to date and is the block; every
         * rank changes its copy the same way */
        cur_op++;
        cur_task = NULL;
        rep_use(T, lin, TAMM_READWRITE, EXEC_ALL);
    } else {
        end_run(T, lin);
        cur_op++;
        cur_task = NULL;
        cache_pin(T, lin, EXEC_ALL);
        for (int r = 0; r < nranks; r++)
            if (r != ow) need_copy(T, lin, r);
        /* the owner's copy is the block (the program may change it); the
         * others get a synchronised copy whose changes go nowhere: it is no
         * longer the current version, and the local sentinel is exclusive, so
         * no send of this copy (a put-back) is still in flight */
        D->st[lin] |= TAMM_DS_WRITTEN;
        holders_only(T, lin, ow, -1);
    }
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = n;
    memcpy(r.idx, idx, (size_t)n * sizeof(long));
    r.mode = mode;
    tamm__task_s *t = NULL;
    if (local_sentinel(&r, 1, "tamm_block", &t)) return NULL;
    tamm__block_s *b = &T->blocks[lin];
    tamm__spin_lock(&b->lock);
    void *home = tamm__block_home(T, lin);
    if (T->ml) tamm__ml_top_pin(T, lin); /* resident while top-level code uses it */
    tamm__spin_unlock(&b->lock);
    tamm__task_finish_sentinel(t);
    return home;
}

int tamm__flow_whole(tamm_tensor *T, void *arr, int to_arr)
{
    const char *what = to_arr ? "tamm_tensor_gather" : "tamm_tensor_scatter";
    if (!T || !arr || !T->dist) return tamm__error(NULL, TAMM_EINVAL, "%s: %s is NULL", what, T ? "the array" : "the tensor");
    tamm__dist_tensor *D = T->dist;
    tamm__rec_next(to_arr ? EV_GATHER : EV_SCATTER)->tid[0] = D->id;
    tamm__rec_done(
        tamm__rec_mix(tamm__rec_mix(tamm__rec_hash(), to_arr ? EV_GATHER : EV_SCATTER), (uint64_t)D->id));
    /* gather brings every block to every rank: its copies are all needed at
     * once (beyond a memory limit, evictable afterwards) */
    cur_op++;
    cur_task = NULL;
    if (to_arr && !D->replicated)
        for (long b = 0; b < T->nblk; b++) cache_pin(T, b, EXEC_ALL);
    for (long b = 0; b < T->nblk; b++) {
        int ow = T->blocks[b].owner;
        if (D->replicated) { /* every rank reads its copy (up to date first) / writes it */
            if (to_arr) {
                rep_use(T, b, TAMM_READ, EXEC_ALL);
            } else {
                end_run(T, b);
                D->st[b] |= TAMM_DS_WRITTEN;
                holders_all(T, b);
            }
            continue;
        }
        end_run(T, b);
        if (to_arr) {
            for (int r = 0; r < nranks; r++)
                if (r != ow) need_copy(T, b, r);
        } else {
            D->st[b] |= TAMM_DS_WRITTEN;
            holders_only(T, b, ow, -1);
        }
    }
    /* gather reads every block here; scatter writes the blocks this rank owns */
    tamm_ref *refs;
    int n = 0;
    if (to_arr || D->replicated) {
        refs = tamm__xcalloc(1, sizeof *refs);
        refs[0].tensor = T;
        refs[0].nidx = 0;
        refs[0].mode = to_arr ? TAMM_READ : TAMM_WRITE;
        n = 1;
    } else {
        refs = tamm__xcalloc((size_t)T->nblk + 1, sizeof *refs);
        for (long b = 0; b < T->nblk; b++) {
            if (T->blocks[b].owner != me) continue;
            refs[n].tensor = T;
            refs[n].nidx = T->ndim;
            tamm__block_idx(T, b, refs[n].idx);
            refs[n].mode = TAMM_WRITE;
            n++;
        }
    }
    int rc = TAMM_OK;
    if (n > 0) {
        tamm__task_s *t = NULL;
        rc = local_sentinel(refs, n, what, &t);
        if (!rc) {
            for (long b = 0; b < T->nblk; b++) {
                if (!to_arr && !D->replicated && T->blocks[b].owner != me) continue;
                tamm__block_s *blk = &T->blocks[b];
                tamm__spin_lock(&blk->lock);
                void *home = tamm__block_home(T, b);
                if (T->ml) {
                    tamm__ml_pin(T, b); /* no eviction during the copy */
                    if (!to_arr) tamm__ml_dirty(T, b);
                }
                tamm__spin_unlock(&blk->lock);
                tamm__block_copy(T, b, home, arr, to_arr);
                if (T->ml) tamm__ml_unpin(T, b);
            }
            tamm__task_finish_sentinel(t);
        }
    }
    free(refs);
    return rc ? rc : tamm__error_take();
}

/* ------------------------------------------------------------------ */
/* sessions and statistics                                              */
/* ------------------------------------------------------------------ */
static void flow_sync_wait(void) { tamm__flow_sync(TAMM_SYNC_WAIT); }

/* the flow as the core's submission filter (layer.h) */
static const tamm__flow_ops flow_ops = {
    .submit = tamm__flow_submit,
    .collective_ready = tamm__flow_collective_ready,
    .sync_wait = flow_sync_wait,
    .block_at = tamm__flow_block_at,
    .whole = tamm__flow_whole,
};

int tamm__flow_session_start(void)
{
    me = tamm__comm_rank();
    nranks = tamm__comm_size();
    next_tensor_id = 0;
    next_fence_id = 0;
    token = NULL;
    msgwin = NULL;
    tamm__rec_start();
    memset(&stats, 0, sizeof stats);
    atomic_store(&comm_ns, 0);
    atomic_store(&exposed_ns, 0);
    nruns = 0;
    tamm__flow_install(nranks > 1 ? &flow_ops : NULL); /* the submission filter, in front of the core */
    tamm__fence_filter = tamm__flow_on ? &flow_fences : NULL;
    cache_on = 0;
    cur_op = 0;
    cur_task = NULL;
    ev_count = ev_bytes = 0;
    if (tamm__flow_on) {
        seq_to = tamm__xcalloc((size_t)nranks, sizeof *seq_to);
        seq_from = tamm__xcalloc((size_t)nranks, sizeof *seq_from);
        /* every rank's memory limit: each rank decides every rank's evictions */
        limits = tamm__xcalloc((size_t)nranks, sizeof *limits);
        tamm__comm_allgather_u64((uint64_t)tamm__rt.cfg.memory_limit, limits);
        for (int r = 0; r < nranks; r++) cache_on |= limits[r] != 0;
        if (cache_on) {
            lru = tamm__xcalloc((size_t)nranks, sizeof *lru);
            used = tamm__xcalloc((size_t)nranks, sizeof *used);
            for (int r = 0; r < nranks; r++) lru[r].next = lru[r].prev = &lru[r];
        }
    }
    return TAMM_OK;
}

void tamm__flow_session_end(void)
{
    tamm__flow_install(NULL);
    tamm__fence_filter = NULL;
    free(seq_to);
    free(seq_from);
    seq_to = seq_from = NULL;
    free(runs);
    runs = NULL;
    nruns = capruns = 0;
    free(fb);
    fb = NULL;
    nfb = capfb = 0;
    free(lrefs);
    lrefs = NULL;
    caplrefs = 0;
    free(after);
    after = NULL;
    capafter = 0;
    free(sigbuf);
    sigbuf = NULL;
    capsig = 0;
    free(limits);
    free(lru);
    free(used);
    free(victims);
    limits = NULL;
    lru = NULL;
    used = NULL;
    victims = NULL;
    nvictims = capvictims = 0;
    cache_on = 0;
    token = NULL;
    msgwin = NULL;
    tamm__rec_end();
}

void tamm__flow_note_comm(uint64_t dt, int exposed)
{
    atomic_fetch_add_explicit(&comm_ns, dt, memory_order_relaxed);
    if (exposed) atomic_fetch_add_explicit(&exposed_ns, dt, memory_order_relaxed);
}

void tamm__flow_get_stats(tamm__flow_stats *s)
{
    *s = stats;
    s->evictions = ev_count;
    s->evicted_bytes = ev_bytes;
    s->comm_ns = atomic_load(&comm_ns);
    s->exposed_ns = atomic_load(&exposed_ns);
}
