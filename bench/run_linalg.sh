#!/usr/bin/env bash
# run_linalg.sh — tiled GEMM and Cholesky: tamm against one multithreaded OpenBLAS
# call, StarPU (Debian's prebuilt examples and the same tiles as tamm), and OpenMP
# tasks with depend (libgomp, libomp).  It measures; it never asserts timings.
#
# Usage: run_linalg.sh [BIN_DIR]
# Environment (defaults):
#   BIN_DIR      directory with gemm, cholesky (tammcc builds) and linalg_* (first
#                argument, else ./bench or ./ if they hold them)
#   QUICK=0      1: smoke test: SIZES=512, NBS=128, REPS=1, CHECK=1
#   SIZES="4096 8192"   KERNELS="gemm cholesky"   REPS=3   WORKERS=$(nproc)
#   NBS="256 512"       tile sizes tried by every tiled implementation; overrides,
#                       most specific first: NBS_<kernel>_<N>, NBS_<kernel>, NBS_<N>
#                       (e.g. NBS_gemm="256 512 1024", NBS_cholesky_8192="256 512").
#                       The summary gives each implementation at its best tile size.
#   IMPLS="openblas tamm gomp libomp starpu_tiles starpu_examples"; also tamm_ws,
#                tamm_prio, tamm_fifo: tamm with that TAMM_SCHED (to compare schedulers)
#   CHECK=1      compare each implementation's result with OpenBLAS in its first
#                repetition (the prebuilt StarPU examples: their own -check, only
#                for N <= CHECK_EXAMPLES_MAX=4096: the dgemm check is single-threaded)
#   STARPU_EXAMPLES_DIR  where cholesky_implicit and dgemm are
#                (default: found with dpkg -L starpu-examples)
#   STARPU_DGEMM_ITER=20  -iter for the prebuilt dgemm (Debian's build runs -iter/10
#                iterations, STARPU_QUICK_CHECK, and prints their mean time)
#   QUIET_IDLE=0 if > 0: before each run, wait until the machine was at least this
#                many percent idle over one second (other processes), for at most
#                QUIET_WAIT=120 seconds per run; the runs that started on a busy
#                machine are counted and reported
#   NOISE_MAX=0  if > 0: a run during which other processes used more than this percent
#                of the machine's CPU (measured from /proc/stat minus the run's own CPU
#                time, /usr/bin/time) is run again, at most NOISE_RETRIES=3 times; the
#                share is printed with every run either way
#   TIMEOUT=1200 seconds per run (timeout(1)); a run past it counts as failed
#   MD_OUT=linalg_results.md   the markdown copy of the tables
# Scheduler knobs pass through: TAMM_SCHED, STARPU_SCHED, OMP_MAX_TASK_PRIORITY...; so do
# TAMM_HUGEPAGES (tamm's large blocks on huge pages, default 1) and LINALG_HUGEPAGES=1
# (the same for the other programs' tiles and matrices, linalg_common.h; default off)
#
# Threads for WORKERS=w: tamm TAMM_NUM_WORKERS=w; OpenMP OMP_NUM_THREADS=w;
# StarPU STARPU_NCPU=w STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SILENT=1 and
# OPENBLAS_NUM_THREADS=1; the whole-matrix call OPENBLAS_NUM_THREADS=w.  The tiled
# programs call openblas_set_num_threads(1) themselves and are also started with
# OPENBLAS_NUM_THREADS=1 (see OB1 below).
#
# Every (kernel, N) is run REPS times, the implementations (and tile sizes)
# interleaved within each repetition; tables give the median GFLOP/s (GEMM 2N^3,
# Cholesky N^3/3 flops).  A failing, missing or mismatching run gives n/a (or a
# cell marked !) and exit status 1; the driver goes on.
set -u

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  SIZES=${SIZES:-512}; NBS=${NBS:-128}; REPS=${REPS:-1}; CHECK=${CHECK:-1}
fi
SIZES=${SIZES:-"4096 8192"}
KERNELS=${KERNELS:-"gemm cholesky"}
REPS=${REPS:-3}
WORKERS=${WORKERS:-$(nproc)}
NBS=${NBS:-"256 512"}
IMPLS=${IMPLS:-"openblas tamm gomp libomp starpu_tiles starpu_examples"}
CHECK=${CHECK:-1}
# bad names are refused before anything runs (not after the first measurements)
for impl in $IMPLS; do
  case $impl in
    openblas|tamm|tamm_ws|tamm_fifo|tamm_prio|gomp|libomp|starpu_tiles|starpu_examples) ;;
    *) echo "run_linalg.sh: unknown implementation '$impl' in IMPLS (known: openblas tamm tamm_ws tamm_fifo tamm_prio gomp libomp starpu_tiles starpu_examples)" >&2
       exit 2 ;;
  esac
