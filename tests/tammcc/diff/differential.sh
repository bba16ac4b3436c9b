#!/bin/sh
# differential.sh PROGRAM.c [extra link flags...]
#
# The sequential elision is the oracle: PROGRAM.c built by a plain C compiler
# (pragmas ignored) is run once and its output is the reference.  If TAMMCC is
# set, PROGRAM.c is also built by tammcc and run at every worker count in
# WORKERS; each run's output must equal the reference and its exit status must
# be 0.
#
# Environment:
#   TAMMCC        path of tammcc (unset or empty: the plain build only)
#   CC            plain C compiler (default cc)
#   CFLAGS        flags of the plain build
#                 (default: -std=c11 -O1 -Wall -Wextra -Wno-unknown-pragmas)
#   TAMM_INCLUDE  directory of tamm.h (default: ../../../include from this script)
#   TAMM_LIB      path of libtammrt.a (required for the plain build)
#   WORKERS       worker counts for the tammcc build (default "1 2 4")
#   TAMMCC_FLAGS  extra flags for tammcc (default -O1)
#   KEEP          if set, keep the temporary directory
#   RANKS         MPI rank counts for the tammcc build (default none): each run
#                 under `$MPIRUN -np N` (TAMM_NUM_WORKERS=2) must print the
#                 reference once per rank (lines compared after sorting, since
#                 the ranks' lines interleave)
#   MPIRUN        default "mpirun --oversubscribe --bind-to none"
#   GPUS          emulated GPU counts (default none), e.g. "1 2": the tammcc build
#                 then compiles its CUDA variants for the host (TAMMCC_NVCC=emu,
#                 include/tamm_cuda_emu.h) and also runs with TAMM_CUDA_EMU=n under
#                 every device policy in POLICIES (default: all eight) with
#                 TAMM_CUDA_MEMORY_LIMIT from a line "/* tight TAMM_CUDA_MEMORY_LIMIT: N */"
#                 of the program (gen_random_program writes one), else GPU_LIMIT
#                 (default 1024 bytes),
#                 random stream delays and TAMM_NUM_WORKERS=2; each run must print
#                 the reference, and when the program has kernels some task must
#                 have run on a GPU
#   TAMM_CHECK_ACCESS  default 1: the tammcc build runs with the run-time access
#                 checker (docs/runtime.md), so a mode tammcc inferred wrongly
#                 (a block written under read, or a write that does not cover
#                 its block) fails the run with a message naming the task,
#                 even where the output happens to agree; 0 turns it off
# Exit status: 0 if every build and run agrees, 1 otherwise (2: usage).
set -u

