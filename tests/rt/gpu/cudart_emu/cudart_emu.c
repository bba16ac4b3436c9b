/*
 * cudart_emu.c — a stand-in CUDA runtime for tests: libcudart.so.<major>
 * exporting the entry points rt/gpu/devops_cuda.c loads (and cudaLaunchHostFunc,
 * which test variants use instead of kernels), implemented over the emulated
 * device of rt/gpu/devops_emu.c (compiled in here: one emulator).  With
 * TAMM_CUDA_TEST_LIBDIR pointing at its directory, tamm_init loads it instead
 * of the real libcudart, so devops_cuda.c, the cuBLAS handle binding and the
 * CUDA error paths run in ctest on machines without a GPU.
 *
 * Device memory is the emulator's (rt/gpu/emu_mem.c): the host cannot touch
 * it.  A host function (cudaLaunchHostFunc) is host code, as on a GPU; what
 * stands for a kernel is launched with the entry points of cudart_emu.h.
 *
 * The legacy default stream (stream 0, cudaStreamLegacy, cudaStreamPerThread:
 * one per device, created on first use) serves the synchronous calls:
 * cudaMalloc, cudaFree, cudaMemcpy, cudaMemset, cudaEventCreate/Synchronize/
 * ElapsedTime, cudaDeviceSynchronize.  Conservatively, cudaMalloc, cudaFree and
 * cudaMemcpy first wait for all work issued before them on every stream of the
 * device (cudaDeviceSynchronize's wait), and cudaMemcpy and cudaFree return
 * once their own work has run; cudaMemset and the rest on stream 0 are
 * asynchronous, in its order.  Only non-blocking streams can be created
 * (cudaStreamNonBlocking, what the runtime uses): the default stream's implicit
 * ordering with blocking streams is not emulated, so they are refused.
 * Event timestamps are host times taken when the stream reaches the record.
 *
 * Error semantics follow CUDA: every call returns its cudaError_t and sets
 * the calling thread's last error; cudaGetLastError returns and clears it,
 * except a sticky error (an injected sticky fault), which every later call
 * returns.  TAMM_CUDA_EMU (devices, default 1), TAMM_CUDA_EMU_DELAY / _SEED /
 * _MEMORY / _FAIL / _SKIP_WAIT as for the built-in emulator.
 */
#define TAMM_EMU_STANDALONE 1
#include "../../../../rt/base/emu_fail.c"
#include "../../../../rt/gpu/emu_mem.c"
#include "../../../../rt/gpu/devops_emu.c"
#include "cudart_emu.h"
#include <cuda_runtime_api.h>

#define API __attribute__((visibility("default")))

static _Thread_local cudaError_t last_error;

/* the streams of the stand-in (reg_mu): those created, and each device's default stream */
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static emu_stream **reg;
static size_t nreg, capreg;
static emu_stream *dflt[TAMM_MAX_GPUS];

/* the error of a failed device: an illegal address, or a kernel the watchdog stopped */
static cudaError_t sticky_code(void)
{
    return atomic_load(&sticky) == STICKY_TIMEOUT ? cudaErrorLaunchTimeout : cudaErrorIllegalAddress;
}

static cudaError_t done(int rc, cudaError_t code)
{
    if (!rc) return cudaSuccess;
    cudaError_t e = atomic_load(&sticky) ? sticky_code() : code;
    last_error = e;
    return e;
}

API const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    default: return err[0] ? err + err_at : "unknown error (emulated device)"; /* what happened, without the call */
    }
}

