#!/bin/sh
# sanitize.sh address|thread [ctest options...]: the C data plane under a sanitizer.
# Builds libmpix.so with its cgo C (shm/: the fast path and lite requests; threadcomm/:
# the threadcomm queues and collectives; kernels/, vci/) compiled with -fsanitize=address or thread into
# build/<sanitizer>/lib (the Go runtime itself is not instrumented), builds the p2p,
# vci and threadcomm ctests with the same flag against it (CMake option
# MPIX_SANITIZE), and runs them with ctest; a sanitizer report fails its test
# (AddressSanitizer aborts, ThreadSanitizer exits 66). `make sanitize` runs both.
set -eu
san=${1:?usage: sanitize.sh address|thread [ctest options...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${MPIX_PREFIX:-$root/build}
dir=$prefix/$san
GO=${GO:-go}
mkdir -p "$dir/lib"
cd "$root"
# Go caches the build: this is quick when nothing changed since the last run.
CGO_CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=$san" CGO_LDFLAGS="-fsanitize=$san" \
    $GO build -buildmode=c-shared -trimpath -ldflags '-extldflags "-Wl,-soname,libmpix.so"' \
    -o "$dir/lib/libmpix.so" ./capi
rm -f "$dir/lib/libmpix.h"
cmake -S "$root" -B "$dir/ctests" -DMPIX_PREFIX="$prefix" -DMPIX_LIBDIR="$dir/lib" \
    -DMPIX_SANITIZE="$san" -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$dir/ctests" -j 2 > /dev/null
# A sanitizer report anywhere (also in a rank that otherwise succeeds) fails the test.
# Leak checking is off by default: LeakSanitizer does not scan Go's heap, and the
# threadcomm state (threadcomm's mpix_tc_act, its queues and cells) is held from
# Go (core.ThreadcommExt), so at exit it reports what may still be reachable (8 of 54
# tests, all in threadcomm's cell_get/start_send/drain). ASAN_OPTIONS=detect_leaks=1 ctests/sanitize.sh address -R tc_p2p shows them.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=0}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0:exitcode=66:second_deadlock_stack=1}"
cd "$dir/ctests"
exec ctest --output-on-failure --timeout 240 -j 2 "$@"
