package core

import (
	"strconv"
	"strings"
	"sync/atomic"
)

// Session is an MPI-4 session: an isolated handle on the library, from which groups of
// process sets and then communicators are made without MPI_Init.
type Session struct {
	Handle      int32
	info        *Info
	errh        atomic.Pointer[Errhandler]
	threadLevel int
	finalized   atomic.Bool
}

var sessions = NewTable[Session](KindSession)

// The process sets every session knows.
const (
	PsetWorld = "mpi://WORLD"
	PsetSelf  = "mpi://SELF"
)

var psets = []string{PsetWorld, PsetSelf}

// threadLevelFromInfo reads the "thread_level" hint (MPI-4.1 §11.3.1), default
// MPI_THREAD_SINGLE.
func threadLevelFromInfo(info *Info) (int, error) {
	if info == nil {
		return ThreadSingle, nil
	}
	v, ok, err := info.Get("thread_level")
	if err != nil || !ok {
		return ThreadSingle, err
	}
	for l := ThreadSingle; l <= ThreadMultiple; l++ {
		if strings.EqualFold(strings.TrimSpace(v), ThreadLevelName(l)) {
			return l, nil
		}
	}
	return 0, Errorf(ErrArg, "invalid thread_level %q (want MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE)", v)
}

// SessionInit is MPI_Session_init: it starts the library if neither MPI_Init nor
// another session has.
func SessionInit(info *Info, errh *Errhandler) (*Session, error) {
	level, err := threadLevelFromInfo(info)
	if err != nil {
		return nil, err
	}
	if errh != nil {
		if err := errh.CheckAttach(OnSession); err != nil {
			return nil, err
		}
	}
	proc.mu.Lock()
	defer proc.mu.Unlock()
	if err := acquireLibrary(level); err != nil {
		return nil, err
	}
	s := &Session{info: info.copyUnregistered(), threadLevel: level}
	if errh == nil {
		errh = ErrhFatal
	}
	s.errh.Store(errh.Ref())
	s.Handle = sessions.Add(s)
	return s, nil
}

// LookupSession resolves a session handle.
func LookupSession(h int32) (*Session, error) {
	if s := sessions.Get(h); s != nil {
		return s, nil
	}
	if h == NullHandle(KindSession) {
		return nil, Errorf(ErrSession, "MPI_SESSION_NULL is not a valid session here")
	}
	return nil, Errorf(ErrSession, "invalid session handle 0x%x", uint32(h))
}

// Finalize is MPI_Session_finalize; the library stops with its last user.
func (s *Session) Finalize() error {
	if s.finalized.Swap(true) {
		return Errorf(ErrSession, "session already finalized")
	}
	proc.mu.Lock()
	defer proc.mu.Unlock()
	sessions.Remove(s.Handle)
	if e := s.errh.Swap(nil); e != nil {
		e.Release()
	}
	return releaseLibrary()
}

// Errhandler returns the session's error handler.
func (s *Session) Errhandler() *Errhandler { return s.errh.Load() }

// SetErrhandler attaches an error handler to the session.
func (s *Session) SetErrhandler(e *Errhandler) error {
	if err := e.CheckAttach(OnSession); err != nil {
		return err
	}
	if old := s.errh.Swap(e.Ref()); old != nil {
		old.Release()
	}
	return nil
}

// Info is MPI_Session_get_info: the hints the session uses, with the thread level
// it provides.
func (s *Session) Info() *Info {
	out := NewInfo()
	if s.info != nil {
		s.info.mu.Lock()
		for _, k := range s.info.keys {
			out.Set(k, s.info.vals[k])
		}
		s.info.mu.Unlock()
	}
	out.Set("thread_level", ThreadLevelName(s.threadLevel))
	return out
}

// Psets lists the process sets' names.
func (s *Session) Psets() []string { return psets }

// PsetGroup is MPI_Group_from_session_pset.
func (s *Session) PsetGroup(name string) (*Group, error) {
	switch name {
	case PsetWorld:
		return NewGroup(append([]int(nil), CommWorld.group.ranks...)), nil
	case PsetSelf:
		return NewGroup([]int{CommWorld.Rank}), nil
	}
	return nil, Errorf(ErrArg, "unknown process set %q (known: %s, %s)", name, PsetWorld, PsetSelf)
}

// PsetInfo is MPI_Session_get_pset_info: "mpi_size" is the set's size.
func (s *Session) PsetInfo(name string) (*Info, error) {
	g, err := s.PsetGroup(name)
	if err != nil {
		return nil, err
	}
	out := NewInfo()
	out.Set("mpi_size", strconv.Itoa(g.Size()))
	return out, nil
}
