package core

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"mpix/core/datatype"
	"mpix/transport"
)

// memNet is an in-process transport joining several engines: per-destination FIFO
// queues with a capacity (to exercise ErrAgain and the outbox), a small payload limit
// (to exercise rendezvous and chunking) and optional single-copy reads.
type memNet struct {
	mu         sync.Mutex
	queues     [][]memMsg
	capacity   int
	maxPayload int
	singleCopy bool
}

type memMsg struct {
	h       transport.Header
	payload []byte
}

type memEP struct {
	net  *memNet
	rank int
}

func (e *memEP) Send(dst int, h *transport.Header, payload []byte) error {
	n := e.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(payload) > n.maxPayload {
		return fmt.Errorf("payload %d > %d", len(payload), n.maxPayload)
	}
	if len(n.queues[dst]) >= n.capacity {
		return transport.ErrAgain
	}
	n.queues[dst] = append(n.queues[dst], memMsg{*h, append([]byte(nil), payload...)})
	return nil
}

func (e *memEP) Poll(deliver transport.DeliverFunc) int {
	n := e.net
	n.mu.Lock()
	q := n.queues[e.rank]
	n.queues[e.rank] = nil
	n.mu.Unlock()
	for i := range q {
		deliver(&q[i].h, q[i].payload)
	}
	return len(q)
}

// ReadFrom copies from the "peer" (this same process) at addr, as process_vm_readv
// would; checkptr cannot see that addr stays alive (the sender's request holds it).
//
//go:nocheckptr
func (e *memEP) ReadFrom(peer int, addr uintptr, dst []byte) error {
	if !e.net.singleCopy {
		return transport.ErrNoSingleCopy
	}
	src := *(*unsafe.Pointer)(unsafe.Pointer(&addr)) // an address in this same process
	copy(dst, unsafe.Slice((*byte)(src), len(dst)))
	return nil
}

func (e *memEP) MaxPayload() int      { return e.net.maxPayload }
func (e *memEP) Reaches(dst int) bool { return dst < len(e.net.queues) }
func (e *memEP) Close() error         { return nil }

// world builds n engines over one memNet, each with its MPI_COMM_WORLD-like comm.
func world(n, capacity, maxPayload int, singleCopy bool) []*Comm {
	net := &memNet{queues: make([][]memMsg, n), capacity: capacity, maxPayload: maxPayload, singleCopy: singleCopy}
	comms := make([]*Comm, n)
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i
	}
	for r := range comms {
		route := make([]transport.Endpoint, n)
		ep := &memEP{net: net, rank: r}
		for i := range route {
			route[i] = ep
		}
		comms[r] = &Comm{ContextID: 7}
		comms[r].init(r, NewGroup(ranks), nil, NewEngine(r, route, 10))
	}
	return comms
}

func testByteType(t *testing.T) *datatype.Type {
	bt, err := datatype.Lookup(0x4c00010d) // MPI_BYTE
	require.NoError(t, err)
	return bt
}

func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + seed)
	}
	return b
}

func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// waitBoth progresses both sides until r completes (one Go thread drives two
// "processes").
func waitBoth(comms []*Comm, r *Request) Status {
	for !r.Done() {
		for _, c := range comms {
			c.eng.Progress()
		}
	}
	return r.status
}

