/*
 * test_cuda_libs.c — the runtime's side of CUDA variants that call cuBLAS and
 * cuSOLVER (include/tamm.h): tamm_cuda_libs, tamm_cuda_lib_sym,
 * tamm_cusolver_handle and tamm_cuda_scratch, on the stand-in CUDA runtime,
 * cuBLAS and cuSOLVER (TAMM_CUDA_TEST_LIBDIR), each case in a child process:
 *   - no GPU (TAMM_NUM_GPUS=0, before tamm_init): no library, no entry point;
 *   - with the stand-ins: both libraries, their entry points, no unknown ones;
 *   - in a CUDA variant: one cuSOLVER handle per stream, made once; scratch
 *     memory usable on the stream (a cuBLAS call writes into it), none on a CPU;
 *   - scratch within TAMM_CUDA_MEMORY_LIMIT: more than the limit is the task's
 *     TAMM_ENOMEM; scratch of many tasks in turn is freed at each task's end;
 *   - a stand-in directory without libcusolver: cuBLAS only; cusolverDnCreate
 *     failing: the library, but no handle in the variant;
 *   - the runtime's own emulated device (no TAMM_CUDA_TEST_LIBDIR): neither.
 */
#include "harness.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <tamm.h>

typedef int (*dgemm_fn)(void *, int, int, int, int, int, const double *, const double *, int, const double *, int,
                        const double *, double *, int);
typedef int (*memcpy_fn)(void *, const void *, size_t, int, void *);
typedef int (*sync_fn)(void *);

static int cases_before_init(void *arg)
{
    (void)arg;
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUBLAS), 0);
    CHECK_NULL(tamm_cuda_lib_sym(TAMM_CUBLAS, "cublasDgemm_v2"));
    CHECK(tamm_init(NULL, NULL) == TAMM_OK);
    CHECK_EQ_INT(tamm_num_gpus(), 0); /* TAMM_NUM_GPUS=0 */
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUBLAS), 0);
    CHECK_EQ_INT(tamm_cuda_libs(0), 0);
    CHECK_NULL(tamm_cuda_lib_sym(TAMM_CUSOLVER, "cusolverDnDpotrf"));
    CHECK_NULL(tamm_cusolver_handle());
    CHECK_NULL(tamm_cuda_scratch(64));
    CHECK(tamm_finalize() == TAMM_OK);
    return 0;
}

static int cases_libs(void *arg)
{
    (void)arg;
    CHECK(tamm_init(NULL, NULL) == TAMM_OK);
    CHECK_EQ_INT(tamm_num_gpus(), 2);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUBLAS), 1);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUSOLVER), 1);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUBLAS | TAMM_CUSOLVER), 1);
    CHECK_EQ_INT(tamm_cuda_libs(4), 0); /* no such library */
    CHECK_NOTNULL(tamm_cuda_lib_sym(TAMM_CUBLAS, "cublasDgemm_v2"));
    CHECK_NOTNULL(tamm_cuda_lib_sym(TAMM_CUSOLVER, "cusolverDnDpotrf"));
    CHECK_NULL(tamm_cuda_lib_sym(TAMM_CUBLAS, "cusolverDnDpotrf")); /* cuBLAS has no cuSOLVER routine */
    CHECK_NULL(tamm_cuda_lib_sym(TAMM_CUBLAS, "no_such_entry_point"));
    CHECK_NULL(tamm_cuda_lib_sym(3, "cublasDgemm_v2"));
    CHECK_NULL(tamm_cuda_lib_sym(TAMM_CUBLAS, NULL));
    CHECK_NULL(tamm_cusolver_handle()); /* not in a CUDA variant */
    CHECK(tamm_finalize() == TAMM_OK);
    return 0;
}

/* ---- a CUDA variant: handles and scratch; a CPU variant: neither */
typedef struct { tamm_tensor *T; long i; size_t scratch; } targs;
static pthread_mutex_t hlock = PTHREAD_MUTEX_INITIALIZER; /* variants run on every GPU's worker */
static void *handles[64];
static int nhandles;

