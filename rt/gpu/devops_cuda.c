/*
 * devops_cuda.c — the device interface (memunit.h) over the CUDA runtime.
 *
 * libtammrt does not link libcudart: tamm_init loads it (and cuBLAS, for the
 * handles CUDA variants may use) with dlopen, so programs link the runtime
 * exactly as on a machine without CUDA, and a machine without a driver or a
 * GPU simply has no device.  Names are resolved through the header's macros
 * (cuBLAS's _v2 entry points, per-thread default stream variants), so the
 * library of the toolkit the runtime was built against is what gets called.
 * cuSOLVER is loaded the first time a CUDA variant may need it (its handles
 * on first use); variants reach both libraries' entry points through lib_sym
 * (tamm_cuda_lib_sym), so their programs link nothing but libcudart.
 *
 * Every call checks the returned cudaError_t; a failure is kept as text
 * ("cudaMemcpyAsync: an illegal memory access was encountered") for the
 * caller's message.  Streams are non-blocking (they never synchronise with
 * the legacy default stream); events are created without timing.
 */
#include "memunit.h"
#include "hostmem.h"
#include <tamm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why there is no device, in words a user without a GPU understands (the
 * CUDA runtime's own text for a machine without a driver is "CUDA driver
 * version is insufficient for CUDA runtime version").  Outside the #ifdef so
 * that it is tested in every build (tests/rt/gpu/test_cuda_msg.c). */
void tamm__cuda_why_none(char *buf, size_t n, int code, const char *raw, int runtime_version, int driver_found)
{
    int maj = runtime_version / 1000, min = runtime_version % 1000 / 10;
    switch (code) {
    case TAMM_CUDA_ERR_INSUFFICIENT_DRIVER:
        if (!driver_found)
            snprintf(buf, n, "no CUDA driver found: libcuda.so.1, the NVIDIA driver, is not installed; "
                             "no GPU can be used, tasks run on the CPUs");
        else
            snprintf(buf, n, "the NVIDIA driver is older than the CUDA runtime %d.%d libtammrt was built with "
                             "(update the driver); no GPU can be used, tasks run on the CPUs", maj, min);
        break;
    case TAMM_CUDA_ERR_NO_DEVICE:
        snprintf(buf, n, "no CUDA device found: the NVIDIA driver sees no GPU; tasks run on the CPUs");
        break;
    default:
        snprintf(buf, n, "CUDA cannot be used (cudaGetDeviceCount: %s, error %d); no GPU can be used, tasks run "
                         "on the CPUs", raw && *raw ? raw : "unknown error", code);
        break;
    }
}

#ifdef TAMM_HAVE_CUDA
#include <cuda_runtime_api.h>
_Static_assert(cudaErrorInsufficientDriver == TAMM_CUDA_ERR_INSUFFICIENT_DRIVER &&
               cudaErrorNoDevice == TAMM_CUDA_ERR_NO_DEVICE, "the CUDA error codes tamm__cuda_why_none names");
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <dlfcn.h>
#include <pthread.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* the entry points used, as typed pointers resolved at load time */
#define CUDART_FNS(X) \
    X(cudaGetDeviceCount) X(cudaSetDevice) X(cudaMemGetInfo) X(cudaGetDeviceProperties) X(cudaGetErrorString) \
    X(cudaMallocAsync) X(cudaFreeAsync) X(cudaHostAlloc) X(cudaFreeHost) X(cudaStreamCreateWithFlags) \
    X(cudaStreamDestroy) X(cudaEventCreateWithFlags) X(cudaEventDestroy) X(cudaMemcpyAsync) X(cudaMemsetAsync) \
    X(cudaEventRecord) X(cudaStreamWaitEvent) X(cudaEventQuery) X(cudaStreamSynchronize) \
    X(cudaDeviceGetDefaultMemPool) X(cudaMemPoolSetAttribute) X(cudaGetLastError) X(cudaHostRegister) \
    X(cudaHostUnregister)
#define CUBLAS_FNS(X) X(cublasCreate) X(cublasSetStream) X(cublasDestroy)
#define CUSOLVER_FNS(X) X(cusolverDnCreate) X(cusolverDnSetStream) X(cusolverDnDestroy)

#define DECL(f) static __typeof__(f) *p_##f;
CUDART_FNS(DECL)
CUBLAS_FNS(DECL)
CUSOLVER_FNS(DECL)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;            /* 1: libcudart resolved */
static int blas_loaded;
static char load_err[256];
static _Thread_local char err[1024];

