package rma

import (
	"sync/atomic"

	"mpix/core"
	"mpix/core/datatype"
)

// Assertions (MPICH's values) and lock types.
const (
	ModeNoCheck   = 1024
	ModeNoStore   = 2048
	ModeNoPut     = 4096
	ModeNoPrecede = 8192
	ModeNoSucceed = 16384

	LockExclusive = 234
	LockShared    = 235
)

const allModes = ModeNoCheck | ModeNoStore | ModeNoPut | ModeNoPrecede | ModeNoSucceed

// Tags of the window's private communicator.
const (
	tagPost = 1 // MPI_Win_post to each origin
	tagDone = 2 // MPI_Win_complete to each target
)

// epochs is this process's synchronization state on a window (under Win.mu).
type epochs struct {
	fence    bool         // between two fences (the last one without MPI_MODE_NOSUCCEED)
	started  map[int]bool // MPI_Win_start's targets, until MPI_Win_complete
	posted   map[int]bool // MPI_Win_post's origins whose MPI_Win_complete has not arrived
	exposing bool         // between MPI_Win_post and the MPI_Win_wait or Win_test that ends it
	locks    map[int]lockHeld
	lockAll  bool
	allCheck bool // lock_all took the shared locks (no MPI_MODE_NOCHECK)
}

type lockHeld struct {
	exclusive bool
	taken     bool // false with MPI_MODE_NOCHECK: nothing to release
}

func checkAssert(assert int, allowed int, what string) error {
	if assert&^allowed != 0 {
		return core.Errorf(core.ErrAssert, "%s: assert %#x has bits it does not take", what, assert)
	}
	return nil
}

// synchronizes refuses the synchronization calls on a memory-handle window, whose
// epochs are its parent's ([RMA] sec. 4.2).
func (w *Win) synchronizes(what string) error {
	if w.mh != nil {
		return core.Errorf(core.ErrRMASync, "%s on a window from MPIX_Win_from_memhandle: lock and unlock its parent window instead", what)
	}
	return nil
}

// canAccess reports whether an access epoch covers rank. Operations of every thread
// ask, so it reads the published epochs, without the window's lock.
func (w *window) canAccess(rank int) error {
	if w.epochAll.Load()&epochAny != 0 || w.epochRank[rank].Load() != 0 {
		return nil
	}
	return core.Errorf(core.ErrRMASync, "no access epoch to rank %d is open on this window (fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all)", rank)
}

// checkFree refuses to free a window with an epoch open.
func (e *epochs) checkFree() error {
	if len(e.started) > 0 || e.exposing || len(e.locks) > 0 || e.lockAll {
		return core.Errorf(core.ErrRMASync, "MPI_Win_free with an epoch still open")
	}
	return nil
}

// Fence is MPI_Win_fence: it completes every operation this process started, waits
// until every process has done the same, and opens the next epoch unless
// MPI_MODE_NOSUCCEED says none follows.
func (w *Win) Fence(assert int) error {
	if err := w.synchronizes("MPI_Win_fence"); err != nil {
		return err
	}
	if err := checkAssert(assert, allModes&^ModeNoCheck, "MPI_Win_fence"); err != nil {
		return err
	}
	w.mu.Lock()
	if len(w.ep.started) > 0 || w.ep.exposing || len(w.ep.locks) > 0 || w.ep.lockAll {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_fence inside a PSCW or passive-target epoch")
	}
	w.mu.Unlock()
	err := w.flushAll(processScope)
	if e := barrier(w.comm); err == nil {
		err = e
	}
	memoryBarrier()
	w.mu.Lock()
	w.ep.fence = assert&ModeNoSucceed == 0
	w.publishEpochs()
	w.mu.Unlock()
	return err
}

var fenceWord atomic.Uint64

// byteType is MPI_BYTE, for the epoch messages, which carry no data.
var byteType = datatype.Predefined(0x4c00010d)

// memoryBarrier orders this thread's loads and stores of window memory with other
// processes' (a locked instruction is a full barrier).
func memoryBarrier() { fenceWord.Add(1) }

// Sync is MPI_Win_sync.
func (w *window) Sync() error {
	memoryBarrier()
	return nil
}

// ranksOf translates a group's members into window ranks.
func (w *window) ranksOf(g *core.Group, what string) ([]int, error) {
	wg := w.comm.Group()
	out := make([]int, g.Size())
	for i := range out {
		r := wg.RankOfWorld(g.WorldRank(i))
		if r == core.Undefined {
			return nil, core.Errorf(core.ErrGroup, "%s: group member %d is not in the window's group", what, i)
		}
		out[i] = r
	}
	return out, nil
}

