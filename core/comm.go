package core

import (
	"sync"
	"sync/atomic"

	"mpix/core/attr"
	"mpix/transport"
)

// Comm is a communicator: a group of processes (two for an intercommunicator) and a
// context that keeps its messages apart from every other communicator's.
//
// Each communicator owns ctxStride consecutive context ids from ContextID: point-to-point
// traffic uses ContextID, collectives ContextID+ctxColl and the library's own protocols
// (communicator creation) ContextID+ctxInternal; an intercommunicator's local
// intracommunicator uses the same three from ContextID+ctxLocal.
type Comm struct {
	Handle int32
	// ContextID is the context of the messages this process receives on the
	// communicator; sendCtx the one it stamps on messages it sends. They differ only
	// for intercommunicators made by MPI_Intercomm_create, where each group chose its own.
	ContextID uint32
	sendCtx   uint32
	Rank      int // in the local group
	Size      int // of the local group

	group  *Group // local group
	remote *Group // remote group of an intercommunicator, else nil
	// peers maps the ranks that point-to-point calls name (the remote group's for an
	// intercommunicator) to world ranks; identity says peers[i] == i.
	peers    []int
	identity bool

	// localComm is an intercommunicator's intracommunicator over its local group.
	localComm *Comm
	// coll and internal are this communicator on its collective and internal contexts:
	// views whose point-to-point traffic cannot meet the user's.
	coll, internal *Comm
	// collSeq numbers the collective calls made on the communicator; every member makes
	// them in the same order, so the number tells concurrent nonblocking ones apart.
	collSeq atomic.Uint32

	// eng is the stream this communicator's messages use (the seam for VCIs: each
	// communicator will get its own).
	eng  *Engine
	vr   vciRoute // VCIs of point-to-point traffic when hints spread it (vcihints.go)
	ep   *epInfo  // an endpoint of an endpoints communicator (endpoints.go), else nil
	errh atomic.Pointer[Errhandler]

	// arena is the shared memory of node-local collectives (collshm.go).
	arena      transport.Arena
	arenaState uint8
	arenaCall  *arenaCall // the arena collectives' arguments and callbacks (collshm.go)

	mu    sync.Mutex // guards name, info and topo
	name  string
	info  *Info // hints given at creation or by MPI_Comm_set_info
	topo  Topology
	freed bool

	Attrs attr.Store // cached attributes (MPI_Comm_set_attr)

	fastPeers []byte // peers as int32, outside the Go heap, for the C fast path (fastabi.go)

	// Thread communicators (threadcomm.go): tc is the shared state, set on the handle
	// object and on each thread's view; tcThread is the view's thread index (-1 on the
	// handle object); peerThread the thread index of each rank; tcEpoch the
	// activation the view belongs to (its messages carry it).
	tc         *threadcomm
	tcThread   int32
	tcEpoch    uint16
	peerThread []int32
	// local, on a thread's view, moves its messages to the process's other threads
	// outside the engine (capi's C queues); nil when they go through the engine.
	local LocalP2P
}

// Topology is the virtual topology attached to a communicator (Cartesian, graph or
// distributed graph), or nil.
type Topology interface {
	// Kind is MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH.
	Kind() int
}

// Context id layout within a communicator's block.
const (
	ctxColl     = 1
	ctxInternal = 2
	ctxLocal    = 4
	ctxStride   = 8
	// ctxLimit stays below ctxFinalize: contexts are never reused, and 2^28 communicator
	// creations per process is beyond any run.
	ctxLimit = 0x7ff00000
)

// Predefined communicators (MPICH: 0x44000000 and 0x44000001).
var (
	CommWorld = &Comm{Handle: BuiltinHandle(KindComm, 0), ContextID: 0}
	CommSelf  = &Comm{Handle: BuiltinHandle(KindComm, 1), ContextID: ctxStride}
)

var comms = NewTable[Comm](KindComm)

// nextContext is the lowest context id this process has never used. Communicator
// creation agrees on an id every member can claim (see allocContext); claiming is one
// compare-and-swap, so threads creating communicators on different parents never
// share a lock.
var nextContext atomic.Uint32

func init() {
	for _, c := range []*Comm{CommWorld, CommSelf} {
		c.errh.Store(ErrhFatal)
	}
	CommWorld.name, CommSelf.name = "MPI_COMM_WORLD", "MPI_COMM_SELF"
	nextContext.Store(2 * ctxStride)
}

// setupPredefined fills MPI_COMM_WORLD and MPI_COMM_SELF once the process knows its
// rank and the job's size.
func setupPredefined(rank, size int, eng *Engine) {
	world := make([]int, size)
	for i := range world {
		world[i] = i
	}
	CommWorld.init(rank, NewGroup(world), nil, eng)
	CommSelf.init(0, NewGroup([]int{rank}), nil, eng)
	publishComm(CommWorld)
	publishComm(CommSelf)
}

// init fills a communicator's groups and views; sendCtx defaults to ContextID.
func (c *Comm) init(rank int, local, remote *Group, eng *Engine) {
	c.Rank, c.group, c.remote, c.eng = rank, local, remote, eng
	c.Size = local.Size()
	if c.sendCtx == 0 {
		c.sendCtx = c.ContextID
	}
	c.peers = local.ranks
	if remote != nil {
		c.peers = remote.ranks
	}
	c.identity = true
	for i, w := range c.peers {
		if w != i {
			c.identity = false
			break
		}
	}
	c.coll = c.view(ctxColl)
	c.internal = c.view(ctxInternal)
}

