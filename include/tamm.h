/*
 * tamm.h — the public API of libtammrt, the tamm task runtime.
 *
 * One header for users and for the code tammcc generates.  Every function
 * returns TAMM_OK (0) or a negative tamm_err unless it says otherwise.  The
 * runtime is started by tamm_init() and stopped by tamm_finalize(); between the
 * two, one thread (the "top level") submits tasks and waits for them, and the
 * runtime's workers run them.
 *
 * Sequential elision: a program using this header compiles with a plain C
 * compiler (pragmas ignored) and is then a correct sequential program:
 * tamm_block() outside a task waits for the tasks that use the block and
 * returns its memory.
 */
#ifndef TAMM_H
#define TAMM_H

#include <limits.h>
#include <stddef.h>

#if LONG_MAX < 0x7fffffffffffffff
#error "tamm needs a 64-bit long (the slice and range encodings of tamm_ref indices use its top bits)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TAMM_VERSION_MAJOR 0
#define TAMM_VERSION_MINOR 1

/** Tensors have 1 to TAMM_MAX_DIMS dimensions. */
#define TAMM_MAX_DIMS 8

/* ------------------------------------------------------------------ */
/* Annotation macros: how a function treats its pointer parameters.     */
/* Under tammcc (__TAMMCC__) they are clang annotations read by the     */
/* inference; for other compilers they expand to nothing.               */
/* ------------------------------------------------------------------ */
#ifdef __TAMMCC__
#define TAMM_READS        __attribute__((annotate("tamm_reads")))
#define TAMM_WRITES       __attribute__((annotate("tamm_writes")))
#define TAMM_UPDATES      __attribute__((annotate("tamm_updates")))
#define TAMM_ACCUMULATES  __attribute__((annotate("tamm_accumulates")))
#define TAMM_CUDA_VARIANT(f) __attribute__((annotate("tamm_cuda_variant:" #f)))
#else
#define TAMM_READS
#define TAMM_WRITES
#define TAMM_UPDATES
#define TAMM_ACCUMULATES
#define TAMM_CUDA_VARIANT(f)
#endif

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */
typedef enum tamm_err {
    TAMM_OK       = 0,
    TAMM_EINVAL   = -1,  /**< invalid argument (NULL, bad dimension, bad mode...) */
    TAMM_ENOMEM   = -2,  /**< out of memory, or a task cannot fit in a memory limit */
    TAMM_ERANGE   = -3,  /**< block index out of range */
    TAMM_EPERM    = -4,  /**< access or child permission not within the task's permissions */
    TAMM_EBUF     = -5,  /**< buffer misuse: released twice, unknown buffer, wrong release kind */
    TAMM_ELEAK    = -6,  /**< a buffer obtained by a task was never released */
    TAMM_ECANCEL  = -7,  /**< cancel of a non-cancellable modifying buffer */
    TAMM_EFSM     = -8,  /**< execution-FSM precondition violated (e.g. write twice in a task) */
    TAMM_ESTATE   = -9,  /**< call in the wrong state (not initialised, top-level only, ...) */
    TAMM_EDEADLOCK = -10,/**< nothing can run and tasks wait forever (e.g. unsignalled fence) */
    TAMM_ENOTSUP  = -11, /**< not supported: by this build, this run (no GPU for a CUDA-only task, several ranks for a task that stores outside tensors), or this nesting */
    TAMM_ECOMM    = -12, /**< communication failure (MPI) */
    TAMM_EACCESS  = -13, /**< TAMM_CHECK_ACCESS: a task modified a block it holds for read, or left
                          *   part of a block it holds for write unwritten */
    TAMM_EDEVICE  = -14  /**< a task's variant reported a failure (tamm_task_error), e.g. a kernel
                          *   launch that failed */
} tamm_err;

/** A static, human-readable description of an error code. */
const char *tamm_strerror(int err);

/* ------------------------------------------------------------------ */
/* Lifecycle                                                            */
/* ------------------------------------------------------------------ */
/** Start the runtime (reads TAMM_* environment variables; rejects bad values). */
int tamm_init(int *argc, char ***argv);
/** Wait for every task, write trace/DAG/stats if asked, stop workers, free everything. */
int tamm_finalize(void);
/** This process's rank (0 without MPI) and the number of ranks. */
int tamm_rank(void);
int tamm_nranks(void);
/** Number of CPU workers (including the top-level thread, which helps while it waits). */
int tamm_num_workers(void);

