/* tensor.c — tensor creation, block geometry, block homes, gather/scatter,
 * deferred destruction (see tensor.h). */
#include "tensor.h"
#include "buffer.h"
#include "error.h"
#include "hostmem.h"
#include "layer.h"
#include "memlimit.h"
#include "runtime.h"
#include "divert.h"
#include "scope.h"
#include "task.h"
#include "tamm_assert.h"
#include <stdio.h>
#include <string.h>

/* the per-tensor hooks of the registered layers (layer.h), in order */
static const tamm__tensor_hooks *hooks[TAMM_MAX_TENSOR_HOOKS];
static int nhooks;

void tamm__tensor_hooks_add(const tamm__tensor_hooks *h)
{
    if (nhooks == TAMM_MAX_TENSOR_HOOKS) {
        fprintf(stderr, "tamm: internal error: more than %d layers with per-tensor state\n", TAMM_MAX_TENSOR_HOOKS);
        abort();
    }
    hooks[nhooks++] = h;
}

void tamm__tensor_hooks_clear(void) { nhooks = 0; }

size_t tamm__dtype_size(tamm_dtype dt)
{
    switch (dt) {
    case TAMM_F32: case TAMM_I32: return 4;
    case TAMM_F64: case TAMM_I64: return 8;
    default: return 0;
    }
}

long tamm__block_lin(const tamm_tensor *T, const long *idx, int n)
{
    if (!T || n != T->ndim) return -1;
    long lin = 0;
    for (int d = 0; d < n; d++) {
        if (idx[d] < 0 || idx[d] >= T->nblocks[d]) return -1;
        lin = lin * T->nblocks[d] + idx[d];
    }
    return lin;
}

int tamm__idx_valid_slow(const tamm_tensor *T, int d, long v)
{
    if (v == TAMM_ALL) return 1;
    if (!tamm__idx_is_range(v)) return 0;
    long lo = tamm__range_lo(v), hi = tamm__range_hi(v);
    return lo >= 0 && lo < hi && hi <= T->nblocks[d] && hi <= TAMM_RANGE_MAX;
}

const char *tamm__idx_problem(const tamm_tensor *T, int d, long v, char *buf, size_t n)
{
    long nb = T->nblocks[d];
    if (!tamm__idx_is_range(v)) {
        snprintf(buf, n, "index %ld of dimension %d is outside 0..%ld%s", v, d, nb - 1,
                 v < 0 ? " (a negative index is an error: a slice is TAMM_ALL, a range TAMM_RANGE(lo, hi))" : "");
        return buf;
    }
    long lo = tamm__range_lo(v), hi = tamm__range_hi(v);
    const char *why = lo < 0 ? "its start is negative"
                      : lo >= hi ? "it is empty (lo >= hi)"
                      : hi > TAMM_RANGE_MAX ? "its end is beyond TAMM_RANGE_MAX"
                      : "its end is beyond the dimension's blocks";
    snprintf(buf, n, "range %ld:%ld of dimension %d is not within 0:%ld (%s)", lo, hi, d, nb, why);
    return buf;
}

const char *tamm__idx_text(long v, char *buf, size_t n)
{
    if (v == TAMM_ALL) snprintf(buf, n, ":");
    else if (tamm__idx_is_range(v)) snprintf(buf, n, "%ld:%ld", tamm__range_lo(v), tamm__range_hi(v));
    else snprintf(buf, n, "%ld", v);
    return buf;
}

void tamm__block_idx(const tamm_tensor *T, long lin, long *idx)
{
    for (int d = T->ndim - 1; d >= 0; d--) {
        idx[d] = lin % T->nblocks[d];
        lin /= T->nblocks[d];
    }
}

static size_t extent(const tamm_tensor *T, int d, long b)
{
    size_t start = (size_t)b * T->tile[d];
    size_t left = T->dims[d] - start;
    return left < T->tile[d] ? left : T->tile[d];
}

size_t tamm__block_elems_lin(const tamm_tensor *T, long lin)
{
    long idx[TAMM_MAX_DIMS];
    tamm__block_idx(T, lin, idx);
    size_t n = 1;
    for (int d = 0; d < T->ndim; d++) n *= extent(T, d, idx[d]);
    return n;
}

const char *tamm__block_name(const tamm_tensor *T, long lin, char *buf, int n)
{
    long idx[TAMM_MAX_DIMS];
    tamm__block_idx(T, lin, idx);
    int o = snprintf(buf, (size_t)n, "%s[", T->name);
    for (int d = 0; d < T->ndim && o < n; d++)
        o += snprintf(buf + o, (size_t)(n - o), "%s%ld", d ? "," : "", idx[d]);
    if (o < n) snprintf(buf + o, (size_t)(n - o), "]");
    return buf;
}

