/* mpi_comm.c — the MPI progress engine and control protocol (see mpi_comm.h). */
#include "mpi_comm.h"
#include "error.h"
#include "mpi_flow.h"
#include "runtime.h"
#include <tamm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

/* TAMM_MPI and TAMM_MPI_STALL, checked the same way with and without MPI (a
 * value that one build rejects is rejected by both).  *stall: the seconds. */
static int check_env(double *stall)
{
    const char *f = getenv("TAMM_MPI");
    if (f && *f && strcmp(f, "0") && strcmp(f, "1")) {
        fprintf(stderr, "tamm: error: TAMM_MPI: invalid value '%s' (expected 0 or 1)\n", f);
        return TAMM_EINVAL;
    }
    const char *st = getenv("TAMM_MPI_STALL");
    if (st && *st) {
        char *end;
        errno = 0;
        double v = strtod(st, &end);
        if (errno || *end || !(v >= 0.05 && v <= 3600)) {
            fprintf(stderr, "tamm: error: TAMM_MPI_STALL: invalid value '%s' (expected seconds, 0.05 to 3600)\n", st);
            return TAMM_EINVAL;
        }
        *stall = v;
    }
    return TAMM_OK;
}

#if TAMM_HAVE_MPI
#include <mpi.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* process-wide MPI state                                               */
/* ------------------------------------------------------------------ */
static int mpi_started;     /* we called MPI_Init_thread */
static int world_rank, world_size = 1;
static int local_rank, local_size = 1; /* among the ranks sharing this node's memory */
static int tag_ub = 32767;

/* per session */
static MPI_Comm data_comm = MPI_COMM_NULL, ctl_comm = MPI_COMM_NULL, agree_comm = MPI_COMM_NULL,
                fence_comm = MPI_COMM_NULL, leaf_comm = MPI_COMM_NULL;
static pthread_t progress_thread;
static int progress_running;
static atomic_int progress_stop;
static _Atomic(tamm__comm_op *) post_head;
static atomic_uint post_seq;
static atomic_ullong bytes_sent, bytes_recv;
static double stall_s = 2.0;

/* Control messages (ctl_comm, tag 1): fixed size. */
enum { CTL_SYNC = 1, CTL_ABORT, CTL_STATUS, CTL_STATUS_REPLY, CTL_DESC_REQ, CTL_DESC };
typedef struct ctl_msg {
    int type, from, kind, pad;
    int64_t idx;
    uint64_t count, hash;
    char text[448];
} ctl_msg;
#define CTL_TAG 1
#define CTL_DESC_TAG 2 /* the events after a mismatch (CTL_DESC), apart from the posted control receive */
#define NDESC 64

/* Synchronisation records: mine (appended by the progress thread in the
 * order the top level posts them) and every peer's, compared index by index. */
typedef struct sync_rec { int kind; uint64_t count, hash; } sync_rec;
typedef struct rec_vec { sync_rec *v; long n, cap; } rec_vec;
static rec_vec mine;
static rec_vec *peers;        /* [world_size] */
static long *compared;        /* [world_size]: records compared so far */
static int *peer_final;       /* [world_size]: the peer sent its final record */
static uint64_t *peer_final_count;
static atomic_int finals_seen; /* peers whose final record arrived and matched */

static void rec_push(rec_vec *r, sync_rec s)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->v = tamm__xrealloc(r->v, (size_t)r->cap * sizeof *r->v);
    }
    r->v[r->n++] = s;
}

static const char *sync_name(int kind)
{
    return kind == TAMM_SYNC_FINAL ? "tamm_finalize" : "tamm_wait_all/tamm_barrier";
}

static void mpi_err_text(int rc, char *buf, int n)
{
    int len = 0;
    char s[MPI_MAX_ERROR_STRING];
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "MPI error %d", rc);
    snprintf(buf, (size_t)n, "%s", s);
}

/* ------------------------------------------------------------------ */
/* abort: tell everyone, stop                                           */
/* ------------------------------------------------------------------ */
static atomic_int aborting;

static void send_abort_all(const char *msg)
{
    if (data_comm == MPI_COMM_NULL || world_size < 2) return;
    static ctl_msg m;
    memset(&m, 0, sizeof m);
    m.type = CTL_ABORT;
    m.from = world_rank;
    snprintf(m.text, sizeof m.text, "%s", msg);
    MPI_Request *r = calloc((size_t)world_size, sizeof *r);
    if (!r) return;
    int n = 0;
    for (int p = 0; p < world_size; p++)
        if (p != world_rank && MPI_Isend(&m, (int)sizeof m, MPI_BYTE, p, CTL_TAG, ctl_comm, &r[n]) == MPI_SUCCESS) n++;
    /* best effort: give the messages a moment to leave, never wait long */
    uint64_t end = tamm__now_ns() + 500000000ull;
    int done = 0;
    while (!done && tamm__now_ns() < end) {
        if (MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) break;
        if (!done) usleep(1000);
    }
    free(r);
}

