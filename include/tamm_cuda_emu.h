/*
 * tamm_cuda_emu.h — runs the CUDA kernels tammcc generates on the host (not for users).
 *
 * A generated .cu includes <cuda_runtime.h> under nvcc and this header under a
 * host C++ compiler (tammcc with TAMMCC_NVCC=emu, or `c++ -x c++ file.cu`), so
 * the same file is verified without a GPU: __global__ functions are host
 * functions, a launch (TAMM_CUDA_LAUNCH) runs every thread of every block to
 * completion before it returns, in a shuffled order, on several host threads
 * (TAMM_CUDA_EMU_THREADS, default 4; TAMM_CUDA_EMU_SEED for the order;
 * TAMM_CUDA_EMU_FAIL_LAUNCH=k makes the k-th launch fail, for tests), so
 * that two CUDA threads storing to one element race under ThreadSanitizer and
 * give order-dependent results.  Device memory is the emulated device's
 * (TAMM_CUDA_EMU): a launch runs in the order of the task's stream, queued with
 * tamm_emu_launch_kernel on the runtime's emulated device, or with the stand-in
 * CUDA runtime's tamm_emu_cudart_launch_kernel (tests/rt/gpu/cudart_emu) when the
 * runtime drives libcudart; either checks the kernel's pointer arguments first
 * (device memory of the stream's GPU, or pinned host memory: anything else is an
 * illegal memory access, the launch's error, and the device fails), and opens
 * the allocations they point into while the kernel runs (no other).  The part of
 * cuBLAS a .cu calls is declared here (the stand-in implements it).
 *
 * Running each CUDA thread to completion is a faithful schedule only for
 * kernels whose threads never wait for each other: this header refuses, at
 * compile time, what it cannot reproduce — __syncthreads and its variants,
 * __shared__ memory, warp intrinsics and warpSize — so generated code can
 * never silently leave what it verifies.  The one way generated kernels
 * combine their threads' values, tamm_cc_block_sum (tamm_cc.h: shared memory
 * and shuffles under nvcc), is emulated here with its result: each thread
 * leaves its value with its block, and the last to arrive sums them in the
 * order of the CUDA version and goes on as the block's thread 0 would.
 * Scratch memory is the task's (tamm_cuda_scratch: the runtime's, on the
 * emulated device too).
 */
#ifndef TAMM_CUDA_EMU_H
#define TAMM_CUDA_EMU_H

#ifndef __cplusplus
#error "tamm_cuda_emu.h is C++: compile the .cu file with a C++ compiler (c++ -x c++)"
#endif
#ifdef __CUDACC__
#error "tamm_cuda_emu.h emulates CUDA on the host: under nvcc include <cuda_runtime.h> instead"
#endif

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <type_traits>
#include <unistd.h>

#include <tamm.h> /* tamm_emu_launch: a launch runs in stream order on the emulated device */

#define TAMM_CUDA_EMU 1

/* ---- what the emulation cannot reproduce: a compile error naming it */
template <class... A> void tamm_cuda_emu_cannot_run___syncthreads(A...) = delete;
template <class... A> void tamm_cuda_emu_cannot_run_warp_intrinsics(A...) = delete;
#define __syncthreads(...) tamm_cuda_emu_cannot_run___syncthreads(__VA_ARGS__)
#define __syncthreads_count(...) tamm_cuda_emu_cannot_run___syncthreads(__VA_ARGS__)
#define __syncthreads_and(...) tamm_cuda_emu_cannot_run___syncthreads(__VA_ARGS__)
#define __syncthreads_or(...) tamm_cuda_emu_cannot_run___syncthreads(__VA_ARGS__)
#define __syncwarp(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl_up_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl_down_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl_xor_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl_up(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl_down(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __shfl_xor(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __ballot_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __any_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __all_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __match_any_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __match_all_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __reduce_add_sync(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define __activemask(...) tamm_cuda_emu_cannot_run_warp_intrinsics(__VA_ARGS__)
#define warpSize tamm_cuda_emu_cannot_emulate_warpSize
#define __shared__ static_assert(false, "tamm_cuda_emu.h: __shared__ memory cannot be emulated");

