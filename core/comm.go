package core

import (
	"sync"
	"sync/atomic"
)

// Comm is a communicator. This foundation knows MPI_COMM_WORLD and MPI_COMM_SELF;
// creation of new communicators arrives with the communicator issue.
type Comm struct {
	Handle    int32
	ContextID uint32
	Rank      int
	Size      int
	// WorldRanks maps communicator ranks to MPI_COMM_WORLD ranks.
	WorldRanks []int
	// eng is the stream this communicator's messages use (the seam for VCIs: each
	// communicator will get its own).
	eng    *Engine
	errh   atomic.Pointer[Errhandler]
	nameMu sync.Mutex
	name   string
}

// Predefined communicators (MPICH: 0x44000000 and 0x44000001).
var (
	CommWorld = &Comm{Handle: BuiltinHandle(KindComm, 0), ContextID: 0}
	CommSelf  = &Comm{Handle: BuiltinHandle(KindComm, 1), ContextID: 1}
)

var comms = NewTable[Comm](KindComm)

func init() {
	for _, c := range []*Comm{CommWorld, CommSelf} {
		c.errh.Store(ErrhFatal)
	}
	CommWorld.name, CommSelf.name = "MPI_COMM_WORLD", "MPI_COMM_SELF"
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
	c.nameMu.Lock()
	defer c.nameMu.Unlock()
	return c.name
}

// SetName sets the communicator's name.
func (c *Comm) SetName(n string) {
	c.nameMu.Lock()
	defer c.nameMu.Unlock()
	c.name = n
}

// rankOfWorld translates a world rank into this communicator's rank (-1 if absent).
func (c *Comm) rankOfWorld(w int) int {
	if c == CommWorld {
		return w
	}
	for i, x := range c.WorldRanks {
		if x == w {
			return i
		}
	}
	return -1
}

// CheckRank validates a rank argument against the communicator.
func (c *Comm) CheckRank(r int, allowProcNull, allowAny bool) error {
	switch {
	case r >= 0 && r < c.Size:
		return nil
	case r == ProcNull && allowProcNull, r == AnySource && allowAny:
		return nil
	}
	return Errorf(ErrRank, "invalid rank %d in communicator of size %d", r, c.Size)
}

// Special rank values (MPICH's).
const (
	AnySource = -2
	ProcNull  = -1
	Root      = -3
	AnyTag    = -1
)
