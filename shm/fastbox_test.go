package shm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"mpix/transport"
)

func TestFastboxLayout(t *testing.T) {
	if s := unsafe.Sizeof(fastbox{}); s != fbHeaderSize {
		t.Errorf("fastbox header is %d bytes, want %d", s, fbHeaderSize)
	}
	if s := unsafe.Sizeof(cellHead{}); s != cellHeaderSize {
		t.Errorf("cell header is %d bytes, want %d", s, cellHeaderSize)
	}
	if o := unsafe.Offsetof(cellHead{}.seq); o%8 != 0 {
		t.Errorf("cell sequence number at offset %d", o)
	}
	// 64 local ranks with the defaults: the fastboxes add 64 x 1088 bytes.
	with, err := newGeometry(64, DefaultCellSize, DefaultCells, DefaultFastbox)
	if err != nil {
		t.Fatal(err)
	}
	without, _ := newGeometry(64, DefaultCellSize, DefaultCells, 0)
	if d := with.size - without.size; d < 64*(fbHeaderSize+DefaultFastbox) || d > 64*(fbHeaderSize+DefaultFastbox)+pageSize {
		t.Errorf("fastboxes of 64 ranks take %d bytes", d)
	}
	if with.fbOff%cacheLine != 0 || with.fbStride%cacheLine != 0 || with.cellsOff%pageSize != 0 {
		t.Errorf("misaligned layout %+v", with)
	}
	// A fastbox never holds more than a cell.
	if g, _ := newGeometry(2, 100, 4, 1000); g.fbCap != 100 {
		t.Errorf("fastbox of %d bytes for 100-byte cells", g.fbCap)
	}
}

// recorder collects delivered messages as "tag:len" and checks their payloads (every
// byte is the tag).
type recorder struct {
	t   *testing.T
	got []string
}

func (r *recorder) deliver(h *transport.Header, p []byte) {
	for _, b := range p {
		if b != byte(h.Tag) {
			r.t.Errorf("message %d: payload byte %d", h.Tag, b)
			break
		}
	}
	r.got = append(r.got, fmt.Sprintf("%d:%d", h.Tag, len(p)))
}

func (r *recorder) take() string {
	s := strings.Join(r.got, " ")
	r.got = r.got[:0]
	return s
}

func sendTag(t *testing.T, e *Endpoint, dst, tag, size int) {
	t.Helper()
	p := make([]byte, size)
	for i := range p {
		p[i] = byte(tag)
	}
	if err := e.Send(dst, &transport.Header{Kind: transport.KindEager, Src: int32(e.cfg.Rank), Tag: int32(tag)}, p); err != nil {
		t.Fatalf("send %d: %v", tag, err)
	}
}

// fbState returns the flag of sender s's fastbox at e.
func fbState(e *Endpoint, s int) uint64 { return e.own.fastbox(s).flag }

// TestFastboxOrder drives both ways in which the fastbox and the queue get out of
// step and checks that messages still arrive in send order.
func TestFastboxOrder(t *testing.T) {
	for _, nk := range nodeKinds {
		t.Run(nk.name, func(t *testing.T) {
			const fb = 16
			eps := nk.make(t, 2, 64, 8, fb)
			a, b := eps[0], eps[1]
			rec := &recorder{t: t}

			// Busy fastbox: 0 takes it, 1 and 2 fall back to the queue. The queue,
			// polled first, is ahead of the fastbox: 0 must come out first.
			sendTag(t, a, 1, 0, 8)
			sendTag(t, a, 1, 1, 8)
			sendTag(t, a, 1, 2, fb+1) // too large for the fastbox anyway
			if a.stats.fastbox != 1 || a.stats.queued != 2 {
				t.Fatalf("stats %+v, want 1 fastbox and 2 queued", a.stats)
			}
			if n := b.pollQueue(rec.deliver); n != 3 || rec.take() != "0:8 1:8 2:17" {
				t.Fatalf("pollQueue = %d %v", n, rec.got)
			}
			if fbState(b, 0) != 0 || b.stats.queueAhead != 1 {
				t.Fatalf("fastbox flag %d, stats %+v", fbState(b, 0), b.stats)
			}

			// Fastbox ahead: 3 through the fastbox, 4 queued behind it; the fastbox
			// alone is drained, 5 takes it again while 4 is still queued.
			sendTag(t, a, 1, 3, fb)
			sendTag(t, a, 1, 4, 0)
			if n := b.pollFastboxes(rec.deliver); n != 1 || rec.take() != "3:16" {
				t.Fatalf("pollFastboxes = %d %v", n, rec.got)
			}
			sendTag(t, a, 1, 5, 1)
			sendTag(t, a, 1, 6, fb*2)
			sendTag(t, a, 1, 7, 2)
			if n := b.pollFastboxes(rec.deliver); n != 0 || len(rec.got) != 0 {
				t.Fatalf("fastbox ahead of the queue delivered: %d %v", n, rec.got)
			}
			if n := b.Poll(rec.deliver); n != 4 || rec.take() != "4:0 5:1 6:32 7:2" {
				t.Fatalf("Poll = %d %v", n, rec.got)
			}
			if b.stats.fbAhead != 1 {
				t.Fatalf("stats %+v", b.stats)
			}

			// Back to normal: an empty fastbox takes the next small message.
			sendTag(t, a, 1, 8, 3)
			if a.stats.fastbox != 4 { // 0, 3, 5, 8
				t.Fatalf("stats %+v, want 4 fastbox sends", a.stats)
			}
			if n := b.Poll(rec.deliver); n != 1 || rec.take() != "8:3" || b.Err() != nil || a.Err() != nil {
				t.Fatalf("Poll = %d %v, Err %v %v", n, rec.got, b.Err(), a.Err())
			}
		})
	}
}