void tamm__comm_fatal(const char *msg)
{
    if (atomic_exchange(&aborting, 1)) {
        /* another thread is already stopping the run */
        for (;;) pause();
    }
    fprintf(stderr, "tamm: error: rank %d: %s\n", world_rank, msg);
    fflush(stderr);
    send_abort_all(msg);
    _exit(1);
}

/* tamm__error's abort mode: the other ranks learn who stopped and why. */
static void on_fatal_error(const char *msg)
{
    if (atomic_exchange(&aborting, 1)) return;
    char m[600];
    snprintf(m, sizeof m, "stopped on an error: %s", msg);
    send_abort_all(m);
}

/* mpirun stops the survivors with SIGTERM when a rank dies. */
static void on_sigterm(int sig)
{
    char buf[200];
    int n = snprintf(buf, sizeof buf,
                     "tamm: error: rank %d: stopped by signal %d from the MPI launcher (another rank failed; "
                     "the launcher's message names it)\n", world_rank, sig);
    if (n > 0) { ssize_t w = write(2, buf, (size_t)n); (void)w; }
    _exit(1);
}

/* ------------------------------------------------------------------ */
/* init / finalize                                                      */
/* ------------------------------------------------------------------ */
static int launched_by_mpi(void)
{
    const char *force = getenv("TAMM_MPI");
    if (force && !strcmp(force, "0")) return 0;
    if (force && !strcmp(force, "1")) return 1;
    static const char *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS",
                                  "MV2_COMM_WORLD_SIZE", NULL };
    for (int i = 0; vars[i]; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

/* LeakSanitizer's switches, when the sanitizer runtime is linked in (an ASan build; weak, so NULL
 * elsewhere).  What Open MPI allocates inside MPI_Init_thread and MPI_Finalize is its own, kept
 * past the end of the program, and often allocated by components MPI_Finalize unloads, whose
 * frames no suppression can then name: ignored, so that a program under ASan reports only leaks
 * that are not MPI's start-up and shutdown (and LeakSanitizer need not symbolize hundreds of
 * them at every exit).  The objects are ignored only while this thread is in those two calls. */
extern void __lsan_disable(void) __attribute__((weak));
extern void __lsan_enable(void) __attribute__((weak));

static void lsan_off(void)
{
    if (__lsan_disable) __lsan_disable();
}

static void lsan_on(void)
{
    if (__lsan_enable) __lsan_enable();
}

static void finalize_at_exit(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && !atomic_load(&aborting)) {
        lsan_off();
        MPI_Finalize();
        lsan_on();
    }
}

int tamm__comm_init(void)
{
    if (mpi_started) return TAMM_OK;
    int rc = check_env(&stall_s);
    if (rc) return rc;
    if (!launched_by_mpi()) return TAMM_OK;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        lsan_off();
        int ok = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS;
        lsan_on();
        if (!ok) {
            fprintf(stderr, "tamm: error: MPI_Init_thread failed\n");
            return TAMM_ECOMM;
        }
        if (provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "tamm: error: this MPI gives thread level %d, the runtime needs MPI_THREAD_MULTIPLE "
                            "(its progress thread and collective tasks call MPI concurrently)\n", provided);
            lsan_off();
            MPI_Finalize();
            lsan_on();
            return TAMM_ECOMM;
        }
        atexit(finalize_at_exit);
    } else {
        int provided = 0;
        MPI_Query_thread(&provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "tamm: error: MPI was initialised by the program with thread level %d; the runtime "
                            "needs MPI_THREAD_MULTIPLE (call MPI_Init_thread with it, or let tamm_init start MPI)\n",
                    provided);
            return TAMM_ECOMM;
        }
    }
    mpi_started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    void *v = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    if (flag && v) tag_ub = *(int *)v;
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local_rank);
        MPI_Comm_size(node, &local_size);
        MPI_Comm_free(&node);
    }
    tamm__error_set_fatal_hook(on_fatal_error);
    if (world_size > 1) {
        struct sigaction sa, old;
        if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_sigterm;
            sigaction(SIGTERM, &sa, NULL);
        }
    }
    return TAMM_OK;
}

int tamm__comm_rank(void) { return mpi_started ? world_rank : 0; }
int tamm__comm_size(void) { return mpi_started ? world_size : 1; }
void tamm__comm_local(int *rank, int *size)
{
    *rank = mpi_started ? local_rank : 0;
    *size = mpi_started ? local_size : 1;
}
int tamm__comm_tag_ub(void) { return tag_ub; }
void *tamm__comm_leaf(void) { return leaf_comm != MPI_COMM_NULL ? &leaf_comm : NULL; }
uint64_t tamm__comm_bytes_sent(void) { return atomic_load(&bytes_sent); }
uint64_t tamm__comm_bytes_recv(void) { return atomic_load(&bytes_recv); }

