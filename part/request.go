package part

import (
	"strconv"
	"sync/atomic"
	"unsafe"

	"mpix/core"
	"mpix/core/cvar"
	"mpix/core/datatype"
	"mpix/core/pvar"
)

// path is how a request's data moves (doc.go).
type path uint8

const (
	pathNone path = iota // MPI_PROC_NULL
	pathShm
	pathOFI
	pathAM
)

func (p path) String() string {
	return [...]string{"null", "shm", "ofi", "am"}[p]
}

// common is what both sides of a partitioned request hold.
type common struct {
	id    uint32
	req   *core.Request
	eng   *core.Engine
	comm  *core.Comm
	peer  int // communicator rank, or core.ProcNull
	w     int // world rank of peer
	tag   int
	parts int
	count int64 // elements per partition
	dt    *datatype.Type
	buf   unsafe.Pointer
	want  path  // the path the peer's transport offers (pathTo, at init)
	total int64 // bytes
	pb    int64 // bytes per partition
	// base is where the packed bytes live in the user's buffer when the whole message
	// is one contiguous run (nil otherwise: stage holds them, packed per partition).
	base  unsafe.Pointer
	stage []byte

	round atomic.Uint32 // incremented by each MPI_Start; 0: never started
	class atomic.Int32  // the round's error class (0: none)
	done  atomic.Bool   // the round finished (reported through FinishStatus)
}

func (c *common) init(buf unsafe.Pointer, parts int, count int64, dt *datatype.Type, peer, tag int, comm *core.Comm) {
	c.buf, c.parts, c.count, c.dt, c.peer, c.tag, c.comm = buf, parts, count, dt, peer, tag, comm
	c.eng = comm.Engine()
	c.pb = count * dt.Size()
	c.total = c.pb * int64(parts)
	c.w = -1
	if peer != core.ProcNull {
		c.w = comm.WorldRank(peer)
	}
	runs, first := 0, int64(0)
	datatype.Runs(count*int64(parts), dt, func(off, n int64) bool {
		if n == 0 {
			return true
		}
		runs++
		first = off
		return runs < 2
	})
	switch {
	case c.total == 0:
	case runs == 1:
		c.base = unsafe.Add(buf, first)
	default:
		c.stage = make([]byte, c.total)
		c.base = unsafe.Pointer(&c.stage[0])
	}
	dt.Ref()
}

// bytes is the packed bytes [off, off+n) of the message where they live.
func (c *common) bytes(off, n int64) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(c.base, off)), n)
}

// release drops what init took.
func (c *common) release() { c.dt.Release() }

// inRange checks a partition index.
func (c *common) InRange(i int) error {
	if i < 0 || i >= c.parts {
		return core.Errorf(core.ErrArg, "partition %d is out of range (the request has %d partitions, 0..%d)", i, c.parts, c.parts-1)
	}
	return nil
}

// fail records the round's first error class.
func (c *common) fail(class int) { c.class.CompareAndSwap(0, int32(class)) }

// writes is the MPI_T performance variable mpix_part_writes: transport partitions
// sent (one RDMA write, process_vm_writev or active message each).
var writes atomic.Uint64

var _ = pvar.Register(pvar.Spec{
	Name:       "mpix_part_writes",
	Desc:       "partitioned communication: transport partitions sent by this process (one RDMA write, process_vm_writev or active message each)",
	Class:      pvar.Counter,
	Verbosity:  cvar.TunerBasic,
	Category:   cvar.Progress,
	Continuous: true,
	Readonly:   true,
	Read:       func(dst []uint64) { dst[0] = writes.Load() },
})

// infoOf is what MPIX_Part_get_info reports of a request.
func infoOf(p plan, pa path, lastWrites int64) map[string]string {
	return map[string]string{
		"mpix_part_aggregation":          p.strategy.String(),
		"mpix_part_transport_partitions": strconv.Itoa(p.groups),
		"mpix_part_num_qps":              strconv.Itoa(p.qps),
		"mpix_part_delta_usec":           strconv.FormatInt(p.delta.Microseconds(), 10),
		"mpix_part_path":                 pa.String(),
		"mpix_part_writes":               strconv.FormatInt(lastWrites, 10),
	}
}

// Request is a partitioned request of either side, for capi.
type Request interface {
	InRange(i int) error // MPI_ERR_ARG unless i is a partition index
	Pready(i int) error
	Parrived(i int) (bool, error)
	Prepare() error
	Info() map[string]string
}

// Of returns the partitioned request behind a core request, if it is one.
func Of(r *core.Request) (Request, bool) {
	d, ok := r.Driven()
	if !ok {
		return nil, false
	}
	p, ok := d.(Request)
	return p, ok
}
