#!/usr/bin/env bash
# gpu_check.sh — `make gpu-check`: proves the GPU path on a machine with an
# NVIDIA GPU, and prints its speed against cuBLAS and cuSOLVER.
#
#   1. the driver must be new enough for the toolkit (else a clear error);
#   2. configures and builds build-gpu/ (Release) for the GPU present
#      (CMAKE_CUDA_ARCHITECTURES=native, TAMM_REAL_GPU_TESTS=ON);
#   3. runs every gpu-labelled test (ctest -L gpu): the real-device tests
#      (test_gpu_device, gpu_pregen_*: the kernels tammcc generated for the
#      test programs, run against their plain C build, gpu_bench_*, ...) and
#      the emulated ones; a test that fails, skips or does not run fails the
#      check;
#   4. runs the benchmarks and prints one table: tiled DGEMM against one
#      cublasDgemm (in core, and with TAMM_CUDA_MEMORY_LIMIT at half the data),
#      tiled Cholesky against cusolverDnDpotrf, the GrCUDA ports against the
#      same kernels in order on one stream, the cost per task of GPU tasks, and
#      the naive GEMM kernel tammcc generates against cuBLAS.  Targets are
#      printed beside the figures; they are not asserted (timings vary), the
#      tests are.
# Exit status: 0 when every test passed.  Logs and the table: $GPU_CHECK_OUT
# (default build-gpu/gpu-check).  Sizes: DGEMM_N DGEMM_NB CHOL_N CHOL_NB REPS.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${GPU_BUILD_DIR:-build-gpu}
O=${GPU_CHECK_OUT:-$B/gpu-check}
JOBS=${JOBS:-$(nproc)}
DN=${DGEMM_N:-16384} DNB=${DGEMM_NB:-2048} CN=${CHOL_N:-16384} CNB=${CHOL_NB:-1024} REPS=${REPS:-3}
t0=$(date +%s)
step() { echo "=== gpu-check [$(( $(date +%s) - t0 )) s] $*"; }
die() { echo "gpu-check: error: $*" >&2; exit 1; }

# ---- 1. a GPU, and a driver for this toolkit
command -v nvidia-smi >/dev/null || die "nvidia-smi not found: this machine has no NVIDIA driver (make gpu-check needs a GPU; make test runs the GPU path on the emulated device)"
gpus=$(nvidia-smi -L 2>&1) || die "nvidia-smi -L failed: $gpus"
grep -q '^GPU [0-9]' <<<"$gpus" || die "nvidia-smi lists no GPU: $gpus"
NVCC=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || die "nvcc not found (set CUDACXX or put the CUDA toolkit's bin/ on PATH)"
tk=$("$NVCC" --version | sed -nE 's/.*release ([0-9]+\.[0-9]+).*/\1/p')
drv=$(nvidia-smi | sed -nE 's/.*CUDA Version: *([0-9]+\.[0-9]+).*/\1/p' | head -1)
drvv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
[ -n "$tk" ] && [ -n "$drv" ] || die "cannot read the CUDA versions (toolkit '$tk', driver '$drv')"
if awk -v d="$drv" -v t="$tk" 'BEGIN { split(d, a, "."); split(t, b, "."); exit !(a[1] < b[1] || (a[1] == b[1] && a[2] < b[2])) }'; then
    die "the NVIDIA driver $drvv supports CUDA up to $drv, older than this toolkit's $tk (nvcc at $NVCC): programs built with it cannot use the GPU; install a driver for CUDA $tk or newer, or point CUDACXX at an older toolkit"
fi
mkdir -p "$O"
step "$(head -1 <<<"$gpus"), driver $drvv (CUDA $drv), toolkit $tk, $(nproc) cores"

# ---- 2. build for the GPU present
step "configure and build $B"
if ! cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=native \
        -DTAMM_REAL_GPU_TESTS=ON > "$O/build.log" 2>&1 || ! cmake --build "$B" -j"$JOBS" >> "$O/build.log" 2>&1; then
    grep -E 'error|Error' "$O/build.log" | head -30
    die "the build failed (log: $O/build.log)"
fi

# ---- 3. every gpu-labelled test; a skip is a failure
step "ctest -L gpu"
( cd "$B" && ctest -L gpu -j"$(( JOBS < 8 ? JOBS : 8 ))" --output-on-failure --timeout 300 ) > "$O/ctest.log" 2>&1
# "100% tests passed out of 48", or "96% tests passed, 2 tests failed out of 48"
total=$(sed -nE 's/.*tests passed.* out of ([0-9]+).*/\1/p' "$O/ctest.log" | tail -1)
failed=$(sed -nE 's/.*tests passed, ([0-9]+) tests? failed out of.*/\1/p' "$O/ctest.log" | tail -1)
[ -n "$total" ] && [ -z "$failed" ] && failed=0
skipped=$(grep -E '\*\*\*Skipped|Not Run|\*\*\*Not Run' "$O/ctest.log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+).*/\1/' | sort -u)
nskip=$(grep -c . <<<"$skipped")
grep -q 'test_gpu_device ' "$O/ctest.log" || { failed=$(( ${failed:-0} + 1 )); echo "gpu-check: test_gpu_device did not run: the real-GPU tests are not registered"; }
tests_ok=1
if [ -z "$total" ] || [ "${failed:-1}" -ne 0 ] || [ "$nskip" -ne 0 ]; then tests_ok=0; fi
grep -E '\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception' "$O/ctest.log" | sed 's/^ */  failed: /'
[ "$nskip" -ne 0 ] && sed 's/^/  skipped (a failure here): /' <<<"$skipped"
echo "gpu-check: ${total:-0} gpu-labelled tests, ${failed:-?} failed, $nskip skipped"

# ---- 4. benchmarks
b=$B/bench/gpu
export TAMM_NUM_GPUS=1
num() { sed -nE "s/.*$1 *([0-9.]+).*/\\1/p" | head -1; } # the number after a pattern
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.0f%%", 100 * a / b; else printf "n/a" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.2fx", a / b; else printf "n/a" }'; }
rows=()
row() { rows+=("| $1 | $2 | $3 | $4 | $5 |"); }

