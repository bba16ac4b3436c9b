/* check.c — TAMM_CHECK_ACCESS: fingerprints of read buffers, canaries in write buffers (see check.h). */
#include "check.h"
#include "buffer.h"
#include "dag.h"
#include "dep_fsm.h"
#include "error.h"
#include "runtime.h"
#include "task.h"
#include "tensor.h"
#include <stdio.h>
#include <string.h>

int tamm__check_on;

uint64_t tamm__check_hash(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    for (; i < n; i++) h = (h ^ s[i]) * 0x100000001B3ull; /* FNV-1a step for the tail */
    h ^= h >> 29;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 32);
}

/* The newest record of ctx before r that held r's block for write or
 * readwrite in the block's memory and was given back, or NULL: the task wrote
 * the block already, and its memory holds what it wrote. */
static tamm__bufrec *earlier_write(tamm_ctx *ctx, const tamm__bufrec *r)
{
    for (int i = ctx->n - 1; i >= 0; i--) {
        tamm__bufrec *e = &ctx->recs[i];
        if (e != r && e->T == r->T && e->lin == r->lin && (e->flags & TAMM_BR_RELEASED) &&
            (e->kind == TAMM_BK_WRITE || e->kind == TAMM_BK_RW))
            return e;
    }
    return NULL;
}

/* A task that uses a block while a nested task it submitted, which writes the block (or reads
 * it, when the task modifies it), has not completed: the plain build ran the nested task at
 * once, so the use sees what the nested task has not yet done (a missing taskwait). */
static void check_children(tamm_ctx *ctx, const tamm__bufrec *r)
{
    tamm__domain *d = ctx->task ? ctx->task->children : NULL;
    if (!d || r->kind == TAMM_BK_TMP || r->kind == TAMM_BK_SCRATCH) return;
    int o = tamm__dag_outstanding(d, r->T, r->lin);
    int acc = r->kind == TAMM_BK_ACC_INPLACE || r->kind == TAMM_BK_ACC_PRIVATE;
    if (o == TAMM_DS_UNACCESSED || (o == TAMM_DS_READ && r->kind == TAMM_BK_READ) || (o == TAMM_DS_ACC && acc)) return;
    char bn[128];
    tamm__block_name(r->T, r->lin, bn, sizeof bn);
    tamm__error(ctx->task, TAMM_EACCESS,
                "uses block %s (tensor '%s') for %s while a nested task it submitted, which %s it, has not completed: "
                "the plain build runs a nested task at once, so a taskwait is missing between that submission and "
                "this use",
                bn, r->T->name, tamm__buf_kind_name(r->kind),
                o == TAMM_DS_READ ? "reads" : o == TAMM_DS_ACC ? "accumulates into" : "writes");
}

void tamm__check_acquire(tamm_ctx *ctx, tamm__bufrec *r)
{
    if (!r->ptr || !r->T) return;
    check_children(ctx, r);
    if (r->kind == TAMM_BK_READ) {
        r->fp = tamm__check_hash(r->ptr, r->bytes);
    } else if (r->kind == TAMM_BK_WRITE || r->kind == TAMM_BK_CWRITE) {
        /* a write buffer in the block's memory after an earlier write of the task: one write in
         * several buffers (tammcc's code around nested submissions); the canary would destroy
         * what the task wrote, and the elements no buffer wrote still hold it */
        tamm__bufrec *e = r->kind == TAMM_BK_WRITE ? earlier_write(ctx, r) : NULL;
        if (e) e->flags &= (unsigned char)~TAMM_BR_PENDING; /* this buffer's commit counts again */
        else memset(r->ptr, TAMM_CHECK_CANARY, r->bytes);
    } else {
        return;
    }
    r->flags |= TAMM_BR_CHECKED;
}

void tamm__check_cc(tamm_ctx *ctx, const void *buf)
{
    tamm__bufrec *r = ctx && ctx->n ? &ctx->recs[ctx->n - 1] : NULL;
    if (r && buf && r->ptr == buf && r->kind == TAMM_BK_WRITE && (r->flags & TAMM_BR_CHECKED))
        r->flags |= TAMM_BR_CC;
}

/* Whether element e (esize bytes) is all canary bytes. */
static int is_canary(const unsigned char *e, size_t esize)
{
    for (size_t k = 0; k < esize; k++)
        if (e[k] != TAMM_CHECK_CANARY) return 0;
    return 1;
}