static void var_cuda(tamm_ctx *ctx, void *p)
{
    targs *a = p;
    long idx[1] = { a->i };
    double *b = tamm_get_buf_readwrite(ctx, a->T, idx);
    void *h = tamm_cusolver_handle();
    CHECK_NOTNULL(h);
    CHECK(h == tamm_cusolver_handle()); /* made once per stream */
    pthread_mutex_lock(&hlock);
    int seen = 0;
    for (int k = 0; k < nhandles; k++) seen |= handles[k] == h;
    if (!seen && nhandles < 64) handles[nhandles++] = h;
    pthread_mutex_unlock(&hlock);
    double *s = tamm_cuda_scratch(a->scratch);
    if (a->scratch > (1u << 20)) { /* more than the limit: the task's error, reported by the runtime */
        CHECK_NULL(s);
        tamm_release_put(ctx, b);
        return;
    }
    CHECK_NOTNULL(s);
    CHECK((uintptr_t)s % 16 == 0); /* as the device allocator aligns (cudaMallocAsync: 256 bytes) */
    /* the scratch is device memory on the task's stream: b := 2 * (b copied into it), by cuBLAS */
    dgemm_fn gemm = (dgemm_fn)tamm_cuda_lib_sym(TAMM_CUBLAS, "cublasDgemm_v2");
    memcpy_fn cp = (memcpy_fn)dlsym(RTLD_DEFAULT, "cudaMemcpyAsync");
    CHECK_NOTNULL(gemm);
    CHECK_NOTNULL(cp);
    if (gemm && cp) {
        const double two = 2, zero = 0;
        CHECK_EQ_INT(cp(s, b, 8 * sizeof *b, 3 /* device to device */, tamm_cuda_stream()), 0);
        /* b (1 x 8) := 2 * u (1 x 1, holding 1) * s (1 x 8): twice the copy in the scratch memory */
        static const double unit = 1;
        double *u = s + 8;
        CHECK_EQ_INT(cp(u, &unit, sizeof unit, 1 /* host to device */, tamm_cuda_stream()), 0);
        CHECK_EQ_INT(gemm(tamm_cublas_handle(), 0, 0, 1, 8, 1, &two, u, 1, s, 1, &zero, b, 1), 0);
    }
    tamm_release_put(ctx, b);
}

static void var_cpu(tamm_ctx *ctx, void *p)
{
    targs *a = p;
    long idx[1] = { a->i };
    double *b = tamm_get_buf_readwrite(ctx, a->T, idx);
    CHECK_NULL(tamm_cusolver_handle());
    CHECK_NULL(tamm_cuda_scratch(64));
    for (int e = 0; e < 8; e++) b[e] *= 2;
    tamm_release_put(ctx, b);
}

static int submit(tamm_tensor *T, long i, size_t scratch, int gpu_only)
{
    targs a = { T, i, scratch };
    tamm_ref r = { .tensor = T, .nidx = 1, .idx = { i }, .mode = TAMM_READWRITE };
    tamm_task t = { .cpu = gpu_only ? NULL : var_cpu, .cuda = var_cuda, .args = &a, .args_size = sizeof a, .refs = &r,
                    .nrefs = 1, .label = "blas", .rank = -1, .file = __FILE__, .line = __LINE__ };
    return tamm_submit(NULL, &t);
}

static int cases_variant(void *arg)
{
    (void)arg;
    CHECK(tamm_init(NULL, NULL) == TAMM_OK);
    size_t dims[1] = { 8 * 64 }, tile[1] = { 8 };
    tamm_tensor *T = tamm_tensor_create("T", TAMM_F64, 1, dims, tile);
    for (long i = 0; i < 64; i++) {
        double *b = tamm_block(T, i);
        for (int e = 0; e < 8; e++) b[e] = (double)(i * 8 + e);
    }
    /* every task on a GPU, each with 512 KiB of scratch: within the 1.5 MiB limit only when each
     * task's scratch is freed at its end */
    for (long i = 0; i < 64; i++) CHECK_EQ_INT(submit(T, i, 512 * 1024, 1), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    int bad = 0;
    for (long i = 0; i < 64; i++) {
        const double *b = tamm_block(T, i);
        for (int e = 0; e < 8; e++) bad += b[e] != 2.0 * (double)(i * 8 + e);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(nhandles >= 1 && nhandles <= 2 * 4); /* at most one per stream of the two GPUs */
    /* a CPU variant sees neither */
    CHECK_EQ_INT(submit(T, 0, 4096, 0), TAMM_OK); /* on a GPU or a CPU, whichever takes it */
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    tamm_tensor_destroy(T);
    CHECK(tamm_finalize() == TAMM_OK);
    return 0;
}

static int cases_too_big(void *arg)
{
    (void)arg;
    CHECK(tamm_init(NULL, NULL) == TAMM_OK);
    size_t dims[1] = { 8 }, tile[1] = { 8 };
    tamm_tensor *T = tamm_tensor_create("T", TAMM_F64, 1, dims, tile);
    CHECK_EQ_INT(submit(T, 0, 4u << 20, 1), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_ENOMEM);
    tamm_tensor_destroy(T);
    tamm_finalize();
    return 0;
}

static int cases_emulated_device(void *arg)
{
    (void)arg;
    CHECK(tamm_init(NULL, NULL) == TAMM_OK);
    CHECK_EQ_INT(tamm_num_gpus(), 1);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUBLAS), 0);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUSOLVER), 0);
    CHECK_NULL(tamm_cuda_lib_sym(TAMM_CUBLAS, "cublasDgemm_v2"));
    CHECK(tamm_finalize() == TAMM_OK);
    return 0;
}