if [ $# -lt 1 ]; then
    echo "usage: differential.sh PROGRAM.c [extra link flags...]" >&2
    exit 2
fi
prog=$1
shift
name=$(basename "$prog" .c)
here=$(cd "$(dirname "$0")" && pwd)
: "${CC:=cc}"
: "${CFLAGS:=-std=c11 -O1 -Wall -Wextra -Wno-unknown-pragmas}"
: "${TAMM_INCLUDE:=$here/../../../include}"
: "${TAMM_LIB:=}"
: "${WORKERS:=1 2 4}"
: "${TAMMCC:=}"
: "${TAMMCC_FLAGS:=-O1}"
: "${RUN_TIMEOUT:=120}"
: "${TAMM_CHECK_ACCESS:=1}"
export TAMM_CHECK_ACCESS

if [ ! -f "$prog" ]; then
    echo "differential: $prog: no such file" >&2
    exit 2
fi
if [ -z "$TAMM_LIB" ] || [ ! -f "$TAMM_LIB" ]; then
    echo "differential: TAMM_LIB must name libtammrt.a (got '$TAMM_LIB')" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tammdiff.XXXXXX") || exit 1
if [ -z "${KEEP:-}" ]; then
    trap 'rm -rf "$tmp"' EXIT
else
    echo "differential: keeping $tmp" >&2
fi

if command -v timeout >/dev/null 2>&1; then
    to="timeout $RUN_TIMEOUT"
else
    to=""
fi

fail() {
    echo "DIFFERENTIAL FAILURE: $prog: $*" >&2
    exit 1
}

# 1. The plain build: the reference.
# shellcheck disable=SC2086
if ! $CC $CFLAGS -I"$TAMM_INCLUDE" -o "$tmp/$name.seq" "$prog" "$TAMM_LIB" "$@" -lpthread -lm \
        >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log" >&2
    fail "plain build ($CC $CFLAGS) failed"
fi
if [ -s "$tmp/cc.log" ]; then
    cat "$tmp/cc.log" >&2
fi
$to "$tmp/$name.seq" >"$tmp/ref.out" 2>"$tmp/ref.err"
rc=$?
if [ $rc -ne 0 ]; then
    cat "$tmp/ref.err" >&2
    fail "plain build: exit status $rc"
fi

if [ -z "$TAMMCC" ]; then
    echo "differential: $name: plain build OK ($(wc -l <"$tmp/ref.out" | tr -d ' ') lines of output)"
    exit 0
fi

# 2. The tammcc build, at each worker count.
nvcc=none
[ -n "${GPUS:-}" ] && nvcc=emu
# shellcheck disable=SC2086
if ! TAMMCC_NVCC=$nvcc "$TAMMCC" $TAMMCC_FLAGS -I"$TAMM_INCLUDE" -o "$tmp/$name.tamm" "$prog" "$@" \
        >"$tmp/tammcc.log" 2>&1; then
    cat "$tmp/tammcc.log" >&2
    fail "tammcc build ($TAMMCC $TAMMCC_FLAGS) failed"
fi
for w in $WORKERS; do
    TAMM_NUM_WORKERS=$w $to "$tmp/$name.tamm" >"$tmp/w$w.out" 2>"$tmp/w$w.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        cat "$tmp/w$w.err" >&2
        fail "tammcc build, TAMM_NUM_WORKERS=$w: exit status $rc"
    fi
    if ! cmp -s "$tmp/ref.out" "$tmp/w$w.out"; then
        echo "--- plain build (reference)" >&2
        echo "+++ tammcc build, TAMM_NUM_WORKERS=$w" >&2
        diff "$tmp/ref.out" "$tmp/w$w.out" | head -40 >&2
        cat "$tmp/w$w.err" >&2
        fail "tammcc build, TAMM_NUM_WORKERS=$w: output differs from the plain build"
    fi
done
gpu_tasks=0
# the limit the program asks for (gen_random_program ... gpu: two of its largest blocks), else GPU_LIMIT
lim=$(sed -n 's|^/\* tight TAMM_CUDA_MEMORY_LIMIT: \([0-9][0-9]*\) \*/$|\1|p' "$prog" | head -1)
: "${lim:=${GPU_LIMIT:-1024}}"
for g in ${GPUS:-}; do
    for pol in ${POLICIES:-eft round-robin stream-aware min-transfer-size minmin-transfer-time minmax-transfer-time fifo,eft prio,min-transfer-size}; do
        TAMM_CUDA_EMU=$g TAMM_SCHED=$pol TAMM_NUM_WORKERS=2 TAMM_CUDA_MEMORY_LIMIT=$lim \
            TAMM_CUDA_EMU_DELAY=20 TAMM_STATS=1 $to "$tmp/$name.tamm" >"$tmp/g.out" 2>"$tmp/g.err"
        rc=$?
        if [ $rc -ne 0 ]; then
            grep -v '^tamm stats' "$tmp/g.err" | head -40 >&2
            fail "tammcc build on $g emulated GPU(s), TAMM_SCHED=$pol: exit status $rc"
        fi
        if ! cmp -s "$tmp/ref.out" "$tmp/g.out"; then
            diff "$tmp/ref.out" "$tmp/g.out" | head -40 >&2
            fail "tammcc build on $g emulated GPU(s), TAMM_SCHED=$pol: output differs from the plain build"
        fi
        n=$(sed -n 's/^tamm stats: rank [0-9]*: GPU [0-9]* .*: \([0-9][0-9]*\) tasks.*/\1/p' "$tmp/g.err" | awk '{ s += $1 } END { print s + 0 }')
        gpu_tasks=$((gpu_tasks + n))
    done
done
if [ -n "${GPUS:-}" ]; then
    kernels=$(TAMMCC_NVCC=emu "$TAMMCC" --emit=cuda -I"$TAMM_INCLUDE" "$prog" 2>/dev/null | grep -c 'TAMM_CUDA_LAUNCH(')
    if [ "$kernels" -gt 0 ] && [ "$gpu_tasks" -eq 0 ]; then
        fail "no task ran on an emulated GPU ($kernels kernels in the CUDA variants)"
    fi
fi
for r in ${RANKS:-}; do
    # shellcheck disable=SC2086
    TAMM_NUM_WORKERS=2 $to ${MPIRUN:-mpirun --oversubscribe --bind-to none} -np "$r" "$tmp/$name.tamm" \
        >"$tmp/r$r.out" 2>"$tmp/r$r.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        cat "$tmp/r$r.err" >&2
        fail "tammcc build on $r MPI ranks: exit status $rc"
    fi
    : >"$tmp/rref$r"
    i=0
    while [ $i -lt "$r" ]; do cat "$tmp/ref.out" >>"$tmp/rref$r"; i=$((i + 1)); done
    sort "$tmp/rref$r" >"$tmp/rref$r.s"
    sort "$tmp/r$r.out" >"$tmp/r$r.s"
    if ! cmp -s "$tmp/rref$r.s" "$tmp/r$r.s"; then
        diff "$tmp/rref$r.s" "$tmp/r$r.s" | head -40 >&2
        cat "$tmp/r$r.err" >&2
        fail "tammcc build on $r MPI ranks: the ranks' output differs from the plain build's (once per rank)"
    fi
done
echo "differential: $name: plain build and tammcc build agree (workers: $WORKERS${RANKS:+; MPI ranks: $RANKS}${GPUS:+; emulated GPUs: $GPUS, $gpu_tasks tasks on them})"
exit 0
