package main

/*
#include "capi.h"
#include "threadcomm.h"
*/
import "C"

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core"
)

// The Test and Wait families over request arrays that hold requests of the threadcomm
// C queues (package threadcomm): a thread whose receives run in C gets C requests from
// MPI_Irecv and from its sends to threads of its process, and Go requests from its
// sends to other processes, and may complete them together. C's own fast paths take
// Waitall, and Testall and Waitany over C requests only; the rest comes here, where
// each request is advanced by its own side.

// mixedSet is such an array: rs[i] is the Go request of hs[i], nil for a C request
// or MPI_REQUEST_NULL.
type mixedSet struct {
	hs []C.MPI_Request
	rs []*core.Request
}

// mixedArgs resolves an array that holds at least one C request (ok false: none, the
// caller goes on with the Go requests alone).
func mixedArgs(count C.int, reqs *C.MPI_Request) (set mixedSet, ok bool, err error) {
	if err := checkCount(count); err != nil {
		return set, false, err
	}
	hs := requestSlice(reqs, count)
	for _, h := range hs {
		ok = ok || isThreadcommRequest(h)
	}
	if !ok {
		return set, false, nil
	}
	set = mixedSet{hs: hs, rs: make([]*core.Request, len(hs))}
	for i, h := range hs {
		if isThreadcommRequest(h) {
			if C.mpix_tc_request_state(h, 0) < 0 {
				return set, true, core.Errorf(core.ErrRequest, "array_of_requests[%d]: invalid request handle 0x%x", i, uint32(h))
			}
			continue
		}
		r, err := core.LookupRequest(int32(h))
		if err != nil {
			return set, true, core.Errorf(core.ErrRequest, "array_of_requests[%d]: %v", i, err)
		}
		set.rs[i] = r
	}
	return set, true, nil
}

// mixedSomeArgs is mixedArgs for Waitsome and Testsome.
func mixedSomeArgs(count C.int, reqs *C.MPI_Request, indices *C.int) (mixedSet, bool, error) {
	set, ok, err := mixedArgs(count, reqs)
	if ok && err == nil && count > 0 && indices == nil {
		err = core.Errorf(core.ErrArg, "array_of_indices must not be NULL")
	}
	return set, ok, err
}

// Request states, as mpix_tc_request_state reports them.
const (
	reqInactive = 0 // MPI_REQUEST_NULL, or a persistent request not started
	reqPending  = 1
	reqDone     = 2
)

// state advances request i once (a C one; Go's progress is the caller's) and reports
// where it is; force lets a C send that has waited long enough leave a copy.
func (s mixedSet) state(i int, force bool) int {
	if isThreadcommRequest(s.hs[i]) {
		f := C.int(0)
		if force {
			f = 1
		}
		return int(C.mpix_tc_request_state(s.hs[i], f))
	}
	r := s.rs[i]
	switch {
	case r == nil || !r.Active():
		return reqInactive
	case r.Done():
		return reqDone
	}
	return reqPending
}

// complete reports request i, which is done or inactive: its status (into st, which
// may be nil or MPI_STATUS_IGNORE; its MPI_ERROR is left alone, for report to set
// when the call returns MPI_ERR_IN_STATUS) and error class; its handle becomes
// MPI_REQUEST_NULL unless persistent.
func (s mixedSet) complete(i int, st *C.MPI_Status) int {
	if isThreadcommRequest(s.hs[i]) {
		var flag C.int
		var tmp C.MPI_Status
		if ignoreStatus(st) {
			st = &tmp
		}
		keep := st.MPI_ERROR
		class := int(C.mpix_tc_request_complete(&s.hs[i], 1, &flag, st))
		st.MPI_ERROR = keep
		return class
	}
	r := s.rs[i]
	if r == nil {
		putStatus(st, core.Status{Source: core.AnySource, Tag: core.AnyTag})
		return core.Success
	}
	_, res := core.Test(r)
	finish(r, &s.hs[i], st, res)
	return res.Error
}

// scan advances every request once and returns the indices of the completed active
// ones, and whether any request is active.
func (s mixedSet) scan(force bool) (done []int, active bool) {
	core.ProgressFor(s.rs)
	for i := range s.hs {
		switch s.state(i, force) {
		case reqDone:
			done = append(done, i)
			active = true
		case reqPending:
			active = true
		}
	}
	return done, active
}

