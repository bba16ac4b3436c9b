#!/usr/bin/env bash
# run_ooc.sh — out-of-core tiled GEMM and Cholesky: tamm under TAMM_MEMORY_LIMIT and
# StarPU with a CPU memory limit and a disk swap node, each against its own run in
# core, on the same tiles in the same run.  It measures; it never asserts timings.
#
# Usage: run_ooc.sh [BIN_DIR]
# Environment (defaults):
#   BIN_DIR      directory with gemm, cholesky (tammcc builds) and linalg_starpu
#                (first argument, else ./bench or ./)
#   KERNELS="gemm cholesky"   N_gemm=4096   N_cholesky=6144   NB=256
#   FACTORS="2 4"  the matrices' bytes over the limit (limit = bytes / factor)
#   REPS=3       timed runs per configuration; the configurations are interleaved
#                within each repetition (in an order rotated by one each repetition)
#                and the tables give medians, and the median of
#                the per-repetition ratios to the in-core run ("paired")
#   WORKERS=2    TAMM_NUM_WORKERS / STARPU_NCPU
#   IMPLS="tamm starpu"
#   CHECK=1      one extra, untimed run per configuration first, with -check (the
#                result against the whole-matrix OpenBLAS result): its maxrss holds the
#                reference's matrices, so it is kept out of the tables
#   SPILL_DIR    where the spill files go (default: TMPDIR, else /tmp): tamm's
#                TAMM_SPILL_DIR, StarPU's STARPU_DISK_SWAP (a fresh subdirectory)
#   QUICK=1      smoke test: N_gemm=512 N_cholesky=1024 NB=128 REPS=1 (limits of 1 MiB
#                and more: StarPU takes its limit in whole MiB)
#   TIMEOUT=600  seconds per run
#   MD_OUT=ooc_results.md   the markdown copy of the table
#
# Matrix bytes: GEMM A, B and C (3 N^2 doubles); Cholesky the lower tiles only (the
# upper ones are never touched).  Modes: "in core" (no limit), "2x" (limit = bytes/2),
# "4x" (bytes/4).  tamm: TAMM_MEMORY_LIMIT=<limit> TAMM_SPILL_DIR=<dir> TAMM_STATS=1,
# from whose summary the table takes the peak of resident block bytes, bytes spilled and
# read back, and the time tasks waited for memory.  StarPU (linalg_starpu -ooc: tiles
# allocated by StarPU, home node -1, so that it may evict them): STARPU_LIMIT_CPU_MEM
# (MiB, rounded down) and STARPU_DISK_SWAP=<dir> STARPU_DISK_SWAP_BACKEND=unistd
# STARPU_DISK_SWAP_SIZE=<4x the matrices, MiB>; its in-core run is the same program
# without them.  maxrss (GNU time, %M) of every run is printed, for both, and beside it
# maxrss minus the program's baseline (the same program in core on one tile: libraries,
# threads, the runtime), to set against the limit.
#
# A failed run, a FAILED check, or a tamm run whose peak of resident block bytes passed
# its limit by more than one tile gives n/a and exit status 1 (a run is reported either way;
# an overshoot up to one tile is what TAMM_STATS counts as "allocations over the limit
# (nothing evictable)").
set -u

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  N_gemm=${N_gemm:-512}; N_cholesky=${N_cholesky:-1024}; NB=${NB:-128}; REPS=${REPS:-1}
fi
KERNELS=${KERNELS:-"gemm cholesky"}
N_gemm=${N_gemm:-4096}
N_cholesky=${N_cholesky:-6144}
NB=${NB:-256}
FACTORS=${FACTORS:-"2 4"}
REPS=${REPS:-3}
WORKERS=${WORKERS:-2}
IMPLS=${IMPLS:-"tamm starpu"}
CHECK=${CHECK:-1}
TIMEOUT=${TIMEOUT:-600}
MD_OUT=${MD_OUT:-ooc_results.md}
BASE_SPILL=${SPILL_DIR:-${TMPDIR:-/tmp}}

BIN_DIR=${1:-${BIN_DIR:-}}
if [ -z "$BIN_DIR" ]; then
  if [ -x ./bench/gemm ]; then BIN_DIR=./bench; else BIN_DIR=.; fi
fi
for k in $KERNELS; do
  case $k in gemm|cholesky) ;; *) echo "run_ooc.sh: unknown kernel '$k' (known: gemm cholesky)" >&2; exit 2 ;; esac
done
for i in $IMPLS; do
  case $i in tamm|starpu) ;; *) echo "run_ooc.sh: unknown implementation '$i' (known: tamm starpu)" >&2; exit 2 ;; esac
done
TIMEBIN=/usr/bin/time
if [ ! -x "$TIMEBIN" ]; then echo "run_ooc.sh: needs GNU time (/usr/bin/time) for maxrss" >&2; exit 2; fi

WORK=$(mktemp -d "$BASE_SPILL/tamm-ooc-bench.XXXXXX") || { echo "run_ooc.sh: cannot create a directory in $BASE_SPILL" >&2; exit 2; }
trap 'rm -rf "$WORK"' EXIT
STATUS=0

