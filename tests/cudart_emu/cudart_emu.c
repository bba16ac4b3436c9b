/*
 * cudart_emu.c — a stand-in CUDA runtime for tests: libcudart.so.<major>
 * exporting the entry points rt/devops_cuda.c loads (and cudaLaunchHostFunc,
 * which test variants use instead of kernels), implemented over the emulated
 * device of rt/devops_emu.c (compiled in here: one emulator).  With
 * TAMM_CUDA_TEST_LIBDIR pointing at its directory, tamm_init loads it instead
 * of the real libcudart, so devops_cuda.c, the cuBLAS handle binding and the
 * CUDA error paths run in ctest on machines without a GPU.
 *
 * Error semantics follow CUDA: every call returns its cudaError_t and sets
 * the calling thread's last error; cudaGetLastError returns and clears it,
 * except a sticky error (an injected sticky fault), which every later call
 * returns.  TAMM_CUDA_EMU (devices, default 1), TAMM_CUDA_EMU_DELAY / _SEED /
 * _MEMORY / _FAIL / _SKIP_WAIT as for the built-in emulator.
 */
#define TAMM_EMU_STANDALONE 1
#include "../../rt/base/emu_fail.c"
#include "../../rt/gpu/devops_emu.c"
#include <cuda_runtime_api.h>

#define API __attribute__((visibility("default")))

static _Thread_local cudaError_t last_error;

static cudaError_t done(int rc, cudaError_t code)
{
    if (!rc) return cudaSuccess;
    cudaError_t e = atomic_load(&sticky) ? cudaErrorIllegalAddress : code;
    last_error = e;
    return e;
}

API const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    default: return err[0] ? err : "unknown error (emulated device)";
    }
}

API cudaError_t cudaGetLastError(void)
{
    if (atomic_load(&sticky)) return cudaErrorIllegalAddress;
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
    tamm_devinfo di;
    e_info(cur_dev, &di);
    *fr = di.free;
    *total = di.total;
    return cudaSuccess;
}

API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int dev)
{
    if (dev < 0 || dev >= e_count()) return done(fail_msg("cudaGetDeviceProperties", "invalid device ordinal"), cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    tamm_devinfo di;
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

API cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { return done(e_alloc(p, n, s), cudaErrorMemoryAllocation); }
API cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return done(e_free(p, s), cudaErrorInvalidValue); }
API cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) { (void)flags; return done(e_host_alloc(p, n), cudaErrorMemoryAllocation); }
API cudaError_t cudaFreeHost(void *p) { e_host_free(p); return cudaSuccess; }
API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) { (void)flags; return done(e_stream_create((void **)s), cudaErrorMemoryAllocation); }
API cudaError_t cudaStreamDestroy(cudaStream_t s) { e_stream_destroy(s); return cudaSuccess; }
API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) { (void)flags; return done(e_event_create((void **)e), cudaErrorMemoryAllocation); }
API cudaError_t cudaEventDestroy(cudaEvent_t e) { e_event_destroy(e); return cudaSuccess; }

API cudaError_t cudaMemcpyAsync(void *d, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t s)
{
    int rc = k == cudaMemcpyHostToDevice ? e_h2d(d, src, n, s) : k == cudaMemcpyDeviceToHost ? e_d2h(d, src, n, s)
                                                                                             : e_d2d(d, src, n, s);
    return done(rc, cudaErrorInvalidValue);
}

API cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t s)
{
    if (v) return done(fail_msg("cudaMemsetAsync", "only 0 is emulated"), cudaErrorNotSupported);
    return done(e_zero(d, n, s), cudaErrorInvalidValue);
}

API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return done(e_record(e, s), cudaErrorInvalidResourceHandle); }
API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) { (void)flags; return done(e_wait(s, e), cudaErrorInvalidResourceHandle); }

API cudaError_t cudaEventQuery(cudaEvent_t e)
{
    int q = e_query(e);
    if (q < 0) return done(-1, cudaErrorIllegalAddress);
    return q ? cudaSuccess : cudaErrorNotReady; /* not ready is not an error: the last error stays */
}

API cudaError_t cudaStreamSynchronize(cudaStream_t s) { return done(e_sync(s), cudaErrorIllegalAddress); }

API cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user)
{
    int rc = emu_launch(s, fn, user, 0, "cudaLaunchHostFunc");
    return rc == TAMM_OK ? cudaSuccess : done(-1, cudaErrorLaunchFailure);
}
