package part

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/transport"
)

// A user partition's state in a round: round<<2 | one of these. A partition whose
// round field is older is not ready in this round.
const (
	stReady   = 1 // MPI_Pready called, not sent yet
	stClaimed = 2 // a thread took it to send
)

// counter is an atomic on its own cache line: each group's is bumped by other threads.
type counter struct {
	n atomic.Int32
	_ [60]byte
}

// sendReq is the sending side.
type sendReq struct {
	common
	plan  plan
	gsize int // user partitions per transport partition

	state    []atomic.Uint32 // per user partition
	ready    []counter       // per group: partitions made ready this round
	fired    []atomic.Uint32 // per group: the round whose δ ran out (timer_ploggp)
	deadline []atomic.Int64  // per group: when its δ runs out (Unix ns), 0: not armed
	armed    atomic.Int32    // groups armed

	// From the receiver's init (set once before matched is published).
	matched atomic.Bool
	rid     uint32
	raddr   uint64
	nets    []netKey // ofi: the streams the writes go through, with the receiver's keys
	bad     bool     // the totals differ: every round fails with MPI_ERR_TRUNCATE
	path    atomic.Uint32
	rpb     int64         // bytes per receive partition
	seg     *segment      // shm: the receiver's landing page, mapped here
	land    *landing      // over seg
	cts     atomic.Uint32 // the latest round the receiver is ready for

	sent    atomic.Int64 // user partitions handed to the transport this round
	nwrites atomic.Int64 // transport partitions this round
	lastWr  atomic.Int64 // of the last completed round
	npend   atomic.Int32 // runs in pending
	pmu     sync.Mutex
	pending []run
	freed   bool // MPI_Request_free before matching (under reg.mu)
}

// run is user partitions [first, first+n) to send as one transport partition.
type run struct{ first, n int }

// PsendInit makes a partitioned send request (MPI_Psend_init). It never waits for
// the receiver.
func PsendInit(buf unsafe.Pointer, parts int, count int64, dt *datatype.Type, dest, tag int, comm *core.Comm, info *core.Info) (*core.Request, error) {
	if err := checkInit(parts, count, dt, dest, tag, comm, false); err != nil {
		return nil, err
	}
	s := &sendReq{}
	s.init(buf, parts, count, dt, dest, tag, comm)
	s.want = s.pathTo()
	p, err := choosePlan(info, parts, s.total, s.want)
	if err != nil {
		s.release()
		return nil, err
	}
	s.plan, s.gsize = p, parts/p.groups
	s.state = make([]atomic.Uint32, parts)
	s.ready = make([]counter, p.groups)
	s.fired = make([]atomic.Uint32, p.groups)
	s.deadline = make([]atomic.Int64, p.groups)
	s.req = core.NewDriven(s.eng, s)
	if dest == core.ProcNull {
		s.path.Store(uint32(pathNone))
		return s.req, nil
	}
	reg.mu.Lock()
	s.id = newID()
	reg.sends[s.id] = s
	m := takeEarly(s)
	if m == nil {
		reg.posted = append(reg.posted, s)
	}
	reg.mu.Unlock()
	if m != nil {
		ack := s.match(m)
		if err := s.eng.SendAM(m.from, &ack.hdr, ack.payload); err != nil {
			return nil, err
		}
		if m.cts > 0 {
			s.clearToSend(m.cts)
		}
	}
	return s.req, nil
}

// checkInit checks the arguments both init calls take.
func checkInit(parts int, count int64, dt *datatype.Type, peer, tag int, comm *core.Comm, recv bool) error {
	if parts < 1 {
		return core.Errorf(core.ErrArg, "partitions must be at least 1 (%d)", parts)
	}
	if parts >= 1<<31 {
		return core.Errorf(core.ErrArg, "too many partitions (%d)", parts)
	}
	if err := core.CheckBuffer(count, dt); err != nil {
		return err
	}
	if comm.IsInter() || comm.IsThreadcomm() || comm.IsEndpoints() {
		return core.Errorf(core.ErrComm, "partitioned communication needs an intracommunicator of processes")
	}
	if peer == core.AnySource {
		return core.Errorf(core.ErrRank, "partitioned communication matches no MPI_ANY_SOURCE")
	}
	if tag == core.AnyTag {
		return core.Errorf(core.ErrTag, "partitioned communication matches no MPI_ANY_TAG")
	}
	if tag < 0 || tag > core.TagUB {
		return core.Errorf(core.ErrTag, "invalid tag %d (valid: 0..%d)", tag, core.TagUB)
	}
	return comm.CheckRank(peer, true, false)
}

