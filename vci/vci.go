package vci

import "sync/atomic"

// VCI is one stream of the process: its lock (in the page shared with C), whether a
// single-thread communicator owns it, the counters MPI_T shows, and when a thread
// that polls only this VCI owes the others a round of progress. The engine that
// matches and runs protocols on the stream embeds it.
type VCI struct {
	sh       *Shared
	raceSync atomic.Uint32 // see raceEnabled
	index    int
	// globalEvery is how many of this VCI's empty polls make one round of progress on
	// every VCI (0: never); of is how many VCIs the process has.
	globalEvery, of int
	// misses counts calls that polled only this VCI and left their operation unfinished
	// (Test, Iprobe, arena spins). It has a line of its own: threads testing on one VCI
	// all add to it, while every call reads owned.
	_      [64]byte
	misses atomic.Uint32
	_      [60]byte
	// owned: a single-thread communicator owns this VCI and uses it without the lock;
	// other threads' global progress leaves it alone.
	owned atomic.Bool
	_     [64]byte
}

// New makes VCI index whose C waits spin spinLimit empty polls before they hand over
// to Go.
func New(index, spinLimit int) *VCI {
	v := &VCI{sh: newShared(spinLimit), index: index}
	v.sh.Index = uint32(index)
	return v
}

// Index is the VCI's index in the process: VCI v of one process talks to VCI v of
// the others.
func (v *VCI) Index() int { return v.index }

// Shared is the VCI's page shared with C.
func (v *VCI) Shared() *Shared { return v.sh }

// SetGlobalProgress sets the global-progress rule: every-th empty poll of this VCI
// makes a round on all n VCIs of the process (every <= 0: never).
func (v *VCI) SetGlobalProgress(every, n int) { v.globalEvery, v.of = every, n }

// GlobalDue reports whether a wait that made since empty polls of this VCI since its
// last global round owes one now (ICS'20 §4.3: an operation on one VCI may need
// another's progress, as in the paper's Figure 9).
func (v *VCI) GlobalDue(since int) bool {
	return v.globalEvery > 0 && since >= v.globalEvery && v.of > 1
}

// Missed counts an operation that polled only this VCI and is not finished yet, and
// reports whether it is the one that owes every other VCI a round of progress.
func (v *VCI) Missed() bool {
	return v.globalEvery > 0 && v.of > 1 && v.misses.Add(1)%uint32(v.globalEvery) == 0
}

// GlobalOff reports whether global progress is turned off
// (MPIX_GLOBAL_PROGRESS_INTERVAL=0): waits then progress only their own VCI.
func (v *VCI) GlobalOff() bool { return v.globalEvery <= 0 }

// Lock takes the VCI's lock and counts it.
func (v *VCI) Lock() {
	v.sh.lock()
	v.acquired()
}

// TryLock takes the VCI's lock if it is free, and counts it.
func (v *VCI) TryLock() bool {
	if !v.sh.tryLock() {
		return false
	}
	v.acquired()
	return true
}

// acquired counts an acquisition of the lock and shows it to the race detector.
func (v *VCI) acquired() {
	v.sh.Locks++
	if raceEnabled {
		v.raceSync.Load()
	}
}

// Unlock releases the VCI's lock.
func (v *VCI) Unlock() {
	if raceEnabled {
		v.raceSync.Store(0)
	}
	v.sh.unlock()
}

// TryLockQuiet takes the lock if it is free without counting it (diagnostics, which
// must not change the counters they may report); UnlockQuiet releases it.
func (v *VCI) TryLockQuiet() bool { return v.sh.tryLock() }
func (v *VCI) UnlockQuiet()       { v.sh.unlock() }

// Owned reports whether a single-thread communicator owns the VCI: its thread then
// uses it without the lock.
func (v *VCI) Owned() bool { return v.owned.Load() }

// SetOwned marks the VCI as owned by one single-thread communicator (or not), for Go
// and for C's fast paths, which then skip the lock too.
func (v *VCI) SetOwned(owned bool) {
	v.owned.Store(owned)
	o := uint32(0)
	if owned {
		o = 1
	}
	atomic.StoreUint32(&v.sh.Owned, o)
}

// FastMessages is how many messages C's fast paths moved on this VCI.
func (v *VCI) FastMessages() uint64 {
	v.sh.lock()
	defer v.sh.unlock()
	return v.sh.FastMsgs
}

// LockCount is how many times the VCI's lock was taken (for the MPI_T counter and
// the tests that check Table 1 of the ICS'20 paper).
func (v *VCI) LockCount() uint64 {
	v.sh.lock()
	defer v.sh.unlock()
	return v.sh.Locks
}
