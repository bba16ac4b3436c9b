#!/bin/sh
# no_cuda_list.sh TAMMCC INCLUDE_DIR PROGRAM.c... [-- CLANG_FLAGS...] — the programs that
# tests/tammcc/cuda/CMakeLists.txt keeps out of tammcc_cuda_emu_* (TAMM_EMU_NO_CUDA) still have
# no CUDA variant: `tammcc --emit=cuda` prints nothing for each.  One that gained a variant fails
# here, so that it moves back to the emulated-kernel tests instead of going unchecked.
set -u
tammcc=$1 inc=$2
shift 2
progs=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do progs="$progs $1"; shift; done
[ $# -gt 0 ] && shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammnocuda.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
for p in $progs; do
    TAMMCC_NVCC=emu "$tammcc" --emit=cuda -I"$inc" "$@" "$p" > "$tmp/out.cu" 2> "$tmp/err" ||
        { cat "$tmp/err"; echo "no_cuda_list: FAIL: tammcc --emit=cuda $p"; bad=1; continue; }
    if [ -s "$tmp/out.cu" ]; then
        echo "no_cuda_list: FAIL: $p now has a CUDA variant: remove it from TAMM_EMU_NO_CUDA, so that tammcc_cuda_emu_* runs its kernels"
        bad=1
    fi
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no_cuda_list: FAIL: no program checked"; exit 1; }
[ $bad = 0 ] && echo "no_cuda_list: $n programs, none with a CUDA variant"
exit $bad
