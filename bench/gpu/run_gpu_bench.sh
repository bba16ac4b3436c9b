#!/usr/bin/env bash
# run_gpu_bench.sh [BUILD_DIR] — run the GPU benchmarks of bench/gpu on this
# machine's first GPU and print the rows of the tables in bench/README.md.
#   DGEMM_N, DGEMM_NB   matrix and tile size (default 16384, 2048)
#   REPS                repetitions, the best is kept (default 3)
# The GrCUDA ports run twice: as tamm schedules them (4 streams, the DAG's
# parallelism, TAMM_SCHED=eft) and with the same kernels issued in order on one
# stream (TAMM_CUDA_STREAMS=1 TAMM_SCHED=fifo,round-robin).
set -euo pipefail
build=${1:-build}
b=$build/bench/gpu
N=${DGEMM_N:-16384}
NB=${DGEMM_NB:-2048}
REPS=${REPS:-3}
export TAMM_NUM_GPUS=1
for x in dgemm_tiles bench_b1 bench_b5 bench_b6 bench_b8; do
    [ -x "$b/$x" ] || { echo "run_gpu_bench.sh: $b/$x is missing (build with CUDA first)" >&2; exit 1; }
done
echo "## DGEMM (N=$N, NB=$NB)"
"$b/dgemm_tiles" "$N" "$NB" "$REPS"
limit=$(( 3 * N * N * 8 * 2 / 3 ))   # the data is 1.5x the limit
TAMM_CUDA_MEMORY_LIMIT=$limit TAMM_STATS=1 "$b/dgemm_tiles" "$N" "$NB" "$REPS" 2> >(grep -E '^tamm stats: rank [0-9]+: GPU' >&2)
echo
echo "## GrCUDA ports: tamm (DAG on 4 streams) vs the same kernels in order on one stream"
run() { # name args...
    local name=$1; shift
    local dag one
    dag=$("$b/bench_$name" "$@")
    one=$(TAMM_CUDA_STREAMS=1 TAMM_SCHED=fifo,round-robin "$b/bench_$name" "$@")
    local td to
    td=$(sed -nE 's/.*: ([0-9.]+) ms per iteration.*/\1/p' <<<"$dag")
    to=$(sed -nE 's/.*: ([0-9.]+) ms per iteration.*/\1/p' <<<"$one")
    printf '| %s | %s | %s ms | %s ms | %.2fx |\n' "$name" "$*" "$td" "$to" "$(echo "$to / $td" | bc -l)"
    [ "${dag##*,}" = "${one##*,}" ] || echo "  (results differ: '$dag' vs '$one')"
}
run b1 $((1 << 27)) 16 10
run b5 $((1 << 23)) 10 4 10
run b6 $((1 << 20)) 200 16 10
run b8 8192 2048 10
