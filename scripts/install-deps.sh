#!/usr/bin/env bash
# Installs the Debian packages mpix needs to build, test and benchmark, if missing.
# Idempotent: does nothing when everything is present. Needs root (or sudo).
set -euo pipefail
# slurmd, slurmctld, slurm-client: ctests/pmi/slurm.sh starts a private one-node Slurm
# to test srun --mpi=pmi2 and --mpi=pmix; libpmix2: mpix loads it under a PMIx launcher.
pkgs=(gcc g++ gfortran make cmake pkg-config libfabric-dev libibverbs-dev
      mpich libmpich-dev openmpi-bin libopenmpi-dev libpmix2 slurmd slurmctld slurm-client
      autoconf automake autoconf-archive meson ninja-build libhdf5-mpich-dev hdf5-tools)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v go >/dev/null 2>&1; then
    echo "install-deps: Go 1.26.8 or newer (go.mod) is required (https://go.dev/dl/); put it on PATH" >&2
    exit 1
fi
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# Packages with services (slurmd, slurmctld, munge) must not start them: a policy-rc.d
# that says no, for the time of the install, where there is none already.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# installed by mpix install-deps.sh for the time of an install\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
