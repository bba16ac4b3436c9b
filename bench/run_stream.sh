#!/usr/bin/env bash
# run_stream.sh — peak memory of streaming scopes against the number of blocks:
# bench/stream (xy: z = x + y; matvec: y = sum over k of A[k] . x[k]) in a
# `#pragma tamm streaming` scope and without it (-plain).  It measures memory and
# checks results; it never asserts timings.
#
# Usage: run_stream.sh [BIN_DIR]
# Environment (defaults):
#   BIN_DIR       directory with stream (first argument, else ./bench or ./)
#   KERNELS="xy matvec"   BLOCKS="16 64 256"   TILE_KIB=512   WORKERS=2
#   WINDOW        TAMM_STREAM_WINDOW for the streaming runs (default: the runtime's,
#                 workers + 1)
#   QUICK=1       smoke test: BLOCKS="4 16" TILE_KIB=64
#   MD_OUT=stream_results.md   the markdown copy of the table
#
# Each run: TAMM_STATS=1 TAMM_NUM_WORKERS=$WORKERS stream [-plain] K NBLK TILE_KIB.
# The table gives the peak of resident block bytes (TAMM_STATS "peak memory") and
# maxrss (getrusage, printed by the program) of the streaming and the plain run, and
# the check of both results.  A failed run or check: n/a or FAILED and exit status 1.
set -u
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then BLOCKS=${BLOCKS:-"4 16"}; TILE_KIB=${TILE_KIB:-64}; fi
KERNELS=${KERNELS:-"xy matvec"}
BLOCKS=${BLOCKS:-"16 64 256"}
TILE_KIB=${TILE_KIB:-512}
WORKERS=${WORKERS:-2}
WINDOW=${WINDOW:-}
MD_OUT=${MD_OUT:-stream_results.md}
BIN_DIR=${1:-${BIN_DIR:-}}
if [ -z "$BIN_DIR" ]; then
  if [ -x ./bench/stream ]; then BIN_DIR=./bench; else BIN_DIR=.; fi
fi
if [ ! -x "$BIN_DIR/stream" ]; then echo "run_stream.sh: $BIN_DIR/stream not found" >&2; exit 2; fi
for k in $KERNELS; do
  case $k in xy|matvec) ;; *) echo "run_stream.sh: unknown kernel '$k' (known: xy matvec)" >&2; exit 2 ;; esac
done
STATUS=0
OUT=$(mktemp) || exit 2
trap 'rm -f "$OUT" "$OUT.md"' EXIT
mib() { case $1 in n/a) echo n/a ;; *) awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}' ;; esac; }

# run_one K NBLK streaming|plain -> "total peak maxrss_kb check"
run_one() {
  local flag=() env=(TAMM_STATS=1 TAMM_NUM_WORKERS="$WORKERS")
  if [ "$3" = plain ]; then flag=(-plain); elif [ -n "$WINDOW" ]; then env+=(TAMM_STREAM_WINDOW="$WINDOW"); fi
  if ! env "${env[@]}" "$BIN_DIR/stream" "${flag[@]}" "$1" "$2" "$TILE_KIB" > "$OUT" 2>&1; then
    echo "run_stream.sh: FAILED: ${env[*]} stream ${flag[*]} $1 $2 $TILE_KIB" >&2
    tail -5 "$OUT" >&2
  fi
  local tot pk rss c
  tot=$(sed -n 's/^STREAM .* total_bytes=\([0-9]*\).*/\1/p' "$OUT")
  rss=$(sed -n 's/^STREAM .* maxrss_kb=\([0-9]*\).*/\1/p' "$OUT")
  c=$(sed -n 's/^STREAM .* check=\([a-zA-Z]*\).*/\1/p' "$OUT")
  pk=$(sed -n 's/.*peak memory: \([0-9]*\) bytes.*/\1/p' "$OUT")
  echo "${tot:-n/a} ${pk:-n/a} ${rss:-n/a} ${c:-n/a}"
}

echo "run_stream.sh: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), WORKERS=$WORKERS, TILE_KIB=$TILE_KIB, window ${WINDOW:-default}"
{
  echo "| kernel | blocks | block bytes in all MiB | streaming: peak resident MiB | streaming: maxrss MiB | plain: peak resident MiB | plain: maxrss MiB | check (streaming, plain) |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$OUT.md"
for k in $KERNELS; do
  for nb in $BLOCKS; do
    s=$(run_one "$k" "$nb" streaming)
    p=$(run_one "$k" "$nb" plain)
    set -- $s; stot=$1; spk=$2; srss=$3; sc=$4
    set -- $p; ppk=$2; prss=$3; pc=$4
    [ "$sc" = ok ] && [ "$pc" = ok ] || STATUS=1
    r1=n/a; [ "$srss" != n/a ] && r1=$(awk -v k="$srss" 'BEGIN {printf "%.1f", k / 1024}')
    r2=n/a; [ "$prss" != n/a ] && r2=$(awk -v k="$prss" 'BEGIN {printf "%.1f", k / 1024}')
    line="| $k | $nb | $(mib "$stot") | $(mib "$spk") | $r1 | $(mib "$ppk") | $r2 | $sc, $pc |"
    echo "$line"
    echo "$line" >> "$OUT.md"
  done
done
cp "$OUT.md" "$MD_OUT"
rm -f "$OUT.md"
echo "(markdown in $MD_OUT)"
exit $STATUS
