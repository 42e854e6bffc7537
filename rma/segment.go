package rma

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/internal/shmfile"
)

// segment is memory this process maps: its own window memory and state page, or a
// node peer's (a file under /dev/shm), or anonymous memory when nothing shares it.
type segment struct {
	mem  []byte
	path string // the file while it exists (removed once every peer mapped it)
}

const pageSize = 4096

func roundPage(n int64) int64 { return (n + pageSize - 1) &^ (pageSize - 1) }

// segmentPath names the file of rank r's segment of the window with context ctx.
func segmentPath(job string, ctx uint32, r int) string {
	return fmt.Sprintf("/dev/shm/mpix-%s-win%x-%d", job, ctx, r)
}

// createSegment makes a segment of n bytes: a file at path that node peers open, or
// anonymous memory when path is "".
func createSegment(path string, n int64) (*segment, error) {
	if path == "" {
		n = max(roundPage(n), pageSize)
		mem, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
		if err != nil {
			return nil, fmt.Errorf("allocating %d bytes of window memory: %v", n, err)
		}
		return &segment{mem: mem}, nil
	}
	mem, err := shmfile.Create(path, n, "window memory")
	if err != nil {
		return nil, err
	}
	return &segment{mem: mem, path: path}, nil
}

// openSegment maps a peer's segment of n bytes.
func openSegment(path string, n int64) (*segment, error) {
	mem, err := shmfile.Open(path, max(roundPage(n), pageSize), "window memory")
	if err != nil {
		return nil, err
	}
	return &segment{mem: mem}, nil
}

// at is the address of byte off of the segment.
func (s *segment) at(off int64) unsafe.Pointer { return unsafe.Pointer(&s.mem[off]) }

// unlink removes the segment's file; the mappings stay.
func (s *segment) unlink() {
	if s.path != "" {
		os.Remove(s.path)
		s.path = ""
	}
}

// close unmaps the segment (and removes its file if it is still there).
func (s *segment) close() {
	if s == nil {
		return
	}
	s.unlink()
	if s.mem != nil {
		unix.Munmap(s.mem)
		s.mem = nil
	}
}
