/*
 * test_cudart_sync.c — the stand-in CUDA runtime's synchronous default-stream
 * calls (cudart_emu.c): cudaMemcpy, cudaFree and cudaDeviceSynchronize wait for
 * work issued before them on other streams, timing events measure stream
 * order, and what is not emulated is refused with an error; last, the
 * watchdog (TAMM_CUDA_EMU_KERNEL_TIMEOUT=1, set by ctest): a library routine
 * running longer is left alone, a kernel that never ends fails the device.
 */
#define _POSIX_C_SOURCE 200809L
#include "cudart_emu.h"
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static void nap(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* a kernel on a stream: sleep, then store 42 in the device int (its argument: the pointer) */
static void late_store(void *p) { nap(50); **(volatile int **)p = 42; }
static cudaError_t store_later(cudaStream_t s, int *d) { return tamm_emu_cudart_launch(s, late_store, &d, sizeof d, "late_store"); }
static void sleep20(void *p) { (void)p; nap(20); }
static void sleep1500(void *p) { (void)p; nap(1500); }
static atomic_int released;
static void never_ends(void *p) { (void)p; while (!atomic_load(&released)) nap(1); }

int main(void)
{
    cudaStream_t s, blocking;
    CHECK(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);

    /* cudaMemcpy waits for the other stream's earlier work */
    int *d = NULL, h = 0;
    CHECK(cudaMalloc((void **)&d, sizeof *d) == cudaSuccess);
    CHECK(cudaMemcpy(d, &(int){ 0 }, sizeof *d, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(store_later(s, d) == cudaSuccess);
    CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(h == 42);
    /* cudaMemset is ordered on stream 0 (and only there: not with s) */
    CHECK(cudaMemset(d, 0, sizeof *d) == cudaSuccess);
    CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(h == 0);
    CHECK(cudaMemset(d, 1, sizeof *d) == cudaErrorNotSupported);
    CHECK(cudaGetLastError() == cudaErrorNotSupported);

    /* cudaDeviceSynchronize too; cudaFree frees after the work using the memory (ASan otherwise) */
    CHECK(cudaMemcpy(d, &(int){ 0 }, sizeof *d, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(store_later(s, d) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, 0) == cudaSuccess); /* pageable: returns when done */
    CHECK(h == 42);
    CHECK(store_later(s, d) == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);

    /* timing events on stream 0: at least the 20 ms between the records */
    cudaEvent_t e0, e1, never, notime;
    CHECK(cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess);
    CHECK(cudaEventCreate(&never) == cudaSuccess);
    CHECK(cudaEventCreateWithFlags(&notime, cudaEventDisableTiming) == cudaSuccess);
    CHECK(cudaEventRecord(e0, 0) == cudaSuccess);
    CHECK(cudaLaunchHostFunc(0, sleep20, NULL) == cudaSuccess);
    CHECK(cudaEventRecord(e1, 0) == cudaSuccess);
    CHECK(cudaEventRecord(notime, 0) == cudaSuccess);
    CHECK(cudaEventSynchronize(e1) == cudaSuccess);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess);
    CHECK(ms >= 19.0f && ms < 10000.0f);
    CHECK(cudaEventElapsedTime(&ms, e0, never) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventElapsedTime(&ms, e0, notime) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventSynchronize(never) == cudaSuccess); /* never recorded: nothing to wait for */

    /* what is not emulated: a clear error */
    CHECK(cudaStreamCreateWithFlags(&blocking, cudaStreamDefault) == cudaErrorNotSupported);
    CHECK(cudaGetLastError() == cudaErrorNotSupported);
    CHECK(cudaStreamDestroy(0) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);

    CHECK(cudaEventDestroy(e0) == cudaSuccess && cudaEventDestroy(e1) == cudaSuccess);
    CHECK(cudaEventDestroy(never) == cudaSuccess && cudaEventDestroy(notime) == cudaSuccess);

    /* the watchdog (1 s): a library routine of 1.5 s ends normally; a kernel that never ends fails the
     * device, and the synchronisation returns (the stream is left behind) */
    const char *to = getenv("TAMM_CUDA_EMU_KERNEL_TIMEOUT");
    if (to && !strcmp(to, "1")) {
        CHECK(tamm_emu_cudart_library(s, sleep1500, NULL, 0, "a long library routine") == cudaSuccess);
        CHECK(cudaStreamSynchronize(s) == cudaSuccess);
        CHECK(tamm_emu_cudart_launch(s, never_ends, NULL, 0, "never_ends") == cudaSuccess);
        CHECK(cudaStreamSynchronize(s) == cudaErrorLaunchTimeout);
        const char *why = cudaGetErrorString(cudaErrorLaunchTimeout);
        CHECK(strstr(why, "the launch timed out and was terminated: never_ends did not finish within 1 s on emulated "
                          "GPU 0 (TAMM_CUDA_EMU_KERNEL_TIMEOUT)") != NULL);
        CHECK(cudaGetLastError() == cudaErrorLaunchTimeout); /* sticky */
        atomic_store(&released, 1);
    } else {
        CHECK(!"TAMM_CUDA_EMU_KERNEL_TIMEOUT=1 is not set (ctest sets it)");
    }
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
    printf("test_cudart_sync: %s\n", fails ? "FAILED" : "ok");
    return fails != 0;
}
