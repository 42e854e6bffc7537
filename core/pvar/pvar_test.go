package pvar

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"mpix/core/cvar"
)

var (
	testCat = cvar.NewCategory("mpix_pvar_test", "performance variables of the tests", cvar.Root)
	testSeq atomic.Int64
)

// source is a fake measurement with two elements the test moves by hand.
type source struct{ v [2]atomic.Uint64 }

func (s *source) read(dst []uint64) {
	for i := range dst {
		dst[i] = s.v[i].Load()
	}
}

func (s *source) add(n uint64) { s.v[0].Add(n); s.v[1].Add(2 * n) }

func newVar(t *testing.T, class Class, continuous, readonly bool) (*Var, *source) {
	t.Helper()
	src := &source{}
	v := Register(Spec{
		Name: fmt.Sprintf("mpix_test_%d", testSeq.Add(1)), Desc: "test", Class: class,
		Verbosity: cvar.UserBasic, Category: testCat, Continuous: continuous, Readonly: readonly,
		Count: func() int { return 2 }, Read: src.read,
	})
	return v, src
}

func read(t *testing.T, h *Handle, s *Session) []uint64 {
	t.Helper()
	got := make([]uint64, h.Count())
	require.NoError(t, h.Read(s, got))
	return got
}

// A step acts on a handle; want is its value afterwards, err the step's error.
type step struct {
	do   string // "add N" is written as add, with n
	n    uint64
	want []uint64
	err  error
}

func TestHandleSemantics(t *testing.T) {
	tests := []struct {
		name       string
		class      Class
		continuous bool
		readonly   bool
		steps      []step
	}{
		{name: "counter counts only while started", class: Counter, steps: []step{
			{do: "read", want: []uint64{0, 0}},
			{do: "add", n: 5, want: []uint64{0, 0}},
			{do: "start", want: []uint64{0, 0}},
			{do: "add", n: 3, want: []uint64{3, 6}},
			{do: "start", want: []uint64{3, 6}}, // starting again changes nothing
			{do: "stop", want: []uint64{3, 6}},
			{do: "add", n: 10, want: []uint64{3, 6}},
			{do: "stop", want: []uint64{3, 6}},
			{do: "start", want: []uint64{3, 6}},
			{do: "add", n: 1, want: []uint64{4, 8}},
			{do: "reset", want: []uint64{0, 0}},
			{do: "add", n: 2, want: []uint64{2, 4}},
			{do: "readreset", want: []uint64{0, 0}},
			{do: "write", n: 100, want: []uint64{100, 100}},
			{do: "add", n: 1, want: []uint64{101, 102}},
		}},
		{name: "continuous counter", class: Counter, continuous: true, steps: []step{
			{do: "add", n: 4, want: []uint64{4, 8}},
			{do: "start", want: []uint64{4, 8}, err: ErrNoStartStop},
			{do: "stop", want: []uint64{4, 8}, err: ErrNoStartStop},
			{do: "reset", want: []uint64{0, 0}},
			{do: "add", n: 1, want: []uint64{1, 2}},
		}},
		{name: "read-only level follows the source while started", class: Level, readonly: true, steps: []step{
			{do: "add", n: 7, want: []uint64{0, 0}}, // stopped: the value at allocation
			{do: "start", want: []uint64{7, 14}},
			{do: "add", n: 1, want: []uint64{8, 16}},
			{do: "stop", want: []uint64{8, 16}},
			{do: "add", n: 1, want: []uint64{8, 16}},
			{do: "reset", want: []uint64{8, 16}, err: ErrNoWrite},
			{do: "write", n: 1, want: []uint64{8, 16}, err: ErrNoWrite},
			{do: "readreset", want: []uint64{8, 16}, err: ErrNoWrite},
		}},
		{name: "continuous read-only size", class: Size, continuous: true, readonly: true, steps: []step{
			{do: "add", n: 2, want: []uint64{2, 4}},
			{do: "start", want: []uint64{2, 4}, err: ErrNoStartStop},
			{do: "reset", want: []uint64{2, 4}, err: ErrNoWrite},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, src := newVar(t, tc.class, tc.continuous, tc.readonly)
			require.Equal(t, !tc.readonly, v.Atomic())
			s := NewSession()
			h, err := s.Alloc(v)
			require.NoError(t, err)
			require.Equal(t, 2, h.Count())
			require.Same(t, v, h.Var())
			for i, st := range tc.steps {
				var err error
				switch st.do {
				case "read":
				case "add":
					src.add(st.n)
				case "start":
					err = h.Start(s)
				case "stop":
					err = h.Stop(s)
				case "reset":
					err = h.Reset(s)
				case "write":
					err = h.Write(s, []uint64{st.n, st.n})
				case "readreset":
					before := read(t, h, s)
					got := make([]uint64, 2)
					err = h.ReadReset(s, got)
					if err == nil {
						require.Equal(t, before, got, "step %d: readreset's value", i)
					}
				}
				if st.err != nil {
					require.ErrorIs(t, err, st.err, "step %d (%s)", i, st.do)
				} else {
					require.NoError(t, err, "step %d (%s)", i, st.do)
				}
				require.Equal(t, st.want, read(t, h, s), "step %d (%s)", i, st.do)
			}
		})
	}
}