/* ------------------------------------------------------------------ */
/* Tensors                                                              */
/* ------------------------------------------------------------------ */
typedef struct tamm_tensor tamm_tensor;

typedef enum tamm_dtype { TAMM_F32 = 0, TAMM_F64 = 1, TAMM_I32 = 2, TAMM_I64 = 3 } tamm_dtype;

typedef enum tamm_dist {
    TAMM_DIST_BLOCK_CYCLIC = 0,  /**< blocks dealt over a process grid (default) */
    TAMM_DIST_REPLICATED   = 1,  /**< every rank holds a copy of every block (any rank may modify it) */
    TAMM_DIST_LOCAL        = 2   /**< every block lives on rank `owner` */
} tamm_dist;

/** Computes the contents of an on-demand block: `buf` has the block's shape. */
typedef void (*tamm_generator)(const tamm_tensor *T, const long *idx, void *buf, void *arg);

typedef struct tamm_tensor_opts {
    tamm_dist dist;
    int grid[TAMM_MAX_DIMS];   /**< process grid for block-cyclic; all 0 = automatic */
    int owner;                 /**< rank for TAMM_DIST_LOCAL */
    tamm_generator gen;        /**< non-NULL: blocks are computed on first use */
    void *gen_arg;
    int reproducible;          /**< non-zero: floating-point accumulations into this tensor are
                                    combined in submission order, bit for bit those of the plain
                                    build (as TAMM_REPRODUCIBLE=1 does for every tensor) */
} tamm_tensor_opts;

/** A tensor of `ndim` dimensions `dims`, cut into blocks of `tile` elements
 *  per dimension (edge blocks may be smaller).  Contents start at zero.
 *  Returns NULL (and reports why) on bad arguments. */
tamm_tensor *tamm_tensor_create(const char *name, tamm_dtype dtype, int ndim,
                                const size_t *dims, const size_t *tile);
tamm_tensor *tamm_tensor_create_ex(const char *name, tamm_dtype dtype, int ndim,
                                   const size_t *dims, const size_t *tile,
                                   const tamm_tensor_opts *opts);
/** Destroy once no task submitted before this call uses T (deferred, non-blocking). */
int tamm_tensor_destroy(tamm_tensor *T);
const char *tamm_tensor_name(const tamm_tensor *T);
int tamm_tensor_ndim(const tamm_tensor *T);
tamm_dtype tamm_tensor_dtype(const tamm_tensor *T);
size_t tamm_tensor_dim(const tamm_tensor *T, int dim);
long tamm_tensor_nblocks(const tamm_tensor *T, int dim);
/** Elements of block `b` along `dim` (the last block may be smaller). */
size_t tamm_block_extent(const tamm_tensor *T, int dim, long b);
/** Elements and bytes of the block at `idx`. */
size_t tamm_block_elems(const tamm_tensor *T, const long *idx);
size_t tamm_block_bytes(const tamm_tensor *T, const long *idx);
/** The rank that owns (is the home of) block idx: a task writing it first runs
 *  there.  For a replicated tensor, the calling rank (every rank holds it).
 *  -1 for a bad tensor or index.  Collective leaves use it to find their blocks. */
int tamm_block_owner(const tamm_tensor *T, const long *idx);
/** Whole-tensor copies between the tensor and a plain row-major array (top
 *  level).  With several ranks every rank calls them: gather gives every rank
 *  the whole tensor; scatter takes each block from the owner's array. */
int tamm_tensor_gather(tamm_tensor *T, void *dst);
int tamm_tensor_scatter(tamm_tensor *T, const void *src);

/* ------------------------------------------------------------------ */
/* Blocks (the sequential-elision interface)                            */
/* ------------------------------------------------------------------ */
/** Outside a task: wait for every task using the block, return its memory.
 *  Inside a task: the block's buffer in the mode the task's permission allows
 *  (fetched synchronously; released when the task ends).  NULL on error. */
