/* flow_record.c — the record of this rank's top-level operation stream (flow_record.h): the
 * running hash and its history, and what the recent operations were in the program's terms. */
#include "flow_record.h"
#include "mpi_comm.h"
#include "mpi_flow.h"
#include "util.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HCHUNK 65536
#define HNCHUNK 4096
static uint64_t *hist[HNCHUNK];
static atomic_ullong hcount;
static uint64_t hcur;

uint64_t tamm__rec_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

static void hist_put(uint64_t n, uint64_t h)
{
    uint64_t c = n / HCHUNK;
    if (c >= HNCHUNK) return;
    if (!hist[c]) hist[c] = tamm__xmalloc(HCHUNK * sizeof(uint64_t));
    hist[c][n % HCHUNK] = h;
}

uint64_t tamm__rec_hash(void) { return hcur; }

void tamm__rec_done(uint64_t h)
{
    hcur = h;
    uint64_t n = atomic_load_explicit(&hcount, memory_order_relaxed) + 1;
    hist_put(n, hcur);
    atomic_store_explicit(&hcount, n, memory_order_release);
}

/* What each recent event was, in the program's terms (written by the top level into the slot of
 * the next event before tamm__rec_done publishes it) */
#define DRING 4096
static tamm__flow_ev dring[DRING];
/* The name of each tensor by its id, copied at its creation (a tensor may be
 * destroyed before a message names it). */
static char **tensor_names;
static size_t ntensor_names, tensor_names_cap;

static const char *tensor_name(int id)
{
    return id >= 0 && (size_t)id < ntensor_names && tensor_names[id] ? tensor_names[id] : "?";
}

void tamm__rec_tensor_name(int id, const char *name)
{
    if (ntensor_names <= (size_t)id) {
        if (tensor_names_cap <= (size_t)id) {
            tensor_names_cap = 2 * (size_t)id + 16;
            tensor_names = tamm__xrealloc(tensor_names, tensor_names_cap * sizeof *tensor_names);
        }
        for (; ntensor_names <= (size_t)id; ntensor_names++) tensor_names[ntensor_names] = NULL;
    }
    size_t nl = strlen(name) + 1;
    tensor_names[id] = memcpy(tamm__xmalloc(nl), name, nl);
}

tamm__flow_ev *tamm__rec_next(int ev)
{
    tamm__flow_ev *d = &dring[(atomic_load_explicit(&hcount, memory_order_relaxed) + 1) % DRING];
    d->ev = ev;
    d->line = d->nref = 0;
    d->a = d->b = 0;
    d->label = d->file = NULL;
    d->tid[0] = -1;
    return d;
}

int tamm__flow_event_text(uint64_t n, char *buf, size_t len)
{
    uint64_t have = atomic_load_explicit(&hcount, memory_order_acquire);
    if (n == 0 || n > have || have - n >= DRING - 64) return 0; /* not yet, or overwritten */
    const tamm__flow_ev *d = &dring[n % DRING];
    switch (d->ev) {
    case EV_TENSOR: snprintf(buf, len, "created tensor '%s' (tamm_tensor_create)", tensor_name(d->tid[0])); break;
    case EV_TASK: {
        char ref[160] = "";
        size_t at = 0;
        for (int i = 0; i < d->nref && at < sizeof ref - 1; i++) {
            int k = i == 2 ? snprintf(ref + at, sizeof ref - at, ", ...")
                           : snprintf(ref + at, sizeof ref - at, "%s%s", i ? ", " : " on ", tensor_name(d->tid[i]));
            at += k > 0 ? (size_t)k : 0;
            if (i == 2) break;
            for (int x = 0; x < d->nidx[i] && at < sizeof ref - 1; x++) {
                k = snprintf(ref + at, sizeof ref - at, "[%ld]", d->idx[i][x]);
                at += k > 0 ? (size_t)k : 0;
            }
        }
        if (at >= sizeof ref) at = sizeof ref - 1;
        ref[at] = 0;
        const char *label = d->label ? d->label : "(no label)", *base = d->file ? strrchr(d->file, '/') : NULL;
        if (d->file) snprintf(buf, len, "submitted task '%s' (%s:%d)%s", label, base ? base + 1 : d->file, d->line, ref);
        else snprintf(buf, len, "submitted task '%s'%s", label, ref);
        break;
    }
    case EV_BLOCK: snprintf(buf, len, "called tamm_block on block %ld of '%s'", d->b, tensor_name(d->tid[0])); break;
    case EV_GATHER: snprintf(buf, len, "called tamm_tensor_gather on '%s'", tensor_name(d->tid[0])); break;
    case EV_SCATTER: snprintf(buf, len, "called tamm_tensor_scatter on '%s'", tensor_name(d->tid[0])); break;
    case EV_SYNC: snprintf(buf, len, "%s", d->a == TAMM_SYNC_FINAL ? "called tamm_finalize" : "called tamm_wait_all (or tamm_barrier)"); break;
    case EV_FENCE: snprintf(buf, len, "created fence %ld (tamm_fence_create)", d->a); break;
    case EV_FENCE_WAIT: snprintf(buf, len, "waited on fence %ld", d->a); break;
    case EV_XFENCE: snprintf(buf, len, "submitted an execution fence (tamm_fence_submit)"); break;
    default: return 0;
    }
    return 1;
}

uint64_t tamm__flow_stream_count(void) { return atomic_load_explicit(&hcount, memory_order_acquire); }

int tamm__flow_stream_hash(uint64_t count, uint64_t *hash)
{
    if (count > atomic_load_explicit(&hcount, memory_order_acquire)) return 0;
    uint64_t c = count / HCHUNK;
    if (c >= HNCHUNK || !hist[c]) return 0;
    *hash = hist[c][count % HCHUNK];
    return 1;
}

void tamm__rec_start(void)
{
    hcur = 0x7A3D5E1F00000000ull;
    atomic_store(&hcount, 0);
    hist_put(0, hcur);
}

void tamm__rec_end(void)
{
    for (size_t i = 0; i < ntensor_names; i++) free(tensor_names[i]);
    free(tensor_names);
    tensor_names = NULL;
    ntensor_names = tensor_names_cap = 0;
    atomic_store(&hcount, 0);
    for (int c = 0; c < HNCHUNK && hist[c]; c++) {
        free(hist[c]);
        hist[c] = NULL;
    }
}
