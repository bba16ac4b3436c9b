#!/bin/sh
# tammcc_launcher.sh — the C_COMPILER_LAUNCHER that tamm_use_tammcc (tammConfig.cmake)
# puts on a target, so that CMake compiles its C sources with tammcc:
#
#   sh tammcc_launcher.sh TAMMCC NVCC CC ARGS...
#
# CMake runs "<launcher> CC ARGS..." for each source; this runs "TAMMCC ARGS..."
# with TAMMCC_CC=CC (the project's C compiler is tammcc's back end) and, when NVCC
# is "none" (no CUDA toolkit found by the consumer project), TAMMCC_NVCC=none
# (no CUDA variants, so nothing needs libcudart at link time).
tammcc=$1
nvcc=$2
TAMMCC_CC=$3
export TAMMCC_CC
shift 3
if [ "$nvcc" = none ]; then
    TAMMCC_NVCC=none
    export TAMMCC_NVCC
fi
exec "$tammcc" "$@"
