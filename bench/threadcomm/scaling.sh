#!/bin/sh
# scaling: the threadcomm benchmark's Figures 4 and 5 (MPI_Barrier vs `omp barrier`,
# MPI_Reduce of 1 Ki ints vs OpenMP's `reduction`, one region each) at several team
# sizes, with the team bound to cores (OMP_PROC_BIND=close OMP_PLACES=cores, as the
# paper's "16 threads bound to cores") and unbound, RUNS runs each. Prints, per size
# and binding, the median over runs of each figure in µs and of the ratios the paper's
# comparison is about (barrier: mpi/omp, aim <= 1.5; reduce: mpi/omp, aim < 1). Run from the repository root after
# `make`:
#
#     bench/threadcomm/scaling.sh [RUNS [THREADS...]]
#
# RUNS defaults to 5; THREADS to 2 4 8 ... up to the machine's CPUs. Sizes above the
# CPUs oversubscribe them, which neither side is built for. (docs/performance.md
# gives the last figures.)
set -eu
runs=${1:-5}
[ $# -gt 0 ] && shift
sizes=$*
if [ -z "$sizes" ]; then
    cpus=$(nproc)
    t=2
    while [ "$t" -le "$cpus" ]; do sizes="$sizes $t"; t=$((t * 2)); done
fi
out=build/bench/threadcomm
mkdir -p "$out"
build/bin/mpixcc -O2 -fopenmp -o "$out/threadcomm" bench/threadcomm/threadcomm.c
for bind in close none; do
    for t in $sizes; do
        if [ "$bind" = close ]; then
            set -- -env OMP_PROC_BIND close -env OMP_PLACES cores
        else
            set --
        fi
        i=0
        while [ "$i" -lt "$runs" ]; do
            build/bin/mpixexec -n 1 -env OMP_NUM_THREADS "$t" "$@" "$out/threadcomm" 10000 8
            i=$((i + 1))
        done | awk -v t="$t" -v bind="$bind" '
            function median(key,   n, i, j, v, tmp) {
                n = count[key]
                for (i = 1; i <= n; i++) v[i] = val[key, i]
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { tmp = v[i]; v[i] = v[j]; v[j] = tmp }
                return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            }
            /^(barrier|reduce) / { key = $1 " " $2; val[key, ++count[key]] = $4 }
            END {
                printf "threads %d bind %s: barrier mpi %.2f omp %.2f ratio %.2f | reduce mpi %.2f omp %.2f ratio %.2f (median of %d)\n",
                    t, bind, median("barrier mpi"), median("barrier omp"), median("barrier ratio"),
                    median("reduce mpi"), median("reduce omp"), median("reduce ratio"), count["reduce ratio"]
            }'
    done
done