done
for k in $KERNELS; do
  case $k in
    gemm|cholesky) ;;
    *) echo "run_linalg.sh: unknown kernel '$k' in KERNELS (known: gemm cholesky)" >&2; exit 2 ;;
  esac
done
CHECK_EXAMPLES_MAX=${CHECK_EXAMPLES_MAX:-4096}
TIMEOUT=${TIMEOUT:-1200}
STARPU_DGEMM_ITER=${STARPU_DGEMM_ITER:-20}
QUIET_IDLE=${QUIET_IDLE:-0}
NOISE_MAX=${NOISE_MAX:-0}
NOISE_RETRIES=${NOISE_RETRIES:-3}
QUIET_WAIT=${QUIET_WAIT:-120}
MD_OUT=${MD_OUT:-linalg_results.md}

if [ $# -ge 1 ]; then BIN_DIR=$1; fi
if [ -z "${BIN_DIR:-}" ]; then
  for d in ./bench . ; do
    if [ -x "$d/linalg_openblas" ] || [ -x "$d/gemm" ]; then BIN_DIR=$d; break; fi
  done
fi
BIN_DIR=${BIN_DIR:-.}

if [ -z "${STARPU_EXAMPLES_DIR:-}" ]; then
  f=$(dpkg -L starpu-examples 2>/dev/null | grep -E '/examples/cholesky_implicit$' | head -n 1)
  STARPU_EXAMPLES_DIR=${f%/cholesky_implicit}
fi

declare -A LABEL=([openblas]="OpenBLAS" [tamm]="tamm" [gomp]="libgomp" [libomp]="libomp"
                  [starpu_tiles]="StarPU tiles" [starpu_examples]="StarPU example"
                  [tamm_ws]="tamm (ws)" [tamm_prio]="tamm (prio)" [tamm_fifo]="tamm (fifo)")
# The tiled programs run OpenBLAS single-threaded.  Starting them with OPENBLAS_NUM_THREADS=1
# keeps OpenBLAS from creating its thread pool at load time, whose idle thread otherwise spins
# in sched_yield for ~0.1 s, competing with the workers (the -check reference raises the
# thread count again with openblas_set_num_threads).
OB1="OPENBLAS_NUM_THREADS=1"
STARPU_ENV="STARPU_NCPU=$WORKERS STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SILENT=1 $OB1"

tiled() { [ "$1" != openblas ]; }
nbs_for() {  # KERNEL N -> tile sizes: NBS_<kernel>_<N>, NBS_<kernel>, NBS_<N>, else NBS
  local v
  for v in "NBS_$1_$2" "NBS_$1" "NBS_$2"; do
    if [ -n "${!v:-}" ]; then echo "${!v}"; return; fi
  done
  echo "$NBS"
}

median() {  # numbers on stdin -> median (mean of the middle two for an even count)
  sort -g | awk '{a[NR]=$1} END { if (NR==0) exit 1;
    if (NR%2) printf "%.1f\n", a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2 }'
}

declare -A GF BAD FAILS
STATUS=0
LOG=$(mktemp)

