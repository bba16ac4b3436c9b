/*
 * memunit.h — GPU memory units (docs/runtime.md "GPUs", "Memory units"; each
 * GPU is a memory unit of the execution FSM, docs/runtime.md "Block states"):
 * the device interface the runtime drives, and the per-block state of each
 * GPU's memory.
 *
 * The device interface (tamm__devops) is the only place that knows CUDA: a
 * stream-ordered allocator, asynchronous copies, events, pinned host memory.
 * devops_cuda.c implements it over the CUDA runtime (loaded at tamm_init);
 * devops_emu.c emulates a CUDA device with host threads, one per stream,
 * following CUDA's ordering rules (TAMM_CUDA_EMU=n, for tests), so everything above it — the
 * execution FSM per GPU, LRU eviction with write-back, flushes, coherence with
 * the host, the CUDA worker and the device-selection policies — runs and is
 * tested on machines without a GPU.
 *
 * Coherence (docs/runtime.md, "GPUs"): the host unit is the block's home.  A
 * GPU copy is Ready only while its version equals the block's version (bumped
 * whenever the home changes); Dirty / DirtyAcc copies stay on the device
 * (lazy write-back) and are flushed before any other unit uses the block,
 * which the dispatch of each task arranges (cuda_worker.c).
 */
#ifndef TAMM_MEMUNIT_H
#define TAMM_MEMUNIT_H

#include "block_fsm.h"
#include "util.h"
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* the device interface                                                 */
/* ------------------------------------------------------------------ */
typedef struct tamm__devinfo {
    char name[128];
    size_t total, free;   /* device memory, bytes */
} tamm__devinfo;

/** Every call returns 0 on success, -1 on failure (then error() says why). */
typedef struct tamm__devops {
    const char *kind;                                   /* "cuda" or "emu" */
    int (*count)(void);                                 /* devices present (0: none) */
    int (*info)(int dev, tamm__devinfo *di);
    int (*bind)(int dev);                               /* make dev the calling thread's device */
    int (*alloc)(void **p, size_t n, void *stream);     /* stream-ordered device allocation */
    int (*free)(void *p, void *stream);                 /* stream-ordered release */
    int (*host_alloc)(void **p, size_t n);              /* pinned host memory */
    void (*host_free)(void *p);
    int (*stream_create)(void **s);
    void (*stream_destroy)(void *s);
    int (*event_create)(void **e);
    void (*event_destroy)(void *e);
    int (*h2d)(void *dst, const void *src, size_t n, void *stream);
    int (*d2h)(void *dst, const void *src, size_t n, void *stream);
    int (*d2d)(void *dst, const void *src, size_t n, void *stream);
    int (*zero)(void *dst, size_t n, void *stream);
    int (*record)(void *ev, void *stream);
    int (*wait)(void *stream, void *ev);                /* stream waits for ev (host does not) */
    int (*query)(void *ev);                             /* 1 done, 0 not yet, -1 error */
    int (*sync)(void *stream);                          /* only at shutdown */
    int (*blas_create)(void **h, void *stream);         /* a cuBLAS handle bound to stream (may fail) */
    void (*blas_destroy)(void *h);
    const char *(*error)(void);                         /* the calling thread's last failure */
    /* the libraries CUDA variants call through the runtime (lib: TAMM_CUBLAS, TAMM_CUSOLVER of tamm.h) */
    int (*lib_open)(unsigned lib);                      /* load it (once): 0 when it can be used */
    void *(*lib_sym)(unsigned lib, const char *name);   /* an entry point of a loaded library, or NULL */
    int (*solver_create)(void **h, void *stream);       /* a cuSOLVER dense handle bound to stream (may fail) */
    void (*solver_destroy)(void *h);
} tamm__devops;

extern const tamm__devops tamm__devops_cuda, tamm__devops_emu;
/** Device allocations of the emulated device not yet freed (tests). */
long tamm__emu_live_allocs(void);

/* The CUDA runtime's codes for "no driver / driver too old" and "no device"
 * (cudaErrorInsufficientDriver, cudaErrorNoDevice; checked against the
 * toolkit's header where it is built with one). */
#define TAMM_CUDA_ERR_INSUFFICIENT_DRIVER 35
#define TAMM_CUDA_ERR_NO_DEVICE 100
/** Why there is no GPU, for the user (into buf): code is cudaGetDeviceCount's
 *  error, raw the CUDA runtime's text for it, runtime_version CUDART_VERSION,
 *  driver_found whether libcuda.so.1 (the NVIDIA driver) could be loaded.
 *  Says that tasks run on the CPUs. */
void tamm__cuda_why_none(char *buf, size_t n, int code, const char *raw, int runtime_version, int driver_found);

/* ------------------------------------------------------------------ */
/* per-block state                                                      */
/* ------------------------------------------------------------------ */
struct tamm_tensor;
struct tamm__pend;

/** One block in all GPUs: which units hold data newer than the home, and
 *  the home's version (bumped whenever the home changes). */
typedef struct tamm__gblk {
    atomic_uint dirty_w;   /* bit g: GPU g holds the whole block newer than home (Dirty, or a Put in flight) */
    atomic_uint dirty_a;   /* bit g: GPU g holds a partial sum not yet in the home (DirtyAcc, or an AccAll in flight) */
    atomic_uint valid;     /* bit g: GPU g holds a current copy (a hint for the policies) */
    atomic_uint ver;
} tamm__gblk;

#define TAMM_GPU_STREAMS 8       /* task streams per GPU, at most (TAMM_CUDA_STREAMS, default 4) */

/** One block in one GPU's memory.  Guarded by the unit's lock. */
typedef struct tamm__ublk {
    unsigned char state;          /* tamm__blk_state */
    unsigned char in_lru;
    unsigned char pf;             /* brought in by a prefetch and not used yet */
    int rc;
    unsigned ver;                 /* the home version a Ready copy holds */
    void *buf;                    /* device memory, NULL when Unalloc */
    struct tamm__pend *use;        /* the in-flight record that last wrote buf (or freed, committed) ... */
    uint64_t use_seq;             /* ... while its seq still equals this */
    struct tamm__pend *rd[TAMM_GPU_STREAMS + 1]; /* per stream ([STREAMS]: copy), the last record that
                                                   only read buf since that write */
    uint64_t rd_seq[TAMM_GPU_STREAMS + 1];
    struct tamm__pend *flush;      /* the in-flight record whose completion makes the home current */
    uint64_t flush_seq;
    struct tamm__ublk *prev, *next;/* LRU list of resident unreferenced copies */
    struct tamm_tensor *T;
    long lin;
} tamm__ublk;

/** The GPU-side arrays of a tensor: blk[nblk] and, per GPU g, u[g * nblk + lin]. */
typedef struct tamm__tgpu {
    tamm__gblk *blk;
    tamm__ublk *u;
} tamm__tgpu;

/** Allocate / free a tensor's GPU-side arrays (ngpu GPUs). */
tamm__tgpu *tamm__tgpu_new(struct tamm_tensor *T, int ngpu);
/** The tensor is being freed (no task uses it): drop its device copies. */
void tamm__tgpu_free(struct tamm_tensor *T);

/* tamm__home_alloc / tamm__home_free: hostmem.h (core/hostmem.c; pinned through tamm__pinned_homes, gpu.h) */
#include "hostmem.h"

#endif
