#!/bin/sh
# emu_launch_race.sh PROGRAM — in the TSan build: a launch whose CUDA threads all store to one element
# (emu_launch_pool.cc's race mode) must be reported by ThreadSanitizer as a data race in the kernel,
# every time (the emulated launch's host threads must not be ordered among themselves).
set -u
prog=$1
for run in 1 2 3 4 5; do
    out=$(TSAN_OPTIONS="${TSAN_OPTIONS:-} halt_on_error=1 exitcode=66" "$prog" race 2>&1)
    st=$?
    if [ "$st" -ne 66 ] || ! printf '%s\n' "$out" | grep -q "WARNING: ThreadSanitizer: data race" ||
        ! printf '%s\n' "$out" | grep -q "race_k"; then
        printf '%s\n' "$out" | head -n 40
        echo "emu_launch_race: FAIL: run $run: exit status $st, no data race reported in race_k"
        exit 1
    fi
done
echo "emu_launch_race: the race between CUDA threads of one launch was reported in 5 runs of 5"
