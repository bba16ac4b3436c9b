#!/usr/bin/env bash
# run_compare.sh TAMM_PROGRAM PLAIN_PROGRAM — the tammcc build of a program,
# run on one GPU, prints what its plain C build (pragmas ignored) prints, and
# the GPU ran some of its tasks (TAMM_STATS).  Exit 77 (skipped) when the
# machine has no CUDA device.
set -u
err=$(mktemp)
trap 'rm -f "$err"' EXIT
out=$(TAMM_NUM_GPUS=1 TAMM_STATS=1 "$1" 2>"$err")
rc=$?
if grep -q "TAMM_NUM_GPUS: .* 0 found" "$err"; then
    echo "no CUDA device: skipped ($(grep TAMM_NUM_GPUS "$err"))"
    exit 77
fi
if [ $rc -ne 0 ]; then echo "run_compare: $1 failed (exit $rc):"; cat "$err"; exit 1; fi
ref=$("$2") || { echo "run_compare: the plain build $2 failed"; exit 1; }
if [ "$out" != "$ref" ]; then
    printf 'run_compare: outputs differ\n--- GPU build:\n%s\n--- plain build:\n%s\n' "$out" "$ref"
    exit 1
fi
gpu=$(grep -E '^tamm stats: rank [0-9]+: GPU 0 ' "$err")
echo "$out"
echo "$gpu"
if ! grep -qE '^tamm stats: rank [0-9]+: GPU 0 .*: [1-9][0-9]* tasks' "$err"; then
    case "$(basename "$1")" in *cpu_only*) ;; *) echo "run_compare: no task ran on the GPU"; exit 1;; esac
fi
exit 0
