#!/usr/bin/env bash
# install_test.sh — run by ctest (tests/install/CMakeLists.txt).
#
#   install_test.sh BUILD_DIR PREFIX WORK CC CMAKE LIBDIR VERSION [SAN_FLAGS]
#
# 1. cmake --install BUILD_DIR --prefix PREFIX, and check the installed files;
# 2. build external_random_dag.c with a plain `cc -I... -L... -ltammrt` (and rpath),
#    run it with TAMM_NUM_WORKERS=1, 2 and 4; the same linked statically, once;
# 3. pkg-config --cflags --libs tamm (PKG_CONFIG_PATH=PREFIX/LIBDIR/pkgconfig),
#    build with those flags and run;
# 4. a consumer CMake project: find_package(tamm), targets tamm::rt / tamm::rt_static.
set -euo pipefail

if [ $# -lt 7 ]; then
    echo "usage: $0 BUILD_DIR PREFIX WORK CC CMAKE LIBDIR VERSION [SAN_FLAGS]" >&2
    exit 2
fi
BUILD=$1 PREFIX=$2 WORK=$3 CC=$4 CMAKE=$5 LIBDIR=$6 VERSION=$7 SAN=${8:-}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/external_random_dag.c
LIB=$PREFIX/$LIBDIR
INC=$PREFIX/include
# Program arguments: seeds, tasks per seed.
DAG_ARGS=(4 250)

step() { printf '\n=== install test: %s\n' "$*"; }
fail() { printf 'install test: FAILED: %s\n' "$*" >&2; exit 1; }
# The sanitizer flags, word-split on purpose.
read -r -a SANF <<< "$SAN"

rm -rf "$PREFIX" "$WORK"
mkdir -p "$WORK"

step "cmake --install $BUILD --prefix $PREFIX"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" > "$WORK/install.log" 2>&1 \
    || { cat "$WORK/install.log"; fail "cmake --install"; }
sed "s|$PREFIX|<prefix>|" "$WORK/install.log"
for f in "$INC/tamm.h" "$LIB/libtammrt.so" "$LIB/libtammrt.so.0" "$LIB/libtammrt.a" \
         "$LIB/cmake/tamm/tammConfig.cmake" "$LIB/cmake/tamm/tammConfigVersion.cmake" \
         "$LIB/cmake/tamm/tammTargets.cmake" "$LIB/pkgconfig/tamm.pc"; do
    [ -e "$f" ] || fail "missing after install: $f"
done
# Only public headers are installed.
for h in "$INC"/*.h; do
    case $(basename "$h") in tamm.h|tamm_*.h) ;; *) fail "non-public header installed: $h" ;; esac
done
echo "installed files present"

run_dag() {  # run_dag EXE WORKERS
    local exe=$1 w=$2
    echo "--- TAMM_NUM_WORKERS=$w $(basename "$exe") ${DAG_ARGS[*]}"
    TAMM_NUM_WORKERS=$w "$exe" "${DAG_ARGS[@]}" || fail "$(basename "$exe") with TAMM_NUM_WORKERS=$w"
}
needs_shared_lib() {  # needs_shared_lib EXE yes|no
    if readelf -d "$1" | grep -q 'NEEDED.*libtammrt\.so'; then
        [ "$2" = yes ] || fail "$1 should not need libtammrt.so"
    else
        [ "$2" = no ] || fail "$1 does not link libtammrt.so"
    fi
}

step "plain cc against the installed shared library"
set -x
"$CC" -std=c11 -Wall -Wextra -Werror -O2 "${SANF[@]}" -I"$INC" "$SRC" -o "$WORK/dag_cc" \
    -L"$LIB" -Wl,-rpath,"$LIB" -ltammrt -lpthread -lm
{ set +x; } 2>/dev/null
needs_shared_lib "$WORK/dag_cc" yes
for w in 1 2 4; do run_dag "$WORK/dag_cc" $w; done

step "plain cc against the installed static library"
set -x
"$CC" -std=c11 -O2 "${SANF[@]}" -I"$INC" "$SRC" -o "$WORK/dag_cc_static" \
    "$LIB/libtammrt.a" -lpthread -lm
{ set +x; } 2>/dev/null
needs_shared_lib "$WORK/dag_cc_static" no
run_dag "$WORK/dag_cc_static" 2

step "pkg-config"
if command -v pkg-config > /dev/null; then
    export PKG_CONFIG_PATH=$LIB/pkgconfig
    flags=$(pkg-config --cflags --libs tamm) || fail "pkg-config --cflags --libs tamm"
    echo "pkg-config --cflags --libs tamm: $flags"
    static_libs=$(pkg-config --static --libs tamm)
    echo "pkg-config --static --libs tamm: $static_libs"
    version=$(pkg-config --modversion tamm)
    echo "pkg-config --modversion tamm: $version"
    [ "$version" = "$VERSION" ] || fail "tamm.pc version $version, expected $VERSION"
    # The prefix is the one given to cmake --install, not the configure-time one.
    [[ " $flags " == *" -I$INC "* ]] || fail "pkg-config --cflags lacks -I$INC"
    [[ " $flags " == *" -L$LIB "* ]] || fail "pkg-config --libs lacks -L$LIB"
    [[ " $flags " == *" -ltammrt "* ]] || fail "pkg-config --libs lacks -ltammrt"
    [[ " $static_libs " == *" -lpthread "* && " $static_libs " == *" -lm "* ]] \
        || fail "pkg-config --static --libs lacks -lpthread -lm"
    read -r -a PCF <<< "$flags"
    set -x
    "$CC" -std=c11 -O2 "${SANF[@]}" "$SRC" -o "$WORK/dag_pc" "${PCF[@]}" -Wl,-rpath,"$LIB" -lpthread -lm
    { set +x; } 2>/dev/null
    needs_shared_lib "$WORK/dag_pc" yes
    run_dag "$WORK/dag_pc" 2
else
    echo "SKIP: pkg-config not installed (make deps installs it)"
fi

step "CMake consumer: find_package(tamm), tamm::rt and tamm::rt_static"
"$CMAKE" -S "$HERE/consumer" -B "$WORK/consumer" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$SAN" -DTAMM_DAG_SRC="$SRC" > "$WORK/consumer-configure.log" 2>&1 \
    || { cat "$WORK/consumer-configure.log"; fail "configuring the consumer project"; }
grep 'consumer:' "$WORK/consumer-configure.log" | sed "s|$PREFIX|<prefix>|"
"$CMAKE" --build "$WORK/consumer" > "$WORK/consumer-build.log" 2>&1 \
    || { cat "$WORK/consumer-build.log"; fail "building the consumer project"; }
needs_shared_lib "$WORK/consumer/consumer_shared" yes
needs_shared_lib "$WORK/consumer/consumer_static" no
run_dag "$WORK/consumer/consumer_shared" 2
run_dag "$WORK/consumer/consumer_static" 4

printf '\ninstall test: OK (install, cc, static, pkg-config, find_package)\n'