cpu_idle_pct() {  # percent of CPU time idle over the next second (all cores)
  local a b
  read -r -a a < <(grep '^cpu ' /proc/stat)
  sleep 1
  read -r -a b < <(grep '^cpu ' /proc/stat)
  awk -v u0="${a[1]}" -v n0="${a[2]}" -v s0="${a[3]}" -v i0="${a[4]}" -v w0="${a[5]}" -v q0="${a[6]}" -v r0="${a[7]}" -v t0="${a[8]}" \
      -v u1="${b[1]}" -v n1="${b[2]}" -v s1="${b[3]}" -v i1="${b[4]}" -v w1="${b[5]}" -v q1="${b[6]}" -v r1="${b[7]}" -v t1="${b[8]}" \
      'BEGIN { idle = (i1 - i0) + (w1 - w0); tot = (u1+n1+s1+i1+w1+q1+r1+t1) - (u0+n0+s0+i0+w0+q0+r0+t0);
               printf "%d\n", (tot > 0 ? 100 * idle / tot : 100) }'
}
NOISY=0
NRUNS=0
NREPEATED=0
NOISE_SUM=0; NOISE_N=0; NOISE_WORST=0; NOISE_OVER10=0
TLOG=$(mktemp)
trap 'rm -f "$LOG" "$TLOG"' EXIT
TIME_CMD=""
[ -x /usr/bin/time ] && TIME_CMD="/usr/bin/time -q -o $TLOG -f %U_%S"
cpu_jiffies() {  # busy and total jiffies of all cores so far
  awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6 }' /proc/stat
}
foreign_pct() {  # B0 T0 B1 T1 -> percent of the machine's CPU used by other processes during the run
  local us; us=$(tr '_' ' ' <"$TLOG" 2>/dev/null | awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { print $1 + $2 }' | tail -n 1)
  [ -n "$us" ] || return 0
  awk -v b0="$1" -v t0="$2" -v b1="$3" -v t1="$4" -v us="$us" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { f = (b1 - b0) - us * hz; if (f < 0) f = 0; printf "%d\n", (t1 > t0 ? 100 * f / (t1 - t0) : 0) }'
}
wait_quiet() {
  [ "$QUIET_IDLE" -gt 0 ] || return 0
  local start=$SECONDS idle
  while :; do
    idle=$(cpu_idle_pct)
    [ "$idle" -ge "$QUIET_IDLE" ] && return 0
    if [ $((SECONDS - start)) -ge "$QUIET_WAIT" ]; then
      NOISY=$((NOISY + 1)); echo "  (machine still busy: ${idle}% idle; running anyway)"; return 0
    fi
  done
}

# run_one KERNEL IMPL N NB CHECKFLAG -> appends to GF["K/N/IMPL/NB"]
run_one() {
  local k=$1 impl=$2 n=$3 nb=$4 chk=$5 key="$1/$3/$2/$4" out rc gf cmd envs line
  local chkarg=""; [ "$chk" = 1 ] && chkarg="-check"
  case $impl in
    openblas) envs="OPENBLAS_NUM_THREADS=$WORKERS"; cmd="$BIN_DIR/linalg_openblas $k $chkarg $n" ;;
    tamm)     envs="TAMM_NUM_WORKERS=$WORKERS $OB1"; cmd="$BIN_DIR/$k $chkarg $n $nb" ;;
    tamm_*)   envs="TAMM_NUM_WORKERS=$WORKERS TAMM_SCHED=${impl#tamm_} $OB1"; cmd="$BIN_DIR/$k $chkarg $n $nb" ;;
    gomp|libomp) envs="OMP_NUM_THREADS=$WORKERS $OB1"; cmd="$BIN_DIR/linalg_$impl $k $chkarg $n $nb" ;;
    starpu_tiles) envs=$STARPU_ENV; cmd="$BIN_DIR/linalg_starpu $k $chkarg $n $nb" ;;
    starpu_examples)
      envs=$STARPU_ENV
      [ "$n" -le "$CHECK_EXAMPLES_MAX" ] || chkarg=""
      if [ "$k" = gemm ]; then
        # Debian builds the examples with STARPU_QUICK_CHECK, which divides -iter
        # by 10: -iter 20 runs 2 iterations; it prints their mean.
        cmd="$STARPU_EXAMPLES_DIR/dgemm -size $n -nblocks $((n / nb)) -iter $STARPU_DGEMM_ITER $chkarg"
      else
        cmd="$STARPU_EXAMPLES_DIR/cholesky_implicit -size $n -nblocks $((n / nb)) $chkarg"
      fi ;;
  esac
  local exe=${cmd%% *}
  if [ ! -x "$exe" ]; then
    [ -n "${FAILS[$key]:-}" ] || echo "  $k N=$n $impl: $exe not found: n/a" >&2
    FAILS[$key]="missing"; return
  fi
  local attempt=0 b0 t0 b1 t1 noise
  while :; do
    wait_quiet
    NRUNS=$((NRUNS + 1))
    read -r b0 t0 < <(cpu_jiffies)
    : >"$TLOG"
    # shellcheck disable=SC2086
    out=$(env $envs timeout "$TIMEOUT" $TIME_CMD $cmd 2>"$LOG")
    rc=$?
    read -r b1 t1 < <(cpu_jiffies)
    noise=$(foreign_pct "$b0" "$t0" "$b1" "$t1")
    if [ "$NOISE_MAX" -gt 0 ] && [ -n "$noise" ] && [ "$noise" -gt "$NOISE_MAX" ] && [ $attempt -lt "$NOISE_RETRIES" ]; then
      attempt=$((attempt + 1)); NREPEATED=$((NREPEATED + 1))
      echo "  ($k $impl N=$n NB=$nb: other processes used ${noise}% of the CPU: run again)"
      continue
    fi
    break
  done
  if [ -n "$noise" ]; then
    NOISE_SUM=$((NOISE_SUM + noise)); NOISE_N=$((NOISE_N + 1))
    [ "$noise" -le "$NOISE_WORST" ] || NOISE_WORST=$noise
    [ "$noise" -le 10 ] || NOISE_OVER10=$((NOISE_OVER10 + 1))
  fi
  if [ "$impl" = starpu_examples ]; then
    # cholesky_implicit: "# size ms GFlop/s" then "N ms gflops"; dgemm: "# x y z ms GFlops" then "N N N ms gflops".
    if [ "$k" = gemm ]; then
      gf=$(awk -v n="$n" '$1 == n && $2 == n && $3 == n { print $5 }' <<<"$out" | tail -n 1)
      [ -z "$chkarg" ] || grep -q "Results are OK" "$LOG" || { [ $rc -ne 0 ] || rc=99; }
    else
      gf=$(awk -v n="$n" '$1 == n && NF >= 3 { print $3 }' <<<"$out" | tail -n 1)
    fi
    line="$k $impl N=$n NB=$nb: ${gf:-?} GFLOP/s${chkarg:+ (checked)}"
  else
    line=$(grep '^RESULT ' <<<"$out" | tail -n 1)
    gf=$(sed -n 's/.* gflops=\([0-9.]*\) .*/\1/p' <<<"$line")
    if grep -q 'check=FAILED' <<<"$line"; then BAD[$key]=1; fi
  fi
  if [ $rc -ne 0 ] || [ -z "$gf" ]; then
    if [ -n "$gf" ]; then BAD[$key]=1; GF[$key]="${GF[$key]:-} $gf"; fi
    FAILS[$key]="failed"; STATUS=1
    echo "  $k N=$n $impl NB=$nb: FAILED (exit $rc): $(tail -n 3 "$LOG" | tr '\n' ' ')" >&2
    return
  fi
  [ -z "${BAD[$key]:-}" ] || STATUS=1
  GF[$key]="${GF[$key]:-} $gf"
  echo "  $line${noise:+  [others: $noise% CPU]}"
}

