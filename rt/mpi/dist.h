/*
 * dist.h — data distribution: which rank owns (is the home of) each block.
 *
 * TAMM_DIST_BLOCK_CYCLIC (default): blocks are dealt over a process grid, one
 * grid dimension per tensor dimension: block idx lives on grid coordinate
 * (idx[d] mod grid[d])_d, numbered row-major, modulo the number of ranks (a
 * grid larger than the run folds onto it).  The automatic grid is P for 1-D
 * tensors and pr x pc (pr the largest divisor of P not above sqrt(P)) over the
 * first two dimensions otherwise.  TAMM_DIST_LOCAL: every block on rank
 * `owner`.  TAMM_DIST_REPLICATED: every rank holds a copy of every block (the
 * nominal owner, rank 0, only decides where read-only tasks run); a task on
 * one rank that modifies a block makes the other copies stale until they are
 * next used (mpi_flow.c).
 *
 * With several ranks each tensor also carries the per-block state of the
 * sequential task flow (mpi_flow.c), kept identical on every rank because
 * every rank derives it from the same task stream: the ranks holding the
 * current version, whether the block was ever modified, and the ranks with a
 * contribution in its open accumulation run.
 */
#ifndef TAMM_DIST_H
#define TAMM_DIST_H

#include "layer.h"
#include "tensor.h"
#include <stdint.h>

enum { TAMM_DS_WRITTEN = 1, /* modified since creation: a copy must come from the owner */
       TAMM_DS_RUN = 2      /* an accumulation run is open (contributions not yet summed at the owner) */ };

/* A copy of a block on a rank other than its owner, in that rank's cache
 * (TAMM_MEMORY_LIMIT): every rank keeps every rank's list (mpi_flow.c). */
typedef struct tamm__centry {
    struct tamm__centry *prev, *next; /* in the rank's least-recently-used list (NULL: no copy) */
    struct tamm_tensor *T;
    long lin;
    uint64_t pin;                    /* the operation that needs it now cannot lose it */
} tamm__centry;

typedef struct tamm__dist_tensor {
    int id;               /* creation number in this session: the same on every rank */
    int replicated;
    int words;            /* 64-bit words per rank set */
    int grid[TAMM_MAX_DIMS];
    uint64_t *holders;    /* [nblk][words]: ranks whose copy is the current version */
    uint64_t *contrib;    /* [nblk][words]: ranks with a contribution in the open run */
    unsigned char *st;    /* [nblk]: TAMM_DS_* */
    int *src;             /* [nblk], replicated tensors only: the rank whose copy is the reference (always a
                           * holder): the last single-rank writer, or the root of the open accumulation run.
                           * It sends the block to a rank that needs it and sums the run's contributions. */
    tamm__centry *ce;      /* [nblk][ranks] with a memory limit, else NULL */
} tamm__dist_tensor;

/** Set the owner of every block of T (and, with several ranks, its flow
 *  state).  Returns TAMM_OK or reports a bad distribution (TAMM_EINVAL). */
int tamm__dist_tensor_init(tamm_tensor *T);
void tamm__dist_tensor_free(tamm_tensor *T);
/** The two above as the core's per-tensor hooks (layer.h), added first at tamm_init. */
extern const tamm__tensor_hooks tamm__dist_hooks;

static inline uint64_t *tamm__dist_set(uint64_t *base, const tamm__dist_tensor *D, long lin)
{
    return base + (size_t)lin * (size_t)D->words;
}
static inline int tamm__rs_has(const uint64_t *s, int r) { return (int)((s[r >> 6] >> (r & 63)) & 1u); }
static inline void tamm__rs_add(uint64_t *s, int r) { s[r >> 6] |= 1ull << (r & 63); }
static inline void tamm__rs_del(uint64_t *s, int r) { s[r >> 6] &= ~(1ull << (r & 63)); }
static inline void tamm__rs_clear(uint64_t *s, int words)
{
    for (int i = 0; i < words; i++) s[i] = 0;
}

#endif
