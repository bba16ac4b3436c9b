/*
 * emu_faults.c — CUDA variants doing what fails on a GPU, on the emulated
 * device: each run must end as it would on a GPU, with an error that names the
 * task, not compute on as host memory would let it (kernels: emu_faults_kernels.cu).
 *
 *   host_read, host_write  the variant's host code reads / writes its device buffer:
 *                the process ends (segmentation fault) saying "host code ... accessed
 *                emulated device memory at 0x... (device 0 allocation of 128 bytes ...)";
 *   kernel_host  a kernel given pageable host memory: the launch's error, "an illegal
 *                memory access was encountered: argument 2 of copy_k is host memory",
 *                for the task (exit status 1; under TAMM_ON_ERROR=return the wait
 *                returns it and the GPU takes no more work);
 *   kernel_pinned  a kernel given pinned host memory runs (unified addressing);
 *   other_gpu    a kernel on GPU 1 given GPU 0's buffer: "memory of device 0";
 *   freed        a kernel given a buffer freed with its tensor: "... which was freed";
 *   hang         a kernel that never ends: after TAMM_CUDA_EMU_KERNEL_TIMEOUT, the
 *                device error ("the launch timed out and was terminated") naming the
 *                kernel and the task, exit status 1; under TAMM_ON_ERROR=return the
 *                waits return and the program finishes;
 *   overrun      a kernel writing past its buffer: the process ends, the report
 *                names the kernel, the task and the allocation.
 * Built twice: test_emu_faults over the runtime's emulated device (TAMM_CUDA_EMU),
 * test_emu_faults_cudart (TAMM_TEST_CUDART_EMU) over the stand-in CUDA runtime
 * (tests/rt/gpu/cudart_emu, the CUDA backend), whose reports know no task of their own.
 */
#include "tamm_util.h"
#include "gpu.h"

#define TILE 16 /* 128-byte blocks */

const char *ef_copy(uint64_t *dst, const uint64_t *src, size_t n, void *stream);
const char *ef_poke(uint64_t *x, size_t at, void *stream);
const char *ef_hang(uint64_t *x, void *stream);

#ifdef TAMM_TEST_CUDART_EMU
#define STANDIN 1
#else
#define STANDIN 0
#endif

/* the GPU a stream belongs to */
static int gpu_of(void *stream)
{
    for (int g = 0; g < tamm__gpus.n; g++)
        for (int k = 0; k < tamm__gpus.g[g].nstreams; k++)
            if (tamm__gpus.g[g].stream[k] == stream) return g;
    return -1;
}

/* the launch's error is the task's, as in the variants tammcc generates */
static void check_launch(tamm_ctx *ctx, const char *e)
{
    if (!e) return;
    char m[256];
    snprintf(m, sizeof m, "kernel launch failed: %s", e);
    tamm_task_error(ctx, TAMM_EDEVICE, m);
}

enum { W_READ, W_WRITE, W_HOST, W_PINNED, W_STASH, W_OTHER, W_HANG, W_OVERRUN, W_FREED };
typedef struct { tamm_tensor *T; long b; int what; uint64_t *host; } ef_args;
static _Atomic(uint64_t *) stash;     /* a buffer of GPU 0 */
static atomic_int other_ran;          /* W_OTHER ran on GPU 1 */
static uint64_t pageable[TILE];

