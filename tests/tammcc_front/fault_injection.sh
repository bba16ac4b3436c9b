#!/bin/sh
# fault_injection.sh TAMMCC WORKDIR PROGRAM STRIDE [PROGRAM STRIDE]... — tammcc fails cleanly
# when memory runs out (tammcc/xalloc.h), tested as SQLite tests its mallocs.
#
# For each PROGRAM: count the allocations of `tammcc --emit=c PROGRAM` (TAMMCC_FAIL_ALLOC=0
# prints "tammcc: N allocations" at exit), then make the K-th one fail (TAMMCC_FAIL_ALLOC=K)
# for K = 1, 1 + STRIDE, 1 + 2 STRIDE, ... and K = N (STRIDE 1: every allocation).  Each run
# must exit with status exactly 1 (never a signal, a crash or any other status), end its stderr
# with the line "tammcc: out of memory", hold no sanitizer's or UBSan's report (in the ASan
# build they exit 1 too) and write nothing on stdout.  Also, TAMMCC_FAIL_ALLOC=N+1 fails
# nothing and gives the plain run's output (the count is exact).  JOBS (default 2) runs at a time.
set -u
tammcc=$1
work=$2
shift 2
case $tammcc in /*) ;; *) tammcc=$(pwd)/$tammcc ;; esac
jobs=${JOBS:-2}
rm -rf "$work" && mkdir -p "$work" || exit 2

# worker W: fail each allocation listed in $work/k.W (lines "K PROGRAM"); clean runs are
# counted in $work/clean.W, the others reported in $work/fail.W
worker() {
    w=$1
    : >"$work/clean.$w"
    : >"$work/fail.$w"
    while read -r k prog; do
        TAMMCC_FAIL_ALLOC=$k "$tammcc" --emit=c "$prog" >"$work/out.$w" 2>"$work/err.$w"
        st=$?
        why=
        if [ "$st" -gt 128 ]; then why="killed by signal $((st - 128))"
        elif [ "$st" -ne 1 ]; then why="exit status $st, not 1"
        elif [ "$(tail -n 1 "$work/err.$w")" != "tammcc: out of memory" ]; then
            why="stderr does not end with 'tammcc: out of memory'"
        elif grep -q -e 'Sanitizer' -e 'runtime error' "$work/err.$w"; then why="a sanitizer's report"
        elif [ -s "$work/out.$w" ]; then why="output on stdout"
        fi
        if [ -z "$why" ]; then
            echo "$k" >>"$work/clean.$w"
        else
            {
                echo "FAIL: TAMMCC_FAIL_ALLOC=$k tammcc --emit=c $prog: $why; stderr:"
                tail -n 20 "$work/err.$w" | sed 's/^/    /'
            } >>"$work/fail.$w"
        fi
    done <"$work/k.$w"
}

: >"$work/k"
while [ $# -ge 2 ]; do
    prog=$1
    stride=$2
    shift 2
    TAMMCC_FAIL_ALLOC=0 "$tammcc" --emit=c "$prog" >"$work/plain.c" 2>"$work/plain.err"
    st=$?
    n=$(sed -n 's/^tammcc: \([0-9][0-9]*\) allocations$/\1/p' "$work/plain.err")
    if [ "$st" -ne 0 ] || [ -z "$n" ] || [ ! -s "$work/plain.c" ]; then
        echo "FAIL: TAMMCC_FAIL_ALLOC=0 tammcc --emit=c $prog: exit $st, no count of allocations or no output:"
        cat "$work/plain.err"
        exit 1
    fi
    # one past the last allocation: nothing fails, the output is the plain run's
    TAMMCC_FAIL_ALLOC=$((n + 1)) "$tammcc" --emit=c "$prog" >"$work/past.c" 2>"$work/past.err"
    st=$?
    if [ "$st" -ne 0 ] || ! cmp -s "$work/plain.c" "$work/past.c"; then
        echo "FAIL: TAMMCC_FAIL_ALLOC=$((n + 1)) (past its $n allocations) tammcc --emit=c $prog: exit $st or another output:"
        cat "$work/past.err"
        exit 1
    fi
    awk -v n="$n" -v s="$stride" -v p="$prog" \
        'BEGIN { for (k = 1; k <= n; k += s) print k, p; if ((n - 1) % s) print n, p }' >>"$work/k"
    echo "$(basename "$prog"): $n allocations; fails $(((n + stride - 1) / stride + ((n - 1) % stride != 0)))" \
         "of them (every ${stride}, and the last)"
done
total=$(wc -l <"$work/k")
w=0
while [ "$w" -lt "$jobs" ]; do
    awk -v w="$w" -v j="$jobs" '(NR - 1) % j == w' "$work/k" >"$work/k.$w"
    worker "$w" &
    w=$((w + 1))
done
wait
clean=$(cat "$work"/clean.* | wc -l)
cat "$work"/fail.* | head -n 200
echo "fault injection: $clean of $total allocations failed cleanly"
[ "$total" -gt 0 ] && [ "$clean" -eq "$total" ]