// pathTo is the path the data will take to the peer (outside the engine's lock).
func (c *common) pathTo() path {
	switch {
	case c.peer == core.ProcNull:
		return pathNone
	case c.eng.WritesTo(c.w) && core.NodeJob() != "":
		return pathShm
	case c.eng.RemoteDataBytes(c.w) >= 8 && c.parts < 1<<16:
		return pathOFI
	}
	return pathAM
}

// fits reports whether the receive's init m matches this send (under reg.mu).
func (s *sendReq) fits(m *initMsg) bool {
	return m.from == s.w && m.ctx == s.comm.SendContext() && m.tag == s.tag
}

// match takes the receive's init and returns the ack to send. It runs once, before
// any transfer.
func (s *sendReq) match(m *initMsg) message {
	s.rid, s.raddr = m.rid, m.addr
	s.bad = m.total != s.total
	pa := s.want
	if pa == pathOFI {
		s.nets = s.streams(m.keys)
		if len(s.nets) == 0 {
			pa = pathAM // the receiver could not register its buffer
		}
	}
	s.plan.qps = max(len(s.nets), 1) // what the streams allow (shm and am: no network context)
	if pa == pathShm {
		seg, err := openPage(m.page, m.rparts)
		if err != nil {
			pa = pathAM // the receiver could not make its page, or freed its request
		} else {
			s.seg, s.land = seg, landingAt(unsafe.Pointer(&seg.mem[0]), m.rparts)
		}
	}
	if m.rparts > 0 {
		s.rpb = m.total / int64(m.rparts)
	}
	s.path.Store(uint32(pa))
	s.matched.Store(true)
	p := []byte{opAck}
	p = u32(p, uint32(s.parts))
	p = u32(p, uint32(s.plan.groups))
	p = append(p, byte(pa), byte(s.plan.strategy), byte(s.plan.qps))
	p = u32(p, uint32(s.plan.delta.Microseconds()))
	return message{hdr: transport.Header{Kind: transport.KindPart, Context: m.ctx, RecvReq: uint64(m.rid), SendReq: uint64(s.id), Size: s.total}, payload: p}
}

// clearToSend records that the receiver is ready for round r.
func (s *sendReq) clearToSend(r uint32) {
	for {
		old := s.cts.Load()
		if r <= old || s.cts.CompareAndSwap(old, r) {
			return
		}
	}
}

// Start begins a round (MPI_Start). Towards MPI_PROC_NULL the round is complete at once.
func (s *sendReq) Start() error {
	s.round.Add(1)
	for g := range s.ready {
		s.ready[g].n.Store(0)
	}
	for g := range s.deadline {
		s.deadline[g].Store(0)
	}
	s.armed.Store(0)
	s.sent.Store(0)
	s.nwrites.Store(0)
	s.class.Store(0)
	s.done.Store(s.peer == core.ProcNull)
	if s.peer == core.ProcNull {
		s.req.FinishStatus(core.Status{Source: core.AnySource, Tag: core.AnyTag})
	}
	return nil
}

// Pready marks partition i ready (MPI_Pready); the thread that completes a transport
// partition sends it.
func (s *sendReq) Pready(i int) error {
	if err := s.InRange(i); err != nil {
		return err
	}
	r := s.round.Load()
	if r == 0 || !s.req.Active() {
		return core.Errorf(core.ErrRequest, "MPI_Pready on an inactive partitioned request (call MPI_Start first)")
	}
	for {
		old := s.state[i].Load()
		if old>>2 == r {
			return core.Errorf(core.ErrRequest, "partition %d is already ready in this round", i)
		}
		if s.state[i].CompareAndSwap(old, r<<2|stReady) {
			break
		}
	}
	if s.peer == core.ProcNull {
		return nil
	}
	g := i / s.gsize
	n := int(s.ready[g].n.Add(1))
	switch {
	case n == s.gsize:
		if s.deadline[g].Swap(0) != 0 {
			s.armed.Add(-1)
		}
		s.flush(g, r, nil)
	case s.plan.strategy != aggrTimer:
	case s.fired[g].Load() == r:
		s.flush(g, r, nil) // late: the group's δ ran out, the early ones left
	case n == 1:
		s.arm(g, r)
	}
	if s.plan.strategy == aggrTimer {
		s.expire(r, nil)
	}
	if s.npend.Load() > 0 {
		s.drain()
	}
	return nil
}

// arm starts group g's δ in round r (timer.go).
func (s *sendReq) arm(g int, r uint32) {
	s.deadline[g].Store(time.Now().Add(s.plan.delta).UnixNano())
	s.armed.Add(1)
	watchDeadlines(s)
}

