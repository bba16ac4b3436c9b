#!/bin/sh
# run_cholesky_mpi.sh — distributed Cholesky, tamm (cholesky_mpi) against
# StarPU-MPI (cholesky_starpumpi, when built), at 1, 2 and 4 ranks.
#
#   BIN_DIR=build/bench bench/run_cholesky_mpi.sh
#
# Environment: BIN_DIR (where the programs are; default build/bench), N
# (2048), NB (256), REPS (3: best time of), RANKS ("1 2 4"), WORKERS
# (workers per rank for each rank count, "1:2 2:1 4:1": the same for both
# runtimes, TAMM_NUM_WORKERS and STARPU_NCPU), MPIRUN (mpirun --oversubscribe
# --bind-to none).  OpenBLAS runs single-threaded (OPENBLAS_NUM_THREADS=1);
# StarPU workers are not bound to cores (STARPU_WORKERS_NOBIND=1: ranks share
# the cores) and use its default scheduler.  Every run checks its factor
# first (once per rank count, "check").
#
# Prints a markdown table: per rank count, tamm's and StarPU-MPI's best time
# and GFLOP/s, the ratio (StarPU time / tamm time: above 1, tamm is faster),
# tamm's bytes received per rank against the minimum the distribution needs,
# and the share of tamm's communication time overlapped with compute.
set -u
: "${BIN_DIR:=build/bench}"
: "${N:=2048}"
: "${NB:=256}"
: "${REPS:=3}"
: "${RANKS:=1 2 4}"
: "${WORKERS:=1:2 2:1 4:1}"
: "${MPIRUN:=mpirun --oversubscribe --bind-to none}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
export STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1

tamm=$BIN_DIR/cholesky_mpi
spu=$BIN_DIR/cholesky_starpumpi
[ -x "$tamm" ] || { echo "run_cholesky_mpi.sh: $tamm not found (build the project with OpenBLAS/LAPACKE)" >&2; exit 1; }
[ -x "$spu" ] || { echo "run_cholesky_mpi.sh: $spu not built (StarPU-MPI not found): StarPU columns are n/a" >&2; spu=; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cholmpi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

workers_for() {
    for wp in $WORKERS; do
        [ "${wp%%:*}" = "$1" ] && { echo "${wp#*:}"; return; }
    done
    echo 1
}
field() { sed -n "s/.* $1 \([^ ]*\).*/\1/p" "$2" | head -n 1; }
best() { sort -g | head -n 1; }

echo "N = $N, NB = $NB, best of $REPS; workers per rank (both runtimes): $WORKERS"
echo
echo "| ranks | workers/rank | tamm time (s) | tamm GFLOP/s | StarPU-MPI time (s) | StarPU-MPI GFLOP/s | StarPU/tamm time | tamm bytes recv/rank | minimum | ratio | overlapped |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
status=0
for np in $RANKS; do
    w=$(workers_for "$np")
    # shellcheck disable=SC2086
    if ! env TAMM_NUM_WORKERS="$w" $MPIRUN -np "$np" "$tamm" "$N" "$NB" check > "$tmp/tc" 2>&1; then
        cat "$tmp/tc" >&2; echo "run_cholesky_mpi.sh: tamm check failed at $np ranks" >&2; status=1; continue
    fi
    : > "$tmp/tt"
    for r in $(seq "$REPS"); do
        # shellcheck disable=SC2086
        env TAMM_NUM_WORKERS="$w" TAMM_STATS=1 $MPIRUN -np "$np" "$tamm" "$N" "$NB" > "$tmp/t.out" 2> "$tmp/t.err" || { cat "$tmp/t.err" >&2; status=1; }
        t=$(field time_s "$tmp/t.out")
        echo "$t" >> "$tmp/tt"
        if [ "$t" = "$(best < "$tmp/tt")" ]; then cp "$tmp/t.out" "$tmp/tbest.out"; cp "$tmp/t.err" "$tmp/tbest.err"; fi
    done
    tt=$(best < "$tmp/tt")
    tg=$(field gflops "$tmp/tbest.out")
    bmin=$(field bytes_min_per_rank "$tmp/tbest.out")
    # mean bytes received per rank, and overlap min-max over the ranks
    brecv=$(sed -n 's/.*received (\([0-9]*\) bytes).*/\1/p' "$tmp/tbest.err" | awk -v np="$np" '{ s += $1 } END { printf "%.0f", s / np }')
    ovl=$(sed -n 's/.*communication \([0-9.]*\) ms, of which exposed (every worker idle) \([0-9.]*\) ms.*/\1 \2/p' "$tmp/tbest.err" |
          awk '$1 > 0 { o = 100 * (1 - $2 / $1); if (n == 0 || o < lo) lo = o; if (n == 0 || o > hi) hi = o; n++ }
               END { if (n == 0) print "–"; else if (hi - lo < 1) printf "%.0f %%", lo; else printf "%.0f–%.0f %%", lo, hi }')
    ratio=$(awk -v a="$brecv" -v b="$bmin" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "–" }')
    st=n/a; sg=n/a; sr=n/a
    if [ -n "$spu" ]; then
        # shellcheck disable=SC2086
        if ! env STARPU_NCPU="$w" $MPIRUN -np "$np" "$spu" "$N" "$NB" check > "$tmp/sc" 2>&1; then
            cat "$tmp/sc" >&2; echo "run_cholesky_mpi.sh: StarPU-MPI check failed at $np ranks" >&2; status=1
        else
            : > "$tmp/st"
            for r in $(seq "$REPS"); do
                # shellcheck disable=SC2086
                env STARPU_NCPU="$w" $MPIRUN -np "$np" "$spu" "$N" "$NB" > "$tmp/s.out" 2> "$tmp/s.err" || { cat "$tmp/s.err" >&2; status=1; }
                field time_s "$tmp/s.out" >> "$tmp/st"
            done
            st=$(best < "$tmp/st")
            sg=$(awk -v n="$N" -v t="$st" 'BEGIN { printf "%.2f", n * n * n / 3.0 / t * 1e-9 }')
            sr=$(awk -v a="$st" -v b="$tt" 'BEGIN { printf "%.2f", a / b }')
        fi
    fi
    [ "$np" = 1 ] && { brecv=0; ratio=–; ovl=–; }
    echo "| $np | $w | $tt | $tg | $st | $sg | $sr | $brecv | $bmin | $ratio | $ovl |"
done
exit $status
