#!/usr/bin/env bash
# Point-to-point latency and bandwidth: mpix (shared memory, and libfabric with
# MPIX_SHM=0), MPICH and Open MPI, each program built once per implementation and run
# alternately RUNS times on 2 processes. Prints medians and mpix's ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
dir=build/bench; mkdir -p $dir
for p in pingpong bandwidth; do
    build/bin/mpixcc -O2 -o $dir/${p}_mpix bench/$p.c
    mpicc.mpich -O2 -o $dir/${p}_mpich bench/$p.c
    mpicc.openmpi -O2 -o $dir/${p}_openmpi bench/$p.c
done
impls=(mpix mpix-ofi mpich openmpi)
run() { # impl program
    case $1 in
        mpix) build/bin/mpixexec -n 2 $dir/$2_mpix ;;
        mpix-ofi) build/bin/mpixexec -n 2 -env MPIX_SHM 0 $dir/$2_mpix ;;
        mpich) mpiexec.hydra -launcher fork -n 2 $dir/$2_mpich ;;
        openmpi) mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 $dir/$2_openmpi ;;
    esac
}
tmp=$(mktemp -d); trap 'rm -rf $tmp' EXIT
for ((r = 0; r < runs; r++)); do
    for impl in "${impls[@]}"; do
        for p in pingpong bandwidth; do
            run $impl $p >> $tmp/$impl.$p 2>/dev/null || echo "warning: $impl $p failed" >&2
        done
    done
done
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
table() { # program metric
    printf '%-9s' size; for impl in "${impls[@]}"; do printf '%12s' $impl; done; printf '%14s %14s\n' "mpix/mpich" "mpix/openmpi"
    for size in $(awk '{print $2}' $tmp/mpix.$1 | sort -n | uniq); do
        printf '%-9s' $size
        declare -A m
        for impl in "${impls[@]}"; do
            m[$impl]=$(awk -v s=$size '$2 == s {print $3}' $tmp/$impl.$1 2>/dev/null | median)
            printf '%12s' ${m[$impl]}
        done
        awk -v a=${m[mpix]} -v b=${m[mpich]} -v c=${m[openmpi]} 'BEGIN {printf "%14.2f %14.2f\n", a/b, a/c}'
    done
}
echo "== one-way latency (us), median of $runs runs, 2 processes"; table pingpong
echo; echo "== bandwidth (MB/s), median of $runs runs, 2 processes"; table bandwidth
