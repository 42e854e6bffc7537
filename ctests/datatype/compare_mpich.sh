#!/bin/sh
# Builds mpich_dump.c with MPICH's own compiler wrapper, runs it under MPICH and under
# mpix (the same binary, with libmpix.so preloaded), and compares what they print.
set -e
command -v mpicc.mpich >/dev/null 2>&1 || { echo "SKIP: mpicc.mpich not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpicc.mpich -o "$dir/dump" "$(dirname "$0")/mpich_dump.c"
"$dir/dump" > "$dir/mpich.out" 2> "$dir/mpich.err" || { cat "$dir/mpich.err"; echo "SKIP: the program fails under MPICH"; exit 77; }
"$MPIXEXEC" -n 1 -env LD_PRELOAD "$MPIX_PREFIX/lib/libmpix.so" "$dir/dump" > "$dir/mpix.out"
if ! diff -u "$dir/mpich.out" "$dir/mpix.out" > "$dir/diff"; then
    head -100 "$dir/diff"
    echo "FAIL: mpix differs from MPICH ($(grep -c '^-==' "$dir/diff" || true) types)"
    exit 1
fi
echo "same as MPICH: $(grep -c '^==' "$dir/mpix.out") types"
