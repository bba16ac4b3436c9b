/*
 * trace.c — trace JSON, DAG dot and the statistics summary (see trace.h).
 *
 * Recording: a task's submission (its label and parent) goes to `nodes`; each
 * thread appends what it ran to its own worker's event array (a CPU worker its
 * tasks, a CUDA worker its streams' records and their copies); completed MPI
 * messages go to `msgs` and spill-file transfers to `ios`, each under a lock.
 * All of it only while recording.
 *
 * At tamm_finalize each rank writes its part — its process, its tracks, its
 * events, ts in microseconds since the earliest tamm_init of all ranks — and
 * with several ranks rank R's part is gathered by the lowest rank that set the
 * variable, which writes one file: one trace whose processes are the ranks, one
 * digraph with a cluster per rank.  Both ends of a message know its number
 * among the messages between their two ranks (mpi_flow.c), which names its
 * arrow in the trace and its node in the DAG: no matching is needed.
 */
#include "trace.h"
#include "memlimit.h"
#include "dag.h"
#include "gpu.h"
#include "mpi_comm.h"
#include "runtime.h"
#include "error.h"
#include "tensor.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *label; uint64_t parent; int tid; uint64_t t0, t1; int ran; char *withheld; } node;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static node *nodes;     /* indexed by id - 1 */
static size_t nnodes, capnodes;

typedef struct { uint64_t task, t0, t1, bytes; int send, peer, lane; uint32_t seq; } msg;
static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;
static msg *msgs;
static size_t nmsgs, capmsgs;

/* spill-file transfers under TAMM_MEMORY_LIMIT (any thread: under io_lock) */
typedef struct { char *name; uint64_t t0, t1, bytes, task; int by, lane; } iorec;
static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;
static iorec *ios;
static size_t nios, capios;

/* Track ids (the JSON's tid) within a rank's process: CPU worker i is i. */
#define TID_GPU(g, s) (1000 + 16 * (g) + ((s) < 0 ? 15 : (s)))  /* s = -1: the copy stream */
#define TID_SEND(lane) (2000 + (lane))
#define TID_RECV(lane) (3000 + (lane))
#define TID_IO(lane) (4000 + (lane))

static int64_t t0_real; /* tamm__rt.t0 on the clock all ranks share (see tamm__trace_start) */

