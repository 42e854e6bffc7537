package core

import (
	"unsafe"

	"mpix/core/datatype"
)

// A schedule is a collective operation in progress: stages run one after the other;
// each posts its transfers together and, once they have all completed, runs its local
// step (a reduction, a copy, a decision that appends more stages). Blocking,
// nonblocking and persistent collectives are the same schedule waited on at once, later
// or started again, so every collective algorithm is written once.
//
// The engine advances schedules after each poll, under its lock; nothing else touches
// a running schedule.
type schedule struct {
	comm   *Comm // the view whose context the transfers use
	tag    int
	stages []stage
	cur    int
	posted bool
	reqs   []*Request
	err    int   // first error class
	fail   error // the first failed local step's error, for its message
	// scratch are the temporaries of this run (s.tmp), returned to their pools when
	// it completes.
	scratch [][]byte
	req     *Request
	// build, for persistent collectives, rebuilds the stages at each start; nil when
	// the stages never change.
	build func(s *schedule) error
	// inserted collects the stages a running local step adds: they run right after
	// it, before the stages that were already there.
	inserting bool
	inserted  []stage
}

type stage struct {
	xfers []xfer
	local func() error
}

// xfer is one send or receive of a stage; peer is a rank of the schedule's
// communicator (a remote-group rank on an intercommunicator).
type xfer struct {
	send  bool
	buf   unsafe.Pointer
	count int64
	dtype *datatype.Type
	peer  int
	on    *Comm // the view to use when not the schedule's own
	// tagSet says tag replaces the schedule's (exchanges whose two sides run
	// different schedules, like the leaders' in MPI_Intercomm_create).
	tagSet bool
	tag    int
}

// newSchedule makes an empty schedule whose transfers use view c with the given tag.
func newSchedule(c *Comm, tag int) *schedule { return &schedule{comm: c, tag: tag} }

// collTag is the tag of the next collective call on c: negative, so it can never be a
// user's tag, and different for each call in flight.
func (c *Comm) collTag() int { return -2 - int(c.collSeq.Add(1)&0x3fffffff) }

func (s *schedule) last() *stage {
	list := &s.stages
	if s.inserting {
		list = &s.inserted
	}
	if len(*list) == 0 {
		*list = append(*list, stage{})
	}
	return &(*list)[len(*list)-1]
}

func (s *schedule) appendStage() {
	if s.inserting {
		s.inserted = append(s.inserted, stage{})
	} else {
		s.stages = append(s.stages, stage{})
	}
}

// send adds a send to the current stage.
func (s *schedule) send(peer int, buf unsafe.Pointer, count int64, t *datatype.Type) {
	st := s.last()
	st.xfers = append(st.xfers, xfer{send: true, buf: buf, count: count, dtype: t, peer: peer})
}

// recv adds a receive to the current stage.
func (s *schedule) recv(peer int, buf unsafe.Pointer, count int64, t *datatype.Type) {
	st := s.last()
	st.xfers = append(st.xfers, xfer{buf: buf, count: count, dtype: t, peer: peer})
}

// then sets the current stage's local step and closes the stage.
func (s *schedule) then(f func() error) {
	s.last().local = f
	s.appendStage()
}

// next closes the current stage: what follows waits for its transfers.
func (s *schedule) next() {
	if st := s.last(); len(st.xfers) > 0 || st.local != nil {
		s.appendStage()
	}
}

// advance runs the schedule as far as completed transfers allow (under e.mu) and
// reports whether it finished.
func (s *schedule) advance(e *Engine) bool {
	for s.cur < len(s.stages) {
		st := &s.stages[s.cur]
		if !s.posted {
			s.post(e, st)
			s.posted = true
		}
		for _, r := range s.reqs {
			if !r.done.Load() {
				return false
			}
		}
		for i, r := range s.reqs {
			if r.status.Error != Success && s.err == Success {
				s.err = r.status.Error
			}
			putBlocking(r)
			s.reqs[i] = nil
		}
		s.reqs = s.reqs[:0]
		if st.local != nil && s.err == Success {
			s.inserting = true
			err := st.local()
			s.inserting = false
			if err != nil {
				s.err, s.fail = AsError(err).Class, err
			}
			if len(s.inserted) > 0 {
				s.stages = append(s.stages[:s.cur+1], append(s.inserted, s.stages[s.cur+1:]...)...)
				s.inserted = nil
			}
		}
		s.cur++
		s.posted = false
	}
	s.releaseScratch()
	st := emptyStatus
	st.Error = s.err
	s.req.complete(st)
	return true
}