// wait scans until a request completes; it returns the scan's outcome.
func (s mixedSet) wait() (done []int, active bool) {
	for i := 0; ; i++ {
		// Past a while, a C send to a thread of this process that has not taken it
		// leaves a copy and completes, as C's own waits do.
		if done, active = s.scan(i >= orphanScans); len(done) > 0 || !active {
			return done, active
		}
		if i >= 64 {
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) // more threads than cores
		}
	}
}

// orphanScans is how many scans a wait makes before it forces C sends.
const orphanScans = 1000

// report reports the requests at idx, in order, with statuses sts[k] (sts nil:
// ignored): with take it completes them (Test*, Wait*), without it only peeks
// (get_status*). A failure sets every status's MPI_ERROR and gives
// MPI_ERR_IN_STATUS, in both cases.
func (s mixedSet) report(idx []int, sts []C.MPI_Status, take bool) error {
	errs := make([]int, len(idx))
	failed := false
	for k, i := range idx {
		if take {
			errs[k] = s.complete(i, statusAt(sts, k))
		} else {
			errs[k] = s.peek(i, statusAt(sts, k))
		}
		failed = failed || errs[k] != core.Success
	}
	if !failed {
		return nil
	}
	for k := range idx {
		if sts != nil {
			sts[k].MPI_ERROR = C.int(errs[k])
		}
	}
	return core.Errorf(core.ErrInStatus, "one or more requests failed; see the statuses' MPI_ERROR")
}

// statusAt is sts[k], or nil when the statuses are ignored.
func statusAt(sts []C.MPI_Status, k int) *C.MPI_Status {
	if sts == nil {
		return nil
	}
	return &sts[k]
}

// The Test family and the MPI_Request_get_status family share what follows: take
// completes the requests it reports (Test*); without it they are only peeked and stay
// as they are (get_status*).

// testall reports every request once none is pending.
func (s mixedSet) testall(flag *C.int, statuses *C.MPI_Status, take bool) error {
	core.ProgressFor(s.rs)
	for i := range s.hs {
		if s.state(i, false) == reqPending {
			setFlag(flag, false)
			return nil
		}
	}
	setFlag(flag, true)
	all := make([]int, len(s.hs))
	for i := range all {
		all[i] = i
	}
	return s.report(all, statusSlice(statuses, C.int(len(s.hs))), take)
}

// testany reports one completed request, if any.
func (s mixedSet) testany(index, flag *C.int, status *C.MPI_Status, take bool) error {
	done, active := s.scan(false)
	setFlag(flag, len(done) > 0 || !active)
	if active && len(done) == 0 {
		*index = C.MPI_UNDEFINED
		return nil
	}
	return s.any(done, active, index, status, take)
}

// any reports the first of done through index and status (MPI_UNDEFINED and an
// empty status when no request is active).
func (s mixedSet) any(done []int, active bool, index *C.int, status *C.MPI_Status, take bool) error {
	if !active {
		*index = C.MPI_UNDEFINED
		putStatus(status, core.Status{Source: core.AnySource, Tag: core.AnyTag})
		return nil
	}
	*index = C.int(done[0])
	class := 0
	if take {
		class = s.complete(done[0], status)
	} else {
		class = s.peek(done[0], status)
	}
	if class != core.Success {
		return core.Errorf(class, "request %d failed", done[0])
	}
	return nil
}

// some reports every request of done through outcount, indices and statuses.
func (s mixedSet) some(done []int, active bool, outcount, indices *C.int, statuses *C.MPI_Status, take bool) error {
	if !active {
		*outcount = C.MPI_UNDEFINED
		return nil
	}
	idx := unsafe.Slice(indices, len(s.hs))
	for k, i := range done {
		idx[k] = C.int(i)
	}
	*outcount = C.int(len(done))
	return s.report(done, statusSlice(statuses, C.int(len(done))), take)
}

// peek reports request i, which is done or inactive, without completing it: its
// status (st may be nil or MPI_STATUS_IGNORE) and error class. A C receive's data is
// in place afterwards.
func (s mixedSet) peek(i int, st *C.MPI_Status) int {
	if isThreadcommRequest(s.hs[i]) {
		var tmp C.MPI_Status
		if ignoreStatus(st) {
			st = &tmp
		}
		keep := st.MPI_ERROR
		class := int(C.mpix_tc_request_peek(s.hs[i], st))
		st.MPI_ERROR = keep
		return class
	}
	sts := peekedStatus(s.rs[i])
	putStatus(st, sts)
	return sts.Error
}
