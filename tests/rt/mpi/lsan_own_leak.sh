#!/bin/sh
# lsan_own_leak.sh PROG — the ASan build's check that LeakSanitizer still sees a program's own
# leak under mpirun (lsan_own_leak.c): PROG on 2 ranks, with the LSAN_OPTIONS of the other MPI
# tests (Open MPI's libraries suppressed), must fail and report, on each rank, the 77 bytes lost in
# main, and no other leak.
set -u
prog=$1
out=$(${MPIRUN:-mpirun --oversubscribe --bind-to none} -np 2 "$prog" 2>&1)
rc=$?
fail() { printf '%s\n' "$out" | tail -n 40; echo "lsan_own_leak: FAIL: $*"; exit 1; }
[ $rc -ne 0 ] || fail "exit status 0: the leak was not reported"
[ "$(printf '%s\n' "$out" | grep -c '^lsan_own_leak: rank [01] of 2$')" -eq 2 ] || fail "the two ranks did not both run"
own=$(printf '%s\n' "$out" | grep -c 'Direct leak of 77 byte(s) in 1 object(s)')
all=$(printf '%s\n' "$out" | grep -c 'leak of')
[ "$own" -eq 2 ] || fail "the 77 bytes reported $own times, expected once per rank (2)"
[ "$all" -eq 2 ] || fail "$all leak reports, expected only the program's own 2"
printf '%s\n' "$out" | grep -q 'in main .*lsan_own_leak\.c' || fail "the report does not name main in lsan_own_leak.c"
echo "lsan_own_leak: LeakSanitizer reports the program's own 77 bytes on each rank under mpirun, and nothing else"
