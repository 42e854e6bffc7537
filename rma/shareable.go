package rma

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core"
)

// Shareable memory: MPI_Alloc_mem hands out memory backed by a memfd, so that a
// window over it (MPI_Win_create, MPI_Win_attach) can be mapped by the node's other
// processes (through /proc/<pid>/fd/<fd>) and reached by loads and stores, like an
// allocated window, instead of one process_vm_writev per operation. Memory from
// malloc cannot be shared after the fact; it stays on process_vm_readv/writev.

// allocation is one MPI_Alloc_mem block.
type allocation struct {
	base   uintptr
	size   int64 // mapped bytes (whole pages)
	fd     int
	serial uint64 // unique in this process's life: names the block to peers' caches
}

var shareable struct {
	mu     sync.Mutex
	blocks []allocation // sorted by base
	serial atomic.Uint64
}

// AllocMem is MPI_Alloc_mem: size bytes (at least one page, page-aligned) of
// shareable memory.
func AllocMem(size int64) (unsafe.Pointer, error) {
	if size < 0 {
		return nil, core.Errorf(core.ErrArg, "size must not be negative (%d)", size)
	}
	n := max(roundPage(size), pageSize)
	fd, err := unix.MemfdCreate("mpix-alloc-mem", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, core.Errorf(core.ErrNoMem, "cannot allocate %d bytes: memfd_create: %v", size, err)
	}
	if err := unix.Ftruncate(fd, n); err != nil {
		unix.Close(fd)
		return nil, core.Errorf(core.ErrNoMem, "cannot allocate %d bytes: %v", size, err)
	}
	mem, err := unix.Mmap(fd, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, core.Errorf(core.ErrNoMem, "cannot allocate %d bytes: %v", size, err)
	}
	a := allocation{base: uintptr(unsafe.Pointer(&mem[0])), size: n, fd: fd, serial: shareable.serial.Add(1)}
	shareable.mu.Lock()
	i := sort.Search(len(shareable.blocks), func(i int) bool { return shareable.blocks[i].base > a.base })
	shareable.blocks = append(shareable.blocks, allocation{})
	copy(shareable.blocks[i+1:], shareable.blocks[i:])
	shareable.blocks[i] = a
	shareable.mu.Unlock()
	return unsafe.Pointer(&mem[0]), nil
}

// FreeMem is MPI_Free_mem; it reports false for an address AllocMem did not return.
func FreeMem(p unsafe.Pointer) bool {
	shareable.mu.Lock()
	var a allocation
	found := false
	for i, b := range shareable.blocks {
		if b.base == uintptr(p) {
			a, found = b, true
			shareable.blocks = append(shareable.blocks[:i], shareable.blocks[i+1:]...)
			break
		}
	}
	shareable.mu.Unlock()
	if !found {
		return false
	}
	unix.Munmap(unsafe.Slice((*byte)(p), a.size))
	unix.Close(a.fd)
	return true
}

// blockOf finds the MPI_Alloc_mem block holding [addr, addr+n).
func blockOf(addr uintptr, n int64) (allocation, bool) {
	shareable.mu.Lock()
	defer shareable.mu.Unlock()
	i := sort.Search(len(shareable.blocks), func(i int) bool { return shareable.blocks[i].base > addr }) - 1
	if i < 0 {
		return allocation{}, false
	}
	b := shareable.blocks[i]
	if addr-b.base > uintptr(b.size) || uintptr(n) > uintptr(b.size)-(addr-b.base) {
		return allocation{}, false
	}
	return b, true
}

// mapPeerBlock maps process pid's block fd (size bytes) into this process.
func mapPeerBlock(pid, fd int, size int64) (*segment, error) {
	if size <= 0 || size > 1<<46 {
		return nil, fmt.Errorf("a peer announced a memory block of %d bytes", size)
	}
	return openSegment(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), size)
}