/* ---- qualifiers: everything is host code */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict

/* ---- types and the runtime calls generated code uses */
struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef void *cudaStream_t;
typedef enum {
    cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorInvalidConfiguration = 9, cudaErrorIllegalAddress = 700,
    cudaErrorLaunchTimeout = 702, cudaErrorLaunchFailure = 719
} cudaError_t;

inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;
inline thread_local cudaError_t tamm_cuda_emu_last_error = cudaSuccess;
inline thread_local char tamm_cuda_emu_last_msg[200]; /* the device's account of the last failed launch (short:
                                                       * generated code prints it in a 256-byte message) */

static inline cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tamm_cuda_emu_last_error;
    tamm_cuda_emu_last_error = cudaSuccess;
    return e;
}
static inline cudaError_t cudaPeekAtLastError(void) { return tamm_cuda_emu_last_error; }
static inline const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument (emulated)";
    case cudaErrorMemoryAllocation: return "out of memory (emulated)";
    default:
        if (tamm_cuda_emu_last_msg[0]) return tamm_cuda_emu_last_msg;
        return e == cudaErrorIllegalAddress ? "an illegal memory access was encountered (emulated)"
               : e == cudaErrorLaunchTimeout ? "the launch timed out and was terminated (emulated)"
                                             : "unspecified launch failure (emulated)";
    }
}

/* ---- the part of cuBLAS (<cublas_v2.h>, whose types would clash with the ones above) that a
 * host-compiled .cu may call on tamm_cublas_handle(): declarations only, with the values and
 * entry points of the real library, so the calls go to whatever libcublas the program links
 * (the stand-in over the emulated device in tests, tests/rt/gpu/cudart_emu) */
#ifndef CUBLAS_V2_H_
#define CUBLAS_V2_H_ /* a later #include <cublas_v2.h> adds nothing */
#define CUBLAS_API_H_
typedef enum {
    CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_EXECUTION_FAILED = 13
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef struct cublasContext *cublasHandle_t;
extern "C" cublasStatus_t cublasDgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const double *, const double *, int, const double *, int, const double *,
                                         double *, int);
#define cublasDgemm cublasDgemm_v2
#endif

