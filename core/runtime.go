package core

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mpix/core/cvar"
	"mpix/core/pmi"
	_ "mpix/core/pmi/pmix" // PMIx through libpmix, when the launcher speaks it
)

// Thread support levels (MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE).
const (
	ThreadSingle     = 0
	ThreadFunneled   = 1
	ThreadSerialized = 2
	ThreadMultiple   = 3
)

// ThreadLevelName names a thread level as MPI_INFO_ENV reports it.
func ThreadLevelName(l int) string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	}
	return "MPI_THREAD_MULTIPLE"
}

// Library identity.
const (
	Version        = 4
	Subversion     = 1
	LibraryVersion = "0.1.0"
)

type runState int32

const (
	stateNone runState = iota
	stateInitializing
	stateRunning
	stateFinalized
)

// Peer is what every process learns about every other at startup through PMI.
type Peer struct {
	Host string
	PID  int
	Node int // index of the process's node among the job's nodes, in rank order
}

// proc is the process-wide runtime state. state is the world model's (MPI_Init /
// MPI_Finalize); the library underneath (process manager, transports) runs while the
// world model or any session uses it (users), and stops when the last one finishes.
var proc struct {
	state       atomic.Int32
	lib         atomic.Int32 // the library's runState
	users       int          // world model (while running) + live sessions
	mu          sync.Mutex   // serializes Init, Finalize and sessions' init and finalize
	threadLevel int
	mainThread  uint64     // context serial of the thread that called MPI_Init
	pmi         pmi.Client // PMI-1, PMI-2 or PMIx, whichever the launcher speaks
	peers       []Peer
	nvcis       int // VCIs per process, the same in every process of the job
	hostname    string
}

var clockBase = time.Now()

// Wtime is seconds on a monotonic clock since the library was loaded.
func Wtime() float64 { return time.Since(clockBase).Seconds() }

// Wtick is the resolution of Wtime.
func Wtick() float64 { return 1e-9 }

// Initialized reports whether MPI_Init has completed (also after MPI_Finalize).
func Initialized() bool {
	s := runState(proc.state.Load())
	return s == stateRunning || s == stateFinalized
}

// Finalized reports whether MPI_Finalize has completed.
func Finalized() bool { return runState(proc.state.Load()) == stateFinalized }

// CheckInitialized is the guard of every procedure that needs MPI running: through
// the world model or a session.
func CheckInitialized() error {
	switch runState(proc.lib.Load()) {
	case stateRunning:
		return nil
	case stateFinalized:
		return Errorf(ErrOther, "called after MPI_Finalize")
	}
	return Errorf(ErrOther, "called before MPI_Init")
}

// LibraryRunning reports whether MPI is usable now (world model or a session).
func LibraryRunning() bool { return runState(proc.lib.Load()) == stateRunning }

// ThreadLevel is the provided thread level.
func ThreadLevel() int { return proc.threadLevel }

// IsMainThread reports whether the context serial belongs to the thread that called
// MPI_Init.
func IsMainThread(serial uint64) bool { return serial == proc.mainThread }

// Peers describes every process of MPI_COMM_WORLD.
func Peers() []Peer { return proc.peers }

// ProcessorName is this process's host name.
func ProcessorName() string { return proc.hostname }

// Init starts the runtime: connects to the process manager, exchanges every
// process's card (host, pid; transports add their addresses) and builds
// MPI_COMM_WORLD and MPI_COMM_SELF.
func Init(required int, mainSerial uint64) (provided int, err error) {
	if required < ThreadSingle || required > ThreadMultiple {
		// MPI lets an implementation provide a level other than the one asked for;
		// values above MULTIPLE get MULTIPLE, negative ones are plain errors.
		if required < ThreadSingle {
			return 0, Errorf(ErrArg, "invalid thread level %d", required)
		}
		required = ThreadMultiple
	}
	proc.mu.Lock()
	defer proc.mu.Unlock()
	switch runState(proc.state.Load()) {
	case stateRunning, stateInitializing:
		return 0, Errorf(ErrOther, "MPI is already initialized")
	case stateFinalized:
		return 0, Errorf(ErrOther, "MPI cannot be initialized again after MPI_Finalize")
	}
	if err := acquireLibrary(required); err != nil {
		return 0, err
	}
	proc.threadLevel = required
	proc.mainThread = mainSerial
	fillInfoEnv(CommWorld.Size, required)
	proc.state.Store(int32(stateRunning))
	return required, nil
}

// acquireLibrary starts the library for a new user (the world model or a session)
// unless it runs already (under proc.mu).
func acquireLibrary(threadLevel int) (err error) {
	switch runState(proc.lib.Load()) {
	case stateRunning:
		proc.users++
		return nil
	case stateFinalized:
		return Errorf(ErrOther, "MPI cannot start again once every session and the world model have finalized")
	}
	proc.lib.Store(int32(stateInitializing))
	defer func() {
		if err != nil {
			proc.pmi = nil
			proc.lib.Store(int32(stateNone))
		}
	}()
	proc.hostname, _ = os.Hostname()
	if err := readConfig(); err != nil {
		return err
	}
	client, err := pmi.ConnectAs(cvar.PMI.Get())
	if err != nil {
		return Errorf(ErrOther, "cannot reach the process manager: %v", err)
	}
	proc.pmi = client
	if err := exchangeCards(client); err != nil {
		return err
	}
	if err := startTransports(client, proc.peers, proc.nvcis); err != nil {
		return err
	}
	size, rank := client.Size(), client.Rank()
	setupPredefined(rank, size, engine)
	fillInfoEnv(size, threadLevel)
	setFastPath(Settings.FastPath)
	startStuckReport(rank)
	if Settings.Async {
		startAsyncProgress()
	}
	proc.users = 1
	proc.lib.Store(int32(stateRunning))
	return nil
}