static void *open_lib(const char *base, int major)
{
    char p[512];
    void *h = NULL;
    /* tests only: the stand-in CUDA runtime and cuBLAS over the emulated device (tests/rt/gpu/cudart_emu) */
    const char *test_dir = getenv("TAMM_CUDA_TEST_LIBDIR");
    if (test_dir && *test_dir) {
        snprintf(p, sizeof p, "%s/%s.so.%d", test_dir, base, major);
        return dlopen(p, RTLD_NOW | RTLD_GLOBAL);
    }
#ifdef TAMM_CUDA_LIBDIR
    snprintf(p, sizeof p, "%s/%s.so.%d", TAMM_CUDA_LIBDIR, base, major);
    h = dlopen(p, RTLD_NOW | RTLD_GLOBAL);
#endif
    if (!h) { snprintf(p, sizeof p, "%s.so.%d", base, major); h = dlopen(p, RTLD_NOW | RTLD_GLOBAL); }
    if (!h) { snprintf(p, sizeof p, "%s.so", base); h = dlopen(p, RTLD_NOW | RTLD_GLOBAL); }
    return h;
}

static void load(void)
{
    void *h = open_lib("libcudart", CUDART_VERSION / 1000);
    if (!h) {
        snprintf(load_err, sizeof load_err, "no CUDA runtime found (cannot load libcudart.so.%d: %s); no GPU can be "
                 "used, tasks run on the CPUs", CUDART_VERSION / 1000, dlerror());
        return;
    }
#define RES(f) \
    if (!(p_##f = (__typeof__(f) *)dlsym(h, STR(f)))) { \
        snprintf(load_err, sizeof load_err, "libcudart lacks %s", STR(f)); return; }
    CUDART_FNS(RES)
    loaded = 1;
}

/* libcublas (with libcublasLt, ~100 ms of loading) only when a cuBLAS handle
 * is first made, so that tamm_init on a machine without a GPU stays cheap. */
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static void *blas_lib, *solver_lib;
static void load_blas(void)
{
    void *b = open_lib("libcublas", CUBLAS_VER_MAJOR);
    if (b) {
        int ok = 1;
#define RESB(f) if (!(p_##f = (__typeof__(f) *)dlsym(b, STR(f)))) ok = 0;
        CUBLAS_FNS(RESB)
        blas_loaded = ok;
        blas_lib = b;
    }
}

/* libcusolver (hundreds of MB) only when a task whose CUDA variant calls it is submitted */
static pthread_once_t solver_once = PTHREAD_ONCE_INIT;
static int solver_loaded;
static char solver_err[256];
static void load_solver(void)
{
    void *b = open_lib("libcusolver", CUSOLVER_VER_MAJOR);
    if (!b) {
        snprintf(solver_err, sizeof solver_err, "cannot load libcusolver.so.%d: %s", CUSOLVER_VER_MAJOR, dlerror());
        return;
    }
#define RESS(f) \
    if (!(p_##f = (__typeof__(f) *)dlsym(b, STR(f)))) { \
        snprintf(solver_err, sizeof solver_err, "libcusolver.so.%d lacks %s", CUSOLVER_VER_MAJOR, STR(f)); return; }
    CUSOLVER_FNS(RESS)
    solver_lib = b;
    solver_loaded = 1;
}

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 0;
    snprintf(err, sizeof err, "%s: %s", what, p_cudaGetErrorString(e));
    return -1;
}

static int c_count(void)
{
    pthread_once(&once, load);
    if (!loaded) { snprintf(err, sizeof err, "%s", load_err); return 0; }
    int n = 0;
    cudaError_t e = p_cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* is the driver there at all? (a machine without a GPU has none) */
        void *drv = e == cudaErrorInsufficientDriver ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) : NULL;
        tamm__cuda_why_none(err, sizeof err, (int)e, p_cudaGetErrorString(e), CUDART_VERSION,
                            e != cudaErrorInsufficientDriver || drv != NULL);
        if (drv) dlclose(drv);
        p_cudaGetLastError(); /* not sticky: clear it */
        return 0;
    }
    if (n == 0) tamm__cuda_why_none(err, sizeof err, TAMM_CUDA_ERR_NO_DEVICE, NULL, CUDART_VERSION, 1);
    return n;
}

static int c_bind(int dev) { return check(p_cudaSetDevice(dev), "cudaSetDevice"); }

