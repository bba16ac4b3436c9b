#!/bin/sh
# driver_errors.sh TAMMCC WORKDIR — the driver's own error messages (docs/errors.md, "tammcc
# diagnostics"): each command must exit with the status given and print the line given, verbatim.
set -u
tammcc=$1
work=$2
case $tammcc in /*) ;; *) tammcc=$(pwd)/$tammcc ;; esac
case $work in /*) ;; *) work=$(pwd)/$work ;; esac
here=$(cd "$(dirname "$0")" && pwd)
inc=$here/../../../include
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
printf '#include <tamm.h>\nint main(void) { return 0; }\n' >good.c
printf 'int x = ;\n' >bad.h
printf '#include "bad.h"\nint main(void) { return 0; }\n' >incl.c
fail=0
# check STATUS LINE COMMAND...: run COMMAND, expect exit status STATUS and LINE among its output lines
check() {
    want_rc=$1
    want=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! printf '%s\n' "$out" | grep -qxF -- "$want"; then
        echo "FAIL: $*"
        echo "  expected exit $want_rc and: $want"
        echo "  got exit $rc and:"
        printf '%s\n' "$out" | sed 's/^/    /'
        fail=1
    else
        echo "ok: $want"
    fi
}
# check_re STATUS REGEX COMMAND...: the same with a basic regular expression for the whole line
check_re() {
    want_rc=$1
    want=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! printf '%s\n' "$out" | grep -qx -- "$want"; then
        echo "FAIL: $*"
        echo "  expected exit $want_rc and a line matching: $want"
        echo "  got exit $rc and:"
        printf '%s\n' "$out" | sed 's/^/    /'
        fail=1
    else
        echo "ok: $want"
    fi
}
check 2 "tammcc: error: -o needs a file name" "$tammcc" good.c -o
check 2 "tammcc: error: -MF needs an argument" "$tammcc" -I"$inc" -c good.c -MF
check 2 "tammcc: error: --emit takes 'c' or 'cuda', not 'x'" "$tammcc" --emit=x good.c
check 2 "tammcc: error: -o with -c, -S or --emit needs a single input file" "$tammcc" -c good.c incl.c -o x.o
check 1 "tammcc: error: cannot write '$work/no-such-dir/x.c': No such file or directory" \
    "$tammcc" -I"$inc" --emit=c -o "$work/no-such-dir/x.c" good.c
check 1 "tammcc: error: cannot parse 'missing.c' (libclang error 1; does the file exist?)" \
    "$tammcc" -I"$inc" --emit=c -o /dev/null missing.c
check 1 "tammcc: error: errors in included files" "$tammcc" -I"$inc" --emit=c -o /dev/null incl.c
check 1 "tammcc: error: cannot run '$work/no-such-cc': No such file or directory" \
    env TAMMCC_CC="$work/no-such-cc" TAMMCC_NVCC=none "$tammcc" -I"$inc" -c good.c -o good.o
check 1 "tammcc: error: TAMMCC_CUDA_ARCH: invalid value 'sm_9x' (expected native, sm_XX, compute_XX or XX, or a comma-separated list of them, e.g. sm_80,sm_90)" \
    env TAMMCC_CUDA_ARCH=sm_9x TAMMCC_NVCC=none "$tammcc" -I"$inc" -c good.c -o good.o
# a back end that compiles nothing (true) writes no dependency file either
check_re 1 "tammcc: error: the compiler wrote no dependency file '.*/good\.d'" \
    env TAMMCC_CC=true TAMMCC_NVCC=none "$tammcc" -I"$inc" -c good.c -MD -MF good.d -o good.o
exit $fail
