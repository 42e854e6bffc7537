package part

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"mpix/core"
	"mpix/internal/shmfile"
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

// newSegment makes and maps a zeroed file of n bytes at path.
func newSegment(path string, n int64) (*segment, error) {
	mem, err := shmfile.Create(path, n, "partitioned landing page")
	if err != nil {
		return nil, err
	}
	return &segment{mem: mem, path: path}, nil
}

// openSegment maps the peer's file of at least n bytes and removes it: the two
// mappings are all that is left.
func openSegment(path string, n int64) (*segment, error) {
	defer os.Remove(path)
	mem, err := shmfile.Open(path, n, "partitioned landing page")
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