nsize() { eval echo "\${N_$1}"; }
# bytes of the matrices a kernel touches
mat_bytes() {
  local k=$1 n=$2 nt=$(( ($2 + NB - 1) / NB ))
  if [ "$k" = gemm ]; then echo $(( 3 * n * n * 8 ))
  else # lower tiles: the full ones plus the edge ones (exact for any N)
    local full=$(( n / NB )) r=$(( n % NB )) b=0 i j m c
    for ((i = 0; i < nt; i++)); do
      m=$NB; [ $i = $full ] && m=$r
      for ((j = 0; j <= i; j++)); do c=$NB; [ $j = $full ] && c=$r; b=$(( b + m * c * 8 )); done
    done
    echo $b
  fi
}

# run_one KERNEL IMPL MODE CHECKFLAG -> prints "gflops check maxrss_kib peak spilled readback waited_ms"
run_one() {
  local k=$1 impl=$2 mode=$3 chk=$4 n lim bytes out dir
  n=$(nsize "$k"); bytes=$(mat_bytes "$k" "$n")
  lim=0; [ "$mode" != incore ] && lim=$(( bytes / mode ))
  out=$WORK/out.txt
  local env=(OPENBLAS_NUM_THREADS=1)
  local cmd
  if [ "$impl" = tamm ]; then
    env+=(TAMM_NUM_WORKERS="$WORKERS" TAMM_STATS=1)
    [ "$lim" -gt 0 ] && env+=(TAMM_MEMORY_LIMIT="$lim" TAMM_SPILL_DIR="$WORK")
    cmd=("$BIN_DIR/$k" $chk "$n" "$NB")
  else
    env+=(STARPU_NCPU="$WORKERS" STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SILENT=1)
    if [ "$lim" -gt 0 ]; then
      dir=$WORK/starpu-disk; rm -rf "$dir"; mkdir -p "$dir"
      env+=(STARPU_LIMIT_CPU_MEM=$(( lim >> 20 )) STARPU_DISK_SWAP="$dir" STARPU_DISK_SWAP_BACKEND=unistd
            STARPU_DISK_SWAP_SIZE=$(( (4 * bytes >> 20) + 64 )))
    fi
    cmd=("$BIN_DIR/linalg_starpu" "$k" -ooc $chk "$n" "$NB")
  fi
  if ! env "${env[@]}" timeout "$TIMEOUT" "$TIMEBIN" -f "MAXRSS_KB=%M" "${cmd[@]}" > "$out" 2>&1; then
    echo "run_ooc.sh: FAILED: ${env[*]} ${cmd[*]}" >&2
    tail -5 "$out" >&2
    echo "n/a n/a n/a n/a n/a n/a n/a"
    return 1
  fi
  local g c rss pk sp rb wt
  g=$(sed -n 's/^RESULT .* gflops=\([0-9.]*\).*/\1/p' "$out" | head -1)
  c=$(sed -n 's/^RESULT .* check=\([a-zA-Z]*\).*/\1/p' "$out" | head -1)
  rss=$(sed -n 's/^MAXRSS_KB=\([0-9]*\)/\1/p' "$out" | tail -1)
  pk=$(sed -n 's/.*peak memory: \([0-9]*\) bytes.*/\1/p' "$out" | head -1)
  sp=$(sed -n 's/.* \([0-9]*\) bytes spilled.*/\1/p' "$out" | head -1)
  rb=$(sed -n 's/.* \([0-9]*\) bytes read back.*/\1/p' "$out" | head -1)
  wt=$(sed -n 's/.*waited for memory (\([0-9.]*\) ms.*/\1/p' "$out" | head -1)
  if [ "$impl" = tamm ] && [ "$lim" = 0 ]; then sp=0; rb=0; wt=0; fi
  echo "${g:-n/a} ${c:-n/a} ${rss:-n/a} ${pk:--} ${sp:--} ${rb:--} ${wt:--}"
  [ -n "$g" ] || return 1
  [ "$c" = FAILED ] && return 1
  # the runtime may pass its limit by an allocation when nothing is evictable at that moment
  # (TAMM_STATS "allocations over the limit"): by more than one tile is a failure
  if [ "$impl" = tamm ] && [ "$lim" -gt 0 ] && [ -n "$pk" ] && [ "$pk" -gt $(( lim + NB * NB * 8 )) ]; then
    echo "run_ooc.sh: tamm's peak of resident block bytes $pk passed TAMM_MEMORY_LIMIT=$lim by more than one tile ($k N=$n)" >&2
    return 1
  fi
  return 0
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
mib() { case $1 in n/a|-) echo "$1" ;; *) awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}' ;; esac; }

MODES="incore $FACTORS"
declare -A RES CHK BASE
# baseline maxrss of each program (libraries, threads, runtime): one tile, in core
for k in $KERNELS; do
  for impl in $IMPLS; do
    saved=$(nsize "$k"); eval "N_$k=$NB"
    r=$(run_one "$k" "$impl" incore "") || STATUS=1
    eval "N_$k=$saved"
    set -- $r
    BASE[$k,$impl]=$3
    echo "baseline $k $impl (N=$NB, one tile): maxrss=$3KiB"
  done