int tamm__range_error(const struct tamm__task_s *t, const char *what, const tamm_tensor *T, const long *idx, int nidx,
                      int slice, const char *src)
{
    char val[256], rng[256];
    int o = 0, r = 0;
    size_t tl = src ? strcspn(src, "[") : strlen(T->name); /* the tensor as the source names it */
    o = snprintf(val, sizeof val, "%.*s", (int)(tl < 64 ? tl : 64), src ? src : T->name);
    for (int d = 0; d < nidx && d < TAMM_MAX_DIMS && o < (int)sizeof val - 24; d++) {
        char iv[48];
        if (slice) o += snprintf(val + o, sizeof val - (size_t)o, "[%s]", tamm__idx_text(idx[d], iv, sizeof iv));
        else o += snprintf(val + o, sizeof val - (size_t)o, "[%ld]", idx[d]);
        if (r < (int)sizeof rng - 48)
            r += snprintf(rng + r, sizeof rng - (size_t)r, "%s0..%ld", d ? " x " : "", T->nblocks[d] - 1);
    }
    rng[r] = 0;
    if (src)
        return tamm__error(t, TAMM_ERANGE, "%sblock %s = %s is outside the tensor '%s' (blocks %s)", what, src, val,
                           T->name, rng);
    return tamm__error(t, TAMM_ERANGE, "%sblock %s is outside the tensor '%s' (blocks %s)", what, val, T->name, rng);
}

void *tamm__block_home(tamm_tensor *T, long lin)
{
    TAMM_ASSERT(lin >= 0 && lin < T->nblk);
    tamm__block_s *b = &T->blocks[lin];
    if (TAMM_UNLIKELY(!b->home)) {
        if (T->ml) return tamm__ml_home(T, lin); /* read back, regenerated or zeroed, within the limit */
        size_t bytes = b->bytes;
        b->home = tamm__home_alloc(bytes); /* zero-filled; pinned when GPUs are in use */
        if (T->opts.gen) {
            long idx[TAMM_MAX_DIMS];
            tamm__block_idx(T, lin, idx);
            T->opts.gen(T, idx, b->home, T->opts.gen_arg);
        }
    }
    return b->home;
}

void tamm__accumulate(tamm_dtype dt, void *dst, const void *src, size_t n)
{
    switch (dt) {
    case TAMM_F32: { float *d = dst; const float *s = src; for (size_t i = 0; i < n; i++) d[i] += s[i]; break; }
    case TAMM_F64: { double *d = dst; const double *s = src; for (size_t i = 0; i < n; i++) d[i] += s[i]; break; }
    case TAMM_I32: { uint32_t *d = dst; const uint32_t *s = src; for (size_t i = 0; i < n; i++) d[i] += s[i]; break; }
    case TAMM_I64: { uint64_t *d = dst; const uint64_t *s = src; for (size_t i = 0; i < n; i++) d[i] += s[i]; break; }
    }
}

