#!/bin/sh
# variant_status.sh TAMMCC SRC — a TAMM_CUDA_VARIANT function that returns an integer reports a
# status (docs/language.md "Variants: CPU and CUDA"): variant_status.c built with
# TAMMCC_NVCC=emu and run on an emulated GPU.
# Every variant succeeding: the same output as on CPUs only (TAMM_NUM_GPUS=0), exit status 0
# (a void variant works as before).  VARIANT_FAIL=2 (scale_tile_cuda returns 3 for block 2):
# exit status 1 and an error naming the task, its line and the variant, under TAMM_ON_ERROR=abort
# (the default) and =return -- never the silent wrong result of a status nobody looked at.
# TAMM_CUDA_EMU_FAIL=launch:n, n = 1..8 (each of the 8 launches fails once): exactly one error per
# run, scale_tile_cuda's status or shift_tile_cuda's own report (which used to run its loop on the
# host instead, on device memory: a segmentation fault on a GPU).  Which variant makes the n-th
# launch depends on the schedule (blocks interleave), except at the ends: launch 1 is always a
# scale (a shift waits for its block's scale) and launch 8 always a shift (every scale precedes
# its own shift), so both reports are seen in every run of this test.
set -u
tammcc=$1 src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammvs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/prog" "$src" || { echo "variant_status: tammcc build failed"; exit 1; }
TAMM_NUM_GPUS=0 "$tmp/prog" > "$tmp/ref" || { echo "variant_status: the run on CPUs failed"; exit 1; }
TAMM_CUDA_EMU=1 TAMM_STATS=1 "$tmp/prog" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; echo "variant_status: the run on the GPU failed"; exit 1; }
cmp -s "$tmp/ref" "$tmp/out" || { echo "variant_status: GPU output $(cat "$tmp/out") differs from CPU output $(cat "$tmp/ref")"; exit 1; }
grep -qE 'GPU 0 .*: [1-9][0-9]* tasks' "$tmp/err" || { echo "variant_status: no task ran on the GPU"; exit 1; }
for mode in abort return; do
    env VARIANT_FAIL=2 TAMM_ON_ERROR=$mode TAMM_CUDA_EMU=1 "$tmp/prog" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    cat "$tmp/err"
    if [ $rc -ne 1 ]; then echo "variant_status: TAMM_ON_ERROR=$mode: exit status $rc, expected 1"; exit 1; fi
    grep -q "error: task 'scale_tile' ([^)]*variant_status.c:[0-9]*): the CUDA variant scale_tile_cuda() returned 3" "$tmp/err" ||
        { echo "variant_status: TAMM_ON_ERROR=$mode: no error naming the task and the variant"; exit 1; }
done
scale=0 shift=0
for n in 1 2 3 4 5 6 7 8; do
    TAMM_ON_ERROR=return TAMM_CUDA_EMU=1 TAMM_CUDA_EMU_FAIL=launch:$n "$tmp/prog" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -ne 1 ]; then cat "$tmp/err"; echo "variant_status: TAMM_CUDA_EMU_FAIL=launch:$n: exit status $rc, expected 1"; exit 1; fi
    s=0 h=0
    if grep -q "the CUDA variant scale_tile_cuda() returned 1" "$tmp/err"; then s=1; fi
    if grep -q "error: task 'shift_tile' ([^)]*variant_status.c:[0-9]*): shift_tile_cuda: the device work could not be queued" "$tmp/err"; then
        h=1
    fi
    if [ $((s + h)) -ne 1 ]; then
        cat "$tmp/err"; echo "variant_status: TAMM_CUDA_EMU_FAIL=launch:$n: $((s + h)) variants reported the failed launch, expected 1"; exit 1
    fi
    if [ $n -eq 1 ] && [ $s -ne 1 ]; then cat "$tmp/err"; echo "variant_status: launch 1 (a scale) failed but scale_tile_cuda did not report it"; exit 1; fi
    if [ $n -eq 8 ] && [ $h -ne 1 ]; then cat "$tmp/err"; echo "variant_status: launch 8 (a shift) failed but shift_tile_cuda did not report it"; exit 1; fi
    scale=$((scale + s)) shift=$((shift + h))
done
echo "variant_status: a nonzero status of a CUDA variant is the task's error (exit status 1); the 8 failed launches reported by scale_tile_cuda $scale times, by shift_tile_cuda $shift times"
