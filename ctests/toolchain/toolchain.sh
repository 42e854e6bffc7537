#!/bin/sh
# toolchain.sh cmake|autotools|meson|pkgconfig|fortran|install
#
# Builds the small project in project/ the way a user's build system would, given
# nothing but PATH=$MPIX_PREFIX/bin:$PATH (pkg-config and Meson's first method also
# PKG_CONFIG_PATH=$MPIX_PREFIX/lib/pkgconfig), and checks that it found mpix, not the
# MPICH or Open MPI installed beside it: the binaries load $MPIX_PREFIX/lib/libmpix.so,
# and they run under mpix's mpiexec on 2 processes, each rank checking that
# MPI_Get_library_version names mpix. "install" runs `make install PREFIX=<tmp>`,
# moves the tree elsewhere and builds and runs with the moved wrappers, pkg-config
# file and mpixinfo. "fortran" builds the project's Fortran programs (use mpi, use mpi_f08 and
# mpif.h) through CMake's find_package(MPI COMPONENTS Fortran), through pkg-config's
# mpi-fort and ompi-fort, and with each wrapper name (mpifort, mpif90, mpif77,
# mpixfort). Exits 77 (skipped) when the build system is not installed.
set -eu
kind=${1:?usage: toolchain.sh cmake|autotools|meson|pkgconfig|fortran|install}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/project
prefix=$(cd "${MPIX_PREFIX:?MPIX_PREFIX names the mpix tree}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Nothing from the caller's environment picks an MPI or a compiler.
unset MPICC MPICXX MPIX_CC MPIX_CXX MPICH_CC MPICH_CXX OMPI_CC OMPI_CXX CC CXX \
    MPIFC MPIX_FC MPICH_FC MPICH_F90 OMPI_FC FC FFLAGS CFLAGS LDFLAGS PKG_CONFIG_PATH MPI_HOME MAKEFLAGS MAKELEVEL MFLAGS 2>/dev/null || true
syspath=$PATH
export PATH="$prefix/bin:$syspath"

fail() {
    echo "FAIL: $*"
    exit 1
}
need() {
    command -v "$1" >/dev/null 2>&1 ||
        { echo "toolchain.sh: $1 is not installed (scripts/install-deps.sh installs it)"; exit 77; }
}
# quietly CMD...: runs CMD with its output in a log, shown only if it fails.
quietly() {
    "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$* failed"; }
}

# uses_mpix BINARY LIBDIR: BINARY loads libmpix.so from LIBDIR and no other MPI.
uses_mpix() {
    libs=$(ldd "$1")
    if [ "${want_fort:-0}" = 1 ]; then
        ffile=$(printf '%s\n' "$libs" | sed -n 's/.*libmpixfort\.so => \(.*\) (0x.*/\1/p')
        [ "$(readlink -f "$ffile")" = "$(readlink -f "$2/libmpixfort.so")" ] ||
            fail "$1 does not load $2/libmpixfort.so:
$libs"
    fi
    file=$(printf '%s\n' "$libs" | sed -n 's/.*libmpix\.so => \(.*\) (0x.*/\1/p')
    [ -n "$file" ] || fail "$1 does not load libmpix.so:
$libs"
    [ "$(readlink -f "$file")" = "$(readlink -f "$2/libmpix.so")" ] ||
        fail "$1 loads $file, want $2/libmpix.so"
    if printf '%s\n' "$libs" | grep -E 'libmpich|openmpi|libmpi\.so'; then
        fail "$1 loads another MPI library"
    fi
    echo "$1 loads $file"
}

# run_job MPIEXEC BINARY: mpix's launcher runs BINARY on 2 processes.
run_job() {
    [ "$(readlink -f "$1")" = "$(readlink -f "$prefix/bin/mpixexec")" ] ||
        fail "the launcher found is $1, not mpix's"
    "$1" -n 2 -timeout 60 "$2" 2
}

case "$kind" in
cmake)
    need cmake
    quietly cmake -S "$src" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release
    cat "$tmp/b/found.txt"
    grep -qx "MPI_C_COMPILER=$prefix/bin/mpicc" "$tmp/b/found.txt" || fail "FindMPI's C compiler is not mpix's"
    grep -qE "^MPI_CXX_COMPILER=$prefix/bin/mpi(cxx|c\+\+|CC)$" "$tmp/b/found.txt" || fail "FindMPI's C++ compiler is not mpix's"
    grep -qx "MPI_C_LIBRARIES=$prefix/lib/libmpix.so" "$tmp/b/found.txt" || fail "FindMPI's C library is not libmpix.so"
    mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE=//p' "$tmp/b/found.txt")
    quietly cmake --build "$tmp/b"
    for p in hello_c hello_cxx; do
        uses_mpix "$tmp/b/$p" "$prefix/lib"
        run_job "$mpiexec" "$tmp/b/$p"
    done
    ;;