/* ---- atomics as compiler builtins (the return value is the old one, as in CUDA) */
template <class T> static inline T tamm_cuda_emu_cas_add(T *p, T v)
{
    T old, nw;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do {
        nw = old + v;
    } while (!__atomic_compare_exchange(p, &old, &nw, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}
static inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned atomicAdd(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline float atomicAdd(float *p, float v) { return tamm_cuda_emu_cas_add(p, v); }
static inline double atomicAdd(double *p, double v) { return tamm_cuda_emu_cas_add(p, v); }
static inline int atomicSub(int *p, int v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned atomicSub(unsigned *p, unsigned v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ---- launches counted; TAMM_CUDA_EMU_REPORT=1 prints the count at exit (tests check kernels ran) */
inline struct tamm_cuda_emu_report_t {
    unsigned long launches = 0, threads = 0, calls = 0;
    ~tamm_cuda_emu_report_t()
    {
        if (getenv("TAMM_CUDA_EMU_REPORT"))
            fprintf(stderr, "tamm_cuda_emu: %lu kernel launches, %lu CUDA threads\n", launches, threads);
    }
} tamm_cuda_emu_report;

/* ---- a launch: every (block, thread) pair once, shuffled, spread over host threads */
static inline unsigned tamm_cuda_emu_env(const char *name, unsigned dflt)
{
    const char *s = getenv(name);
    return s && *s ? (unsigned)strtoul(s, NULL, 10) : dflt;
}

/* ---- tamm_cc_block_sum: the threads of a block add their values.  Each thread leaves its value
 * in its block's slots (a round per call: every thread calls it the same number of times); the
 * last one to arrive sums the slots in the order of the CUDA version (tamm_cc.h: a tree over the
 * threads' ranks) and returns true, standing for the block's thread 0, which on a GPU is the one
 * that goes on with the sum.  What it then does may use blockIdx (the same in every thread of the
 * block), not threadIdx. */
struct tamm_cuda_emu_round {
    unsigned char *slots; /* NT values, made by the first thread to arrive */
    unsigned arrived;
};
struct tamm_cuda_emu_block {
    pthread_mutex_t mu;
    tamm_cuda_emu_round *rounds;
    unsigned nrounds;
};
struct tamm_cuda_emu_launch_state { /* one launch's blocks, made on first use */
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    uint64_t nblocks = 0;
    tamm_cuda_emu_block **blocks = nullptr;
    ~tamm_cuda_emu_launch_state()
    {
        for (uint64_t i = 0; blocks && i < nblocks; i++) {
            if (!blocks[i]) continue;
            for (unsigned r = 0; r < blocks[i]->nrounds; r++) free(blocks[i]->rounds[r].slots);
            free(blocks[i]->rounds);
            pthread_mutex_destroy(&blocks[i]->mu);
            free(blocks[i]);
        }
        free(blocks);
        pthread_mutex_destroy(&mu);
    }
};
struct tamm_cuda_emu_self_t { /* the CUDA thread a host thread is running */
    tamm_cuda_emu_launch_state *launch;
    uint64_t block;
    unsigned rank, nthreads, round;
};
inline thread_local tamm_cuda_emu_self_t tamm_cuda_emu_self;

/* the emulator's own memory: zeroed; running out of it ends the process with a message */
static inline void *tamm_cuda_emu_zalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "tamm_cuda_emu: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

template <int NT, class T> static inline bool tamm_cc_block_sum(T *v)
{
    static_assert(NT >= 64 && NT <= 1024 && (NT & (NT - 1)) == 0, "tamm_cc_block_sum: NT is a power of two, 64 to 1024");
    tamm_cuda_emu_self_t &me = tamm_cuda_emu_self;
    if (!me.launch || me.nthreads != (unsigned)NT) {
        fprintf(stderr, "tamm_cuda_emu: tamm_cc_block_sum<%d> in a block of %u threads\n", NT, me.nthreads);
        abort();
    }
    tamm_cuda_emu_launch_state *l = me.launch;
    pthread_mutex_lock(&l->mu);
    if (!l->blocks) l->blocks = (tamm_cuda_emu_block **)tamm_cuda_emu_zalloc(l->nblocks * sizeof *l->blocks);
    tamm_cuda_emu_block *b = l->blocks[me.block];
    if (!b) {
        b = l->blocks[me.block] = (tamm_cuda_emu_block *)tamm_cuda_emu_zalloc(sizeof *b);
        pthread_mutex_init(&b->mu, NULL);
    }
    pthread_mutex_unlock(&l->mu);
    pthread_mutex_lock(&b->mu);
    if (b->nrounds <= me.round) {
        tamm_cuda_emu_round *r = (tamm_cuda_emu_round *)tamm_cuda_emu_zalloc((me.round + 1) * sizeof *r);
        if (b->nrounds) memcpy(r, b->rounds, b->nrounds * sizeof *r);
        free(b->rounds);
        b->rounds = r;
        b->nrounds = me.round + 1;
    }
    tamm_cuda_emu_round &r = b->rounds[me.round++];
    if (!r.slots) r.slots = (unsigned char *)tamm_cuda_emu_zalloc(sizeof(T) * NT);
    memcpy(r.slots + sizeof(T) * me.rank, v, sizeof(T));
    bool last = ++r.arrived == (unsigned)NT;
    if (last) {
        T a[NT];
        memcpy(a, r.slots, sizeof a);
        for (unsigned s = NT / 2; s > 0; s >>= 1)
            for (unsigned t = 0; t < s; t++) a[t] += a[t + s];
        *v = a[0];
    }
    pthread_mutex_unlock(&b->mu);
    return last;
}

/* the stand-in CUDA runtime's entries for host-compiled kernels (tests/rt/gpu/cudart_emu), when it is loaded */
struct tamm_cuda_emu_cudart_t {
    int (*launch)(void *, tamm_emu_kernel *);
    void *(*mark)(void);
    void (*set_mark)(void *);
};
static inline const tamm_cuda_emu_cudart_t &tamm_cuda_emu_cudart(void)
{
    static const tamm_cuda_emu_cudart_t c = {
        (int (*)(void *, tamm_emu_kernel *))dlsym(RTLD_DEFAULT, "tamm_emu_cudart_launch_kernel"),
        (void *(*)(void))dlsym(RTLD_DEFAULT, "tamm_emu_cudart_thread_mark"),
        (void (*)(void *))dlsym(RTLD_DEFAULT, "tamm_emu_cudart_set_thread_mark"),
    };
    return c;
}

/* ---- the host threads that run a launch's CUDA threads.  They never include the caller: its frames
 * (the host variant) stay out of their stacks, and ThreadSanitizer reports about them cannot be
 * suppressed with the caller.  Each launching thread (a stream's thread of an emulated device runs
 * one launch at a time) has its own pool, made at its first launch, grown to the largest
 * TAMM_CUDA_EMU_THREADS it asks for, and kept while it lives: a launch hands a part to each of the
 * pool's first nthr threads and waits until each has run it.  Creating the threads at every launch
 * cost as much as the rest of a launch.
 * What ThreadSanitizer sees is what fresh threads gave: the caller's work before a launch happens
 * before its CUDA threads (each thread takes its part under a lock of its own, which only the
 * caller releases to it), and they happen before the caller's work after it (a thread reports its
 * part done under the pool's lock, which the caller then takes).  Nothing orders the threads of
 * one launch: a thread never takes, before its part, a lock another thread released after its own
 * part, so two CUDA threads storing to one element race under ThreadSanitizer whatever the timing.
 * The threads are detached (a fatal error's _exit while one is between two launches is no "thread
 * leak" to ThreadSanitizer); when the launching thread ends, they end, and the last one out frees
 * the pool. */
struct tamm_cuda_emu_pool {
    struct slot { /* one thread's hand-over */
        pthread_mutex_t mu;
        pthread_cond_t cv;
        void (*part)(void *, unsigned);
        void *ctx;
        unsigned long epoch; /* parts handed over */
        bool quit;
    };
    slot **slots = nullptr; /* the launching thread's only */
    unsigned nslots = 0;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* the count-down */
    pthread_cond_t done = PTHREAD_COND_INITIALIZER;
    unsigned left = 0;
    int refs = 1; /* the launching thread's, and one per thread */
    void unref()
    {
        if (__atomic_sub_fetch(&refs, 1, __ATOMIC_ACQ_REL) != 0) return;
        for (unsigned i = 0; i < nslots; i++) {
            pthread_mutex_destroy(&slots[i]->mu);
            pthread_cond_destroy(&slots[i]->cv);
            free(slots[i]);
        }
        free(slots);
        pthread_mutex_destroy(&mu);
        pthread_cond_destroy(&done);
        delete this;
    }
    struct member {
        tamm_cuda_emu_pool *pool;
        slot *s;
        unsigned w;
    };
    static void *main(void *arg)
    {
        member *m = (member *)arg;
        tamm_cuda_emu_pool *pool = m->pool;
        slot *s = m->s; /* not pool->slots[w]: the launching thread may move that array */
        unsigned w = m->w;
        free(m);
        unsigned long seen = 0;
        for (;;) {
            pthread_mutex_lock(&s->mu);
            while (!s->quit && s->epoch == seen) pthread_cond_wait(&s->cv, &s->mu);
            bool quit = s->quit;
            seen = s->epoch;
            void (*part)(void *, unsigned) = s->part;
            void *ctx = s->ctx;
            pthread_mutex_unlock(&s->mu);
            if (quit) break;
            part(ctx, w);
            pthread_mutex_lock(&pool->mu);
            if (--pool->left == 0) pthread_cond_signal(&pool->done);
            pthread_mutex_unlock(&pool->mu);
        }
        pool->unref();
        return NULL;
    }
};
struct tamm_cuda_emu_pool_owner { /* the launching thread's pool; its end ends the pool's threads */
    tamm_cuda_emu_pool *pool = nullptr;
    pid_t pid = 0; /* a fork's child has none of the pool's threads: it makes its own */
    ~tamm_cuda_emu_pool_owner()
    {
        if (!pool || pid != getpid()) return;
        for (unsigned i = 0; i < pool->nslots; i++) {
            tamm_cuda_emu_pool::slot *s = pool->slots[i];
            pthread_mutex_lock(&s->mu);
            s->quit = true;
            pthread_cond_signal(&s->cv);
            pthread_mutex_unlock(&s->mu);
        }
        pool->unref();
    }
};
/* part(ctx, w) for each w < nthr, each on a thread of the caller's pool (on the caller where no thread
 * can be created), all finished when it returns */
inline void tamm_cuda_emu_pool_run(unsigned nthr, void (*part)(void *, unsigned), void *ctx)
{
    static thread_local tamm_cuda_emu_pool_owner owner;
    if (!owner.pool || owner.pid != getpid()) { /* a fork's child leaves its parent's pool as it is */
        owner.pool = new tamm_cuda_emu_pool;
        owner.pid = getpid();
    }
    tamm_cuda_emu_pool &pool = *owner.pool;
    if (pool.nslots < nthr) {
        tamm_cuda_emu_pool::slot **v = (tamm_cuda_emu_pool::slot **)tamm_cuda_emu_zalloc(nthr * sizeof *v);
        if (pool.nslots) memcpy(v, pool.slots, pool.nslots * sizeof *v);
        free(pool.slots);
        pool.slots = v;
    }
    while (pool.nslots < nthr) {
        tamm_cuda_emu_pool::slot *s = (tamm_cuda_emu_pool::slot *)tamm_cuda_emu_zalloc(sizeof *s);
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        pool.slots[pool.nslots] = s;
        auto *m = (tamm_cuda_emu_pool::member *)tamm_cuda_emu_zalloc(sizeof(tamm_cuda_emu_pool::member));
        m->pool = &pool;
        m->s = s;
        m->w = pool.nslots;
        __atomic_add_fetch(&pool.refs, 1, __ATOMIC_RELAXED);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        int rc = pthread_create(&t, &attr, tamm_cuda_emu_pool::main, m);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            __atomic_sub_fetch(&pool.refs, 1, __ATOMIC_RELAXED);
            free(m);
            pthread_mutex_destroy(&s->mu);
            pthread_cond_destroy(&s->cv);
            free(s);
            break;
        }
        pool.nslots++;
    }
    unsigned used = nthr < pool.nslots ? nthr : pool.nslots;
    pthread_mutex_lock(&pool.mu);
    pool.left = used;
    pthread_mutex_unlock(&pool.mu);
    for (unsigned w = 0; w < used; w++) {
        tamm_cuda_emu_pool::slot *s = pool.slots[w];
        pthread_mutex_lock(&s->mu);
        s->part = part;
        s->ctx = ctx;
        s->epoch++;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    for (unsigned w = used; w < nthr; w++) part(ctx, w); /* no thread for these: run here */
    pthread_mutex_lock(&pool.mu);
    while (pool.left) pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
}

/* every (block, thread) pair of a launch once, in an order drawn from seed, on nthr host threads */
template <class K, class... A>
static void tamm_cuda_emu_run(dim3 grid, dim3 block, uint64_t seed, K kernel, A... args)
{
    uint64_t nb = (uint64_t)grid.x * grid.y * grid.z, nt = (uint64_t)block.x * block.y * block.z, n = nb * nt;
    tamm_cuda_emu_launch_state state;
    state.nblocks = nb;
    uint64_t *order = (uint64_t *)tamm_cuda_emu_zalloc(n * sizeof *order);
    for (uint64_t i = 0; i < n; i++) order[i] = i;
    for (uint64_t i = n; i > 1; i--) { /* Fisher-Yates with splitmix64 */
        uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        uint64_t j = z % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    unsigned nthr = tamm_cuda_emu_env("TAMM_CUDA_EMU_THREADS", 4);
    if (nthr < 1) nthr = 1;
    if (nthr > n) nthr = (unsigned)n;
    /* on a stream's thread of an emulated device: the CUDA threads run device code of its device too
     * (what the device's fault report says when one touches memory it was not given) */
    void *mark = tamm_emu_thread_mark();
    void (*set_mark)(void *) = mark ? tamm_emu_set_thread_mark : NULL;
    if (!mark && tamm_cuda_emu_cudart().mark && (mark = tamm_cuda_emu_cudart().mark())) set_mark = tamm_cuda_emu_cudart().set_mark;
    auto run = [&](unsigned w) {
        if (set_mark) set_mark(mark);
        gridDim = grid;
        blockDim = block;
        for (uint64_t k = w; k < n; k += nthr) {
            uint64_t b = order[k] / nt, t = order[k] % nt;
            blockIdx.x = (unsigned)(b % grid.x);
            blockIdx.y = (unsigned)(b / grid.x % grid.y);
            blockIdx.z = (unsigned)(b / grid.x / grid.y);
            threadIdx.x = (unsigned)(t % block.x);
            threadIdx.y = (unsigned)(t / block.x % block.y);
            threadIdx.z = (unsigned)(t / block.x / block.y);
            tamm_cuda_emu_self = tamm_cuda_emu_self_t{ &state, b, (unsigned)t, (unsigned)nt, 0 };
            kernel(args...);
            tamm_cuda_emu_self.launch = NULL;
        }
        if (set_mark) set_mark(NULL);
    };
    tamm_cuda_emu_pool_run(nthr, [](void *r, unsigned w) { (*(decltype(run) *)r)(w); }, &run);
    free(order);
}

/* a launch waiting in a stream's queue of an emulated device */
struct tamm_cuda_emu_job {
    virtual void run() = 0;
    virtual ~tamm_cuda_emu_job() {}
};
template <class F> struct tamm_cuda_emu_job_of : tamm_cuda_emu_job {
    F f;
    explicit tamm_cuda_emu_job_of(F g) : f(g) {}
    void run() override { f(); }
};
static void tamm_cuda_emu_job_run(void *p)
{
    tamm_cuda_emu_job *j = (tamm_cuda_emu_job *)p;
    j->run();
    delete j;
}
static void tamm_cuda_emu_job_drop(void *p) { delete (tamm_cuda_emu_job *)p; }

/* a pointer argument of a kernel, for the device's check (other arguments are not memory) */
template <class T> static inline void tamm_cuda_emu_ptr(const void **v, int &n, const T &a)
{
    if constexpr (std::is_pointer<T>::value && !std::is_function<typename std::remove_pointer<T>::type>::value)
        v[n++] = (const void *)a;
    else
        (void)a;
}

/* A launch: its configuration checked at once (as CUDA reports launch errors), the kernel run in
 * the order of stream s -- on the stream's thread of the runtime's emulated device (or of the
 * stand-in CUDA runtime's device), after the work queued before it (copies in) and before the work
 * queued after it (copies out); with no stream, on the stand-in's default stream, or at once
 * when there is no device (a kernel test on host memory).  The device checks the pointer arguments first; a launch it refuses (an illegal
 * memory access, an injected failure, a device that failed) runs nothing and is the launch's
 * error (cudaGetLastError; cudaGetErrorString says why), as with CUDA. */
template <class K, class... A>
static void tamm_cuda_emu_launch(const char *name, const char *file, int line, dim3 grid, dim3 block, cudaStream_t s,
                                 K kernel, A... args)
{
    uint64_t nb = (uint64_t)grid.x * grid.y * grid.z, nt = (uint64_t)block.x * block.y * block.z;
    if (nb == 0 || nt == 0 || nt > 1024 || grid.y > 65535 || grid.z > 65535 || block.z > 64) {
        tamm_cuda_emu_last_error = cudaErrorInvalidConfiguration;
        return;
    }
    /* a different order for each launch, reproducible from the seed */
    uint64_t seed = tamm_cuda_emu_env("TAMM_CUDA_EMU_SEED", 1) * 0x9E3779B97F4A7C15ull +
                    __atomic_load_n(&tamm_cuda_emu_report.launches, __ATOMIC_RELAXED);
    /* TAMM_CUDA_EMU_FAIL_LAUNCH=k: the k-th launch of the process fails (tests) */
    unsigned long call = __atomic_add_fetch(&tamm_cuda_emu_report.calls, 1, __ATOMIC_RELAXED);
    if (call == tamm_cuda_emu_env("TAMM_CUDA_EMU_FAIL_LAUNCH", 0)) {
        tamm_cuda_emu_last_error = cudaErrorLaunchFailure;
        tamm_cuda_emu_last_msg[0] = 0;
        return;
    }
    auto body = [=]() { tamm_cuda_emu_run(grid, block, seed, kernel, args...); };
    tamm_cuda_emu_job *job = new tamm_cuda_emu_job_of<decltype(body)>(body);
    if (s || tamm_cuda_emu_cudart().launch) { /* a stream; or the stand-in's default stream */
        const void *ptrs[sizeof...(A) + 1];
        int np = 0;
        (tamm_cuda_emu_ptr(ptrs, np, args), ...);
        tamm_emu_kernel k;
        memset(&k, 0, sizeof k);
        k.fn = tamm_cuda_emu_job_run;
        k.arg = job;
        k.drop = tamm_cuda_emu_job_drop;
        k.ptrs = ptrs;
        k.nptrs = np;
        k.name = name;
        k.file = file;
        k.line = line;
        k.task = tamm_ctx_label(tamm_current_ctx());
        k.why = tamm_cuda_emu_last_msg;
        k.nwhy = sizeof tamm_cuda_emu_last_msg;
        int rc = s ? tamm_emu_launch_kernel(s, &k) : TAMM_ENOTSUP;
        if (rc == TAMM_ENOTSUP && tamm_cuda_emu_cudart().launch) /* the stream is the stand-in CUDA runtime's */
            rc = tamm_cuda_emu_cudart().launch(s, &k) == 0 ? TAMM_OK : TAMM_EDEVICE;
        if (rc == TAMM_OK) {
            __atomic_fetch_add(&tamm_cuda_emu_report.launches, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&tamm_cuda_emu_report.threads, (unsigned long)(nb * nt), __ATOMIC_RELAXED);
            return;
        }
        if (rc != TAMM_ENOTSUP) { /* refused (nothing runs): the launch's error */
            delete job;
            tamm_cuda_emu_last_error = k.code ? (cudaError_t)k.code : cudaErrorLaunchFailure;
            return;
        }
    }
    __atomic_fetch_add(&tamm_cuda_emu_report.launches, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&tamm_cuda_emu_report.threads, (unsigned long)(nb * nt), __ATOMIC_RELAXED);
    job->run();
    delete job;
}

/* the launch tammcc emits: `kernel<<<grid, block, 0, stream>>>(args...)` under nvcc */
#define TAMM_CUDA_LAUNCH(kernel, grid, block, stream, ...) \
    tamm_cuda_emu_launch(#kernel, __FILE__, __LINE__, (grid), (block), (stream), kernel, __VA_ARGS__)

#endif
