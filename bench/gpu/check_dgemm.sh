#!/usr/bin/env bash
# check_dgemm.sh [--evictions] DGEMM_TILES ARGS... — runs dgemm_tiles (which
# exits non-zero when the tiled C differs from the whole cublasDgemm's or a tile
# call failed) with TAMM_STATS=1 and prints its line and the GPU's statistics;
# with --evictions, also fails unless the GPU evicted blocks (the run under a
# TAMM_CUDA_MEMORY_LIMIT below its data).  Exit 77 (skipped) without a CUDA device.
set -u
ev=0
if [ "${1:-}" = --evictions ]; then ev=1; shift; fi
err=$(mktemp)
trap 'rm -f "$err"' EXIT
TAMM_STATS=1 "$@" 2>"$err"
rc=$?
[ $rc -eq 77 ] && { cat "$err"; exit 77; }
grep -E '^tamm stats: rank [0-9]+: GPU 0 ' "$err"
[ $rc -eq 0 ] || { echo "check_dgemm: $1 failed (exit $rc)"; grep -v '^tamm stats' "$err"; exit 1; }
grep -qE '^tamm stats: rank [0-9]+: GPU 0 .*: [1-9][0-9]* tasks' "$err" || { echo "check_dgemm: no task ran on the GPU"; exit 1; }
if [ $ev -eq 1 ] && ! grep -qE '^tamm stats: rank [0-9]+: GPU 0 .* [1-9][0-9]* evictions' "$err"; then
    echo "check_dgemm: no eviction under TAMM_CUDA_MEMORY_LIMIT=${TAMM_CUDA_MEMORY_LIMIT:-unset}"
    exit 1
fi
exit 0
