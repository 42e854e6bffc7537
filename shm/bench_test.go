package shm

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mpix/transport"
)

// Benchmarks between two processes: this one is rank 0, a child is rank 1.
//
//	go test -run '^$' -bench . -benchtime 2s ./shm/
//
// BenchmarkPingPong reports the round trip as ns/op and half of it as ns/one-way.
// BenchmarkStream reports the throughput of a stream of messages of one size, the
// receiver copying every payload out of its cell (the second copy of an eager
// message). BenchmarkStreamCells streams 1 MiB messages cut into cells, as core cuts
// them, for several cell geometries: it is how DefaultCellSize and DefaultCells were
// chosen.

// spinUntil polls e until cond holds; it fails the benchmark after a minute. It spins,
// and yields the CPU after every 1024 empty polls: on an oversubscribed machine the
// peer may be waiting for this core.
func spinUntil(b *testing.B, e *Endpoint, deliver transport.DeliverFunc, cond func() bool) {
	var start time.Time
	for spins := 1; !cond(); spins++ {
		e.Poll(deliver)
		if spins&1023 == 0 {
			osYield()
			if start.IsZero() {
				start = time.Now()
			} else if time.Since(start) > time.Minute {
				b.Fatalf("peer does not answer (Err %v)", e.Err())
			}
		}
	}
}

// stopChild ends a child's echo or sink loop and waits for it.
func stopChild(b *testing.B, j *testJob) {
	fin := transport.Header{Kind: transport.KindFin}
	if err := sendRetry(j.self, 1, &fin, nil, func(*transport.Header, []byte) {}); err != nil {
		b.Fatal(err)
	}
	j.finish(b)
}

func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{8, 1024} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			j := startJob(b, "echo", 2, 0, 0, 0, 0)
			e := j.self
			payload := make([]byte, size)
			h := transport.Header{Kind: transport.KindEager, Src: 0, Size: int64(size)}
			got := 0
			deliver := func(*transport.Header, []byte) { got++ }
			round := func() {
				want := got + 1
				if err := e.Send(1, &h, payload); err != nil {
					b.Fatal(err)
				}
				spinUntil(b, e, deliver, func() bool { return got == want })
			}
			for i := 0; i < 1000; i++ { // warm up: caches, page tables, CPU frequency
				round()
			}
			// Batches of round trips timed separately: the median batch is robust to
			// the preemptions of a shared machine, which the mean is not.
			const batch = 64
			batches := make([]time.Duration, 0, b.N/batch+1)
			b.ResetTimer()
			for i := 0; i < b.N; {
				t0 := time.Now()
				m := min(batch, b.N-i)
				for range m {
					round()
				}
				if m == batch {
					batches = append(batches, time.Since(t0))
				}
				i += m
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/one-way")
			if len(batches) > 0 {
				slices.Sort(batches)
				b.ReportMetric(float64(batches[len(batches)/2].Nanoseconds())/batch/2, "p50-ns/one-way")
			}
			stopChild(b, j)
		})
	}
}

// stream sends b.N messages of msgSize bytes, each cut into cells, to the sink and
// waits for the sink to have seen them all.
func stream(b *testing.B, msgSize, cellSize, cells int) {
	j := startJob(b, "sink", 2, 0, cellSize, cells, 0)
	e := j.self
	msg := make([]byte, msgSize)
	fill(msg, 0, 1, 0)
	chunk := e.MaxPayload()
	acks := 0
	deliver := func(*transport.Header, []byte) { acks++ }
	send := func(h *transport.Header, p []byte) {
		for {
			err := e.Send(1, h, p)
			if err == nil {
				return
			}
			if !errors.Is(err, transport.ErrAgain) {
				b.Fatal(err)
			}
			osYield() // the receiver has to run to give cells back
		}
	}
	one := func() {
		h := transport.Header{Kind: transport.KindData, Src: 0, Size: int64(msgSize)}
		for off := 0; off < msgSize || off == 0; off += chunk {
			h.Offset = int64(off)
			send(&h, msg[off:min(off+chunk, msgSize)])
			if msgSize == 0 {
				break
			}
		}
	}
	sync := func() {
		want := acks + 1
		send(&transport.Header{Kind: transport.KindEager, Tag: -1}, nil)
		spinUntil(b, e, deliver, func() bool { return acks == want })
	}
	for i := 0; i < 100; i++ {
		one()
	}
	sync()
	b.SetBytes(int64(msgSize))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		one()
	}
	sync()
	b.StopTimer()
	stopChild(b, j)
}