// cardKey is the PMI key of a rank's card.
func cardKey(rank int) string { return fmt.Sprintf("mpix-card-%d", rank) }

// exchangeCards publishes this process's card and reads everyone's.
//
// Two processes share a node, and so shared memory, when they have the same host
// name and the launcher puts them on the same node: its node-local ranks (process
// mapping under PMI-1 and PMI-2, local peers under PMIx) name each node by its
// lowest rank, which goes into the card. Where the launcher does not say, the host
// name alone decides.
func exchangeCards(c pmi.Client) error {
	local, err := c.LocalRanks()
	if err != nil {
		return Errorf(ErrOther, "PMI node-local ranks: %v", err)
	}
	leader := -1
	if len(local) > 0 {
		if !slices.Contains(local, c.Rank()) {
			return Errorf(ErrOther, "the %s launcher's node-local ranks %v leave out this process (rank %d)", c.Protocol(), local, c.Rank())
		}
		leader = local[0]
	}
	card := fmt.Sprintf("%s %d %d %d", proc.hostname, os.Getpid(), Settings.NumVCIs, leader)
	if err := c.Put(cardKey(c.Rank()), card); err != nil {
		return Errorf(ErrOther, "PMI put: %v", err)
	}
	if err := c.Fence(); err != nil {
		return Errorf(ErrOther, "PMI fence: %v", err)
	}
	peers := make([]Peer, c.Size())
	nodes := map[string]int{}
	proc.nvcis = Settings.NumVCIs
	for r := range peers {
		v, err := c.Get(r, cardKey(r))
		if err != nil {
			return Errorf(ErrOther, "PMI get of rank %d's card: %v", r, err)
		}
		host, rest, _ := strings.Cut(v, " ")
		var nv int
		lead := -1
		fmt.Sscan(rest, &peers[r].PID, &nv, &lead)
		nodeKey := fmt.Sprintf("%s %d", host, lead)
		n, ok := nodes[nodeKey]
		if !ok {
			n = len(nodes)
			nodes[nodeKey] = n
		}
		if nv > 0 && nv < proc.nvcis { // VCI v talks to VCI v: all use the smallest count
			proc.nvcis = nv
		}
		peers[r].Host, peers[r].Node = host, n
	}
	proc.peers = peers
	return nil
}

// Finalize ends the runtime: waits for every process (MPI_Finalize is collective) and
// tells the process manager this process finished cleanly.
func Finalize() error {
	proc.mu.Lock()
	defer proc.mu.Unlock()
	if runState(proc.state.Load()) != stateRunning {
		if runState(proc.state.Load()) == stateFinalized {
			return Errorf(ErrOther, "called after MPI_Finalize")
		}
		return Errorf(ErrOther, "called before MPI_Init")
	}
	if err := releaseLibrary(); err != nil {
		return err
	}
	proc.state.Store(int32(stateFinalized))
	return nil
}

// releaseLibrary ends one user's use of the library and stops it after the last
// (under proc.mu).
func releaseLibrary() error {
	if proc.users--; proc.users > 0 {
		return nil
	}
	setFastPath(false)
	stopAsyncProgress()
	// Messages still queued for the transports (buffered sends) leave first, then every
	// process keeps progressing until all have finished communicating.
	for _, e := range engines {
		e.wait(func() bool {
			e.lock()
			defer e.unlock()
			return len(e.outbox) == 0
		})
	}
	if err := quiesce(CommWorld); err != nil {
		return err
	}
	if Settings.EPReport {
		writeEPReport(os.Stderr)
	}
	if err := proc.pmi.Fence(); err != nil {
		return Errorf(ErrOther, "PMI fence in MPI_Finalize: %v", err)
	}
	if err := proc.pmi.Finalize(); err != nil {
		return Errorf(ErrOther, "PMI finalize: %v", err)
	}
	for _, e := range engines {
		e.Close()
	}
	proc.lib.Store(int32(stateFinalized))
	return nil
}

// Abort ends the whole job with an exit code; the caller has already printed why.
// Under a launcher the process manager kills the other processes. It does not return.
func Abort(code int) { AbortWith(code, "") }

// AbortWith is Abort with a reason for the process manager, which reports it
// (mpixexec prints it in its line about the job's end).
func AbortWith(code int, reason string) {
	if c := proc.pmi; c != nil && !c.Singleton() {
		c.Abort(code, reason)
	}
	exit(code)
}

// exit leaves with the low byte of code, never 0: an aborted job never reports success.
func exit(code int) {
	code &= 0xff
	if code == 0 {
		code = 1
	}
	os.Exit(code)
}
