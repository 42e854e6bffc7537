package rma

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStateLayout(t *testing.T) {
	// The offsets are shared with node peers: they must not overlap, and the region
	// table must fit the page.
	if offAccLock < offLock+8 || offRegionGen < offAccLock+4 || offRegionN < offRegionGen+8 || offRegions < offRegionN+8 {
		t.Fatalf("state page fields overlap")
	}
	if offRegions+16*maxRegions > stateSize {
		t.Fatalf("%d regions at %d overflow the %d-byte page", maxRegions, offRegions, stateSize)
	}
	for _, off := range []uintptr{offLock, offRegionGen, offRegionN, offRegions} {
		if off%8 != 0 {
			t.Errorf("offset %d is not 8-byte aligned", off)
		}
	}
}

func TestLockSequences(t *testing.T) {
	type step struct {
		op   string // "s", "x": tryLock shared, exclusive; "us", "ux": unlock
		ok   bool
		word uint64 // the lock word after the step
	}
	x := lockExclusive
	tests := []struct {
		name  string
		start uint64
		steps []step
	}{
		{"exclusive then release", 0, []step{{"x", true, x}, {"ux", true, 0}}},
		{"exclusive excludes exclusive", 0, []step{{"x", true, x}, {"x", false, x}}},
		{"exclusive excludes shared", 0, []step{{"x", true, x}, {"s", false, x}}},
		{"shared holders count", 0, []step{{"s", true, 1}, {"s", true, 2}, {"s", true, 3}, {"us", true, 2}, {"us", true, 1}, {"us", true, 0}}},
		{"shared excludes exclusive", 0, []step{{"s", true, 1}, {"x", false, 1}, {"us", true, 0}, {"x", true, x}}},
		{"shared unlock of a free lock", 0, []step{{"us", false, 0}}},
		{"exclusive unlock of a free lock", 0, []step{{"ux", false, 0}}},
		{"shared unlock of an exclusive lock", 0, []step{{"x", true, x}, {"us", false, x}, {"ux", true, 0}}},
		{"exclusive unlock of shared locks", 0, []step{{"s", true, 1}, {"s", true, 2}, {"ux", false, 2}, {"us", true, 1}}},
		{"repeated exclusive unlock", 0, []step{{"x", true, x}, {"ux", true, 0}, {"ux", false, 0}}},
		{"repeated shared unlock", 0, []step{{"s", true, 1}, {"us", true, 0}, {"us", false, 0}}},
		// Words no tryLock makes (a peer wrote garbage): nothing may change them.
		{"forged exclusive with holders", x | 1, []step{{"ux", false, x | 1}, {"us", false, x | 1}, {"s", false, x | 1}, {"x", false, x | 1}}},
		{"forged high bits", 1 << 40, []step{{"ux", false, 1 << 40}, {"x", false, 1 << 40}, {"s", true, 1<<40 + 1}, {"us", true, 1 << 40}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t)
			s.word(offLock).Store(tc.start)
			for i, st := range tc.steps {
				var got bool
				switch st.op {
				case "s":
					got = s.tryLock(false)
				case "x":
					got = s.tryLock(true)
				case "us":
					got = s.unlock(false)
				case "ux":
					got = s.unlock(true)
				}
				if got != st.ok {
					t.Errorf("step %d (%s): got %v, want %v", i, st.op, got, st.ok)
				}
				if w := s.word(offLock).Load(); w != st.word {
					t.Fatalf("step %d (%s): lock word %#x, want %#x", i, st.op, w, st.word)
				}
			}
			// The lock word is the only word a lock touches.
			if g := s.word(offRegionGen).Load(); g != 0 {
				t.Errorf("region generation changed to %d", g)
			}
		})
	}
}

