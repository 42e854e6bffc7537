// Package pvar is the registry of mpix's MPI_T performance variables and the sessions
// that tools read them through.
//
// A part of the library exposes a measurement with one Register call: a name, a
// class, a category of core/cvar and a Read function that fills the current raw
// values (for example loads of atomic counters it already keeps). Everything MPI_T
// adds on top, sessions, handles, start/stop, reset and write, lives here and costs
// the measured code nothing: a handle of a counter keeps the raw value seen when it
// was started or reset and reports the difference, so nothing is ever reset at the
// source and any number of sessions can watch one variable.
//
// Values are uint64 (MPI_UNSIGNED_LONG_LONG); a variable may have several elements,
// such as one counter per VCI.
package pvar

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mpix/core/cvar"
)

// Class is a variable's MPI_T class; the values are MPI_T_PVAR_CLASS_*.
type Class int

const (
	State Class = 240 + iota
	Level
	Size
	Percentage
	HighWatermark
	LowWatermark
	Counter
	Aggregate
	Timer
	Generic
)

// accumulates reports whether a class measures growth since a starting point
// (counters, sums, timers): its handles start at 0 and report what happened while
// they were started. The other classes report a state of the library as it is.
func (c Class) accumulates() bool { return c == Counter || c == Aggregate || c == Timer }

// Spec describes a variable for Register.
type Spec struct {
	Name      string // unique among variables of the same class; by custom mpix_...
	Desc      string
	Class     Class
	Verbosity cvar.Verbosity
	Category  *cvar.Category
	// Continuous variables are always active; others count only between start and
	// stop of each handle.
	Continuous bool
	// Readonly variables cannot be written or reset through MPI_T. Only variables of
	// accumulating classes (Counter, Aggregate, Timer) may be writable: writing sets a
	// handle's own value, never the library's.
	Readonly bool
	// Count returns the number of elements; nil means 1. A handle keeps the count it
	// had when it was allocated.
	Count func() int
	// Read fills dst with the current raw values. It must be safe to call from any
	// thread at any time; for accumulating classes the values must only grow
	// (wrapping around uint64 is fine).
	Read func(dst []uint64)
}

// Var is a registered variable.
type Var struct {
	spec  Spec
	index int
}

var (
	mu   sync.Mutex
	vars []*Var
)

// Register adds a variable and returns it. It panics on a programming error (a
// missing field, a duplicate name and class, a writable variable of a class that does
// not accumulate), since variables are registered while packages initialize.
func Register(s Spec) *Var {
	switch {
	case !strings.HasPrefix(s.Name, "mpix_") || s.Desc == "" || s.Category == nil || s.Read == nil:
		panic(fmt.Sprintf("pvar: %q needs an mpix_ name, a description, a category and a Read function", s.Name))
	case s.Class < State || s.Class > Generic:
		panic(fmt.Sprintf("pvar: %s: class %d out of range", s.Name, s.Class))
	case !s.Readonly && !s.Class.accumulates():
		panic(fmt.Sprintf("pvar: %s: only counters, aggregates and timers can be writable", s.Name))
	case s.Verbosity < cvar.UserBasic || s.Verbosity > cvar.MPIDevAll:
		panic(fmt.Sprintf("pvar: %s: verbosity out of range", s.Name))
	}
	mu.Lock()
	for _, v := range vars {
		if v.spec.Name == s.Name && v.spec.Class == s.Class {
			mu.Unlock()
			panic("pvar: " + s.Name + " registered twice")
		}
	}
	v := &Var{spec: s, index: len(vars)}
	vars = append(vars, v)
	mu.Unlock()
	s.Category.AddPvar(v.index)
	return v
}

// All returns every registered variable in index order.
func All() []*Var {
	mu.Lock()
	defer mu.Unlock()
	return append([]*Var(nil), vars...)
}

// ByIndex returns the variable with MPI_T index i.
func ByIndex(i int) (*Var, bool) {
	mu.Lock()
	defer mu.Unlock()
	if i < 0 || i >= len(vars) {
		return nil, false
	}
	return vars[i], true
}