static int cases_no_solver(void *arg)
{
    (void)arg;
    CHECK(tamm_init(NULL, NULL) == TAMM_OK);
    CHECK_EQ_INT(tamm_num_gpus(), 1);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUBLAS), 1);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUSOLVER), 0);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUBLAS | TAMM_CUSOLVER), 0);
    CHECK_NULL(tamm_cuda_lib_sym(TAMM_CUSOLVER, "cusolverDnDpotrf"));
    CHECK(tamm_finalize() == TAMM_OK);
    return 0;
}

static void var_nohandle(tamm_ctx *ctx, void *p)
{
    (void)ctx;
    (void)p;
    CHECK_NULL(tamm_cusolver_handle());
    CHECK_NULL(tamm_cusolver_handle()); /* asked again: still none, not made again */
    CHECK_NOTNULL(tamm_cublas_handle());
}

static int cases_create_fails(void *arg)
{
    (void)arg;
    CHECK(tamm_init(NULL, NULL) == TAMM_OK);
    CHECK_EQ_INT(tamm_cuda_libs(TAMM_CUSOLVER), 1); /* the library is there; its handles cannot be made */
    tamm_task t = { .cuda = var_nohandle, .label = "nohandle", .rank = -1, .file = __FILE__, .line = __LINE__ };
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK(tamm_finalize() == TAMM_OK);
    return 0;
}

int main(void)
{
    const char *lib = getenv("TAMM_CUDA_TEST_LIBDIR");
    if (!lib || !*lib) {
        fprintf(stderr, "test_cuda_libs: TAMM_CUDA_TEST_LIBDIR must name the stand-in libraries\n");
        return 1;
    }
    static char nosolver[512], libvar[600];
    snprintf(nosolver, sizeof nosolver, "%s/nosolver", lib);
    snprintf(libvar, sizeof libvar, "TAMM_CUDA_TEST_LIBDIR=%s", nosolver);
    const char *none[] = { "TAMM_NUM_GPUS=0", NULL };
    const char *two[] = { "TAMM_CUDA_EMU=2", NULL };
    const char *limit[] = { "TAMM_CUDA_EMU=2", "TAMM_CUDA_MEMORY_LIMIT=1536K", "TAMM_SCHED=round-robin", NULL };
    const char *big[] = { "TAMM_CUDA_EMU=1", "TAMM_CUDA_MEMORY_LIMIT=1M", "TAMM_ON_ERROR=return", NULL };
    const char *emu[] = { "TAMM_CUDA_TEST_LIBDIR", "TAMM_CUDA_EMU=1", NULL };
    const char *nosol[] = { libvar, "TAMM_CUDA_EMU=1", NULL };
    const char *fails[] = { "TAMM_CUDA_EMU=1", "TAMM_CUSOLVER_EMU_FAIL=create", NULL };
    run_test_child("no GPU: no library", cases_before_init, NULL, none, 60);
    run_test_child("the stand-in libraries and their entry points", cases_libs, NULL, two, 60);
    run_test_child("a CUDA variant: cuSOLVER handles, scratch freed at each task's end", cases_variant, NULL, limit, 120);
    run_test_child("scratch beyond TAMM_CUDA_MEMORY_LIMIT: TAMM_ENOMEM", cases_too_big, NULL, big, 60);
    run_test_child("the runtime's emulated device: neither library", cases_emulated_device, NULL, emu, 60);
    /* a directory of the stand-ins without libcusolver */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s' && ln -s '%s'/libcudart.so* '%s'/libcublas.so* '%s'/", nosolver,
             nosolver, lib, lib, nosolver);
    CHECK_EQ_INT(system(cmd), 0);
    run_test_child("no libcusolver: cuBLAS only", cases_no_solver, NULL, nosol, 60);
    run_test_child("cusolverDnCreate fails: the library, no handle", cases_create_fails, NULL, fails, 60);
    return test_summary();
}
