#!/usr/bin/env bash
# check_bench.sh PROGRAM ARGS... — a GPU benchmark port gives, on one GPU, the
# result it gives on CPUs only (TAMM_NUM_GPUS=0), within rounding (relative
# 1e-4: float reductions are summed in another order, device math functions
# differ in the last bits).  Exit 77 (skipped) without a CUDA device.
set -u
err=$(mktemp)
trap 'rm -f "$err"' EXIT
gpu=$(TAMM_NUM_GPUS=1 TAMM_STATS=1 "$@" 2>"$err")
rc=$?
if grep -q "TAMM_NUM_GPUS: .* 0 found" "$err"; then echo "no CUDA device: skipped"; exit 77; fi
[ $rc -eq 0 ] || { echo "check_bench: $1 failed on the GPU (exit $rc)"; cat "$err"; exit 1; }
cpu=$(TAMM_NUM_GPUS=0 "$@") || { echo "check_bench: $1 failed on CPUs"; exit 1; }
echo "GPU: $gpu"; echo "CPU: $cpu"; grep -E '^tamm stats: rank [0-9]+: GPU 0 ' "$err"
grep -qE '^tamm stats: rank [0-9]+: GPU 0 .*: [1-9][0-9]* tasks' "$err" || { echo "check_bench: no task ran on the GPU"; exit 1; }
g=$(sed -nE 's/.*[=:] *(-?[0-9.]+(e[-+]?[0-9]+)?)$/\1/p' <<<"$gpu")
c=$(sed -nE 's/.*[=:] *(-?[0-9.]+(e[-+]?[0-9]+)?)$/\1/p' <<<"$cpu")
awk -v g="$g" -v c="$c" 'BEGIN { d = g - c; if (d < 0) d = -d; s = c < 0 ? -c : c; exit !(d <= 1e-4 * (s + 1e-30) || d == 0) }' ||
    { echo "check_bench: results differ: GPU $g, CPU $c"; exit 1; }