// TestFastboxSelfAndPeer: self-sends use the queue and interleave correctly with a
// peer's fastbox and queue messages.
func TestFastboxSelfAndPeer(t *testing.T) {
	eps := heapNode(t, 2, 64, 8, 32)
	a, b := eps[0], eps[1]
	for i := 0; i < 5; i++ {
		sendTag(t, a, 1, i, 4)
		sendTag(t, b, 1, 100+i, 4)
	}
	if b.stats.fastbox != 0 {
		t.Fatalf("a self-send went through a fastbox: %+v", b.stats)
	}
	next := map[int32]int32{0: 0, 1: 100}
	n := b.Poll(func(h *transport.Header, p []byte) {
		if h.Tag != next[h.Src] {
			t.Errorf("from %d: tag %d, want %d", h.Src, h.Tag, next[h.Src])
		}
		next[h.Src]++
	})
	if n != 10 || b.Err() != nil {
		t.Fatalf("Poll = %d, Err %v", n, b.Err())
	}
}

// TestFastboxProducers: several producers send a random mix of fastbox-sized and
// larger messages to one slow consumer (it sometimes drains only the fastboxes or
// only the queue, and sleeps); every sender's messages arrive in order and intact.
func TestFastboxProducers(t *testing.T) {
	per := 3000
	if raceEnabled || testing.Short() {
		per = 800
	}
	for _, nk := range nodeKinds {
		t.Run(nk.name, func(t *testing.T) {
			const ranks, cs, fb = 5, 256, 32
			eps := nk.make(t, ranks, cs, 4, fb)
			deadline := time.Now().Add(2 * time.Minute)
			var wg sync.WaitGroup
			errs := make([]error, ranks)
			size := func(src, k int) int {
				x := uint64(src)*0x9e3779b97f4a7c15 ^ uint64(k)*0xbf58476d1ce4e5b9
				x ^= x >> 29
				switch x % 4 {
				case 0:
					return int(x>>8) % (fb + 1)
				case 1:
					return fb + 1 + int(x>>8)%(cs-fb)
				default:
					return int(x>>8) % 9
				}
			}
			for src := 1; src < ranks; src++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					e := eps[src]
					buf := make([]byte, cs)
					for k := 0; k < per; {
						p := buf[:size(src, k)]
						fill(p, src, 0, k)
						h := transport.Header{Kind: transport.KindEager, Src: int32(src), Tag: int32(k), Size: int64(len(p))}
						err := e.Send(0, &h, p)
						if errors.Is(err, transport.ErrAgain) {
							if time.Now().After(deadline) {
								errs[src] = errors.New("timed out sending")
								return
							}
							backoff(1)
							continue
						}
						if err != nil {
							errs[src] = err
							return
						}
						k++
					}
				}()
			}
			next := make([]int, ranks)
			want := make([]byte, cs)
			var bad error
			deliver := func(h *transport.Header, p []byte) {
				src, k := int(h.Src), int(h.Tag)
				if bad != nil {
					return
				}
				if src < 1 || src >= ranks || k != next[src] || len(p) != size(src, k) {
					bad = fmt.Errorf("from %d: message %d (%d bytes), want %d (%d bytes)", src, k, len(p), next[src], size(src, next[src]))
					return
				}
				fill(want[:len(p)], src, 0, k)
				if string(want[:len(p)]) != string(p) {
					bad = fmt.Errorf("from %d: message %d differs", src, k)
				}
				next[src]++
			}
			rng := rand.New(rand.NewPCG(1, 2))
			r := eps[0]
			for total := 0; total < (ranks-1)*per && bad == nil; {
				switch rng.IntN(8) {
				case 0:
					total += r.pollFastboxes(deliver)
				case 1:
					total += r.pollQueue(deliver)
				case 2:
					time.Sleep(time.Duration(rng.IntN(20)) * time.Microsecond)
				default:
					total += r.Poll(deliver)
				}
				if time.Now().After(deadline) {
					t.Fatalf("timed out: next %v", next)
				}
			}
			wg.Wait()
			if err := errors.Join(append(errs, bad, r.Err())...); err != nil {
				t.Fatal(err)
			}
			var st stats
			for _, e := range eps {
				st.fastbox += e.stats.fastbox
				st.queued += e.stats.queued
			}
			t.Logf("sent %+v, receiver %+v", st, r.stats)
			if st.fastbox == 0 || r.stats.fbAhead == 0 {
				t.Errorf("fastbox paths not exercised: %+v %+v", st, r.stats)
			}
		})
	}
}