// expire fires the groups of round r whose δ has run out; held is the engine whose
// progress the caller is in, or nil.
func (s *sendReq) expire(r uint32, held *core.Engine) {
	if s.armed.Load() == 0 {
		return
	}
	now := time.Now().UnixNano()
	for g := range s.deadline {
		d := s.deadline[g].Load()
		if d == 0 || now < d || !s.deadline[g].CompareAndSwap(d, 0) {
			continue
		}
		s.armed.Add(-1)
		s.fired[g].Store(r)
		s.flush(g, r, held)
	}
}

// flush claims the ready, unsent partitions of group g and sends them as contiguous runs.
func (s *sendReq) flush(g int, r uint32, held *core.Engine) {
	lo, hi := g*s.gsize, (g+1)*s.gsize
	ready, claimed := r<<2|stReady, r<<2|stClaimed
	start := -1
	for i := lo; i < hi; i++ {
		if s.state[i].CompareAndSwap(ready, claimed) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			s.transfer(run{start, i - start}, r, held)
			start = -1
		}
	}
	if start >= 0 {
		s.transfer(run{start, hi - start}, r, held)
	}
}

// canSend reports whether round r's data may go: matched and the receiver's buffer is
// ready for the round.
func (s *sendReq) canSend(r uint32) bool { return s.matched.Load() && s.cts.Load() >= r }

// transfer sends a run now, or queues it until the receiver is ready.
func (s *sendReq) transfer(x run, r uint32, held *core.Engine) {
	if !s.canSend(r) || s.npend.Load() > 0 {
		s.requeue(x)
		if held == nil && !s.canSend(r) {
			// The receiver's clear-to-send may be waiting in the stream: take it now
			// (its handler sends what waits) rather than when the threads next enter MPI.
			s.eng.TryProgress()
		}
		s.drainHeld(held)
		return
	}
	s.sendHeld(x, held)
}

// streams picks the network contexts of the plan among the receiver's registrations:
// the communicator's stream first, then the next ones that no single thread owns here.
func (s *sendReq) streams(keys []netKey) []netKey {
	var out []netKey
	for _, k := range keys {
		if len(out) == s.plan.qps {
			break
		}
		e, ok := s.eng.Stream(k.stream)
		if k.stream < 0 || k.stream >= s.eng.Streams() || !ok || !e.RemoteTo(s.w) {
			continue
		}
		out = append(out, netKey{stream: k.stream, key: k.key, eng: e})
	}
	return out
}

// requeue queues a run until the receiver is ready for the round (or until a call out
// of progress can send it); the timer thread polls for the receiver meanwhile.
func (s *sendReq) requeue(x run) {
	s.pmu.Lock()
	s.pending = append(s.pending, x)
	s.npend.Add(1)
	s.pmu.Unlock()
	watchDeadlines(s)
}

// drain sends the queued runs once the receiver is ready for the round.
func (s *sendReq) drain() { s.drainHeld(nil) }

// drainHeld is drain from inside held's progress (the handler of the receiver's
// clear-to-send, held == s.eng), or from outside any progress (held == nil).
func (s *sendReq) drainHeld(held *core.Engine) {
	if s.npend.Load() == 0 || !s.canSend(s.round.Load()) {
		return
	}
	s.pmu.Lock()
	q := s.pending
	s.pending = nil
	s.npend.Store(0)
	s.pmu.Unlock()
	for _, x := range q {
		s.sendHeld(x, held)
	}
}

// sendHeld moves one run to the receiver; held is the engine whose progress the
// caller is in (its lock held), or nil.
func (s *sendReq) sendHeld(x run, held *core.Engine) {
	r := s.round.Load()
	if s.bad {
		s.fail(core.ErrTruncate)
		s.sent.Add(int64(x.n))
		return
	}
	off, n := int64(x.first)*s.pb, int64(x.n)*s.pb
	if s.stage != nil && n > 0 {
		datatype.Pack(s.stage[off:off+n], s.buf, s.count*int64(s.parts), s.dt, off)
	}
	src := s.bytes(off, n)
	var err error
	switch path(s.path.Load()) {
	case pathShm:
		if n > 0 {
			err = s.eng.WriteTo(s.w, uintptr(s.raddr)+uintptr(off), src)
		}
		if errors.Is(err, transport.ErrNoSingleCopy) {
			s.path.Store(uint32(pathAM)) // process_vm_writev refused: the receiver copies
			err = s.sendAM(x, off, src, held)
			break
		}
		if err == nil {
			s.land.land(r, off, n, s.rpb, x.n)
		}
	case pathOFI:
		if n == 0 {
			err = s.sendAM(x, off, nil, held)
			break
		}
		data := uint64(s.rid)<<32 | uint64(x.first)<<16 | uint64(x.n)
		k := s.nets[(x.first/s.gsize)%len(s.nets)] // the group's network context
		if held != nil && k.eng == held {
			err = held.StartRemoteDataHeld(s.w, k.key, s.raddr+uint64(off), src, data)
		} else if held != nil {
			s.requeue(x) // another stream's lock: the next call out of progress sends it
			return
		} else {
			err = k.eng.StartRemoteData(s.w, k.key, s.raddr+uint64(off), src, data)
		}
	default:
		err = s.sendAM(x, off, src, held)
	}
	if err != nil {
		s.fail(core.ErrOther)
		reportOnce(err)
	}
	s.nwrites.Add(1)
	writes.Add(1)
	s.sent.Add(int64(x.n))
}