API cudaError_t cudaGetLastError(void)
{
    if (atomic_load(&sticky)) return sticky_code();
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

API cudaError_t cudaGetDeviceCount(int *n)
{
    *n = e_count();
    if (*n) return cudaSuccess;
    fail_msg("cudaGetDeviceCount", "no CUDA-capable device is detected");
    return done(-1, cudaErrorNoDevice);
}

API cudaError_t cudaSetDevice(int dev) { return done(e_bind(dev), cudaErrorInvalidDevice); }

API cudaError_t cudaMemGetInfo(size_t *fr, size_t *total)
{
    tamm__devinfo di;
    e_info(cur_dev, &di);
    *fr = di.free;
    *total = di.total;
    return cudaSuccess;
}

API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int dev)
{
    if (dev < 0 || dev >= e_count()) return done(fail_msg("cudaGetDeviceProperties", "invalid device ordinal"), cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    tamm__devinfo di;
    e_info(dev, &di);
    snprintf(prop->name, sizeof prop->name, "stand-in CUDA runtime, emulated GPU %d", dev);
    prop->totalGlobalMem = di.total;
    prop->major = 9;
    return cudaSuccess;
}

API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int dev)
{
    *pool = (cudaMemPool_t)(uintptr_t)(dev + 1);
    return cudaSuccess;
}

API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    (void)pool; (void)attr; (void)value;
    return cudaSuccess;
}

API cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) { (void)flags; return done(e_host_alloc(p, n), cudaErrorMemoryAllocation); }
API cudaError_t cudaFreeHost(void *p) { e_host_free(p); return cudaSuccess; }
/* registered host memory is pinned, as cudaHostAlloc's: copies from and to it stay asynchronous */
API cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags)
{
    (void)flags;
    if (!p || !n) return cudaErrorInvalidValue;
    tamm__emu_mem_pin(p, n);
    return cudaSuccess;
}
API cudaError_t cudaHostUnregister(void *p)
{
    if (!p) return cudaErrorInvalidValue;
    tamm__emu_mem_unpin(p);
    return cudaSuccess;
}
/* adds s to the streams cudaDeviceSynchronize waits for (reg_mu held) */
static int reg_add(emu_stream *s)
{
    if (nreg == capreg) {
        size_t c = capreg ? 2 * capreg : 16;
        emu_stream **r = realloc(reg, c * sizeof *r);
        if (!r) return fail_msg("cudaStreamCreateWithFlags", "out of memory (host)");
        reg = r;
        capreg = c;
    }
    reg[nreg++] = s;
    return 0;
}

/* The stream a handle names: 0, cudaStreamLegacy and cudaStreamPerThread are the current
 * device's default stream (created here on first use); NULL when it cannot be created. */
static void *strm(cudaStream_t s)
{
    if (s && s != cudaStreamLegacy && s != cudaStreamPerThread) return s;
    int dev = cur_dev;
    pthread_mutex_lock(&reg_mu);
    if (!dflt[dev]) {
        void *d;
        if (stream_new(&d, dev) == 0) {
            if (reg_add(d)) e_stream_destroy(d);
            else dflt[dev] = d;
        }
    }
    void *r = dflt[dev];
    pthread_mutex_unlock(&reg_mu);
    if (!r) fail_msg("the default stream", "cannot be created");
    return r;
}

/* blocks until every stream of device dev has run what was issued to it before the call */
static void device_wait_prior(int dev)
{
    pthread_mutex_lock(&reg_mu); /* held: a stream destroyed meanwhile waits (and drains) after us */
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->dev == dev) stream_wait_prior(reg[i]);
    pthread_mutex_unlock(&reg_mu);
}

API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    *s = NULL;
    if (!(flags & cudaStreamNonBlocking))
        return done(fail_msg("cudaStreamCreateWithFlags", "only non-blocking streams (cudaStreamNonBlocking) are emulated"),
                    cudaErrorNotSupported);
    if (e_stream_create((void **)s)) return done(-1, cudaErrorMemoryAllocation);
    pthread_mutex_lock(&reg_mu);
    int rc = reg_add((emu_stream *)*s);
    pthread_mutex_unlock(&reg_mu);
    if (rc) { e_stream_destroy(*s); *s = NULL; }
    return done(rc, cudaErrorMemoryAllocation);
}

API cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread) return done(fail_msg("cudaStreamDestroy", "invalid resource handle (a default stream)"), cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&reg_mu);
    for (size_t i = 0; i < nreg; i++)
        if (reg[i] == (emu_stream *)s) { reg[i] = reg[--nreg]; break; }
    pthread_mutex_unlock(&reg_mu);
    e_stream_destroy(s);
    return cudaSuccess;
}

API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
    if (e_event_create((void **)e)) return done(-1, cudaErrorMemoryAllocation);
    ((emu_event *)*e)->flags = flags;
    return cudaSuccess;
}
API cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, cudaEventDefault); }

API cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { return done(e_alloc(p, n, strm(s)), cudaErrorMemoryAllocation); }
API cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return done(e_free(p, strm(s)), cudaErrorInvalidValue); }
API cudaError_t cudaMallocHost(void **p, size_t n) { return done(e_host_alloc(p, n), cudaErrorMemoryAllocation); }

API cudaError_t cudaDeviceSynchronize(void)
{
    device_wait_prior(cur_dev);
    return done(atomic_load(&sticky) ? fail_msg("cudaDeviceSynchronize", "an illegal memory access was encountered (sticky)") : 0,
                cudaErrorIllegalAddress);
}

API cudaError_t cudaMalloc(void **p, size_t n)
{
    void *d = strm(0);
    if (!d) return done(-1, cudaErrorMemoryAllocation);
    device_wait_prior(cur_dev);
    return done(alloc_as(p, n, d, "cudaMalloc"), cudaErrorMemoryAllocation);
}

API cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    void *d = strm(0);
    if (!d) return done(-1, cudaErrorInvalidValue);
    device_wait_prior(cur_dev);
    int rc = free_as(p, d, "cudaFree");
    stream_wait_prior(d);
    return done(rc, cudaErrorInvalidValue);
}
API cudaError_t cudaEventDestroy(cudaEvent_t e) { e_event_destroy(e); return cudaSuccess; }

API cudaError_t cudaMemcpyAsync(void *d, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t s)
{
    void *q = strm(s);
    int rc = k == cudaMemcpyHostToDevice ? e_h2d(d, src, n, q) : k == cudaMemcpyDeviceToHost ? e_d2h(d, src, n, q)
                                                                                             : e_d2d(d, src, n, q);
    return done(rc, cudaErrorInvalidValue);
}

/* synchronous: after all earlier work of the device, on the default stream, returning when done */
API cudaError_t cudaMemcpy(void *d, const void *src, size_t n, enum cudaMemcpyKind k)
{
    void *q = strm(0);
    if (!q) return done(-1, cudaErrorInvalidValue);
    device_wait_prior(cur_dev);
    int rc = k == cudaMemcpyHostToDevice   ? copy_op(TAMM_EMU_H2D, "cudaMemcpy (host to device)", d, src, n, q)
             : k == cudaMemcpyDeviceToHost ? copy_op(TAMM_EMU_D2H, "cudaMemcpy (device to host)", d, src, n, q)
                                           : copy_op(TAMM_EMU_D2D, "cudaMemcpy (device to device)", d, src, n, q);
    if (!rc) stream_wait_prior(q);
    return done(rc, cudaErrorInvalidValue);
}

API cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t s)
{
    if (v) return done(fail_msg("cudaMemsetAsync", "only 0 is emulated"), cudaErrorNotSupported);
    return done(e_zero(d, n, strm(s)), cudaErrorInvalidValue);
}

API cudaError_t cudaMemset(void *d, int v, size_t n)
{
    if (v) return done(fail_msg("cudaMemset", "only 0 is emulated"), cudaErrorNotSupported);
    return done(zero_as(d, n, strm(0), "cudaMemset"), cudaErrorInvalidValue);
}

