#!/bin/sh
# Starts a one-node Slurm on this machine (slurmctld and slurmd from Debian's
# packages, configured in a temporary directory, no munge: auth/none) and runs
# a program through srun with each MPI plugin named, then stops Slurm.
#
# Usage: slurm.sh NTASKS PROGRAM [ARGS...]
# Environment: SLURM_TEST_MPI, the srun --mpi values to try (default
# "pmi2 pmix"; a value whose plugin Slurm lacks is skipped with a note).
#
# Needs root (slurmd starts the tasks as the submitting user, which needs
# privileges) and the slurmd, slurmctld and slurm-client packages
# (scripts/install-deps.sh installs them); exits 77 (skipped) otherwise.
# Every srun output line goes to stdout, so callers can check it.
set -u
ntasks=$1
shift
for c in slurmctld slurmd srun sinfo; do
	command -v "$c" >/dev/null 2>&1 || { echo "SKIP: $c not installed (apt-get install slurmd slurmctld slurm-client)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: a private Slurm needs root"; exit 77; }

dir=$(mktemp -d /tmp/mpix-slurm.XXXXXX)
mkdir -p "$dir/state" "$dir/spool" "$dir/tmp"
# Ports of their own, so that runs side by side do not meet.
base=$((20000 + ($$ % 10000) * 2)) # two ports: slurmctld, slurmd
host=mpixnode
cpus=$ntasks
[ "$cpus" -lt 2 ] && cpus=2
plugins=/usr/lib/x86_64-linux-gnu/slurm-wlm
[ -d "$plugins" ] || plugins=$(dirname "$(find /usr/lib* -name mpi_pmi2.so 2>/dev/null | head -n 1)")
cat >"$dir/slurm.conf" <<CONF
ClusterName=mpixtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
PluginDir=$plugins
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
# The pmix plugin's directories go under TmpFS, named after the job and step ids:
# private ones, and ids of their own, keep Slurms that run side by side apart.
TmpFS=$dir/tmp
FirstJobId=$base
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=mpix Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$dir/slurm.conf"

ctld= slurmd_pid=
cleanup() {
	[ -n "$slurmd_pid" ] && kill "$slurmd_pid" 2>/dev/null
	[ -n "$ctld" ] && kill "$ctld" 2>/dev/null
	[ -n "$slurmd_pid" ] && wait "$slurmd_pid" 2>/dev/null
	[ -n "$ctld" ] && wait "$ctld" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
	echo "FAIL: $*"
	for f in slurmctld.log slurmd.log; do
		echo "--- $f (last lines)"
		tail -n 20 "$dir/$f" 2>/dev/null
	done
	exit 1
}

slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
ctld=$!
slurmd -D -N "$host" -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 &
slurmd_pid=$!
# Wait for the node to come up idle (a few seconds).
i=0
until sinfo -h -n "$host" -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	[ $i -gt 60 ] && fail "the Slurm node did not come up within 30 s ($(sinfo -h -o '%t %E' 2>&1))"
	kill -0 "$ctld" 2>/dev/null || fail "slurmctld exited: $(cat "$dir/slurmctld.out")"
	kill -0 "$slurmd_pid" 2>/dev/null || fail "slurmd exited: $(cat "$dir/slurmd.out")"
	sleep 0.5
done

status=0
for mpi in ${SLURM_TEST_MPI:-pmi2 pmix}; do
	if ! srun --mpi=list 2>&1 | grep -qw "$mpi"; then
		echo "note: this Slurm has no mpi/$mpi plugin; srun --mpi=$mpi not tried"
		continue
	fi
	echo "== srun --mpi=$mpi -n $ntasks $*"
	timeout 120 srun --mpi="$mpi" -N 1 -n "$ntasks" -t 2 --kill-on-bad-exit=1 "$@" 2>&1
	rc=$?
	echo "== srun --mpi=$mpi exit status $rc"
	[ $rc -ne 0 ] && status=$rc
done
exit $status
