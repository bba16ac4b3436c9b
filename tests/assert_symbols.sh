#!/bin/sh
# assert_symbols.sh — the internal assertions (rt/base/tamm_assert.h, tammcc/cc_assert.h)
# are in the built objects exactly when the build enables them, by nm on the objects.
#   assert_symbols.sh ON|OFF RT_OBJECT_DIR [TAMMCC_OBJECT_DIR]
# ON (Debug, sanitizer builds): the objects that apply the state machines and counts
# (core/task.c, core/dag.c, core/buffer.c, core/memlimit.c, core/spill.c; tammcc's emit_c.c, infer.c)
# call tamm__assert_fail / cc_assert_fail.  OFF (Release, RelWithDebInfo): no object calls
# either (each is still defined, in error.c and diag.c), so the hot path (task.c, dag.c,
# exec/worker.c) carries no assertion code at all.
set -u
mode=$1 rt=$2 cc=${3:-}
NM=${NM:-nm}
fail=0
check() { # check DIR FUNCTION OBJECT...
    dir=$1 fn=$2; shift 2
    for o in "$@"; do
        f=$(find "$dir" -name "$o.o" | head -1)
        if [ -z "$f" ]; then echo "FAIL: no object $o.o under $dir"; fail=1; continue; fi
        if "$NM" -u "$f" | grep -q " $fn\$"; then has=ON; else has=OFF; fi
        if [ "$has" != "$mode" ]; then
            echo "FAIL: $o.o calls $fn: $has, expected $mode"
            fail=1
        else
            echo "ok: $o.o calls $fn: $has"
        fi
    done
}
check "$rt" tamm__assert_fail task.c dag.c buffer.c memlimit.c spill.c
if [ "$mode" = OFF ]; then
    # no object of the library at all (exec/worker.c included)
    for f in $(find "$rt" -name '*.o'); do
        if "$NM" -u "$f" | grep -q ' tamm__assert_fail$'; then echo "FAIL: $f calls tamm__assert_fail"; fail=1; fi
    done
fi
if [ -n "$cc" ]; then
    check "$cc" cc_assert_fail emit_c.c infer.c pragma.c
fi
[ $fail = 0 ] && echo "assertions $mode: as expected"
exit $fail
