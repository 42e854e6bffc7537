package rma

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// The state page every process publishes for each window, mapped by its node peers
// (and read by its own active-message handler for peers elsewhere). Offsets:
//
//	0     lock word (uint64): bit 62 exclusive, low 32 bits shared holders
//	64    accumulate lock (uint32 spin lock): held while an accumulate reads,
//	      combines and writes this process's window memory
//	128   region table generation (uint64, a sequence lock: odd while changing)
//	136   attached regions (uint64)
//	256   regions: maxRegions x 64 bytes, a dynamic window's attached memory and
//	      memory handles: base, size, the MPI_Alloc_mem block holding it (memfd plus
//	      one, serial, block base, block size; 0 for other memory), which node peers
//	      may map, and the memory handle's id (0 for MPI_Win_attach's regions)
//	8192  posts: uint32 per window rank (the first pscwRanks), counting the
//	      MPI_Win_post calls of that rank naming this process as an origin
//	12288 completes: uint32 per window rank, counting that rank's MPI_Win_complete
//	      calls naming this process as a target
//	16384 notifications: uint32 per notification id (maxNotifyIDs), counting the
//	      arrivals of notifying operations on this process's memory (notify.go)
const (
	stateSize     = 20480
	offNotify     = 16384
	maxNotifyIDs  = 1024
	regionsEnd    = 8192
	offPosts      = 8192
	offCompletes  = 12288
	pscwRanks     = 1024
	offLock       = 0
	offAccLock    = 64
	offRegionGen  = 128
	offRegionN    = 136
	offRegions    = 256
	regionLen     = 64
	maxRegions    = (regionsEnd - offRegions) / regionLen
	lockExclusive = uint64(1) << 62
)

// state is a view of one state page, this process's or a peer's.
type state struct{ p unsafe.Pointer }

func (s state) word(off uintptr) *atomic.Uint64 { return (*atomic.Uint64)(unsafe.Add(s.p, off)) }

// tryLock takes the passive-target lock, shared or exclusive, if it is free for that.
func (s state) tryLock(exclusive bool) bool {
	w := s.word(offLock)
	if exclusive {
		return w.CompareAndSwap(0, lockExclusive)
	}
	for {
		v := w.Load()
		if v&lockExclusive != 0 {
			return false
		}
		if w.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// unlock releases a lock tryLock took. It reports false when the lock was not held
// that way (a forged or repeated unlock from a peer), leaving it unchanged.
func (s state) unlock(exclusive bool) bool {
	w := s.word(offLock)
	for {
		v := w.Load()
		var next uint64
		switch {
		case exclusive && v == lockExclusive:
			next = 0
		case !exclusive && v&lockExclusive == 0 && v > 0:
			next = v - 1
		default:
			return false
		}
		if w.CompareAndSwap(v, next) {
			return true
		}
	}
}

// accLock takes the accumulate lock. Holders never wait for anything while they hold
// it, so spinning (yielding now and then) is enough.
func (s state) accLock() {
	w := (*atomic.Uint32)(unsafe.Add(s.p, offAccLock))
	for spins := 0; !w.CompareAndSwap(0, 1); spins++ {
		if spins > 64 {
			runtime.Gosched()
		}
	}
}

func (s state) accUnlock() { (*atomic.Uint32)(unsafe.Add(s.p, offAccLock)).Store(0) }

// region is one attached piece of a dynamic window, and the shareable block that
// holds it, if any.
type region struct {
	base, size uint64
	memfd      int64 // the MPI_Alloc_mem block's memfd plus one; 0: not in one
	serial     uint64
	blockBase  uint64
	blockSize  uint64
	id         uint64 // the memory handle's id (memhandle.go); 0: attached
}

func (s state) regionAt(i int) *[8]atomic.Uint64 {
	return (*[8]atomic.Uint64)(unsafe.Add(s.p, offRegions+regionLen*i))
}

func (r region) words() [8]uint64 {
	return [8]uint64{r.base, r.size, uint64(r.memfd), r.serial, r.blockBase, r.blockSize, r.id, 0}
}

// regions reads the regions consistently (the owner may be changing them).
func (s state) regions(into []region) []region {
	rs, _ := s.regionsGen(into)
	return rs
}

// regionsGen is regions, with the generation it read them at.
func (s state) regionsGen(into []region) ([]region, uint64) {
	gen, n := s.word(offRegionGen), s.word(offRegionN)
	for {
		g := gen.Load()
		if g&1 != 0 {
			runtime.Gosched()
			continue
		}
		into = into[:0]
		k := min(int(n.Load()), maxRegions)
		for i := 0; i < k; i++ {
			r := s.regionAt(i)
			into = append(into, region{r[0].Load(), r[1].Load(), int64(r[2].Load()), r[3].Load(), r[4].Load(), r[5].Load(), r[6].Load()})
		}
		if gen.Load() == g {
			return into, g
		}
	}
}

// setRegions publishes the owner's attached regions.
func (s state) setRegions(rs []region) {
	gen := s.word(offRegionGen)
	gen.Add(1)
	for i, r := range rs {
		a := s.regionAt(i)
		for j, v := range r.words() {
			a[j].Store(v)
		}
	}
	s.word(offRegionN).Store(uint64(len(rs)))
	gen.Add(1)
}

// covers reports whether [addr, addr+n) lies inside one region.
func covers(rs []region, addr, n uint64) bool { return regionOf(rs, addr, n) >= 0 }

// regionOf is the index of the region holding [addr, addr+n), or -1.
func regionOf(rs []region, addr, n uint64) int {
	for i, r := range rs {
		if addr >= r.base && addr-r.base <= r.size && n <= r.size-(addr-r.base) {
			return i
		}
	}
	return -1
}

// pscwCounter is the post (offPosts) or complete (offCompletes) counter of window
// rank r in this state page.
func (s state) pscwCounter(off uintptr, r int) *atomic.Uint32 {
	return (*atomic.Uint32)(unsafe.Add(s.p, off+4*uintptr(r)))
}

// notifyCounter is the arrivals counter of notification id.
func (s state) notifyCounter(id int) *atomic.Uint32 {
	return (*atomic.Uint32)(unsafe.Add(s.p, offNotify+4*uintptr(id)))
}