echo "linalg: SIZES='$SIZES' KERNELS='$KERNELS' REPS=$REPS WORKERS=$WORKERS NBS='$NBS' BIN_DIR=$BIN_DIR"
echo "host: $(uname -n), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ); StarPU examples: ${STARPU_EXAMPLES_DIR:-not found}"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average at the start: $LOAD0"
echo "env: TAMM_SCHED=${TAMM_SCHED:-} STARPU_SCHED=${STARPU_SCHED:-} OMP_MAX_TASK_PRIORITY=${OMP_MAX_TASK_PRIORITY:-} TAMM_HUGEPAGES=${TAMM_HUGEPAGES:-} LINALG_HUGEPAGES=${LINALG_HUGEPAGES:-}"

for k in $KERNELS; do
  for n in $SIZES; do
    for ((rep = 1; rep <= REPS; rep++)); do
      chk=0; [ "$CHECK" = 1 ] && [ $rep -eq 1 ] && chk=1
      hdr="== $k N=$n repetition $rep/$REPS"; [ $chk = 0 ] || hdr="$hdr (with result checks)"
      echo "$hdr"
      for impl in $IMPLS; do
        if tiled "$impl"; then
          for nb in $(nbs_for "$k" "$n"); do run_one "$k" "$impl" "$n" "$nb" "$chk"; done
        else
          run_one "$k" "$impl" "$n" 0 "$chk"
        fi
      done
    done
  done