// Post is MPI_Win_post: an exposure epoch for the origins in g, each told so.
func (w *Win) Post(g *core.Group, assert int) error {
	if err := w.synchronizes("MPI_Win_post"); err != nil {
		return err
	}
	if err := checkAssert(assert, ModeNoCheck|ModeNoStore|ModeNoPut, "MPI_Win_post"); err != nil {
		return err
	}
	ranks, err := w.ranksOf(g, "MPI_Win_post")
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.ep.exposing {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_post while an exposure epoch is open")
	}
	w.ep.exposing = true
	w.ep.posted = map[int]bool{}
	for _, r := range ranks {
		w.ep.posted[r] = true
	}
	w.mu.Unlock()
	memoryBarrier()
	for _, r := range ranks {
		if err := w.notify(r, offPosts, tagPost); err != nil {
			return err
		}
	}
	return nil
}

// PSCW's notices between node peers are counters in the receiver's state page, one
// per sender (post counts and complete counts): no message, no engine. Other ranks
// (and ranks past pscwRanks) get a message; a receiver takes whichever comes, so the
// two sides need not agree on which one is used.

// notify tells rank r of this process's post (offPosts) or complete (offCompletes).
func (w *window) notify(r int, off uintptr, tag int) error {
	tg, me := &w.targets[r], w.comm.Rank
	if tg.st.p != nil && tg.how != reachAM && me < pscwRanks {
		tg.st.pscwCounter(off, me).Add(1)
		return nil
	}
	return core.Send(nil, 0, byteType, r, tag, w.comm, core.ModeStandard)
}

// arrived reports whether rank r's next notice has come, and consumes it. A node
// peer's notice is a counter step; a message is looked for only when probe says so
// (every time for other ranks, now and then for node peers, in case one of them could
// not map this process's page and sent one instead).
func (w *window) arrived(r int, off uintptr, tag int, probe bool) (bool, error) {
	seen := w.pscwSeen(off)
	if r < pscwRanks {
		if c := w.own.pscwCounter(off, r); c.Load() != seen[r] {
			seen[r]++
			return true, nil
		}
	}
	if !probe && w.targets[r].st.p != nil && w.targets[r].how != reachAM {
		return false, nil
	}
	ok, _, err := core.Iprobe(r, tag, w.comm)
	if err != nil || !ok {
		return false, err
	}
	_, err = core.Recv(nil, 0, byteType, r, tag, w.comm)
	return err == nil, err
}

// await waits for rank r's next notice.
func (w *window) await(r int, off uintptr, tag int) error {
	var err error
	tries := 0
	w.comm.Engine().WaitOn(func() bool {
		tries++
		ok, e := w.arrived(r, off, tag, tries%64 == 0)
		err = e
		return ok || e != nil
	})
	return err
}

// pscwSeen is how many notices of each kind this process consumed, per rank.
func (w *window) pscwSeen(off uintptr) []uint32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[0] == nil {
		n := min(len(w.targets), pscwRanks)
		w.seen[0], w.seen[1] = make([]uint32, n), make([]uint32, n)
	}
	if off == offCompletes {
		return w.seen[1]
	}
	return w.seen[0]
}

// Start is MPI_Win_start: an access epoch to the targets in g, once each has posted
// (not waited for under MPI_MODE_NOCHECK, where the user promises they have).
func (w *Win) Start(g *core.Group, assert int) error {
	if err := w.synchronizes("MPI_Win_start"); err != nil {
		return err
	}
	if err := checkAssert(assert, ModeNoCheck, "MPI_Win_start"); err != nil {
		return err
	}
	ranks, err := w.ranksOf(g, "MPI_Win_start")
	if err != nil {
		return err
	}
	w.mu.Lock()
	if len(w.ep.started) > 0 || w.ep.lockAll || len(w.ep.locks) > 0 {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_start while an access epoch is open")
	}
	w.mu.Unlock()
	if assert&ModeNoCheck == 0 {
		for _, r := range ranks {
			if err := w.await(r, offPosts, tagPost); err != nil {
				return err
			}
		}
	}
	memoryBarrier()
	w.mu.Lock()
	w.ep.started = map[int]bool{}
	for _, r := range ranks {
		w.ep.started[r] = true
	}
	w.ep.fence = false
	w.publishEpochs()
	w.mu.Unlock()
	return nil
}

// Complete is MPI_Win_complete: the operations to each target are done there, and
// each is told so.
func (w *Win) Complete() error {
	if err := w.synchronizes("MPI_Win_complete"); err != nil {
		return err
	}
	w.mu.Lock()
	started := w.ep.started
	w.mu.Unlock()
	if started == nil {
		return core.Errorf(core.ErrRMASync, "MPI_Win_complete without MPI_Win_start")
	}
	var first error
	for r := range started {
		if err := w.flushTarget(r, processScope); err != nil && first == nil {
			first = err
		}
	}
	memoryBarrier()
	for r := range started {
		if err := w.notify(r, offCompletes, tagDone); err != nil && first == nil {
			first = err
		}
	}
	w.mu.Lock()
	w.ep.started = nil
	w.publishEpochs()
	w.mu.Unlock()
	return first
}