// Exclusive holders write a plain variable that shared holders read: with a working
// lock the race detector sees no race, and the holder counts never overlap.
func TestLockConcurrent(t *testing.T) {
	s := newState(t)
	var (
		readers, writers atomic.Int32
		plain            int
		wg               sync.WaitGroup
		failed           atomic.Bool
	)
	const workers, rounds = 6, 300
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				excl := (g+i)%3 == 0
				for !s.tryLock(excl) {
					runtime.Gosched() // a holder never waits for anything
				}
				if excl {
					if writers.Add(1) != 1 || readers.Load() != 0 {
						failed.Store(true)
					}
					plain++
					writers.Add(-1)
				} else {
					readers.Add(1)
					if writers.Load() != 0 {
						failed.Store(true)
					}
					_ = plain
					readers.Add(-1)
				}
				if !s.unlock(excl) {
					failed.Store(true)
				}
			}
		}(g)
	}
	wg.Wait()
	if failed.Load() {
		t.Fatal("the lock let an exclusive holder in with another holder")
	}
	if w := s.word(offLock).Load(); w != 0 {
		t.Fatalf("lock word %#x after every holder left", w)
	}
	want := 0
	for g := 0; g < workers; g++ {
		for i := 0; i < rounds; i++ {
			if (g+i)%3 == 0 {
				want++
			}
		}
	}
	if plain != want {
		t.Fatalf("exclusive holders counted %d, want %d", plain, want)
	}
}

func TestAccLockCounter(t *testing.T) {
	s := newState(t)
	const workers, rounds = 8, 2000
	counter := 0 // a plain variable: only the lock orders its accesses
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				s.accLock()
				counter++
				s.accUnlock()
			}
		}()
	}
	wg.Wait()
	if counter != workers*rounds {
		t.Fatalf("counter %d, want %d", counter, workers*rounds)
	}
	if w := s.word(offAccLock).Load(); w != 0 {
		t.Fatalf("accumulate lock word %#x after every holder left", w)
	}
	// The accumulate lock and the passive-target lock are separate words.
	s.accLock()
	if !s.tryLock(true) || !s.unlock(true) {
		t.Fatal("the accumulate lock blocked the passive-target lock")
	}
	s.accUnlock()
}

func TestRegionsRoundTrip(t *testing.T) {
	full := make([]region, maxRegions)
	for i := range full {
		full[i] = region{base: uint64(i) << 20, size: uint64(i + 1)}
	}
	tests := []struct {
		name string
		seq  [][]region // published in turn; the last one is read back
	}{
		{"never published", nil},
		{"empty", [][]region{{}}},
		{"one", [][]region{{{base: 0x1000, size: 64}}}},
		{"several", [][]region{{{base: 0x1000, size: 64}, {base: 0x9000, size: 0}, {base: math.MaxUint64 - 15, size: 16}}}},
		{"full table", [][]region{full}},
		{"shrunk", [][]region{full, {{base: 0x1000, size: 64}, {base: 0x2000, size: 8}}}},
		{"shrunk to none", [][]region{{{base: 0x1000, size: 64}}, {}}},
		{"grown", [][]region{{{base: 0x1000, size: 64}}, full[:100]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t)
			var want []region
			for _, rs := range tc.seq {
				s.setRegions(rs)
				want = rs
			}
			if g := s.word(offRegionGen).Load(); g != uint64(2*len(tc.seq)) {
				t.Errorf("generation %d after %d updates, want %d", g, len(tc.seq), 2*len(tc.seq))
			}
			var buf [16]region
			got := s.regions(buf[:0])
			if len(got) == 0 && len(want) == 0 {
				return
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(region{})); diff != "" {
				t.Errorf("regions (-published +read):\n%s", diff)
			}
			// Reading again into the slice it returned gives the same.
			if again := s.regions(got); !cmp.Equal(want, again, cmp.AllowUnexported(region{})) {
				t.Errorf("second read differs")
			}
		})
	}
}

