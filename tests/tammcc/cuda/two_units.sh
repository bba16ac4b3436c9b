#!/bin/sh
# two_units.sh TAMMCC TAMM_LIB CC [CFLAGS] — two files (two_units/a.c, b.c) with a task in a static
# function of the same name at the same line: their CUDA variants are global symbols and must
# differ, or the program does not link.  Built with TAMMCC_NVCC=emu (no nvcc needed) and run
# on a simulated GPU (TAMM_CUDA_FAKE=1): the output must equal the plain C build's.
set -u
tammcc=$1 lib=$2 cc=$3 cflags=${4:--std=c11 -Wno-unknown-pragmas}
d=$(cd "$(dirname "$0")/two_units" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tamm2u.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
inc="$d/../../../../include"
$cc $cflags -I"$inc" -o "$tmp/seq" "$d/a.c" "$d/b.c" "$lib" -lpthread -lm || exit 1
"$tmp/seq" > "$tmp/want" || exit 1
TAMMCC_NVCC=emu "$tammcc" -O1 -o "$tmp/prog" "$d/a.c" "$d/b.c" || { echo "two_units: tammcc build failed"; exit 1; }
nm "$tmp/prog" | grep ' T tamm_task_fill_10_cuda' || { echo "two_units: no CUDA variants linked"; exit 1; }
TAMM_CUDA_FAKE=1 TAMM_SCHED=round-robin TAMM_NUM_WORKERS=2 TAMM_CUDA_EMU_REPORT=1 "$tmp/prog" > "$tmp/got" 2> "$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
cat "$tmp/err"
cmp "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got"; exit 1; }
echo "two_units: same output as the plain build: $(cat "$tmp/got")"
