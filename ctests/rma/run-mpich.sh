#!/bin/sh
# run-mpich.sh: build the RMA tests with MPICH (mpicc.mpich) and run each at 2 and 4
# processes (mpiexec.mpich), the reference the tests are validated against. Not part
# of ctest. MPIX_RMA_STRICT / MPIX_RMA_STRICT_INFO are left as the caller set them
# (unset: MPICH's known deviations are not asserted).
#   ctests/rma/run-mpich.sh [program ...]    (default: all of them)
# MPICH's flushes wait for the target's progress (rma_busy_target's busy phase takes
# the whole busy period) and its threads run slowly on an oversubscribed machine, so
# rma_busy_target uses N=2000 and rma_threads 10 iterations at 4 processes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${TMPDIR:-/tmp}/mpix-rma-mpich.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
progs=${*:-"win_flavors win_attr rma_ops rma_dtypes rma_atomic rma_errors rma_threads rma_busy_target"}
fail=0
for p in $progs; do
  if ! mpicc.mpich -O2 -g -Wall -Wextra -Wno-stringop-overflow -I"$here" -I"$here/.." \
      -o "$out/$p" "$here/$p.c" -lpthread; then
    echo "BUILD FAIL $p"
    fail=1
    continue
  fi
  for np in 2 4; do
    args=
    case "$p" in
      rma_busy_target) args="2000 0.5" ;;
      rma_threads) [ "$np" = 4 ] && args=10 ;;
    esac
    start=$(date +%s.%N)
    if timeout 300 mpiexec.mpich -n "$np" "$out/$p" $args > "$out/log" 2>&1; then
      res=PASS
    else
      res=FAIL
      fail=1
    fi
    end=$(date +%s.%N)
    printf '%s %-16s np %d %6.1f s  %s\n' "$res" "$p" "$np" "$(echo "$end - $start" | bc)" \
      "$(grep -a -m1 -E '^(FAIL|[a-z_]+: )' "$out/log" | cut -c1-150)"
    [ "$res" = FAIL ] && grep -a -v '^\[' "$out/log" | head -20
  done
done
exit $fail