// sendAM sends a run as active messages the receiver's progress copies.
func (s *sendReq) sendAM(x run, off int64, src []byte, held *core.Engine) error {
	max := s.eng.MaxPayload(s.w) - 32
	if max < 1024 {
		return fmt.Errorf("part: messages to rank %d carry only %d bytes", s.w, max+32)
	}
	for sent := 0; ; {
		k := min(len(src)-sent, max)
		last := sent+k == len(src)
		p := make([]byte, 0, 18+k)
		p = append(p, opData)
		p = u32(p, uint32(x.first))
		p = u32(p, uint32(x.n))
		if last {
			p = append(p, 1)
		} else {
			p = append(p, 0)
		}
		p = u64(p, uint64(off)+uint64(sent))
		p = append(p, src[sent:sent+k]...)
		h := transport.Header{Kind: transport.KindPart, RecvReq: uint64(s.rid), SendReq: uint64(s.id)}
		if held != nil {
			held.Reply(s.w, &h, p)
		} else if err := s.eng.SendAM(s.w, &h, p); err != nil {
			return err
		}
		sent += k
		if last {
			return nil
		}
	}
}

// Poll completes the round once every partition left and the transport is done with
// the user's buffer (core.Driver).
func (s *sendReq) Poll() {
	if s.plan.strategy == aggrTimer {
		s.expire(s.round.Load(), nil)
	}
	if s.npend.Load() > 0 {
		s.drain()
	}
	if s.sent.Load() < int64(s.parts) || s.done.Load() {
		return
	}
	if path(s.path.Load()) == pathOFI && s.nwrites.Load() > 0 {
		for _, k := range s.nets {
			ok, err := k.eng.RemoteDone(s.w)
			if !ok {
				return
			}
			if err != nil {
				s.fail(core.ErrOther)
				reportOnce(err)
			}
		}
	}
	if !s.done.CompareAndSwap(false, true) {
		return // another waiter finished the round
	}
	s.lastWr.Store(s.nwrites.Load())
	st := core.Status{Source: core.AnySource, Tag: core.AnyTag, Error: int(s.class.Load())}
	s.req.FinishStatus(st)
}

// Parrived is erroneous on a send request.
func (s *sendReq) Parrived(int) (bool, error) {
	return false, core.Errorf(core.ErrRequest, "MPI_Parrived on a partitioned send request")
}

// Prepare is MPIX_Pbuf_prepare: it returns once the receiver's buffer is ready for the
// round, so the next MPI_Pready sends at once.
func (s *sendReq) Prepare() error {
	if s.round.Load() == 0 || !s.req.Active() {
		return core.Errorf(core.ErrRequest, "MPIX_Pbuf_prepare on an inactive partitioned request (call MPI_Start first)")
	}
	if s.peer == core.ProcNull {
		return nil
	}
	r := s.round.Load()
	s.eng.WaitOn(func() bool { return s.canSend(r) })
	s.drain()
	return nil
}

// Info reports the request's plan (MPIX_Part_get_info).
func (s *sendReq) Info() map[string]string {
	return infoOf(s.plan, path(s.path.Load()), s.lastWr.Load())
}

// Cancel does not cancel: partitions already made ready may be in the receiver's
// buffer, and the round completes normally (MPI_Test_cancelled reports false).
func (s *sendReq) Cancel() {}

// Free releases an inactive send request (MPI_Request_free).
//
// A send freed before its receive's init came stays in the posted queue, freed, so
// that it takes the init it would have matched: the receive the user pairs with it
// (freed too, or never started) must not be matched to the next send.
func (s *sendReq) Free() error {
	reg.mu.Lock()
	delete(reg.sends, s.id)
	if s.matched.Load() {
		delete(reg.byRecv, peerReq{s.w, s.rid})
	} else {
		s.freed = true
	}
	reg.mu.Unlock()
	if s.seg != nil {
		s.seg.close()
	}
	s.release()
	return nil
}

var reported atomic.Bool

// reportOnce says on stderr why a transfer failed (the round's MPI_Wait returns the
// error class).
func reportOnce(err error) {
	if reported.CompareAndSwap(false, true) {
		fmt.Fprintf(os.Stderr, "mpix: partitioned transfer failed: %v\n", err)
	}
}
