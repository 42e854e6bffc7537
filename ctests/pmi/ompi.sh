#!/bin/sh
# Runs a program under Open MPI's mpirun, which serves its processes over PMIx:
# mpix finds PMIX_NAMESPACE and PMIX_RANK and boots through libpmix.
command -v mpirun.openmpi >/dev/null 2>&1 || { echo "SKIP: Open MPI's mpirun (openmpi-bin) not installed"; exit 77; }
exec mpirun.openmpi --allow-run-as-root --oversubscribe "$@"
