#!/bin/sh
# signal.sh MPIXEXEC PROG N: runs "PROG signal DIR" under mpixexec -n N, waits until
# every rank has written DIR/ready.RANK (its SIGUSR1 handler is in place), sends
# SIGUSR1 to mpixexec alone, and exits with mpixexec's status: 0 only if mpixexec
# forwarded the signal to every rank.
mpixexec=$1 prog=$2 n=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$mpixexec" -timeout 60 -n "$n" "$prog" signal "$dir" &
pid=$!
i=0
while [ "$(ls "$dir" | wc -l)" -lt "$n" ]; do
    i=$((i + 1))
    if [ $i -gt 3000 ]; then
        echo "signal.sh: the ranks did not get ready in 30 s"
        kill "$pid"
        wait "$pid"
        exit 1
    fi
    sleep 0.01
done
kill -USR1 "$pid"
wait "$pid"