tamm_tensor *tamm_tensor_create_ex(const char *name, tamm_dtype dtype, int ndim, const size_t *dims,
                                   const size_t *tile, const tamm_tensor_opts *opts)
{
    const char *nm = name ? name : "(unnamed)";
    if (!tamm__rt.initialised) {
        char what[96];
        snprintf(what, sizeof what, "tamm_tensor_create('%.60s')", nm);
        (void)tamm__not_init(what);
        return NULL;
    }
    if (tamm__dtype_size(dtype) == 0) { tamm__error(NULL, TAMM_EINVAL, "tensor '%s': unknown data type %d", nm, (int)dtype); return NULL; }
    if (ndim < 1 || ndim > TAMM_MAX_DIMS) {
        tamm__error(NULL, TAMM_EINVAL, "tensor '%s': %d dimensions (1 to %d allowed)", nm, ndim, TAMM_MAX_DIMS);
        return NULL;
    }
    if (!dims || !tile) { tamm__error(NULL, TAMM_EINVAL, "tensor '%s': dims or tile is NULL", nm); return NULL; }
    long nblk = 1;
    for (int d = 0; d < ndim; d++) {
        if (dims[d] == 0 || tile[d] == 0) {
            tamm__error(NULL, TAMM_EINVAL, "tensor '%s': dimension %d has extent %zu and tile %zu (both must be positive)",
                        nm, d, dims[d], tile[d]);
            return NULL;
        }
        long nb = (long)((dims[d] + tile[d] - 1) / tile[d]);
        if (nblk > (1L << 40) / nb) { tamm__error(NULL, TAMM_EINVAL, "tensor '%s': too many blocks", nm); return NULL; }
        nblk *= nb;
    }
    if (opts && (opts->dist < TAMM_DIST_BLOCK_CYCLIC || opts->dist > TAMM_DIST_LOCAL)) {
        tamm__error(NULL, TAMM_EINVAL, "tensor '%s': unknown distribution %d", nm, (int)opts->dist);
        return NULL;
    }
    if (opts && opts->dist == TAMM_DIST_LOCAL && (opts->owner < 0 || opts->owner >= tamm__rt.nranks)) {
        tamm__error(NULL, TAMM_EINVAL, "tensor '%s': owner rank %d does not exist (%d ranks)", nm, opts->owner, tamm__rt.nranks);
        return NULL;
    }
    tamm_tensor *T = tamm__xcalloc(1, sizeof *T);
    snprintf(T->name, sizeof T->name, "%s", nm);
    T->dtype = dtype;
    T->esize = tamm__dtype_size(dtype);
    T->ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        T->dims[d] = dims[d];
        T->tile[d] = tile[d];
        T->nblocks[d] = (long)((dims[d] + tile[d] - 1) / tile[d]);
    }
    T->nblk = nblk;
    if (opts) T->opts = *opts;
    T->blocks = tamm__xcalloc_lines((size_t)nblk * sizeof *T->blocks);
    T->chains = tamm__xcalloc_lines((size_t)nblk * sizeof *T->chains);
    for (long b = 0; b < nblk; b++) {
        tamm__chain_init(&T->chains[b]);
        T->blocks[b].units[0].state = TAMM_BS_UNALLOC;
        T->blocks[b].bytes = tamm__block_elems_lin(T, b) * T->esize;
    }
    tamm__chain_init(&T->coarse);
    atomic_init(&T->destroyed, 0);
    /* the layers' state: owners (and flow state with several ranks), device copies */
    for (int h = 0; h < nhooks; h++) {
        if (hooks[h]->created(T) == TAMM_OK) continue;
        while (h-- > 0) hooks[h]->destroyed(T);
        free(T->blocks);
        free(T->chains);
        free(T);
        return NULL;
    }
    if (tamm__ml_on) tamm__ml_tensor_init(T);
    T->nosole = T->dist != NULL || T->ml != NULL;
    /* integer sums are exact in any order: only floating-point tensors need the order */
    T->ordered = (tamm__rt.cfg.reproducible || (opts && opts->reproducible)) && (dtype == TAMM_F32 || dtype == TAMM_F64);
    if (TAMM_UNLIKELY(tamm__submit_divert)) tamm__scope_created(T);
    pthread_mutex_lock(&tamm__rt.tensors_lock);
    T->next_live = tamm__rt.tensors;
    if (tamm__rt.tensors) tamm__rt.tensors->prev_live = T;
    tamm__rt.tensors = T;
    pthread_mutex_unlock(&tamm__rt.tensors_lock);
    return T;
}

tamm_tensor *tamm_tensor_create(const char *name, tamm_dtype dtype, int ndim, const size_t *dims, const size_t *tile)
{
    return tamm_tensor_create_ex(name, dtype, ndim, dims, tile, NULL);
}

/* Everything a tensor owns but its record (the struct the program's handle
 * points to): unlinked from the live list, its blocks and their memory freed. */
static void release_storage(tamm_tensor *T)
{
    pthread_mutex_lock(&tamm__rt.tensors_lock);
    if (T->prev_live) T->prev_live->next_live = T->next_live;
    else tamm__rt.tensors = T->next_live;
    if (T->next_live) T->next_live->prev_live = T->prev_live;
    T->next_live = T->prev_live = NULL;
    pthread_mutex_unlock(&tamm__rt.tensors_lock);
    tamm__dag_tensor_done(T);
    for (int h = 0; h < nhooks; h++) hooks[h]->destroyed(T);
    tamm__ml_tensor_free(T); /* its homes too, under a memory limit */
    for (long b = 0; b < T->nblk; b++) if (T->blocks[b].home) tamm__home_free(T->blocks[b].home, T->blocks[b].bytes);
    if (T->undo)
        for (long b = 0; b < T->nblk; b++) free(T->undo[b]);
    free(T->undo);
    free(T->blocks);
    free(T->chains);
    T->undo = NULL;
    T->blocks = NULL;
    T->chains = NULL;
    T->gpu = NULL;
    T->dist = NULL;
    T->nblk = 0;
}

/* Destroyed tensors' records (tombstones).  When a deferred tamm_tensor_destroy
 * completes, the blocks are freed but the record stays, marked destroyed, until
 * tamm_finalize: a later call with the handle (a second destroy, a task naming
 * the tensor, tamm_block) reads valid memory and reports "tensor 'A' was
 * destroyed" instead of reading freed memory.  The record is a few hundred
 * bytes; past TOMB_MAX of them the oldest is freed (its handle is then
 * undefined again).  Linked through next_live, under tensors_lock. */