// Lookup returns the variable with the given name and class.
func Lookup(name string, class Class) (*Var, bool) {
	mu.Lock()
	defer mu.Unlock()
	for _, v := range vars {
		if v.spec.Name == name && v.spec.Class == class {
			return v, true
		}
	}
	return nil, false
}

// Name is the variable's MPI_T name.
func (v *Var) Name() string { return v.spec.Name }

// Desc is the description.
func (v *Var) Desc() string { return v.spec.Desc }

// Class is the MPI_T class.
func (v *Var) Class() Class { return v.spec.Class }

// Verbosity is the MPI_T verbosity.
func (v *Var) Verbosity() cvar.Verbosity { return v.spec.Verbosity }

// Category is the category the variable belongs to.
func (v *Var) Category() *cvar.Category { return v.spec.Category }

// Continuous reports whether the variable cannot be started or stopped.
func (v *Var) Continuous() bool { return v.spec.Continuous }

// Readonly reports whether the variable cannot be written or reset.
func (v *Var) Readonly() bool { return v.spec.Readonly }

// Atomic reports whether MPI_T_pvar_readreset works: a handle reads and resets under
// one lock, so every writable variable can.
func (v *Var) Atomic() bool { return !v.spec.Readonly }

// Index is the variable's MPI_T index.
func (v *Var) Index() int { return v.index }

// Count is the current number of elements.
func (v *Var) Count() int {
	if v.spec.Count == nil {
		return 1
	}
	return max(v.spec.Count(), 0)
}

// Errors of handle operations.
var (
	ErrNoStartStop  = errors.New("continuous variable cannot be started or stopped")
	ErrNoWrite      = errors.New("read-only variable cannot be written or reset")
	ErrWrongSession = errors.New("handle belongs to another session")
	ErrFreed        = errors.New("handle or session was freed")
)

// Session is an MPI_T performance experiment session: a set of handles that are
// started, stopped and read together, independently of other sessions.
type Session struct {
	mu      sync.Mutex
	handles map[*Handle]struct{} // nil once the session is freed
}

// NewSession creates an empty session.
func NewSession() *Session { return &Session{handles: map[*Handle]struct{}{}} }

// Handle binds a variable to a session. Its operations are serialized by the
// session's lock.
type Handle struct {
	v       *Var
	s       *Session
	count   int
	started bool
	acc     []uint64 // accumulating classes: the value gathered while started before
	base    []uint64 // ... and the raw value when last started or reset
	held    []uint64 // other classes: the value at the last stop
	raw     []uint64 // scratch for Read
}

// Alloc binds v to the session. A continuous variable's handle starts at once.
func (s *Session) Alloc(v *Var) (*Handle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handles == nil {
		return nil, ErrFreed
	}
	n := v.Count()
	h := &Handle{v: v, s: s, count: n, acc: make([]uint64, n), base: make([]uint64, n),
		held: make([]uint64, n), raw: make([]uint64, n)}
	h.sample()
	copy(h.base, h.raw)
	copy(h.held, h.raw)
	h.started = v.spec.Continuous
	s.handles[h] = struct{}{}
	return h, nil
}

// Free releases h.
func (s *Session) Free(h *Handle) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.owns(h); err != nil {
		return err
	}
	delete(s.handles, h)
	h.s = nil
	return nil
}

// Close frees the session and every handle in it.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h := range s.handles {
		h.s = nil
	}
	s.handles = nil
}

// Len is the number of handles in the session.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.handles)
}

// owns checks h against s. The caller holds s.mu.
func (s *Session) owns(h *Handle) error {
	switch {
	case s.handles == nil:
		return ErrFreed
	case h.s != s:
		if h.s == nil {
			return ErrFreed
		}
		return ErrWrongSession
	}
	return nil
}

// StartAll starts every handle of the session that is stopped (MPI_T_pvar_start
// with MPI_T_PVAR_ALL_HANDLES); continuous ones are always started.
func (s *Session) StartAll() error { return s.all((*Handle).start) }

