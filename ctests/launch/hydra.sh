#!/bin/sh
# Runs a program built against mpix under MPICH's Hydra launcher (PMI-1 over PMI_FD).
command -v mpiexec.hydra >/dev/null 2>&1 || { echo "SKIP: mpiexec.hydra not installed"; exit 77; }
exec mpiexec.hydra -launcher fork "$@"