step "DGEMM N=$DN NB=$DNB, in core"
d1=$("$b/dgemm_tiles" "$DN" "$DNB" "$REPS" 2>>"$O/bench.log"); echo "$d1" | tee -a "$O/bench.log"
tiled=$(num 'tiled' <<<"$d1"); ref=$(num 'whole cublasDgemm' <<<"$d1"); refc=$(num 'transfers \(' <<<"$d1")
row "tiled DGEMM, in core (N=$DN, NB=$DNB)" "$tiled GFLOP/s" "one cublasDgemm with its transfers: $ref GFLOP/s" "$(pct "$tiled" "$ref")" ">= 90%"
half=$(( 3 * DN * DN * 8 / 2 ))
step "DGEMM, TAMM_CUDA_MEMORY_LIMIT=$half (half the matrices)"
d2=$(TAMM_CUDA_MEMORY_LIMIT=$half TAMM_STATS=1 "$b/dgemm_tiles" "$DN" "$DNB" "$REPS" 2> >(grep -E '^tamm stats: rank [0-9]+: GPU' >> "$O/bench.log"))
echo "$d2" | tee -a "$O/bench.log"
tiled2=$(num 'tiled' <<<"$d2")
row "tiled DGEMM, out of core (TAMM_CUDA_MEMORY_LIMIT = half the data)" "$tiled2 GFLOP/s" "the in-core tiled run: $tiled GFLOP/s" "$(pct "$tiled2" "$tiled")" ">= 80%"

step "Cholesky N=$CN NB=$CNB"
c1=$("$b/cholesky_tiles" "$CN" "$CNB" "$REPS" 2>>"$O/bench.log"); echo "$c1" | tee -a "$O/bench.log"
ct=$(num 'tiled' <<<"$c1"); cr=$(num 'whole cusolverDnDpotrf' <<<"$c1")
row "tiled Cholesky (N=$CN, NB=$CNB)" "$ct GFLOP/s" "one cusolverDnDpotrf with its transfers: $cr GFLOP/s" "$(pct "$ct" "$cr")" ">= 80%"

step "GrCUDA ports"
grcuda() { # name args...
    local name=$1; shift
    local dag one td to
    dag=$("$b/bench_$name" "$@" 2>>"$O/bench.log")
    one=$(TAMM_CUDA_STREAMS=1 TAMM_SCHED=fifo,round-robin "$b/bench_$name" "$@" 2>>"$O/bench.log")
    echo "$dag" | tee -a "$O/bench.log"; echo "one stream: $one" | tee -a "$O/bench.log"
    td=$(sed -nE 's/.*: ([0-9.]+) ms per iteration.*/\1/p' <<<"$dag")
    to=$(sed -nE 's/.*: ([0-9.]+) ms per iteration.*/\1/p' <<<"$one")
    row "GrCUDA $name ($*)" "$td ms per iteration (DAG, 4 streams)" "in order on one stream: $to ms" "$(ratio "$to" "$td")" ">= 1.4x"
}
grcuda b1 $((1 << 27)) 16 10
grcuda b5 $((1 << 23)) 10 4 10
grcuda b6 $((1 << 20)) 200 16 10
grcuda b8 8192 2048 10

step "cost per GPU task"
g1=$("$b/gpu_tasks" 20000 3 2>>"$O/bench.log"); echo "$g1" | tee -a "$O/bench.log"
gc=$(num 'chain' <<<"$g1"); gi=$(num 'independent' <<<"$g1"); gb=$(num 'one stream:' <<<"$g1")
row "chain of 20000 dependent GPU tasks (one one-thread kernel each)" "$gc us per task" "plain CUDA launches on one stream: $gb us" "$(ratio "$gc" "$gb")" "<= 10 us"
row "20000 independent GPU tasks" "$gi us per task" "plain CUDA launches on one stream: $gb us" "$(ratio "$gi" "$gb")" "<= 10 us"

step "the naive GEMM kernel tammcc generates"
gn=$("$b/bench_gemm_naive" 4096 1024 3 2>>"$O/bench.log"); echo "$gn" | tee -a "$O/bench.log"
gk=$(num 'iteration, ' <<<"$gn")
row "tammcc's kernel for the naive tile GEMM loop nest (N=4096, NB=1024, data on the GPU)" "$gk GFLOP/s" "one cublasDgemm, compute only: $refc GFLOP/s" "$(pct "$gk" "$refc")" "(none)"

step "done"
{
    echo "| check | tamm | reference | ratio | target |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} > "$O/table.md"
echo
echo "gpu-check on $(head -1 <<<"$gpus" | sed -E 's/ \(UUID.*//'), driver $drvv, CUDA $tk, $(nproc) cores, $(date -u +%Y-%m-%d):"
echo "tests: ${total:-0} gpu-labelled, ${failed:-?} failed, $nskip skipped"
cat "$O/table.md"
[ $tests_ok = 1 ] || { echo "gpu-check: FAILED (tests above; logs in $O)"; exit 1; }
echo "gpu-check: every gpu-labelled test passed (logs in $O)"