void *tamm_block_at(tamm_tensor *T, const long *idx, int n);
/** A private uninitialised buffer shaped like the block. */
void *tamm_temp_at(tamm_tensor *T, const long *idx, int n);
/** Commit a temp or cancellable buffer by overwrite / by accumulation, or drop it.
 *  Inside a task, tamm_block of a block the task may cancel (clauses cwrite,
 *  creadwrite, caccum; TAMM_CANCELLABLE refs) is a private copy: tamm_cancel
 *  drops it, tamm_put (or the end of the task) commits it.  At top level, on
 *  memory returned by tamm_block: tamm_put / tamm_add end its use; tamm_cancel
 *  puts back what the block held when tamm_block returned it in a plain build
 *  (the sequential elision: no code translated by tammcc), and is TAMM_ECANCEL
 *  in a program holding translated code (docs/runtime.md, "Cancellation"). */
int tamm_put(void *buf);
int tamm_add(void *buf);
int tamm_cancel(void *buf);

#define TAMM__IDX(...)  ((const long[]){__VA_ARGS__})
#define TAMM__NIDX(...) ((int)(sizeof((long[]){__VA_ARGS__}) / sizeof(long)))
#define tamm_block(T, ...) tamm_block_at((T), TAMM__IDX(__VA_ARGS__), TAMM__NIDX(__VA_ARGS__))
#define tamm_temp(T, ...)  tamm_temp_at((T), TAMM__IDX(__VA_ARGS__), TAMM__NIDX(__VA_ARGS__))

/* ------------------------------------------------------------------ */
/* Explicit tasks (docs/api.md, "Explicit tasks")                     */
/* ------------------------------------------------------------------ */
typedef struct tamm_ctx tamm_ctx;

enum { TAMM_READ = 1, TAMM_WRITE = 2, TAMM_READWRITE = 3, TAMM_ACCUM = 4,   /* modes */
       TAMM_TEMP = 8, TAMM_CANCELLABLE = 16, TAMM_PERMISSION_ONLY = 32 };   /* flags */
/* Index values of a tamm_ref.  An index is one of
 *   - a block number b, 0 <= b < tamm_tensor_nblocks(T, d);
 *   - TAMM_ALL: every block of the dimension (a ':' in a slice `T[i][:]`);
 *   - TAMM_RANGE(lo, hi): blocks lo, lo+1, ..., hi-1 of the dimension (`T[lo:hi][j]`),
 *     valid when 0 <= lo < hi <= tamm_tensor_nblocks(T, d).
 * Both encodings are values no index arithmetic produces: TAMM_ALL is LONG_MIN,
 * and a range lies in [TAMM__RANGE_BASE, TAMM__RANGE_BASE + 2^60), below -2^61.
 * Every other negative index (e.g. I-1 with I == 0) is an out-of-range error
 * (TAMM_ERANGE), never a slice.  A range's lo and hi are stored in 30-bit
 * fields holding -2^29 .. 2^29-1: a bound above TAMM_RANGE_MAX (2^29-2) is
 * stored as 2^29-1 and a bound below -2^29 as -2^29, and both are reported as
 * out of range (a dimension with more blocks than TAMM_RANGE_MAX can still be
 * named with TAMM_ALL or block by block, but not with a range reaching past it). */
#define TAMM_ALL LONG_MIN                  /**< a ':' index in a slice: the whole dimension */
#define TAMM_RANGE_MAX ((1L << 29) - 2)    /**< the largest lo or hi a range can hold (536870910) */
#define TAMM__RANGE_BASE (LONG_MIN / 2)    /* -2^62: the tag of an encoded range */
#define TAMM__RANGE_BIAS (1L << 29)        /* a field stores value + bias, 30 bits */
/** The index value of the block range [lo, hi) (each argument evaluated once).
 *  TAMM_RANGE(0, n) of a dimension with n blocks names the same blocks as TAMM_ALL. */
#define TAMM_RANGE(lo, hi) tamm_range((long)(lo), (long)(hi))
static inline long tamm_range(long lo, long hi)
{
    const long b = TAMM__RANGE_BIAS;
    lo = lo < -b ? -b : lo > b - 1 ? b - 1 : lo;
    hi = hi < -b ? -b : hi > b - 1 ? b - 1 : hi;
    return TAMM__RANGE_BASE + ((lo + b) << 30) + (hi + b);
}

