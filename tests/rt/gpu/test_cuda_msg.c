/*
 * test_cuda_msg.c — what a machine without a usable GPU is told (issue 17):
 * the CUDA runtime's own text for a machine with no NVIDIA driver is "CUDA
 * driver version is insufficient for CUDA runtime version", which reads as if
 * the user had to update something.  tamm__cuda_why_none (rt/gpu/devops_cuda.c,
 * compiled in every build) says instead that no CUDA driver or device was
 * found and that tasks run on the CPUs; checked on the function for each case,
 * then on the device interface of this build where it finds no device.
 */
#include "harness.h"
#include "memunit.h"
#include <string.h>

int main(void)
{
    char m[512];
    const char *raw35 = "CUDA driver version is insufficient for CUDA runtime version";

    h_context("no driver installed (cudaErrorInsufficientDriver, libcuda.so.1 absent)");
    tamm__cuda_why_none(m, sizeof m, TAMM_CUDA_ERR_INSUFFICIENT_DRIVER, raw35, 13000, 0);
    CHECK_CONTAINS(m, "no CUDA driver found");
    CHECK_CONTAINS(m, "tasks run on the CPUs");
    CHECK_MSG(!strstr(m, "insufficient"), "the CUDA runtime's misleading text is not repeated: %s", m);

    h_context("driver older than the runtime (cudaErrorInsufficientDriver, libcuda.so.1 present)");
    tamm__cuda_why_none(m, sizeof m, TAMM_CUDA_ERR_INSUFFICIENT_DRIVER, raw35, 12040, 1);
    CHECK_CONTAINS(m, "the NVIDIA driver is older than the CUDA runtime 12.4");
    CHECK_CONTAINS(m, "tasks run on the CPUs");

    h_context("driver without a GPU (cudaErrorNoDevice)");
    tamm__cuda_why_none(m, sizeof m, TAMM_CUDA_ERR_NO_DEVICE, "no CUDA-capable device is detected", 13000, 1);
    CHECK_CONTAINS(m, "no CUDA device found");
    CHECK_CONTAINS(m, "tasks run on the CPUs");

    h_context("any other CUDA error keeps the runtime's text and code");
    tamm__cuda_why_none(m, sizeof m, 999, "unknown error", 13000, 1);
    CHECK_CONTAINS(m, "cudaGetDeviceCount: unknown error, error 999");
    CHECK_CONTAINS(m, "tasks run on the CPUs");

    h_context("this build's CUDA device interface");
    int n = tamm__devops_cuda.count();
    if (n > 0) {
        printf("SKIP: %d CUDA device%s here (the no-device text is checked on the function above)\n", n,
               n == 1 ? "" : "s");
    } else {
        const char *why = tamm__devops_cuda.error();
        printf("no device here: %s\n", why);
        CHECK_CONTAINS(why, "tasks run on the CPUs");
        CHECK_MSG(!strstr(why, "insufficient"), "the CUDA runtime's misleading text is not repeated: %s", why);
    }
    return test_summary();
}
