package shm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"mpix/transport"
)

var jobSeq atomic.Int64

// jobName returns a job name unique to this test process and call.
func jobName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), jobSeq.Add(1))
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func samePIDs(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = os.Getpid()
	}
	return s
}

// leftovers lists the region files of job still under /dev/shm.
func leftovers(t testing.TB, job string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(Dir, "mpix-"+job+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fbArg is the optional fastbox argument of heapNode and fileNode (Config.Fastbox).
func fbArg(fastbox []int) int {
	if len(fastbox) > 0 {
		return fastbox[0]
	}
	return 0
}

// heapNode builds the n endpoints of one simulated node over Go heap memory, as if
// every rank had created and attached. The race detector sees every access. An
// optional last argument is Config.Fastbox.
func heapNode(t testing.TB, n, cellSize, cells int, fastbox ...int) []*Endpoint {
	t.Helper()
	eps := make([]*Endpoint, n)
	var mems [][]byte
	for i := range eps {
		e, err := newEndpoint(Config{Job: "heap", Rank: i, NodeRanks: seq(n), PIDs: samePIDs(n), CellSize: cellSize, Cells: cells, Fastbox: fbArg(fastbox)})
		if err != nil {
			t.Fatal(err)
		}
		if mems == nil {
			mems = make([][]byte, n)
			for j := range mems {
				mems[j] = heapMem(e.g.size)
				newRegion(mems[j], e.g, false).initRegion(e.g, j, os.Getpid(), j)
			}
		}
		for j := range mems {
			r := newRegion(mems[j], e.g, false)
			if err := r.check(e.g, j, os.Getpid(), j); err != nil {
				t.Fatal(err)
			}
			e.adopt(j, r)
		}
		e.attached = true
		eps[i] = e
	}
	return eps
}

// fileNode builds n endpoints in this process over real /dev/shm regions, going
// through Create, Attach and Unlink like a job would. An optional last argument is
// Config.Fastbox.
func fileNode(t testing.TB, n, cellSize, cells int, fastbox ...int) []*Endpoint {
	t.Helper()
	job := jobName("t")
	eps := make([]*Endpoint, n)
	for i := range eps {
		e, err := Create(Config{Job: job, Rank: i, NodeRanks: seq(n), PIDs: samePIDs(n), CellSize: cellSize, Cells: cells, Fastbox: fbArg(fastbox)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		eps[i] = e
	}
	for _, e := range eps {
		if err := e.Attach(); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range eps {
		if err := e.Unlink(); err != nil {
			t.Fatal(err)
		}
	}
	if l := leftovers(t, job); len(l) != 0 {
		t.Fatalf("files left after Unlink: %v", l)
	}
	return eps
}

var nodeKinds = []struct {
	name string
	make func(t testing.TB, n, cellSize, cells int, fastbox ...int) []*Endpoint
}{
	{"heap", heapNode},
	{"file", fileNode},
}

// TestExchangeInProcess runs the all-to-all pattern with one goroutine per rank.
func TestExchangeInProcess(t *testing.T) {
	per := 300
	if raceEnabled || testing.Short() {
		per = 120
	}
	for _, nk := range nodeKinds {
		for _, tc := range []struct{ ranks, cellSize, cells, fastbox int }{
			{1, 64, 4, 0},
			{2, 100, 2, 0},
			{2, 0, 0, 0},
			{4, 1000, 8, 0},
			{5, 64, 3, 0},
			{4, 1000, 4, 40}, // fastbox-sized and larger messages alternate
			{3, 200, 1, 100}, // one cell: the fastbox often busy
			{4, 500, 16, 8},  // many small messages queued behind a busy fastbox
			{3, 100, 4, -1},  // no fastboxes
		} {
			t.Run(fmt.Sprintf("%s/ranks%d/cell%d/cells%d/fastbox%d", nk.name, tc.ranks, tc.cellSize, tc.cells, tc.fastbox), func(t *testing.T) {
				eps := nk.make(t, tc.ranks, tc.cellSize, tc.cells, tc.fastbox)
				ranks := seq(tc.ranks)
				errs := make([]error, len(eps))
				deadline := time.Now().Add(2 * time.Minute)
				var wg sync.WaitGroup
				for i, e := range eps {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs[i] = exchange(e, i, ranks, per, deadline)
					}()
				}
				wg.Wait()
				if err := errors.Join(errs...); err != nil {
					t.Fatal(err)
				}
				var st stats
				for _, e := range eps {
					st.fastbox += e.stats.fastbox
					st.queued += e.stats.queued
					st.fbAhead += e.stats.fbAhead
					st.queueAhead += e.stats.queueAhead
				}
				t.Logf("%+v", st)
			})
		}
	}
}

// TestPoolExhaustion: with every cell in flight Send says ErrAgain, and each Poll on
// the receiving side gives cells back. With fastboxes, a peer's fastbox takes one
// message more (never oneself: self-sends use the queue).
func TestPoolExhaustion(t *testing.T) {
	for _, nk := range nodeKinds {
		for _, fastbox := range []int{-1, 0} {
			for _, dst := range []int{0, 1} { // to a peer and to oneself
				t.Run(fmt.Sprintf("%s/fastbox%d/dst%d", nk.name, fastbox, dst), func(t *testing.T) {
					const cells = 4
					fits := cells
					if fastbox == 0 && dst != 0 {
						fits++
					}
					eps := nk.make(t, 2, 32, cells, fastbox)
					send := func() error {
						return eps[0].Send(dst, &transport.Header{Kind: transport.KindEager}, []byte("x"))
					}
					for i := 0; i < fits; i++ {
						if err := send(); err != nil {
							t.Fatalf("send %d: %v", i, err)
						}
					}
					if err := send(); !errors.Is(err, transport.ErrAgain) {
						t.Fatalf("send with the pool exhausted = %v, want ErrAgain", err)
					}
					got := 0
					one := func(*transport.Header, []byte) { got++ }
					if n := eps[dst].Poll(one); n != fits || got != fits {
						t.Fatalf("Poll delivered %d (%d calls), want %d", n, got, fits)
					}
					for i := 0; i < fits; i++ {
						if err := send(); err != nil {
							t.Fatalf("send %d after Poll: %v", i, err)
						}
					}
					if err := send(); !errors.Is(err, transport.ErrAgain) {
						t.Fatalf("second exhaustion: %v, want ErrAgain", err)
					}
					if n := eps[dst].Poll(one); n != fits {
						t.Fatalf("second Poll delivered %d, want %d", n, fits)
					}
					if err := eps[0].Err(); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestPartialRecovery: returning one cell makes room for exactly one more send (no
// fastboxes: this is about the pool).
func TestPartialRecovery(t *testing.T) {
	eps := heapNode(t, 2, 32, 3, -1)
	h := &transport.Header{Kind: transport.KindEager}
	for i := 0; i < 3; i++ {
		if err := eps[0].Send(1, h, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Consume one entry by hand, the way Poll does, and give its cell back.
	q := &eps[1].own.recv
	v, ok := q.pop()
	if !ok {
		t.Fatal("receive queue empty")
	}
	eps[1].regions[v>>32].free.push(v & (1<<32 - 1))
	if err := eps[0].Send(1, h, nil); err != nil {
		t.Fatalf("send after one return: %v", err)
	}
	if err := eps[0].Send(1, h, nil); !errors.Is(err, transport.ErrAgain) {
		t.Fatalf("send = %v, want ErrAgain", err)
	}
	if n := eps[1].Poll(func(*transport.Header, []byte) {}); n != 3 {
		t.Fatalf("Poll delivered %d, want 3", n)
	}
}

// TestFreeListReuse: cells go round; a pool of k cells never shows more than k
// distinct cell addresses, and uses all of them (no fastboxes: this is about the
// pool).
func TestFreeListReuse(t *testing.T) {
	for _, nk := range nodeKinds {
		t.Run(nk.name, func(t *testing.T) {
			const cells = 3
			eps := nk.make(t, 2, 16, cells, -1)
			seen := map[uintptr]int{}
			deliver := func(_ *transport.Header, p []byte) {
				seen[uintptr(unsafe.Pointer(unsafe.SliceData(p)))]++
			}
			for round := 0; round < 100; round++ {
				for i := 0; i < 2; i++ {
					if err := eps[0].Send(1, &transport.Header{}, []byte{byte(round)}); err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
				}
				if n := eps[1].Poll(deliver); n != 2 {
					t.Fatalf("round %d: Poll = %d", round, n)
				}
			}
			if len(seen) != cells {
				t.Fatalf("%d distinct cells used, want %d: %v", len(seen), cells, seen)
			}
		})
	}
}

// TestSendOrderSelf: messages to oneself arrive through the same queue, in order,
// interleaved with a peer's.
func TestSendOrderSelf(t *testing.T) {
	eps := heapNode(t, 2, 8, 16)
	for i := 0; i < 10; i++ {
		for _, e := range eps {
			src := e.cfg.Rank
			if err := e.Send(0, &transport.Header{Src: int32(src), Tag: int32(i)}, []byte{byte(i), byte(src)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	next := [2]int32{}
	n := eps[0].Poll(func(h *transport.Header, p []byte) {
		if h.Tag != next[h.Src] || len(p) != 2 || p[0] != byte(h.Tag) || p[1] != byte(h.Src) {
			t.Errorf("from %d: got tag %d payload %v, want tag %d", h.Src, h.Tag, p, next[h.Src])
		}
		next[h.Src]++
	})
	if n != 20 {
		t.Fatalf("Poll = %d, want 20", n)
	}
}

func TestSendErrors(t *testing.T) {
	job := jobName("err")
	cfg := Config{Job: job, Rank: 2, NodeRanks: []int{2, 5}, PIDs: []int{os.Getpid(), os.Getpid()}, CellSize: 10, Cells: 2}
	e, err := Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	h := &transport.Header{}
	for _, tc := range []struct {
		name    string
		dst     int
		payload []byte
		want    error
	}{
		{"other node", 3, nil, ErrNotLocal},
		{"negative rank", -1, nil, ErrNotLocal},
		{"beyond", 6, nil, ErrNotLocal},
		{"too large", 2, make([]byte, 11), ErrTooLarge},
		{"peer not attached", 5, nil, ErrNotAttached},
		{"self before Attach", 2, make([]byte, 10), nil},
	} {
		if err := e.Send(tc.dst, h, tc.payload); !errors.Is(err, tc.want) {
			t.Errorf("%s: Send(%d) = %v, want %v", tc.name, tc.dst, err, tc.want)
		}
	}
	for dst, want := range map[int]bool{1: false, 2: true, 3: false, 5: true, 6: false, -7: false} {
		if got := e.Reaches(dst); got != want {
			t.Errorf("Reaches(%d) = %v, want %v", dst, got, want)
		}
	}
	if e.MaxPayload() != 10 {
		t.Errorf("MaxPayload = %d, want 10", e.MaxPayload())
	}
	// Attach before rank 5 created its region fails, and says why.
	if err := e.Attach(); err == nil || !strings.Contains(err.Error(), "rank 5") {
		t.Errorf("Attach with a missing peer = %v, want an error naming rank 5", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if l := leftovers(t, job); len(l) != 0 {
		t.Errorf("Close left %v", l)
	}
	if err := e.Send(2, h, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close = %v, want ErrClosed", err)
	}
	if n := e.Poll(func(*transport.Header, []byte) {}); n != 0 {
		t.Errorf("Poll after Close = %d", n)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestSparseRanks exercises the binary-search lookup for ranks spread over a range
// too large for the dense table.
func TestSparseRanks(t *testing.T) {
	e, err := newEndpoint(Config{Job: "sparse", Rank: 1 << 22, NodeRanks: []int{3, 1 << 22, 1<<30 + 1}, PIDs: []int{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if e.localOf != nil {
		t.Fatal("dense table built for a sparse node")
	}
	for dst, want := range map[int]int{3: 0, 1 << 22: 1, 1<<30 + 1: 2, 4: -1, 0: -1, 1 << 31: -1} {
		if got := e.localIndex(dst); got != want {
			t.Errorf("localIndex(%d) = %d, want %d", dst, got, want)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	pid := os.Getpid()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty job", Config{Rank: 0, NodeRanks: []int{0}, PIDs: []int{pid}}, "job name"},
		{"slash in job", Config{Job: "a/b", NodeRanks: []int{0}, PIDs: []int{pid}}, "job name"},
		{"no ranks", Config{Job: "j"}, "NodeRanks is empty"},
		{"pids", Config{Job: "j", NodeRanks: []int{0, 1}, PIDs: []int{pid}}, "PIDs"},
		{"not ascending", Config{Job: "j", NodeRanks: []int{1, 0}, PIDs: []int{pid, pid}}, "ascending"},
		{"duplicate", Config{Job: "j", NodeRanks: []int{0, 0}, PIDs: []int{pid, pid}}, "ascending"},
		{"rank missing", Config{Job: "j", Rank: 2, NodeRanks: []int{0, 1}, PIDs: []int{pid, pid}}, "not in NodeRanks"},
		{"bad pid", Config{Job: "j", NodeRanks: []int{0}, PIDs: []int{0}}, "pid"},
		{"negative cells", Config{Job: "j", NodeRanks: []int{0}, PIDs: []int{pid}, Cells: -1}, "negative"},
		{"huge cell", Config{Job: "j", NodeRanks: []int{0}, PIDs: []int{pid}, CellSize: 1<<30 + 1}, "cell size"},
		{"too many cells", Config{Job: "j", NodeRanks: []int{0}, PIDs: []int{pid}, Cells: 1<<20 + 1}, "cells"},
	} {
		_, err := Create(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Create = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestAttachMismatch: a peer region with another layout, or a foreign file, is
// refused by Attach rather than mapped with the wrong offsets.
func TestAttachMismatch(t *testing.T) {
	pid := os.Getpid()
	for _, tc := range []struct {
		name string
		peer func(job string) error // creates rank 1's region (or a file in its place)
		want string
	}{
		{"cell size", func(job string) error {
			_, err := Create(Config{Job: job, Rank: 1, NodeRanks: []int{0, 1}, PIDs: []int{pid, pid}, CellSize: 128, Cells: 4})
			return err
		}, "cell size"},
		{"pids", func(job string) error {
			_, err := Create(Config{Job: job, Rank: 1, NodeRanks: []int{0, 1}, PIDs: []int{pid, pid + 1}, CellSize: 64, Cells: 4})
			return err
		}, "pid"},
		{"garbage", func(job string) error {
			e, _ := newEndpoint(Config{Job: job, Rank: 1, NodeRanks: []int{0, 1}, PIDs: []int{pid, pid}, CellSize: 64, Cells: 4})
			return os.WriteFile(segmentPath(job, 1), make([]byte, e.g.size), 0o600)
		}, "not initialized"},
		{"short file", func(job string) error {
			return os.WriteFile(segmentPath(job, 1), []byte("short"), 0o600)
		}, "bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := jobName("mis")
			defer func() {
				for _, f := range leftovers(t, job) {
					os.Remove(f)
				}
			}()
			e, err := Create(Config{Job: job, Rank: 0, NodeRanks: []int{0, 1}, PIDs: []int{pid, pid}, CellSize: 64, Cells: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := tc.peer(job); err != nil {
				t.Fatal(err)
			}
			if err := e.Attach(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Attach = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCreateTwice(t *testing.T) {
	job := jobName("twice")
	cfg := Config{Job: job, NodeRanks: []int{0}, PIDs: []int{os.Getpid()}, Cells: 2}
	e, err := Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := Create(cfg); !errors.Is(err, syscall.EEXIST) {
		t.Fatalf("second Create = %v, want EEXIST", err)
	}
}

// TestCorruptQueue: references and lengths that a dead or broken peer could leave in
// shared memory are reported through Err and dropped; Poll neither panics nor reads
// outside a region, and goes on delivering the good entries.
func TestCorruptQueue(t *testing.T) {
	for _, nk := range nodeKinds {
		t.Run(nk.name, func(t *testing.T) {
			eps := nk.make(t, 2, 32, 4)
			r := eps[1]
			good := func(tag int32) {
				if err := eps[0].Send(1, &transport.Header{Tag: tag}, []byte("ok")); err != nil {
					t.Fatal(err)
				}
			}
			good(1)
			r.own.recv.push(7<<32 | 0)   // no such rank
			r.own.recv.push(0<<32 | 999) // no such cell
			r.own.recv.push(1<<32 | 1<<31)
			good(2)
			// A cell with a length beyond the cell size.
			c, _ := eps[0].takeCell()
			p := eps[0].own.cell(c)
			*(*uint32)(unsafe.Add(p, transport.HeaderSize)) = 1 << 30
			eps[0].regions[1].recv.push(0<<32 | c)
			good(3)
			var tags []int32
			n := r.Poll(func(h *transport.Header, payload []byte) {
				if string(payload) != "ok" {
					t.Errorf("payload %q", payload)
				}
				tags = append(tags, h.Tag)
			})
			if n != 3 || fmt.Sprint(tags) != "[1 2 3]" {
				t.Fatalf("Poll = %d, tags %v; want 3, [1 2 3]", n, tags)
			}
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("Err = %v, want a corruption error", err)
			}
			// The cell with the bad length went back to its pool: all 4 are usable.
			for i := 0; i < 4; i++ {
				good(int32(10 + i))
			}
			if n := r.Poll(func(*transport.Header, []byte) {}); n != 4 {
				t.Fatalf("Poll = %d, want 4", n)
			}
		})
	}
}

// TestCorruptFreeRing: a corrupt free-ring entry is skipped, never used as a cell.
func TestCorruptFreeRing(t *testing.T) {
	eps := heapNode(t, 2, 32, 3, -1) // a free ring of 4 slots: room for one bad entry
	eps[0].own.free.push(12345)
	for i := 0; i < 3; i++ {
		if err := eps[0].Send(1, &transport.Header{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := eps[0].Send(1, &transport.Header{}, nil); !errors.Is(err, transport.ErrAgain) {
		t.Fatalf("Send = %v, want ErrAgain", err)
	}
	if err := eps[0].Err(); err == nil || !strings.Contains(err.Error(), "12345") {
		t.Fatalf("sender Err = %v, want the corrupt free-ring entry", err)
	}
	if n := eps[1].Poll(func(*transport.Header, []byte) {}); n != 3 {
		t.Fatalf("Poll = %d, want 3", n)
	}
}

// TestPeerClosed: messages from a rank that closed its endpoint (or died) stay
// readable: the receiver holds its own mapping of the sender's region.
func TestPeerClosed(t *testing.T) {
	eps := fileNode(t, 2, 64, 4)
	for i := 0; i < 3; i++ {
		if err := eps[0].Send(1, &transport.Header{Tag: int32(i)}, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eps[0].Close(); err != nil {
		t.Fatal(err)
	}
	n := eps[1].Poll(func(h *transport.Header, p []byte) {
		if len(p) != 1 || p[0] != byte(h.Tag) {
			t.Errorf("message %d: payload %v", h.Tag, p)
		}
	})
	if n != 3 || eps[1].Err() != nil {
		t.Fatalf("Poll = %d, Err %v; want 3, nil", n, eps[1].Err())
	}
}

// TestPollBeforeAttach: a message from a peer this rank has not mapped yet waits in
// the queue until Attach.
func TestPollBeforeAttach(t *testing.T) {
	job := jobName("early")
	pid := os.Getpid()
	cfg := func(rank int) Config {
		return Config{Job: job, Rank: rank, NodeRanks: []int{0, 1}, PIDs: []int{pid, pid}, CellSize: 16, Cells: 2}
	}
	a, err := Create(cfg(0))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Create(cfg(1))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Attach(); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(0, &transport.Header{Tag: 7}, []byte("early")); err != nil {
		t.Fatal(err)
	}
	var got []string
	deliver := func(h *transport.Header, p []byte) { got = append(got, fmt.Sprint(h.Tag, string(p))) }
	if n := a.Poll(deliver); n != 0 {
		t.Fatalf("Poll before Attach = %d, want 0", n)
	}
	if err := a.Attach(); err != nil {
		t.Fatal(err)
	}
	if n := a.Poll(deliver); n != 1 || got[0] != "7early" || a.Err() != nil {
		t.Fatalf("Poll after Attach = %d %v %v", n, got, a.Err())
	}
}

// TestNoAllocs: the Send and Poll fast paths allocate nothing.
func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	eps := fileNode(t, 2, 0, 0)
	h := &transport.Header{Kind: transport.KindEager, Size: 8}
	payload := make([]byte, 8)
	count := 0
	deliver := func(*transport.Header, []byte) { count++ }
	allocs := testing.AllocsPerRun(1000, func() {
		if err := eps[0].Send(1, h, payload); err != nil {
			t.Fatal(err)
		}
		eps[1].Poll(deliver)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Send+Poll, want 0", allocs)
	}
	if count != 1001 {
		t.Fatalf("delivered %d, want 1001", count)
	}
}