static void ef_gpu(tamm_ctx *ctx, void *p)
{
    ef_args *a = p;
    long i[1] = { a->b };
    uint64_t *x = tamm_get_buf_write(ctx, a->T, i);
    void *s = tamm_cuda_stream();
    if (!x) return;
    switch (a->what) {
    case W_READ: /* host code reading device memory: the process ends here */
        fprintf(stderr, "read %llu\n", (unsigned long long)((volatile uint64_t *)x)[2]);
        break;
    case W_WRITE:
        ((volatile uint64_t *)x)[3] = 7;
        fprintf(stderr, "written\n");
        break;
    case W_HOST: check_launch(ctx, ef_copy(x, pageable, TILE, s)); break;
    case W_PINNED: check_launch(ctx, ef_copy(x, a->host, TILE, s)); break;
    case W_STASH:
        if (gpu_of(s) == 0 && !atomic_load(&stash)) atomic_store(&stash, x);
        check_launch(ctx, ef_poke(x, 0, s));
        break;
    case W_OTHER:
        if (gpu_of(s) == 1) {
            atomic_store(&other_ran, 1);
            check_launch(ctx, ef_copy(x, atomic_load(&stash), TILE, s));
        } else {
            check_launch(ctx, ef_poke(x, 0, s));
        }
        break;
    case W_HANG: check_launch(ctx, ef_hang(x, s)); break;
    case W_FREED: check_launch(ctx, ef_copy(x, atomic_load(&stash), TILE, s)); break;
    default: check_launch(ctx, ef_poke(x, 2 * TILE, s)); break; /* 128 bytes past the end */
    }
    tamm_release_put(ctx, x);
}

static void submit(tamm_tensor *T, long b, int what, uint64_t *host, const char *label, int line)
{
    ef_args a = { T, b, what, host };
    tamm_ref r = tu_ref1(T, TAMM_WRITE, b);
    tamm_task t = tu_task(NULL, &a, sizeof a, &r, 1, label, "emu_faults.c", line);
    t.cuda = ef_gpu;
    CHECK_EQ_INT(tamm_submit(NULL, &t), TAMM_OK);
}

static const char *const labels[] = { "host_read", "host_write", "kernel_host", "kernel_pinned", "stash", "other_gpu",
                                      "hang", "overrun", "freed" };

/* one task doing `what` (the ones that end the process never return from it) */
static int one(void *arg)
{
    int what = *(int *)arg;
    tu_init();
    tamm_tensor *T = tu_vec("F", 4, TILE);
    submit(T, 1, what, NULL, labels[what], 100 + what);
    int rc = tamm_wait_all();
    printf("wait: %s\n", tamm_strerror(rc));
    CHECK_MSG(rc != TAMM_OK, "task '%s' succeeded", labels[what]);
    tamm_tensor_destroy(T);
    tamm_finalize();
    return 0;
}

static int pinned(void *arg)
{
    (void)arg;
    tu_init();
    tamm_tensor *T = tu_vec("P", 2, TILE);
    void *h = NULL;
    CHECK_EQ_INT(tamm__gpus.ops->host_alloc(&h, TILE * sizeof(uint64_t)), 0);
    uint64_t *host = h;
    for (int e = 0; e < TILE; e++) host[e] = (uint64_t)(e * 3);
    submit(T, 0, W_PINNED, host, "kernel_pinned", 103);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    const uint64_t *x = tamm_block(T, 0);
    CHECK(x && x[0] == 1 && x[TILE - 1] == (uint64_t)(TILE - 1) * 3 + 1);
    tamm__gpus.ops->host_free(h);
    tamm_tensor_destroy(T);
    TU_FINALIZE();
    return 0;
}

/* a buffer of GPU 0 given to a kernel on GPU 1 (round-robin: tasks alternate between them) */
static int other_gpu(void *arg)
{
    (void)arg;
    tu_init();
    CHECK_EQ_INT(tamm_num_gpus(), 2);
    tamm_tensor *T = tu_vec("G", 4, TILE);
    for (int k = 0; k < 16 && !atomic_load(&stash); k++) {
        submit(T, 0, W_STASH, NULL, "stash", 104);
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    }
    CHECK_MSG(atomic_load(&stash) != NULL, "no task ran on GPU 0");
    for (int k = 0; k < 16 && !atomic_load(&other_ran); k++) {
        submit(T, 1, W_OTHER, NULL, "other_gpu", 105);
        if (tamm_wait_all() != TAMM_OK) break;
    }
    CHECK_MSG(0, "no kernel on GPU 1 was refused GPU 0's buffer (ran on GPU 1: %d)", atomic_load(&other_ran));
    tamm_finalize();
    return 0;
}

