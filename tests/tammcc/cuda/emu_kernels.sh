#!/bin/sh
# emu_kernels.sh PROGRAM.c [extra link flags...]
#
# The generated CUDA kernels of PROGRAM.c, executed on the host: tammcc builds
# the program with TAMMCC_NVCC=emu (its .cu compiled by the host C++ compiler
# with include/tamm_cuda_emu.h: every launch runs all blocks and threads, in a
# shuffled order, on TAMM_CUDA_EMU_THREADS host threads) and it runs on a
# simulated GPU (TAMM_CUDA_FAKE=1, device memory = host memory), so its CUDA
# variants — the kernels — compute on the data the CPU variants would.  Its
# output must equal the sequential elision's (the plain C build), with at least
# one kernel launch when the .cu has kernels.  With TSAN=1 (and a compiler that
# has -fsanitize=thread) the .cu is also built instrumented (only the .cu: every
# launch comes from the one CUDA worker thread, so the runtime's own
# synchronisation need not be seen, and the accesses libtammrt makes through
# memcpy/malloc interceptors are ignored) and run again: two CUDA threads
# storing to one element is a data race that ThreadSanitizer reports.
#
# A program with no CUDA variant fails: this test would check nothing (CMakeLists.txt lists the
# programs that have none, TAMM_EMU_NO_CUDA, and no_cuda_list.sh checks that list instead).
# Environment: TAMMCC (required), TAMM_LIB (libtammrt.a), TAMM_INCLUDE, CC,
#   CFLAGS (plain build), WORKERS (default "1 3"), SEEDS (default "1 2"), TSAN,
#   RUN_TIMEOUT (default 120 s), NORMALIZE (a sed -E script applied to both outputs
#   before they are compared: what a program prints that may differ between runs,
#   e.g. its worker count), KEEP.
set -u
if [ $# -lt 1 ]; then
    echo "usage: emu_kernels.sh PROGRAM.c [extra link flags...]" >&2
    exit 2
fi
prog=$1
shift
name=$(basename "$prog" .c)
here=$(cd "$(dirname "$0")" && pwd)
: "${CC:=cc}"
: "${CFLAGS:=-std=c11 -O1 -Wno-unknown-pragmas}"
: "${TAMM_INCLUDE:=$here/../../../include}"
: "${TAMM_LIB:?TAMM_LIB must name libtammrt.a}"
: "${TAMMCC:?TAMMCC must name tammcc}"
: "${WORKERS:=1 3}"
: "${SEEDS:=1 2}"
: "${TSAN:=0}"
: "${RUN_TIMEOUT:=120}"
: "${NORMALIZE:=}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammemu.XXXXXX") || exit 1
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "emu_kernels: keeping $tmp" >&2; fi
to=""
command -v timeout >/dev/null 2>&1 && to="timeout $RUN_TIMEOUT"
fail() {
    echo "EMU KERNELS FAILURE: $prog: $*" >&2
    exit 1
}

if ! TAMMCC_NVCC=emu "$TAMMCC" --emit=cuda -I"$TAMM_INCLUDE" "$prog" >"$tmp/$name.cu" 2>"$tmp/emit.err"; then
    cat "$tmp/emit.err" >&2
    fail "tammcc --emit=cuda failed"
fi
if [ ! -s "$tmp/$name.cu" ]; then
    fail "no task has a CUDA variant, so no kernel would be checked (if that is right, list it in TAMM_EMU_NO_CUDA)"
fi
kernels=$(grep -c 'TAMM_CUDA_LAUNCH(' "$tmp/$name.cu")

# the reference: the sequential elision
# shellcheck disable=SC2086
$CC $CFLAGS -I"$TAMM_INCLUDE" -o "$tmp/$name.seq" "$prog" "$TAMM_LIB" "$@" -lpthread -lm >"$tmp/cc.log" 2>&1 ||
    { cat "$tmp/cc.log" >&2; fail "plain build failed"; }
$to "$tmp/$name.seq" >"$tmp/ref.out" 2>"$tmp/ref.err" || { rc=$?; cat "$tmp/ref.err" >&2; fail "plain build: exit status $rc"; }

check_run() { # label binary: run at every worker count and seed, compare, count launches
    label=$1
    bin=$2
    launches=0
    for w in $WORKERS; do
        for s in $SEEDS; do
            TAMM_CUDA_FAKE=1 TAMM_SCHED=round-robin TAMM_NUM_WORKERS=$w TAMM_CUDA_EMU_SEED=$s TAMM_CUDA_EMU_REPORT=1 \
                $to "$bin" >"$tmp/out" 2>"$tmp/err"
            rc=$?
            if [ $rc -ne 0 ]; then
                head -60 "$tmp/err" >&2
                fail "$label, TAMM_NUM_WORKERS=$w, TAMM_CUDA_EMU_SEED=$s: exit status $rc"
            fi
            sed -E "$NORMALIZE" "$tmp/ref.out" >"$tmp/ref.norm"
            sed -E "$NORMALIZE" "$tmp/out" >"$tmp/out.norm"
            if ! cmp -s "$tmp/ref.norm" "$tmp/out.norm"; then
                diff "$tmp/ref.out" "$tmp/out" | head -20 >&2
                fail "$label, TAMM_NUM_WORKERS=$w, TAMM_CUDA_EMU_SEED=$s: output differs from the plain build"
            fi
            n=$(sed -n 's/^tamm_cuda_emu: \([0-9]*\) kernel launches.*/\1/p' "$tmp/err" | tail -1)
            launches=$((launches + ${n:-0}))
        done
    done
    if [ "$kernels" -gt 0 ] && [ "$launches" -eq 0 ]; then
        fail "$label: no generated kernel ran ($kernels in the .cu)"
    fi
    echo "emu_kernels: $name: $label: same output as the plain build ($launches kernel launches, workers: $WORKERS, seeds: $SEEDS)"
}

TAMMCC_NVCC=emu "$TAMMCC" -O1 -I"$TAMM_INCLUDE" -o "$tmp/$name.emu" "$prog" "$@" >"$tmp/tammcc.log" 2>&1 ||
    { cat "$tmp/tammcc.log" >&2; fail "tammcc build with TAMMCC_NVCC=emu failed"; }
check_run "kernels on the host" "$tmp/$name.emu"

if [ "$TSAN" = 1 ] && [ "$kernels" -gt 0 ]; then
    TAMMCC_NVCC=emu TAMMCC_CXX_FLAGS="-fsanitize=thread -g" "$TAMMCC" -O1 -c -I"$TAMM_INCLUDE" -o "$tmp/$name.o" "$prog" \
        >"$tmp/tammcc.log" 2>&1 || { cat "$tmp/tammcc.log" >&2; fail "tammcc -c with an instrumented .cu failed"; }
    # shellcheck disable=SC2086
    $CC -fsanitize=thread -o "$tmp/$name.tsan" "$tmp/$name.o" "$TAMM_LIB" "$@" -lstdc++ -lpthread -lm \
        >"$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log" >&2; fail "link with -fsanitize=thread failed"; }
    TSAN_OPTIONS="halt_on_error=1 exitcode=66 ignore_interceptors_accesses=1 suppressions=$here/emu_tsan.supp ${TSAN_OPTIONS:-}" check_run "kernels under ThreadSanitizer" "$tmp/$name.tsan"
fi
exit 0