autotools)
    need autoconf
    need aclocal
    [ -f /usr/share/aclocal/ax_prog_cc_mpi.m4 ] ||
        { echo "toolchain.sh: autoconf-archive is not installed"; exit 77; }
    cp "$src/configure.ac" "$src/Makefile.in" "$src/hello.c" "$tmp/"
    cd "$tmp"
    quietly aclocal
    quietly autoconf
    quietly ./configure
    grep 'checking for mpicc\|result: mpicc\|MPICC' config.log | head -5
    grep -qx "CC = mpicc" Makefile || fail "configure chose $(grep '^CC =' Makefile), not mpicc"
    quietly make hello
    uses_mpix ./hello "$prefix/lib"
    run_job "$(command -v mpiexec)" ./hello
    ;;
meson)
    need meson
    need ninja
    # Meson 1.0 asks pkg-config for ompi-c first: with mpix's pkg-config directory
    # first (mpixvars puts it there), its ompi-c alias answers; with PATH alone, the wrappers must answer
    # (method config-tool: mpicc --showme:compile / --showme:link / --showme:version).
    for method in auto config-tool; do
        if [ "$method" = auto ]; then
            # what a user does: mpixvars sets PATH and PKG_CONFIG_PATH
            eval "$("$prefix/bin/mpixvars")"
            [ "$PKG_CONFIG_PATH" = "$prefix/lib/pkgconfig" ] ||
                fail "mpixvars set PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
        else
            unset PKG_CONFIG_PATH
        fi
        quietly meson setup "$tmp/$method" "$src" -Dmpi_method=$method
        grep -i 'Run-time dependency mpi' "$tmp/log" || true
        quietly meson compile -C "$tmp/$method"
        for p in hello_c hello_cxx; do
            uses_mpix "$tmp/$method/$p" "$prefix/lib"
            run_job "$(command -v mpiexec)" "$tmp/$method/$p"
        done
    done
    ;;
pkgconfig)
    need pkg-config
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    for name in mpix mpich ompi-c mpi; do
        [ "$(pkg-config --modversion $name)" = "$(pkg-config --modversion mpix)" ] ||
            fail "pkg-config $name is not mpix"
    done
    echo "pkg-config --cflags --libs mpix: $(pkg-config --cflags --libs mpix)"
    quietly cc -o "$tmp/hello_c" "$src/hello.c" $(pkg-config --cflags --libs mpix)
    quietly c++ -o "$tmp/hello_cxx" "$src/hello.cc" $(pkg-config --cflags --libs ompi-cxx)
    for p in hello_c hello_cxx; do
        uses_mpix "$tmp/$p" "$prefix/lib"
        run_job "$(command -v mpiexec)" "$tmp/$p"
    done
    ;;
