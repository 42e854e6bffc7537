package core

import (
	"encoding/hex"
	"fmt"

	"golang.org/x/sys/unix"

	"mpix/core/cvar"
	"mpix/core/pmi"
	"mpix/ofi"
	"mpix/shm"
	"mpix/transport"
)

// Config holds the MPIX_* settings read at MPI_Init. The knobs themselves live in
// core/cvar, the single registry that MPI_T shows; Config is their value for this run.
type Config struct {
	SHM         bool   // MPIX_SHM: use shared memory between processes of a node (default 1)
	OFIProvider string // MPIX_OFI_PROVIDER: libfabric provider ("" = best available)
	SpinPolls   int    // MPIX_SPIN_POLLS: empty polls before a waiting thread yields
}

// Settings is the configuration in effect.
var Settings = Config{SHM: true, SpinPolls: 200}

// readConfig reads the knobs (from the environment, or as MPI_T set them before
// MPI_Init) into Settings. From here on MPI_T can no longer change them.
func readConfig() error {
	if err := cvar.Load(); err != nil {
		return Errorf(ErrArg, "%v", err)
	}
	cvar.Freeze()
	Settings = Config{SHM: cvar.SHM.Get(), OFIProvider: cvar.OFIProvider.Get(), SpinPolls: cvar.SpinPolls.Get()}
	return nil
}

// undersubscribedSpin multiplies MPIX_SPIN_POLLS when this node has a core for every
// local process: then the process a waiter waits for is running, and giving the core
// away (to another job's process) costs a scheduler slice, so waits spin far longer
// before they yield. Oversubscribed nodes (4 ranks on 2 cores) yield early, which is
// what keeps them fast.
const undersubscribedSpin = 1000

// spinLimit is the number of empty polls a wait spins through before yielding, for a
// node running localRanks processes of the job.
func spinLimit(localRanks int) int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && localRanks <= set.Count() {
		return Settings.SpinPolls * undersubscribedSpin
	}
	return Settings.SpinPolls
}

// startTransports opens the endpoints that reach every rank: shared memory for the
// processes of this node (unless MPIX_SHM=0), libfabric for the others, and builds
// the engine. Every process calls it at the same point of MPI_Init (it fences).
func startTransports(c *pmi.Client, peers []Peer) error {
	self := c.Rank()
	route := make([]transport.Endpoint, len(peers))
	var node []int
	for r, p := range peers {
		if p.Node == peers[self].Node {
			node = append(node, r)
		}
	}
	var sm *shm.Endpoint
	if Settings.SHM {
		pids := make([]int, len(node))
		for i, r := range node {
			pids[i] = peers[r].PID
		}
		job := fmt.Sprintf("%s-%d", c.KVSName(), peers[node[0]].PID)
		var err error
		sm, err = shm.Create(shm.Config{Job: job, Rank: self, NodeRanks: node, PIDs: pids})
		if err != nil {
			return Errorf(ErrOther, "shared memory transport: %v", err)
		}
		for _, r := range node {
			route[r] = sm
		}
		nodeJob = job
	}
	needOFI := false
	for r := range peers {
		if route[r] == nil {
			needOFI = true
		}
	}
	var fab *ofi.Endpoint
	if needOFI {
		var err error
		fab, err = ofi.Open(ofi.Config{Provider: Settings.OFIProvider, Rank: self, Size: len(peers)})
		if err != nil {
			return Errorf(ErrOther, "libfabric transport: %v", err)
		}
		if err := c.Put(fmt.Sprintf("mpix-ofi-%d", self), hex.EncodeToString(fab.Name())); err != nil {
			return Errorf(ErrOther, "PMI put: %v", err)
		}
	}
	// Every process publishes whether it opened libfabric, so all agree on the fences.
	if err := c.Fence(); err != nil {
		return Errorf(ErrOther, "PMI fence: %v", err)
	}
	if sm != nil {
		if err := sm.Attach(); err != nil {
			return Errorf(ErrOther, "shared memory transport: %v", err)
		}
	}
	if fab != nil {
		names := make([][]byte, len(peers))
		for r := range peers { // every process opened libfabric too: ranks differ only by node
			v, err := c.Get(fmt.Sprintf("mpix-ofi-%d", r))
			if err != nil {
				return Errorf(ErrOther, "rank %d published no libfabric address: %v", r, err)
			}
			if names[r], err = hex.DecodeString(v); err != nil {
				return Errorf(ErrOther, "rank %d's libfabric address: %v", r, err)
			}
		}
		if err := fab.Connect(names); err != nil {
			return Errorf(ErrOther, "libfabric transport: %v", err)
		}
		for r := range peers {
			if route[r] == nil {
				route[r] = fab
			}
		}
	}
	if err := c.Fence(); err != nil { // everyone attached: the names can go
		return Errorf(ErrOther, "PMI fence: %v", err)
	}
	if sm != nil {
		sm.Unlink()
	}
	engine = NewEngine(self, route, spinLimit(len(node)))
	// An arena wait spins through the same time as a poll-based one before yielding,
	// except on an oversubscribed node: there the process it waits for needs this core,
	// so it yields at once (as Open MPI's yield_when_idle does).
	engine.arenaSpins = engine.spinLimit * arenaSpinsPerPoll
	if engine.spinLimit == Settings.SpinPolls {
		engine.arenaSpins = 1
	}
	CommWorld.eng, CommSelf.eng = engine, engine
	return nil
}
