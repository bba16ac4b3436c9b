/* trace.c — trace JSON, DAG dot and the statistics summary (see trace.h). */
#include "trace.h"
#include "dag.h"
#include "gpu.h"
#include "runtime.h"
#include "error.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct { char *label; uint64_t parent; int worker; uint64_t t0, t1; int ran; } node;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static node *nodes;     /* indexed by id - 1 */
static size_t nnodes, capnodes;

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

void tamm__trace_event(tamm_worker *w, uint64_t id, uint64_t t0, uint64_t t1)
{
    if (w->nev == w->capev) {
        w->capev = w->capev ? w->capev * 2 : 1024;
        w->ev = tamm__xrealloc(w->ev, w->capev * sizeof *w->ev);
    }
    tamm_trace_ev *e = &w->ev[w->nev++];
    e->id = id;
    e->t0 = t0;
    e->t1 = t1;
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

static void dot_str(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
}

static void write_trace(const char *file)
{
    FILE *f = fopen(file, "w");
    if (!f) {
        (void)tamm__error(NULL, TAMM_EINVAL, "TAMM_TRACE: cannot write '%s' (%s)", file, strerror(errno));
        return;
    }
    uint64_t t0 = tamm__rt.t0;
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"rank %d\"}}", tamm_rank(), tamm_rank());
    for (int i = 0; i < tamm__rt.nthreads; i++)
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s %d\"}}",
                tamm_rank(), i, i < tamm__rt.nworkers ? "cpu worker" : "GPU", i < tamm__rt.nworkers ? i : i - tamm__rt.nworkers);
    for (int i = 0; i < tamm__rt.nthreads; i++) {
        tamm_worker *w = &tamm__rt.workers[i];
        for (size_t k = 0; k < w->nev; k++) {
            tamm_trace_ev *e = &w->ev[k];
            const char *label = e->id && e->id <= nnodes ? nodes[e->id - 1].label : "task";
            fprintf(f, ",\n{\"name\":");
            json_str(f, label);
            fprintf(f, ",\"cat\":\"task\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d,\"args\":{\"id\":%llu}}",
                    (double)(e->t0 - t0) / 1e3, (double)(e->t1 - e->t0) / 1e3, tamm_rank(), i, (unsigned long long)e->id);
            if (e->id && e->id <= nnodes) {
                node *n = &nodes[e->id - 1];
                n->worker = i;
                n->t0 = e->t0;
                n->t1 = e->t1;
                n->ran = 1;
            }
        }
    }
    size_t ne;
    const tamm_edge *ed = tamm__dag_edges(&ne);
    for (size_t k = 0; k < ne; k++) {
        if (!ed[k].from || !ed[k].to || ed[k].from > nnodes || ed[k].to > nnodes) continue;
        node *a = &nodes[ed[k].from - 1], *b = &nodes[ed[k].to - 1];
        if (!a->ran || !b->ran) continue;
        fprintf(f, ",\n{\"name\":\"dependence\",\"cat\":\"dep\",\"ph\":\"s\",\"id\":%zu,\"ts\":%.3f,\"pid\":%d,\"tid\":%d}",
                k + 1, (double)(a->t1 - t0) / 1e3 - 0.001, tamm_rank(), a->worker);
        fprintf(f, ",\n{\"name\":\"dependence\",\"cat\":\"dep\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,\"ts\":%.3f,\"pid\":%d,\"tid\":%d}",
                k + 1, (double)(b->t0 - t0) / 1e3, tamm_rank(), b->worker);
    }
    fprintf(f, "\n]}\n");
    if (ferror(f) | fclose(f))
        (void)tamm__error(NULL, TAMM_EINVAL, "TAMM_TRACE: writing '%s' failed (%s)", file, strerror(errno));
}