func TestSendRecvProtocols(t *testing.T) {
	bt := testByteType(t)
	tests := []struct {
		name       string
		size       int
		recvCap    int
		mode       SendMode
		singleCopy bool
		capacity   int
		wantErr    int
	}{
		{"zero bytes", 0, 0, ModeStandard, false, 64, 0},
		{"eager", 40, 40, ModeStandard, false, 64, 0},
		{"eager sync", 40, 40, ModeSync, false, 64, 0},
		{"rendezvous pipelined", 1000, 1000, ModeStandard, false, 64, 0},
		{"rendezvous single copy", 1000, 1000, ModeStandard, true, 64, 0},
		{"rendezvous sync", 1000, 1000, ModeSync, false, 64, 0},
		{"rendezvous with full queues", 5000, 5000, ModeStandard, false, 2, 0},
		{"eager truncated", 40, 10, ModeStandard, false, 64, ErrTruncate},
		{"rendezvous truncated", 1000, 300, ModeStandard, false, 64, ErrTruncate},
		{"single copy truncated", 1000, 300, ModeStandard, true, 64, ErrTruncate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			comms := world(2, tc.capacity, 64, tc.singleCopy)
			src := pattern(tc.size, 3)
			dst := make([]byte, tc.recvCap)
			s, err := Isend(ptr(src), int64(len(src)), bt, 1, 5, comms[0], tc.mode)
			require.NoError(t, err)
			r, err := Irecv(ptr(dst), int64(len(dst)), bt, 0, 5, comms[1])
			require.NoError(t, err)
			st := waitBoth(comms, r)
			waitBoth(comms, s)
			require.Equal(t, tc.wantErr, st.Error)
			require.Equal(t, 0, st.Source)
			require.Equal(t, 5, st.Tag)
			n := min(tc.size, tc.recvCap)
			require.Equal(t, int64(n), st.Bytes)
			require.Equal(t, src[:n], dst[:n])
		})
	}
}

// A synchronous send completes only after the receive matched it.
func TestSsendWaitsForMatch(t *testing.T) {
	bt := testByteType(t)
	comms := world(2, 64, 64, false)
	buf := pattern(8, 1)
	s, err := Isend(ptr(buf), 8, bt, 1, 0, comms[0], ModeSync)
	require.NoError(t, err)
	for i := 0; i < 100; i++ {
		comms[0].eng.Progress()
		comms[1].eng.Progress()
	}
	require.False(t, s.Done(), "Ssend completed before a receive was posted")
	dst := make([]byte, 8)
	r, _ := Irecv(ptr(dst), 8, bt, 0, 0, comms[1])
	waitBoth(comms, r)
	waitBoth(comms, s)
	require.Equal(t, buf, dst)
}

// Messages between a pair never overtake each other within (communicator, tag), and
// wildcards match in arrival order.
func TestNonOvertakingAndWildcards(t *testing.T) {
	bt := testByteType(t)
	comms := world(3, 1000, 64, false)
	const n = 50
	var sends []*Request
	for i := 0; i < n; i++ {
		for src := 0; src < 2; src++ {
			b := []byte{byte(src), byte(i)}
			s, err := Isend(ptr(b), 2, bt, 2, i%3, comms[src], ModeStandard)
			require.NoError(t, err)
			sends = append(sends, s)
		}
	}
	next := [2]int{}
	for k := 0; k < 2*n; k++ {
		got := make([]byte, 2)
		tag := AnyTag
		if k%2 == 0 {
			tag = AnyTag
		}
		r, err := Irecv(ptr(got), 2, bt, AnySource, tag, comms[2])
		require.NoError(t, err)
		st := waitBoth(comms, r)
		src := int(got[0])
		require.Equal(t, src, st.Source)
		require.Equal(t, next[src], int(got[1]), "message from %d overtaken", src)
		require.Equal(t, next[src]%3, st.Tag)
		next[src]++
	}
	for _, s := range sends {
		waitBoth(comms, s)
	}
}

func TestProbeMprobeCancel(t *testing.T) {
	bt := testByteType(t)
	comms := world(2, 64, 64, false)
	engine = comms[1].eng // Probe/Mprobe progress the engine of the communicator
	found, _, err := Iprobe(0, 9, comms[1])
	require.NoError(t, err)
	require.False(t, found)
	b := pattern(30, 2)
	s, _ := Isend(ptr(b), 30, bt, 1, 9, comms[0], ModeStandard)
	waitBoth(comms, s)
	found, st, err := Iprobe(AnySource, AnyTag, comms[1])
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, Status{Source: 0, Tag: 9, Bytes: 30}, st)
	m, st2, err := Mprobe(0, 9, comms[1])
	require.NoError(t, err)
	require.Equal(t, st, st2)
	found, _, _ = Iprobe(AnySource, AnyTag, comms[1])
	require.False(t, found, "a message taken by Mprobe is still probeable")
	got := make([]byte, 30)
	r, err := Imrecv(ptr(got), 30, bt, m)
	require.NoError(t, err)
	waitBoth(comms, r)
	require.Equal(t, b, got)

	c, _ := Irecv(ptr(got), 30, bt, 0, 1, comms[1])
	Cancel(c)
	require.True(t, c.Done())
	require.True(t, c.status.Cancelled)
}

