#!/usr/bin/env bash
# run_repro_cost.sh — the cost of TAMM_REPRODUCIBLE=1 (docs/runtime.md,
# "Reproducible accumulation"): wall time and peak RSS of each program with
# the default (accumulations summed in any order) and with TAMM_REPRODUCIBLE=1,
# REPS runs of each, interleaved; prints the medians and the ratios
# reproducible/default as a markdown table.
#
# Usage: run_repro_cost.sh 'NAME=COMMAND ARGS' ...
#   e.g. run_repro_cost.sh "gemm 768=build/samples/gemm 768 96" "ccsd=build/samples/ccsd 16 24 4 6"
# Environment: REPS (default 7), TAMM_NUM_WORKERS (default 2).
# Needs GNU time (/usr/bin/time, for the peak RSS).
set -u
REPS=${REPS:-7}
export TAMM_NUM_WORKERS=${TAMM_NUM_WORKERS:-2}
if [ ! -x /usr/bin/time ]; then echo "run_repro_cost: /usr/bin/time (GNU time) is needed" >&2; exit 2; fi
if [ $# -lt 1 ]; then echo "usage: run_repro_cost.sh 'NAME=COMMAND ARGS' ..." >&2; exit 2; fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| program | default time (s) | reproducible time (s) | time ratio | default peak RSS (KiB) | reproducible peak RSS (KiB) | RSS ratio |"
echo "|---|---|---|---|---|---|---|"
status=0
for spec in "$@"; do
    name=${spec%%=*}
    cmd=${spec#*=}
    td=(); tr=(); md=(); mr=()
    for ((i = 1; i <= REPS; i++)); do
        for mode in 0 1; do
            # shellcheck disable=SC2086
            if ! TAMM_REPRODUCIBLE=$mode /usr/bin/time -f "%e %M" -o "$tmp" $cmd >/dev/null 2>&1; then
                echo "run_repro_cost: $name (TAMM_REPRODUCIBLE=$mode) failed" >&2
                status=1
                continue
            fi
            read -r t m <"$tmp"
            if [ $mode = 0 ]; then td+=("$t"); md+=("$m"); else tr+=("$t"); mr+=("$m"); fi
        done
    done
    [ ${#td[@]} -gt 0 ] && [ ${#tr[@]} -gt 0 ] || continue
    a=$(printf '%s\n' "${td[@]}" | median); b=$(printf '%s\n' "${tr[@]}" | median)
    c=$(printf '%s\n' "${md[@]}" | median); d=$(printf '%s\n' "${mr[@]}" | median)
    awk -v n="$name" -v a="$a" -v b="$b" -v c="$c" -v d="$d" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.2f | %d | %d | %.2f |\n", n, a, b, (a > 0 ? b / a : 0), c, d, (c > 0 ? d / c : 0) }'
done
exit $status