static int c_info(int dev, tamm__devinfo *di)
{
    if (c_bind(dev)) return -1;
    struct cudaDeviceProp prop;
    if (check(p_cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties")) return -1;
    snprintf(di->name, sizeof di->name, "%.*s", (int)sizeof di->name - 1, prop.name);
    if (check(p_cudaMemGetInfo(&di->free, &di->total), "cudaMemGetInfo")) return -1;
    /* keep freed memory in the stream-ordered pool instead of returning it at each synchronisation */
    cudaMemPool_t pool;
    if (check(p_cudaDeviceGetDefaultMemPool(&pool, dev), "cudaDeviceGetDefaultMemPool")) return -1;
    unsigned long long thr = ~0ull;
    return check(p_cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr), "cudaMemPoolSetAttribute");
}

/* An allocation failure is not sticky and the runtime recovers from it (eviction, pageable memory):
 * clear the thread's last error, or the next kernel launch check of a variant would see it. */
static int alloc_check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 0;
    check(e, what);
    if (e == cudaErrorMemoryAllocation) p_cudaGetLastError();
    return -1;
}
static int c_alloc(void **p, size_t n, void *s) { return alloc_check(p_cudaMallocAsync(p, n ? n : 1, (cudaStream_t)s), "cudaMallocAsync"); }
static int c_free(void *p, void *s) { return p ? check(p_cudaFreeAsync(p, (cudaStream_t)s), "cudaFreeAsync") : 0; }
/* Large pinned buffers (homes, staging): a 2 MiB-aligned mapping advised to use huge pages
 * (hostmem.h), registered with cudaHostRegister: the driver pins 2 MiB pages instead of the
 * 4 KiB pages of cudaHostAlloc (measured on an H200 host: 16 MiB in 4.1 ms, first touch
 * included, against 7.8 ms).  The registered ranges are remembered, to be unregistered and
 * unmapped; where registering fails, cudaHostAlloc is tried. */
typedef struct hreg { struct hreg *next; void *p; size_t n; } hreg;
static hreg *hregs;
static pthread_mutex_t hreg_lock = PTHREAD_MUTEX_INITIALIZER;

static int c_host_alloc(void **p, size_t n)
{
    if (n >= TAMM_HOSTMEM_LARGE) {
        void *m = tamm__hostmem_alloc(n, 1);
        if (p_cudaHostRegister(m, n, cudaHostRegisterPortable) == cudaSuccess) {
            hreg *r = tamm__xmalloc(sizeof *r);
            r->p = m;
            r->n = n;
            pthread_mutex_lock(&hreg_lock);
            r->next = hregs;
            hregs = r;
            pthread_mutex_unlock(&hreg_lock);
            *p = m;
            return 0;
        }
        p_cudaGetLastError(); /* not sticky: cudaHostAlloc below */
        tamm__hostmem_free(m, n);
    }
    return alloc_check(p_cudaHostAlloc(p, n ? n : 1, cudaHostAllocPortable), "cudaHostAlloc");
}

static void c_host_free(void *p)
{
    if (!p) return;
    hreg *r = NULL;
    pthread_mutex_lock(&hreg_lock);
    for (hreg **q = &hregs; *q; q = &(*q)->next)
        if ((*q)->p == p) {
            r = *q;
            *q = r->next;
            break;
        }
    pthread_mutex_unlock(&hreg_lock);
    if (!r) {
        check(p_cudaFreeHost(p), "cudaFreeHost");
        return;
    }
    check(p_cudaHostUnregister(p), "cudaHostUnregister");
    tamm__hostmem_free(p, r->n);
    free(r);
}
static int c_stream_create(void **s) { return check(p_cudaStreamCreateWithFlags((cudaStream_t *)s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
static void c_stream_destroy(void *s) { if (s) check(p_cudaStreamDestroy((cudaStream_t)s), "cudaStreamDestroy"); }
static int c_event_create(void **e) { return check(p_cudaEventCreateWithFlags((cudaEvent_t *)e, cudaEventDisableTiming), "cudaEventCreateWithFlags"); }
static void c_event_destroy(void *e) { if (e) check(p_cudaEventDestroy((cudaEvent_t)e), "cudaEventDestroy"); }
static int c_h2d(void *d, const void *s, size_t n, void *st) { return n ? check(p_cudaMemcpyAsync(d, s, n, cudaMemcpyHostToDevice, (cudaStream_t)st), "cudaMemcpyAsync (host to device)") : 0; }
static int c_d2h(void *d, const void *s, size_t n, void *st) { return n ? check(p_cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToHost, (cudaStream_t)st), "cudaMemcpyAsync (device to host)") : 0; }
static int c_d2d(void *d, const void *s, size_t n, void *st) { return n ? check(p_cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToDevice, (cudaStream_t)st), "cudaMemcpyAsync (device to device)") : 0; }
static int c_zero(void *d, size_t n, void *st) { return n ? check(p_cudaMemsetAsync(d, 0, n, (cudaStream_t)st), "cudaMemsetAsync") : 0; }
static int c_record(void *e, void *s) { return check(p_cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s), "cudaEventRecord"); }
static int c_wait(void *s, void *e) { return check(p_cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0), "cudaStreamWaitEvent"); }
static int c_query(void *e)
{
    cudaError_t r = p_cudaEventQuery((cudaEvent_t)e);
    if (r == cudaSuccess) return 1;
    if (r == cudaErrorNotReady) return 0;
    return check(r, "cudaEventQuery");
}
static int c_sync(void *s) { return check(p_cudaStreamSynchronize((cudaStream_t)s), "cudaStreamSynchronize"); }