// TestCorruptFastbox: a fastbox flag with a number behind, a length beyond the
// fastbox, or a number far ahead is reported or ignored: Poll neither panics nor
// delivers garbage, and the good messages still arrive.
func TestCorruptFastbox(t *testing.T) {
	for _, nk := range nodeKinds {
		t.Run(nk.name, func(t *testing.T) {
			eps := nk.make(t, 3, 64, 4, 16)
			a, r := eps[0], eps[2]
			rec := &recorder{t: t}
			sendTag(t, a, 2, 0, 4)
			if n := r.Poll(rec.deliver); n != 1 {
				t.Fatalf("Poll = %d", n)
			}
			// Behind: number 0 again.
			fb := r.own.fastbox(0)
			fb.len = 4
			fb.flag = 1
			if n := r.Poll(rec.deliver); n != 0 || r.Err() == nil || !strings.Contains(r.Err().Error(), "stale") {
				t.Fatalf("Poll = %d, Err %v; want 0 and a stale number", n, r.Err())
			}
			if fb.flag != 0 {
				t.Fatal("stale fastbox not emptied")
			}
			// A length beyond the fastbox in the next message from a.
			sendTag(t, a, 2, 1, 4)
			fb.len = 1 << 31
			sendTag(t, a, 2, 2, 4) // queued behind it
			if n := r.Poll(rec.deliver); n != 1 || rec.take() != "0:4 2:4" {
				t.Fatalf("Poll = %d %v", n, rec.got)
			}
			// Far ahead, from rank 1 that never sent: never delivered; rank 1's real
			// messages go through the queue, in order.
			fb1 := r.own.fastbox(1)
			fb1.len = 8
			fb1.flag = 1 << 40
			for i := 0; i < 3; i++ {
				sendTag(t, eps[1], 2, 10+i, 4)
			}
			if n := r.Poll(rec.deliver); n != 3 || rec.take() != "10:4 11:4 12:4" {
				t.Fatalf("Poll = %d %v", n, rec.got)
			}
			// A corrupt sequence number in a cell: behind is dropped, a gap resyncs.
			sendTag(t, a, 2, 3, 4)  // fastbox
			sendTag(t, a, 2, 4, 40) // queue
			a.sendSeq[2] += 5       // a gap of 5 lost messages
			sendTag(t, a, 2, 5, 40)
			if n := r.Poll(rec.deliver); n != 3 || rec.take() != "3:4 4:40 5:40" {
				t.Fatalf("Poll = %d %v", n, rec.got)
			}
			if !strings.Contains(fmt.Sprint(r.Err()), "stale") {
				t.Fatalf("Err = %v", r.Err())
			}
		})
	}
}