done
echo "run_ooc.sh: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), WORKERS=$WORKERS, NB=$NB, REPS=$REPS, spill files in $BASE_SPILL"
for k in $KERNELS; do
  n=$(nsize "$k"); bytes=$(mat_bytes "$k" "$n")
  echo "== $k N=$n NB=$NB: matrices $(mib "$bytes") MiB"
  if [ "$CHECK" = 1 ]; then
    for mode in $MODES; do
      for impl in $IMPLS; do
        r=$(run_one "$k" "$impl" "$mode" -check) || STATUS=1
        set -- $r
        CHK[$k,$impl,$mode]=$2
        echo "check  $k $impl $mode: check=$2 gflops=$1"
      done
    done
  fi
  # every configuration once per repetition, in an order rotated by one each repetition: on
  # this VM a run right after an in-core run is slower than one after an out-of-core run
  # (bench/README.md "Out of core - 2026-11-27"), so no configuration always follows the same one
  confs=()
  for mode in $MODES; do for impl in $IMPLS; do confs+=("$mode $impl"); done; done
  for ((rep = 1; rep <= REPS; rep++)); do
    for ((c = 0; c < ${#confs[@]}; c++)); do
      set -- ${confs[$(( (c + rep - 1) % ${#confs[@]} ))]}
      mode=$1 impl=$2
      r=$(run_one "$k" "$impl" "$mode" "") || STATUS=1
      RES[$k,$impl,$mode,$rep]=$r
      set -- $r
      echo "run $rep $k $impl $mode: gflops=$1 maxrss=$3KiB peak=$4 spilled=$5 readback=$6 waited_ms=$7"
    done
  done
done

# the table: medians over the repetitions
{
  echo "| kernel | N | matrices MiB | impl | mode | limit MiB | GFLOP/s (median) | / in core | / in core, paired | maxrss MiB | maxrss - baseline MiB | peak resident MiB | spilled MiB | read back MiB | waited for memory ms | check |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for k in $KERNELS; do
    n=$(nsize "$k"); bytes=$(mat_bytes "$k" "$n")
    for impl in $IMPLS; do
      base=
      for mode in $MODES; do
        declare -a col=()
        for f in 1 3 4 5 6 7; do
          col[$f]=$(for ((rep = 1; rep <= REPS; rep++)); do
                      echo "${RES[$k,$impl,$mode,$rep]}" | awk -v f=$f '{print $f}'; done | grep -v -e 'n/a' -e '^-$' | median)
        done
        g=${col[1]}
        [ "$mode" = incore ] && base=$g
        ratio=n/a
        if [ "$g" != n/a ] && [ -n "$base" ] && [ "$base" != n/a ]; then ratio=$(awk -v a="$g" -v b="$base" 'BEGIN {printf "%.2f", a / b}'); fi
        # paired: the median over the repetitions of this run's GFLOP/s over the in-core run's of
        # the same repetition (less sensitive to a load that drifts between repetitions)
        pr=$(for ((rep = 1; rep <= REPS; rep++)); do
               a=$(echo "${RES[$k,$impl,$mode,$rep]}" | awk '{print $1}'); b=$(echo "${RES[$k,$impl,incore,$rep]}" | awk '{print $1}')
               [ "$a" != n/a ] && [ "$b" != n/a ] && awk -v a="$a" -v b="$b" 'BEGIN {if (b > 0) printf "%.4f\n", a / b}'
             done | median)
        [ "$pr" != n/a ] && pr=$(awk -v x="$pr" 'BEGIN {printf "%.2f", x}')
        if [ "$mode" = incore ]; then lm="none"; md="in core"; else lm=$(mib $(( bytes / mode ))); md="${mode}x"; fi
        rss=${col[3]}; over=n/a; b=${BASE[$k,$impl]:-n/a}
        if [ "$rss" != n/a ] && [ "$b" != n/a ]; then over=$(awk -v k="$rss" -v b="$b" 'BEGIN {printf "%.1f", (k - b) / 1024}'); fi
        [ "$rss" != n/a ] && rss=$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')
        if [ "$impl" = tamm ]; then pk=$(mib "${col[4]}"); sp=$(mib "${col[5]}"); rb=$(mib "${col[6]}"); wt=${col[7]}
        else pk=-; sp=-; rb=-; wt=-; fi
        c=${CHK[$k,$impl,$mode]:-not run}
        echo "| $k | $n | $(mib "$bytes") | $impl | $md | $lm | $g | $ratio | $pr | $rss | $over | $pk | $sp | $rb | $wt | $c |"
      done
    done
  done
} > "$WORK/table.md"
echo
cat "$WORK/table.md"
cp "$WORK/table.md" "$MD_OUT"
echo "(markdown in $MD_OUT)"
exit $STATUS