static void write_dag(const char *file)
{
    FILE *f = fopen(file, "w");
    if (!f) {
        (void)tamm__error(NULL, TAMM_EINVAL, "TAMM_DAG: cannot write '%s' (%s)", file, strerror(errno));
        return;
    }
    fprintf(f, "digraph tamm {\n  node [shape=box, fontname=\"monospace\"];\n");
    for (size_t i = 0; i < nnodes; i++) {
        if (!nodes[i].label) continue;
        fprintf(f, "  t%zu [label=\"", i + 1);
        dot_str(f, nodes[i].label);
        fprintf(f, "\\n#%zu\"];\n", i + 1);
        if (nodes[i].parent)
            fprintf(f, "  t%llu -> t%zu [style=dashed, label=\"child\"];\n", (unsigned long long)nodes[i].parent, i + 1);
    }
    size_t ne;
    const tamm_edge *ed = tamm__dag_edges(&ne);
    for (size_t k = 0; k < ne; k++)
        fprintf(f, "  t%llu -> t%llu;\n", (unsigned long long)ed[k].from, (unsigned long long)ed[k].to);
    fprintf(f, "}\n");
    if (ferror(f) | fclose(f))
        (void)tamm__error(NULL, TAMM_EINVAL, "TAMM_DAG: writing '%s' failed (%s)", file, strerror(errno));
}

/* TAMM_STATS: every line starts with "tamm stats: rank R:", so that the lines of
 * several ranks, interleaved on one terminal, can be told apart (and grepped). */
static void print_stats(void)
{
    FILE *f = stderr;
    int r = tamm_rank();
    uint64_t total = 0, submitted = 0;
    for (int i = 0; i < tamm__rt.nworkers; i++) {
        total += atomic_load(&tamm__rt.workers[i].ntasks);
        submitted += atomic_load(&tamm__rt.workers[i].nsubmitted);
    }
    double wall = (double)(tamm__now_ns() - tamm__rt.t0) / 1e6;
    fprintf(f, "tamm stats: rank %d: %d workers, scheduler %s, %.1f ms since tamm_init\n", r, tamm__rt.nworkers,
            tamm__rt.sched->name, wall);
    fprintf(f, "tamm stats: rank %d: tasks: %ld submitted, %llu run\n", r, (long)submitted, (unsigned long long)total);
    for (int i = 0; i < tamm__rt.nworkers; i++) {
        tamm_worker *w = &tamm__rt.workers[i];
        fprintf(f, "tamm stats: rank %d: worker %d: %llu tasks, busy %.1f ms, idle %.1f ms, %llu steals, %llu sleeps\n",
                r, i, (unsigned long long)atomic_load(&w->ntasks), (double)w->busy_ns / 1e6, (double)w->idle_ns / 1e6,
                (unsigned long long)w->nsteals, (unsigned long long)w->nsleeps);
    }
    fprintf(f, "tamm stats: rank %d: bytes moved: host->host %llu\n", r,
            (unsigned long long)atomic_load(&tamm__rt.bytes_h2h));
    fprintf(f, "tamm stats: rank %d: accumulations: %llu in place (cache hits), %llu into private buffers\n", r,
            (unsigned long long)atomic_load(&tamm__rt.inplace_acc), (unsigned long long)atomic_load(&tamm__rt.private_acc));
    fprintf(f, "tamm stats: rank %d: peak memory: %zu bytes of blocks on the host (homes, copies of other ranks' "
               "blocks, private buffers, temps, staging)\n", r, tamm__mem_peak());
    tamm__gpu_stats(f);
    fprintf(f, "tamm stats: rank %d: pools: %zu task records, %zu epoch records allocated\n", r,
            atomic_load(&tamm__rt.task_pool.allocated), atomic_load(&tamm__rt.epoch_pool.allocated));
}

void tamm__trace_finish(void)
{
    if (tamm__rt.cfg.trace_file) write_trace(tamm__rt.cfg.trace_file);
    if (tamm__rt.cfg.dag_file) write_dag(tamm__rt.cfg.dag_file);
    if (tamm__rt.cfg.stats) print_stats();
    for (size_t i = 0; i < nnodes; i++) free(nodes[i].label);
    free(nodes);
    nodes = NULL;
    nnodes = capnodes = 0;
    for (int i = 0; i < tamm__rt.nthreads; i++) {
        free(tamm__rt.workers[i].ev);
        tamm__rt.workers[i].ev = NULL;
        tamm__rt.workers[i].nev = tamm__rt.workers[i].capev = 0;
    }
    tamm__dag_record_reset();
}
