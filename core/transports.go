package core

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"mpix/core/cvar"
	"mpix/core/pmi"
	"mpix/transport"
	"mpix/transport/epshare"
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
	Async       bool   // MPIX_ASYNC_PROGRESS: a progress thread per process
	NetAtomics  int    // MPIX_RMA_NET_ATOMICS: -1 native providers' atomics, 1 any provider's, 0 none
	NetMod      string // MPIX_NETMOD: the registered fabric that reaches other nodes ("libfabric", "verbs")
	EPSharing   string // MPIX_EP_SHARING: the resource-sharing category (transport/epshare)
	EPSharedCQ  bool   // MPIX_EP_CQ_SHARING=shared: endpoints of a shared domain share their CQs
	EPReport    bool   // MPIX_EP_REPORT: print the resources at MPI_Finalize
}

// Settings is the configuration in effect.
var Settings = Config{SHM: true, SpinPolls: 200, Seats: -1, NetAtomics: -1}

// readConfig reads the knobs (from the environment, or as MPI_T set them before
// MPI_Init) into Settings. From here on MPI_T can no longer change them.
func readConfig() error {
	if err := cvar.Load(); err != nil {
		return Errorf(ErrArg, "%v", err)
	}
	cvar.Freeze()
	Settings = Config{SHM: cvar.SHM.Get(), OFIProvider: cvar.OFIProvider.Get(), SpinPolls: cvar.SpinPolls.Get(),
		NumVCIs: cvar.NumVCIs.Get(), GlobalEvery: cvar.GlobalProgressInterval.Get(), FastPath: cvar.FastPath.Get(),
		Seats: cvar.ThreadcommSeats.Get(), Async: cvar.AsyncProgress.Get(), NetAtomics: cvar.NetAtomics.Get(),
		NetMod: cvar.NetMod.Get(), EPSharing: cvar.EPSharing.Get(), EPSharedCQ: cvar.EPCQSharing.Get() == "shared",
		EPReport: cvar.EPReport.Get()}
	if v := cvar.EPCQSharing.Get(); v != "dedicated" && v != "shared" {
		return Errorf(ErrArg, "MPIX_EP_CQ_SHARING: %q is neither dedicated nor shared", v)
	}
	if Settings.NetMod != "libfabric" && Settings.NetMod != "verbs" {
		return Errorf(ErrArg, "MPIX_NETMOD: %q is neither libfabric nor verbs", Settings.NetMod)
	}
	if _, err := epshare.Parse(Settings.EPSharing); err != nil {
		return Errorf(ErrArg, "MPIX_EP_SHARING: %v", err)
	}
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

// jobName names the job's node-local resources: the launcher's KVS name (a PMIx
// namespace such as PRRTE's "prterun-host-123@1" included), with what file names
// should not hold replaced by '_' and cut short, and the pid of the node's first
// process, which makes it unique on the node.
func jobName(kvs string, pid int) string {
	b := []byte(kvs)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[len(b)-64:] // the end varies most (Hydra's and PRRTE's names end in ids)
	}
	return fmt.Sprintf("%s-%d", b, pid)
}

// startTransports opens, for each VCI, the endpoints that reach every rank through
// the registered fabrics: a node-local one (shared memory, unless MPIX_SHM=0) for the
// processes of this node, a global one (libfabric) for the others, and builds the
// VCI's engine. VCI v of one process talks to VCI v of the others. Every process
// calls it at the same point of MPI_Init (it fences).
func startTransports(c pmi.Client, peers []Peer, nvcis int) error {
	self := c.Rank()
	var node []int
	for r, p := range peers {
		if p.Node == peers[self].Node {
			node = append(node, r)
		}
	}
	pids := make([]int, len(node))
	for i, r := range node {
		pids[i] = peers[r].PID
	}
	setup := &transport.Setup{Rank: self, Size: len(peers), Node: node, PIDs: pids,
		Job: jobName(c.KVSName(), peers[node[0]].PID), Provider: Settings.OFIProvider,
		VCIs: nvcis, EPSharing: Settings.EPSharing, EPSharedCQ: Settings.EPSharedCQ, Put: c.Put, Get: c.Get}
	// Which fabrics to open depends only on the nodes, which every process knows, so
	// all processes open the same ones and agree on the fences: the node-local fabric
	// reaches the node, a global one is opened only when some rank is elsewhere.
	type fabricEPs struct {
		f   transport.Fabric
		eps []transport.Endpoint // by VCI
	}
	var opened []fabricEPs
	accounters = nil
	var local []transport.Endpoint // the node-local fabric's endpoints, by VCI
	reachedAll := false
	// MPIX_NETMOD names the fabric for the other nodes among those registered (a build
	// without the one named, such as core's tests, uses what it has for libfabric).
	netmod := false
	for _, f := range transport.Fabrics() {
		netmod = netmod || !f.Local() && f.Name() == Settings.NetMod
	}
	if !netmod && Settings.NetMod != "libfabric" {
		return Errorf(ErrOther, "MPIX_NETMOD=%s: this library has no %s transport", Settings.NetMod, Settings.NetMod)
	}
	for _, f := range transport.Fabrics() { // node-local ones first
		if reachedAll || f.Local() && (!Settings.SHM || local != nil) || !f.Local() && netmod && f.Name() != Settings.NetMod {
			continue
		}
		eps := make([]transport.Endpoint, nvcis)
		for v := range eps {
			ep, err := f.Open(setup, v)
			if err != nil {
				if !f.Local() && Settings.NetMod != "libfabric" {
					return Errorf(ErrOther, "MPIX_NETMOD=%s: %v", Settings.NetMod, err)
				}
				return Errorf(ErrOther, "%s transport: %v", f.Name(), err)
			}
			eps[v] = ep
		}
		opened = append(opened, fabricEPs{f, eps})
		if a, ok := f.(transport.Accounter); ok {
			accounters = append(accounters, a)
		}
		reachedAll = !f.Local() || len(node) == len(peers)
		if f.Local() {
			local, nodeJob = eps, setup.Job
			arenas, _ = f.(transport.Collectives)
		}
	}
	if err := c.Fence(); err != nil {
		return Errorf(ErrOther, "PMI fence: %v", err)
	}
	routes := make([][]transport.Endpoint, nvcis)
	for v := range routes {
		routes[v] = make([]transport.Endpoint, len(peers))
	}
	for _, o := range opened {
		for v, ep := range o.eps {
			if cn, ok := ep.(transport.Connecter); ok {
				if err := cn.ConnectPeers(setup, v); err != nil {
					return Errorf(ErrOther, "%s transport: %v", o.f.Name(), err)
				}
			}
			// Node-local endpoints route the node's ranks, a global one what is left.
			for r := range peers {
				if routes[v][r] == nil && (!o.f.Local() || peers[r].Node == peers[self].Node) {
					routes[v][r] = ep
				}
			}
		}
	}
	for r := range peers {
		if routes[0][r] == nil {
			return Errorf(ErrOther, "no transport reaches rank %d", r)
		}
	}
	if err := c.Fence(); err != nil { // everyone connected
		return Errorf(ErrOther, "PMI fence: %v", err)
	}
	for _, o := range opened {
		for _, ep := range o.eps {
			if st, ok := ep.(transport.Settler); ok {
				st.Settle()
			}
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
		if local != nil {
			if cv, ok := local[v].(transport.CView); ok {
				engines[v].Shared().Shm = cv.CView()
			}
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