#define TOMB_MAX 65536
static tamm_tensor *tomb_head, *tomb_tail;
static long ntomb;

void tamm__tensor_free(tamm_tensor *T)
{
    release_storage(T);
    tamm_tensor *old = NULL;
    pthread_mutex_lock(&tamm__rt.tensors_lock);
    if (tomb_tail) tomb_tail->next_live = T;
    else tomb_head = T;
    tomb_tail = T;
    if (++ntomb > TOMB_MAX) {
        old = tomb_head;
        tomb_head = old->next_live;
        ntomb--;
    }
    pthread_mutex_unlock(&tamm__rt.tensors_lock);
    free(old);
}

void tamm__tensor_free_all(void)
{
    while (tamm__rt.tensors) {
        tamm_tensor *T = tamm__rt.tensors;
        release_storage(T);
        free(T);
    }
    pthread_mutex_lock(&tamm__rt.tensors_lock);
    tamm_tensor *t = tomb_head;
    tomb_head = tomb_tail = NULL;
    ntomb = 0;
    pthread_mutex_unlock(&tamm__rt.tensors_lock);
    while (t) {
        tamm_tensor *n = t->next_live;
        free(t);
        t = n;
    }
}

int tamm__tensor_gone(const tamm_tensor *T, const char *what)
{
    if (!atomic_load_explicit(&((tamm_tensor *)T)->destroyed, memory_order_acquire)) return TAMM_OK;
    return tamm__error(NULL, TAMM_EINVAL, "%s: tensor '%s' was destroyed", what, T->name);
}

static void destroy_body(tamm_ctx *ctx, void *args) { (void)ctx; (void)args; }

int tamm_tensor_destroy(tamm_tensor *T)
{
    if (!tamm__rt.initialised) return TAMM_ESTATE;
    if (!T) return tamm__error(NULL, TAMM_EINVAL, "tamm_tensor_destroy(NULL)");
    /* inside a streaming scope the tasks before it are still kept: marked when they are submitted */
    int kept = TAMM_UNLIKELY(tamm__submit_divert) && tamm__scope_keeping();
    if (kept ? tamm__scope_destroying(T) : atomic_exchange(&T->destroyed, 1))
        return tamm__error(NULL, TAMM_EINVAL, "tensor '%s' destroyed twice", T->name);
    /* a task with write permission on the whole tensor runs after every task
     * that uses it; when it completes the tensor is freed */
    tamm_ref r;
    memset(&r, 0, sizeof r);
    r.tensor = T;
    r.nidx = 0;
    r.mode = TAMM_WRITE | TAMM_PERMISSION_ONLY;
    tamm_task t;
    memset(&t, 0, sizeof t);
    t.cpu = destroy_body;
    t.refs = &r;
    t.nrefs = 1;
    t.label = "tamm_tensor_destroy";
    t.rank = -1;
    return tamm__submit(NULL, &t, NULL, TAMM_TF_DESTROY, NULL);
}

const char *tamm_tensor_name(const tamm_tensor *T) { return T ? T->name : NULL; }
int tamm_tensor_ndim(const tamm_tensor *T) { return T ? T->ndim : 0; }
tamm_dtype tamm_tensor_dtype(const tamm_tensor *T) { return T ? T->dtype : TAMM_F64; }
size_t tamm_tensor_dim(const tamm_tensor *T, int d) { return T && d >= 0 && d < T->ndim ? T->dims[d] : 0; }
long tamm_tensor_nblocks(const tamm_tensor *T, int d) { return T && d >= 0 && d < T->ndim ? T->nblocks[d] : 0; }
size_t tamm_block_extent(const tamm_tensor *T, int d, long b)
{
    if (!T || d < 0 || d >= T->ndim || b < 0 || b >= T->nblocks[d]) return 0;
    return extent(T, d, b);
}
size_t tamm_block_elems(const tamm_tensor *T, const long *idx)
{
    long lin = T && idx ? tamm__block_lin(T, idx, T->ndim) : -1;
    return lin < 0 ? 0 : tamm__block_elems_lin(T, lin);
}
int tamm_block_owner(const tamm_tensor *T, const long *idx)
{
    long lin = T && idx ? tamm__block_lin(T, idx, T->ndim) : -1;
    if (lin < 0 || atomic_load_explicit(&((tamm_tensor *)T)->destroyed, memory_order_acquire)) return -1;
    return T->opts.dist == TAMM_DIST_REPLICATED ? tamm__rt.rank : T->blocks[lin].owner;
}
size_t tamm_block_bytes(const tamm_tensor *T, const long *idx)
{
    return T ? tamm_block_elems(T, idx) * T->esize : 0;
}
