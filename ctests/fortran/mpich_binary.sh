#!/bin/sh
# mpich_binary.sh PROGRAM.f|PROGRAM.f90: builds a test program with MPICH's own
# Fortran wrapper, mpif.h and module mpi, then runs the binary on mpix on 2 processes,
# with mpix's lib directory (libmpichfort.so.12 and libmpich.so.12 are its drop-in
# names) first on LD_LIBRARY_PATH. Exits 77 (skipped) where MPICH's Fortran wrapper is
# not installed.
set -e
src=${1:?usage: mpich_binary.sh PROGRAM.f|PROGRAM.f90}
command -v mpif90.mpich >/dev/null 2>&1 || { echo "SKIP: mpif90.mpich not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# mpif.h programs pass different types to one choice argument (gfortran >= 10 wants
# leave for that; MPICH's wrapper does not add it)
flags=""
major=$(gfortran -dumpversion 2>/dev/null | cut -d. -f1)
[ "${major:-0}" -ge 10 ] && flags=-fallow-argument-mismatch
cd "$dir"
mpif90.mpich $flags -O2 -o prog "$src" 2>build.log || { cat build.log; exit 1; }
ldd prog | grep -q libmpichfort || { echo "FAIL: the program does not link MPICH's Fortran library"; exit 1; }
"$MPIXEXEC" -n 2 -timeout 60 -env LD_LIBRARY_PATH "$MPIX_PREFIX/lib" ./prog