// Sessions are independent, and ALL_HANDLES operations skip what they cannot do.
func TestSessions(t *testing.T) {
	c, src := newVar(t, Counter, false, false)
	l, lsrc := newVar(t, Level, true, true)
	s1, s2 := NewSession(), NewSession()
	h1, err := s1.Alloc(c)
	require.NoError(t, err)
	hl, err := s1.Alloc(l)
	require.NoError(t, err)
	h2, err := s2.Alloc(c)
	require.NoError(t, err)
	require.Equal(t, 2, s1.Len())

	require.NoError(t, s1.StartAll())
	src.add(1)
	lsrc.add(1)
	require.Equal(t, []uint64{1, 2}, read(t, h1, s1))
	require.Equal(t, []uint64{0, 0}, read(t, h2, s2), "s2's handle was never started")
	require.Equal(t, []uint64{1, 2}, read(t, hl, s1))
	require.NoError(t, s1.StopAll())
	src.add(1)
	lsrc.add(1)
	require.Equal(t, []uint64{1, 2}, read(t, h1, s1))
	require.Equal(t, []uint64{2, 4}, read(t, hl, s1), "a continuous handle keeps going")
	require.NoError(t, s1.ResetAll())
	require.Equal(t, []uint64{0, 0}, read(t, h1, s1))

	// A handle used with the wrong session, or after it was freed.
	require.ErrorIs(t, h2.Read(s1, make([]uint64, 2)), ErrWrongSession)
	require.ErrorIs(t, s1.Free(h2), ErrWrongSession)
	require.NoError(t, s1.Free(h1))
	require.ErrorIs(t, h1.Read(s1, make([]uint64, 2)), ErrFreed)
	require.ErrorIs(t, s1.Free(h1), ErrFreed)
	require.Equal(t, 1, s1.Len())

	s1.Close()
	require.ErrorIs(t, hl.Read(s1, make([]uint64, 2)), ErrFreed)
	_, err = s1.Alloc(c)
	require.ErrorIs(t, err, ErrFreed)
	require.ErrorIs(t, s1.StartAll(), ErrFreed)
	require.NoError(t, h2.Start(s2))
}

func TestRegistry(t *testing.T) {
	before := cvar.Stamp()
	v, _ := newVar(t, Timer, false, false)
	require.Greater(t, cvar.Stamp(), before)
	all := All()
	require.Same(t, v, all[len(all)-1])
	for i, x := range all {
		require.Equal(t, i, x.Index())
		got, ok := ByIndex(i)
		require.True(t, ok)
		require.Same(t, x, got)
		got, ok = Lookup(x.Name(), x.Class())
		require.True(t, ok)
		require.Same(t, x, got)
		require.Contains(t, x.Category().Pvars(), i)
	}
	_, ok := ByIndex(len(all))
	require.False(t, ok)
	_, ok = Lookup(v.Name(), Counter) // right name, wrong class
	require.False(t, ok)
	require.Contains(t, testCat.Pvars(), v.Index())

	good := Spec{Name: "mpix_test_x", Desc: "d", Class: Counter, Verbosity: cvar.UserBasic, Category: testCat, Read: func([]uint64) {}}
	for name, mutate := range map[string]func(*Spec){
		"duplicate":       func(s *Spec) { s.Name = v.Name(); s.Class = Timer },
		"no mpix_ prefix": func(s *Spec) { s.Name = "x" },
		"no category":     func(s *Spec) { s.Category = nil },
		"no read":         func(s *Spec) { s.Read = nil },
		"bad class":       func(s *Spec) { s.Class = 1 },
		"writable level":  func(s *Spec) { s.Class = Level },
		"bad verbosity":   func(s *Spec) { s.Verbosity = 0 },
	} {
		s := good
		mutate(&s)
		require.Panics(t, func() { Register(s) }, name)
	}
}

// The runtime variables read real values: the GC counter moves when the heap churns.
func TestRuntimeVariables(t *testing.T) {
	s := NewSession()
	gc, err := s.Alloc(GCCycles)
	require.NoError(t, err)
	heap, err := s.Alloc(HeapBytes)
	require.NoError(t, err)
	require.NoError(t, gc.Start(s))
	runtime.GC()
	require.GreaterOrEqual(t, read(t, gc, s)[0], uint64(1))
	require.Greater(t, read(t, heap, s)[0], uint64(0))
	require.True(t, HeapBytes.Continuous() && HeapBytes.Readonly())
	require.Equal(t, GoRuntime, GCCycles.Category())
}

// Many threads may use one session (run with -race).
func TestConcurrentHandles(t *testing.T) {
	v, src := newVar(t, Counter, true, false)
	s := NewSession()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := s.Alloc(v)
			if err != nil {
				t.Error(err)
				return
			}
			for range 100 {
				src.add(1)
				got := make([]uint64, 2)
				if err := h.ReadReset(s, got); err != nil {
					t.Error(err)
				}
			}
			if err := s.Free(h); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 0, s.Len())
}