// StopAll stops every started handle of a variable that is not continuous.
func (s *Session) StopAll() error { return s.all((*Handle).stop) }

// ResetAll resets every handle of a writable variable; read-only ones are skipped.
func (s *Session) ResetAll() error {
	return s.all(func(h *Handle) {
		if !h.v.spec.Readonly {
			h.reset(nil)
		}
	})
}

func (s *Session) all(f func(*Handle)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handles == nil {
		return ErrFreed
	}
	for h := range s.handles {
		f(h)
	}
	return nil
}

// Var is the variable h is bound to.
func (h *Handle) Var() *Var { return h.v }

// Count is the number of elements h reads and writes.
func (h *Handle) Count() int { return h.count }

// Every operation below names the session, as MPI_T does, and fails if h is not in it.

// Start starts h (a no-op if it is started).
func (h *Handle) Start(s *Session) error {
	return h.in(s, func() error {
		if h.v.spec.Continuous {
			return ErrNoStartStop
		}
		h.start()
		return nil
	})
}

// Stop stops h (a no-op if it is stopped).
func (h *Handle) Stop(s *Session) error {
	return h.in(s, func() error {
		if h.v.spec.Continuous {
			return ErrNoStartStop
		}
		h.stop()
		return nil
	})
}

// Read stores h's value in dst, which holds Count elements.
func (h *Handle) Read(s *Session, dst []uint64) error {
	return h.in(s, func() error { h.value(dst); return nil })
}

// Write sets h's value from src, which holds Count elements.
func (h *Handle) Write(s *Session, src []uint64) error {
	return h.in(s, func() error {
		if h.v.spec.Readonly {
			return ErrNoWrite
		}
		h.reset(src)
		return nil
	})
}

// Reset sets h back to its starting value (0 for counters).
func (h *Handle) Reset(s *Session) error {
	return h.in(s, func() error {
		if h.v.spec.Readonly {
			return ErrNoWrite
		}
		h.reset(nil)
		return nil
	})
}

// ReadReset reads and resets h in one step: nothing counted in between is lost.
func (h *Handle) ReadReset(s *Session, dst []uint64) error {
	return h.in(s, func() error {
		if h.v.spec.Readonly {
			return ErrNoWrite
		}
		h.value(dst) // the reset starts from the very sample that was read
		h.resetFromRaw(nil)
		return nil
	})
}

// in runs f with s locked after checking that h belongs to s.
func (h *Handle) in(s *Session, f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.owns(h); err != nil {
		return err
	}
	return f()
}

// The methods below run with the session locked.

func (h *Handle) sample() { h.v.spec.Read(h.raw) }

func (h *Handle) start() {
	if h.started {
		return
	}
	h.sample()
	copy(h.base, h.raw)
	h.started = true
}

func (h *Handle) stop() {
	if !h.started || h.v.spec.Continuous {
		return
	}
	h.sample()
	for i := range h.raw {
		h.acc[i] += h.raw[i] - h.base[i]
	}
	copy(h.held, h.raw)
	h.started = false
}

// value computes the handle's value into dst, leaving the raw sample in h.raw.
func (h *Handle) value(dst []uint64) {
	h.sample()
	acc := h.v.spec.Class.accumulates()
	for i := range dst[:h.count] {
		switch {
		case !acc && h.started:
			dst[i] = h.raw[i]
		case !acc:
			dst[i] = h.held[i]
		case h.started:
			dst[i] = h.acc[i] + h.raw[i] - h.base[i]
		default:
			dst[i] = h.acc[i]
		}
	}
}

// reset sets an accumulating handle's value to vals (nil: 0) from now on.
func (h *Handle) reset(vals []uint64) {
	h.sample()
	h.resetFromRaw(vals)
}

func (h *Handle) resetFromRaw(vals []uint64) {
	for i := range h.acc {
		h.acc[i] = 0
		if vals != nil {
			h.acc[i] = vals[i]
		}
	}
	copy(h.base, h.raw)
}
