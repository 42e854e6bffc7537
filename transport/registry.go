package transport

import (
	"sort"
	"sync"
)

// Setup is what a fabric needs to open its endpoints at MPI_Init: where this process
// sits in the job and the process manager's key-value space, through which processes
// exchange addresses between the fences.
type Setup struct {
	Rank, Size int
	Node       []int  // world ranks of the processes on this node, ascending; Rank among them
	PIDs       []int  // their process ids, in Node's order
	Job        string // unique per job and node: names node-local resources
	Provider   string // the libfabric provider asked for (MPIX_OFI_PROVIDER), "" for the best
	// VCIs is the number of VCIs Open is called for (0 .. VCIs-1, in order), and
	// EPSharing the resource-sharing category asked for them (MPIX_EP_SHARING, a
	// transport/epshare name; "" for the fabric's default).
	VCIs      int
	EPSharing string
	// EPSharedCQ asks that the endpoints of a shared domain share their CQs
	// (MPIX_EP_CQ_SHARING=shared).
	EPSharedCQ bool
	Put        func(key, value string) error
	// Get reads what process rank published under key (PMIx keeps values per process).
	Get func(rank int, key string) (string, error)
}

// Fabric makes the endpoints of one transport. Startup is collective: every process
// opens its endpoints (Open), the job runs a fence, every process connects them
// (Connecter), a second fence, and every process settles them (Settler).
type Fabric interface {
	// Name says what the fabric is, for messages ("shared memory").
	Name() string
	// Local reports whether the fabric reaches only the processes of this node
	// (MPIX_SHM turns those off); the others reach every process.
	Local() bool
	// Open makes this process's endpoint for VCI vci (VCI v talks to VCI v of the
	// other processes), and publishes through s.Put what the peers need to reach it.
	Open(s *Setup, vci int) (Endpoint, error)
}

// Connecter is an endpoint that connects to its peers after the first fence.
type Connecter interface {
	ConnectPeers(s *Setup, vci int) error
}

// Settler is an endpoint with work once every process connected (the second fence):
// shm removes the names of its files then.
type Settler interface {
	Settle()
}

// Waiter is called by a process waiting in a collective, with the number of spins it
// has waited so far.
type Waiter func(spins int)

// Arena is shared memory for the collectives of one communicator whose processes all
// run on this node.
type Arena interface {
	// Barrier returns once every member entered it.
	Barrier(wait Waiter)
	// Bcast moves size bytes from root: root fills the slot (write), the others read it.
	Bcast(root, size int, write, read func(slot []byte), wait Waiter)
	// Allgather has every member write its slot, then read every member's.
	Allgather(size int, write func(slot []byte), read func(slots [][]byte), wait Waiter)
	Close() error
}

// Collectives is a fabric that offers arenas. A communicator's rank 0 creates its
// arena, the others open it once they know that it exists, and rank 0 removes its
// name once all did; job, context id and leader (the world rank of rank 0) name it.
type Collectives interface {
	CreateArena(job string, ctx uint32, leader, n, slotSize int) (Arena, error)
	OpenArena(job string, ctx uint32, leader, n, me, slotSize int) (Arena, error)
	RemoveArena(job string, ctx uint32, leader int)
}

// CView is an endpoint whose state C fast paths drive directly: CView is its
// address, which the VCI's page shared with C records.
type CView interface {
	CView() uintptr
}

var registry struct {
	sync.Mutex
	fabrics map[string]Fabric
}

// Register makes a fabric available under its name; transports call it from init.
func Register(f Fabric) {
	registry.Lock()
	defer registry.Unlock()
	if registry.fabrics == nil {
		registry.fabrics = map[string]Fabric{}
	}
	registry.fabrics[f.Name()] = f
}

// Fabrics lists the registered fabrics, node-local ones first (they serve the peers
// they reach in preference to the others), then by name.
func Fabrics() []Fabric {
	registry.Lock()
	defer registry.Unlock()
	out := make([]Fabric, 0, len(registry.fabrics))
	for _, f := range registry.fabrics {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Local() != out[j].Local() {
			return out[i].Local()
		}
		return out[i].Name() < out[j].Name()
	})
	return out
}
