package part

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/transport"
)

// recvReq is the receiving side.
type recvReq struct {
	common

	// The registrations of the bytes' landing place for the ofi path, one per stream
	// (network context) a sender may write through: the comm's VCI first.
	nets []netKey

	// Where arrivals are counted: the page the sender maps (shm path), or memory of
	// this process that its progress updates.
	land *landing
	seg  *segment

	// From the sender's ack (set before matched is published).
	matched  atomic.Bool
	sid      uint32
	sparts   int
	spb      int64 // bytes per send partition
	bad      bool  // the totals differ
	path     path
	plan     plan
	unpacked []atomic.Uint32 // per receive partition (derived types): 2*round done, 2*round-1 under way

	mu     sync.Mutex
	early  []uint32 // write data that came before the ack (ofi path)
	seenWr uint64   // land.writes when the last round completed
	lastWr atomic.Int64
}

// PrecvInit makes a partitioned receive request (MPI_Precv_init) and tells the
// sender about it; it never waits.
func PrecvInit(buf unsafe.Pointer, parts int, count int64, dt *datatype.Type, source, tag int, comm *core.Comm, info *core.Info) (*core.Request, error) {
	if err := checkInit(parts, count, dt, source, tag, comm, true); err != nil {
		return nil, err
	}
	r := &recvReq{}
	r.init(buf, parts, count, dt, source, tag, comm)
	r.unpacked = make([]atomic.Uint32, parts)
	r.req = core.NewDriven(r.eng, r)
	if source == core.ProcNull {
		r.path = pathNone
		return r.req, nil
	}
	r.want = r.pathTo()
	if r.total > 0 && r.want == pathOFI {
		// Registered once, for every round ([PA] §IV-A); without a key the sender
		// falls back to active messages.
		r.register()
	}
	reg.mu.Lock()
	r.id = newID()
	reg.recvs[r.id] = r
	reg.mu.Unlock()
	if r.want == pathShm {
		if seg, err := newSegment(flagPath(r.id), landingBytes(parts)); err == nil {
			r.seg = seg
			r.land = landingAt(unsafe.Pointer(&seg.mem[0]), parts)
		}
	}
	if r.land == nil {
		r.land = newLocalLanding(parts)
	}
	p := []byte{opInit}
	p = u32(p, uint32(parts))
	p = u64(p, uint64(uintptr(r.base)))
	p = append(p, byte(len(r.nets)))
	for _, k := range r.nets {
		p = binary.LittleEndian.AppendUint16(p, uint16(k.stream))
		p = u32(p, uint32(len(k.key)))
		p = append(p, k.key...)
	}
	if r.seg != nil {
		p = append(p, r.seg.path...)
	}
	h := transport.Header{Kind: transport.KindPart, Context: comm.SendContext(), Tag: int32(tag), RecvReq: uint64(r.id), Size: r.total}
	if err := r.eng.SendAM(r.w, &h, p); err != nil {
		r.Free()
		return nil, err
	}
	return r.req, nil
}

// acked takes the sender's ack (inside progress). Everything in it is checked before
// use: a bad ack leaves the request unmatched, and its wait reports nothing arrived.
func (r *recvReq) acked(h *transport.Header, p []byte) {
	if r.matched.Load() || len(p) < 16 {
		return
	}
	sparts := int(binary.LittleEndian.Uint32(p[1:]))
	groups := int(binary.LittleEndian.Uint32(p[5:]))
	pa, strategy, qps := path(p[9]), aggregation(p[10]), int(p[11])
	delta := time.Duration(binary.LittleEndian.Uint32(p[12:])) * time.Microsecond
	if sparts < 1 || groups < 1 || groups > sparts || pa < pathShm || pa > pathAM || strategy > aggrTimer {
		return
	}
	if pa == pathOFI && sparts >= 1<<16 {
		return
	}
	r.sid, r.sparts, r.bad = uint32(h.SendReq), sparts, h.Size != r.total
	if !r.bad && r.total > 0 {
		if r.total%int64(sparts) != 0 {
			r.bad = true
		}
		r.spb = r.total / int64(sparts)
	}
	r.plan = plan{strategy: strategy, groups: groups, qps: max(qps, 1), delta: delta}
	r.path = pa
	r.matched.Store(true)
	r.mu.Lock()
	early := r.early
	r.early = nil
	r.mu.Unlock()
	for _, d := range early {
		r.wrote(d)
	}
}

// wrote marks the send partitions of a write that landed (ofi path; inside progress).
func (r *recvReq) wrote(d uint32) {
	if !r.matched.Load() {
		r.mu.Lock()
		if r.matched.Load() {
			r.mu.Unlock()
			r.wrote(d)
			return
		}
		if len(r.early) < 1<<16 {
			r.early = append(r.early, d)
		}
		r.mu.Unlock()
		return
	}
	first, n := int64(d>>16), int64(d&0xffff)
	if n == 0 || first+n > int64(r.sparts) || r.bad {
		return
	}
	r.land.land(r.round.Load(), first*r.spb, n*r.spb, r.pb, int(n))
}

