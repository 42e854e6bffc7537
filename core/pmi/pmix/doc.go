// Package pmix is mpix's PMIx client: the process-manager protocol of
// srun --mpi=pmix, Open MPI's mpirun and PRRTE's prterun. It implements
// pmi.Client and registers itself with package pmi, whose Connect chooses
// it when PMIX_NAMESPACE and PMIX_RANK are set (or MPIX_PMI=x).
//
// PMIx has no documented wire protocol; its clients go through libpmix. So
// this package holds the C that calls libpmix (shim.c), apart from package
// pmi, which stays pure Go. libpmix.so.2 is loaded with dlopen at the first
// Connect, not linked: mpix builds without PMIx headers and runs where
// libpmix is absent, and only a PMIx launch then fails, with a message that
// names the library.
//
// Without cgo the package registers nothing and Connect says that PMIx
// support is not built in.
package pmix