// post starts a stage's transfers (under e.mu).
func (s *schedule) post(e *Engine, st *stage) {
	for _, x := range st.xfers {
		if x.peer == ProcNull {
			continue
		}
		c, tag := s.comm, s.tag
		if x.on != nil {
			c = x.on
		}
		if x.tagSet {
			tag = x.tag
		}
		if x.send {
			r := getBlocking(reqSend)
			r.buf, r.count, r.dtype, r.peer, r.tag, r.comm, r.eng = x.buf, x.count, x.dtype, x.peer, tag, c, e
			x.dtype.Ref()
			s.reqs = append(s.reqs, r)
			if err := e.startSend(r, c.peerWorld(x.peer)); err != nil && !r.done.Load() {
				r.complete(Status{Error: AsError(err).Class})
			}
		} else {
			r := getBlocking(reqRecv)
			r.buf, r.count, r.dtype, r.peer, r.tag, r.comm, r.eng = x.buf, x.count, x.dtype, x.peer, tag, c, e
			x.dtype.Ref()
			s.reqs = append(s.reqs, r)
			e.startRecv(r)
		}
	}
}

// start begins (or, for a persistent collective, restarts) the schedule; the engine
// advances it from then on.
func (s *schedule) start() error {
	if s.build != nil {
		s.stages, s.cur, s.posted, s.err, s.fail = s.stages[:0], 0, false, Success, nil
		if err := s.build(s); err != nil {
			return err
		}
	}
	e := s.comm.eng
	e.lock()
	if !s.advance(e) {
		e.scheds = append(e.scheds, s)
	}
	e.unlock()
	return nil
}

// advanceScheds moves every running schedule on (under e.mu).
func (e *Engine) advanceScheds() {
	kept := e.scheds[:0]
	for _, s := range e.scheds {
		if !s.advance(e) {
			kept = append(kept, s)
		}
	}
	for i := len(kept); i < len(e.scheds); i++ {
		e.scheds[i] = nil
	}
	e.scheds = kept
}

// CollMode says which form of a collective the caller wants.
type CollMode uint8

const (
	Blocking    CollMode = iota // MPI_Bcast: returns once complete
	Nonblocking                 // MPI_Ibcast: returns a started request
	Persistent                  // MPI_Bcast_init: returns an inactive persistent request
)

// runColl turns a schedule into the requested form. build fills s with stages; for a
// persistent collective it runs again at every MPI_Start, so it must not capture state
// that the previous run changed.
func runColl(m CollMode, c *Comm, build func(s *schedule) error) (*Request, error) {
	view := c.coll // its VCI is c's, except on an endpoints communicator
	s := newSchedule(view, view.collTag())
	switch m {
	case Blocking:
		if err := build(s); err != nil {
			return nil, err
		}
		s.req = getBlocking(reqColl)
		s.req.eng = view.eng
		if err := s.start(); err != nil {
			return nil, err
		}
		if !s.req.Done() {
			view.eng.wait(s.req.Done)
		}
		st := s.req.status
		putBlocking(s.req)
		if s.fail != nil {
			return nil, s.fail
		}
		if st.Error != Success {
			return nil, Errorf(st.Error, "a transfer of the collective operation failed")
		}
		return nil, nil
	case Nonblocking:
		if err := build(s); err != nil {
			return nil, err
		}
		s.req = newRequest(reqColl)
		s.req.eng, s.req.comm, s.req.active = view.eng, c, true
		s.req.sched = s
		if err := s.start(); err != nil {
			s.req.Release()
			return nil, err
		}
		return s.req, nil
	default:
		s.build = build
		// Check the arguments now: a persistent collective reports bad arguments at
		// initialization, not at its first start.
		probe := newSchedule(view, s.tag)
		if err := build(probe); err != nil {
			return nil, err
		}
		s.req = newRequest(reqColl)
		s.req.eng, s.req.comm, s.req.persistent = view.eng, c, true
		s.req.sched = s
		s.req.done.Store(true)
		return s.req, nil
	}
}