/** A block (every idx a block number, nidx == ndim), a slice or range (some idx
 *  TAMM_ALL or TAMM_RANGE(lo, hi): every block it covers), or the whole tensor (nidx == 0). */
typedef struct { tamm_tensor *tensor; int nidx; long idx[TAMM_MAX_DIMS]; unsigned mode; } tamm_ref;
typedef void (*tamm_fn)(tamm_ctx *ctx, void *args);
typedef struct {
    tamm_fn cpu, cuda;               /* variants; either may be NULL, not both */
    const void *args; size_t args_size;   /* copied at submission */
    const tamm_ref *refs; int nrefs;      /* accesses; PERMISSION_ONLY refs widen permissions */
    const char *label; int priority; int rank;   /* rank -1: owner computes */
    const char *file; int line;           /* source location for errors and traces */
                                          /* label and file are kept by pointer until tamm_finalize (errors
                                             name them): string literals, or strings that live as long */
    const char *const *ref_text;          /* optional: ref_text[i] is the source text of refs[i] ("A[i-1][j]"),
                                             named by errors about it (tammcc sets it) */
} tamm_task;

/** Submit a task.  ctx is NULL at top level, or the running task's context
 *  for a nested task (whose permissions must lie within the parent's). */
int tamm_submit(tamm_ctx *ctx, const tamm_task *t);

typedef struct tamm_fence tamm_fence;

/** Options beyond tamm_task (what the pragma clauses wait/signal/if/device/collective give). */
typedef struct tamm_task_opts {
    tamm_fence *const *wait;  int nwait;    /**< start only after these fences are signalled */
    tamm_fence *const *signal; int nsignal; /**< signal these fences when the task completes */
    int undeferred;    /**< if(0): the submitter waits until the task has completed */
    int collective;    /**< one leaf per rank, all at once (docs/runtime.md, "Several MPI ranks") */
    const char *cuda_withheld; /**< tammcc sets it: the task has a CUDA variant, left out (cuda NULL) because
                                    a check of its kernel failed at submission, and why (TAMM_STATS counts
                                    it, TAMM_TRACE shows it) */
    const char *outside_store; /**< tammcc sets it: the body stores outside tensors (a global, memory through
                                    a pointer that is no block), e.g. "the global 'total' at f.c:27"; with
                                    several ranks that store would be made on one rank only, so the
                                    submission fails with TAMM_ENOTSUP naming the task and the store */
} tamm_task_opts;
int tamm_submit_ex(tamm_ctx *ctx, const tamm_task *t, const tamm_task_opts *opts);
/** Submit a continuation of the running task (what tammcc makes of a taskwait
 *  inside a task body): like a nested task submitted through ctx (its
 *  permissions must lie within the task's), and it also starts only after
 *  every task submitted through ctx before it has completed.  The task of ctx
 *  counts as complete only when the continuation has.  ctx must be a running
 *  task's context (TAMM_ESTATE otherwise); opts may be NULL. */
int tamm_submit_continuation(tamm_ctx *ctx, const tamm_task *t, const tamm_task_opts *opts);

/* Buffers inside a running task (docs/runtime.md, "Buffers inside a task").
 * idx has one entry per dimension of T.  On error they report it and, under
 * TAMM_ON_ERROR=return, give a private scratch buffer so the task cannot crash. */
void *tamm_get_buf_read(tamm_ctx *ctx, tamm_tensor *T, const long *idx);
void *tamm_get_buf_write(tamm_ctx *ctx, tamm_tensor *T, const long *idx);
void *tamm_get_buf_readwrite(tamm_ctx *ctx, tamm_tensor *T, const long *idx);
void *tamm_get_buf_accum(tamm_ctx *ctx, tamm_tensor *T, const long *idx);
void *tamm_get_buf_tmp(tamm_ctx *ctx, tamm_tensor *T, const long *idx);
void *tamm_get_buf_cwrite(tamm_ctx *ctx, tamm_tensor *T, const long *idx);
void *tamm_get_buf_creadwrite(tamm_ctx *ctx, tamm_tensor *T, const long *idx);
/** Commit by overwrite, commit by accumulation, or drop (cancellable / read / temp only). */
int tamm_release_put(tamm_ctx *ctx, void *buf);
int tamm_release_add(tamm_ctx *ctx, void *buf);
int tamm_release_cancel(tamm_ctx *ctx, void *buf);
/** Whether buf is a buffer the context's task holds (obtained and not yet released). */
int tamm_buf_held(tamm_ctx *ctx, const void *buf);

