#!/bin/sh
# emu_refuses.sh INCLUDE_DIR [CXX] — tamm_cuda_emu.h refuses, at compile time, what running each
# CUDA thread to completion cannot reproduce: a kernel with __syncthreads, __shared__ memory, a
# warp intrinsic or warpSize does not compile on the host (so generated code can never silently
# leave what the emulation verifies), and one without them does.
set -u
inc=$1
cxx=${2:-c++}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammref.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
try() { # expect(0: compiles, 1: refused) what body
    printf '#include <tamm_cuda_emu.h>\nstatic __global__ void k(double *x, unsigned m)\n{\n    (void)m;\n    %s\n}\nvoid run(double *x) { TAMM_CUDA_LAUNCH(k, dim3(2), dim3(32), 0, x, 1u); }\n' "$3" > "$tmp/t.cu"
    if $cxx -std=c++17 -x c++ -fsyntax-only -I"$inc" "$tmp/t.cu" > "$tmp/log" 2>&1; then got=0; else got=1; fi
    why=$(grep -o 'tamm_cuda_emu_cannot[a-zA-Z_]*\|__shared__ memory cannot be emulated' "$tmp/log" | head -1)
    if [ "$got" = 1 ] && [ -z "$why" ]; then got=2; fi # refused, but not by the header
    if [ "$got" != "$1" ]; then
        echo "FAIL: $2: $( [ "$1" = 1 ] && echo "compiled, should be refused" || echo "refused, should compile")"
        cat "$tmp/log"
        fail=1
    else
        echo "ok: $2 $( [ "$1" = 1 ] && echo "refused: $why" || echo compiles)"
    fi
}
try 0 "plain kernel" 'x[threadIdx.x] += 1.0; atomicAdd(&x[0], 1.0);'
try 1 "__syncthreads" 'x[threadIdx.x] = 1.0; __syncthreads();'
try 1 "__shared__" '__shared__ double s[32]; s[threadIdx.x] = x[0]; x[1] = s[0];'
try 1 "__shfl_down_sync" 'x[0] = __shfl_down_sync(0xffffffffu, x[threadIdx.x], 1);'
try 1 "__ballot_sync" 'x[0] = (double)__ballot_sync(0xffffffffu, x[0] > 0);'
try 1 "__syncwarp" '__syncwarp();'
try 1 "warpSize" 'x[0] = warpSize;'
exit $fail