static int c_blas_create(void **h, void *s)
{
    *h = NULL;
    pthread_once(&blas_once, load_blas);
    if (!blas_loaded) { snprintf(err, sizeof err, "libcublas.so.%d could not be loaded", CUBLAS_VER_MAJOR); return -1; }
    cublasHandle_t b;
    cublasStatus_t st = p_cublasCreate(&b);
    if (st != CUBLAS_STATUS_SUCCESS) { snprintf(err, sizeof err, "cublasCreate: status %d", (int)st); return -1; }
    st = p_cublasSetStream(b, (cudaStream_t)s);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, sizeof err, "cublasSetStream: status %d", (int)st);
        p_cublasDestroy(b);
        return -1;
    }
    *h = b;
    return 0;
}
static void c_blas_destroy(void *h) { if (h && blas_loaded) p_cublasDestroy((cublasHandle_t)h); }
static const char *c_error(void) { return err; }

static int c_lib_open(unsigned lib)
{
    if (lib == TAMM_CUBLAS) {
        pthread_once(&blas_once, load_blas);
        if (!blas_loaded) snprintf(err, sizeof err, "libcublas.so.%d could not be loaded", CUBLAS_VER_MAJOR);
        return blas_loaded ? 0 : -1;
    }
    if (lib == TAMM_CUSOLVER) {
        pthread_once(&solver_once, load_solver);
        if (!solver_loaded) snprintf(err, sizeof err, "%s", solver_err);
        return solver_loaded ? 0 : -1;
    }
    snprintf(err, sizeof err, "no library %u", lib);
    return -1;
}

static void *c_lib_sym(unsigned lib, const char *name)
{
    void *h = lib == TAMM_CUBLAS && blas_loaded ? blas_lib : lib == TAMM_CUSOLVER && solver_loaded ? solver_lib : NULL;
    return h ? dlsym(h, name) : NULL;
}

static int c_solver_create(void **h, void *s)
{
    *h = NULL;
    if (c_lib_open(TAMM_CUSOLVER)) return -1;
    cusolverDnHandle_t d;
    cusolverStatus_t st = p_cusolverDnCreate(&d);
    if (st != CUSOLVER_STATUS_SUCCESS) { snprintf(err, sizeof err, "cusolverDnCreate: status %d", (int)st); return -1; }
    st = p_cusolverDnSetStream(d, (cudaStream_t)s);
    if (st != CUSOLVER_STATUS_SUCCESS) {
        snprintf(err, sizeof err, "cusolverDnSetStream: status %d", (int)st);
        p_cusolverDnDestroy(d);
        return -1;
    }
    *h = d;
    return 0;
}
static void c_solver_destroy(void *h) { if (h && solver_loaded) p_cusolverDnDestroy((cusolverDnHandle_t)h); }

const tamm__devops tamm__devops_cuda = {
    "cuda", c_count, c_info, c_bind, c_alloc, c_free, c_host_alloc, c_host_free, c_stream_create, c_stream_destroy,
    c_event_create, c_event_destroy, c_h2d, c_d2h, c_d2d, c_zero, c_record, c_wait, c_query, c_sync, c_blas_create,
    c_blas_destroy, c_error, c_lib_open, c_lib_sym, c_solver_create, c_solver_destroy,
};

#else /* built without the CUDA toolkit: there is never a device */

static int n_count(void) { return 0; }
static const char *n_error(void) { return "libtammrt was built without CUDA (TAMM_WITH_CUDA=OFF): tasks run on the CPUs"; }
static int n_lib_open(unsigned lib) { (void)lib; return -1; }
static void *n_lib_sym(unsigned lib, const char *name) { (void)lib; (void)name; return NULL; }
const tamm__devops tamm__devops_cuda = { .kind = "cuda", .count = n_count, .error = n_error, .lib_open = n_lib_open,
                                        .lib_sym = n_lib_sym };

#endif
