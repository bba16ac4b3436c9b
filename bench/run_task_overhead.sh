#!/usr/bin/env bash
# run_task_overhead.sh — run bench/task_overhead for tamm and its peers.
#
# Usage: run_task_overhead.sh [BIN_DIR]
# Environment (defaults):
#   BIN_DIR   directory with the task_overhead_* programs
#             (first argument, else ./bench or ./ if they hold them)
#   REPS=5  NTASKS=200000  WORKERS=2
#   PATTERNS="independent chain random fanin"
#   RUNTIMES="tamm gomp libomp starpu"
#   TIMEOUT=300           seconds per run (timeout(1)); a run past it counts as failed
#   MD_OUT=task_overhead_results.md   the markdown copy of the table
#
# Every pattern x runtime runs REPS times (runs of one pattern interleaved over
# the runtimes); the table gives the median µs per task, the ratio peer/tamm
# for each peer (> 1: tamm is faster) and fastest-peer/tamm.  A missing or
# failing runtime gives n/a.  Checksums are compared with task_overhead_serial
# (the sequential reference) and across runs and runtimes; any mismatch is
# reported loudly, marked with ! in the table, and makes the exit status 1.
set -u

REPS=${REPS:-5}
NTASKS=${NTASKS:-200000}
WORKERS=${WORKERS:-2}
PATTERNS=${PATTERNS:-"independent chain random fanin"}
RUNTIMES=${RUNTIMES:-"tamm gomp libomp starpu"}
TIMEOUT=${TIMEOUT:-300}
MD_OUT=${MD_OUT:-task_overhead_results.md}

if [ $# -ge 1 ]; then BIN_DIR=$1; fi
if [ -z "${BIN_DIR:-}" ]; then
  for d in ./bench . ; do
    if ls "$d"/task_overhead_* >/dev/null 2>&1; then BIN_DIR=$d; break; fi
  done
fi
BIN_DIR=${BIN_DIR:-.}

declare -A LABEL=([tamm]="tamm" [gomp]="libgomp" [libomp]="libomp" [starpu]="StarPU")

run_env() {  # runtime -> env assignments for WORKERS threads
  case $1 in
    tamm)   echo "TAMM_NUM_WORKERS=$WORKERS" ;;
    gomp|libomp) echo "OMP_NUM_THREADS=$WORKERS" ;;
    starpu) echo "STARPU_NCPU=$WORKERS STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SILENT=1" ;;
    *)      echo "" ;;
  esac
}

median() {  # numbers on stdin -> median (mean of the middle two for an even count)
  sort -g | awk '{a[NR]=$1} END { if (NR==0) exit 1;
    if (NR%2) printf "%.3f\n", a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2 }'
}

declare -A TIMES CKS REF BAD FAILS
STATUS=0
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

echo "task_overhead: NTASKS=$NTASKS WORKERS=$WORKERS REPS=$REPS BIN_DIR=$BIN_DIR"
echo "host: $(uname -n), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"

for p in $PATTERNS; do
  # Reference checksum.
  REF[$p]=""
  if [ -x "$BIN_DIR/task_overhead_serial" ]; then
    line=$("$BIN_DIR/task_overhead_serial" "$p" "$NTASKS" 2>/dev/null)
    REF[$p]=$(sed -n 's/.*checksum=\([0-9]*\).*/\1/p' <<<"$line")
  fi
  [ -n "${REF[$p]}" ] || echo "warning: no reference checksum for $p (task_overhead_serial missing or failed)" >&2
  for ((rep = 1; rep <= REPS; rep++)); do
    for r in $RUNTIMES; do
      exe="$BIN_DIR/task_overhead_$r"
      key="$p/$r"
      if [ ! -x "$exe" ]; then
        [ -n "${FAILS[$key]:-}" ] || echo "  $p $r: $exe not found: n/a" >&2
        FAILS[$key]="missing"; continue
      fi
      # shellcheck disable=SC2046
      line=$(env $(run_env "$r") timeout "$TIMEOUT" "$exe" "$p" "$NTASKS" 2>"$LOG")
      rc=$?
      us=$(sed -n "s/^$p us_per_task=\([0-9.]*\) checksum=\([0-9]*\)\$/\1/p" <<<"$line")
      ck=$(sed -n "s/^$p us_per_task=\([0-9.]*\) checksum=\([0-9]*\)\$/\2/p" <<<"$line")
      if [ $rc -ne 0 ] || [ -z "$us" ]; then
        FAILS[$key]="failed"
        echo "  $p $r run $rep: FAILED (exit $rc): $(tail -n 3 "$LOG" | tr '\n' ' ')" >&2
        continue
      fi
      printf '  %-11s %-7s run %d: %s us/task\n' "$p" "$r" "$rep" "$us"
      TIMES[$key]="${TIMES[$key]:-} $us"
      if [ -n "${CKS[$key]:-}" ] && [ "${CKS[$key]}" != "$ck" ]; then BAD[$key]=1; fi
      CKS[$key]=$ck
      if [ -n "${REF[$p]}" ] && [ "$ck" != "${REF[$p]}" ]; then BAD[$key]=1; fi
    done
  done
  # Without a reference: the runtimes must at least agree with one another.
  first=""
  [ -n "${REF[$p]}" ] || for r in $RUNTIMES; do
    ck=${CKS[$p/$r]:-}
    [ -n "$ck" ] || continue
    if [ -z "$first" ]; then first=$ck; elif [ "$ck" != "$first" ]; then
      for r2 in $RUNTIMES; do [ -n "${CKS[$p/$r2]:-}" ] && BAD[$p/$r2]=1; done
    fi
  done
  for r in $RUNTIMES; do
    if [ -n "${BAD[$p/$r]:-}" ]; then
      STATUS=1
      echo "!!!!!!!! CHECKSUM MISMATCH: pattern $p runtime $r: got ${CKS[$p/$r]}, reference ${REF[$p]:-none} !!!!!!!!" >&2
    fi
  done
