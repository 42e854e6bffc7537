package datatype

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"mpix/core/mpierr"
	"sync"
	"testing"
	"time"
	"unsafe"
)

func TestElements(t *testing.T) {
	must := mustT(t)
	D, C, I := Predefined(hDouble), Predefined(hChar), Predefined(hInt)
	s := must(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{D, C}, false))
	defer Free(s)
	z := must(Contiguous(0, I, false))
	defer Free(z)
	tests := []struct {
		name   string
		t      *Type
		nbytes int64
		basic  int64
		whole  bool
	}{
		{"int 0", I, 0, 0, true},
		{"int 8", I, 8, 2, true},
		{"int 5", I, 5, -1, false},
		{"double_int 12", Predefined(hDoubleInt), 12, 2, true},
		{"double_int 8", Predefined(hDoubleInt), 8, 1, false},
		{"double_int 20", Predefined(hDoubleInt), 20, 3, false},
		{"2int 4", Predefined(h2Int), 4, 1, false},
		{"struct 9", s, 9, 2, true},
		{"struct 17", s, 17, 3, false},
		{"struct 12", s, 12, -1, false},
		{"struct 27", s, 27, 6, true},
		{"empty 0", z, 0, 0, true},
		{"empty 4", z, 4, 0, false},
		{"lb 0", Predefined(hLB), 0, 0, true},
	}
	for _, tc := range tests {
		if n, whole := Elements(tc.t, tc.nbytes); n != tc.basic || whole != tc.whole {
			t.Errorf("%s: Elements = %d, %v; want %d, %v", tc.name, n, whole, tc.basic, tc.whole)
		}
	}
	for _, tc := range []struct {
		t     *Type
		n     int64
		bytes int64
	}{{s, 3, 17}, {s, 4, 18}, {s, 0, 0}, {Predefined(hDoubleInt), 3, 20}, {I, 7, 28}, {z, 5, 0}} {
		if got, err := BytesForElements(tc.t, tc.n); err != nil || got != tc.bytes {
			t.Errorf("BytesForElements(%v, %d) = %d, %v; want %d", tc.t.Name(), tc.n, got, err, tc.bytes)
		}
	}
	if _, err := BytesForElements(I, -1); classOf(err) != mpierr.ErrCount {
		t.Errorf("BytesForElements(-1): %v", err)
	}
}

// The example of the task: a vector of structs of an indexed type with negative
// displacements, resized with gaps on both sides.
func TestNestedExample(t *testing.T) {
	must := mustT(t)
	I, D, C := Predefined(hInt), Predefined(hDouble), Predefined(hChar)
	idx := must(Indexed([]int64{2, 1, 3}, []int64{4, -3, -1}, I, false))
	st := must(Struct([]int64{1, 2, 1}, []int64{-24, 8, 40}, []*Type{idx, D, C}, false))
	rs := must(Resized(st, -40, 96, false))
	vec := must(Vector(3, 2, -3, rs, false))
	for _, ty := range []*Type{vec, rs, st, idx} {
		defer Free(ty)
	}
	mi := mHindexed([]int64{2, 1, 3}, []int64{16, -12, -4}, mBasic(I))
	ms := mStruct([]int64{1, 2, 1}, []int64{-24, 8, 40}, []*model{mi, mBasic(D), mBasic(C)}, []int{0, 0, 0})
	mr := mResized(ms, -40, 96)
	mv := mHvector(3, 2, -3*96, mr)
	for count := int64(1); count <= 3; count++ {
		checkType(t, vec, mv, count, rand.New(rand.NewPCG(uint64(count), 9)))
	}
	if vec.Contiguous() {
		t.Fatal("a type with gaps is contiguous")
	}
}

