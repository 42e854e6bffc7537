#!/bin/sh
# Builds abi_app.c with MPICH's own wrapper and header, then runs the binary on mpix
# (a) with LD_PRELOAD and (b) with mpix's libmpich.so.12 first on LD_LIBRARY_PATH.
# Usage: abi_mpich_binary.sh preload|libpath
set -e
command -v mpicc.mpich >/dev/null 2>&1 || { echo "SKIP: mpicc.mpich not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpicc.mpich -o "$dir/abi_app" "$(dirname "$0")/abi_app.c"
case "$1" in
    preload) exec "$MPIXEXEC" -n 2 -env LD_PRELOAD "$MPIX_PREFIX/lib/libmpix.so" "$dir/abi_app" ;;
    libpath) exec "$MPIXEXEC" -n 2 -env LD_LIBRARY_PATH "$MPIX_PREFIX/lib" "$dir/abi_app" ;;
esac
echo "usage: $0 preload|libpath" >&2
exit 2
