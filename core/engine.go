package core

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core/datatype"
	"mpix/transport"
	"mpix/vci"
)

// Engine is one stream of point-to-point communication: the VCI it runs on (its lock,
// the page shared with C, ownership and the global-progress rule), the endpoints it
// sends and polls, its matching queues, and the requests that wait for protocol
// messages. The process has one per VCI.
//
// Protocols (all messages carry a transport.Header):
//   - eager: one message with the packed data; a synchronous send sets FlagSync and
//     completes on the receiver's SyncAck, sent when the message is matched;
//   - rendezvous, for data larger than one transport payload: the sender sends RTS
//     (with its buffer's address when the data is contiguous). A receiver that can read
//     the sender's memory directly (shm's process_vm_readv) copies once and answers Fin;
//     otherwise it answers CTS and the sender streams Data chunks.
type Engine struct {
	*vci.VCI
	self  int                  // this process's world rank
	route []transport.Endpoint // endpoint per world rank
	eps   []transport.Endpoint // distinct endpoints, polled in order
	// failers are the endpoints that can break for good, checked in every progress.
	failers []transport.Failer

	posted     []*Request    // receives waiting for a message, in posting order
	unexpected []*unexpected // messages waiting for a receive, in arrival order
	pending    map[uint64]*Request
	readsFrom  map[int32]bool // peers whose memory process_vm_readv has read (copyTogether)
	nextID     uint64
	outbox     []*outMsg   // sends waiting for transport resources, in order
	scheds     []*schedule // running collectives
	scratch    []byte      // packing space for eager sends of non-contiguous data
	// forwards: thread contexts of threadcomms whose receives run in C, by context
	// id (threadcomm.go: tcForward); nil when there are none.
	forwards map[uint32]*tcForward
	// hdr is the header being sent: a header passed through the Endpoint interface
	// would otherwise escape to the heap on every send.
	hdr transport.Header

	spinLimit  int
	arenaSpins int // spins of a shared-memory collective's wait before it yields
	deliverFn  transport.DeliverFunc
	// polling is set while a transport's Poll runs deliver: replies made then are
	// queued, so no transport is re-entered from its own callback.
	polling bool

	all   []*Engine   // every VCI of the process, for global progress
	trace *protoTrace // MPIX_DEBUG_STUCK: the last protocol messages (stuck.go)
}

// lock takes the VCI's lock; tryLock takes it if it is free.
func (e *Engine) lock()         { e.Lock() }
func (e *Engine) tryLock() bool { return e.TryLock() }

// unlock publishes whether C may bypass the engine, then releases the VCI's lock.
func (e *Engine) unlock() {
	e.publishIdle()
	e.Unlock()
}

// publishIdle tells C's fast path what the engine holds (vci.Shared.Idle).
func (e *Engine) publishIdle() {
	idle := uint32(0)
	if len(e.posted) == 0 && len(e.unexpected) == 0 && len(e.pending) == 0 && len(e.scheds) == 0 {
		idle |= vci.IdleRecv
	}
	if len(e.outbox) == 0 {
		idle |= vci.IdleSend
	}
	e.Shared().Idle = idle
}

// unexpected is a message that arrived before its receive was posted.
type unexpected struct {
	hdr     transport.Header
	payload []byte // eager data (copied); nil for RTS
}

// outMsg is a message the transports could not take yet, or a rendezvous data stream.
type outMsg struct {
	dst     int
	hdr     transport.Header
	payload []byte
	req     *Request // send request completed once an eager message is out
	stream  bool     // Data chunks of req's buffer, from hdr.Offset to req's size
}

// NewEngine makes an engine on a VCI of its own for world rank self that reaches rank
// r through route[r].
func NewEngine(self int, route []transport.Endpoint, spinLimit int) *Engine {
	return newEngine(vci.New(0, spinLimit), self, route, spinLimit)
}

func newEngine(v *vci.VCI, self int, route []transport.Endpoint, spinLimit int) *Engine {
	e := &Engine{VCI: v, self: self, route: route, pending: map[uint64]*Request{}, readsFrom: map[int32]bool{},
		spinLimit: spinLimit}
	seen := map[transport.Endpoint]bool{}
	for _, ep := range route {
		if ep != nil && !seen[ep] {
			seen[ep] = true
			e.eps = append(e.eps, ep)
			if f, ok := ep.(transport.Failer); ok {
				e.failers = append(e.failers, f)
			}
		}
	}
	e.deliverFn = e.deliver
	return e
}