/* a buffer freed with its tensor, given to a later kernel */
static int freed(void *arg)
{
    (void)arg;
    tu_init();
    tamm_tensor *T = tu_vec("D", 2, TILE), *U = tu_vec("U", 2, TILE);
    submit(T, 0, W_STASH, NULL, "stash", 104);
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    CHECK_MSG(atomic_load(&stash) != NULL, "the task did not run on GPU 0");
    tamm_tensor_destroy(T); /* its copies are freed by the GPU's worker (which wakes at least every 50 ms) */
    CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    for (int k = 0; k < 100; k++) { /* until the free is issued: the launch is refused, and the process ends */
        h_sleep_ms(50);
        submit(U, 0, W_FREED, NULL, "freed", 108);
        CHECK_EQ_INT(tamm_wait_all(), TAMM_OK);
    }
    CHECK_MSG(0, "the kernel given a freed buffer was not refused");
    tamm_finalize();
    return 0;
}

/* a child that must stop on the fault, saying all of says */
static void expect(const char *name, h_child_fn fn, int what, const char *const *env, int exit1, const char *const *says)
{
    h_status st;
    static char err[H_ERRBUF_SIZE];
    h_context("%s", name);
    h_sanitizer_expected = !exit1; /* a segmentation fault: the sanitizer's report follows the emulator's */
    CHECK_EQ_INT(run_child(fn, &what, env, 120, &st, err), 0);
    h_sanitizer_expected = 0;
    if (exit1) CHECK_MSG(child_exit_is(&st, 1), "%s: expected exit status 1 (exited %d, code %d, signal %d, timeout %d)",
                         name, st.exited, st.code, st.signaled ? st.sig : 0, st.timed_out);
    else CHECK_MSG(!st.timed_out && (st.signaled || (st.exited && st.code != 0)), "%s: the child did not stop", name);
    int ok = 1;
    for (int i = 0; says[i]; i++) {
        CHECK_CONTAINS(err, says[i]);
        ok &= strstr(err, says[i]) != NULL;
    }
    const char *m = strstr(err, "tamm: error:");
    if (!m) m = err;
    printf("%s: %.*s\n", name, (int)strcspn(m, "\n"), m);
    if (!ok) fprintf(stderr, "%s\n", err);
    h_context(NULL);
}