/** A task's variant (a CUDA variant whose kernel launch failed, say) reports that it failed:
 *  the runtime reports err with msg for the running task (its label and source line), then
 *  exits with status 1 or, under TAMM_ON_ERROR=return, records err for the next wait (the task
 *  still completes, its buffers as they are).  Returns err, or TAMM_ESTATE without a task. */
int tamm_task_error(tamm_ctx *ctx, int err, const char *msg);

/** The context of the task running on the calling thread, or NULL. */
tamm_ctx *tamm_current_ctx(void);
/** The label of the context's task. */
const char *tamm_ctx_label(const tamm_ctx *ctx);
/** CUDA stream (a cudaStream_t) of the task running on this thread; NULL on CPU.
 *  A CUDA variant issues all its device work on this stream. */
void *tamm_cuda_stream(void);
/** A cuBLAS handle (a cublasHandle_t) bound to tamm_cuda_stream(), for CUDA
 *  variants that call cuBLAS; NULL on CPU or when cuBLAS is not available. */
void *tamm_cublas_handle(void);
/** A cuSOLVER dense handle (a cusolverDnHandle_t) bound to tamm_cuda_stream(), made on
 *  first use on each stream; NULL on CPU or when cuSOLVER is not available. */
void *tamm_cusolver_handle(void);
/** The CUDA libraries the runtime loads with dlopen, for CUDA variants to call through it. */
enum { TAMM_CUBLAS = 1, TAMM_CUSOLVER = 2 };
/** Whether the runtime has GPUs and every one of them can serve the libraries of `libs`
 *  (TAMM_CUBLAS | TAMM_CUSOLVER): 0 before tamm_init, without GPUs, or when a library
 *  cannot be loaded (the first call for TAMM_CUSOLVER loads libcusolver).  tammcc's
 *  submissions give a task whose CUDA variant calls them no CUDA variant where it is 0. */
int tamm_cuda_libs(unsigned libs);
/** The entry point `name` ("cublasDgemm_v2", "cusolverDnDpotrf") of the library `lib`
 *  (TAMM_CUBLAS or TAMM_CUSOLVER) as the runtime loaded it, or NULL: a CUDA variant calls
 *  cuBLAS and cuSOLVER through these, so its program links no more than libcudart. */
void *tamm_cuda_lib_sym(unsigned lib, const char *name);
/** Device memory (bytes, aligned as cudaMallocAsync aligns) for the running CUDA variant's work on
 *  tamm_cuda_stream(): a workspace, a status word.  Counted within TAMM_CUDA_MEMORY_LIMIT
 *  like the task's buffers; freed in stream order when the task ends.  NULL on CPU, or when
 *  the GPU has no room (the task's error, TAMM_ENOMEM, says so). */
void *tamm_cuda_scratch(size_t bytes);
/** On an emulated GPU (TAMM_CUDA_EMU=n, tests): enqueue fn(copy of the size
 *  bytes at arg) on stream (tamm_cuda_stream()), to run in stream order on the
 *  stream's thread, as a kernel launch would; what host-compiled kernels and
 *  tests use instead of <<<...>>>.  TAMM_OK, or TAMM_ENOTSUP when the devices
 *  are not emulated, TAMM_EDEVICE for an injected launch failure (nothing runs),
 *  TAMM_EINVAL for a bad stream.  fn is device code: the live allocations of the stream's
 *  GPU that aligned words of the argument bytes point into are what it may touch while it
 *  runs; any other device memory is an illegal memory access (a fault that ends the process). */