/* "(i,j)": the row-major coordinates inside block lin of T of its element number off. */
static void elem_coords(const tamm_tensor *T, long lin, size_t off, char *buf, size_t n)
{
    long bidx[TAMM_MAX_DIMS], c[TAMM_MAX_DIMS];
    tamm__block_idx(T, lin, bidx);
    for (int d = T->ndim - 1; d >= 0; d--) {
        size_t ext = tamm_block_extent(T, d, bidx[d]);
        if (!ext) ext = 1;
        c[d] = (long)(off % ext);
        off /= ext;
    }
    size_t o = 0;
    o += (size_t)snprintf(buf + o, n - o, "(");
    for (int d = 0; d < T->ndim && o < n; d++)
        o += (size_t)snprintf(buf + o, n - o, "%s%ld", d ? "," : "", c[d]);
    if (o < n) snprintf(buf + o, n - o, ")");
}

/* The hint every report ends with: where the mode came from. */
static const char *mode_hint(void)
{
    return "if tammcc inferred this mode, its inference is wrong for this body (see tammcc --explain); "
           "if the program declared it, that declaration is wrong for this body (correct the clause, or the mode "
           "the program passed to the runtime)";
}

/* The report of write buffer r that left `left` of its elements unwritten, the first number `first`. */
static int report_unwritten(tamm_ctx *ctx, const tamm__bufrec *r, size_t left, size_t first)
{
    char at[160], bn[128];
    size_t es = r->T->esize ? r->T->esize : 1;
    elem_coords(r->T, r->lin, first, at, sizeof at);
    tamm__block_name(r->T, r->lin, bn, sizeof bn);
    return tamm__error(ctx->task, TAMM_EACCESS,
                       "did not write all of block %s (tensor '%s') that it holds for write (inferred/declared mode: "
                       "%s): %zu of its %zu elements were left unwritten, the first at element %s; %s",
                       bn, r->T->name, tamm__buf_kind_name(r->kind), left, r->bytes / es, at, mode_hint());
}

/* A pending record keeps its count and first unwritten element in fp (unused by write
 * buffers): 32 bits each, saturated (a block of 2^32 elements or more reports at most that). */
static uint64_t pending_pack(size_t left, size_t first)
{
    uint64_t l = left > 0xFFFFFFFFu ? 0xFFFFFFFFu : left, f = first > 0xFFFFFFFFu ? 0xFFFFFFFFu : first;
    return l << 32 | f;
}

int tamm__check_pending(tamm_ctx *ctx, tamm__bufrec *r)
{
    r->flags &= (unsigned char)~TAMM_BR_PENDING;
    return report_unwritten(ctx, r, (size_t)(r->fp >> 32), (size_t)(r->fp & 0xFFFFFFFFu));
}

int tamm__check_release(tamm_ctx *ctx, tamm__bufrec *r, int commit)
{
    if (ctx->unit || !(r->flags & TAMM_BR_CHECKED) || !r->ptr || !r->T) return TAMM_OK;
    char bn[128];
    if (r->kind == TAMM_BK_READ) {
        if (TAMM_LIKELY(tamm__check_hash(r->ptr, r->bytes) == r->fp)) return TAMM_OK;
        tamm__block_name(r->T, r->lin, bn, sizeof bn);
        return tamm__error(ctx->task, TAMM_EACCESS,
                           "modified block %s (tensor '%s') that it holds for read (inferred/declared mode: read): "
                           "its contents changed between the get and the release%s; %s",
                           bn, r->T->name,
                           tamm__rt.nworkers > 1 ? " (a task reading the same block at the same time may be the "
                                                   "writer instead: TAMM_NUM_WORKERS=1 names it exactly)" : "",
                           mode_hint());
    }
    if (!commit || (r->kind != TAMM_BK_WRITE && r->kind != TAMM_BK_CWRITE)) return TAMM_OK;
    size_t es = r->T->esize ? r->T->esize : 1, nel = r->bytes / es, left = 0, first = 0;
    const unsigned char *p = r->ptr;
    for (size_t i = 0; i < nel; i++)
        if (TAMM_UNLIKELY(is_canary(p + i * es, es)) && !left++) first = i;
    if (TAMM_LIKELY(!left)) return TAMM_OK;
    if ((r->flags & TAMM_BR_CC) && r->kind == TAMM_BK_WRITE) {
        /* tammcc's code: a later buffer of the block in this task may write the rest */
        r->fp = pending_pack(left, first);
        r->flags |= TAMM_BR_PENDING;
        return TAMM_OK;
    }
    return report_unwritten(ctx, r, left, first);
}
