#!/bin/sh
# cuda_arch.sh TAMMCC SRC.c [NVCC] — the GPU architectures tammcc asks nvcc for (tammcc -### prints
# the commands): TAMMCC_CUDA_ARCH when set (sm_90: -arch=sm_90; a list: one -gencode each; native),
# else -arch=native where `nvidia-smi -L` lists a GPU, else sm_70 to sm_90 (those `nvcc
# --list-gpu-arch` lists) and compute_90 PTX; none of its own when TAMMCC_NVCC_FLAGS chooses.
# Stand-ins for nvcc and nvidia-smi play each machine.  With a real NVCC, the default list also
# compiles (nvcc takes every architecture it was given).
set -u
tammcc=$1 src=$2 realnvcc=${3:-}
inc=$(cd "$(dirname "$0")/../../../include" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammarch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/gpu" "$tmp/nogpu"
printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"\n' > "$tmp/gpu/nvidia-smi"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver." >&2\nexit 9\n' > "$tmp/nogpu/nvidia-smi"
# an nvcc like CUDA 13's: no sm_70
printf '#!/bin/sh\nif [ "$1" = --list-gpu-arch ]; then printf "compute_75\\ncompute_80\\ncompute_86\\ncompute_87\\ncompute_89\\ncompute_90\\ncompute_100\\n"; exit 0; fi\nexit 0\n' > "$tmp/nvcc"
chmod +x "$tmp/gpu/nvidia-smi" "$tmp/nogpu/nvidia-smi" "$tmp/nvcc"
fail=0
# nvcc_line ENV...: the nvcc command tammcc -### would run
nvcc_line() { env "$@" TAMMCC_NVCC="$tmp/nvcc" "$tammcc" -### -I"$inc" -c "$src" -o "$tmp/x.o" 2>&1 | grep "\"$tmp/nvcc\""; }
expect() { # what ENV... : the nvcc line must hold `what` (a fixed string)
    what=$1
    shift
    line=$(nvcc_line "$@")
    if printf '%s\n' "$line" | grep -qF -- "$what"; then echo "ok: $* -> $what"
    else echo "FAIL: $*: expected $what in the nvcc command: $line"; fail=1; fi
}
absent() { # what ENV...
    what=$1
    shift
    line=$(nvcc_line "$@")
    if [ -n "$line" ] && ! printf '%s\n' "$line" | grep -qF -- "$what"; then echo "ok: $* -> no $what"
    else echo "FAIL: $*: $what in (or no) nvcc command: $line"; fail=1; fi
}
P=$PATH
expect '"-arch=sm_90"' PATH="$tmp/nogpu:$P" TAMMCC_CUDA_ARCH=sm_90
expect '"-arch=sm_86"' PATH="$tmp/gpu:$P" TAMMCC_CUDA_ARCH=86
expect '"-gencode=arch=compute_80,code=sm_80" "-gencode=arch=compute_90,code=compute_90"' PATH="$tmp/nogpu:$P" TAMMCC_CUDA_ARCH=sm_80,compute_90
expect '"-arch=native"' PATH="$tmp/nogpu:$P" TAMMCC_CUDA_ARCH=native
expect '"-arch=native"' PATH="$tmp/gpu:$P"
expect '"-gencode=arch=compute_75,code=sm_75" "-gencode=arch=compute_80,code=sm_80" "-gencode=arch=compute_86,code=sm_86" "-gencode=arch=compute_89,code=sm_89" "-gencode=arch=compute_90,code=sm_90" "-gencode=arch=compute_90,code=compute_90"' PATH="$tmp/nogpu:$P"
absent 'sm_70' PATH="$tmp/nogpu:$P"
absent '-arch=native' PATH="$tmp/gpu:$P" TAMMCC_NVCC_FLAGS=-arch=sm_75
absent 'code=sm_75' PATH="$tmp/nogpu:$P" TAMMCC_NVCC_FLAGS="-O3 -gencode=arch=compute_80,code=sm_80"
out=$(TAMMCC_CUDA_ARCH=sm_9x TAMMCC_NVCC="$tmp/nvcc" "$tammcc" -### -I"$inc" -c "$src" -o "$tmp/x.o" 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -qF "tammcc: error: TAMMCC_CUDA_ARCH: invalid value 'sm_9x'"; then echo "ok: an invalid TAMMCC_CUDA_ARCH is an error naming it"
else echo "FAIL: TAMMCC_CUDA_ARCH=sm_9x: exit $rc: $out"; fail=1; fi
if [ -n "$realnvcc" ] && [ -x "$(command -v "$realnvcc")" ]; then
    # the default list with the real nvcc (no GPU here: the stand-in nvidia-smi fails): it takes them
    if PATH="$tmp/nogpu:$P" TAMMCC_NVCC="$realnvcc" "$tammcc" -v -O1 -I"$inc" -c "$src" -o "$tmp/real.o" > "$tmp/log" 2>&1; then
        line=$(grep -F -- "$realnvcc" "$tmp/log" | grep -F -- '-gencode')
        n=$(printf '%s\n' "$line" | grep -o 'code=sm_[0-9]*' | wc -l)
        if printf '%s\n' "$line" | grep -qF 'code=sm_90' && printf '%s\n' "$line" | grep -qF 'code=compute_90' && [ "$n" -ge 4 ]; then
            echo "ok: the real nvcc compiled for $n architectures and compute_90 PTX"
        else
            echo "FAIL: the real nvcc's command: $line"
            fail=1
        fi
    else
        cat "$tmp/log"
        echo "FAIL: tammcc with the real nvcc and the default architectures"
        fail=1
    fi
fi
exit $fail
