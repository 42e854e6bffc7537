package shm

import (
	"fmt"
	"syscall"
	"unsafe"

	"mpix/transport"
)

// readChunk bounds one process_vm_readv call. The kernel moves at most MAX_RW_COUNT
// (2 GiB minus a page) per call whatever the iovecs say, so larger reads take several
// calls; each call also may stop early (a partial read), and the loop in ReadFrom
// continues from where it stopped. A variable so that tests can shrink it.
var readChunk = 1 << 30

// remoteIovec is a struct iovec naming memory in another process: its base is an
// address there, not a Go pointer, so it must not be a pointer type.
type remoteIovec struct {
	base uintptr
	len  uint64
}

// processVMReadv reads remote (in process pid) into local. Tests replace it.
var processVMReadv = func(pid int, local *syscall.Iovec, remote *remoteIovec) (int, syscall.Errno) {
	n, _, errno := syscall.Syscall6(sysProcessVMReadv, uintptr(pid),
		uintptr(unsafe.Pointer(local)), 1, uintptr(unsafe.Pointer(remote)), 1, 0)
	return int(n), errno
}

// processVMWritev writes local into remote (in process pid). Tests replace it.
var processVMWritev = func(pid int, local *syscall.Iovec, remote *remoteIovec) (int, syscall.Errno) {
	n, _, errno := syscall.Syscall6(sysProcessVMWritev, uintptr(pid),
		uintptr(unsafe.Pointer(local)), 1, uintptr(unsafe.Pointer(remote)), 1, 0)
	return int(n), errno
}

// ReadFrom copies len(dst) bytes at address addr in node-local rank peer's memory
// into dst with process_vm_readv, one copy and no involvement of the peer. It
// returns transport.ErrNoSingleCopy for a rank on another node, or when the kernel
// refuses (EPERM: ptrace restrictions; ENOSYS): the refusal is remembered, and later
// reads from that peer fail at once.
func (e *Endpoint) ReadFrom(peer int, addr uintptr, dst []byte) error {
	return e.vmCopy(peer, addr, dst, processVMReadv, "read")
}

// WriteTo copies src to address addr in node-local rank peer's memory with
// process_vm_writev: the sender's half of a rendezvous that sender and receiver copy
// together (transport.Writer). Failures are those of ReadFrom.
func (e *Endpoint) WriteTo(peer int, addr uintptr, src []byte) error {
	return e.vmCopy(peer, addr, src, processVMWritev, "write")
}

// vmCopy moves local to or from addr in peer's memory with copy, in chunks.
func (e *Endpoint) vmCopy(peer int, addr uintptr, dst []byte,
	copy func(int, *syscall.Iovec, *remoteIovec) (int, syscall.Errno), what string) error {
	li := e.localIndex(peer)
	if li < 0 || e.noSingle[li] {
		return transport.ErrNoSingleCopy
	}
	if e.closed {
		return ErrClosed
	}
	pid := e.cfg.PIDs[li]
	for done := 0; done < len(dst); {
		n := min(len(dst)-done, readChunk)
		local := syscall.Iovec{Base: &dst[done]}
		local.SetLen(n)
		remote := remoteIovec{base: addr + uintptr(done), len: uint64(n)}
		got, errno := copy(pid, &local, &remote)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EPERM || errno == syscall.ENOSYS:
			e.noSingle[li] = true
			return transport.ErrNoSingleCopy
		case errno != 0:
			return fmt.Errorf("shm: %s %d bytes at %#x of rank %d (pid %d): %w",
				what, n, remote.base, peer, pid, errno)
		case got <= 0 || got > n:
			return fmt.Errorf("shm: %s at %#x of rank %d (pid %d) moved %d of %d bytes",
				what, remote.base, peer, pid, got, n)
		}
		done += got
	}
	return nil
}