// view is the communicator on another context of its block: same ranks, no handle.
func (c *Comm) view(offset uint32) *Comm {
	v := &Comm{ContextID: c.ContextID + offset, sendCtx: c.sendCtx + offset, Rank: c.Rank, Size: c.Size,
		group: c.group, remote: c.remote, peers: c.peers, identity: c.identity, eng: c.eng,
		tc: c.tc, tcThread: c.tcThread, tcEpoch: c.tcEpoch, peerThread: c.peerThread, arenaState: c.arenaState}
	v.errh.Store(ErrhReturn)
	return v
}

// newComm makes and registers a communicator on context ctx (receive) and sendCtx.
func newComm(ctx, sendCtx uint32, rank int, local, remote *Group, eng *Engine, info *Info) *Comm {
	c := &Comm{ContextID: ctx, sendCtx: sendCtx}
	c.init(rank, local, remote, eng)
	if remote != nil {
		lc := &Comm{ContextID: ctx + ctxLocal, sendCtx: ctx + ctxLocal}
		lc.init(rank, local, nil, eng)
		c.localComm = lc
	}
	c.info = info
	c.errh.Store(ErrhFatal)
	if vcis != nil {
		disownFor(eng) // made on an owned VCI by its owner: it is shared from now on
		vcis.Acquire(eng.Index())
	}
	c.Handle = comms.Add(c)
	publishComm(c)
	return c
}

// LookupComm resolves a communicator handle.
func LookupComm(h int32) (*Comm, error) {
	switch h {
	case CommWorld.Handle:
		return CommWorld, nil
	case CommSelf.Handle:
		return CommSelf, nil
	}
	if c := comms.Get(h); c != nil {
		return c, nil
	}
	if h == NullHandle(KindComm) {
		return nil, Errorf(ErrComm, "MPI_COMM_NULL is not a valid communicator here")
	}
	return nil, Errorf(ErrComm, "invalid communicator handle 0x%x", uint32(h))
}

// Errhandler returns the communicator's error handler (no reference taken).
func (c *Comm) Errhandler() *Errhandler { return c.errh.Load() }

// SetErrhandler attaches an error handler.
func (c *Comm) SetErrhandler(e *Errhandler) error {
	if err := e.CheckAttach(OnComm); err != nil {
		return err
	}
	if old := c.errh.Swap(e.Ref()); old != nil {
		old.Release()
	}
	return nil
}

// Name returns the communicator's name.
func (c *Comm) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// SetName sets the communicator's name.
func (c *Comm) SetName(n string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.name = n
}

// IsInter reports whether c is an intercommunicator.
func (c *Comm) IsInter() bool { return c.remote != nil }

// Group is the local group.
func (c *Comm) Group() *Group { return c.group }

// RemoteGroup is an intercommunicator's remote group (nil for an intracommunicator).
func (c *Comm) RemoteGroup() *Group { return c.remote }

// RemoteSize is the size of the remote group (0 for an intracommunicator).
func (c *Comm) RemoteSize() int {
	if c.remote == nil {
		return 0
	}
	return c.remote.Size()
}

// PeerCount is how many ranks point-to-point calls on c can name: the remote group's
// size for an intercommunicator.
func (c *Comm) PeerCount() int { return len(c.peers) }

// Topo returns the attached virtual topology, or nil.
func (c *Comm) Topo() Topology {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.topo
}

// SetTopo attaches a virtual topology (once, at creation).
func (c *Comm) SetTopo(t Topology) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.topo = t
}

// Info returns a copy of the communicator's hints.
func (c *Comm) Info() *Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.info == nil {
		return NewInfo()
	}
	return c.info.Dup()
}

// SetInfo replaces the communicator's hints (MPI_Comm_set_info).
func (c *Comm) SetInfo(info *Info) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.info = info.copyUnregistered()
}

// peerWorld is the world rank of point-to-point rank r.
func (c *Comm) peerWorld(r int) int { return c.peers[r] }

// rankOfWorld translates a world rank into the rank point-to-point statuses report
// (the remote group's for an intercommunicator), Undefined if absent.
func (c *Comm) rankOfWorld(w int) int {
	if c.identity {
		if w < len(c.peers) {
			return w
		}
		return Undefined
	}
	if c.remote != nil {
		return c.remote.RankOfWorld(w)
	}
	return c.group.RankOfWorld(w)
}

// CheckRank validates a rank argument of a point-to-point call.
func (c *Comm) CheckRank(r int, allowProcNull, allowAny bool) error {
	switch {
	case r >= 0 && r < len(c.peers):
		return nil
	case r == ProcNull && allowProcNull, r == AnySource && allowAny:
		return nil
	}
	return Errorf(ErrRank, "invalid rank %d in communicator of size %d", r, len(c.peers))
}

// CheckRoot validates the root argument of a rooted collective.
func (c *Comm) CheckRoot(root int) error {
	if c.remote != nil {
		if root == Root || root == ProcNull || (root >= 0 && root < c.remote.Size()) {
			return nil
		}
		return Errorf(ErrRoot, "invalid root %d for an intercommunicator whose remote group has %d processes", root, c.remote.Size())
	}
	if root < 0 || root >= c.Size {
		return Errorf(ErrRoot, "invalid root %d in communicator of size %d", root, c.Size)
	}
	return nil
}

// Special rank values (MPICH's).
const (
	AnySource = -2
	ProcNull  = -1
	Root      = -3
	AnyTag    = -1
)
