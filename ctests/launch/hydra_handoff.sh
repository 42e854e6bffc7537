#!/bin/sh
# hydra_handoff.sh MPIXEXEC ARGS...: runs mpixexec with a command line that names
# another host, which mpixexec hands to MPICH's mpiexec.hydra; skips (77) where that
# is not installed.
command -v mpiexec.hydra >/dev/null 2>&1 || [ -x /usr/bin/mpiexec.hydra ] ||
    { echo "SKIP: mpiexec.hydra not installed"; exit 77; }
exec "$@"
