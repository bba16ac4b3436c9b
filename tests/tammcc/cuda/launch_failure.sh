#!/bin/sh
# launch_failure.sh TAMMCC SRC [VARIANT_SRC] — a kernel launch that fails is the task's error: loop_write.c
# built with TAMMCC_NVCC=emu, run on a simulated GPU with TAMM_CUDA_EMU_FAIL_LAUNCH=1 (the first
# launch fails): the run must end with exit status 1 and the message "kernel launch failed"
# naming the task (TAMM_EDEVICE, docs/errors.md), not print a line and go on with the task's
# uninitialised device buffer.  The same when the emulated device itself refuses a launch, and
# (VARIANT_SRC, cuda_variant.c) for a TAMM_CUDA_VARIANT function whose work cannot be queued.
set -u
tammcc=$1 src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammlf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/prog" "$src" || { echo "launch_failure: tammcc build failed"; exit 1; }
TAMM_CUDA_FAKE=1 TAMM_SCHED=round-robin TAMM_NUM_WORKERS=1 TAMM_CUDA_EMU_FAIL_LAUNCH=1 "$tmp/prog" > "$tmp/out" 2> "$tmp/err"
rc=$?
cat "$tmp/err"
if [ $rc -ne 1 ]; then echo "launch_failure: exit status $rc, expected 1"; exit 1; fi
grep -q "error: task '[^']*' ([^)]*loop_write.c:[0-9]*): kernel launch failed: unspecified launch failure (emulated)" "$tmp/err" ||
    { echo "launch_failure: no error naming the task"; exit 1; }
# the device refuses the launch (TAMM_CUDA_EMU_FAIL=launch:2, the emulated device's own fault
# injection): the same error, not the kernel run at once, out of its stream's order
TAMM_CUDA_EMU=1 TAMM_SCHED=round-robin TAMM_NUM_WORKERS=1 TAMM_CUDA_EMU_FAIL=launch:2 "$tmp/prog" > "$tmp/out" 2> "$tmp/err"
rc=$?
cat "$tmp/err"
if [ $rc -ne 1 ]; then echo "launch_failure: TAMM_CUDA_EMU_FAIL=launch:2: exit status $rc, expected 1"; exit 1; fi
grep -q "error: task '[^']*' ([^)]*loop_write.c:[0-9]*): kernel launch failed: unspecified launch failure (emulated)" "$tmp/err" ||
    { echo "launch_failure: TAMM_CUDA_EMU_FAIL=launch:2: no error naming the task"; exit 1; }
# the failure ends the process (_exit) while other launches are still running on the device's
# streams: 32 runs, 4 at a time (contention widens every window), each must end as the one above
# -- under ThreadSanitizer a CUDA thread finished and not yet joined at that moment was reported
# as a "thread leak" (exit status 66) in about 7 runs in 10
i=0
while [ $i -lt 8 ]; do
    for j in 1 2 3 4; do
        ( TAMM_CUDA_EMU=1 TAMM_SCHED=round-robin TAMM_NUM_WORKERS=1 TAMM_CUDA_EMU_FAIL=launch:2 "$tmp/prog" \
              > /dev/null 2> "$tmp/err$j"; echo $? > "$tmp/rc$j" ) &
    done
    wait
    for j in 1 2 3 4; do
        rc=$(cat "$tmp/rc$j")
        if [ "$rc" -ne 1 ] || grep -v "^tamm: error: task '[^']*' ([^)]*loop_write.c:[0-9]*): kernel launch failed" "$tmp/err$j" | grep -q .; then
            cat "$tmp/err$j"
            echo "launch_failure: run $((i * 4 + j)) of 32 at once with others: exit status $rc, expected 1 and only the task's error"
            exit 1
        fi
    done
    i=$((i + 1))
done
# a TAMM_CUDA_VARIANT function (cuda_variant.c) whose device work cannot be queued: the task's
# error, not its loop run by host code on the device buffers (a segmentation fault on a GPU, and
# on the emulated device, whose memory the host cannot touch)
if [ -n "${3:-}" ]; then
    TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/variant" "$3" || { echo "launch_failure: tammcc build of $3 failed"; exit 1; }
    TAMM_CUDA_EMU=1 TAMM_SCHED=round-robin TAMM_NUM_WORKERS=1 TAMM_CUDA_EMU_FAIL=launch:1 "$tmp/variant" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    cat "$tmp/err"
    if [ $rc -ne 1 ]; then echo "launch_failure: $3 with TAMM_CUDA_EMU_FAIL=launch:1: exit status $rc, expected 1"; exit 1; fi
    grep -q "error: task '[^']*' ([^)]*cuda_variant.c:[0-9]*): axpy_tile_cuda: the device work could not be queued" "$tmp/err" ||
        { echo "launch_failure: $3: no error naming the task"; exit 1; }
fi
echo "launch_failure: the failed launch is the task's error (exit status 1)"
