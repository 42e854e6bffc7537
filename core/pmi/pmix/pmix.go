//go:build cgo

package pmix

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"mpix/core/pmi"
)

func init() { pmi.RegisterPMIx(Connect) }

// PMIx keys mpix reads (pmix_common.h).
const (
	keyJobSize    = "pmix.job.size"
	keyUnivSize   = "pmix.univ.size"
	keyAppNum     = "pmix.appnum"
	keyLocalPeers = "pmix.lpeers"
)

// client is a PMIx client. libpmix is thread safe, but Put and Commit pair
// up, and one lock keeps the order of the calls simple to reason about.
type client struct {
	mu        sync.Mutex
	nspace    string
	rank      int
	size      int
	universe  int
	appnum    int
	finalized bool
}

// pmixError turns a PMIx status into an error naming the call.
func pmixError(call string, rc C.int) error {
	return fmt.Errorf("pmix: %s: %s (status %d)", call, C.GoString(C.mpix_pmix_strerror(rc)), int(rc))
}

// Connect loads libpmix, initializes it and reads the job's size.
func Connect() (pmi.Client, error) {
	var ns [C.MPIX_PMIX_MAX_NSLEN + 1]C.char
	var rank C.uint32_t
	if rc := C.mpix_pmix_init(&ns[0], &rank); rc != 0 {
		if rc == C.MPIX_PMIX_ENOLIB {
			return nil, fmt.Errorf("pmix: the launcher speaks PMIx, but %s", C.GoString(C.mpix_pmix_error()))
		}
		return nil, pmixError("PMIx_Init", rc)
	}
	c := &client{nspace: C.GoString(&ns[0]), rank: int(rank)}
	size, err := c.getInt(-1, keyJobSize)
	if err != nil {
		return nil, err
	}
	if size <= 0 || c.rank >= int(size) {
		return nil, fmt.Errorf("pmix: job size %d does not hold rank %d", size, c.rank)
	}
	c.size, c.universe = int(size), int(size)
	if u, err := c.getInt(-1, keyUnivSize); err == nil && u >= size {
		c.universe = int(u)
	}
	if a, err := c.getInt(int64(c.rank), keyAppNum); err == nil && a > 0 {
		c.appnum = int(a)
	}
	return c, nil
}

// get reads key of rank proc (-1: the job's attribute) as a number or a
// string.
func (c *client) get(proc int64, key string) (num int64, str string, isStr bool, err error) {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var kind C.int
	var n C.int64_t
	var s *C.char
	rc := C.mpix_pmix_get(C.int64_t(proc), ck, &kind, &n, &s)
	if rc == C.MPIX_PMIX_ERR_NOT_FOUND {
		return 0, "", false, fmt.Errorf("pmix: get %q: %w", key, pmi.ErrNotFound)
	}
	if rc != 0 {
		return 0, "", false, pmixError("PMIx_Get "+key, rc)
	}
	switch kind {
	case 1:
		return int64(n), "", false, nil
	case 2:
		defer C.free(unsafe.Pointer(s))
		return 0, C.GoString(s), true, nil
	}
	return 0, "", false, fmt.Errorf("pmix: get %q: value of a type mpix does not read", key)
}

func (c *client) getInt(proc int64, key string) (int64, error) {
	n, s, isStr, err := c.get(proc, key)
	if err != nil {
		return 0, err
	}
	if isStr {
		return strconv.ParseInt(s, 10, 64)
	}
	return n, nil
}

func (c *client) Protocol() string  { return "PMIx" }
func (c *client) Rank() int         { return c.rank }
func (c *client) Size() int         { return c.size }
func (c *client) AppNum() int       { return c.appnum }
func (c *client) UniverseSize() int { return c.universe }
func (c *client) KVSName() string   { return c.nspace }
func (c *client) Singleton() bool   { return false }

// LocalRanks reads PMIX_LOCAL_PEERS, "0,1,2": the job's ranks on this node.
func (c *client) LocalRanks() ([]int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return nil, fmt.Errorf("pmix: local ranks: %w", pmi.ErrFinalized)
	}
	_, s, isStr, err := c.get(-1, keyLocalPeers)
	if errors.Is(err, pmi.ErrNotFound) {
		return nil, nil // the launcher does not say
	}
	if err != nil {
		return nil, err
	}
	if !isStr {
		return nil, fmt.Errorf("pmix: %s is not a string", keyLocalPeers)
	}
	var local []int
	for f := range strings.SplitSeq(s, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || r < 0 || r >= c.size {
			return nil, fmt.Errorf("pmix: bad %s %q", keyLocalPeers, s)
		}
		local = append(local, r)
	}
	slices.Sort(local)
	return local, nil
}

// Put stores key=value, encoded as under PMI-1 and PMI-2 (a C string ends
// at the first NUL); the value is committed (sent to the local server) at
// the next Fence.
func (c *client) Put(key, value string) error {
	if key == "" || len(key) > 511 {
		return fmt.Errorf("pmix: put: bad key %q", key)
	}
	ck, cv := C.CString(key), C.CString(pmi.EncodeValue(value))
	defer C.free(unsafe.Pointer(ck))
	defer C.free(unsafe.Pointer(cv))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmix: put %q: %w", key, pmi.ErrFinalized)
	}
	if rc := C.mpix_pmix_put(ck, cv); rc != 0 {
		return pmixError("PMIx_Put "+key, rc)
	}
	return nil
}

// Fence commits this process's puts and waits for every process of the
// job, collecting the data.
func (c *client) Fence() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmix: fence: %w", pmi.ErrFinalized)
	}
	if rc := C.mpix_pmix_commit(); rc != 0 {
		return pmixError("PMIx_Commit", rc)
	}
	if rc := C.mpix_pmix_fence(); rc != 0 {
		return pmixError("PMIx_Fence", rc)
	}
	return nil
}

// Get returns the value process rank put under key (PMIx keeps each
// process's values apart; a rank below 0 reads a job-wide attribute). After
// the collecting Fence libpmix answers from its local copy.
func (c *client) Get(rank int, key string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return "", fmt.Errorf("pmix: get %q: %w", key, pmi.ErrFinalized)
	}
	if rank >= c.size {
		return "", fmt.Errorf("pmix: get %q of rank %d in a job of %d", key, rank, c.size)
	}
	_, s, isStr, err := c.get(int64(rank), key)
	if err != nil {
		return "", err
	}
	if !isStr {
		return "", fmt.Errorf("pmix: get %q: not a string", key)
	}
	return pmi.DecodeValue(s)
}

// Abort asks the launcher to end the job with exit code code.
func (c *client) Abort(code int, msg string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return fmt.Errorf("pmix: abort: %w", pmi.ErrFinalized)
	}
	cm := C.CString(msg)
	defer C.free(unsafe.Pointer(cm))
	if rc := C.mpix_pmix_abort(C.int(code), cm); rc != 0 {
		return pmixError("PMIx_Abort", rc)
	}
	return nil
}

// Finalize ends this process's use of PMIx.
func (c *client) Finalize() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalized {
		return nil
	}
	c.finalized = true
	if rc := C.mpix_pmix_finalize(); rc != 0 {
		return pmixError("PMIx_Finalize", rc)
	}
	return nil
}
