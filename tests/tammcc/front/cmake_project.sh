#!/bin/sh
# cmake_project.sh TAMMCC DIR — tammcc as a CMake project's C compiler
# (CMAKE_C_COMPILER=tammcc): configure, build, run; change a header next to the
# source, build again: the object must be rebuilt (CMake reads the depfile
# tammcc writes) and the program must print the new value.
set -eu
tammcc=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir"
mkdir -p "$dir/src"
cd "$dir"
echo '#define SCALE 2' > src/kern.h
cp "$here/buildsys_main.c" src/main.c
printf 'cmake_minimum_required(VERSION 3.18)\nproject(user C)\nadd_executable(prog main.c)\n' > src/CMakeLists.txt
export TAMMCC_NVCC=none
cmake -S src -B b -DCMAKE_C_COMPILER="$tammcc" > configure.log 2>&1 || { cat configure.log; echo "FAIL: configure"; exit 1; }
cmake --build b > build1.log 2>&1 || { cat build1.log; echo "FAIL: build"; exit 1; }
out=$(./b/prog)
[ "$out" = "value 2" ] || { echo "FAIL: first build printed '$out'"; exit 1; }
sleep 1
echo '#define SCALE 3' > src/kern.h
cmake --build b > build2.log 2>&1 || { cat build2.log; echo "FAIL: rebuild"; exit 1; }
out=$(./b/prog)
[ "$out" = "value 3" ] || { cat build2.log; echo "FAIL: after changing kern.h the build did not recompile (prints '$out')"; exit 1; }
echo "cmake_project: OK (CMAKE_C_COMPILER=tammcc; rebuilt after a header change)"
