#!/usr/bin/env bash
# MPI_Init+MPI_Finalize at NP processes: mpix under mpixexec, MPICH under its own
# mpiexec.hydra, Open MPI under its mpirun, run alternately RUNS times. Reports medians
# of the in-process time (slowest rank) and of the whole launch (launcher included).
set -euo pipefail
cd "$(dirname "$0")/.."
np=${NP:-2} runs=${RUNS:-11}
dir=build/bench; mkdir -p $dir
build/bin/mpixcc -O2 -o $dir/if_mpix bench/init_finalize.c
impls=(mpix)
if command -v mpicc.mpich >/dev/null; then mpicc.mpich -O2 -o $dir/if_mpich bench/init_finalize.c; impls+=(mpich); fi
if command -v mpicc.openmpi >/dev/null; then mpicc.openmpi -O2 -o $dir/if_openmpi bench/init_finalize.c; impls+=(openmpi); fi

launch() {
    case $1 in
        mpix) build/bin/mpixexec -n $np $dir/if_mpix ;;
        mpich) mpiexec.hydra -launcher fork -n $np $dir/if_mpich ;;
        openmpi) mpirun.openmpi --allow-run-as-root --oversubscribe -n $np $dir/if_openmpi ;;
    esac
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
declare -A inproc wall
for ((r = 0; r < runs; r++)); do
    for impl in "${impls[@]}"; do
        t0=$(date +%s%N)
        out=$(launch $impl 2>/dev/null)
        t1=$(date +%s%N)
        slowest=$(echo "$out" | awk '/^init_finalize_us/ {if ($3 > m) m = $3} END {print m}')
        inproc[$impl]+="$slowest "
        wall[$impl]+="$(( (t1 - t0) / 1000 )) "
    done
done
printf '%-8s %22s %22s\n' impl "init+finalize (ms)" "whole launch (ms)"
for impl in "${impls[@]}"; do
    i=$(echo ${inproc[$impl]} | tr ' ' '\n' | median)
    w=$(echo ${wall[$impl]} | tr ' ' '\n' | median)
    printf '%-8s %22.1f %22.1f\n' $impl "$(echo "$i/1000" | awk -F/ '{print $1/$2}')" "$(echo "$w/1000" | awk -F/ '{print $1/$2}')"
done
echo "($np processes, median of $runs alternating runs)"
