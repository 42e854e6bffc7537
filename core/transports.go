package core

import (
	"encoding/hex"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core/cvar"
	"mpix/core/pmi"
	"mpix/ofi"
	"mpix/shm"
	"mpix/transport"
	"mpix/vci"
)

// Config holds the MPIX_* settings read at MPI_Init. The knobs themselves live in
// core/cvar, the single registry that MPI_T shows; Config is their value for this run.
type Config struct {
	SHM         bool   // MPIX_SHM: use shared memory between processes of a node (default 1)
	OFIProvider string // MPIX_OFI_PROVIDER: libfabric provider ("" = best available)
	SpinPolls   int    // MPIX_SPIN_POLLS: empty polls before a waiting thread yields
	NumVCIs     int    // MPIX_NUM_VCIS: VCIs this process asks for (0: one per core + 1)
	GlobalEvery int    // MPIX_GLOBAL_PROGRESS_INTERVAL: own-VCI empty polls per global round
	FastPath    bool   // MPIX_FASTPATH: C fast path for small node-local sends and receives
	Seats       int    // MPIX_THREADCOMM_SEATS: threadcomm reductions on per-thread lines (-1: auto)
}

// Settings is the configuration in effect.
var Settings = Config{SHM: true, SpinPolls: 200, Seats: -1}

// readConfig reads the knobs (from the environment, or as MPI_T set them before
// MPI_Init) into Settings. From here on MPI_T can no longer change them.
func readConfig() error {
	if err := cvar.Load(); err != nil {
		return Errorf(ErrArg, "%v", err)
	}
	cvar.Freeze()
	Settings = Config{SHM: cvar.SHM.Get(), OFIProvider: cvar.OFIProvider.Get(), SpinPolls: cvar.SpinPolls.Get(),
		NumVCIs: cvar.NumVCIs.Get(), GlobalEvery: cvar.GlobalProgressInterval.Get(), FastPath: cvar.FastPath.Get(),
		Seats: cvar.ThreadcommSeats.Get()}
	if Settings.NumVCIs == 0 {
		Settings.NumVCIs = runtime.NumCPU() + 1
	}
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

// coresPerRank is how many CPUs each of the node's localRanks processes has.
func coresPerRank(localRanks int) int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || localRanks < 1 {
		return 1
	}
	return set.Count() / localRanks
}

// startTransports opens, for each VCI, the endpoints that reach every rank: shared
// memory for the processes of this node (unless MPIX_SHM=0), libfabric for the
// others, and builds the VCI's engine. VCI v of one process talks to VCI v of the
// others. Every process calls it at the same point of MPI_Init (it fences).
func startTransports(c *pmi.Client, peers []Peer, nvcis int) error {
	self := c.Rank()
	var node []int
	for r, p := range peers {
		if p.Node == peers[self].Node {
			node = append(node, r)
		}
	}
	routes := make([][]transport.Endpoint, nvcis)
	sms := make([]*shm.Endpoint, nvcis)
	fabs := make([]*ofi.Endpoint, nvcis)
	for v := range routes {
		routes[v] = make([]transport.Endpoint, len(peers))
	}
	if Settings.SHM {
		pids := make([]int, len(node))
		for i, r := range node {
			pids[i] = peers[r].PID
		}
		job := fmt.Sprintf("%s-%d", c.KVSName(), peers[node[0]].PID)
		for v := range sms {
			vjob := job
			if v > 0 {
				vjob = fmt.Sprintf("%s-v%d", job, v)
			}
			sm, err := shm.Create(shm.Config{Job: vjob, Rank: self, NodeRanks: node, PIDs: pids})
			if err != nil {
				return Errorf(ErrOther, "shared memory transport: %v", err)
			}
			sms[v] = sm
			for _, r := range node {
				routes[v][r] = sm
			}
		}
		nodeJob = job
	}
	needOFI := false
	for r := range peers {
		if routes[0][r] == nil {
			needOFI = true
		}
	}
	if needOFI {
		for v := range fabs {
			fab, err := ofi.Open(ofi.Config{Provider: Settings.OFIProvider, Rank: self, Size: len(peers)})
			if err != nil {
				return Errorf(ErrOther, "libfabric transport: %v", err)
			}
			fabs[v] = fab
			if err := c.Put(fmt.Sprintf("mpix-ofi-%d-%d", self, v), hex.EncodeToString(fab.Name())); err != nil {
				return Errorf(ErrOther, "PMI put: %v", err)
			}
		}
	}
	// Every process publishes whether it opened libfabric, so all agree on the fences.
	if err := c.Fence(); err != nil {
		return Errorf(ErrOther, "PMI fence: %v", err)
	}
	for _, sm := range sms {
		if sm != nil {
			if err := sm.Attach(); err != nil {
				return Errorf(ErrOther, "shared memory transport: %v", err)
			}
		}
	}
	for v, fab := range fabs {
		if fab == nil {
			continue
		}
		names := make([][]byte, len(peers))
		for r := range peers { // every process opened libfabric too: ranks differ only by node
			val, err := c.Get(fmt.Sprintf("mpix-ofi-%d-%d", r, v))
			if err != nil {
				return Errorf(ErrOther, "rank %d published no libfabric address: %v", r, err)
			}
			if names[r], err = hex.DecodeString(val); err != nil {
				return Errorf(ErrOther, "rank %d's libfabric address: %v", r, err)
			}
		}
		if err := fab.Connect(names); err != nil {
			return Errorf(ErrOther, "libfabric transport: %v", err)
		}
		for r := range peers {
			if routes[v][r] == nil {
				routes[v][r] = fab
			}
		}
	}
	if err := c.Fence(); err != nil { // everyone attached: the names can go
		return Errorf(ErrOther, "PMI fence: %v", err)
	}
	for _, sm := range sms {
		if sm != nil {
			sm.Unlink()
		}
	}
	spin := spinLimit(len(node))
	setCores(coresPerRank(len(node)))
	setSeats(Settings.Seats)
	// An arena wait spins through the same time as a poll-based one before yielding,
	// except on an oversubscribed node: there the process it waits for needs this core,
	// so it yields at once (as Open MPI's yield_when_idle does).
	arenaSpins := spin * arenaSpinsPerPoll
	if spin == Settings.SpinPolls {
		arenaSpins = 1
	}
	engines = make([]*Engine, nvcis)
	for v := range engines {
		engines[v] = newEngine(vci.New(v, spin), self, routes[v], spin)
		engines[v].arenaSpins = arenaSpins
		if sms[v] != nil {
			engines[v].Shared().Shm = uintptr(unsafe.Pointer(sms[v].FastView()))
		}
	}
	for _, e := range engines {
		e.all = engines
		e.SetGlobalProgress(Settings.GlobalEvery, len(engines))
	}
	engine = engines[0]
	vcis = newVCIPool(nvcis)
	CommWorld.eng, CommSelf.eng = engine, engine
	return nil
}
