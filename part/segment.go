package part

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"mpix/core"
)

// segment is the landing page a receiver shares with its node peer: a file under
// /dev/shm that the receiver makes and the sender maps, then removes.
type segment struct {
	mem  []byte
	path string // the file while it exists
}

// flagPrefix starts the name of every flag file of this job.
func flagPrefix() string { return fmt.Sprintf("/dev/shm/mpix-%s-part", core.NodeJob()) }

// flagPath names the landing page file of this process's receive request id.
func flagPath(id uint32) string {
	return fmt.Sprintf("%s%d-%d", flagPrefix(), core.CommWorld.Rank, id)
}

func pages(n int64) int { return int(max((n+4095)&^4095, 4096)) }

// newSegment makes and maps a zeroed file of n bytes at path.
func newSegment(path string, n int64) (*segment, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating partition flags %s: %v", path, err)
	}
	defer f.Close()
	if err := unix.Fallocate(int(f.Fd()), 0, 0, int64(pages(n))); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("allocating partition flags %s: %v", path, err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, pages(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("mapping partition flags %s: %v", path, err)
	}
	return &segment{mem: mem, path: path}, nil
}

// openSegment maps the peer's file of at least n bytes and removes it: the two
// mappings are all that is left.
func openSegment(path string, n int64) (*segment, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer os.Remove(path)
	if fi, err := f.Stat(); err != nil || fi.Size() < n {
		return nil, fmt.Errorf("partition flags %s are smaller than announced", path)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, pages(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &segment{mem: mem}, nil
}

// close unmaps the page and removes its file if the peer has not.
func (s *segment) close() {
	if s.path != "" {
		os.Remove(s.path)
	}
	unix.Munmap(s.mem)
	s.mem = nil
}

// openPage maps a receiver's landing page of rparts partitions at path, which must be
// one of this job's.
func openPage(path string, rparts int) (*segment, error) {
	if !strings.HasPrefix(path, flagPrefix()) || strings.Contains(path[len(flagPrefix()):], "/") {
		return nil, fmt.Errorf("%q is not a landing page of this job", path)
	}
	return openSegment(path, landingBytes(rparts))
}
