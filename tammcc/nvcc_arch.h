/*
 * nvcc_arch.h — the GPU architectures tammcc has nvcc compile the CUDA variants for:
 * TAMMCC_CUDA_ARCH when set (native, sm_XX, compute_XX, XX, or a comma-separated list), else
 * the GPUs of the machine that compiles (-arch=native, when `nvidia-smi -L` lists one), else
 * real code for V100 to H100 (sm_70, 75, 80, 86, 89, 90) and PTX for compute_90, as far as
 * this nvcc supports them (`nvcc --list-gpu-arch`).  Real code means no JIT compilation at a
 * kernel's first launch; the PTX lets newer GPUs run it.
 */
#ifndef TAMMCC_NVCC_ARCH_H
#define TAMMCC_NVCC_ARCH_H

/** TAMMCC_CUDA_ARCH is unset or valid: 0; else -1 after an error naming it. */
int cc_cuda_arch_check(void);
/** The nvcc flags that choose the architectures, NULL-terminated (caller frees each and the
 *  array); NULL after an error (written). */
char **cc_cuda_arch_flags(const char *nvcc);
/** Do these nvcc flags (TAMMCC_NVCC_FLAGS, space-separated) choose architectures already? */
int cc_cuda_arch_given(const char *flags);

#endif
