#!/usr/bin/env bash
# tammcc_rule_test.sh — run by ctest (tests/install/CMakeLists.txt): pragma
# programs built outside the tree against an installed tamm, with the
# project's plain C compiler (not mpicc) as tammcc's back end.
#
#   tammcc_rule_test.sh BUILD_DIR PREFIX WORK CC CMAKE LIBDIR WITH_CUDA [SAN_FLAGS]
#
# 1. cmake --install BUILD_DIR --prefix PREFIX;
# 2. a CMake project: find_package(tamm), tamm_add_executable(prog main.c) and
#    tamm_add_executable(prog_static STATIC main.c) (tammcc compiles main.c, which
#    includes a header next to it); both run; after the header changes the build
#    recompiles (the depfile tammcc writes through the launcher);
# 3. pkg-config: `tammcc -c`, then plain CC links with
#    `pkg-config --static --libs tamm` (libtammrt.a: MPI, libdl, and libcudart
#    for the CUDA variant when tamm is built with CUDA), and with
#    `pkg-config --libs tamm` + the variable cuda_libs (libtammrt.so).
set -euo pipefail
if [ $# -lt 7 ]; then
    echo "usage: $0 BUILD_DIR PREFIX WORK CC CMAKE LIBDIR WITH_CUDA [SAN_FLAGS]" >&2
    exit 2
fi
BUILD=$1 PREFIX=$2 WORK=$3 CC=$4 CMAKE=$5 LIBDIR=$6 WITH_CUDA=$7 SAN=${8:-}
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=$PREFIX/$LIBDIR
read -r -a SANF <<< "$SAN"
step() { printf '\n=== tammcc rule test: %s\n' "$*"; }
fail() { printf 'tammcc rule test: FAILED: %s\n' "$*" >&2; exit 1; }
run_prog() {  # run_prog EXE EXPECTED
    local out rc=0
    out=$(TAMM_NUM_WORKERS=2 "$1") || rc=$?
    [ $rc -eq 0 ] || fail "$(basename "$1") exited with status $rc"
    echo "$(basename "$1"): $out"
    [ "$out" = "$2" ] || fail "$(basename "$1") printed '$out', expected '$2'"
}

rm -rf "$PREFIX" "$WORK"
mkdir -p "$WORK/src"
step "cmake --install $BUILD --prefix $PREFIX"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" > "$WORK/install.log" 2>&1 \
    || { cat "$WORK/install.log"; fail "cmake --install"; }
for f in "$PREFIX/bin/tammcc" "$LIB/cmake/tamm/tammcc_launcher.sh" "$LIB/pkgconfig/tamm.pc"; do
    [ -e "$f" ] || fail "missing after install: $f"
done
cp "$HERE/tammcc_rule/main.c" "$HERE/tammcc_rule/scale.h" "$WORK/src/"

step "CMake project: find_package(tamm), tamm_add_executable (CMAKE_C_COMPILER=$CC)"
cat > "$WORK/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(tamm_rule LANGUAGES C)
find_package(tamm 0.1 REQUIRED)
tamm_add_executable(prog main.c)
tamm_add_executable(prog_static STATIC main.c)
message(STATUS "rule: tammcc ${TAMM_TAMMCC}, TAMM_WITH_CUDA=${TAMM_WITH_CUDA}")
CM
"$CMAKE" -S "$WORK/src" -B "$WORK/cm" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$SAN" > "$WORK/cm-configure.log" 2>&1 \
    || { cat "$WORK/cm-configure.log"; fail "configuring the project"; }
"$CMAKE" --build "$WORK/cm" -- VERBOSE=1 > "$WORK/cm-build.log" 2>&1 \
    || { cat "$WORK/cm-build.log"; fail "building the project"; }
grep -q 'tammcc_launcher.sh' "$WORK/cm-build.log" || { cat "$WORK/cm-build.log"; fail "main.c was not compiled through tammcc"; }
run_prog "$WORK/cm/prog" "tammcc_rule: sum 84"
run_prog "$WORK/cm/prog_static" "tammcc_rule: sum 84"
if readelf -d "$WORK/cm/prog_static" | grep -q 'NEEDED.*libtammrt'; then fail "prog_static links libtammrt.so"; fi
sleep 1
echo '#define NBLK 1' > "$WORK/src/scale.h"
"$CMAKE" --build "$WORK/cm" > "$WORK/cm-rebuild.log" 2>&1 || { cat "$WORK/cm-rebuild.log"; fail "rebuild"; }
run_prog "$WORK/cm/prog" "tammcc_rule: sum 18"
cp "$HERE/tammcc_rule/scale.h" "$WORK/src/scale.h"

step "pkg-config: tammcc -c, then plain $CC with pkg-config --static --libs tamm"
command -v pkg-config > /dev/null || { echo "SKIP: pkg-config not installed (make deps installs it)"; exit 0; }
export PKG_CONFIG_PATH=$LIB/pkgconfig
static_libs=$(pkg-config --static --libs tamm)
echo "pkg-config --static --libs tamm: $static_libs"
cuda_libs=$(pkg-config --variable=cuda_libs tamm)
echo "pkg-config --variable=cuda_libs tamm: $cuda_libs"
if [ "$WITH_CUDA" = ON ]; then
    [[ " $static_libs " == *" -lcudart "* ]] || fail "tamm is built with CUDA, but pkg-config --static --libs lacks -lcudart"
    [ -n "$cuda_libs" ] || fail "tamm is built with CUDA, but tamm.pc has no cuda_libs"
fi
cd "$WORK/src"
set -x
TAMMCC_CC="$CC" "$PREFIX/bin/tammcc" -O2 "${SANF[@]}" -c main.c -o "$WORK/main.o"
# -l:libtammrt.a: the static library, although the shared one lies next to it
read -r -a SL <<< "${static_libs//-ltammrt/-l:libtammrt.a}"
"$CC" "${SANF[@]}" "$WORK/main.o" "${SL[@]}" -o "$WORK/prog_pc_static"
read -r -a DL <<< "$(pkg-config --libs tamm) $cuda_libs"
"$CC" "${SANF[@]}" "$WORK/main.o" "${DL[@]}" -Wl,-rpath,"$LIB" -o "$WORK/prog_pc_shared"
{ set +x; } 2>/dev/null
if readelf -d "$WORK/prog_pc_static" | grep -q 'NEEDED.*libtammrt'; then fail "prog_pc_static links libtammrt.so"; fi
run_prog "$WORK/prog_pc_static" "tammcc_rule: sum 84"
run_prog "$WORK/prog_pc_shared" "tammcc_rule: sum 84"
printf '\ntammcc rule test: OK (find_package + tamm_add_executable, rebuild after a header change, pkg-config --static with plain cc)\n'
