/*
 * sched_gpu.c — device selection (TAMM_SCHED): which unit runs a ready task
 * that has a CUDA variant, and the measurements the earliest-finish-time
 * policy uses.
 *
 * The policies of GrCUDA's DAG scheduler (docs/runtime.md "Policies") choose among GPUs:
 *   round-robin            rotate over the GPUs;
 *   stream-aware           the GPU with the fewest tasks queued or running;
 *   min-transfer-size      the GPU to which the fewest bytes must move;
 *   minmin-transfer-time   the GPU whose transfer time is smallest, each block
 *                          counted from its fastest source;
 *   minmax-transfer-time   ... each block counted from its slowest source.
 * (Sources of a block: the home, and any GPU with a current copy; a block
 * newer on a GPU than its home comes from that GPU.)  Under these a task with
 * a CPU variant too runs on the CPU when the chosen GPU is saturated and a CPU
 * worker is idle, so both work on one DAG.
 *   eft (default)          earliest finish time over the CPU and every GPU:
 *                          when the unit is free (estimated work queued on it)
 *                          + transfers (bytes / measured link bandwidth) +
 *                          the task's duration measured per label, size
 *                          (power of two) and unit kind.  A duration not yet
 *                          measured on a unit is taken as the other kind's (or
 *                          TAMM_EFT_DEFAULT_NS), and work queued on a unit
 *                          counts at its estimate, so both kinds get measured.
 * A GPU whose memory limit cannot hold the task's blocks is never chosen.
 * tamm__gpu_pick is pure (tests/rt/gpu/test_gpu_policy.c drives it directly).
 */
#include "gpu.h"
#include "runtime.h"
#include "tensor.h"
#include <string.h>

#define SATURATED (2 * 4 * TAMM_GPU_PER_STREAM) /* twice what 4 streams hold */

double tamm__eft_duration(const tamm__pick_in *in, int gpu)
{
    double mine = gpu ? in->dur_gpu : in->dur_cpu, other = gpu ? in->dur_cpu : in->dur_gpu;
    return mine >= 0 ? mine : other >= 0 ? other : TAMM_EFT_DEFAULT_NS;
}

static int better(const tamm__pick_in *in, int a, int b, double ka, double kb)
{
    if (b < 0) return 1;
    if (ka != kb) return ka < kb;
    if (in->busy[a] != in->busy[b]) return in->busy[a] < in->busy[b];
    return a < b;
}

static int pick_gpu(tamm_gpu_policy p, const tamm__pick_in *in)
{
    int best = -1;
    double kbest = 0;
    for (int k = 0; k < in->ngpu; k++) {
        int g = p == TAMM_GPOL_RR ? (int)((in->rr + (unsigned)k) % (unsigned)in->ngpu) : k;
        if (!in->fits[g]) continue;
        if (p == TAMM_GPOL_RR) return g;
        double key;
        switch (p) {
        case TAMM_GPOL_STREAM: key = in->busy[g]; break;
        case TAMM_GPOL_MINSIZE: key = (double)in->missing[g]; break;
        case TAMM_GPOL_MINMIN: key = in->xfer_min[g]; break;
        case TAMM_GPOL_MINMAX: key = in->xfer_max[g]; break;
        default: key = in->avail[g] + in->xfer_min[g] + tamm__eft_duration(in, 1); break;
        }
        if (better(in, g, best, key, kbest)) { best = g; kbest = key; }
    }
    return best;
}

int tamm__gpu_pick(tamm_gpu_policy p, const tamm__pick_in *in)
{
    int g = in->has_gpu && in->ngpu > 0 ? pick_gpu(p, in) : -1;
    if (g < 0) return in->has_cpu ? 0 : -1;
    if (!in->has_cpu) return g + 1;
    if (p == TAMM_GPOL_EFT) {
        double fin_gpu = in->avail[g] + in->xfer_min[g] + tamm__eft_duration(in, 1);
        double fin_cpu = in->cpu_avail + in->xfer_cpu + tamm__eft_duration(in, 0);
        return fin_cpu < fin_gpu ? 0 : g + 1;
    }
    return in->busy[g] >= SATURATED && in->cpu_idle ? 0 : g + 1;
}

/* ------------------------------------------------------------------ */
/* measured durations: a lock-free table keyed by label, size, kind      */
/* ------------------------------------------------------------------ */
#define PERF_SLOTS 4096
typedef struct { _Atomic uint64_t key; atomic_ullong sum, n; atomic_uint warm; } perf_ent; /* warm: GPUs seen */
static perf_ent perf[PERF_SLOTS];

static uint64_t perf_key(const char *label, size_t bytes, int kind)
{
    static const char none[] = "";
    int bucket = 0;
    while (bucket < 63 && ((size_t)1 << (bucket + 1)) <= bytes) bucket++;
    uint64_t k = ((uint64_t)(uintptr_t)(label ? label : none) << 8) ^ ((uint64_t)bucket << 1) ^ (uint64_t)(kind & 1);
    return k ? k : 1;
}