/* ------------------------------------------------------------------ */
/* posting                                                              */
/* ------------------------------------------------------------------ */
static void futex_wake1(atomic_uint *a) { syscall(SYS_futex, (unsigned *)a, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }
static void futex_wait_us(atomic_uint *a, unsigned val, long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    syscall(SYS_futex, (unsigned *)a, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void tamm__comm_post(tamm__comm_op *op)
{
    if (op->h.finish) atomic_fetch_add_explicit(&tamm__handoff_inflight, 1, memory_order_relaxed);
    tamm__comm_op *old = atomic_load_explicit(&post_head, memory_order_relaxed);
    do {
        op->qnext = old;
    } while (!atomic_compare_exchange_weak_explicit(&post_head, &old, op, memory_order_release, memory_order_relaxed));
    atomic_fetch_add_explicit(&post_seq, 1, memory_order_release);
    futex_wake1(&post_seq);
}

/* ------------------------------------------------------------------ */
/* the progress thread                                                  */
/* ------------------------------------------------------------------ */
typedef struct active { MPI_Request *req; tamm__comm_op **op; int n, cap; } active;
static active act;
static MPI_Request ctl_req = MPI_REQUEST_NULL;
static ctl_msg ctl_in;
static uint64_t last_progress_ns, last_status_ns;

static void act_add(MPI_Request r, tamm__comm_op *op)
{
    if (act.n == act.cap) {
        act.cap = act.cap ? 2 * act.cap : 64;
        act.req = tamm__xrealloc(act.req, (size_t)act.cap * sizeof *act.req);
        act.op = tamm__xrealloc(act.op, (size_t)act.cap * sizeof *act.op);
    }
    act.req[act.n] = r;
    act.op[act.n] = op;
    act.n++;
}

static void comm_failed(const char *what, int peer, int rc)
{
    char e[MPI_MAX_ERROR_STRING + 1], m[700];
    mpi_err_text(rc, e, sizeof e);
    if (peer >= 0)
        snprintf(m, sizeof m, "%s with rank %d failed (%s): rank %d has probably stopped", what, peer, e, peer);
    else
        snprintf(m, sizeof m, "%s failed (%s)", what, e);
    tamm__comm_fatal(m);
}

static void send_ctl(const ctl_msg *src, int dest)
{
    tamm__comm_op *op = tamm__xcalloc(1, sizeof *op + sizeof(ctl_msg));
    ctl_msg *m = (ctl_msg *)(op + 1);
    *m = *src;
    op->kind = -1; /* control send, freed here */
    op->peer = dest;
    op->buf = m;
    op->bytes = sizeof *m;
    MPI_Request r;
    int rc = MPI_Isend(m, (int)sizeof *m, MPI_BYTE, dest, CTL_TAG, ctl_comm, &r);
    if (rc != MPI_SUCCESS) comm_failed("a control message", dest, rc);
    act_add(r, op);
}

static void compare_records(int p);

static void start_op(tamm__comm_op *op)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (op->bytes > (size_t)INT_MAX) {
        char m[200];
        snprintf(m, sizeof m, "a block of %zu bytes is too large for one message (at most %d)", op->bytes, INT_MAX);
        tamm__comm_fatal(m);
    }
    switch (op->kind) {
    case TAMM_COP_SEND:
        rc = MPI_Isend(op->buf, (int)op->bytes, MPI_BYTE, op->peer, op->tag, data_comm, &r);
        if (rc == MPI_SUCCESS) atomic_fetch_add_explicit(&bytes_sent, op->bytes, memory_order_relaxed);
        break;
    case TAMM_COP_RECV:
        rc = MPI_Irecv(op->buf, (int)op->bytes, MPI_BYTE, op->peer, op->tag, data_comm, &r);
        break;
    case TAMM_COP_AGREE:
        rc = MPI_Ibarrier(agree_comm, &r);
        break;
    case TAMM_COP_FENCE: /* fences reach it in one order on every rank: each is posted after the previous fired */
        rc = MPI_Ibarrier(fence_comm, &r);
        break;
    case TAMM_COP_SYNC: {
        sync_rec s = { (int)op->aux, (uint64_t)(uintptr_t)op->arg, (uint64_t)op->tag };
        memcpy(&s.hash, op->buf, sizeof s.hash);
        free(op->buf);
        long idx = mine.n;
        rec_push(&mine, s);
        ctl_msg m;
        memset(&m, 0, sizeof m);
        m.type = CTL_SYNC;
        m.from = world_rank;
        m.kind = s.kind;
        m.idx = idx;
        m.count = s.count;
        m.hash = s.hash;
        for (int p = 0; p < world_size; p++)
            if (p != world_rank) send_ctl(&m, p);
        free(op);
        for (int p = 0; p < world_size; p++) /* records of peers that were here first */
            if (p != world_rank) compare_records(p);
        return;
    }
    }
    if (rc != MPI_SUCCESS)
        comm_failed(op->kind == TAMM_COP_SEND   ? "sending a block"
                    : op->kind == TAMM_COP_RECV ? "receiving a block"
                    : op->kind == TAMM_COP_FENCE ? "an execution fence"
                                                 : "a collective agreement",
                    op->kind == TAMM_COP_AGREE || op->kind == TAMM_COP_FENCE ? -1 : op->peer, rc);
    act_add(r, op);
}

/* The events c0+1.. (at most NDESC) of this rank's stream, hash and text, to peer p, then an end
 * (idx -1) carrying the stream's length: once per peer.  The buffers stay (the run is ending). */
static void send_descs(int p, uint64_t c0)
{
    static unsigned char *sent;
    if (!sent) sent = tamm__xcalloc((size_t)world_size, 1);
    if (sent[p]) return;
    sent[p] = 1;
    uint64_t have = tamm__flow_stream_count();
    ctl_msg *v = tamm__xcalloc(NDESC + 1, sizeof *v);
    int n = 0;
    for (uint64_t e = c0 + 1; e <= have && n < NDESC; e++, n++) {
        v[n].type = CTL_DESC;
        v[n].from = world_rank;
        v[n].idx = (int64_t)e;
        v[n].count = have;
        if (!tamm__flow_stream_hash(e, &v[n].hash) || !tamm__flow_event_text(e, v[n].text, sizeof v[n].text))
            v[n].text[0] = 0;
    }
    v[n].type = CTL_DESC;
    v[n].from = world_rank;
    v[n].idx = -1;
    v[n].count = have;
    for (int i = 0; i <= n; i++) {
        MPI_Request r;
        if (MPI_Isend(&v[i], (int)sizeof v[i], MPI_BYTE, p, CTL_DESC_TAG, ctl_comm, &r) == MPI_SUCCESS)
            MPI_Request_free(&r);
    }
}

/* Where the streams of this rank and p part after their common first c0 events, in the
 * program's terms: both ranks' events are exchanged (p answers a request even if it has not
 * noticed), the first whose hashes differ is named.  0: not found within NDESC events or 2 s. */
static int describe_diff(int p, uint64_t c0, char *out, size_t len)
{
    static ctl_msg got[NDESC];
    static unsigned char has[NDESC];
    memset(has, 0, sizeof has);
    int ended = 0;
    ctl_msg req;
    memset(&req, 0, sizeof req);
    req.type = CTL_DESC_REQ;
    req.from = world_rank;
    req.count = c0;
    send_ctl(&req, p);
    send_descs(p, c0);
    uint64_t end = tamm__now_ns() + 2000000000ull;
    while (!ended && tamm__now_ns() < end) {
        int flag = 0;
        if (MPI_Iprobe(p, CTL_DESC_TAG, ctl_comm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) return 0;
        if (!flag) { usleep(1000); continue; }
        ctl_msg m;
        if (MPI_Recv(&m, (int)sizeof m, MPI_BYTE, p, CTL_DESC_TAG, ctl_comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) return 0;
        if (m.idx < 0) ended = 1;
        else if ((uint64_t)m.idx > c0 && (uint64_t)m.idx <= c0 + NDESC) {
            got[m.idx - (int64_t)c0 - 1] = m;
            has[m.idx - (int64_t)c0 - 1] = 1;
        }
    }
    uint64_t mine_n = tamm__flow_stream_count();
    for (int k = 0; k < NDESC; k++) {
        uint64_t e = c0 + 1 + (uint64_t)k, h = 0;
        int mine_has = e <= mine_n && tamm__flow_stream_hash(e, &h);
        if (!has[k] && !ended) return 0;
        if (!mine_has && !has[k]) return 0;
        if (mine_has && has[k] && h == got[k].hash) continue;
        char a[300] = "", b[460] = "";
        if (mine_has && !tamm__flow_event_text(e, a, sizeof a)) snprintf(a, sizeof a, "did operation %llu", (unsigned long long)e);
        if (has[k]) snprintf(b, sizeof b, "%s", got[k].text[0] ? got[k].text : "did another operation");
        if (mine_has && has[k])
            (void)!snprintf(out, len, "rank %d %s where rank %d %s%s (top-level operation %llu of each)",
                     world_rank, a, p, b, strcmp(a, b) ? "" : " (the same call, with other modes, on(r), fences or collective)", (unsigned long long)e);
        else if (mine_has)
            (void)!snprintf(out, len, "rank %d %s (top-level operation %llu) where rank %d had nothing more",
                     world_rank, a, (unsigned long long)e, p);
        else
            (void)!snprintf(out, len, "rank %d %s (top-level operation %llu) where rank %d had nothing more", p, b,
                     (unsigned long long)e, world_rank);
        return 1;
    }
    return 0;
}

#define SAME_STREAMS "every rank must create the same tensors and submit the same tasks (refs, modes, on(r), " \
                     "collective) and calls (tamm_block, tamm_barrier, fences) in the same order; a call under " \
                     "if (tamm_rank() == ...) at the top level is the usual cause"

static void mismatch(int peer, const sync_rec *a, const sync_rec *b, long idx)
{
    char d[800], m2[1400];
    if (describe_diff(peer, idx > 0 ? mine.v[idx - 1].count : 0, d, sizeof d)) {
        snprintf(m2, sizeof m2, "the task streams of ranks %d and %d differ: %s; " SAME_STREAMS, world_rank, peer, d);
        tamm__comm_fatal(m2);
    }
    char m[700];
    snprintf(m, sizeof m,
             "the task streams of ranks %d and %d differ: at synchronisation point %ld rank %d is in %s after %llu "
             "top-level operations (stream hash %016llx) and rank %d in %s after %llu (hash %016llx); every rank must "
             "create the same tensors and submit the same tasks (refs, modes, on(r), collective) in the same order",
             world_rank, peer, idx, world_rank, sync_name(a->kind), (unsigned long long)a->count,
             (unsigned long long)a->hash, peer, sync_name(b->kind), (unsigned long long)b->count,
             (unsigned long long)b->hash);
    tamm__comm_fatal(m);
}

static void compare_records(int p)
{
    while (compared[p] < mine.n && compared[p] < peers[p].n) {
        long i = compared[p];
        sync_rec *a = &mine.v[i], *b = &peers[p].v[i];
        if (a->kind != b->kind || a->count != b->count || a->hash != b->hash) mismatch(p, a, b, i);
        compared[p]++;
        if (a->kind == TAMM_SYNC_FINAL) atomic_fetch_add(&finals_seen, 1);
    }
}

/* A peer's stream position (count, hash) against this rank's history. */
static void check_position(int p, uint64_t count, uint64_t hash, const char *whose)
{
    uint64_t mine_n = tamm__flow_stream_count(), h = 0;
    if (count <= mine_n && tamm__flow_stream_hash(count, &h) && h != hash) {
        char d[800], m2[1400];
        if (describe_diff(p, compared[p] > 0 ? mine.v[compared[p] - 1].count : 0, d, sizeof d)) {
            snprintf(m2, sizeof m2, "the task streams of ranks %d and %d differ: %s; " SAME_STREAMS, world_rank, p, d);
            tamm__comm_fatal(m2);
        }
        char m[600];
        snprintf(m, sizeof m,
                 "the task streams of ranks %d and %d differ within their first %llu top-level operations (%s; "
                 "stream hash %016llx here, %016llx there): every rank must create the same tensors and submit "
                 "the same tasks in the same order",
                 world_rank, p, (unsigned long long)count, whose, (unsigned long long)h, (unsigned long long)hash);
        tamm__comm_fatal(m);
    }
    if (peer_final[p] && mine_n > peer_final_count[p]) {
        char d[800], m2[1400];
        if (describe_diff(p, peer_final_count[p], d, sizeof d)) {
            snprintf(m2, sizeof m2, "the task streams of ranks %d and %d differ: rank %d finished (tamm_finalize) after "
                     "%llu top-level operations: %s; " SAME_STREAMS, world_rank, p, p,
                     (unsigned long long)peer_final_count[p], d);
            tamm__comm_fatal(m2);
        }
        char m[600];
        snprintf(m, sizeof m,
                 "the task streams of ranks %d and %d differ: rank %d finished (tamm_finalize) after %llu top-level "
                 "operations, rank %d has submitted %llu", world_rank, p, p,
                 (unsigned long long)peer_final_count[p], world_rank, (unsigned long long)mine_n);
        tamm__comm_fatal(m);
    }
}

static void handle_ctl(const ctl_msg *m)
{
    int p = m->from;
    if (p < 0 || p >= world_size || p == world_rank) return;
    switch (m->type) {
    case CTL_ABORT: {
        char buf[700];
        int n = snprintf(buf, sizeof buf, "tamm: error: rank %d: stopping because rank %d failed: %s\n", world_rank, p,
                         m->text);
        atomic_store(&aborting, 1);
        if (n > 0) { ssize_t w = write(2, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1)); (void)w; }
        _exit(1);
    }
    case CTL_SYNC: {
        sync_rec s = { m->kind, m->count, m->hash };
        if (m->idx != peers[p].n) {
            char buf[300];
            snprintf(buf, sizeof buf, "control protocol: synchronisation record %lld from rank %d, expected %ld",
                     (long long)m->idx, p, peers[p].n);
            tamm__comm_fatal(buf);
        }
        rec_push(&peers[p], s);
        if (s.kind == TAMM_SYNC_FINAL) {
            peer_final[p] = 1;
            peer_final_count[p] = s.count;
            check_position(p, s.count, s.hash, "its final position");
        }
        compare_records(p);
        break;
    }
    case CTL_DESC_REQ: /* a peer found the streams part: it wants this rank's events */
        send_descs(p, m->count);
        break;
    case CTL_STATUS:
    case CTL_STATUS_REPLY:
        check_position(p, m->count, m->hash, "found while a rank waited without progress");
        if (m->type == CTL_STATUS && m->count > tamm__flow_stream_count()) {
            /* the asker is further: let it compare with this rank's position */
            ctl_msg r;
            memset(&r, 0, sizeof r);
            r.type = CTL_STATUS_REPLY;
            r.from = world_rank;
            r.count = tamm__flow_stream_count();
            tamm__flow_stream_hash(r.count, &r.hash);
            send_ctl(&r, p);
        }
        break;
    }
}

static void post_ctl_recv(void)
{
    int rc = MPI_Irecv(&ctl_in, (int)sizeof ctl_in, MPI_BYTE, MPI_ANY_SOURCE, CTL_TAG, ctl_comm, &ctl_req);
    if (rc != MPI_SUCCESS) comm_failed("receiving control messages", -1, rc);
}

/* No operation has completed for a while: ask every rank where it is. */
static void stalled(uint64_t now)
{
    if ((double)(now - last_status_ns) < stall_s * 1e9) return;
    last_status_ns = now;
    ctl_msg m;
    memset(&m, 0, sizeof m);
    m.type = CTL_STATUS;
    m.from = world_rank;
    m.count = tamm__flow_stream_count();
    tamm__flow_stream_hash(m.count, &m.hash);
    for (int p = 0; p < world_size; p++)
        if (p != world_rank) send_ctl(&m, p);
    for (int p = 0; p < world_size; p++)
        if (peer_final[p]) check_position(p, peer_final_count[p], peers[p].v[peers[p].n - 1].hash, "its final position");
}

static void *progress_main(void *arg)
{
    (void)arg;
    int *idx = NULL;
    MPI_Status *sts = NULL;
    int capidx = 0;
    unsigned idle = 0;
    uint64_t prev_ns = tamm__now_ns();
    last_progress_ns = last_status_ns = prev_ns;
    while (!atomic_load_explicit(&progress_stop, memory_order_acquire)) {
        int did = 0;
        unsigned seq = atomic_load_explicit(&post_seq, memory_order_acquire);
        tamm__comm_op *l = atomic_exchange_explicit(&post_head, NULL, memory_order_acquire), *r = NULL;
        while (l) { tamm__comm_op *n = l->qnext; l->qnext = r; r = l; l = n; }
        while (r) { tamm__comm_op *n = r->qnext; start_op(r); r = n; did = 1; }
        if (act.n > 0) {
            if (capidx < act.n) {
                capidx = act.cap;
                idx = tamm__xrealloc(idx, (size_t)capidx * sizeof *idx);
                sts = tamm__xrealloc(sts, (size_t)capidx * sizeof *sts);
            }
            int outc = 0;
            int rc = MPI_Testsome(act.n, act.req, &outc, idx, sts);
            if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) comm_failed("testing messages", -1, rc);
            if (outc != MPI_UNDEFINED && outc > 0) {
                for (int k = 0; k < outc; k++) {
                    tamm__comm_op *op = act.op[idx[k]];
                    if (rc == MPI_ERR_IN_STATUS && sts[k].MPI_ERROR != MPI_SUCCESS)
                        comm_failed(op->kind == TAMM_COP_RECV ? "receiving a block" : "sending a message",
                                    op->kind == TAMM_COP_AGREE || op->kind == TAMM_COP_FENCE ? -1 : op->peer,
                                    sts[k].MPI_ERROR);
                    if (op->kind == TAMM_COP_RECV) atomic_fetch_add_explicit(&bytes_recv, op->bytes, memory_order_relaxed);
                    act.op[idx[k]] = NULL;
                    if (op->h.finish) tamm__handoff_push(&op->h);
                    else free(op);
                }
                int w = 0;
                for (int k = 0; k < act.n; k++)
                    if (act.op[k]) { act.op[w] = act.op[k]; act.req[w] = act.req[k]; w++; }
                act.n = w;
                did = 1;
            }
        }
        for (;;) {
            int flag = 0;
            MPI_Status st;
            int rc = MPI_Test(&ctl_req, &flag, &st);
            if (rc != MPI_SUCCESS) comm_failed("receiving control messages", -1, rc);
            if (!flag) break;
            ctl_msg m = ctl_in;
            post_ctl_recv();
            handle_ctl(&m);
            did = 1;
        }
        uint64_t now = tamm__now_ns();
        if (act.n > 0) /* overlap: time with messages in flight, and whether every worker sleeps meanwhile */
            tamm__flow_note_comm(now - prev_ns, atomic_load_explicit(&tamm__rt.nsleepers, memory_order_relaxed) >=
                                                   tamm__rt.nworkers);
        prev_ns = now;
        if (did) {
            last_progress_ns = now;
            idle = 0;
            continue;
        }
        if (atomic_load_explicit(&tamm__handoff_inflight, memory_order_relaxed) > 0 &&
            (double)(now - last_progress_ns) > stall_s * 1e9)
            stalled(now);
        /* back off: poll quickly while operations are in flight, slowly otherwise */
        idle++;
        if (act.n > 0) {
            if (idle < 64) sched_yield();
            else futex_wait_us(&post_seq, seq, idle < 256 ? 20 : 200);
        } else {
            futex_wait_us(&post_seq, seq, idle < 64 ? 100 : 2000);
        }
    }
    free(idx);
    free(sts);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* sessions                                                             */
/* ------------------------------------------------------------------ */
static int dup_comm(MPI_Comm *c)
{
    if (MPI_Comm_dup(MPI_COMM_WORLD, c) != MPI_SUCCESS) return -1;
    MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN);
    return 0;
}

int tamm__comm_session_start(void)
{
    if (!mpi_started) return TAMM_OK;
    if (dup_comm(&data_comm) || dup_comm(&ctl_comm) || dup_comm(&agree_comm) || dup_comm(&fence_comm) ||
        dup_comm(&leaf_comm)) {
        fprintf(stderr, "tamm: error: rank %d: MPI_Comm_dup failed\n", world_rank);
        return TAMM_ECOMM;
    }
    atomic_store(&bytes_sent, 0);
    atomic_store(&bytes_recv, 0);
    if (world_size < 2) return TAMM_OK;
    mine.n = 0;
    peers = tamm__xcalloc((size_t)world_size, sizeof *peers);
    compared = tamm__xcalloc((size_t)world_size, sizeof *compared);
    peer_final = tamm__xcalloc((size_t)world_size, sizeof *peer_final);
    peer_final_count = tamm__xcalloc((size_t)world_size, sizeof *peer_final_count);
    atomic_store(&finals_seen, 0);
    atomic_store(&progress_stop, 0);
    act.n = 0;
    return TAMM_OK;
}

int tamm__comm_progress_start(void)
{
    if (!mpi_started || world_size < 2) return TAMM_OK;
    /* The first control receive is posted only now, after the collectives of
     * tamm_init (tamm__comm_allgather_u64): a blocking collective on this
     * thread would otherwise progress it and fill ctl_in from this thread. */
    post_ctl_recv();
    if (pthread_create(&progress_thread, NULL, progress_main, NULL)) {
        fprintf(stderr, "tamm: error: rank %d: cannot start the MPI progress thread\n", world_rank);
        return TAMM_ENOMEM;
    }
    progress_running = 1;
    return TAMM_OK;
}

void tamm__comm_allgather_u64(uint64_t v, uint64_t *all)
{
    all[0] = v;
    if (world_size < 2) return;
    int rc = MPI_Allgather(&v, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, data_comm);
    if (rc != MPI_SUCCESS) comm_failed("exchanging settings at tamm_init (MPI_Allgather)", -1, rc);
}

void tamm__comm_sync(int kind, uint64_t count, uint64_t hash)
{
    if (!progress_running) return;
    tamm__comm_op *op = tamm__xcalloc(1, sizeof *op);
    uint64_t *h = tamm__xmalloc(sizeof *h);
    *h = hash;
    op->kind = TAMM_COP_SYNC;
    op->aux = kind;
    op->arg = (void *)(uintptr_t)count;
    op->buf = h;
    tamm__comm_post(op);
}

int tamm__comm_wait_final(void)
{
    if (!progress_running) return TAMM_OK;
    /* every peer's final record has arrived and matched ours (the progress
     * thread stops the run on a mismatch) */
    while (atomic_load(&finals_seen) < world_size - 1) {
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
    }
    return TAMM_OK;
}

void tamm__comm_session_end(void)
{
    if (!mpi_started) return;
    if (progress_running) {
        atomic_store(&progress_stop, 1);
        atomic_fetch_add(&post_seq, 1);
        futex_wake1(&post_seq);
        pthread_join(progress_thread, NULL);
        progress_running = 0;
        /* control sends still in flight (the last sync records) */
        for (int k = 0; k < act.n; k++) {
            MPI_Wait(&act.req[k], MPI_STATUS_IGNORE);
            free(act.op[k]);
        }
        act.n = 0;
        MPI_Cancel(&ctl_req);
        MPI_Wait(&ctl_req, MPI_STATUS_IGNORE);
        for (int p = 0; p < world_size; p++) free(peers[p].v);
        free(peers);
        free(compared);
        free(peer_final);
        free(peer_final_count);
        peers = NULL;
        compared = NULL;
        peer_final = NULL;
        peer_final_count = NULL;
        free(mine.v);
        mine.v = NULL;
        mine.n = mine.cap = 0;
        free(act.req);
        free(act.op);
        memset(&act, 0, sizeof act);
    }
    /* the ranks leave together: no message of this session is still on its way */
    MPI_Barrier(ctl_comm);
    MPI_Comm_free(&data_comm);
    MPI_Comm_free(&ctl_comm);
    MPI_Comm_free(&agree_comm);
    MPI_Comm_free(&fence_comm);
    MPI_Comm_free(&leaf_comm);
}

/* ------------------------------------------------------------------ */
/* after the session: merging traces                                    */
/* ------------------------------------------------------------------ */
/* A communicator of their own: the session's are freed, and the program may use MPI_COMM_WORLD. */
static MPI_Comm world_dup(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) comm_failed("merging traces (MPI_Comm_dup)", -1, MPI_ERR_OTHER);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

void tamm__comm_world_min(int64_t *v, int n)
{
    if (!mpi_started || world_size < 2) return;
    MPI_Comm c = world_dup();
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MIN, c);
    if (rc != MPI_SUCCESS) comm_failed("merging traces (MPI_Allreduce)", -1, rc);
    MPI_Comm_free(&c);
}

#define GATHER_CHUNK ((size_t)1 << 30) /* bytes per message: counts are ints */

void tamm__comm_world_gather(int root, const char *part, size_t n,
                             void (*put)(int rank, const char *data, size_t n, void *arg), void *arg)
{
    if (!mpi_started || world_size < 2) {
        put(0, part, n, arg);
        return;
    }
    MPI_Comm c = world_dup();
    int rc = MPI_SUCCESS;
    if (world_rank != root) {
        uint64_t len = n;
        rc = MPI_Send(&len, 1, MPI_UINT64_T, root, 1, c);
        for (size_t off = 0; rc == MPI_SUCCESS && off < n; off += GATHER_CHUNK)
            rc = MPI_Send(part + off, (int)(n - off < GATHER_CHUNK ? n - off : GATHER_CHUNK), MPI_BYTE, root, 2, c);
        if (rc != MPI_SUCCESS) comm_failed("sending this rank's trace", root, rc);
    } else {
        for (int r = 0; r < world_size; r++) {
            if (r == root) {
                put(r, part, n, arg);
                continue;
            }
            uint64_t len = 0;
            rc = MPI_Recv(&len, 1, MPI_UINT64_T, r, 1, c, MPI_STATUS_IGNORE);
            char *buf = rc == MPI_SUCCESS ? tamm__xmalloc(len ? (size_t)len : 1) : NULL;
            for (size_t off = 0; rc == MPI_SUCCESS && off < len; off += GATHER_CHUNK)
                rc = MPI_Recv(buf + off, (int)(len - off < GATHER_CHUNK ? len - off : GATHER_CHUNK), MPI_BYTE, r, 2, c,
                              MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) comm_failed("receiving a rank's trace", r, rc);
            put(r, buf, (size_t)len, arg);
            free(buf);
        }
    }
    MPI_Comm_free(&c);
}

#else /* !TAMM_HAVE_MPI: one process, no progress engine */

int tamm__comm_init(void)
{
    double stall = 0;
    int rc = check_env(&stall);
    if (rc) return rc;
    const char *f = getenv("TAMM_MPI");
    if (f && !strcmp(f, "1")) {
        fprintf(stderr, "tamm: error: TAMM_MPI=1 but this libtammrt was built without MPI (TAMM_WITH_MPI=OFF)\n");
        return TAMM_ENOTSUP;
    }
    return TAMM_OK;
}
int tamm__comm_session_start(void) { return TAMM_OK; }
int tamm__comm_progress_start(void) { return TAMM_OK; }
void tamm__comm_session_end(void) {}
int tamm__comm_rank(void) { return 0; }
int tamm__comm_size(void) { return 1; }
void tamm__comm_local(int *rank, int *size) { *rank = 0; *size = 1; }
void *tamm__comm_leaf(void) { return NULL; }
int tamm__comm_tag_ub(void) { return 32767; }
uint64_t tamm__comm_bytes_sent(void) { return 0; }
uint64_t tamm__comm_bytes_recv(void) { return 0; }
void tamm__comm_sync(int kind, uint64_t count, uint64_t hash) { (void)kind; (void)count; (void)hash; }
void tamm__comm_allgather_u64(uint64_t v, uint64_t *all) { all[0] = v; }
int tamm__comm_wait_final(void) { return TAMM_OK; }
void tamm__comm_world_min(int64_t *v, int n) { (void)v; (void)n; }
void tamm__comm_world_gather(int root, const char *part, size_t n,
                             void (*put)(int rank, const char *data, size_t n, void *arg), void *arg)
{
    (void)root;
    put(0, part, n, arg);
}
void tamm__comm_post(tamm__comm_op *op)
{
    (void)op;
    tamm__comm_fatal("internal error: a message was posted in a build without MPI");
}
void tamm__comm_fatal(const char *msg)
{
    fprintf(stderr, "tamm: error: %s\n", msg);
    _Exit(1);
}
#endif