int tamm_emu_launch(void *stream, void (*fn)(void *), const void *arg, size_t size);
/** A kernel compiled for the host (include/tamm_cuda_emu.h) launched on an emulated GPU. */
typedef struct tamm_emu_kernel {
    void (*fn)(void *);            /* fn(arg) runs once, in the order of the stream ... */
    void *arg;
    void (*drop)(void *);          /* ... or, when the GPU fails before, drop(arg) (may be NULL) */
    const void *const *ptrs;       /* the kernel's pointer arguments (NULL ones are skipped): each */
    int nptrs;                     /* must be device memory of the stream's GPU (or pinned host memory) */
    const char *name;              /* the kernel, where it is launched and the launching task's */
    const char *file;              /* label (NULL: none), for errors */
    int line;
    const char *task;
    char *why;                     /* out (nwhy bytes): why the launch was refused */
    size_t nwhy;
    int code;                      /* out: the CUDA error of a refused launch */
} tamm_emu_kernel;
/** tamm_emu_launch for a host-compiled kernel: TAMM_OK, TAMM_ENOTSUP when the devices are not
 *  emulated by libtammrt, TAMM_EDEVICE when the launch is refused (an illegal memory access: a
 *  pointer argument to host memory, to another GPU's memory or to freed memory; an injected
 *  failure; a GPU that failed): nothing runs, k->why and k->code say why. */
int tamm_emu_launch_kernel(void *stream, tamm_emu_kernel *k);
/** What the calling thread runs on an emulated GPU (NULL: host code), and the same for a
 *  thread that runs part of a kernel (include/tamm_cuda_emu.h), for the emulator's fault reports. */
void *tamm_emu_thread_mark(void);
void tamm_emu_set_thread_mark(void *mark);
/** GPUs the runtime uses (0: none found, TAMM_NUM_GPUS=0, or built without CUDA). */
int tamm_num_gpus(void);
/** The communicator (an MPI_Comm, as a pointer to it) inside a collective task; NULL otherwise. */
void *tamm_comm(tamm_ctx *ctx);

/* ------------------------------------------------------------------ */
/* Waiting and ordering (top level)                                     */
/* ------------------------------------------------------------------ */
/** Wait for every task submitted so far; returns the first error recorded
 *  under TAMM_ON_ERROR=return (and clears it), else TAMM_OK. */
int tamm_wait_all(void);
/** Wait only for the tasks submitted so far that use the given blocks/slices/
 *  ranges/tensors: every one of them, readers included, whatever the refs' modes. */
int tamm_wait_on(const tamm_ref *refs, int nrefs);
/** Execution fence (`#pragma tamm fence`): everything submitted before it
 *  completes, on every rank, before anything submitted after it starts on any
 *  rank.  Blocking: it returns once every rank's tasks submitted before it have
 *  completed (the calling thread runs tasks meanwhile), with the first error
 *  recorded under TAMM_ON_ERROR=return, like tamm_wait_all.  A collective call:
 *  every rank calls it at the same point of its submissions.  Top level only. */
int tamm_barrier(void);
/** The same execution fence without blocking: it returns at once, and every
 *  top-level task submitted after it (on any rank) starts only after every task
 *  submitted before it has completed on every rank.  No task waits for a
 *  message per task: the ranks agree once per fence (an MPI_Ibarrier that the
 *  progress thread runs).  A collective call like tamm_barrier; top level
 *  only (TAMM_ESTATE otherwise).  Errors of tasks wait for the next wait. */
int tamm_fence_submit(void);

/** Fences: a fence is signalled when every task naming it in `signal` has
 *  completed; tasks naming it in `wait` start only after that. */
tamm_fence *tamm_fence_create(void);
/** Wait, at top level, until f is signalled (TAMM_EDEADLOCK if no submitted
 *  task signals it).  Inside a task it is refused with TAMM_ESTATE: a task never
 *  blocks its worker (give the task a wait(f) clause instead). */
int tamm_fence_wait(tamm_fence *f);
int tamm_fence_destroy(tamm_fence *f);

/* ------------------------------------------------------------------ */
/* Streaming scope (#pragma tamm streaming)                             */
/* ------------------------------------------------------------------ */
int tamm_streaming_begin(void);
int tamm_streaming_end(void);

#ifdef __cplusplus
}
#endif
#endif /* TAMM_H */