static perf_ent *perf_find(uint64_t key, int insert)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < PERF_SLOTS; i++) {
        perf_ent *e = &perf[((h >> 52) + (uint64_t)i) & (PERF_SLOTS - 1)];
        uint64_t k = atomic_load_explicit(&e->key, memory_order_acquire);
        if (k == key) return e;
        if (k == 0) {
            if (!insert) return NULL;
            uint64_t zero = 0;
            if (atomic_compare_exchange_strong(&e->key, &zero, key) || zero == key) return e;
        }
    }
    return NULL; /* full: not measured */
}

void tamm__perf_record(const char *label, size_t bytes, int unit, double ns)
{
    perf_ent *e = perf_find(perf_key(label, bytes, unit > 0), 1);
    if (!e) return;
    if (unit > 0) { /* the first run on this GPU: its kernels' loading, not their duration */
        unsigned bit = 1u << ((unit - 1) & 31);
        if (!(atomic_fetch_or_explicit(&e->warm, bit, memory_order_relaxed) & bit)) return;
    }
    atomic_fetch_add_explicit(&e->sum, (unsigned long long)(ns > 0 ? ns : 0), memory_order_relaxed);
    atomic_fetch_add_explicit(&e->n, 1, memory_order_release);
}

double tamm__perf_estimate(const char *label, size_t bytes, int kind)
{
    perf_ent *e = perf_find(perf_key(label, bytes, kind), 0);
    if (!e) return -1;
    unsigned long long n = atomic_load_explicit(&e->n, memory_order_acquire);
    if (!n) return -1;
    return (double)atomic_load_explicit(&e->sum, memory_order_relaxed) / (double)n;
}

void tamm__perf_reset(void)
{
    for (int i = 0; i < PERF_SLOTS; i++) {
        atomic_store(&perf[i].key, 0);
        atomic_store(&perf[i].sum, 0);
        atomic_store(&perf[i].n, 0);
        atomic_store(&perf[i].warm, 0);
    }
}

/* ------------------------------------------------------------------ */
/* the policy's view of a task (racy reads: a heuristic)                 */
/* ------------------------------------------------------------------ */
static void block_xfer(tamm__pick_in *in, const tamm_tensor *T, long b, unsigned perm)
{
    size_t bytes = T->blocks[b].bytes;
    const tamm__gblk *gb = &T->gpu->blk[b];
    unsigned valid = atomic_load(&gb->valid), dw = atomic_load(&gb->dirty_w), da = atomic_load(&gb->dirty_a);
    unsigned dirty = dw | da;
    for (unsigned m = dirty; m; m &= m - 1) /* the CPU would need it back */
        in->xfer_cpu += (double)bytes / tamm__gpus.g[__builtin_ctz(m)].bw_d2h;
    if (!(perm & TAMM_READ)) return; /* written or accumulated: nothing to bring in */
    for (int g = 0; g < in->ngpu; g++) {
        const tamm__gpu *G = &tamm__gpus.g[g];
        if ((valid | dw) & (1u << g)) continue;
        in->missing[g] += bytes;
        double lo, hi;
        unsigned src = dw & ~(1u << g);
        if (src) { /* the home is stale: only the GPU with the newer copy is a source */
            lo = 1e300;
            hi = 0;
        } else {   /* the home, and every GPU with a current copy */
            src = valid & ~(1u << g);
            lo = hi = (double)bytes / G->bw_h2d;
        }
        for (unsigned m = src; m; m &= m - 1) {
            const tamm__gpu *H = &tamm__gpus.g[__builtin_ctz(m)];
            double bw = H->bw_d2h < G->bw_h2d ? H->bw_d2h : G->bw_h2d; /* staged through the host */
            double t = (double)bytes / bw;
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
        in->xfer_min[g] += lo;
        in->xfer_max[g] += hi;
    }
}

void tamm__gpu_pick_input(const tamm__task_s *t, size_t footprint, tamm__pick_in *in)
{
    memset(in, 0, sizeof *in);
    in->ngpu = tamm__gpus.n;
    in->has_cpu = t->cpu != NULL;
    in->has_gpu = t->cuda != NULL;
    for (int g = 0; g < in->ngpu; g++) {
        const tamm__gpu *G = &tamm__gpus.g[g];
        in->fits[g] = !G->fatal && footprint <= G->limit;
        in->busy[g] = atomic_load(&G->queued) + atomic_load(&G->running);
        in->avail[g] = atomic_load(&G->busy_ns);
    }
    for (int i = 0; i < t->ndep; i++) {
        const tamm__dep *d = &t->dep[i];
        if (!d->T->gpu) continue;
        if (d->lin >= 0) block_xfer(in, d->T, d->lin, d->perm);
        else for (long b = 0; b < d->T->nblk; b++) block_xfer(in, d->T, b, d->perm);
    }
    int running = atomic_load(&tamm__gpus.cpu_running);
    in->cpu_avail = running >= tamm__rt.nworkers ? atomic_load(&tamm__gpus.cpu_busy_ns) / tamm__rt.nworkers : 0;
    in->cpu_idle = atomic_load_explicit(&tamm__rt.nsleepers, memory_order_relaxed) > 0;
    in->dur_gpu = tamm__perf_estimate(t->label, footprint, 1);
    in->dur_cpu = tamm__perf_estimate(t->label, footprint, 0);
    in->rr = atomic_fetch_add_explicit(&tamm__gpus.rr, 1, memory_order_relaxed);
}
