#!/usr/bin/env bash
# run_suites.sh: the three test suites of `make test`, Release (BUILD_DIR), ASan+UBSan
# (ASAN_DIR) and TSan (TSAN_DIR), each configured, built and run by ctest.
#
# The builds are pipelined: while one suite's ctest runs, the next suite is configured and
# built in the background at the lowest CPU priority (nice 19), so that it only takes the
# CPU time the tests leave idle (many tests wait on MPI start-up, sleeps or one thread) and
# the tests run as fast as when nothing else runs.  A suite's ctest starts when its build
# has ended; its build log is printed then, so the output reads suite by suite.
#
# Each suite records "PASSED FAILED STATUS" in DIR/tamm-test-result (the Makefile's
# test-summary adds them up); the ctest output is kept in DIR/tamm-ctest.log and the
# build's in DIR/tamm-build.log.
#
# Environment (set by the Makefile): BUILD_DIR ASAN_DIR TSAN_DIR JOBS CMAKE_ARGS
# CTEST_ARGS ASAN_ENV TSAN_ENV (each "VAR=value ..."), TSAN_WRAP_FILE (the file in which
# `make tsan-probe` left a command to run the TSan ctest under, if any).
set -u
: "${BUILD_DIR:=build}" "${ASAN_DIR:=build-asan}" "${TSAN_DIR:=build-tsan}"
: "${JOBS:=$(nproc 2>/dev/null || echo 2)}" "${CMAKE_ARGS:=}" "${CTEST_ARGS:=-j$JOBS}"
: "${ASAN_ENV:=}" "${TSAN_ENV:=}" "${TSAN_WRAP_FILE:=$TSAN_DIR/tamm-tsan-wrap}"

suites=(release asan tsan)
declare -A dir cmake_flags env_of
dir[release]=$BUILD_DIR
dir[asan]=$ASAN_DIR
dir[tsan]=$TSAN_DIR
cmake_flags[release]="-DCMAKE_BUILD_TYPE=Release -DTAMM_CUDA_ARCH_ENDS=ON" # cmake/cuda_archs.cmake
cmake_flags[asan]="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTAMM_SANITIZE=address"
cmake_flags[tsan]="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTAMM_SANITIZE=thread"
env_of[release]=""
env_of[asan]=$ASAN_ENV
env_of[tsan]=$TSAN_ENV

# build SUITE: configure and build it; DIR/tamm-build.status holds "STATUS SECONDS"
build() {
    local s=$1 d=${dir[$1]} t0 rc
    mkdir -p "$d"
    rm -f "$d/tamm-test-result" "$d/tamm-ctest.log" "$d/tamm-build.status"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    { cmake -S . -B "$d" ${cmake_flags[$s]} $CMAKE_ARGS && cmake --build "$d" -j"$JOBS"; } >"$d/tamm-build.log" 2>&1
    rc=$?
    echo "$rc $(( $(date +%s) - t0 ))" >"$d/tamm-build.status"
    return $rc
}

# run SUITE: print its build's outcome, run its ctest, record its result
run() {
    local s=$1 d=${dir[$1]} rc secs wrap="" t1 counts passed failed status
    read -r rc secs <"$d/tamm-build.status"
    echo
    echo "=== [$s] configure and build in $d: $secs s$2"
    if [ "$rc" -ne 0 ]; then
        tail -n 60 "$d/tamm-build.log"
        echo "=== [$s] BUILD FAILED (the whole log: $d/tamm-build.log)"
        echo "0 1 build-failed" >"$d/tamm-test-result"
        return 1
    fi
    grep -E '^-- (tamm|tests/|samples)' "$d/tamm-build.log"
    if [ "$s" = tsan ] && [ -s "$TSAN_WRAP_FILE" ]; then wrap=$(cat "$TSAN_WRAP_FILE"); fi
    echo "=== [$s] ctest in $d${env_of[$s]:+ with ${env_of[$s]}}${wrap:+ under '$wrap'}"
    t1=$(date +%s)
    # shellcheck disable=SC2086
    (cd "$d" && env ${env_of[$s]} $wrap ctest --output-on-failure $CTEST_ARGS) 2>&1 | tee "$d/tamm-ctest.log"
    rc=${PIPESTATUS[0]}
    echo "=== [$s] ctest $(( $(date +%s) - t1 )) s"
    counts=$(sed -nE 's/.*tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' "$d/tamm-ctest.log" | tail -n 1)
    if [ -n "$counts" ]; then
        set -- $counts
        failed=$1
        passed=$(( $2 - $1 ))
    elif grep -q 'No tests were found' "$d/tamm-ctest.log"; then
        passed=0 failed=0
    else
        passed=0 failed=1
    fi
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
    if [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]; then status=ok; else status=failed; fi
    echo "$passed $failed $status" >"$d/tamm-test-result"
    echo "=== [$s] $passed passed, $failed failed"
}

echo "=== [release] configure and build in $BUILD_DIR"
build release
# the sanitizer suites' builds, one after the other, in the background at nice 19
( renice -n 19 -p "$BASHPID" >/dev/null; for s in asan tsan; do build "$s"; done ) &
builder=$!
run release ""
for s in asan tsan; do
    t0=$(date +%s)
    while [ ! -f "${dir[$s]}/tamm-build.status" ] && kill -0 "$builder" 2>/dev/null; do sleep 2; done
    if [ ! -f "${dir[$s]}/tamm-build.status" ]; then echo "1 0" >"${dir[$s]}/tamm-build.status"; fi
    run "$s" " (in the background, at nice 19; waited $(( $(date +%s) - t0 )) s for it after the previous ctest)"
done
wait "$builder" 2>/dev/null
exit 0