// Pack and Unpack of a committed type do not allocate.
func TestPackDoesNotAllocate(t *testing.T) {
	must := mustT(t)
	v := must(Vector(100, 3, 5, Predefined(hDouble), false))
	defer Free(v)
	v.Commit()
	src := make([]float64, 600)
	buf := make([]byte, PackedSize(1, v))
	allocs := testing.AllocsPerRun(100, func() {
		for off := int64(0); off < int64(len(buf)); off += 100 {
			end := min(off+100, int64(len(buf)))
			Pack(buf[off:end], ptr(src), 1, v, off)
			Unpack(buf[off:end], ptr(src), 1, v, off)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}

// The compiled form of large regular types stays small: the outer repetition is not
// expanded.
func TestCompileCompact(t *testing.T) {
	must := mustT(t)
	D, I := Predefined(hDouble), Predefined(hInt)
	pair := must(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{D, I}, false))
	big := must(Contiguous(1<<24, pair, true))
	vec := must(Vector(1<<24, 1, 2, D, true))
	tiles := must(Contiguous(1<<30, D, true))
	for _, ty := range []*Type{tiles, vec, big, pair} {
		defer Free(ty)
	}
	start := time.Now()
	for _, ty := range []*Type{big, vec, tiles} {
		ty.Commit()
		if p := ty.program(); len(p.runs) > 2 {
			t.Errorf("%d runs for a regular type", len(p.runs))
		}
	}
	if !tiles.Contiguous() || big.Contiguous() || vec.Contiguous() {
		t.Error("contiguity wrong")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("compiling took %v", d)
	}
	// A chunk from the middle of a 256 MiB stream.
	src := make([]float64, 64)
	for i := range src {
		src[i] = float64(i)
	}
	out := make([]byte, 24)
	// element k of vec is src[2k]: read elements 5..7 through a 3-element view
	small := must(Vector(8, 1, 2, D, false))
	defer Free(small)
	small.Commit()
	Pack(out, ptr(src), 1, small, 5*8)
	want := make([]byte, 24)
	for i, k := range []int{10, 12, 14} {
		copy(want[i*8:], unsafe.Slice((*byte)(unsafe.Pointer(&src[k])), 8))
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("offset chunk %x, want %x", out, want)
	}
}

// Lookups run concurrently with creation and freeing (run with -race).
func TestConcurrentLookup(t *testing.T) {
	I := Predefined(hInt)
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	recent := make(chan int32, 1024)
	for w := 0; w < 4; w++ {
		writers.Add(1)
		go func(w int) {
			defer writers.Done()
			for i := 0; i < 2000; i++ {
				ty, err := Vector(int64(i%7), 1, 2, I, w%2 == 0)
				if err != nil {
					t.Error(err)
					return
				}
				select {
				case recent <- ty.Handle():
				default:
				}
				if got, err := Lookup(ty.Handle()); err != nil || got != ty {
					t.Errorf("own handle: %v", err)
				}
				ty.Commit()
				if err := Free(ty); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	for r := 0; r < 4; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				case h := <-recent:
					if ty, err := Lookup(h); err == nil { // may be freed, or reused, by now
						_ = ty.Size() + ty.Extent()
						_ = ty.Name()
					}
				default:
					if ty, err := Lookup(hDoubleInt); err != nil || ty.Size() != 12 {
						t.Error("pair type lookup failed")
						return
					}
				}
			}
		}()
	}
	writers.Wait()
	close(stop)
	readers.Wait()
}

func BenchmarkPackVector(b *testing.B) {
	for _, bl := range []int64{1, 16, 512} {
		b.Run(fmt.Sprintf("block%d", bl*8), func(b *testing.B) {
			v, _ := Vector(1<<20/(bl*8), bl, 2*bl, Predefined(hDouble), false)
			defer Free(v)
			v.Commit()
			src := make([]byte, 2<<20+64)
			dst := make([]byte, PackedSize(1, v))
			b.SetBytes(int64(len(dst)))
			for i := 0; i < b.N; i++ {
				for off := 0; off < len(dst); off += 64 << 10 {
					Pack(dst[off:min(off+64<<10, len(dst))], ptr(src), 1, v, int64(off))
				}
			}
		})
	}
}
