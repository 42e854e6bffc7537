package part

import (
	"encoding/binary"
	"sync"

	"mpix/core"
	"mpix/transport"
)

// Protocol messages are active messages of kind transport.KindPart; the first payload
// byte says which. Header fields: Context the communicator's context, Tag the user
// tag (init), RecvReq the receive request's id, SendReq the send request's id (ack),
// Size a side's total bytes (init, ack).
const (
	opInit = 1 + iota // receiver -> sender: [op, rparts u32, addr u64, nkeys, nkeys x (stream u16, keylen u32, key...), landing page path...]
	opAck             // sender -> receiver: [op, sparts u32, groups u32, path, strategy, qps, delta u32]
	opCTS             // receiver -> sender: [op, round u32]: round's buffer is ready
	opData            // sender -> receiver (am path): [op, first u32, n u32, last, off u64, bytes...]
)

func init() {
	core.RegisterAM(transport.KindPart, handle)
	core.RegisterAM(transport.KindWriteData, handleWriteData)
}

// peerReq names a request of another process: its world rank and its id there.
type peerReq struct {
	w  int
	id uint32
}

// initMsg is a receive's init as the sender keeps it until a Psend_init matches it.
type initMsg struct {
	from   int // world rank
	ctx    uint32
	tag    int
	rid    uint32
	total  int64
	rparts int
	addr   uint64
	keys   []netKey // registrations of the receive buffer, per stream
	page   string   // the receiver's landing page (a node peer), or ""
	cts    uint32   // the latest round the receiver said it is ready for
}

// The process's partitioned requests. mu guards the maps and queues; it is never held
// while calling into the engine.
var reg = struct {
	mu     sync.Mutex
	next   uint32
	sends  map[uint32]*sendReq
	recvs  map[uint32]*recvReq
	posted []*sendReq           // sends not matched yet, in posting order
	early  []*initMsg           // inits no Psend_init has matched yet, in arrival order
	byRecv map[peerReq]*sendReq // matched sends by their receive
}{sends: map[uint32]*sendReq{}, recvs: map[uint32]*recvReq{}, byRecv: map[peerReq]*sendReq{}}

// newID returns an id not in use (under reg.mu); 0 is never one.
func newID() uint32 {
	for {
		reg.next++
		id := reg.next
		if id == 0 {
			continue
		}
		if reg.sends[id] == nil && reg.recvs[id] == nil {
			return id
		}
	}
}

func lookupRecv(id uint32) *recvReq {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.recvs[id]
}

// handle is the KindPart handler (inside the engine's progress, under its lock).
func handle(e *core.Engine, h *transport.Header, p []byte) {
	if len(p) < 1 {
		return
	}
	switch p[0] {
	case opInit:
		handleInit(e, h, p)
	case opAck:
		if r := lookupRecv(uint32(h.RecvReq)); r != nil {
			r.acked(h, p)
		}
	case opCTS:
		if len(p) < 5 {
			return
		}
		round := binary.LittleEndian.Uint32(p[1:])
		reg.mu.Lock()
		s := reg.byRecv[peerReq{int(h.Src), uint32(h.RecvReq)}]
		if s == nil {
			for _, m := range reg.early {
				if m.from == int(h.Src) && m.rid == uint32(h.RecvReq) && round > m.cts {
					m.cts = round
				}
			}
		}
		reg.mu.Unlock()
		if s != nil {
			s.clearToSend(round)
			if e == s.eng {
				s.drainHeld(e) // what waited for this round leaves now, whatever the sender's threads do
			}
		}
	case opData:
		if r := lookupRecv(uint32(h.RecvReq)); r != nil {
			r.data(p)
		}
	}
}

// handleInit matches an arrived init to the oldest unmatched send it fits, or keeps it.
func handleInit(e *core.Engine, h *transport.Header, p []byte) {
	if len(p) < 14 {
		return
	}
	m := &initMsg{from: int(h.Src), ctx: h.Context, tag: int(h.Tag), rid: uint32(h.RecvReq), total: h.Size,
		rparts: int(binary.LittleEndian.Uint32(p[1:])), addr: binary.LittleEndian.Uint64(p[5:])}
	if m.total < 0 || m.rparts < 1 {
		return // malformed: nothing is matched to it
	}
	n, q := int(p[13]), p[14:]
	for i := 0; i < n; i++ {
		if len(q) < 6 {
			return
		}
		stream, klen := int(binary.LittleEndian.Uint16(q)), binary.LittleEndian.Uint32(q[2:])
		if uint64(klen) > uint64(len(q)-6) {
			return
		}
		m.keys = append(m.keys, netKey{stream: stream, key: append([]byte(nil), q[6:6+klen]...)})
		q = q[6+klen:]
	}
	m.page = string(q)
	reg.mu.Lock()
	var s *sendReq
	for i, c := range reg.posted {
		if c.fits(m) {
			s = c
			reg.posted = append(reg.posted[:i], reg.posted[i+1:]...)
			reg.byRecv[peerReq{m.from, m.rid}] = s
			break
		}
	}
	if s == nil {
		reg.early = append(reg.early, m)
	}
	if s != nil && s.freed {
		delete(reg.byRecv, peerReq{m.from, m.rid})
		s = nil // the pair was freed unused on this side
	}
	reg.mu.Unlock()
	if s != nil {
		ack := s.match(m)
		e.Reply(m.from, &ack.hdr, ack.payload)
	}
}

// takeEarly removes and returns the oldest kept init that s fits (under reg.mu).
func takeEarly(s *sendReq) *initMsg {
	for i, m := range reg.early {
		if s.fits(m) {
			reg.early = append(reg.early[:i], reg.early[i+1:]...)
			reg.byRecv[peerReq{m.from, m.rid}] = s
			return m
		}
	}
	return nil
}

// handleWriteData takes the data of a write that landed here (ofi path).
func handleWriteData(e *core.Engine, h *transport.Header, _ []byte) {
	d := uint64(h.Offset)
	r := lookupRecv(uint32(d >> 32))
	if r == nil {
		return // a write for a request freed since, or not ours: nothing to mark
	}
	r.wrote(uint32(d))
}

// message is a protocol message to send.
type message struct {
	hdr     transport.Header
	payload []byte
}

func u32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func u64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// netKey is a registration of a receive buffer on one stream (VCI): which one, counted
// from the communicator's, and the key a peer's writes through that stream name.
type netKey struct {
	stream int
	key    []byte
	eng    *core.Engine // the receiver's, or the sender's stream that uses the key
	reg    any          // the receiver's registration
}

// maxStreams bounds the streams one request spreads its writes over.
const maxStreams = 8

// register registers the receive buffer on the communicator's stream and the next
// ones not owned by a single thread, so that a sender may spread its transport
// partitions over as many network contexts as its plan asks ([PA] §IV-A's QPs).
func (r *recvReq) register() {
	for j := 0; j < min(maxStreams, r.eng.Streams()); j++ {
		e, ok := r.eng.Stream(j)
		if !ok || !e.RemoteTo(r.w) {
			continue
		}
		key, rg, err := e.RegisterRemote(r.base, r.total)
		if err != nil {
			continue
		}
		r.nets = append(r.nets, netKey{stream: j, key: key, eng: e, reg: rg})
	}
}