void tamm__trace_start(void)
{
    /* Ranks that share one node share CLOCK_MONOTONIC: t0 itself places them exactly.
     * Across nodes the wall clock is the common one; t0 is converted to it through a
     * wall-clock read bracketed by two monotonic reads, the tightest of five, so that a
     * preemption between tamm__rt.t0 and here, or between two reads, cannot shift every
     * event of this rank against the others (a message would arrive before it was sent). */
    if (tamm__rt.cfg.local_size >= tamm__rt.nranks) {
        t0_real = (int64_t)tamm__rt.t0;
        return;
    }
    uint64_t best = UINT64_MAX, mono = 0;
    int64_t real = 0;
    for (int i = 0; i < 5; i++) {
        struct timespec ts;
        uint64_t a = tamm__now_ns();
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t b = tamm__now_ns();
        if (b - a < best) {
            best = b - a;
            mono = a + (b - a) / 2;
            real = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
    }
    t0_real = real - (int64_t)(mono - tamm__rt.t0);
}

void tamm__trace_node(uint64_t id, const char *label, uint64_t parent)
{
    pthread_mutex_lock(&lock);
    if (id > capnodes) {
        size_t nc = capnodes ? capnodes : 1024;
        while (nc < id) nc *= 2;
        nodes = tamm__xrealloc(nodes, nc * sizeof *nodes);
        memset(nodes + capnodes, 0, (nc - capnodes) * sizeof *nodes);
        capnodes = nc;
    }
    node *n = &nodes[id - 1];
    n->label = strdup(label ? label : "task");
    n->parent = parent;
    if (id > nnodes) nnodes = id;
    pthread_mutex_unlock(&lock);
}

void tamm__trace_withheld(uint64_t id, const char *why)
{
    pthread_mutex_lock(&lock);
    if (id && id <= nnodes && !nodes[id - 1].withheld) nodes[id - 1].withheld = strdup(why);
    pthread_mutex_unlock(&lock);
}

static tamm__trace_ev *ev_push(tamm__worker *w)
{
    if (w->nev == w->capev) {
        w->capev = w->capev ? w->capev * 2 : 1024;
        w->ev = tamm__xrealloc(w->ev, w->capev * sizeof *w->ev);
    }
    tamm__trace_ev *e = &w->ev[w->nev++];
    memset(e, 0, sizeof *e);
    return e;
}

void tamm__trace_event(tamm__worker *w, uint64_t id, uint64_t t0, uint64_t t1)
{
    tamm__trace_ev *e = ev_push(w);
    e->id = id;
    e->t0 = t0;
    e->t1 = t1;
    e->kind = TAMM_TEV_TASK;
}

/* The copies a record issued, inside its interval [from, to]: a stream runs its
 * operations in order, so each starts when issued or when the one before it
 * ended, whichever is later; the host does not see when a copy runs on the
 * device, so its duration is estimated from the link bandwidth measured at
 * start (a device-to-device copy: a tenth of that; the emulated device's
 * nominal link is 10 GB/s). */
void tamm__trace_gpu_record(tamm__gpu *g, tamm__pend *r, uint64_t from, uint64_t to)
{
    tamm__trace_ev *e = ev_push(g->w); /* the copies' events follow: e is not used after them */
    e->id = r->task ? r->task->id : 0;
    e->t0 = from;
    e->t1 = to;
    e->kind = r->task ? TAMM_TEV_GPU_TASK : TAMM_TEV_GPU_FLUSH;
    e->track = r->stream;
    uint64_t cur = from;
    for (int i = 0; i < r->ntcopies; i++) {
        const tamm__tcopy *c = &r->tcopies[i];
        double bw = c->dir == TAMM_CP_D2H ? g->bw_d2h : c->dir == TAMM_CP_H2D ? g->bw_h2d : 10 * g->bw_h2d;
        uint64_t t0 = c->t > cur ? c->t : cur;
        if (t0 > to) t0 = to;
        uint64_t t1 = t0 + (uint64_t)((double)c->bytes / (bw > 0 ? bw : 1.0));
        if (t1 > to) t1 = to;
        cur = t1;
        char bn[96], name[128];
        snprintf(name, sizeof name, "%s %s", c->dir == TAMM_CP_H2D ? "H2D" : c->dir == TAMM_CP_D2H ? "D2H" : "D2D",
                 tamm__block_name(c->T, c->lin, bn, sizeof bn));
        tamm__trace_ev *ce = ev_push(g->w);
        ce->id = r->task ? r->task->id : 0;
        ce->t0 = t0;
        ce->t1 = t1;
        ce->bytes = c->bytes;
        ce->name = strdup(name);
        ce->kind = TAMM_TEV_COPY;
        ce->track = r->stream;
    }
}

void tamm__trace_msg(int send, uint64_t task, int peer, uint32_t seq, size_t bytes, uint64_t t0, uint64_t t1)
{
    pthread_mutex_lock(&msg_lock);
    if (nmsgs == capmsgs) {
        capmsgs = capmsgs ? 2 * capmsgs : 256;
        msgs = tamm__xrealloc(msgs, capmsgs * sizeof *msgs);
    }
    msgs[nmsgs++] = (msg){ task, t0, t1 > t0 ? t1 : t0, bytes, send, peer, 0, seq };
    pthread_mutex_unlock(&msg_lock);
}

void tamm__trace_io(int write, const tamm_tensor *T, long lin, size_t bytes, int by, uint64_t task, uint64_t t0,
                    uint64_t t1)
{
    char bn[96], name[128];
    snprintf(name, sizeof name, "%s %s", write ? "write" : "read", tamm__block_name(T, lin, bn, sizeof bn));
    pthread_mutex_lock(&io_lock);
    if (nios == capios) {
        capios = capios ? 2 * capios : 256;
        ios = tamm__xrealloc(ios, capios * sizeof *ios);
    }
    ios[nios++] = (iorec){ strdup(name), t0, t1 > t0 ? t1 : t0, bytes, task, by, 0 };
    pthread_mutex_unlock(&io_lock);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* append ,"key":"value" (JSON-escaped, cut to fit) to the args in buf */
static void json_arg(char *buf, size_t size, const char *key, const char *value)
{
    size_t n = strlen(buf);
    int w = snprintf(buf + n, size - n, ",\"%s\":\"", key);
    if (w < 0 || (size_t)w >= size - n) { buf[n] = 0; return; }
    n += (size_t)w;
    for (const char *s = value; *s && n + 8 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { buf[n++] = '\\'; buf[n++] = (char)c; }
        else if (c < 0x20) n += (size_t)snprintf(buf + n, size - n, "\\u%04x", c);
        else buf[n++] = (char)c;
    }
    buf[n++] = '"';
    buf[n] = 0;
}

static void dot_str(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
}

/* ------------------------------------------------------------------ */
/* one rank's part of the trace                                          */
/* ------------------------------------------------------------------ */
typedef struct { FILE *f; int first, pid; uint64_t t0; int64_t offset; } jout;

/* separator before every event but the part's first */
static FILE *ev_begin(jout *o)
{
    if (!o->first) fputs(",\n", o->f);
    o->first = 0;
    return o->f;
}

/* ns since this rank's tamm_init -> microseconds on the run's clock */
static double us(const jout *o, uint64_t t) { return (double)((int64_t)(t - o->t0) + o->offset) / 1e3; }

static void meta(jout *o, const char *what, int tid, const char *name, int sort)
{
    FILE *f = ev_begin(o);
    fprintf(f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", what, o->pid, tid);
    json_str(f, name);
    fprintf(f, "}}");
    f = ev_begin(o);
    fprintf(f, "{\"name\":\"%s_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
            strcmp(what, "process_name") ? "thread" : "process", o->pid, tid, sort);
}

static void slice(jout *o, int tid, const char *name, const char *cat, uint64_t t0, uint64_t t1, const char *args)
{
    FILE *f = ev_begin(o);
    fprintf(f, "{\"name\":");
    json_str(f, name);
    fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d,\"args\":{%s}}", cat, us(o, t0),
            (double)(t1 - t0) / 1e3, o->pid, tid, args);
}

static void flow(jout *o, int tid, const char *cat, char ph, uint64_t id, uint64_t t)
{
    FILE *f = ev_begin(o);
    fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%c\",%s\"id\":%llu,\"ts\":%.3f,\"pid\":%d,\"tid\":%d}",
            !strcmp(cat, "msg") ? "message" : "dependence", cat, ph, ph == 'f' ? "\"bp\":\"e\"," : "",
            (unsigned long long)id, us(o, t), o->pid, tid);
}

static int cmp_msg(const void *a, const void *b)
{
    const msg *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Messages overlap: each goes to the first lane of its direction free at its
 * start, so that the slices of a track never overlap.  Gives the lanes used. */
/* The first lane free at t0 among the *n whose last slices end at end[] (a new
 * lane if none is), which then ends at t1.  Slices must come in order of t0. */
static int take_lane(uint64_t **end, int *n, uint64_t t0, uint64_t t1)
{
    int l = 0;
    while (l < *n && (*end)[l] > t0) l++;
    if (l == *n) *end = tamm__xrealloc(*end, (size_t)++*n * sizeof **end);
    (*end)[l] = t1;
    return l;
}

static void assign_lanes(int *nsend, int *nrecv)
{
    if (nmsgs) qsort(msgs, nmsgs, sizeof *msgs, cmp_msg); /* msgs is NULL when there are none */
    uint64_t *end[2] = { NULL, NULL };
    int n[2] = { 0, 0 };
    for (size_t i = 0; i < nmsgs; i++) {
        int d = msgs[i].send != 0;
        msgs[i].lane = take_lane(&end[d], &n[d], msgs[i].t0, msgs[i].t1);
    }
    free(end[0]);
    free(end[1]);
    *nrecv = n[0];
    *nsend = n[1];
}

static int cmp_io(const void *a, const void *b)
{
    const iorec *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Spill-file transfers overlap (the I/O thread reads while workers write
 * evicted blocks): lanes as for messages.  Gives the lanes used. */
static int assign_io_lanes(void)
{
    if (nios) qsort(ios, nios, sizeof *ios, cmp_io);
    uint64_t *end = NULL;
    int n = 0;
    for (size_t i = 0; i < nios; i++) ios[i].lane = take_lane(&end, &n, ios[i].t0, ios[i].t1);
    free(end);
    return n;
}

/* A message's arrow id: the same on both ends (< 2^53, what a JSON reader keeps exactly). */
static uint64_t msg_id(int src, int dst, uint32_t seq, int nranks)
{
    return (((uint64_t)src * (uint64_t)nranks + (uint64_t)dst) << 32 | seq) & ((1ull << 53) - 1);
}

static void trace_part(jout *o)
{
    int me = o->pid, nranks = tamm__comm_size();
    char nm[96], args[640];
    snprintf(nm, sizeof nm, "rank %d", me);
    meta(o, "process_name", 0, nm, me);
    for (int i = 0; i < tamm__rt.nworkers; i++) {
        snprintf(nm, sizeof nm, "cpu worker %d", i);
        meta(o, "thread_name", i, nm, i);
    }
    for (int g = 0; g < tamm__gpus.n; g++) {
        for (int s = 0; s < tamm__gpus.g[g].nstreams; s++) {
            snprintf(nm, sizeof nm, "GPU %d stream %d", g, s);
            meta(o, "thread_name", TID_GPU(g, s), nm, TID_GPU(g, s));
        }
        snprintf(nm, sizeof nm, "GPU %d copy stream", g);
        meta(o, "thread_name", TID_GPU(g, -1), nm, TID_GPU(g, -1));
    }
    int nsend = 0, nrecv = 0;
    assign_lanes(&nsend, &nrecv);
    for (int l = 0; l < nsend; l++) {
        snprintf(nm, sizeof nm, "MPI sends %d", l);
        meta(o, "thread_name", TID_SEND(l), nm, TID_SEND(l));
    }
    for (int l = 0; l < nrecv; l++) {
        snprintf(nm, sizeof nm, "MPI receives %d", l);
        meta(o, "thread_name", TID_RECV(l), nm, TID_RECV(l));
    }
    int nio = assign_io_lanes();
    for (int l = 0; l < nio; l++) {
        snprintf(nm, sizeof nm, "spill file %d", l);
        meta(o, "thread_name", TID_IO(l), nm, TID_IO(l));
    }
    for (size_t k = 0; k < nios; k++) {
        const iorec *io = &ios[k];
        char by[32];
        if (io->by == TAMM_IO_BY_IO_THREAD) snprintf(by, sizeof by, "I/O thread");
        else if (io->by >= 0) snprintf(by, sizeof by, "cpu worker %d", io->by);
        else snprintf(by, sizeof by, "other thread");
        snprintf(args, sizeof args, "\"bytes\":%llu,\"by\":\"%s\",\"task\":%llu", (unsigned long long)io->bytes, by,
                 (unsigned long long)io->task);
        slice(o, TID_IO(io->lane), io->name, "io", io->t0, io->t1, args);
    }
    for (int i = 0; i < tamm__rt.nthreads; i++) {
        tamm__worker *w = &tamm__rt.workers[i];
        int gpu = i - tamm__rt.nworkers; /* >= 0: a CUDA worker */
        for (size_t k = 0; k < w->nev; k++) {
            tamm__trace_ev *e = &w->ev[k];
            int tid = gpu < 0 ? i : TID_GPU(gpu, e->track);
            const char *label = e->id && e->id <= nnodes && nodes[e->id - 1].label ? nodes[e->id - 1].label : "task";
            switch (e->kind) {
            case TAMM_TEV_COPY:
                snprintf(args, sizeof args, "\"bytes\":%llu,\"task\":%llu", (unsigned long long)e->bytes,
                         (unsigned long long)e->id);
                slice(o, tid, e->name, "copy", e->t0, e->t1, args);
                continue;
            case TAMM_TEV_GPU_FLUSH:
                slice(o, tid, "write-back", "write-back", e->t0, e->t1, "");
                continue;
            default:
                snprintf(args, sizeof args, "\"id\":%llu", (unsigned long long)e->id);
                if (e->id && e->id <= nnodes && nodes[e->id - 1].withheld) /* run on a CPU: its kernel's check failed */
                    json_arg(args, sizeof args, "cuda_withheld", nodes[e->id - 1].withheld);
                slice(o, tid, label, "task", e->t0, e->t1, args);
                if (e->id && e->id <= nnodes) {
                    node *n = &nodes[e->id - 1];
                    n->tid = tid;
                    n->t0 = e->t0;
                    n->t1 = e->t1;
                    n->ran = 1;
                }
            }
        }
    }
    for (size_t k = 0; k < nmsgs; k++) {
        const msg *m = &msgs[k];
        int tid = m->send ? TID_SEND(m->lane) : TID_RECV(m->lane);
        snprintf(nm, sizeof nm, "%s rank %d", m->send ? "send to" : "recv from", m->peer);
        snprintf(args, sizeof args, "\"peer\":%d,\"bytes\":%llu,\"seq\":%u,\"task\":%llu", m->peer,
                 (unsigned long long)m->bytes, m->seq, (unsigned long long)m->task);
        slice(o, tid, nm, "msg", m->t0, m->t1, args);
        /* the arrow leaves the send when it is posted and enters the receive as it completes */
        if (m->send) flow(o, tid, "msg", 's', msg_id(me, m->peer, m->seq, nranks), m->t0);
        else flow(o, tid, "msg", 'f', msg_id(m->peer, me, m->seq, nranks), m->t1 > m->t0 ? m->t1 - 1 : m->t1);
    }
    size_t ne;
    const tamm__edge *ed = tamm__dag_edges(&ne);
    for (size_t k = 0; k < ne; k++) {
        if (!ed[k].from || !ed[k].to || ed[k].from > nnodes || ed[k].to > nnodes) continue;
        node *a = &nodes[ed[k].from - 1], *b = &nodes[ed[k].to - 1];
        if (!a->ran || !b->ran) continue;
        uint64_t id = ((uint64_t)me << 32 | (k + 1)) & ((1ull << 53) - 1);
        flow(o, a->tid, "dep", 's', id, a->t1 > a->t0 ? a->t1 - 1 : a->t1);
        flow(o, b->tid, "dep", 'f', id, b->t0);
    }
}

/* ------------------------------------------------------------------ */
/* one rank's part of the DAG                                            */
/* ------------------------------------------------------------------ */
/* One rank: the digraph's body as it always was (nodes t<id>).  Several: rank
 * R's nodes r<R>_t<id> in a cluster, and each message a node m_<src>_<dst>_<seq>
 * (declared by its sender) between the task that sent it and the one that
 * received it. */
static void dag_part(FILE *f, int me, int nranks)
{
    char pre[32] = "";
    const char *ind = "  ";
    if (nranks > 1) {
        snprintf(pre, sizeof pre, "r%d_", me);
        fprintf(f, "  subgraph cluster_rank%d {\n    label=\"rank %d\";\n", me, me);
        ind = "    ";
    }
    for (size_t i = 0; i < nnodes; i++) {
        if (!nodes[i].label) continue;
        fprintf(f, "%s%st%zu [label=\"", ind, pre, i + 1);
        dot_str(f, nodes[i].label);
        fprintf(f, "\\n#%zu\"];\n", i + 1);
        if (nodes[i].parent)
            fprintf(f, "%s%st%llu -> %st%zu [style=dashed, label=\"child\"];\n", ind, pre,
                    (unsigned long long)nodes[i].parent, pre, i + 1);
    }
    size_t ne;
    const tamm__edge *ed = tamm__dag_edges(&ne);
    for (size_t k = 0; k < ne; k++)
        fprintf(f, "%s%st%llu -> %st%llu;\n", ind, pre, (unsigned long long)ed[k].from, pre, (unsigned long long)ed[k].to);
    if (nranks == 1) return;
    fprintf(f, "  }\n");
    for (size_t k = 0; k < nmsgs; k++) {
        const msg *m = &msgs[k];
        int src = m->send ? me : m->peer, dst = m->send ? m->peer : me;
        if (m->send) {
            fprintf(f, "  m_%d_%d_%u [shape=ellipse, label=\"message %d -> %d #%u\\n%llu bytes\"];\n", src, dst, m->seq,
                    src, dst, m->seq, (unsigned long long)m->bytes);
            fprintf(f, "  %st%llu -> m_%d_%d_%u;\n", pre, (unsigned long long)m->task, src, dst, m->seq);
        } else {
            fprintf(f, "  m_%d_%d_%u -> %st%llu;\n", src, dst, m->seq, pre, (unsigned long long)m->task);
        }
    }
}

/* ------------------------------------------------------------------ */
/* writing and merging                                                   */
/* ------------------------------------------------------------------ */
typedef struct { FILE *f; int nonempty; int json; } merged;

static void put_part(int rank, const char *data, size_t n, void *arg)
{
    (void)rank;
    merged *m = arg;
    if (!m->f || !n) return;
    if (m->json && m->nonempty) fputs(",\n", m->f);
    fwrite(data, 1, n, m->f);
    m->nonempty = 1;
}

/* Build this rank's part in memory, hand it to the writer (rank `root`), which
 * writes head, every rank's part, tail to `file` (NULL on the other ranks). */
static void write_merged(const char *var, const char *file, int root, int json, int64_t base)
{
    int me = tamm__rt.rank, nranks = tamm__rt.nranks;
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    if (!mf) tamm__fatal_oom(0);
    if (json) {
        jout o = { mf, 1, me, tamm__rt.t0, nranks > 1 ? t0_real - base : 0 };
        trace_part(&o);
    } else {
        dag_part(mf, me, nranks);
    }
    if (fclose(mf)) tamm__fatal_oom(len);
    merged m = { NULL, 0, json };
    if (me == root) {
        m.f = fopen(file, "w");
        if (!m.f) (void)tamm__error(NULL, TAMM_EINVAL, "%s: cannot write '%s' (%s)", var, file, strerror(errno));
        else fputs(json ? "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n" : "digraph tamm {\n  node [shape=box, fontname=\"monospace\"];\n", m.f);
    }
    tamm__comm_world_gather(root, buf, len, put_part, &m); /* every rank, even where the file failed */
    free(buf);
    if (m.f) {
        fputs(json ? "\n]}\n" : "}\n", m.f);
        if (ferror(m.f) | fclose(m.f))
            (void)tamm__error(NULL, TAMM_EINVAL, "%s: writing '%s' failed (%s)", var, file, strerror(errno));
    }
}

/* TAMM_STATS: every line starts with "tamm stats: rank R:", so that the lines of
 * several ranks, interleaved on one terminal, can be told apart (and grepped). */
static void print_stats(void)
{
    FILE *f = stderr;
    /* every submitted task is accounted for: run by a CPU worker, run by a GPU
     * worker (CUDA variant or CPU fallback there), a bodiless wait of the top
     * level on blocks, skipped after an error (a failed GPU), or never run (it
     * still waited when the run ended: a deadlock, or an error that stopped
     * the waits) */
    int r = tamm__rt.rank;
    uint64_t cpu = 0, gpu = 0, submitted = 0;
    for (int i = 0; i < tamm__rt.nthreads; i++) {
        uint64_t n = atomic_load(&tamm__rt.workers[i].ntasks);
        if (i < tamm__rt.nworkers) cpu += n;
        else gpu += n;
        submitted += atomic_load(&tamm__rt.workers[i].nsubmitted);
    }
    uint64_t waits = atomic_load(&tamm__rt.nsentinels), skipped = atomic_load(&tamm__rt.nskipped);
    uint64_t accounted = cpu + gpu + waits + skipped;
    uint64_t never = submitted > accounted ? submitted - accounted : 0;
    double wall = (double)(tamm__now_ns() - tamm__rt.t0) / 1e6;
    fprintf(f, "tamm stats: rank %d: %d workers, scheduler %s, %.1f ms since tamm_init\n", r, tamm__rt.nworkers,
            tamm__rt.sched->name, wall);
    fprintf(f, "tamm stats: rank %d: tasks: %llu submitted, %llu run (%llu on CPU workers, %llu on GPU workers), %llu "
               "top-level waits without a body (tamm_block, tamm_wait_on, gather, scatter), %llu skipped after an "
               "error, %llu never run (still waiting at the end)\n",
            r, (unsigned long long)submitted, (unsigned long long)(cpu + gpu), (unsigned long long)cpu,
            (unsigned long long)gpu, (unsigned long long)waits, (unsigned long long)skipped, (unsigned long long)never);
    fprintf(f, "tamm stats: rank %d: CUDA kernels withheld at submission: %llu tasks ran their CPU variant because a "
               "check of their kernel failed (TAMM_TRACE: args.cuda_withheld)\n",
            r, (unsigned long long)atomic_load(&tamm__rt.nwithheld));
    for (int i = 0; i < tamm__rt.nworkers; i++) {
        tamm__worker *w = &tamm__rt.workers[i];
        fprintf(f, "tamm stats: rank %d: worker %d: %llu tasks, busy %.1f ms, idle %.1f ms, %llu steals, %llu sleeps, "
                   "%llu waits not woken (their condition met when their time slice ran out)\n",
                r, i, (unsigned long long)atomic_load(&w->ntasks), (double)w->busy_ns / 1e6, (double)w->idle_ns / 1e6,
                (unsigned long long)w->nsteals, (unsigned long long)w->nsleeps, (unsigned long long)w->nlate);
    }
    fprintf(f, "tamm stats: rank %d: bytes moved: host->host %llu\n", r,
            (unsigned long long)atomic_load(&tamm__rt.bytes_h2h));
    fprintf(f, "tamm stats: rank %d: accumulations: %llu in place (cache hits), %llu into private buffers\n", r,
            (unsigned long long)atomic_load(&tamm__rt.inplace_acc), (unsigned long long)atomic_load(&tamm__rt.private_acc));
    fprintf(f, "tamm stats: rank %d: peak memory: %zu bytes of blocks on the host (homes, copies of other ranks' "
               "blocks, private buffers, temps, staging)\n", r, tamm__mem_peak());
    tamm__ml_stats(f, r); /* TAMM_MEMORY_LIMIT: spills, read-backs, evictions, waits for memory */
    tamm__gpu_stats(f);
    fprintf(f, "tamm stats: rank %d: pools: %zu task records, %zu epoch records allocated\n", r,
            atomic_load(&tamm__rt.task_pool.allocated), atomic_load(&tamm__rt.epoch_pool.allocated));
}

void tamm__trace_finish(void)
{
    /* Which rank writes each file (the lowest that set the variable; none: no file)
     * and the earliest tamm_init on the wall clock, which the merged trace counts from.
     * With several ranks this is collective: every rank takes part, tracing or not. */
    int me = tamm__rt.rank;
    int64_t agree[3] = { tamm__rt.cfg.trace_file ? me : INT64_MAX, tamm__rt.cfg.dag_file ? me : INT64_MAX,
                         t0_real };
    if (tamm__comm_size() > 1) tamm__comm_world_min(agree, 3);
    if (agree[0] != INT64_MAX) write_merged("TAMM_TRACE", tamm__rt.cfg.trace_file, (int)agree[0], 1, agree[2]);
    if (agree[1] != INT64_MAX) write_merged("TAMM_DAG", tamm__rt.cfg.dag_file, (int)agree[1], 0, agree[2]);
    if (tamm__rt.cfg.stats) print_stats();
    for (size_t i = 0; i < nnodes; i++) {
        free(nodes[i].label);
        free(nodes[i].withheld);
    }
    free(nodes);
    nodes = NULL;
    nnodes = capnodes = 0;
    free(msgs);
    msgs = NULL;
    nmsgs = capmsgs = 0;
    for (size_t i = 0; i < nios; i++) free(ios[i].name);
    free(ios);
    ios = NULL;
    nios = capios = 0;
    for (int i = 0; i < tamm__rt.nthreads; i++) {
        tamm__worker *w = &tamm__rt.workers[i];
        for (size_t k = 0; k < w->nev; k++) free(w->ev[k].name);
        free(w->ev);
        w->ev = NULL;
        w->nev = w->capev = 0;
    }
    tamm__dag_record_reset();
}