int main(void)
{
#ifdef TAMM_TEST_CUDART_EMU
    if (!getenv("TAMM_CUDA_TEST_LIBDIR")) { printf("TAMM_CUDA_TEST_LIBDIR is not set: skipped\n"); return 77; }
#endif
    const char *e1[] = { "TAMM_CUDA_EMU=1", "TAMM_NUM_WORKERS=2", NULL };
    const char *e1r[] = { "TAMM_CUDA_EMU=1", "TAMM_NUM_WORKERS=2", "TAMM_ON_ERROR=return", NULL };
    const char *e2[] = { "TAMM_CUDA_EMU=2", "TAMM_NUM_WORKERS=2", "TAMM_SCHED=round-robin", NULL };
    const char *eh[] = { "TAMM_CUDA_EMU=1", "TAMM_NUM_WORKERS=2", "TAMM_CUDA_EMU_KERNEL_TIMEOUT=1", NULL };
    const char *ehr[] = { "TAMM_CUDA_EMU=1", "TAMM_NUM_WORKERS=2", "TAMM_CUDA_EMU_KERNEL_TIMEOUT=1", "TAMM_ON_ERROR=return",
                          NULL };
    const char *host = STANDIN ? "tamm: error: host code accessed emulated device memory at 0x"
                               : "tamm: error: host code in task 'host_read' (emu_faults.c:100) accessed emulated device "
                                 "memory at 0x";
    expect("host code reads its device buffer", one, W_READ, e1, 0,
           (const char *const[]){ host, "(device 0 allocation of 128 bytes at 0x", ", offset 16): the host reaches "
                                  "device memory only through copies", NULL });
    expect("host code writes its device buffer", one, W_WRITE, e1, 0,
           (const char *const[]){ STANDIN ? host : "tamm: error: host code in task 'host_write' (emu_faults.c:101)",
                                  "(device 0 allocation of 128 bytes at 0x", ", offset 24)", NULL });
    static const char *const kh[] = { "tamm: error: task 'kernel_host' (emu_faults.c:102): kernel launch failed: an "
                                      "illegal memory access was encountered: argument 2 of copy_k is host memory at 0x",
                                      "which a kernel cannot reach (emulated) [", NULL };
    expect("a kernel given host memory", one, W_HOST, e1, 1, kh);
    {   /* the same, with the errors returned: the task's error, then the GPU failed (as after a fault) */
        h_status st;
        static char err[H_ERRBUF_SIZE];
        int what = W_HOST;
        CHECK_EQ_INT(run_child(one, &what, e1r, 60, &st, err), 0);
        h__merge_counts(&st);
        CHECK_MSG(child_ok(&st), "a kernel given host memory, TAMM_ON_ERROR=return: the child did not end cleanly");
        CHECK_CONTAINS(err, kh[0]);
        CHECK_CONTAINS(err, "an illegal memory access was encountered: the kernel copy_k (launched at "); /* the GPU failed */
        CHECK_CONTAINS(err, ") of task 'kernel_host'");
        CHECK_CONTAINS(err, "on device 0 was given host memory at 0x");
        CHECK_CONTAINS(err, "(emulated device, sticky) [");
        CHECK_CONTAINS(st.out, "wait: ");
        if (!strstr(err, "sticky")) fprintf(stderr, "%s\n", err);
    }
    run_test_child("a kernel given pinned host memory", pinned, NULL, e1, 60);
    expect("a kernel on GPU 1 given GPU 0's buffer", other_gpu, W_OTHER, e2, 1,
           (const char *const[]){ "tamm: error: task 'other_gpu' (emu_faults.c:105): kernel launch failed: an illegal "
                                  "memory access was encountered: argument 2 of copy_k is memory of device 0 at 0x",
                                  ", not of device 1 (emulated)", NULL });
    expect("a kernel given a freed buffer", freed, W_FREED, e1, 1,
           (const char *const[]){ "tamm: error: task 'freed' (emu_faults.c:108): kernel launch failed: an illegal memory "
                                  "access was encountered: argument 2 of copy_k (0x", "device 0 allocation of 128 bytes at 0x",
                                  "freed", NULL });
    static const char *const hang[] = { "the launch timed out and was terminated: the kernel hang_k (launched at ",
                                        STANDIN ? ") of task 'hang' did not finish within 1 s on emulated GPU 0 "
                                                  "(TAMM_CUDA_EMU_KERNEL_TIMEOUT)"
                                                : ") of task 'hang' (emu_faults.c:106) did not finish within 1 s on "
                                                  "emulated GPU 0 (TAMM_CUDA_EMU_KERNEL_TIMEOUT)",
                                        "emu_faults_kernels.cu:", NULL };
    expect("a kernel that never ends", one, W_HANG, eh, 1, hang);
    {   /* with the errors returned: the waits return, the program finishes (its stream is left behind) */
        h_status st;
        static char err[H_ERRBUF_SIZE];
        int what = W_HANG;
        double t0 = h_now();
        CHECK_EQ_INT(run_child(one, &what, ehr, 60, &st, err), 0);
        h__merge_counts(&st);
        CHECK_MSG(child_ok(&st), "a kernel that never ends, TAMM_ON_ERROR=return: the child did not end cleanly");
        CHECK_CONTAINS(err, hang[1]);
        CHECK_MSG(h_now() - t0 < 30, "the run took %.1f s", h_now() - t0);
    }
    expect("a kernel writes past its buffer", one, W_OVERRUN, e1, 0,
           (const char *const[]){ "tamm: error: an illegal memory access was encountered on emulated GPU 0: the kernel "
                                  "poke_k (launched at ",
                                  "emu_faults_kernels.cu:",
                                  STANDIN ? ") of task 'overrun' accessed 0x" : ") of task 'overrun' (emu_faults.c:107) accessed 0x",
                                  "(128 bytes past the end of the device 0 allocation of 128 bytes at 0x", NULL });
    return test_summary();
}
