/*
 * tensor.h — tensors and their blocks.
 *
 * A tensor is cut into blocks (row-major tiles, edge blocks smaller).  Every
 * block has a home (its owner rank's host memory, allocated on first use and
 * zero-filled or generated), the execution-FSM state of each memory unit, and
 * the top-level dependence chain.  The tensor also holds the top-level chain
 * for whole-tensor accesses.
 */
#ifndef TAMM_TENSOR_H
#define TAMM_TENSOR_H

#include "block_fsm.h"
#include "dag.h"
#include "util.h"
#include <tamm.h>

/** Memory units: 0 is this rank's host memory; GPUs are added after it. */
#define TAMM_MAX_UNITS 9

typedef struct tamm__unit_state {
    unsigned char state;   /* tamm__blk_state */
    unsigned char pending; /* a transfer into this unit is in flight */
    int rc;                /* reference count */
    void *buf;             /* the buffer in this unit (aliases home on the host unit) */
} tamm__unit_state;

typedef struct tamm__block_s {
    _Alignas(TAMM_CACHELINE) tamm__spin lock; /* guards home and units[] (the executors' line) */
    void *home;            /* home buffer (owner rank's host memory), NULL until allocated */
    int owner;             /* owner rank */
    size_t bytes;          /* size of the block (elements * esize), fixed at creation */
    tamm__unit_state units[1]; /* host unit; GPU units live in a side array when present */
} tamm__block_s;

struct tamm_tensor {
    char name[64];
    tamm_dtype dtype;
    size_t esize;               /* bytes per element */
    int ndim;
    size_t dims[TAMM_MAX_DIMS], tile[TAMM_MAX_DIMS];
    long nblocks[TAMM_MAX_DIMS];
    long nblk;                  /* total blocks */
    tamm__block_s *blocks;       /* one cache line each: what the executors touch */
    tamm__chain *chains;         /* top-level dependence chain of each block: what the submitter
                                 * touches, packed in an allocation of its own (tamm__xcalloc_lines:
                                 * the adjacent-line prefetcher moves lines in pairs) */
    tamm__chain coarse;          /* top-level chain for whole-tensor accesses */
    tamm_tensor_opts opts;
    struct tamm_tensor *next_live, *prev_live; /* list of live tensors */
    struct tamm__tgpu *gpu;      /* the blocks' state in GPU memories (memunit.h), NULL without GPUs */
    atomic_int destroyed;
    struct tamm__dist_tensor *dist; /* flow state with several ranks (dist.h), else NULL */
    int ordered;                /* reproducible accumulation (TAMM_REPRODUCIBLE or the tensor option) of
                                 * a floating-point tensor: its accumulations are exclusive, in
                                 * submission order, on the block itself (docs/runtime.md) */
    int nosole;                 /* dist, or a host memory limit: a top-level writer is never the block's
                                 * only possible user (buffer.c sole_user) */
    struct tamm__mblk *ml;       /* host memory limit: the blocks' backing-store state (memlimit.h), else NULL */
    void **undo;                /* plain builds: the contents each block had when top-level
                                 * tamm_block last returned it, for tamm_cancel (runtime.c,
                                 * "the sequential elision's cancellation"); NULL until needed */
};

/** Linear block number of idx (row-major), or -1 if out of range / wrong count. */
long tamm__block_lin(const tamm_tensor *T, const long *idx, int n);
/** Linear block number of an index already checked to be in range. */
static inline long tamm__block_lin_checked(const tamm_tensor *T, const long *idx)
{
    long lin = idx[0];
    for (int d = 1; d < T->ndim; d++) lin = lin * T->nblocks[d] + idx[d];
    return lin;
}
/* ---- ref indices: a block, TAMM_ALL or TAMM_RANGE(lo, hi) (tamm.h) ---- */
/** Is v an encoded range (TAMM_RANGE)?  Then its bounds are tamm__range_lo/hi. */
static inline int tamm__idx_is_range(long v)
{
    return (unsigned long)v - (unsigned long)TAMM__RANGE_BASE < (1UL << 60);
}
static inline long tamm__range_lo(long v)
{
    return (long)(((unsigned long)v - (unsigned long)TAMM__RANGE_BASE) >> 30) - TAMM__RANGE_BIAS;
}
static inline long tamm__range_hi(long v)
{
    return (long)(((unsigned long)v - (unsigned long)TAMM__RANGE_BASE) & ((1UL << 30) - 1)) - TAMM__RANGE_BIAS;
}
/** Is index v valid in dimension d of T (a block number, TAMM_ALL, or a range
 *  with 0 <= lo < hi <= nblocks and hi <= TAMM_RANGE_MAX)?  Plain block numbers
 *  are decided by one unsigned compare; the encodings take the slow path. */