func TestProcNull(t *testing.T) {
	bt := testByteType(t)
	comms := world(2, 64, 64, false)
	s, err := Isend(nil, 10, bt, ProcNull, 0, comms[0], ModeStandard)
	require.NoError(t, err)
	require.True(t, s.Done())
	r, err := Irecv(nil, 10, bt, ProcNull, 0, comms[0])
	require.NoError(t, err)
	require.True(t, r.Done())
	require.Equal(t, procNullStatus, r.status)
}

func TestArgumentErrors(t *testing.T) {
	bt := testByteType(t)
	comms := world(2, 64, 64, false)
	_, err := Isend(nil, 1, bt, 2, 0, comms[0], ModeStandard)
	require.Equal(t, ErrRank, AsError(err).Class)
	_, err = Isend(nil, 1, bt, 1, -1, comms[0], ModeStandard)
	require.Equal(t, ErrTag, AsError(err).Class)
	_, err = Isend(nil, 1, bt, AnySource, 0, comms[0], ModeStandard)
	require.Equal(t, ErrRank, AsError(err).Class)
	_, err = Irecv(nil, 1, bt, 0, -7, comms[0])
	require.Equal(t, ErrTag, AsError(err).Class)
}

// Concurrent senders and receivers on two engines, checked data, under -race.
func TestConcurrentTraffic(t *testing.T) {
	bt := testByteType(t)
	comms := world(2, 16, 64, true)
	const threads, msgs = 4, 200
	var wg sync.WaitGroup
	for th := 0; th < threads; th++ {
		wg.Add(2)
		go func(th int) {
			defer wg.Done()
			for i := 0; i < msgs; i++ {
				b := pattern(10+i%200, th*1000+i)
				s, err := Isend(ptr(b), int64(len(b)), bt, 1, th, comms[0], ModeStandard)
				if err != nil {
					t.Error(err)
					return
				}
				comms[0].eng.wait(s.Done)
			}
		}(th)
		go func(th int) {
			defer wg.Done()
			for i := 0; i < msgs; i++ {
				want := pattern(10+i%200, th*1000+i)
				got := make([]byte, 300)
				r, err := Irecv(ptr(got), 300, bt, 0, th, comms[1])
				if err != nil {
					t.Error(err)
					return
				}
				comms[1].eng.wait(r.Done)
				if string(got[:len(want)]) != string(want) || r.status.Bytes != int64(len(want)) {
					t.Errorf("thread %d message %d corrupted", th, i)
					return
				}
			}
		}(th)
	}
	wg.Wait()
}

// BenchmarkEagerSendRecv measures the engine's own cost of one 8-byte message (a
// blocking send on one engine, a blocking receive on the other) over the in-memory
// transport, i.e. everything but the fabric and the C boundary.
func BenchmarkEagerSendRecv(b *testing.B) {
	bt, err := datatype.Lookup(0x4c00010d)
	if err != nil {
		b.Fatal(err)
	}
	comms := world(2, 1<<20, 64, false)
	src, dst := make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := Send(ptr(src), 8, bt, 1, 0, comms[0], ModeStandard); err != nil {
			b.Fatal(err)
		}
		if _, err := Recv(ptr(dst), 8, bt, 0, 0, comms[1]); err != nil {
			b.Fatal(err)
		}
	}
}

// memWriterEP is a memEP that can also write into the peer (process_vm_writev), or
// fails to when writeFails is set.
type memWriterEP struct {
	memEP
	writeFails bool
	writes     int
}

//go:nocheckptr
func (e *memWriterEP) WriteTo(peer int, addr uintptr, src []byte) error {
	if e.writeFails {
		return transport.ErrNoSingleCopy
	}
	e.writes++
	dst := *(*unsafe.Pointer)(unsafe.Pointer(&addr)) // an address in this same process
	copy(unsafe.Slice((*byte)(dst), len(src)), src)
	return nil
}

