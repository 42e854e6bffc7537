package shm

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// heapMem returns n zeroed bytes of Go heap memory aligned to a cache line. Rings and
// regions over heap memory let the race detector check the ordering of plain accesses
// (cells, slot values) against the atomics; it does not see mmap'd memory.
func heapMem(n int) []byte {
	u := make([]uint64, (n+2*cacheLine)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&u[0])), len(u)*8)
	off := (cacheLine - int(uintptr(unsafe.Pointer(&b[0]))%cacheLine)) % cacheLine
	return b[off : off+n : off+n]
}

// mmapMem returns n bytes of shared anonymous memory, unmapped at the end of the test.
func mmapMem(t testing.TB, n int) []byte {
	t.Helper()
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}

var memKinds = []struct {
	name string
	mem  func(t testing.TB, n int) []byte
}{
	{"heap", func(_ testing.TB, n int) []byte { return heapMem(n) }},
	{"mmap", mmapMem},
}

// ringIn lays a ring of capacity cap (a power of two) over mem: the tail word on the
// first cache line, the slots after it.
func ringIn(mem []byte, cap int) ring {
	r := newRing((*uint64)(unsafe.Pointer(&mem[0])),
		unsafe.Slice((*slot)(unsafe.Pointer(&mem[cacheLine])), cap))
	r.initRing()
	return r
}

func ringBytes(cap int) int { return cacheLine + cap*slotSize }

func TestRingLayout(t *testing.T) {
	if slotSize != 16 {
		t.Errorf("slot is %d bytes, want 16", slotSize)
	}
	var c control
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"control size", unsafe.Sizeof(c), controlSize},
		{"ready", unsafe.Offsetof(c.ready), 96},
		{"recvTail", unsafe.Offsetof(c.recvTail), 2 * cacheLine},
		{"freeTail", unsafe.Offsetof(c.freeTail), 3 * cacheLine},
	} {
		if f.got != f.want {
			t.Errorf("%s = %d, want %d", f.name, f.got, f.want)
		}
	}
}

// TestRingSequential checks full/empty edges and many laps in one goroutine.
func TestRingSequential(t *testing.T) {
	for _, mk := range memKinds {
		for _, cap := range []int{2, 4, 8, 64} {
			t.Run(fmt.Sprintf("%s/cap%d", mk.name, cap), func(t *testing.T) {
				r := ringIn(mk.mem(t, ringBytes(cap)), cap)
				if _, ok := r.pop(); ok {
					t.Fatal("pop from an empty ring succeeded")
				}
				next, want := uint64(0), uint64(0)
				for lap := 0; lap < 50; lap++ {
					for i := 0; i < cap; i++ {
						if !r.push(next) {
							t.Fatalf("lap %d: push %d of %d failed", lap, i, cap)
						}
						next++
					}
					if r.push(next) {
						t.Fatalf("lap %d: push into a full ring succeeded", lap)
					}
					// Take half, refill, then drain: positions wrap mid-ring.
					for i := 0; i < (cap+1)/2; i++ {
						v, ok := r.pop()
						if !ok || v != want {
							t.Fatalf("lap %d: pop = %d,%v, want %d", lap, v, ok, want)
						}
						want++
					}
					for i := 0; i < (cap+1)/2; i++ {
						if !r.push(next) {
							t.Fatalf("lap %d: refill push failed", lap)
						}
						next++
					}
					for i := 0; i < cap; i++ {
						v, ok := r.pop()
						if !ok || v != want {
							t.Fatalf("lap %d: drain pop = %d,%v, want %d", lap, v, ok, want)
						}
						want++
					}
					if _, ok := r.pop(); ok {
						t.Fatalf("lap %d: ring not empty after drain", lap)
					}
				}
			})
		}
	}
}

// TestRingConcurrent runs several producer goroutines against one consumer and checks
// that every value arrives exactly once and in order per producer.
func TestRingConcurrent(t *testing.T) {
	per := 20000
	if raceEnabled || testing.Short() {
		per = 4000
	}
	for _, mk := range memKinds {
		for _, tc := range []struct{ cap, producers int }{
			{2, 1}, {2, 2}, {4, 8}, {64, 3}, {1024, 8},
		} {
			t.Run(fmt.Sprintf("%s/cap%d/producers%d", mk.name, tc.cap, tc.producers), func(t *testing.T) {
				mem := mk.mem(t, ringBytes(tc.cap))
				cons := ringIn(mem, tc.cap)
				var wg sync.WaitGroup
				for p := 0; p < tc.producers; p++ {
					wg.Add(1)
					prod := cons // a producer's own view of the same shared ring
					go func() {
						defer wg.Done()
						for k := 0; k < per; k++ {
							for !prod.push(uint64(p)<<32 | uint64(k)) {
								runtime.Gosched()
							}
						}
					}()
				}
				next := make([]uint64, tc.producers)
				for got := 0; got < per*tc.producers; {
					v, ok := cons.pop()
					if !ok {
						runtime.Gosched()
						continue
					}
					p, k := v>>32, v&(1<<32-1)
					if p >= uint64(tc.producers) {
						t.Fatalf("value %#x from an unknown producer", v)
					}
					if k != next[p] {
						t.Fatalf("producer %d: got %d, want %d (lost, duplicated or reordered)", p, k, next[p])
					}
					next[p]++
					got++
				}
				wg.Wait()
				if v, ok := cons.pop(); ok {
					t.Fatalf("extra value %#x after all were received", v)
				}
			})
		}
	}
}

// TestRingCorrupt: garbage in the shared words makes push and pop fail, not spin or
// fault.
func TestRingCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(r *ring)
	}{
		{"tail behind the slots", func(r *ring) { *r.tail = 0; r.slots[0].seq = 77 }},
		{"tail far ahead", func(r *ring) { *r.tail = 1 << 60 }},
		{"garbage seq", func(r *ring) {
			for i := range r.slots {
				r.slots[i].seq = 0xdeadbeef
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ringIn(heapMem(ringBytes(4)), 4)
			tc.corrupt(&r)
			done := make(chan bool)
			go func() {
				ok := r.push(1)
				_, ok2 := r.pop()
				done <- ok || ok2
			}()
			select {
			case ok := <-done:
				if ok {
					t.Fatal("push or pop succeeded on a corrupt ring")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("push or pop spins on a corrupt ring")
			}
		})
	}
}