int tamm__idx_valid_slow(const tamm_tensor *T, int d, long v);
static inline int tamm__idx_valid(const tamm_tensor *T, int d, long v)
{
    if ((unsigned long)v < (unsigned long)T->nblocks[d]) return 1;
    return v < 0 && tamm__idx_valid_slow(T, d, v);
}
/** The blocks [*lo, *hi) a valid index v selects in dimension d of T. */
static inline void tamm__idx_span(const tamm_tensor *T, int d, long v, long *lo, long *hi)
{
    if (v >= 0) { *lo = v; *hi = v + 1; }
    else if (v == TAMM_ALL) { *lo = 0; *hi = T->nblocks[d]; }
    else { *lo = tamm__range_lo(v); *hi = tamm__range_hi(v); }
}
/** Why index v of dimension d of T is invalid, as a phrase for a message
 *  ("index -1 of dimension 0 is outside 0..3 (...)", "range 2:1 of dimension
 *  1 is empty", ...), written to buf. */
const char *tamm__idx_problem(const tamm_tensor *T, int d, long v, char *buf, size_t n);
/** Text of an index for messages and traces: "3", ":", "1:4". */
const char *tamm__idx_text(long v, char *buf, size_t n);

/** Multi-index of a linear block number. */
void tamm__block_idx(const tamm_tensor *T, long lin, long *idx);
/** Elements of block lin. */
size_t tamm__block_elems_lin(const tamm_tensor *T, long lin);
/** Make sure the block's home exists (zero-filled, or generated).  Call with the block lock held,
 *  or as the block's sole user (buffer.c: a top-level task with write permission, TAMM_BR_SOLE). */
void *tamm__block_home(tamm_tensor *T, long lin);
/** "A[1,2]" style name of a block, for messages. */
const char *tamm__block_name(const tamm_tensor *T, long lin, char *buf, int n);
struct tamm__task_s;
/** Report (tamm__error, TAMM_ERANGE) a block index outside T, in the user's
 *  terms: "<what>block A[I-1][J] = A[-1][2] is outside the tensor 'A'
 *  (blocks 0..3 x 0..3)" where src is the source text of the reference
 *  (from tammcc), or "<what>block A[-1][2] is outside ..." (T's name) when src
 *  is NULL.  what may be "" or a prefix such as "ref 1: ".  idx has nidx ==
 *  T->ndim entries; slice: a ref, where TAMM_ALL is ':' (else a block index,
 *  where it is a number like any other).  Returns TAMM_ERANGE. */
int tamm__range_error(const struct tamm__task_s *t, const char *what, const tamm_tensor *T, const long *idx, int nidx,
                      int slice, const char *src);
/** Free a destroyed tensor's blocks now (no task may use it); its record stays,
 *  marked destroyed, until tamm__tensor_free_all. */
void tamm__tensor_free(tamm_tensor *T);
/** Free every live tensor and every destroyed tensor's record (finalize). */
void tamm__tensor_free_all(void);
/** TAMM_OK if T has not been destroyed; else reports "WHAT: tensor 'T' was
 *  destroyed" at top level and returns TAMM_EINVAL (T: a live tensor or the
 *  record a completed destroy keeps, tensor.c "tombstones"). */
int tamm__tensor_gone(const tamm_tensor *T, const char *what);
/** Copy block lin between its buffer `home` and a whole row-major array (to_arr: block -> array). */
void tamm__block_copy(tamm_tensor *T, long lin, void *home, void *arr, int to_arr);
/** Bytes per element of dtype (0: not a data type). */
size_t tamm__dtype_size(tamm_dtype dt);
/** Element-wise dst += src over n elements of dtype. */
void tamm__accumulate(tamm_dtype dt, void *dst, const void *src, size_t n);

#endif
