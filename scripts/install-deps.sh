#!/usr/bin/env bash
# Installs the Debian packages mpix needs to build, test and benchmark, if missing.
# Idempotent: does nothing when everything is present. Needs root (or sudo).
set -euo pipefail
pkgs=(gcc g++ gfortran make cmake pkg-config libfabric-dev libibverbs-dev
      mpich libmpich-dev openmpi-bin libopenmpi-dev
      autoconf automake autoconf-archive meson ninja-build)
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
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