// data copies a run sent as active messages (inside progress); its last message marks
// the run's partitions. Offsets and lengths are checked against the request.
func (r *recvReq) data(p []byte) {
	if !r.matched.Load() || len(p) < 18 {
		return
	}
	first := int(binary.LittleEndian.Uint32(p[1:]))
	n := int(binary.LittleEndian.Uint32(p[5:]))
	last := p[9] == 1
	off := binary.LittleEndian.Uint64(p[10:])
	b := p[18:]
	if n < 1 || first < 0 || first+n > r.sparts || off > uint64(r.total) || uint64(len(b)) > uint64(r.total)-off {
		return
	}
	if r.bad {
		return
	}
	if len(b) > 0 {
		copy(r.bytes(int64(off), int64(len(b))), b)
	}
	if last {
		end := off + uint64(len(b))
		size := uint64(n) * uint64(r.spb)
		if end < size { // the run's last message: the run is [end-size, end)
			return
		}
		r.land.land(r.round.Load(), int64(end-size), int64(size), r.pb, n)
	}
}

// Start begins a round (MPI_Start) and tells the sender the buffer is ready for it.
func (r *recvReq) Start() error {
	round := r.round.Add(1)
	r.class.Store(0)
	r.done.Store(false)
	if r.peer == core.ProcNull {
		r.done.Store(true)
		r.req.FinishStatus(core.Status{Source: core.ProcNull, Tag: core.AnyTag})
		return nil
	}
	p := u32([]byte{opCTS}, round)
	h := transport.Header{Kind: transport.KindPart, RecvReq: uint64(r.id), SendReq: uint64(r.sid)}
	return r.eng.SendAM(r.w, &h, p)
}

// Parrived reports whether receive partition i has arrived (MPI_Parrived); it makes
// progress by itself when it has not, without waiting for another thread's.
func (r *recvReq) Parrived(i int) (bool, error) {
	if err := r.InRange(i); err != nil {
		return false, err
	}
	round := r.round.Load()
	if round == 0 || r.peer == core.ProcNull || r.done.Load() {
		return true, nil // inactive, or complete
	}
	for try := 0; try < 2; try++ {
		if r.matched.Load() && !r.bad && r.land.arrived(i, round, r.pb, r.sparts) {
			if r.stage != nil {
				r.unpack(i, round)
			}
			return true, nil
		}
		if try == 0 {
			r.progress()
		}
	}
	return false, nil
}

// unpack copies receive partition i from the stage into the user's buffer, once per
// round; it reports whether the copy is done (another thread may be making it).
func (r *recvReq) unpack(i int, round uint32) bool {
	doneMark, busy := 2*round, 2*round-1
	for {
		v := r.unpacked[i].Load()
		if v == doneMark {
			return true
		}
		if v == busy {
			return false
		}
		if r.unpacked[i].CompareAndSwap(v, busy) {
			break
		}
	}
	off := int64(i) * r.pb
	if r.pb > 0 {
		datatype.Unpack(r.stage[off:off+r.pb], r.buf, r.count*int64(r.parts), r.dt, off)
	}
	r.unpacked[i].Store(doneMark)
	return true
}

// progress polls the streams the sender's writes land on, without queueing on a lock.
func (r *recvReq) progress() {
	r.eng.TryProgress()
	for _, k := range r.nets[min(1, len(r.nets)):] {
		k.eng.TryProgress()
	}
}

// Poll completes the round once every send partition landed (core.Driver).
func (r *recvReq) Poll() {
	if r.done.Load() || !r.matched.Load() {
		return
	}
	if len(r.nets) > 1 {
		for _, k := range r.nets[1:] {
			k.eng.TryProgress() // the wait polls only the communicator's stream
		}
	}
	round := r.round.Load()
	if !r.bad {
		if !r.land.complete(round, r.sparts) {
			return
		}
		if r.stage != nil {
			for i := 0; i < r.parts; i++ {
				for !r.unpack(i, round) {
				}
			}
		}
	}
	if r.done.Swap(true) {
		return
	}
	cur := r.land.writes.Load()
	r.lastWr.Store(int64(cur - r.seenWr))
	r.seenWr = cur
	st := core.Status{Source: r.peer, Tag: r.tag, Bytes: r.total}
	if r.bad {
		st.Error = core.ErrTruncate
		st.Bytes = 0
	}
	r.req.FinishStatus(st)
}

// Pready is erroneous on a receive request.
func (r *recvReq) Pready(int) error {
	return core.Errorf(core.ErrRequest, "MPI_Pready on a partitioned receive request")
}

// Prepare is MPIX_Pbuf_prepare on the receive side: it returns once the sender has
// matched the request, so that the sender's partitions go straight into the buffer.
func (r *recvReq) Prepare() error {
	if r.round.Load() == 0 || !r.req.Active() {
		return core.Errorf(core.ErrRequest, "MPIX_Pbuf_prepare on an inactive partitioned request (call MPI_Start first)")
	}
	if r.peer != core.ProcNull {
		r.eng.WaitOn(r.matched.Load)
	}
	return nil
}

// Info reports the sender's plan as the ack gave it (MPIX_Part_get_info).
func (r *recvReq) Info() map[string]string {
	if !r.matched.Load() {
		return infoOf(plan{}, r.want, 0)
	}
	return infoOf(r.plan, r.path, r.lastWr.Load())
}

// Cancel does not cancel: the sender may be writing the round already; it completes
// normally.
func (r *recvReq) Cancel() {}

// Free releases an inactive receive request (MPI_Request_free).
func (r *recvReq) Free() error {
	reg.mu.Lock()
	delete(reg.recvs, r.id)
	reg.mu.Unlock()
	for _, k := range r.nets {
		k.eng.DeregisterRemote(k.reg)
	}
	if r.seg != nil {
		r.seg.close()
	}
	r.release()
	return nil
}