// Close releases the engine's endpoints.
func (e *Engine) Close() error {
	var first error
	for _, ep := range e.eps {
		if err := ep.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (e *Engine) newID() uint64 {
	e.nextID++
	return e.nextID
}

// packedSize is the size in bytes of count elements of t.
func packedSize(count int64, t *datatype.Type) int64 { return count * t.Size() }

// contiguousBytes returns the memory of count elements of t at buf as one slice, when
// the data is contiguous.
func contiguousBytes(buf unsafe.Pointer, count int64, t *datatype.Type) ([]byte, bool) {
	n := packedSize(count, t)
	if n == 0 {
		return nil, true
	}
	if !t.Contiguous() {
		return nil, false
	}
	return unsafe.Slice((*byte)(unsafe.Add(buf, t.TrueLB())), n), true
}

// ---- sending ----

// startSend starts the send of r (under e.mu).
func (e *Engine) startSend(r *Request, dst int) error {
	ep := e.route[dst]
	if ep == nil {
		return Errorf(ErrOther, "no transport reaches rank %d", dst)
	}
	size := packedSize(r.count, r.dtype)
	h := &e.hdr
	ctx, srcEP := r.comm.envelope(r.peer)
	*h = transport.Header{Src: int32(e.self), SrcEP: srcEP, Tag: int32(r.tag), Context: ctx, Size: size}
	if r.comm.peerThread != nil {
		// Threadcomm: thread indices ride in RecvReq, which eager and RTS messages
		// do not otherwise use (threadcomm.go).
		h.RecvReq = r.comm.threadEnvelope(r.peer)
	}
	if size <= int64(ep.MaxPayload()) {
		h.Kind = transport.KindEager
		if r.mode == ModeSync {
			h.Flags |= transport.FlagSync
			r.id = e.newID()
			h.SendReq = r.id
			e.pending[r.id] = r
		}
		payload, contiguous := contiguousBytes(r.buf, r.count, r.dtype)
		if r.scratch != nil {
			payload = r.scratch // buffered send: the packed copy
		} else if !contiguous {
			if cap(e.scratch) < int(size) {
				e.scratch = make([]byte, ep.MaxPayload())
			}
			payload = e.scratch[:size]
			datatype.Pack(payload, r.buf, r.count, r.dtype, 0)
		}
		return e.send(dst, h, payload, r, !contiguous && r.scratch == nil)
	}
	h.Kind = transport.KindRTS
	r.id = e.newID()
	h.SendReq = r.id
	e.pending[r.id] = r
	if data, ok := contiguousBytes(r.buf, r.count, r.dtype); ok && r.scratch == nil {
		h.Offset = int64(uintptr(unsafe.Pointer(&data[0])))
	}
	return e.send(dst, h, nil, nil, false)
}

// send transmits a message now if the transport takes it and nothing is queued ahead
// of it, else queues it. done, if not nil, is a send request that completes once the
// message is out (unless it waits for a SyncAck). copyPayload says payload is engine
// scratch that must be copied before queueing.
func (e *Engine) send(dst int, h *transport.Header, payload []byte, done *Request, copyPayload bool) error {
	if len(e.outbox) == 0 && !e.polling {
		err := e.transmit(dst, h, payload)
		if err == nil {
			if done != nil && h.Flags&transport.FlagSync == 0 {
				done.complete(emptyStatus)
			}
			return nil
		}
		if !errors.Is(err, transport.ErrAgain) {
			return Errorf(ErrOther, "sending to rank %d: %v", dst, err)
		}
	}
	if copyPayload {
		payload = append([]byte(nil), payload...)
	}
	e.outbox = append(e.outbox, &outMsg{dst: dst, hdr: *h, payload: payload, req: done})
	return nil
}

// transmit hands one message to the transport that reaches dst, and records it in the
// protocol trace when MPIX_DEBUG_STUCK keeps one.
func (e *Engine) transmit(dst int, h *transport.Header, payload []byte) error {
	err := e.route[dst].Send(dst, h, payload)
	if e.trace != nil {
		e.noteSend(dst, h, payload, err)
	}
	return err
}

// drainOutbox sends queued messages in order until a transport is full.
func (e *Engine) drainOutbox() {
	for len(e.outbox) > 0 {
		m := e.outbox[0]
		if m.stream {
			if !e.streamData(m) {
				return
			}
		} else {
			if err := e.transmit(m.dst, &m.hdr, m.payload); err != nil {
				if errors.Is(err, transport.ErrAgain) {
					return
				}
				e.failSend(m, err)
			} else if m.req != nil && m.hdr.Flags&transport.FlagSync == 0 {
				m.req.complete(emptyStatus)
			}
		}
		e.outbox[0] = nil
		e.outbox = e.outbox[1:]
	}
}

// streamData sends the Data chunks of a pipelined rendezvous; false when the
// transport is full (the stream resumes from m.hdr.Offset).
func (e *Engine) streamData(m *outMsg) bool {
	r := m.req
	ep := e.route[m.dst]
	size := packedSize(r.count, r.dtype)
	chunk := int64(ep.MaxPayload())
	data, contiguous := contiguousBytes(r.buf, r.count, r.dtype)
	if r.scratch != nil {
		data, contiguous = r.scratch, true
	}
	for m.hdr.Offset < size {
		n := min(chunk, size-m.hdr.Offset)
		var payload []byte
		if contiguous {
			payload = data[m.hdr.Offset : m.hdr.Offset+n]
		} else {
			if cap(e.scratch) < int(n) {
				e.scratch = make([]byte, chunk)
			}
			payload = e.scratch[:n]
			datatype.Pack(payload, r.buf, r.count, r.dtype, m.hdr.Offset)
		}
		if err := e.transmit(m.dst, &m.hdr, payload); err != nil {
			if errors.Is(err, transport.ErrAgain) {
				return false
			}
			e.failSend(m, err)
			return true
		}
		m.hdr.Offset += n
	}
	r.complete(emptyStatus)
	return true
}

// failSend completes a send whose transport failed with MPI_ERR_OTHER.
func (e *Engine) failSend(m *outMsg, err error) {
	if m.req != nil {
		delete(e.pending, m.req.id)
		m.req.complete(Status{Source: AnySource, Tag: AnyTag, Error: ErrOther})
	}
}

// control sends a protocol message without payload.
func (e *Engine) control(dst int, kind transport.Kind, sendReq, recvReq uint64) {
	h := &e.hdr
	*h = transport.Header{Kind: kind, Src: int32(e.self), SendReq: sendReq, RecvReq: recvReq}
	e.send(dst, h, nil, nil, false)
}

// ---- receiving ----

// matches reports whether a posted receive r accepts a message with header h.
func matches(r *Request, h *transport.Header) bool {
	if h.Context != r.comm.ContextID {
		return false
	}
	if r.tag != AnyTag && int32(r.tag) != h.Tag {
		return false
	}
	if r.comm.peerThread != nil && !threadMatch(r, h) {
		return false
	}
	return r.peer == AnySource || int32(r.comm.peers[r.peer]) == h.Src && r.comm.sameEndpoint(r.peer, h)
}

// keepUnexpected keeps the unmatched messages for which keep reports true, in order,
// and drops the others (under e.mu).
func (e *Engine) keepUnexpected(keep func(*unexpected) bool) {
	e.unexpected = keepIn(e.unexpected, keep)
}

// keepIn keeps the elements of s for which keep reports true, in order, in s's own
// storage, and clears the rest of it (no dropped element stays reachable).
func keepIn[T any](s []*T, keep func(*T) bool) []*T {
	kept := s[:0]
	for _, x := range s {
		if keep(x) {
			kept = append(kept, x)
		}
	}
	clear(s[len(kept):])
	return kept
}

// startRecv posts r or matches it with a message that already arrived (under e.mu).
func (e *Engine) startRecv(r *Request) {
	for i, u := range e.unexpected {
		if matches(r, &u.hdr) {
			copy(e.unexpected[i:], e.unexpected[i+1:])
			e.unexpected[len(e.unexpected)-1] = nil
			e.unexpected = e.unexpected[:len(e.unexpected)-1]
			e.matched(r, &u.hdr, u.payload)
			return
		}
	}
	e.posted = append(e.posted, r)
}

// deliver handles one message from a transport (under e.mu, inside Poll).
func (e *Engine) deliver(h *transport.Header, payload []byte) {
	if e.trace != nil {
		e.note('<', int(h.Src), h, len(payload))
	}
	switch h.Kind {
	case transport.KindEager, transport.KindRTS:
		if e.forwards != nil && e.forward(h, payload) {
			return
		}
		if e.Shared().Lite != nil {
			e.absorbLite() // C's posted receives come first (fastlite.go)
		}
		for i, r := range e.posted {
			if matches(r, h) {
				copy(e.posted[i:], e.posted[i+1:])
				e.posted[len(e.posted)-1] = nil
				e.posted = e.posted[:len(e.posted)-1]
				e.matched(r, h, payload)
				return
			}
		}
		u := &unexpected{hdr: *h}
		if h.Kind == transport.KindEager {
			u.payload = append([]byte(nil), payload...)
		}
		e.unexpected = append(e.unexpected, u)
	case transport.KindCoop:
		if r := e.takePending(h.SendReq); r != nil {
			e.writeTail(r, h)
		}
	case transport.KindCoopDone:
		if r := e.takePending(h.RecvReq); r != nil {
			e.tailDone(r, h)
		}
	case transport.KindSyncAck, transport.KindFin:
		r := e.pending[h.SendReq]
		if r == nil {
			return
		}
		if r.fins > 1 { // copied together: the receiver has more to read (writeTail)
			r.fins--
			return
		}
		delete(e.pending, h.SendReq)
		r.complete(emptyStatus)
	case transport.KindCTS:
		if r := e.takePending(h.SendReq); r != nil {
			m := &outMsg{dst: int(h.Src), req: r, stream: true,
				hdr: transport.Header{Kind: transport.KindData, Src: int32(e.self), RecvReq: h.RecvReq}}
			e.outbox = append(e.outbox, m)
		} else if e.trace != nil {
			e.note('x', int(h.Src), h, len(payload))
		}
	case transport.KindData:
		r := e.pending[h.RecvReq]
		if r == nil {
			if e.trace != nil {
				e.note('x', int(h.Src), h, len(payload))
			}
			return
		}
		e.unpackInto(r, payload, h.Offset)
		r.received += int64(len(payload))
		if r.received >= r.msgSize {
			delete(e.pending, r.id)
			r.complete(r.status)
		}
	default:
		if !e.deliverAM(h, payload) && e.trace != nil {
			e.note('x', int(h.Src), h, len(payload))
		}
	}
}

func (e *Engine) takePending(id uint64) *Request {
	r := e.pending[id]
	delete(e.pending, id)
	return r
}

// matched starts the receive of a message into r: eager data is unpacked now;
// rendezvous data is read directly or requested with CTS.
func (e *Engine) matched(r *Request, h *transport.Header, payload []byte) {
	capacity := packedSize(r.count, r.dtype)
	n := min(h.Size, capacity)
	r.msgSize = h.Size
	r.status = Status{Source: r.comm.sourceOf(h), Tag: int(h.Tag), Bytes: n}
	if h.Size > capacity {
		r.status.Error = ErrTruncate
	}
	if h.Kind == transport.KindEager {
		e.unpackInto(r, payload[:n], 0)
		if h.Flags&transport.FlagSync != 0 {
			e.control(int(h.Src), transport.KindSyncAck, h.SendReq, 0)
		}
		r.complete(r.status)
		return
	}
	if h.Offset != 0 && h.Size == n && n >= coopMin && e.copyTogether(r, h) {
		return
	}
	if h.Offset != 0 && e.readDirect(r, h, n) {
		e.control(int(h.Src), transport.KindFin, h.SendReq, 0)
		r.complete(r.status)
		return
	}
	r.id = e.newID()
	r.received = 0
	e.pending[r.id] = r
	e.control(int(h.Src), transport.KindCTS, h.SendReq, r.id)
}

// coopMin is the smallest rendezvous message that sender and receiver copy together:
// below it the extra message costs more than half a copy saves.
const coopMin = 64 << 10

// copyTogether starts the receive of a large message whose sender's buffer is
// readable (h.Offset) and that fits r's contiguous buffer, with both processes
// copying: the receiver reads the head now and asks the sender (KindCoop) to write
// the tail straight into its buffer; r completes on KindCoopDone. Two cores copy at
// once, which roughly doubles bandwidth where one memcpy is the limit (a streaming
// window keeps both busy: the sender writes one message's tail while the receiver
// reads the next one's head). It returns false when the transport cannot write into
// the peer or the head cannot be read; the caller then takes the one-copy path.
func (e *Engine) copyTogether(r *Request, h *transport.Header) bool {
	if _, ok := e.route[h.Src].(transport.Writer); !ok {
		return false
	}
	dst, ok := contiguousBytes(r.buf, r.count, r.dtype)
	if !ok {
		return false
	}
	n := h.Size
	head := n / 2 &^ (4<<10 - 1) // the tail starts on a page boundary of the sender's data when it does
	ep, src := e.route[h.Src], int(h.Src)
	r.id = e.newID()
	r.received = head
	r.tailAddr = uintptr(h.Offset) + uintptr(head)
	coop := transport.Header{Kind: transport.KindCoop, Src: int32(e.self), SendReq: h.SendReq, RecvReq: r.id,
		Offset: int64(uintptr(unsafe.Pointer(&dst[head]))), Size: n - head}
	if e.readsFrom[h.Src] {
		// Reads from this peer have worked: ask for the tail first, so that both copies
		// run at once, and send the request now rather than after the poll (the
		// writing transport, shm, may be called from its own deliver).
		e.pending[r.id] = r
		e.sendFromPoll(src, &coop)
		if ep.ReadFrom(src, uintptr(h.Offset), dst[:head]) != nil {
			r.status.Error = ErrOther // cannot happen once reads worked: the tail still arrives
		}
	} else {
		if ep.ReadFrom(src, uintptr(h.Offset), dst[:head]) != nil {
			return false
		}
		e.readsFrom[h.Src] = true
		e.pending[r.id] = r
		e.sendFromPoll(src, &coop)
	}
	// The head is read: the sender may reuse its buffer once it has also written the
	// tail (it sees this Fin after the KindCoop, which went first).
	fin := transport.Header{Kind: transport.KindFin, Src: int32(e.self), SendReq: h.SendReq}
	e.sendFromPoll(src, &fin)
	return true
}

// sendFromPoll sends a control message of copyTogether now, even from inside a poll
// (shm, the only transport that writes into peers, may be called from its own
// deliver), unless messages are queued ahead of it. Queued until the poll ended, the
// requests of a whole window reached the sender only after the receiver had read
// every head, and the two copies did not overlap.
func (e *Engine) sendFromPoll(dst int, h *transport.Header) {
	if len(e.outbox) > 0 || e.transmit(dst, h, nil) != nil {
		e.send(dst, h, nil, nil, false)
	}
}

// writeTail is the sender's half of copyTogether: it writes the tail of r's data into
// the receiver's buffer. r completes on the receiver's KindFin, which says the head is
// read (the buffer is the user's again only then); when the sender cannot write, the
// receiver reads the tail too and sends a second Fin.
func (e *Engine) writeTail(r *Request, h *transport.Header) {
	done := transport.Header{Kind: transport.KindCoopDone, Src: int32(e.self), SendReq: r.id, RecvReq: h.RecvReq}
	data, _ := contiguousBytes(r.buf, r.count, r.dtype)
	from := int64(len(data)) - h.Size
	w := e.route[h.Src].(transport.Writer)
	e.pending[r.id] = r
	r.fins = 1
	if from < 0 || w.WriteTo(int(h.Src), uintptr(h.Offset), data[from:]) != nil {
		done.Flags = transport.FlagFailed
		r.fins = 2
	}
	e.send(int(h.Src), &done, nil, nil, false)
}

// tailDone finishes a receive copied together: the sender wrote the tail, or failed
// to and the receiver reads it now.
func (e *Engine) tailDone(r *Request, h *transport.Header) {
	if h.Flags&transport.FlagFailed != 0 {
		dst, _ := contiguousBytes(r.buf, r.count, r.dtype)
		if e.route[h.Src].ReadFrom(int(h.Src), r.tailAddr, dst[r.received:r.msgSize]) != nil {
			r.status.Error = ErrOther
		}
		e.control(int(h.Src), transport.KindFin, h.SendReq, 0)
	}
	r.complete(r.status)
}

// readDirect copies n bytes of a rendezvous message straight from the sender's memory.
func (e *Engine) readDirect(r *Request, h *transport.Header, n int64) bool {
	ep := e.route[h.Src]
	if n == 0 {
		return true
	}
	if dst, ok := contiguousBytes(r.buf, r.count, r.dtype); ok {
		return ep.ReadFrom(int(h.Src), uintptr(h.Offset), dst[:n]) == nil
	}
	tmp := make([]byte, n)
	if ep.ReadFrom(int(h.Src), uintptr(h.Offset), tmp) != nil {
		return false
	}
	datatype.Unpack(tmp, r.buf, r.count, r.dtype, 0)
	return true
}

// unpackInto stores data at offset of r's packed stream, dropping what does not fit.
func (e *Engine) unpackInto(r *Request, data []byte, offset int64) {
	capacity := packedSize(r.count, r.dtype)
	if offset >= capacity {
		return
	}
	if int64(len(data)) > capacity-offset {
		data = data[:capacity-offset]
	}
	if len(data) == 0 {
		return
	}
	if dst, ok := contiguousBytes(r.buf, r.count, r.dtype); ok {
		copy(dst[offset:], data)
		return
	}
	datatype.Unpack(data, r.buf, r.count, r.dtype, offset)
}

// ---- progress ----

// progress polls every endpoint once and sends what waits; it returns how many
// messages arrived (under e.mu).
func (e *Engine) progress() int {
	n := 0
	e.polling = true
	for _, ep := range e.eps {
		n += ep.Poll(e.deliverFn)
	}
	e.polling = false
	if len(e.scheds) > 0 {
		e.advanceScheds()
	}
	e.drainOutbox()
	runWatches(e)
	for _, f := range e.failers {
		if err := f.Err(); err != nil {
			transportLost(e.self, err)
		}
	}
	return n
}

// transportLost ends the job when a transport broke: what it was carrying, and every
// answer a wait expects from the peers it reached, will never arrive.
func transportLost(self int, err error) {
	reason := fmt.Sprintf("rank %d lost its connection to other processes (%v)", self, err)
	fmt.Fprintf(os.Stderr, "mpix: %s: ending the job\n", reason)
	AbortWith(1, reason)
}

// Progress makes one round of progress.
func (e *Engine) Progress() int {
	if e.Owned() {
		return e.progress() // only the owning thread gets here
	}
	e.lock()
	defer e.unlock()
	return e.progress()
}

// wait progresses until done reports true: it polls its own VCI and, every
// globalEvery empty polls, every other VCI once (ICS'20 §4.3: an operation on one VCI
// may need another's progress, as in the paper's Figure 9); after spinLimit empty
// polls it yields the processor between polls so that oversubscribed runs keep
// moving. It never sleeps.
func (e *Engine) wait(done func() bool) {
	if done() {
		return
	}
	waitBegin()
	defer waitEnd()
	empty, sinceGlobal := 0, 0
	for !done() {
		if e.poll() > 0 || e.progressServed() > 0 {
			empty, sinceGlobal = 0, 0
			continue
		}
		if sinceGlobal++; e.GlobalDue(sinceGlobal) {
			sinceGlobal = 0
			if e.progressOthers() > 0 {
				empty = 0
				continue
			}
		}
		if empty++; empty%idleEvery == 0 {
			idleTurn()
		}
		if empty >= e.spinLimit || (empty > crowdedPolls && crowded()) {
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
}

// crowdedPolls is how many empty polls a wait makes before it yields when more
// threads wait than the process has cores: enough for a message already on its way.
const crowdedPolls = 16

// poll is a waiting thread's round of progress. When another thread holds the VCI's
// lock, that thread is making progress already, and the waiter checks its request
// again instead of queueing for the lock: with hundreds of threads waiting on one
// VCI (a threadcomm's), queueing on the futex made every wait a convoy.
func (e *Engine) poll() int {
	if e.Owned() {
		return e.progress() // only the owning thread gets here
	}
	if !e.tryLock() {
		return 0
	}
	defer e.unlock()
	return e.progress()
}

// TryProgress is one round of progress on e unless another thread is making it (the
// VCI's lock is taken), for calls many threads make at once that must not queue on
// the lock (MPI_Parrived); now and then it moves the other VCIs too, as MPI_Test does.
func (e *Engine) TryProgress() int {
	n := e.poll()
	if n == 0 {
		e.missed()
	}
	return n
}

// missed is called by an operation that polled only e and is not finished yet: MPI_Test
// or MPI_Iprobe in a loop, an arena wait. Every globalEvery-th such call makes one
// round of progress on every other VCI, as Engine.wait does. Without it, a thread
// testing a request on one VCI never moves a send it already completed on another
// (a rendezvous whose Data a manual-progress provider still holds), and the peer that
// waits for that data never answers the tested request: vci_stress_ofi hung so.
func (e *Engine) missed() {
	if e.Missed() {
		e.progressOthers()
	}
}

// progressOthers makes one round of progress on every other VCI.
func (e *Engine) progressOthers() int {
	n := 0
	for _, o := range e.all {
		if o != e {
			n += o.progressShared()
		}
	}
	return n
}
