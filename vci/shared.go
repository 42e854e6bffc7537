package vci

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Shared is the part of a VCI that C fast paths read and write (vci.h's
// mpix_vci_shared mirrors it; Layout gives its Go side to the load-time check). It
// lives outside the Go heap, on cache lines of its own, so that C may keep pointers to it.
type Shared struct {
	// Lock is the VCI's lock, taken by Go and C alike: 0 free, 1 held, 2 held with
	// sleepers (a futex word; see Lock).
	Lock uint32
	// Idle says, under Lock, what the Go side holds: IdleRecv when no receive is posted,
	// no message waits unmatched and no protocol (rendezvous, synchronous send,
	// collective schedule) waits for progress; IdleSend when no send is queued. C
	// receives only when both bits are set and sends only with IdleSend, so it never
	// overtakes Go, and never spins while Go has requests that need progress.
	Idle      uint32
	Locks     uint64  // acquisitions of Lock, counted under it (MPI_T mpix_vci_lock_acquisitions)
	SpinLimit uint32  // empty polls a C wait may spin before it hands over to Go
	Owned     uint32  // 1: one single-thread communicator owns the VCI, nobody takes Lock
	Shm       uintptr // the shared-memory transport's C view of the VCI's endpoint, or 0
	FastMsgs  uint64  // messages C sent or received without Go, counted under Lock (MPI_T mpix_fastpath_messages)
	Index     uint32  // the VCI's index, which C's lite request handles carry
	_         uint32
	Lite      unsafe.Pointer // C's lite receive state, made by C on the VCI's first lite receive (under Lock), or nil
	_         [64 - 56]byte
}

// Idle bits.
const (
	IdleRecv = 1 << iota
	IdleSend
)

// sharedAlloc carves cache-line aligned blocks for VCIs out of anonymous mappings; VCIs
// live as long as the process, so nothing is returned.
var sharedAlloc struct {
	sync.Mutex
	free []byte
}

func newShared(spinLimit int) *Shared {
	size := int(unsafe.Sizeof(Shared{}))
	sharedAlloc.Lock()
	defer sharedAlloc.Unlock()
	if len(sharedAlloc.free) < size {
		mem, err := syscall.Mmap(-1, 0, 64<<10, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
		if err != nil {
			panic("mpix: cannot map VCI state: " + err.Error())
		}
		sharedAlloc.free = mem
	}
	v := (*Shared)(unsafe.Pointer(&sharedAlloc.free[0]))
	sharedAlloc.free = sharedAlloc.free[size:]
	v.Idle = IdleRecv | IdleSend
	v.SpinLimit = uint32(spinLimit)
	return v
}

// futex(2) operations on process-private words (FUTEX_WAIT or FUTEX_WAKE with
// FUTEX_PRIVATE_FLAG), for the lock and for other sleeps on words outside the Go heap.
const (
	FutexWaitPrivate = 0 | 128
	FutexWakePrivate = 1 | 128
)

// lock takes the lock word: a compare-and-swap when it is free, a short spin, then a
// futex sleep (Drepper's "futexes are tricky", mutex 2). vci.h's mpix_vci_lock is the
// same.
func (v *Shared) lock() {
	if atomic.CompareAndSwapUint32(&v.Lock, 0, 1) {
		return
	}
	for range 100 {
		if atomic.LoadUint32(&v.Lock) == 0 && atomic.CompareAndSwapUint32(&v.Lock, 0, 1) {
			return
		}
	}
	for atomic.SwapUint32(&v.Lock, 2) != 0 {
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&v.Lock)), FutexWaitPrivate, 2, 0, 0, 0)
	}
}

// tryLock takes the lock only if it is free.
func (v *Shared) tryLock() bool {
	return atomic.LoadUint32(&v.Lock) == 0 && atomic.CompareAndSwapUint32(&v.Lock, 0, 1)
}

func (v *Shared) unlock() {
	if atomic.SwapUint32(&v.Lock, 0) == 2 {
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&v.Lock)), FutexWakePrivate, 1, 0, 0, 0)
	}
}
