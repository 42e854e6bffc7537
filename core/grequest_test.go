package core

import "testing"

// greq is a generalized request whose callbacks count their calls.
type greq struct {
	queries, frees, cancels int
	lastComplete            bool
	queryErr, freeErr       int
}

func (g *greq) start() *Request {
	return StartGrequest(&Grequest{
		Query:  func() Status { g.queries++; return Status{Source: 3, Tag: 4, Bytes: 8, Error: g.queryErr} },
		Free:   func() int { g.frees++; return g.freeErr },
		Cancel: func(c bool) int { g.cancels++; g.lastComplete = c; return Success },
	})
}

func TestGrequestLifecycle(t *testing.T) {
	for _, c := range []struct {
		name    string
		run     func(t *testing.T, g *greq, r *Request)
		queries int
		frees   int
	}{
		{"complete then wait: query, then free", func(t *testing.T, g *greq, r *Request) {
			if err := GrequestComplete(r); err != nil {
				t.Fatal(err)
			}
			if st := Wait(r); st.Source != 3 || st.Tag != 4 || st.Bytes != 8 || st.Error != Success {
				t.Errorf("status %+v", st)
			}
		}, 1, 1},
		{"peek leaves the request, test reports it", func(t *testing.T, g *greq, r *Request) {
			GrequestComplete(r)
			if done, _ := PeekStatus(r); !done || g.frees != 0 || requests.Get(r.Handle) == nil {
				t.Errorf("peek: done %v, frees %d", done, g.frees)
			}
			if done, st := Test(r); !done || st.Tag != 4 {
				t.Errorf("test: %v %+v", done, st)
			}
		}, 2, 1},
		{"free before complete: free_fn at completion, no query", func(t *testing.T, g *greq, r *Request) {
			h := r.Handle
			if err := GrequestFree(r); err != nil || g.frees != 0 {
				t.Fatalf("free: %v, frees %d", err, g.frees)
			}
			if requests.Get(h) == nil {
				t.Fatalf("the handle went before MPI_Grequest_complete")
			}
			if err := GrequestComplete(r); err != nil {
				t.Fatal(err)
			}
			if requests.Get(h) != nil {
				t.Errorf("the handle stayed after completion of a freed request")
			}
		}, 0, 1},
		{"free after complete: free_fn at once", func(t *testing.T, g *greq, r *Request) {
			GrequestComplete(r)
			if err := GrequestFree(r); err != nil {
				t.Fatal(err)
			}
		}, 0, 1},
		{"complete twice", func(t *testing.T, g *greq, r *Request) {
			GrequestComplete(r)
			if err := GrequestComplete(r); err == nil || AsError(err).Class != ErrRequest {
				t.Errorf("second complete: %v", err)
			}
			Wait(r)
		}, 1, 1},
		{"cancel says whether complete", func(t *testing.T, g *greq, r *Request) {
			GrequestCancel(r)
			if g.lastComplete {
				t.Errorf("cancel before completion said complete")
			}
			GrequestComplete(r)
			GrequestCancel(r)
			if !g.lastComplete || g.cancels != 2 {
				t.Errorf("cancel after completion: complete %v, %d calls", g.lastComplete, g.cancels)
			}
			Wait(r)
		}, 1, 1},
		{"query error is the request's", func(t *testing.T, g *greq, r *Request) {
			g.queryErr = ErrOther
			GrequestComplete(r)
			if st := Wait(r); st.Error != ErrOther {
				t.Errorf("error %d", st.Error)
			}
		}, 1, 1},
		{"free_fn error when query succeeds", func(t *testing.T, g *greq, r *Request) {
			g.freeErr = ErrIntern
			GrequestComplete(r)
			if st := Wait(r); st.Error != ErrIntern {
				t.Errorf("error %d", st.Error)
			}
		}, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &greq{}
			r := g.start()
			if !r.IsGrequest() || r.Handle == 0 || r.Done() {
				t.Fatalf("new generalized request: %+v", r)
			}
			c.run(t, g, r)
			if g.queries != c.queries || g.frees != c.frees {
				t.Errorf("query_fn ran %d times (want %d), free_fn %d (want %d)", g.queries, c.queries, g.frees, c.frees)
			}
		})
	}
	// Not a generalized request.
	if err := GrequestComplete(&Request{kind: reqRecv}); err == nil || AsError(err).Class != ErrRequest {
		t.Errorf("MPI_Grequest_complete on a receive: %v", err)
	}
}