// Large messages are copied by both sides (KindCoop): the receiver reads the head,
// the sender writes the tail; when the sender cannot write, the receiver reads the
// tail too. Below coopMin, and into a smaller buffer, the receiver copies alone.
func TestCopyTogether(t *testing.T) {
	bt := testByteType(t)
	tests := []struct {
		name       string
		size, cap  int
		mode       SendMode
		writeFails bool
		wantWrites int
		wantErr    int
	}{
		{"both copy", 3*coopMin + 5, 3*coopMin + 5, ModeStandard, false, 1, 0},
		{"both copy, synchronous", coopMin, coopMin, ModeSync, false, 1, 0},
		{"sender cannot write", 2 * coopMin, 2 * coopMin, ModeStandard, true, 0, 0},
		{"below the threshold", coopMin - 1, coopMin, ModeStandard, false, 0, 0},
		{"truncated: receiver alone", 2 * coopMin, coopMin + 3, ModeStandard, false, 0, ErrTruncate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			net := &memNet{queues: make([][]memMsg, 2), capacity: 64, maxPayload: 64, singleCopy: true}
			comms := make([]*Comm, 2)
			eps := make([]*memWriterEP, 2)
			for r := range comms {
				eps[r] = &memWriterEP{memEP: memEP{net: net, rank: r}, writeFails: tc.writeFails}
				route := []transport.Endpoint{eps[r], eps[r]}
				comms[r] = &Comm{ContextID: 7}
				comms[r].init(r, NewGroup([]int{0, 1}), nil, NewEngine(r, route, 10))
			}
			// The first message finds out that reads work (head first, then the
			// request for the tail); the second asks for the tail first.
			for round := 1; round <= 2; round++ {
				src := pattern(tc.size, 5+round)
				dst := make([]byte, tc.cap)
				s, err := Isend(ptr(src), int64(len(src)), bt, 1, 9, comms[0], tc.mode)
				require.NoError(t, err)
				r, err := Irecv(ptr(dst), int64(len(dst)), bt, 0, 9, comms[1])
				require.NoError(t, err)
				st := waitBoth(comms, r)
				waitBoth(comms, s)
				require.Equal(t, tc.wantErr, st.Error)
				n := min(tc.size, tc.cap)
				require.Equal(t, int64(n), st.Bytes)
				require.Equal(t, src[:n], dst[:n], "round %d", round)
				require.Equal(t, tc.wantWrites*round, eps[0].writes)
			}
			for _, c := range comms {
				require.Empty(t, c.eng.pending, "requests left pending")
			}
		})
	}
}

// A loop of MPI_Test (or MPI_Iprobe) on one VCI polls only that VCI, but every
// globalEvery-th unfinished call makes a round on the others, so a message that only
// another VCI's progress delivers still arrives (the ICS'20 Figure 9 situation with a
// test loop in place of the wait); with the interval off it never does.
func TestTestLoopMakesGlobalProgress(t *testing.T) {
	bt := testByteType(t)
	tests := []struct {
		name        string
		globalEvery int
		wantWithin  int // Test calls on VCI a until VCI b's receive completes; 0: never
	}{
		{"every call", 1, 1},
		{"every fourth call", 4, 4},
		{"never", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := world(2, 64, 64, false), world(2, 64, 64, false) // two VCIs per rank
			all := []*Engine{a[1].eng, b[1].eng}
			for _, e := range all {
				e.all = all
				e.SetGlobalProgress(tc.globalEvery, len(all))
			}
			// Rank 1 tests a receive on VCI a that nothing answers, while a message for
			// its receive on VCI b sits in VCI b's transport.
			idle, err := Irecv(ptr(make([]byte, 8)), 8, bt, 0, 1, a[1])
			require.NoError(t, err)
			got := make([]byte, 8)
			r, err := Irecv(ptr(got), 8, bt, 0, 2, b[1])
			require.NoError(t, err)
			s, err := Isend(ptr(pattern(8, 5)), 8, bt, 1, 2, b[0], ModeStandard)
			require.NoError(t, err)
			require.True(t, s.Done())
			calls := 0
			for calls < 100 && !r.Done() {
				done, _ := Test(idle)
				require.False(t, done)
				calls++
			}
			if tc.wantWithin == 0 {
				require.False(t, r.Done(), "VCI b progressed without global progress")
				return
			}
			require.True(t, r.Done())
			require.LessOrEqual(t, calls, tc.wantWithin)
			require.Equal(t, pattern(8, 5), got)
		})
	}
}