done

# ---- table ----
cell() {  # median or n/a, with ! on a checksum mismatch
  local key=$1 m
  if [ -z "${TIMES[$key]:-}" ]; then echo "n/a"; return; fi
  m=$(tr ' ' '\n' <<<"${TIMES[$key]}" | grep . | median)
  if [ -n "${BAD[$key]:-}" ]; then echo "${m}!"; else echo "$m"; fi
}
ratio() {  # peer/tamm
  awk -v a="$1" -v b="$2" 'BEGIN { a+=0; b+=0; if (a > 0 && b > 0) printf "%.2f\n", a/b; else print "n/a" }'
}
num() { sed 's/!$//' <<<"$1" | grep -E '^[0-9.]+$' || true; }

PEERS=""
for r in $RUNTIMES; do [ "$r" != tamm ] && PEERS="$PEERS $r"; done
header=("pattern" "tamm µs/task")
for r in $PEERS; do header+=("${LABEL[$r]:-$r} µs/task"); done
for r in $PEERS; do header+=("${LABEL[$r]:-$r}/tamm"); done
header+=("fastest peer/tamm")

rows=()
for p in $PATTERNS; do
  row=("$p")
  if [[ " $RUNTIMES " == *" tamm "* ]]; then t=$(cell "$p/tamm"); else t="n/a"; fi
  row+=("$t")
  tn=$(num "$t")
  best=""
  for r in $PEERS; do
    c=$(cell "$p/$r"); row+=("$c")
    cn=$(num "$c"); [ "${c%!}" = "$c" ] || cn=""   # a wrong result is not a contender
    if [ -n "$cn" ] && { [ -z "$best" ] || awk -v a="$cn" -v b="$best" 'BEGIN{exit !(a<b)}'; }; then best=$cn; fi
  done
  for r in $PEERS; do
    cn=$(num "$(cell "$p/$r")")
    if [ -n "$cn" ] && [ -n "$tn" ]; then row+=("$(ratio "$cn" "$tn")"); else row+=("n/a"); fi
  done
  if [ -n "$best" ] && [ -n "$tn" ]; then row+=("$(ratio "$best" "$tn")"); else row+=("n/a"); fi
  rows+=("$(IFS='|'; echo "${row[*]}")")
done

echo
echo "task_overhead, median of $REPS runs, $NTASKS tasks, $WORKERS workers (µs per task; ratio = peer/tamm, >1 means tamm faster)"
{
  (IFS='|'; echo "${header[*]}")
  printf '%s\n' "${rows[@]}"
} | column -t -s '|' -o ' | '

md_row() { echo "| ${1//|/ | } |"; }
{
  echo "### task_overhead — $(date -u +%Y-%m-%d), $(uname -n), $(nproc) cores"
  echo
  echo "Median of $REPS runs, $NTASKS tasks, WORKERS=$WORKERS. µs per task; ratio columns are peer/tamm (> 1: tamm faster)."
  echo
  md_row "$(IFS='|'; echo "${header[*]}")"
  n=${#header[@]}; sep="|"; for ((k = 0; k < n; k++)); do sep="$sep---|"; done; echo "$sep"
  for row in "${rows[@]}"; do md_row "$row"; done
  [ $STATUS -eq 0 ] || { echo; echo "**Checksum mismatch in the cells marked !**"; }
} >"$MD_OUT"
echo
echo "markdown: $MD_OUT"
if [ $STATUS -ne 0 ]; then
  echo "!!!!!!!! CHECKSUM MISMATCHES: see the cells marked ! and the messages above !!!!!!!!" >&2
fi
exit $STATUS
