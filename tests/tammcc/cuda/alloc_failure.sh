#!/bin/sh
# alloc_failure.sh TAMMCC SRC — under TAMM_ON_ERROR=return, a device buffer that could not be
# allocated never reaches a kernel as NULL: loop_write.c built with TAMMCC_NVCC=emu, run on an
# emulated GPU whose first allocation fails (TAMM_CUDA_EMU_FAIL=alloc:1), or whose memory holds
# one block (TAMM_CUDA_EMU_MEMORY=12000): the run must end with exit status 1 and the runtime's
# "no room for" error naming the task and the block, not with a crash in a kernel — or, with
# room for one block and every allocation served by evicting the previous block, with the
# results of a run without a fault.
set -u
tammcc=$1 src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammaf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/prog" "$src" || { echo "alloc_failure: tammcc build failed"; exit 1; }
# the results of a run in which no allocation fails
env TAMM_CUDA_EMU=1 TAMM_NUM_WORKERS=1 "$tmp/prog" > "$tmp/ref" 2> "$tmp/err" ||
    { cat "$tmp/err"; echo "alloc_failure: the run without a fault failed"; exit 1; }
for e in TAMM_CUDA_EMU_FAIL=alloc:1 TAMM_CUDA_EMU_MEMORY=12000; do
    env TAMM_CUDA_EMU=1 TAMM_NUM_WORKERS=1 TAMM_ON_ERROR=return "$e" "$tmp/prog" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    cat "$tmp/err"
    # With room for one block, whether an allocation fails depends on timing: the router sends
    # a GPU only the tasks whose blocks fit its memory, and one fails only when the block before
    # it cannot be evicted yet (its write-back still in flight).  A run in which eviction always
    # made room must then print the results of the run without a fault.
    if [ $rc -eq 0 ] && [ "$e" = TAMM_CUDA_EMU_MEMORY=12000 ]; then
        cmp -s "$tmp/out" "$tmp/ref" && continue
        echo "alloc_failure: $e: exit status 0 but the results differ from the run without a fault:"
        cat "$tmp/out" "$tmp/ref"
        exit 1
    fi
    if [ $rc -ne 1 ]; then echo "alloc_failure: $e: exit status $rc, expected 1"; exit 1; fi
    grep -q "error: task '[^']*' ([^)]*loop_write.c:[0-9]*): GPU 0: no room for [A-Z]\[" "$tmp/err" ||
        { echo "alloc_failure: $e: no error naming the task and the block"; exit 1; }
done
echo "alloc_failure: a buffer the GPU could not allocate is the task's error, no kernel ran on NULL"