func BenchmarkStream(b *testing.B) {
	for _, size := range []int{8, 1 << 10, 4 << 10, DefaultCellSize} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) { stream(b, size, 0, 0) })
	}
}

func BenchmarkStreamCells(b *testing.B) {
	for _, cs := range []int{4<<10 - cellHeaderSize, 16<<10 - cellHeaderSize, 64<<10 - cellHeaderSize} {
		for _, cells := range []int{8, 16, 64, 256} {
			b.Run(fmt.Sprintf("cell%d/cells%d", cs+cellHeaderSize, cells), func(b *testing.B) {
				stream(b, 1<<20, cs, cells)
			})
		}
	}
}

// BenchmarkReadFrom: single-copy reads of a child's buffer into a buffer whose pages
// are present (the usual case for a reused receive buffer).
func BenchmarkReadFrom(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			holder := startProc(b, 1, childEnv+"=holder", perEnv+"="+strconv.Itoa(size), argEnv+"=dumpable")
			addr, ok := strings.CutPrefix(holder.next(b), "addr ")
			if !ok {
				b.Fatal("holder did not say its address")
			}
			a, _ := strconv.ParseUint(addr, 10, 64)
			e, err := newEndpoint(Config{Job: "bench", Rank: 0, NodeRanks: []int{0, 1}, PIDs: []int{os.Getpid(), holder.cmd.Process.Pid}})
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]byte, size)
			if err := e.ReadFrom(1, uintptr(a), dst); err != nil {
				b.Skip(err)
			}
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := e.ReadFrom(1, uintptr(a), dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAtomicFloor is the machine's floor for the ping-pong: two goroutines (on
// two threads) hand a shared word back and forth, spinning and yielding like the
// other benchmarks; ns/one-way is half a round trip.
func BenchmarkAtomicFloor(b *testing.B) {
	var ping, pong atomic.Int64
	n := int64(b.N)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := int64(1); i <= n; i++ {
			for spins := 1; ping.Load() != i; spins++ {
				if spins&1023 == 0 {
					osYield()
				}
			}
			pong.Store(i)
		}
	}()
	const batch = 64
	batches := make([]time.Duration, 0, b.N/batch+1)
	b.ResetTimer()
	t0 := time.Now()
	for i := int64(1); i <= n; i++ {
		ping.Store(i)
		for spins := 1; pong.Load() != i; spins++ {
			if spins&1023 == 0 {
				osYield()
			}
		}
		if i%batch == 0 {
			t1 := time.Now()
			batches = append(batches, t1.Sub(t0))
			t0 = t1
		}
	}
	b.StopTimer()
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/one-way")
	if len(batches) > 0 {
		slices.Sort(batches)
		b.ReportMetric(float64(batches[len(batches)/2].Nanoseconds())/batch/2, "p50-ns/one-way")
	}
}

// BenchmarkPollEmpty is the cost of a Poll that finds nothing: one flag per local
// sender's fastbox plus the queue's head slot.
func BenchmarkPollEmpty(b *testing.B) {
	for _, n := range []int{2, 16, 64} {
		b.Run(fmt.Sprintf("ranks%d", n), func(b *testing.B) {
			eps := heapNode(b, n, 64, 2)
			deliver := func(*transport.Header, []byte) {}
			for b.Loop() {
				eps[0].Poll(deliver)
			}
		})
	}
}
