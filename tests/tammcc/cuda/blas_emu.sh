#!/bin/sh
# blas_emu.sh PROGRAM.c [link flags...] — a program whose tasks call BLAS and LAPACK, on
# emulated GPUs through cuBLAS and cuSOLVER, without code of its own for them
# (docs/language.md "Variants: CPU and CUDA").
#
# tammcc builds PROGRAM.c with TAMMCC_NVCC=emu (its .cu compiled by the host C++ compiler);
# it runs on the stand-in CUDA runtime, cuBLAS and cuSOLVER over the emulated device
# (tests/rt/gpu/cudart_emu, found through TAMM_CUDA_TEST_LIBDIR, random stream delays), at 1 and 2
# emulated GPUs (TAMM_CUDA_EMU) with one CPU worker and the round-robin policy.  Each run must
# print what the plain C build (cc, the sequential elision) prints, and TAMM_STATS must show
# most tasks on the GPU workers (more than on the CPU worker, or, when the emulated GPUs are as
# slow as the CPU, at least the 16 per GPU at which the policy starts giving the CPU work) and
# every GPU busy.  With MPIRUN
# set, the same on 2 ranks instead, with 2 emulated GPUs (one each): every rank prints the plain
# build's output, and every rank's GPU runs tasks.
#
# Environment: TAMMCC, TAMM_LIB (libtammrt.a), TAMM_INCLUDE, LIBDIR (the stand-in libraries),
#   CC, CFLAGS (the plain build), NORMALIZE (a sed script applied to both outputs: what may
#   differ between runs, e.g. a printed rounding error of sums taken in another order),
#   GPUS (default "1 2"), MPIRUN, RUN_TIMEOUT (default 300 s), KEEP.
set -u
prog=$1
shift
name=$(basename "$prog" .c)
: "${CC:=cc}"
: "${CFLAGS:=-std=c11 -O1 -Wno-unknown-pragmas}"
: "${TAMMCC:?TAMMCC must name tammcc}"
: "${TAMM_LIB:?TAMM_LIB must name libtammrt.a}"
: "${TAMM_INCLUDE:?}"
: "${LIBDIR:?LIBDIR must name the stand-in CUDA libraries}"
: "${NORMALIZE:=}"
: "${GPUS:=1 2}"
: "${MPIRUN:=}"
: "${RUN_TIMEOUT:=300}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammblas.XXXXXX") || exit 1
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "blas_emu: keeping $tmp" >&2; fi
to=""
command -v timeout >/dev/null 2>&1 && to="timeout $RUN_TIMEOUT"
fail() {
    echo "BLAS EMU FAILURE: $name: $*" >&2
    exit 1
}
norm() { sed -E "$NORMALIZE" "$1"; }

# shellcheck disable=SC2086
$CC $CFLAGS -I"$TAMM_INCLUDE" -o "$tmp/$name.seq" "$prog" "$TAMM_LIB" "$@" -lpthread -lm >"$tmp/cc.log" 2>&1 ||
    { cat "$tmp/cc.log" >&2; fail "plain build failed"; }
OPENBLAS_NUM_THREADS=1 $to "$tmp/$name.seq" >"$tmp/ref.out" 2>"$tmp/ref.err" ||
    { cat "$tmp/ref.err" >&2; fail "plain build: exit status $?"; }
norm "$tmp/ref.out" >"$tmp/ref.norm"
TAMMCC_NVCC=emu "$TAMMCC" -O1 -I"$TAMM_INCLUDE" -o "$tmp/$name.emu" "$prog" "$@" >"$tmp/tammcc.log" 2>&1 ||
    { cat "$tmp/tammcc.log" >&2; fail "tammcc build with TAMMCC_NVCC=emu failed"; }

# the tasks run on CPU workers and GPU workers in err (one rank's TAMM_STATS)
counts() { sed -n 's/.* run (\([0-9]*\) on CPU workers, \([0-9]*\) on GPU workers).*/\1 \2/p' "$1"; }

export TAMM_CUDA_TEST_LIBDIR="$LIBDIR" TAMM_CUDA_EMU_DELAY=20 TAMM_SCHED=round-robin TAMM_NUM_WORKERS=1
export TAMM_STATS=1 OPENBLAS_NUM_THREADS=1
if [ -z "$MPIRUN" ]; then
    for g in $GPUS; do
        TAMM_CUDA_EMU=$g $to "$tmp/$name.emu" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc -eq 0 ] || { head -40 "$tmp/err" >&2; fail "$g GPUs: exit status $rc"; }
        norm "$tmp/out" >"$tmp/out.norm"
        cmp -s "$tmp/ref.norm" "$tmp/out.norm" ||
            { diff "$tmp/ref.out" "$tmp/out" | head -20 >&2; fail "$g GPUs: output differs from the plain build's"; }
        set -- $(counts "$tmp/err")
        [ $# -eq 2 ] || fail "$g GPUs: no TAMM_STATS task counts"
        # most on the GPUs; or, on a loaded machine where the emulated GPUs are as slow as the CPU,
        # at least what fills each GPU to the point where the policy gives the CPU work (a task with
        # a CPU variant goes to the idle CPU worker only while its GPU has 16 tasks queued or running)
        [ "$2" -gt "$1" ] || [ "$2" -ge $((16 * g)) ] ||
            { grep 'GPU' "$tmp/err" >&2; fail "$g GPUs: $2 tasks on GPU workers, $1 on the CPU worker"; }
        busy=$(grep -cE 'GPU [0-9]+ .*: [1-9][0-9]* tasks' "$tmp/err")
        [ "$busy" -eq "$g" ] || { grep 'GPU' "$tmp/err" >&2; fail "$g GPUs: $busy of them ran tasks"; }
        echo "blas_emu: $name on $g emulated GPUs: the plain build's output; $2 tasks on GPU workers, $1 on the CPU worker"
    done
else
    # shellcheck disable=SC2086
    TAMM_CUDA_EMU=2 $to $MPIRUN -np 2 "$tmp/$name.emu" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || { head -40 "$tmp/err" >&2; fail "2 ranks: exit status $rc"; }
    cat "$tmp/ref.norm" "$tmp/ref.norm" | sort >"$tmp/ref2"
    norm "$tmp/out" | sort >"$tmp/out.norm"
    cmp -s "$tmp/ref2" "$tmp/out.norm" ||
        { diff "$tmp/ref2" "$tmp/out.norm" | head -20 >&2; fail "2 ranks: each rank must print the plain build's output"; }
    for r in 0 1; do
        grep -qE "rank $r: GPU 0 .*: [1-9][0-9]* tasks" "$tmp/err" || { grep GPU "$tmp/err" >&2; fail "rank $r's GPU ran no task"; }
    done
    echo "blas_emu: $name on 2 ranks with an emulated GPU each: every rank prints the plain build's output, every GPU ran tasks"
fi
exit 0
