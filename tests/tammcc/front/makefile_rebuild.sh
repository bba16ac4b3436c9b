#!/bin/sh
# makefile_rebuild.sh TAMMCC DIR — tammcc in a Makefile project as users write one:
# CC = tammcc with -MMD -MP, objects compiled with -c, linked by tammcc.  After a
# change of a header next to the source, make must rebuild and the program must
# print the new value (the depfile names the user's files, not tammcc's temporary ones).
set -eu
tammcc=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
echo '#define SCALE 2' > kern.h
cp "$here/buildsys_main.c" main.c
printf 'CC = %s\nCFLAGS = -O1 -MMD -MP\nprog: main.o\n\t$(CC) -o $@ main.o\n-include main.d\n' "$tammcc" > Makefile
export TAMMCC_NVCC=none
make -s
out=$(./prog)
[ "$out" = "value 2" ] || { echo "FAIL: first build printed '$out'"; exit 1; }
grep -q 'kern.h' main.d || { echo "FAIL: main.d does not name kern.h:"; cat main.d; exit 1; }
if grep -q 'tammcc-' main.d; then echo "FAIL: main.d names tammcc's temporary files:"; cat main.d; exit 1; fi
sleep 1 # a newer mtime than main.o on any file system
echo '#define SCALE 3' > kern.h
make -s
out=$(./prog)
[ "$out" = "value 3" ] || { echo "FAIL: after changing kern.h, make did not rebuild (prints '$out')"; exit 1; }
echo "makefile_rebuild: OK (rebuilt after a header change)"
