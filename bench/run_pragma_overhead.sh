#!/usr/bin/env bash
# run_pragma_overhead.sh — per-task cost of tammcc-generated code against the
# hand-written explicit API on the same DAGs: task_overhead_pragma (pragmas,
# compiled by tammcc) vs task_overhead_tamm (tamm_submit by hand).
#
# Usage: run_pragma_overhead.sh [BIN_DIR]   (default: ./bench or .)
# Environment: REPS=7 NTASKS=200000 WORKERS=1 PATTERNS="independent chain random fanin"
# Runs of the two programs alternate; the table gives the median µs per task
# and pragma/explicit (1.00 = same cost; the target is within 5%).  Checksums
# must agree, else the exit status is 1.
set -u
REPS=${REPS:-7}
NTASKS=${NTASKS:-200000}
WORKERS=${WORKERS:-1}
PATTERNS=${PATTERNS:-"independent chain random fanin"}
BIN_DIR=${1:-}
if [ -z "$BIN_DIR" ]; then
  for d in ./bench . ; do [ -x "$d/task_overhead_pragma" ] && { BIN_DIR=$d; break; }; done
fi
BIN_DIR=${BIN_DIR:-.}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) printf "%.3f\n", a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
status=0
echo "pragma_overhead: NTASKS=$NTASKS WORKERS=$WORKERS REPS=$REPS"
echo
echo "| pattern | explicit API (µs/task) | pragma + tammcc (µs/task) | pragma/explicit |"
echo "|---|---|---|---|"
for p in $PATTERNS; do
  te=(); tp=(); ce=""; cp=""
  for r in $(seq "$REPS"); do
    for prog in tamm pragma; do
      line=$(TAMM_NUM_WORKERS=$WORKERS "$BIN_DIR/task_overhead_$prog" "$p" "$NTASKS") || { echo "task_overhead_$prog $p failed" >&2; status=1; continue; }
      us=$(sed -n 's/.*us_per_task=\([0-9.]*\).*/\1/p' <<<"$line")
      ck=$(sed -n 's/.*checksum=\([0-9]*\).*/\1/p' <<<"$line")
      if [ $prog = tamm ]; then te+=("$us"); ce=$ck; else tp+=("$us"); cp=$ck; fi
    done
  done
  me=$(printf '%s\n' "${te[@]}" | median); mp=$(printf '%s\n' "${tp[@]}" | median)
  ratio=$(awk -v a="$mp" -v b="$me" 'BEGIN { printf "%.2f", a / b }')
  flag=""; [ "$ce" != "$cp" ] && { flag=" (checksum mismatch!)"; status=1; }
  echo "| $p | $me | $mp | $ratio$flag |"
done
exit $status