API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return done(e_record(e, strm(s)), cudaErrorInvalidResourceHandle); }
API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) { (void)flags; return done(e_wait(strm(s), e), cudaErrorInvalidResourceHandle); }

/* blocks until the stream has reached the most recent record of e (at once if never recorded) */
API cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    emu_event *ev = (emu_event *)e;
    if (!ev) return done(fail_msg("cudaEventSynchronize", "invalid resource handle"), cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&ev_mu);
    uint64_t gen = ev->recorded;
    while (ev->completed < gen) pthread_cond_wait(&ev_cv, &ev_mu);
    pthread_mutex_unlock(&ev_mu);
    return done(atomic_load(&sticky) ? fail_msg("cudaEventSynchronize", "an illegal memory access was encountered (sticky)") : 0,
                cudaErrorIllegalAddress);
}

/* milliseconds between the host times at which the two records ran in stream order */
API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    emu_event *a = (emu_event *)start, *b = (emu_event *)end;
    if (!a || !b || (a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming))
        return done(fail_msg("cudaEventElapsedTime", "invalid resource handle (an event without timing)"), cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&ev_mu);
    int never = !a->recorded || !b->recorded, ready = a->completed >= a->recorded && b->completed >= b->recorded;
    double t = b->t - a->t;
    pthread_mutex_unlock(&ev_mu);
    if (never) return done(fail_msg("cudaEventElapsedTime", "invalid resource handle (an event never recorded)"), cudaErrorInvalidResourceHandle);
    if (!ready) return cudaErrorNotReady; /* as cudaEventQuery: the last error stays */
    *ms = (float)(t * 1e3);
    return cudaSuccess;
}

API cudaError_t cudaEventQuery(cudaEvent_t e)
{
    int q = e_query(e);
    if (q < 0) return done(-1, cudaErrorIllegalAddress);
    return q ? cudaSuccess : cudaErrorNotReady; /* not ready is not an error: the last error stays */
}

API cudaError_t cudaStreamSynchronize(cudaStream_t s) { return done(e_sync(strm(s)), cudaErrorIllegalAddress); }

/* host code in stream order: it touches no device memory (a fault says so), as on a GPU */
API cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user)
{
    int rc = emu_hostfn(strm(s), fn, user, "cudaLaunchHostFunc");
    return rc == TAMM_OK ? cudaSuccess : done(-1, cudaErrorLaunchFailure);
}

/* ---- what stands for kernels (cudart_emu.h) ---- */
static cudaError_t launched(int rc, const tamm_emu_kernel *k)
{
    if (rc == TAMM_OK) return cudaSuccess;
    cudaError_t e = k && k->code ? (cudaError_t)k->code : atomic_load(&sticky) ? sticky_code()
                    : rc == TAMM_EINVAL ? cudaErrorInvalidResourceHandle : cudaErrorLaunchFailure;
    last_error = e;
    return e;
}

API int tamm_emu_cudart_launch(void *stream, void (*fn)(void *), const void *arg, size_t size, const char *name)
{
    return launched(emu_launch_any(strm(stream), NULL, fn, arg, size, "cudaLaunchKernel", name ? name : "a kernel", 0), NULL);
}

API int tamm_emu_cudart_library(void *stream, void (*fn)(void *), const void *arg, size_t size, const char *name)
{
    return launched(emu_launch_any(strm(stream), NULL, fn, arg, size, "cudaLaunchKernel", name ? name : "a library routine",
                                   1), NULL);
}

API int tamm_emu_cudart_launch_kernel(void *stream, tamm_emu_kernel *k)
{
    return launched(emu_launch_any(strm(stream), k, NULL, NULL, 0, "cudaLaunchKernel", "a kernel", 0), k);
}

API void *tamm_emu_cudart_thread_mark(void) { return (void *)tamm__emu_mem_marked(); }
API void tamm_emu_cudart_set_thread_mark(void *mark) { tamm__emu_mem_mark(mark); }