// Wait is MPI_Win_wait: every origin of the exposure epoch has completed.
func (w *Win) Wait() error {
	_, err := w.endExposure(true)
	return err
}

// Test is MPI_Win_test: Wait if it would not block.
func (w *Win) Test() (bool, error) { return w.endExposure(false) }

func (w *Win) endExposure(block bool) (bool, error) {
	if err := w.synchronizes("MPI_Win_wait or MPI_Win_test"); err != nil {
		return false, err
	}
	w.mu.Lock()
	if !w.ep.exposing {
		w.mu.Unlock()
		return false, core.Errorf(core.ErrRMASync, "MPI_Win_wait or MPI_Win_test without MPI_Win_post")
	}
	w.mu.Unlock()
	for {
		w.mu.Lock()
		var next int = -1
		for r := range w.ep.posted {
			next = r
			break
		}
		w.mu.Unlock()
		if next < 0 {
			break
		}
		if !block {
			ok, err := w.arrived(next, offCompletes, tagDone, true)
			if err != nil || !ok {
				return false, err
			}
		} else if err := w.await(next, offCompletes, tagDone); err != nil {
			return false, err
		}
		w.mu.Lock()
		delete(w.ep.posted, next)
		w.mu.Unlock()
	}
	memoryBarrier()
	w.mu.Lock()
	w.ep.exposing, w.ep.posted = false, nil
	w.mu.Unlock()
	return true, nil
}

// Lock is MPI_Win_lock.
func (w *Win) Lock(lockType, rank, assert int) error {
	if err := w.synchronizes("MPI_Win_lock"); err != nil {
		return err
	}
	if lockType != LockExclusive && lockType != LockShared {
		return core.Errorf(core.ErrLocktype, "lock type %d is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED", lockType)
	}
	if err := checkAssert(assert, ModeNoCheck, "MPI_Win_lock"); err != nil {
		return err
	}
	if rank == core.ProcNull {
		return nil
	}
	if rank < 0 || rank >= len(w.targets) {
		return core.Errorf(core.ErrRank, "MPI_Win_lock: rank %d is not in the window's group of %d", rank, len(w.targets))
	}
	excl := lockType == LockExclusive
	w.mu.Lock()
	if _, ok := w.ep.locks[rank]; ok || w.ep.lockAll || len(w.ep.started) > 0 {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_lock: rank %d is already in an access epoch of this process", rank)
	}
	if w.info.noLocks {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_lock on a window created with no_locks=true")
	}
	if w.ep.locks == nil {
		w.ep.locks = map[int]lockHeld{}
	}
	w.ep.locks[rank] = lockHeld{exclusive: excl} // reserved while it is being taken
	w.publishEpochs()
	w.mu.Unlock()
	taken := assert&ModeNoCheck == 0
	if taken {
		if err := w.acquire(rank, excl); err != nil {
			w.mu.Lock()
			delete(w.ep.locks, rank)
			w.publishEpochs()
			w.mu.Unlock()
			return err
		}
	}
	memoryBarrier()
	w.mu.Lock()
	w.ep.locks[rank] = lockHeld{exclusive: excl, taken: taken}
	w.ep.fence = false
	w.publishEpochs()
	w.mu.Unlock()
	return nil
}

// Unlock is MPI_Win_unlock: the operations to rank are complete there, then the lock
// is released.
func (w *Win) Unlock(rank int) error {
	if err := w.synchronizes("MPI_Win_unlock"); err != nil {
		return err
	}
	if rank == core.ProcNull {
		return nil
	}
	w.mu.Lock()
	h, ok := w.ep.locks[rank]
	w.mu.Unlock()
	if !ok {
		return core.Errorf(core.ErrRMASync, "MPI_Win_unlock: rank %d is not locked by this process", rank)
	}
	err := w.flushTarget(rank, processScope)
	memoryBarrier()
	if h.taken {
		if e := w.releaseLock(rank, h.exclusive); err == nil {
			err = e
		}
	}
	w.mu.Lock()
	delete(w.ep.locks, rank)
	w.publishEpochs()
	w.mu.Unlock()
	return err
}

