#!/bin/sh
# fault_injection.sh TAMMCC WORKDIR PROGRAM... — tammcc fails cleanly when memory runs out
# (tammcc/xalloc.h), tested as SQLite tests its mallocs: every allocation of a translation fails
# once.
#
# For each PROGRAM, `tammcc --emit=c PROGRAM`:
#   TAMMCC_FAIL_ALLOC=0      fails nothing and counts the allocations (N);
#   TAMMCC_FAIL_ALLOC=N+1    fails nothing and gives the same output (the count is exact);
#   TAMMCC_FAIL_ALLOC=1, =N  the first and the last allocation fail in a process of their own:
#                            exit status exactly 1, "tammcc: out of memory" last on stderr;
#   TAMMCC_FAIL_ALLOC=each   every allocation fails once, in a child forked at that allocation
#                            while the parent goes on (the translation is parsed once): each
#                            child must exit with status exactly 1 (never a signal), end its
#                            stderr with "tammcc: out of memory", hold no sanitizer's or UBSan's
#                            report and write nothing on stdout; the parent prints "N of N
#                            allocations failed cleanly" and the plain output.
set -u
tammcc=$1
work=$2
shift 2
rm -rf "$work" && mkdir -p "$work" || exit 2
fail=0 total=0
bad() {
    echo "FAIL: $*"
    fail=1
}
for prog in "$@"; do
    name=$(basename "$prog")
    TAMMCC_FAIL_ALLOC=0 "$tammcc" --emit=c "$prog" >"$work/plain.c" 2>"$work/plain.err"
    st=$?
    n=$(sed -n 's/^tammcc: \([0-9][0-9]*\) allocations$/\1/p' "$work/plain.err")
    if [ "$st" -ne 0 ] || [ -z "$n" ] || [ ! -s "$work/plain.c" ]; then
        bad "TAMMCC_FAIL_ALLOC=0 tammcc --emit=c $prog: exit $st, no count of allocations or no output:"
        cat "$work/plain.err"
        continue
    fi
    TAMMCC_FAIL_ALLOC=$((n + 1)) "$tammcc" --emit=c "$prog" >"$work/past.c" 2>"$work/past.err"
    st=$?
    if [ "$st" -ne 0 ] || ! cmp -s "$work/plain.c" "$work/past.c"; then
        bad "TAMMCC_FAIL_ALLOC=$((n + 1)) (past its $n allocations) tammcc --emit=c $prog: exit $st or another output"
        cat "$work/past.err"
    fi
    for k in 1 "$n"; do
        TAMMCC_FAIL_ALLOC=$k "$tammcc" --emit=c "$prog" >"$work/one.c" 2>"$work/one.err"
        st=$?
        if [ "$st" -ne 1 ] || [ "$(tail -n 1 "$work/one.err")" != "tammcc: out of memory" ] || [ -s "$work/one.c" ]; then
            bad "TAMMCC_FAIL_ALLOC=$k tammcc --emit=c $prog: exit $st (not 1), another message or output on stdout:"
            tail -n 20 "$work/one.err"
        fi
    done
    TAMMCC_FAIL_ALLOC=each "$tammcc" --emit=c "$prog" >"$work/each.c" 2>"$work/each.err"
    st=$?
    summary=$(sed -n 's/^tammcc: fault injection: \([0-9]* of [0-9]*\) allocations failed cleanly$/\1/p' "$work/each.err")
    if [ "$st" -ne 0 ] || [ "$summary" != "$n of $n" ] || ! cmp -s "$work/plain.c" "$work/each.c"; then
        bad "TAMMCC_FAIL_ALLOC=each tammcc --emit=c $prog: exit $st, '${summary:-no summary}' failed cleanly (expected $n of $n), or another output:"
        head -n 60 "$work/each.err"
    fi
    echo "$name: $n allocations; each failed once: $summary failed cleanly"
    total=$((total + n))
done
[ "$fail" -eq 0 ] && [ "$total" -gt 0 ] || exit 1
echo "fault injection: $total of $total allocations failed cleanly"