fortran)
    need cmake
    need gfortran
    need pkg-config
    want_fort=1
    quietly cmake -S "$src" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release -DWITH_FORTRAN=ON
    cat "$tmp/b/found.txt"
    grep -qE "^MPI_Fortran_COMPILER=$prefix/bin/mpi(fort|f90|f77)$" "$tmp/b/found.txt" || fail "FindMPI's Fortran compiler is not mpix's"
    grep -qx "MPI_Fortran_LIBRARIES=$prefix/lib/libmpixfort.so;$prefix/lib/libmpix.so" "$tmp/b/found.txt" ||
        fail "FindMPI's Fortran libraries are not libmpixfort.so and libmpix.so"
    grep -qx "MPI_Fortran_HAVE_F77_HEADER=TRUE" "$tmp/b/found.txt" || fail "FindMPI found no mpif.h"
    grep -qx "MPI_Fortran_HAVE_F90_MODULE=TRUE" "$tmp/b/found.txt" || fail "FindMPI found no module mpi"
    grep -qx "MPI_Fortran_HAVE_F08_MODULE=TRUE" "$tmp/b/found.txt" || fail "FindMPI found no module mpi_f08"
    mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE=//p' "$tmp/b/found.txt")
    quietly cmake --build "$tmp/b"
    for p in hello_f90 hello_f08 hello_f77; do
        uses_mpix "$tmp/b/$p" "$prefix/lib"
        run_job "$mpiexec" "$tmp/b/$p"
    done
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    for name in mpi-fort ompi-fort; do
        [ "$(pkg-config --modversion $name)" = "$(pkg-config --modversion mpix)" ] ||
            fail "pkg-config $name is not mpix"
        quietly gfortran -o "$tmp/pc_$name" "$src/hello.f90" $(pkg-config --cflags --libs $name)
        uses_mpix "$tmp/pc_$name" "$prefix/lib"
        run_job "$(command -v mpiexec)" "$tmp/pc_$name"
    done
    for w in mpifort mpif90 mpif77 mpixfort; do
        [ "$(readlink -f "$(command -v $w)")" = "$(readlink -f "$prefix/bin/mpixcc")" ] || fail "$w is not mpix's wrapper"
        "$w" -showme:version | grep -q "Language: Fortran" || fail "$w does not compile Fortran"
        quietly "$w" -o "$tmp/w_$w" "$src/hello77.f"
        uses_mpix "$tmp/w_$w" "$prefix/lib"
        run_job "$(command -v mpiexec)" "$tmp/w_$w"
    done
    ;;
install)
    need make
    root=$(cd "$here/../.." && pwd)
    [ "$(readlink -f "$root/build")" = "$(readlink -f "$prefix")" ] ||
        { echo "toolchain.sh: make install copies $root/build, not $prefix"; exit 77; }
    quietly make -C "$root" install PREFIX="$tmp/a"
    for f in bin/mpixcc bin/mpixcxx bin/mpicc bin/mpicxx bin/mpic++ bin/mpixexec bin/mpiexec bin/mpirun \
        bin/mpixinfo bin/mpixvars lib/libmpix.so lib/libmpi.so lib/libmpi.so.12 lib/libmpich.so.12 \
        include/mpi.h include/mpix.h lib/pkgconfig/mpix.pc lib/pkgconfig/ompi-c.pc \
        bin/mpifort bin/mpif77 bin/mpif90 bin/mpixfort lib/libmpixfort.so include/mpif.h include/mpi.mod include/mpi_f08.mod \
        lib/pkgconfig/mpi-fort.pc lib/pkgconfig/ompi-fort.pc; do
        [ -e "$tmp/a/$f" ] || fail "make install did not install $f"
    done
    mv "$tmp/a" "$tmp/moved"
    moved=$tmp/moved
    export PATH="$moved/bin:$syspath"
    prefix=$moved # what run_job checks the launcher against
    mpicc -show
    mpicc -o "$tmp/hello_c" "$src/hello.c"
    mpicxx -o "$tmp/hello_cxx" "$src/hello.cc"
    if command -v gfortran >/dev/null 2>&1; then
        mpifort -o "$tmp/hello_f90" "$src/hello.f90"
        want_fort=1
        uses_mpix "$tmp/hello_f90" "$moved/lib"
        want_fort=0
        run_job "$(command -v mpiexec)" "$tmp/hello_f90"
    fi
    (
        eval "$("$moved/bin/mpixvars")"
        quietly cc -o "$tmp/hello_pc" "$src/hello.c" $(pkg-config --cflags --libs mpix)
    ) || fail "building through the moved mpixvars and mpix.pc failed"
    for p in hello_c hello_cxx hello_pc; do
        uses_mpix "$tmp/$p" "$moved/lib"
    done
    run_job "$(command -v mpiexec)" "$tmp/hello_c"
    run_job "$(command -v mpirun)" "$tmp/hello_cxx"
    run_job "$(command -v mpiexec)" "$tmp/hello_pc"
    "$moved/bin/mpixinfo" >"$tmp/info" || fail "the moved mpixinfo failed"
    grep -E "prefix|library:" "$tmp/info"
    grep -qx "  prefix: *$moved" "$tmp/info" || fail "mpixinfo does not name the moved prefix"
    grep -qx "  library: *$moved/lib/libmpix.so" "$tmp/info" || fail "mpixinfo does not load the moved library"
    ;;
*)
    echo "toolchain.sh: unknown build system $kind" >&2
    exit 2
    ;;
esac
echo "toolchain-$kind: ok"
