#!/bin/sh
# epshare.sh: message rate per MPIX_EP_SHARING category against the number of threads,
# with the resources each category opened (issue 27's Measure, over libfabric): the
# multithreaded message rate (mtmsgrate), the 5-point stencil's halo exchange
# (stencil.c, the paper's Figure 13) and the global-array DGEMM tiles (gatile.c, its
# Figure 12: MPI_Get and MPI_Put of tiles through a window per thread).
#
#     bench/epshare.sh [THREADS...]        (default: 1 2 4)
#
# Each run is mtmsgrate par_comm (a communicator, hence a VCI, per thread) between two
# processes with MPIX_SHM=0, so that every message goes through libfabric, and
# MPIX_NUM_VCIS = threads + 1; the stencil likewise, a communicator per thread. It
# prints one line per category and thread count: both rates (million messages per
# second), the stencil's checksum (equal in every category, or something is wrong) and,
# from MPIX_EP_REPORT's page, the category in effect, the endpoints, CQs and the mlx5
# model's uUARs. Environment: MPIX_PREFIX (the install, default ./build), WINDOWS
# (mtmsgrate's per thread, default 300), ITERS (stencil's, default 200), N (gatile's
# matrix order, default 256).
set -e
prefix=${MPIX_PREFIX:-$(dirname "$0")/../build}
windows=${WINDOWS:-300}
threads=${*:-1 2 4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$prefix/bin/mpicc" -O2 -o "$tmp/mtmsgrate" "$(dirname "$0")/mtmsgrate.c" -lpthread
"$prefix/bin/mpicc" -O2 -o "$tmp/stencil" "$(dirname "$0")/stencil.c" -lpthread
"$prefix/bin/mpicc" -O2 -o "$tmp/gatile" "$(dirname "$0")/gatile.c" -lpthread
printf '%-15s %7s %9s %9s %13s %9s  %-15s %9s %5s %6s\n' category threads Mmsg/s stencil checksum tiles/s "in effect" endpoints CQs uUARs
for cat in mpi_everywhere 2xdynamic dynamic shared_dynamic static mpi_threads; do
    for t in $threads; do
        "$prefix/bin/mpixexec" -n 2 -timeout 300 -env MPIX_SHM 0 -env MPIX_NUM_VCIS $((t + 1)) \
            -env MPIX_EP_SHARING $cat -env MPIX_EP_REPORT 1 \
            "$tmp/mtmsgrate" par_comm "$t" multiple "$windows" >"$tmp/out" 2>"$tmp/err" || {
            echo "$cat $t: failed"; cat "$tmp/err"; continue; }
        rate=$(awk '/^mtrate/ {print $6}' "$tmp/out")
        "$prefix/bin/mpixexec" -n 2 -timeout 300 -env MPIX_SHM 0 -env MPIX_NUM_VCIS $((t + 1)) \
            -env MPIX_EP_SHARING $cat "$tmp/stencil" "$t" "${ITERS:-200}" >"$tmp/sout" 2>&1 || {
            echo "$cat $t: stencil failed"; cat "$tmp/sout"; continue; }
        srate=$(awk '/^stencil/ {print $4}' "$tmp/sout")
        sum=$(awk '/^stencil/ {print $6}' "$tmp/sout")
        "$prefix/bin/mpixexec" -n 2 -timeout 300 -env MPIX_SHM 0 -env MPIX_NUM_VCIS $((t + 1)) \
            -env MPIX_EP_SHARING $cat "$tmp/gatile" "$t" "${N:-256}" 32 >"$tmp/gout" 2>&1 || {
            echo "$cat $t: gatile failed"; cat "$tmp/gout"; continue; }
        tiles=$(awk '/^gatile/ {print $3}' "$tmp/gout")
        used=$(sed -n 's/.*\[rank 0\] category: asked [a-z0-9_]*, in effect \([a-z0-9_]*\).*/\1/p' "$tmp/err")
        eps=$(sed -n 's/.*\[rank 0\] queue pairs (endpoints): \([0-9]*\),.*/\1/p' "$tmp/err")
        cqs=$(sed -n 's/.*\[rank 0\] completion queues: \([0-9]*\).*/\1/p' "$tmp/err")
        uuars=$(sed -n 's/.*\[rank 0\] on an mlx5 device.* uUARs \([0-9]*\) .*/\1/p' "$tmp/err")
        printf '%-15s %7s %9s %9s %13s %9s  %-15s %9s %5s %6s\n' "$cat" "$t" "$rate" "$srate" "$sum" "$tiles" "$used" "$eps" "$cqs" "$uuars"
    done
done
