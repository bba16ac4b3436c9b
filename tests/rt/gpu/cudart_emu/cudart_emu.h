/*
 * cudart_emu.h — what the stand-in CUDA runtime (cudart_emu.c) exports beside
 * CUDA's own entry points: device work on its emulated devices.  A host function
 * (cudaLaunchHostFunc) is host code there, as on a GPU, and touches no device
 * memory; what stands for a kernel (the stand-in cuBLAS's, a test variant's, a
 * host-compiled .cu's) is launched with these, so that the device checks its
 * pointers and opens the allocations it uses while it runs.
 */
#ifndef TAMM_CUDART_EMU_H
#define TAMM_CUDART_EMU_H

#include <stddef.h>
#include <tamm.h> /* tamm_emu_kernel */

#ifdef __cplusplus
extern "C" {
#endif

/** fn(copy of the size bytes at arg) in the order of stream (0: the default stream), as
 *  tamm_emu_launch: the device pointers among the argument bytes are what fn may touch (each in
 *  a live allocation of the stream's device, or the launch is refused as an illegal memory
 *  access).  name says what it is in errors.  A cudaError_t. */
int tamm_emu_cudart_launch(void *stream, void (*fn)(void *), const void *arg, size_t size, const char *name);
/** The same for the work of an emulated library routine (the stand-in cuBLAS's reference DGEMM):
 *  a kernel in every respect but the watchdog (TAMM_CUDA_EMU_KERNEL_TIMEOUT), which leaves it alone:
 *  it always ends, however slowly the emulator computes it (a large DGEMM under ThreadSanitizer). */
int tamm_emu_cudart_library(void *stream, void (*fn)(void *), const void *arg, size_t size, const char *name);
/** tamm_emu_launch_kernel on the stand-in's devices (include/tamm_cuda_emu.h).  A cudaError_t. */
int tamm_emu_cudart_launch_kernel(void *stream, tamm_emu_kernel *k);
/** tamm_emu_thread_mark / tamm_emu_set_thread_mark for the stand-in's devices. */
void *tamm_emu_cudart_thread_mark(void);
void tamm_emu_cudart_set_thread_mark(void *mark);

#ifdef __cplusplus
}
#endif
#endif