// A peer's page may claim more regions than fit: readers never read past the table.
func TestRegionsForgedCount(t *testing.T) {
	for _, n := range []uint64{maxRegions + 1, 1 << 40, 1 << 63, math.MaxUint64} {
		s := newState(t)
		s.word(offRegionN).Store(n)
		if got := s.regions(nil); len(got) > maxRegions {
			t.Errorf("count %#x: read %d regions, more than the %d the page holds", n, len(got), maxRegions)
		}
	}
}

// One writer republishes tables whose every entry names the table's version and
// whose length depends on it; readers must only ever see one whole table.
func TestRegionsSeqlock(t *testing.T) {
	s := newState(t)
	const versions = 3000
	table := func(v uint64) []region {
		rs := make([]region, 1+v%37)
		for i := range rs {
			rs[i] = region{base: v<<20 | uint64(i), size: v}
		}
		return rs
	}
	s.setRegions(table(0))
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []region
			last := uint64(0)
			for reads := 0; !done.Load() || reads < 100; reads++ {
				buf = s.regions(buf)
				if len(buf) == 0 {
					errs <- "read an empty table"
					return
				}
				v := buf[0].size
				if uint64(len(buf)) != 1+v%37 {
					errs <- "torn table: wrong length for its version"
					return
				}
				for i, x := range buf {
					if x.size != v || x.base != v<<20|uint64(i) {
						errs <- "torn table: entries of two versions"
						return
					}
				}
				if v < last {
					errs <- "a reader went back to an older table"
					return
				}
				last = v
			}
		}()
	}
	for v := uint64(1); v <= versions; v++ {
		s.setRegions(table(v))
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got := s.regions(nil); !cmp.Equal(got, table(versions), cmp.AllowUnexported(region{})) {
		t.Errorf("final table %v", got)
	}
}

func TestCovers(t *testing.T) {
	const top = math.MaxUint64
	rs := []region{
		{base: 0x1000, size: 0x100},
		{base: 0x2000, size: 0},         // attached with size 0
		{base: top - 0xff, size: 0x100}, // ends exactly at 2^64
		{base: 0x3000, size: 0x10},      // adjacent to the next one
		{base: 0x3010, size: 0x10},
	}
	tests := []struct {
		name    string
		regions []region
		addr, n uint64
		want    bool
	}{
		{"whole region", rs, 0x1000, 0x100, true},
		{"first byte", rs, 0x1000, 1, true},
		{"last byte", rs, 0x10ff, 1, true},
		{"zero length at start", rs, 0x1000, 0, true},
		{"zero length at exact end", rs, 0x1100, 0, true},
		{"one byte past the end", rs, 0x10ff, 2, false},
		{"starts at the end", rs, 0x1100, 1, false},
		{"one byte before", rs, 0xfff, 1, false},
		{"straddles the start", rs, 0xfff, 2, false},
		{"longer than the region", rs, 0x1000, 0x101, false},
		{"zero length outside", rs, 0x5000, 0, false},
		{"zero length past the end", rs, 0x1101, 0, false},
		{"size-0 region, zero length", rs, 0x2000, 0, true},
		{"size-0 region, one byte", rs, 0x2000, 1, false},
		{"addr+n wraps past 2^64", rs, 0x1080, math.MaxUint64 - 0x7f, false},
		{"huge n", rs, 0x1080, 1 << 63, false},
		{"n of all ones", rs, 0x1000, math.MaxUint64, false},
		{"top region whole", rs, top - 0xff, 0x100, true},
		{"top region last byte", rs, top, 1, true},
		{"top region wraps", rs, top, 2, false},
		{"top region zero length at its end", rs, top, 0, true},
		{"spans two adjacent regions", rs, 0x3008, 0x10, false},
		{"second of two adjacent", rs, 0x3010, 0x10, true},
		{"no regions", nil, 0x1000, 0, false},
		{"address 0", rs, 0, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := covers(tc.regions, tc.addr, tc.n); got != tc.want {
				t.Errorf("covers(%#x, %#x) = %v, want %v", tc.addr, tc.n, got, tc.want)
			}
		})
	}
}
