package core

import "sync"

// Generalized requests (MPI-4.1 §13.2): operations the user carries out, which MPI
// waits for and reports like its own. A generalized request is a Go request (kind
// reqGen, a user handle from the request table), so every Wait, Test and
// get_status form, and sets that mix it with other requests, serve it unchanged;
// what differs is where its status comes from and what happens when it goes:
//
//   - MPI_Grequest_complete marks it done (from any thread: a waiter spinning in
//     Engine.wait sees the flag);
//   - the Wait or Test that reports it, and MPI_Request_get_status, ask query_fn for
//     its status, whose return code is the request's error (MPI_ERR_IN_STATUS in the
//     multiple forms);
//   - free_fn runs once the request is both complete and freed (reported by a Wait
//     or Test, or given to MPI_Request_free), whichever comes second;
//   - MPI_Cancel calls cancel_fn with whether it has completed.
//
// The callbacks are the user's C functions; capi wraps them (capi/callbacks.c) and
// must not be called with a lock of core held, since user code calls MPI.
type Grequest struct {
	Query  func() Status           // query_fn: the status, Error its return code
	Free   func() int              // free_fn's return code
	Cancel func(complete bool) int // cancel_fn's return code

	mu        sync.Mutex
	completed bool // MPI_Grequest_complete was called
	freed     bool // MPI_Request_free was called before completion
	released  bool // free_fn has run
}

const reqGen reqKind = reqOp + 1

// StartGrequest is MPI_Grequest_start: a new active request that completes when the
// user calls MPI_Grequest_complete.
func StartGrequest(g *Grequest) *Request {
	r := newRequest(reqGen)
	r.eng = engine // waits spin on this VCI's progress until another thread completes r
	r.gen = g
	return r
}

// IsGrequest reports whether r is a generalized request.
func (r *Request) IsGrequest() bool { return r.kind == reqGen }

// codeErr turns a callback's return code into the error of the call that ran it.
func codeErr(code int, what string) error {
	if code == Success {
		return nil
	}
	return Errorf(code, "the generalized request's %s returned error code %d", what, code)
}

// GrequestComplete is MPI_Grequest_complete. A request the user freed before it
// completed goes now: its handle is released and free_fn runs.
func GrequestComplete(r *Request) error {
	if r.kind != reqGen {
		return Errorf(ErrRequest, "MPI_Grequest_complete needs a generalized request (MPI_Grequest_start), not request 0x%x", uint32(r.Handle))
	}
	g := r.gen
	g.mu.Lock()
	if g.completed {
		g.mu.Unlock()
		return Errorf(ErrRequest, "generalized request 0x%x is already complete", uint32(r.Handle))
	}
	g.completed = true
	freed := g.freed
	g.mu.Unlock()
	if freed {
		requests.Remove(r.Handle)
		return g.release()
	}
	r.done.Store(true)
	return nil
}

// GrequestFree is MPI_Request_free of a generalized request: free_fn runs now if it
// has completed, otherwise when it does (its handle stays valid for
// MPI_Grequest_complete until then).
func GrequestFree(r *Request) error {
	g := r.gen
	g.mu.Lock()
	done := g.completed
	g.freed = !done
	g.mu.Unlock()
	if !done {
		return nil
	}
	requests.Remove(r.Handle)
	return g.release()
}

// GrequestCancel is MPI_Cancel of a generalized request: cancel_fn with whether the
// request has completed. Whether the operation was cancelled is for query_fn to say
// (MPI_Status_set_cancelled).
func GrequestCancel(r *Request) error {
	g := r.gen
	g.mu.Lock()
	complete := g.completed
	g.mu.Unlock()
	return codeErr(g.Cancel(complete), "cancel_fn")
}

// release runs free_fn, once.
func (g *Grequest) release() error {
	g.mu.Lock()
	already := g.released
	g.released = true
	g.mu.Unlock()
	if already {
		return nil
	}
	return codeErr(g.Free(), "free_fn")
}

// genStatus is a completed generalized request's status, from query_fn.
func (r *Request) genStatus() Status { return r.gen.Query() }

// genReport finishes the report of a completed generalized request by a Wait or
// Test: the handle goes and free_fn runs; its error becomes the request's when
// query_fn reported none (MPI-4.1 §13.2: the free_fn's error is the call's).
func (r *Request) genReport(st Status) Status {
	requests.Remove(r.Handle)
	r.Handle = 0
	if err := r.gen.release(); err != nil && st.Error == Success {
		st.Error = AsError(err).Class
	}
	return st
}
