#!/bin/sh
# Runs a program linked against Debian's parallel HDF5 for MPICH (libhdf5-mpich-dev,
# built and linked by MPICH's mpicc) on mpix: build/lib comes first on LD_LIBRARY_PATH,
# so libmpich.so.12 is mpix's. Checks that the loader picked mpix, that the program's
# collective writes and reads agree on every element, and that h5dump (hdf5-tools)
# reads the file back with the values written.
#
# Usage: hdf5.sh NP [ENV=VALUE...]   (MPIX_PREFIX, MPIXEXEC from ctest)
# Exits 77 (skipped) when MPICH's mpicc, the MPICH HDF5 headers or h5dump are missing
# (scripts/install-deps.sh installs them).
set -u
np=$1
shift
inc=/usr/include/hdf5/mpich
lib=/usr/lib/x86_64-linux-gnu/hdf5/mpich
for c in mpicc.mpich h5dump; do
	command -v "$c" >/dev/null 2>&1 || { echo "SKIP: $c not installed (apt-get install libhdf5-mpich-dev hdf5-tools)"; exit 77; }
done
[ -f "$inc/hdf5.h" ] || { echo "SKIP: $inc/hdf5.h missing (apt-get install libhdf5-mpich-dev)"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpix-hdf5.XXXXXX")
trap 'rm -rf "$dir"' EXIT
src=$(dirname "$0")/h5par.c
mpicc.mpich -O2 -o "$dir/h5par" "$src" -I"$inc" -L"$lib" -Wl,-rpath,"$lib" -lhdf5 || { echo "FAIL: build"; exit 1; }
export LD_LIBRARY_PATH="$MPIX_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
so=$(ldd "$dir/h5par" | awk '/libmpich.so.12/ {print $3}')
case "$so" in
"$MPIX_PREFIX"/lib/*) echo "libmpich.so.12 => $so (mpix)" ;;
*) echo "FAIL: libmpich.so.12 resolves to '$so', not mpix's"; exit 1 ;;
esac
env "$@" "$MPIXEXEC" -n "$np" -timeout 120 "$dir/h5par" "$dir/grid.h5" || { echo "FAIL: h5par exited $?"; exit 1; }
# The last rank's last row: (8*np-1)*100 + 0..5.
last=$((8 * np - 1))
want="($last,0): $((last * 100)), $((last * 100 + 1)), $((last * 100 + 2)), $((last * 100 + 3)), $((last * 100 + 4)), $((last * 100 + 5))"
out=$(h5dump -d grid "$dir/grid.h5") || { echo "FAIL: h5dump"; exit 1; }
echo "$out" | grep -F "SIMPLE { ( $((8 * np)), 6 ) / ( $((8 * np)), 6 ) }" >/dev/null || { echo "FAIL: h5dump dataspace"; echo "$out" | head -8; exit 1; }
echo "$out" | grep -F "$want" >/dev/null || { echo "FAIL: h5dump does not show '$want'"; echo "$out" | tail -8; exit 1; }
echo "h5dump: ${want}"
echo "hdf5-ok np $np"
