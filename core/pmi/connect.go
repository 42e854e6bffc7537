package pmi

import (
	"errors"
	"fmt"
	"os"
)

// Errors a Client returns (wrapped; test with errors.Is).
var (
	// ErrNotFound: Get of a key that no rank put before the last Fence.
	ErrNotFound = errors.New("key not found")
	// ErrFinalized: a call after Finalize.
	ErrFinalized = errors.New("pmi client already finalized")
)

// Client is one process's connection to its process manager, whatever the
// protocol (PMI-1, PMI-2 or PMIx): the runtime boots through it alone.
//
// Put, Fence and Get follow the rule every launcher keeps: a value put
// becomes visible to Get, in every rank, after the next Fence. Values are
// arbitrary strings (the clients encode them for their wire).
type Client interface {
	// Protocol names the protocol spoken: "PMI-1", "PMI-2", "PMIx" or
	// "singleton".
	Protocol() string
	Rank() int
	Size() int
	// AppNum is the index of this process's program on an MPMD command
	// line; 0 for a plain job.
	AppNum() int
	// UniverseSize is the universe size the launcher announces, or Size().
	UniverseSize() int
	// KVSName names the job's key-value space (its job id under PMI-2,
	// its namespace under PMIx): unique to the job.
	KVSName() string
	// Singleton reports whether the process runs without a launcher.
	Singleton() bool
	// LocalRanks returns the ranks of the job that run on this node, in
	// increasing order and this one included, as the launcher says
	// (PMI_process_mapping under PMI-1 and PMI-2, PMIX_LOCAL_PEERS under
	// PMIx); nil, nil when the launcher does not say.
	LocalRanks() ([]int, error)
	Put(key, value string) error
	Fence() error
	// Get reads the value process rank put under key. PMI-1 and PMI-2
	// keep one key space for the job and do not need the rank; PMIx keeps
	// values per process and does.
	Get(rank int, key string) (string, error)
	// Abort asks the launcher to end the whole job with exit code code; msg
	// says why. It does not wait, and the caller exits right after.
	Abort(code int, msg string) error
	// Finalize tells the launcher that this process is done with it and
	// closes the connection; later calls fail with ErrFinalized.
	Finalize() error
}

// Protocol choices of MPIX_PMI.
const (
	protoAuto = iota
	protoV1
	protoV2
	protoX
)

// pmixConnect connects through libpmix; set by package pmix (which needs
// cgo and keeps the C out of this package) when it is linked in.
var pmixConnect func() (Client, error)

// RegisterPMIx installs the PMIx client constructor; package pmix calls it
// from its init.
func RegisterPMIx(connect func() (Client, error)) { pmixConnect = connect }

// Connect is ConnectAs(MPIX_PMI from the environment).
func Connect() (Client, error) { return ConnectAs(os.Getenv("MPIX_PMI")) }

// ConnectAs finds the process manager through the environment and connects
// to it with the protocol it speaks. choice (MPIX_PMI) chooses by hand: 1
// (or pmi1), 2 (pmi2), x (pmix) or auto (or empty), the default. Auto picks
//
//   - PMIx when PMIX_NAMESPACE and PMIX_RANK are set (srun --mpi=pmix, Open
//     MPI's mpirun, prterun), through libpmix.so.2 loaded at run time;
//   - PMI-2 when PMI_FD and PMI_JOBID are set (srun --mpi=pmi2, whose
//     plugin sets PMI_JOBID; mpixexec and Hydra do not);
//   - PMI-1 otherwise: PMI_FD or PMI_PORT (mpixexec, Hydra, srun
//     --mpi=pmi2 also answers PMI-1), or a singleton without a launcher.
func ConnectAs(choice string) (Client, error) {
	proto, err := chooseProtocol(choice, os.Getenv)
	if err != nil {
		return nil, err
	}
	switch proto {
	case protoX:
		c, err := connectPMIx()
		if err == nil || (choice != "" && choice != "auto") {
			return c, err
		}
		// Detected, not asked for: a launcher that also offers PMI-1 or
		// PMI-2 serves where libpmix is missing.
		if os.Getenv("PMI_FD") == "" && os.Getenv("PMI_PORT") == "" {
			return nil, err
		}
		if os.Getenv("PMI_JOBID") != "" {
			return connectV2()
		}
	case protoV2:
		return connectV2()
	}
	c, err := connectV1()
	if err != nil {
		return nil, err
	}
	return c, nil
}

func connectPMIx() (Client, error) {
	if pmixConnect == nil {
		return nil, errors.New("pmi: the launcher speaks PMIx, but this mpix was built without PMIx support (it needs cgo)")
	}
	return pmixConnect()
}

// chooseProtocol applies choice and the detection rules of ConnectAs to the
// environment getenv reads.
func chooseProtocol(choice string, getenv func(string) string) (int, error) {
	switch v := choice; v {
	case "1", "pmi1", "PMI1", "pmi-1", "PMI-1":
		return protoV1, nil
	case "2", "pmi2", "PMI2", "pmi-2", "PMI-2":
		return protoV2, nil
	case "x", "pmix", "PMIx", "PMIX":
		return protoX, nil
	case "", "auto":
	default:
		return 0, fmt.Errorf("pmi: MPIX_PMI=%q is not one of 1, 2, x or auto", v)
	}
	if getenv("PMIX_NAMESPACE") != "" && getenv("PMIX_RANK") != "" {
		return protoX, nil
	}
	if getenv("PMI_FD") != "" && getenv("PMI_JOBID") != "" {
		return protoV2, nil
	}
	return protoV1, nil
}