done

LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average at the end: $LOAD1"
NOISE_NOTE="load average $LOAD0 at the start, $LOAD1 at the end"
[ "$NOISE_N" -eq 0 ] || NOISE_NOTE="$NOISE_NOTE; other processes used on average $((NOISE_SUM / NOISE_N))% of the CPU during the kept runs (worst $NOISE_WORST%, $NOISE_OVER10 of $NOISE_N runs above 10%)"
[ "$NOISE_MAX" -le 0 ] || NOISE_NOTE="$NOISE_NOTE; $NREPEATED runs were repeated because others used more than $NOISE_MAX%"
[ "$QUIET_IDLE" -le 0 ] || NOISE_NOTE="$NOISE_NOTE; each run waited for >= $QUIET_IDLE% idle CPU (up to ${QUIET_WAIT}s): $NOISY of $NRUNS runs started on a busy machine"

# ---- tables ----
cell() {  # STAT KEY -> the median (STAT=median) or best (STAT=max) GFLOP/s, or n/a; ! on a failed check
  local stat=$1 key=$2 m
  if [ -z "${GF[$key]:-}" ]; then echo "n/a"; return; fi
  if [ "$stat" = max ]; then
    m=$(tr ' ' '\n' <<<"${GF[$key]}" | grep . | sort -g | tail -n 1 | awk '{ printf "%.1f\n", $1 }')
  else
    m=$(tr ' ' '\n' <<<"${GF[$key]}" | grep . | median)
  fi
  if [ -n "${BAD[$key]:-}" ]; then echo "${m}!"; else echo "$m"; fi
}
num() { sed 's/!$//' <<<"$1" | grep -E '^[0-9.]+$' || true; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { a+=0; b+=0; if (a > 0 && b > 0) printf "%.2f\n", a/b; else print "n/a" }'; }

header=("kernel" "N")
for impl in $IMPLS; do header+=("${LABEL[$impl]:-$impl}"); done
RATIO_PEERS=""
for impl in $IMPLS; do [ "$impl" != tamm ] && RATIO_PEERS="$RATIO_PEERS $impl"; done
for impl in $RATIO_PEERS; do header+=("tamm/${LABEL[$impl]:-$impl}"); done

summary_rows() {  # STAT -> one '|'-separated row per (kernel, N): each implementation at its best NB
  local stat=$1 k n impl nb c v best bestnb t p row
  # StarPU's prebuilt cholesky_implicit is single precision: shown, but no ratio
  single() { [ "$1" = cholesky ] && [ "$2" = starpu_examples ]; }
  declare -A B BNB
  for k in $KERNELS; do
    for n in $SIZES; do
      for impl in $IMPLS; do
        best=""; bestnb=""
        if tiled "$impl"; then list=$(nbs_for "$k" "$n"); else list=0; fi
        for nb in $list; do
          c=$(cell "$stat" "$k/$n/$impl/$nb")
          [ "${c%!}" = "$c" ] || continue          # a wrong result is not a contender
          v=$(num "$c"); [ -n "$v" ] || continue
          if [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN{exit !(a>b)}'; then best=$v; bestnb=$nb; fi
        done
        B[$impl]=$best; BNB[$impl]=$bestnb
      done
      row=("$k" "$n")
      for impl in $IMPLS; do
        if [ -z "${B[$impl]}" ]; then row+=("n/a")
        elif single "$k" "$impl"; then row+=("(${B[$impl]}, single precision)")
        elif tiled "$impl"; then row+=("${B[$impl]} (NB=${BNB[$impl]})")
        else row+=("${B[$impl]}"); fi
      done
      t=${B[tamm]:-}
      for impl in $RATIO_PEERS; do
        p=${B[$impl]:-}
        if single "$k" "$impl"; then row+=("–")
        elif [ -n "$t" ] && [ -n "$p" ]; then row+=("$(ratio "$t" "$p")"); else row+=("n/a"); fi
      done
      (IFS='|'; echo "${row[*]}")
    done
  done
}
mapfile -t rows < <(summary_rows median)
mapfile -t brows < <(summary_rows max)

# Per tile size.
dheader=("kernel" "N" "implementation")
ALLNB=$(for k in $KERNELS; do for n in $SIZES; do nbs_for "$k" "$n"; echo; done; done | tr ' ' '\n' | grep . | sort -n -u | tr '\n' ' ')
for nb in $ALLNB; do dheader+=("NB=$nb"); done
drows=()
for k in $KERNELS; do
  for n in $SIZES; do
    for impl in $IMPLS; do
      tiled "$impl" || continue
      row=("$k" "$n" "${LABEL[$impl]:-$impl}")
      for nb in $ALLNB; do
        if [[ " $(nbs_for "$k" "$n") " == *" $nb "* ]]; then
          row+=("$(cell median "$k/$n/$impl/$nb") ($(cell max "$k/$n/$impl/$nb"))")
        else row+=("-"); fi
      done
      drows+=("$(IFS='|'; echo "${row[*]}")")
    done
  done
done

show() { { (IFS='|'; echo "$1"); shift; printf '%s\n' "$@"; } | column -t -s '|' -o ' | '; }
echo
echo "GFLOP/s, median of $REPS runs, $WORKERS workers; tiled implementations at their best tile size; ratios tamm/peer (> 1: tamm faster)"
show "$(IFS='|'; echo "${header[*]}")" "${rows[@]}"
echo
echo "The same with the best of the $REPS runs instead of the median"
show "$(IFS='|'; echo "${header[*]}")" "${brows[@]}"
echo
echo "GFLOP/s per tile size: median (best) of $REPS runs"
show "$(IFS='|'; echo "${dheader[*]}")" "${drows[@]}"

md_row() { echo "| ${1//|/ | } |"; }
md_sep() { local s="|" c; for ((c = 0; c < $1; c++)); do s="$s---|"; done; echo "$s"; }
{
  echo "### linalg — $(date -u +%Y-%m-%d), $(uname -n), $(nproc) cores"
  echo
  echo "Machine noise: $NOISE_NOTE."
  echo
  echo "GFLOP/s, median of $REPS runs, $WORKERS workers (GEMM 2N³, Cholesky N³/3 flops); tiled implementations at their best tile size NB; ratio columns tamm/peer (> 1: tamm faster)."
  echo
  md_row "$(IFS='|'; echo "${header[*]}")"; md_sep ${#header[@]}
  for row in "${rows[@]}"; do md_row "$row"; done
  echo
  echo "Best of the $REPS runs instead of the median:"
  echo
  md_row "$(IFS='|'; echo "${header[*]}")"; md_sep ${#header[@]}
  for row in "${brows[@]}"; do md_row "$row"; done
  echo
  echo "Per tile size, GFLOP/s: median (best) of $REPS runs:"
  echo
  md_row "$(IFS='|'; echo "${dheader[*]}")"; md_sep ${#dheader[@]}
  for row in "${drows[@]}"; do md_row "$row"; done
  [ $STATUS -eq 0 ] || { echo; echo "**Failed runs or result mismatches (cells marked ! or n/a)**"; }
} >"$MD_OUT"
echo
echo "markdown: $MD_OUT"
[ $STATUS -eq 0 ] || echo "!!!!!!!! FAILED RUNS OR RESULT MISMATCHES: see the messages above !!!!!!!!" >&2
exit $STATUS