// LockAll is MPI_Win_lock_all: a shared lock on every rank.
func (w *Win) LockAll(assert int) error {
	if err := w.synchronizes("MPI_Win_lock_all"); err != nil {
		return err
	}
	if err := checkAssert(assert, ModeNoCheck, "MPI_Win_lock_all"); err != nil {
		return err
	}
	w.mu.Lock()
	if w.ep.lockAll || len(w.ep.locks) > 0 || len(w.ep.started) > 0 {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_lock_all inside another access epoch")
	}
	if w.info.noLocks {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_lock_all on a window created with no_locks=true")
	}
	w.ep.lockAll = true
	w.publishEpochs()
	w.mu.Unlock()
	check := assert&ModeNoCheck == 0
	if check {
		for r := range w.targets {
			if err := w.acquire(r, false); err != nil {
				for q := 0; q < r; q++ {
					w.releaseLock(q, false)
				}
				w.mu.Lock()
				w.ep.lockAll = false
				w.publishEpochs()
				w.mu.Unlock()
				return err
			}
		}
	}
	memoryBarrier()
	w.mu.Lock()
	w.ep.allCheck, w.ep.fence = check, false
	w.publishEpochs()
	w.mu.Unlock()
	return nil
}

// UnlockAll is MPI_Win_unlock_all.
func (w *Win) UnlockAll() error {
	if err := w.synchronizes("MPI_Win_unlock_all"); err != nil {
		return err
	}
	w.mu.Lock()
	if !w.ep.lockAll {
		w.mu.Unlock()
		return core.Errorf(core.ErrRMASync, "MPI_Win_unlock_all without MPI_Win_lock_all")
	}
	check := w.ep.allCheck
	w.mu.Unlock()
	err := w.flushAll(processScope)
	memoryBarrier()
	if check {
		for r := range w.targets {
			if e := w.releaseLock(r, false); err == nil {
				err = e
			}
		}
	}
	w.mu.Lock()
	w.ep.lockAll, w.ep.allCheck = false, false
	w.publishEpochs()
	w.mu.Unlock()
	return err
}

// passive reports whether a passive-target epoch covers rank (-1: any rank), as the
// flushes require; like canAccess, without the window's lock.
func (w *window) passive(rank int, what string) error {
	if w.epochAll.Load()&epochPassive != 0 {
		return nil
	}
	if rank >= 0 && w.epochRank[rank].Load()&epochLocked != 0 {
		return nil
	}
	if rank < 0 {
		for r := range w.epochRank {
			if w.epochRank[r].Load()&epochLocked != 0 {
				return nil
			}
		}
	}
	return core.Errorf(core.ErrRMASync, "%s outside a passive-target epoch", what)
}

// flushScope is whose operations the handle's flushes complete, for a call by thread by.
func (w *Win) flushScope(by uint64) scope {
	if w.info.threadScope {
		return scope{thread: by}
	}
	return processScope
}

// Flush is MPI_Win_flush and MPI_Win_flush_local, called by thread by: operations to
// rank are complete at the target (which also completes them locally); with thread
// scope, those by that thread.
func (w *Win) Flush(rank int, by uint64, what string) error {
	if rank == core.ProcNull {
		return nil
	}
	if rank < 0 || rank >= len(w.targets) {
		return core.Errorf(core.ErrRank, "%s: rank %d is not in the window's group of %d", what, rank, len(w.targets))
	}
	if w.mh != nil && rank != w.mh.rank {
		return core.Errorf(core.ErrRank, "%s: a memory-handle window has one target, rank %d, not %d", what, w.mh.rank, rank)
	}
	if err := w.passive(rank, what); err != nil {
		return err
	}
	err := w.flushTarget(rank, w.flushScope(by))
	w.serve()
	memoryBarrier()
	return err
}

// serve makes one round of progress on a window whose peers reach this process through
// its engine: a process that spins on its own memory (a lock built on
// MPI_Compare_and_swap to itself, with flushes) must still answer them.
func (w *window) serve() {
	if w.served {
		w.comm.Engine().Progress()
	}
}

// FlushAll is MPI_Win_flush_all and MPI_Win_flush_local_all.
func (w *Win) FlushAll(by uint64, what string) error {
	if err := w.passive(-1, what); err != nil {
		return err
	}
	var err error
	if w.mh != nil {
		err = w.flushTarget(w.mh.rank, w.flushScope(by))
	} else {
		err = w.flushAll(w.flushScope(by))
	}
	w.serve()
	memoryBarrier()
	return err
}

// acquire takes rank's lock: on its state page when this process maps it, else
// through the target's engine.
func (w *window) acquire(rank int, excl bool) error {
	tg := &w.targets[rank]
	if tg.st.p == nil {
		return w.amLock(tg, excl)
	}
	e := w.comm.Engine()
	e.WaitOn(func() bool { return tg.st.tryLock(excl) })
	return nil
}

func (w *window) releaseLock(rank int, excl bool) error {
	tg := &w.targets[rank]
	if tg.st.p == nil {
		return w.amUnlock(tg, excl)
	}
	if !tg.st.unlock(excl) {
		return core.Errorf(core.ErrRMASync, "rank %d's window lock was not held as this process took it", rank)
	}
	return nil
}
