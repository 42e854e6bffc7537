package main

/*
#include "capi.h"
#include "threadcomm.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

// Completion bindings: MPI_Wait/Test and their any/all/some forms, MPI-4.1's
// MPI_Request_get_status_* and request management.

func requestSlice(reqs *C.MPI_Request, n C.int) []C.MPI_Request {
	if n <= 0 || reqs == nil {
		return nil
	}
	return unsafe.Slice(reqs, int(n))
}

func statusSlice(st *C.MPI_Status, n C.int) []C.MPI_Status {
	if n <= 0 || st == nil || st == C.MPI_STATUSES_IGNORE {
		return nil
	}
	return unsafe.Slice(st, int(n))
}

// isThreadcommRequest reports whether h is a request of the threadcomm C queues
// (core/handles.h), without a cgo call per handle.
func isThreadcommRequest(h C.MPI_Request) bool {
	return core.RequestKindOf(int32(h)) == core.ReqThreadcomm
}

// lookupAll resolves an array of request handles (nil entries for MPI_REQUEST_NULL).
func lookupAll(reqs []C.MPI_Request) ([]*core.Request, error) {
	out := make([]*core.Request, len(reqs))
	for i, h := range reqs {
		if isThreadcommRequest(h) { // callers with C requests take mixedArgs first
			return nil, core.Errorf(core.ErrRequest, "array_of_requests[%d]: request 0x%x of the threadcomm C queues is not taken here", i, uint32(h))
		}
		r, err := core.LookupRequest(int32(h))
		if err != nil {
			return nil, core.Errorf(core.ErrRequest, "array_of_requests[%d]: %v", i, err)
		}
		out[i] = r
	}
	return out, nil
}

// finish reports a completed request to the caller: it fills the status, and a
// nonpersistent request's handle becomes MPI_REQUEST_NULL and the request is recycled.
func finish(r *core.Request, h *C.MPI_Request, st *C.MPI_Status, s core.Status) {
	putStatus(st, s)
	if !r.Persistent() {
		*h = C.MPI_REQUEST_NULL
		core.Recycle(r)
	}
}

func checkCount(n C.int) error {
	if n < 0 {
		return core.Errorf(core.ErrCount, "count must not be negative (%d)", int(n))
	}
	return nil
}

// requestArgs checks and resolves the (count, array_of_requests) arguments.
func requestArgs(count C.int, reqs *C.MPI_Request) ([]C.MPI_Request, []*core.Request, error) {
	if err := checkCount(count); err != nil {
		return nil, nil, err
	}
	hs := requestSlice(reqs, count)
	rs, err := lookupAll(hs)
	return hs, rs, err
}

func impl_MPI_Wait(ctx *C.mpix_ctx, request *C.MPI_Request, status *C.MPI_Status) error {
	r, err := core.LookupRequest(int32(*request))
	if err != nil {
		return err
	}
	if r == nil {
		putStatus(status, core.Status{Source: core.AnySource, Tag: core.AnyTag})
		return nil
	}
	s := core.Wait(r)
	finish(r, request, status, s)
	return statusErr(s)
}

func impl_MPI_Test(ctx *C.mpix_ctx, request *C.MPI_Request, flag *C.int, status *C.MPI_Status) error {
	if core.LitePending(int32(*request)) {
		setFlag(flag, false)
		return nil
	}
	r, err := core.LookupRequest(int32(*request))
	if err != nil {
		return err
	}
	if r == nil {
		setFlag(flag, true)
		putStatus(status, core.Status{Source: core.AnySource, Tag: core.AnyTag})
		return nil
	}
	done, s := core.Test(r)
	setFlag(flag, done)
	if !done {
		return nil
	}
	finish(r, request, status, s)
	return statusErr(s)
}

// completeAll reports every request of a finished Waitall/Testall; with any error it
// sets each status's MPI_ERROR and returns MPI_ERR_IN_STATUS.
func completeAll(rs []*core.Request, hs []C.MPI_Request, sts []C.MPI_Status, results []core.Status) error {
	failed := false
	for i, r := range rs {
		if r == nil {
			if sts != nil {
				putStatus(&sts[i], core.Status{Source: core.AnySource, Tag: core.AnyTag})
			}
			continue
		}
		var st *C.MPI_Status
		if sts != nil {
			st = &sts[i]
		}
		finish(r, &hs[i], st, results[i])
		if results[i].Error != core.Success {
			failed = true
		}
	}
	if !failed {
		return nil
	}
	return inStatus(sts, results)
}

// peekedStatus is what a status peek reports for r (nil: MPI_REQUEST_NULL): its
// status while it is active, the empty status otherwise.
func peekedStatus(r *core.Request) core.Status {
	if r != nil && r.Active() {
		_, s := core.PeekStatus(r)
		return s
	}
	return core.Status{Source: core.AnySource, Tag: core.AnyTag}
}

// inStatus sets each status's MPI_ERROR from results and gives MPI_ERR_IN_STATUS (a
// multiple completion or get_status_all in which some request failed).
func inStatus(sts []C.MPI_Status, results []core.Status) error {
	for i := range sts {
		sts[i].MPI_ERROR = C.int(results[i].Error)
	}
	return core.Errorf(core.ErrInStatus, "one or more requests failed; see the statuses' MPI_ERROR")
}

func impl_MPI_Waitall(ctx *C.mpix_ctx, count C.int, reqs *C.MPI_Request, statuses *C.MPI_Status) error {
	hs, rs, err := requestArgs(count, reqs)
	if err != nil {
		return err
	}
	results := make([]core.Status, len(rs))
	for i, r := range rs {
		if r != nil {
			results[i] = core.Wait(r)
		}
	}
	return completeAll(rs, hs, statusSlice(statuses, count), results)
}

func impl_MPI_Testall(ctx *C.mpix_ctx, count C.int, reqs *C.MPI_Request, flag *C.int, statuses *C.MPI_Status) error {
	if set, ok, err := mixedArgs(count, reqs); ok {
		if err != nil {
			return err
		}
		return set.testall(flag, statuses, true)
	}
	hs, rs, err := requestArgs(count, reqs)
	if err != nil {
		return err
	}
	core.ProgressFor(rs)
	if !allDone(rs) {
		setFlag(flag, false)
		return nil
	}
	setFlag(flag, true)
	results := make([]core.Status, len(rs))
	for i, r := range rs {
		if r != nil {
			_, results[i] = core.Test(r)
		}
	}
	return completeAll(rs, hs, statusSlice(statuses, count), results)
}

// allDone reports whether every active request has completed (Testall and
// MPI_Request_get_status_all).
func allDone(rs []*core.Request) bool {
	for _, r := range rs {
		if r != nil && r.Active() && !r.Done() {
			return false
		}
	}
	return true
}

// anyDone returns the index of the first active completed request, -1 if none, and
// whether any request is active at all.
func anyDone(rs []*core.Request) (int, bool) {
	active := false
	for i, r := range rs {
		if r == nil || !r.Active() {
			continue
		}
		active = true
		if r.Done() {
			return i, true
		}
	}
	return -1, active
}

func takeAny(rs []*core.Request, hs []C.MPI_Request, i int, index *C.int, status *C.MPI_Status) error {
	_, s := core.Test(rs[i])
	finish(rs[i], &hs[i], status, s)
	*index = C.int(i)
	return statusErr(s)
}

func impl_MPI_Waitany(ctx *C.mpix_ctx, count C.int, reqs *C.MPI_Request, index *C.int, status *C.MPI_Status) error {
	if set, ok, err := mixedArgs(count, reqs); ok {
		if err != nil {
			return err
		}
		done, active := set.wait()
		return set.any(done, active, index, status, true)
	}
	hs, rs, err := requestArgs(count, reqs)
	if err != nil {
		return err
	}
	i, active := anyDone(rs)
	if !active {
		*index = C.MPI_UNDEFINED
		putStatus(status, core.Status{Source: core.AnySource, Tag: core.AnyTag})
		return nil
	}
	if i < 0 {
		core.WaitUntilFor(rs, func() bool { i, _ = anyDone(rs); return i >= 0 })
	}
	return takeAny(rs, hs, i, index, status)
}

func impl_MPI_Testany(ctx *C.mpix_ctx, count C.int, reqs *C.MPI_Request, index *C.int, flag *C.int, status *C.MPI_Status) error {
	if set, ok, err := mixedArgs(count, reqs); ok {
		if err != nil {
			return err
		}
		return set.testany(index, flag, status, true)
	}
	hs, rs, err := requestArgs(count, reqs)
	if err != nil {
		return err
	}
	core.ProgressFor(rs)
	i, active := anyDone(rs)
	if !active {
		setFlag(flag, true)
		*index = C.MPI_UNDEFINED
		putStatus(status, core.Status{Source: core.AnySource, Tag: core.AnyTag})
		return nil
	}
	setFlag(flag, i >= 0)
	if i < 0 {
		*index = C.MPI_UNDEFINED
		return nil
	}
	return takeAny(rs, hs, i, index, status)
}

// collectSome reports every completed active request (Waitsome/Testsome, and with
// take false MPI_Request_get_status_some, which leaves the requests alone). Failures
// set every reported status's MPI_ERROR and give MPI_ERR_IN_STATUS.
func collectSome(rs []*core.Request, hs []C.MPI_Request, outcount *C.int, indices *C.int, statuses *C.MPI_Status, n C.int, take bool) error {
	sts := statusSlice(statuses, n)
	idx := unsafe.Slice(indices, max(int(n), 1))
	k := 0
	failed := false
	var errs []int
	for i, r := range rs {
		if r == nil || !r.Active() || !r.Done() {
			continue
		}
		var st *C.MPI_Status
		if sts != nil {
			st = &sts[k]
		}
		var s core.Status
		if take {
			_, s = core.Test(r)
			finish(r, &hs[i], st, s)
		} else {
			_, s = core.PeekStatus(r)
			putStatus(st, s)
		}
		idx[k] = C.int(i)
		errs = append(errs, s.Error)
		failed = failed || s.Error != core.Success
		k++
	}
	*outcount = C.int(k)
	if !failed {
		return nil
	}
	for j := 0; j < k && sts != nil; j++ {
		sts[j].MPI_ERROR = C.int(errs[j])
	}
	return core.Errorf(core.ErrInStatus, "one or more requests failed; see the statuses' MPI_ERROR")
}

func someArgs(count C.int, reqs *C.MPI_Request, indices *C.int) ([]C.MPI_Request, []*core.Request, error) {
	if count > 0 && indices == nil {
		return nil, nil, core.Errorf(core.ErrArg, "array_of_indices must not be NULL")
	}
	return requestArgs(count, reqs)
}

func impl_MPI_Waitsome(ctx *C.mpix_ctx, incount C.int, reqs *C.MPI_Request, outcount *C.int, indices *C.int, statuses *C.MPI_Status) error {
	if set, ok, err := mixedSomeArgs(incount, reqs, indices); ok {
		if err != nil {
			return err
		}
		done, active := set.wait()
		return set.some(done, active, outcount, indices, statuses, true)
	}
	hs, rs, err := someArgs(incount, reqs, indices)
	if err != nil {
		return err
	}
	i, active := anyDone(rs)
	if !active {
		*outcount = C.MPI_UNDEFINED
		return nil
	}
	if i < 0 {
		core.WaitUntilFor(rs, func() bool { i, _ = anyDone(rs); return i >= 0 })
	}
	return collectSome(rs, hs, outcount, indices, statuses, incount, true)
}

func impl_MPI_Testsome(ctx *C.mpix_ctx, incount C.int, reqs *C.MPI_Request, outcount *C.int, indices *C.int, statuses *C.MPI_Status) error {
	if set, ok, err := mixedSomeArgs(incount, reqs, indices); ok {
		if err != nil {
			return err
		}
		done, active := set.scan(false)
		return set.some(done, active, outcount, indices, statuses, true)
	}
	hs, rs, err := someArgs(incount, reqs, indices)
	if err != nil {
		return err
	}
	core.ProgressFor(rs)
	if _, active := anyDone(rs); !active {
		*outcount = C.MPI_UNDEFINED
		return nil
	}
	return collectSome(rs, hs, outcount, indices, statuses, incount, true)
}

func impl_MPI_Request_free(ctx *C.mpix_ctx, request *C.MPI_Request) error {
	r, err := core.LookupRequest(int32(*request))
	if err != nil {
		return err
	}
	if r == nil {
		return core.Errorf(core.ErrRequest, "MPI_Request_free on MPI_REQUEST_NULL")
	}
	if r.IsGrequest() { // free_fn runs now or at MPI_Grequest_complete
		*request = C.MPI_REQUEST_NULL
		return core.GrequestFree(r)
	}
	if err := r.Free(); err != nil {
		return err
	}
	*request = C.MPI_REQUEST_NULL
	return nil
}

func impl_MPI_Cancel(ctx *C.mpix_ctx, request *C.MPI_Request) error {
	if isThreadcommRequest(*request) {
		if C.mpix_tc_cancel(*request) != 0 {
			return core.Errorf(core.ErrRequest, "invalid request handle 0x%x", uint32(*request))
		}
		return nil
	}
	r, err := core.LookupRequest(int32(*request))
	if err != nil {
		return err
	}
	if r == nil {
		return core.Errorf(core.ErrRequest, "MPI_Cancel on MPI_REQUEST_NULL")
	}
	if r.IsGrequest() {
		return core.GrequestCancel(r)
	}
	core.Cancel(r)
	return nil
}

func impl_MPI_Request_get_status(ctx *C.mpix_ctx, request C.MPI_Request, flag *C.int, status *C.MPI_Status) error {
	if isThreadcommRequest(request) {
		set, _, err := mixedArgs(1, &request)
		if err != nil {
			return err
		}
		var index C.int // a peek of one request is get_status_any's of it
		return set.testany(&index, flag, status, false)
	}
	if core.LitePending(int32(request)) {
		setFlag(flag, false)
		return nil
	}
	r, err := core.LookupRequest(int32(request))
	if err != nil {
		return err
	}
	if r == nil {
		setFlag(flag, true)
		putEmptyStatus(status)
		return nil
	}
	done, s := core.PeekStatus(r)
	setFlag(flag, done)
	if !done {
		return nil
	}
	putStatus(status, s)
	return statusErr(s) // as MPI_Test would, leaving the request as it is
}

// MPI-4.1: the any/all/some forms of MPI_Request_get_status leave the requests alone.

func impl_MPI_Request_get_status_all(ctx *C.mpix_ctx, count C.int, reqs *C.MPI_Request, flag *C.int, statuses *C.MPI_Status) error {
	if set, ok, err := mixedArgs(count, reqs); ok {
		if err != nil {
			return err
		}
		return set.testall(flag, statuses, false)
	}
	_, rs, err := requestArgs(count, reqs)
	if err != nil {
		return err
	}
	core.ProgressFor(rs)
	if !allDone(rs) {
		setFlag(flag, false)
		return nil
	}
	setFlag(flag, true)
	sts := statusSlice(statuses, count)
	results := make([]core.Status, len(rs))
	failed := false
	for i, r := range rs {
		results[i] = peekedStatus(r)
		failed = failed || results[i].Error != core.Success
		if sts != nil {
			putStatus(&sts[i], results[i])
		}
	}
	if !failed {
		return nil
	}
	return inStatus(sts, results)
}

func impl_MPI_Request_get_status_any(ctx *C.mpix_ctx, count C.int, reqs *C.MPI_Request, index *C.int, flag *C.int, status *C.MPI_Status) error {
	if set, ok, err := mixedArgs(count, reqs); ok {
		if err != nil {
			return err
		}
		return set.testany(index, flag, status, false)
	}
	_, rs, err := requestArgs(count, reqs)
	if err != nil {
		return err
	}
	core.ProgressFor(rs)
	i, active := anyDone(rs)
	switch {
	case !active:
		setFlag(flag, true)
		*index = C.MPI_UNDEFINED
		putStatus(status, core.Status{Source: core.AnySource, Tag: core.AnyTag})
	case i < 0:
		setFlag(flag, false)
		*index = C.MPI_UNDEFINED
	default:
		setFlag(flag, true)
		*index = C.int(i)
		_, s := core.PeekStatus(rs[i])
		putStatus(status, s)
		return statusErr(s)
	}
	return nil
}

func impl_MPI_Request_get_status_some(ctx *C.mpix_ctx, incount C.int, reqs *C.MPI_Request, outcount *C.int, indices *C.int, statuses *C.MPI_Status) error {
	if set, ok, err := mixedSomeArgs(incount, reqs, indices); ok {
		if err != nil {
			return err
		}
		done, active := set.scan(false)
		return set.some(done, active, outcount, indices, statuses, false)
	}
	hs, rs, err := someArgs(incount, reqs, indices)
	if err != nil {
		return err
	}
	core.ProgressFor(rs)
	if _, active := anyDone(rs); !active {
		*outcount = C.MPI_UNDEFINED
		return nil
	}
	return collectSome(rs, hs, outcount, indices, statuses, incount, false)
}
