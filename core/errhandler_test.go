package core

import (
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// fakeFns stand in for C function pointers; core never calls them.
var fakeFns [4]byte

func fakeFn(i int) unsafe.Pointer { return unsafe.Pointer(&fakeFns[i]) }

// newHandler makes a user error handler or stops the test.
func newHandler(t *testing.T, obj ObjectType) *Errhandler {
	t.Helper()
	e, err := NewErrhandler(obj, fakeFn(0))
	noErr(t, err)
	return e
}

// restoreErrhandler puts c's error handler back when the test ends.
func restoreErrhandler(t *testing.T, c *Comm) {
	prev := c.Errhandler()
	t.Cleanup(func() { c.errh.Store(prev) })
}

func TestLookupErrhandler(t *testing.T) {
	user := newHandler(t, OnComm)
	t.Cleanup(user.Release)
	tests := []struct {
		name    string
		h       int32
		want    *Errhandler
		kind    ErrhandlerKind
		errSubs string // non-empty: want ErrArg with this in the message
	}{
		{name: "MPI_ERRORS_ARE_FATAL", h: 0x54000000, want: ErrhFatal, kind: ErrorsAreFatal},
		{name: "MPI_ERRORS_RETURN", h: 0x54000001, want: ErrhReturn, kind: ErrorsReturn},
		{name: "MPI_ERRORS_ABORT", h: 0x54000003, want: ErrhAbort, kind: ErrorsAbort},
		{name: "user", h: user.Handle, want: user, kind: ErrorsUser},
		{name: "MPI_ERRHANDLER_NULL", h: 0x14000000, errSubs: "MPI_ERRHANDLER_NULL"},
		{name: "unused builtin index 2", h: 0x54000002, errSubs: "0x54000002"},
		{name: "zero", h: 0, errSubs: "invalid error handler"},
		{name: "minus one", h: -1, errSubs: "invalid error handler"},
		{name: "MPI_COMM_WORLD", h: 0x44000000, errSubs: "0x44000000"},
		{name: "user index never used", h: user.Handle | 0x3fff00, errSubs: "invalid error handler"},
		{name: "user index with comm kind", h: user.Handle&^(0xf<<26) | int32(KindComm)<<26, errSubs: "invalid error handler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookupErrhandler(tt.h)
			if tt.errSubs != "" {
				e := wantClass(t, err, ErrArg)
				if !strings.Contains(e.Msg, tt.errSubs) {
					t.Errorf("message %q does not mention %q", e.Msg, tt.errSubs)
				}
				if got != nil {
					t.Errorf("got handler %p alongside an error", got)
				}
				return
			}
			noErr(t, err)
			if got != tt.want {
				t.Fatalf("LookupErrhandler(0x%x) = %p, want %p", uint32(tt.h), got, tt.want)
			}
			if got.Kind != tt.kind || got.Handle != tt.h {
				t.Errorf("handler kind %d handle 0x%x, want %d 0x%x", got.Kind, uint32(got.Handle), tt.kind, uint32(tt.h))
			}
		})
	}
}

func TestNewErrhandler(t *testing.T) {
	before := errhandlers.Live()
	e, err := NewErrhandler(OnWin, nil)
	wantClass(t, err, ErrArg)
	if e != nil {
		t.Errorf("got handler %p alongside an error", e)
	}
	if errhandlers.Live() != before {
		t.Errorf("a failed NewErrhandler left an object in the table")
	}

	objs := []ObjectType{OnComm, OnWin, OnFile, OnSession}
	var made []*Errhandler
	for i, obj := range objs {
		e, err := NewErrhandler(obj, fakeFn(i))
		noErr(t, err)
		made = append(made, e)
		want := struct {
			Kind   ErrhandlerKind
			Object ObjectType
			Fn     unsafe.Pointer
			Refs   int32
			User   bool
		}{ErrorsUser, obj, fakeFn(i), 1, true}
		got := want
		got.Kind, got.Object, got.Fn, got.Refs = e.Kind, e.Object, e.Fn, e.refs.Load()
		got.User = uint32(e.Handle)>>30 == 2 && handleKindOf(e.Handle) == KindErrhandler
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("NewErrhandler(%v) mismatch (-want +got):\n%s", obj, diff)
		}
		if l, err := LookupErrhandler(e.Handle); err != nil || l != e {
			t.Errorf("new handler does not resolve: %p, %v", l, err)
		}
	}
	if errhandlers.Live() != before+len(objs) {
		t.Errorf("Live() = %d, want %d", errhandlers.Live(), before+len(objs))
	}
	for _, e := range made {
		e.Release()
	}
	if errhandlers.Live() != before {
		t.Errorf("Live() = %d after releasing, want %d", errhandlers.Live(), before)
	}
}

func TestErrhandlerRefCounting(t *testing.T) {
	e := newHandler(t, OnComm)
	h := e.Handle
	steps := []struct {
		name  string
		do    func()
		refs  int32
		alive bool
	}{
		{"created", func() {}, 1, true},
		{"ref", func() {
			if e.Ref() != e {
				t.Error("Ref did not return its receiver")
			}
		}, 2, true},
		{"ref again", func() { e.Ref() }, 3, true},
		{"release", e.Release, 2, true},
		{"release", e.Release, 1, true},
		{"last release", e.Release, 0, false},
	}
	for _, st := range steps {
		st.do()
		if got := e.refs.Load(); got != st.refs {
			t.Errorf("%s: refs = %d, want %d", st.name, got, st.refs)
		}
		got, err := LookupErrhandler(h)
		if st.alive && (err != nil || got != e) {
			t.Errorf("%s: handle no longer resolves: %v", st.name, err)
		}
		if !st.alive {
			wantClass(t, err, ErrArg)
		}
	}

	// Predefined handlers never die and never count.
	for _, b := range []*Errhandler{ErrhFatal, ErrhReturn, ErrhAbort} {
		for range 3 {
			b.Release()
		}
		b.Ref()
		if b.refs.Load() != 0 {
			t.Errorf("predefined handler 0x%x counted references", uint32(b.Handle))
		}
		if got, err := LookupErrhandler(b.Handle); err != nil || got != b {
			t.Errorf("predefined handler 0x%x gone after releases: %v", uint32(b.Handle), err)
		}
	}
}

func TestCommSetErrhandlerRefs(t *testing.T) {
	for _, c := range []*Comm{CommWorld, CommSelf, {Handle: -1}} {
		t.Run(c.Name(), func(t *testing.T) {
			restoreErrhandler(t, c)
			before := errhandlers.Live()
			e1 := newHandler(t, OnComm)
			e2 := newHandler(t, OnComm)
			h1, h2 := e1.Handle, e2.Handle
			alive := func(h int32) bool { _, err := LookupErrhandler(h); return err == nil }
			steps := []struct {
				name           string
				do             func() error
				current        *Errhandler
				refs1, refs2   int32
				alive1, alive2 bool
			}{
				{"attach e1", func() error { return c.SetErrhandler(e1) }, e1, 2, 1, true, true},
				{"user frees e1 while attached", func() error { e1.Release(); return nil }, e1, 1, 1, true, true},
				{"attach e1 again", func() error { return c.SetErrhandler(e1) }, e1, 1, 1, true, true},
				{"attach e2 drops e1", func() error { return c.SetErrhandler(e2) }, e2, 0, 2, false, true},
				{"attach predefined", func() error { return c.SetErrhandler(ErrhReturn) }, ErrhReturn, 0, 1, false, true},
				{"user frees e2", func() error { e2.Release(); return nil }, ErrhReturn, 0, 0, false, false},
			}
			for _, st := range steps {
				noErr(t, st.do())
				if got := c.Errhandler(); got != st.current {
					t.Errorf("%s: attached handler 0x%x, want 0x%x", st.name, uint32(got.Handle), uint32(st.current.Handle))
				}
				got := [4]any{e1.refs.Load(), e2.refs.Load(), alive(h1), alive(h2)}
				want := [4]any{st.refs1, st.refs2, st.alive1, st.alive2}
				if got != want {
					t.Errorf("%s: [refs1 refs2 alive1 alive2] = %v, want %v", st.name, got, want)
				}
			}
			if errhandlers.Live() != before {
				t.Errorf("Live() = %d, want %d: a handler leaked", errhandlers.Live(), before)
			}
		})
	}
}

func TestErrhandlerSharedByComms(t *testing.T) {
	restoreErrhandler(t, CommWorld)
	restoreErrhandler(t, CommSelf)
	e := newHandler(t, OnComm)
	noErr(t, CommWorld.SetErrhandler(e))
	noErr(t, CommSelf.SetErrhandler(e))
	e.Release() // the user's handle
	if e.refs.Load() != 2 {
		t.Fatalf("refs = %d with two attachments, want 2", e.refs.Load())
	}
	noErr(t, CommWorld.SetErrhandler(ErrhFatal))
	if _, err := LookupErrhandler(e.Handle); err != nil {
		t.Fatalf("handler died while still attached to MPI_COMM_SELF: %v", err)
	}
	noErr(t, CommSelf.SetErrhandler(ErrhFatal))
	if _, err := LookupErrhandler(e.Handle); err == nil {
		t.Fatalf("handler survived its last reference")
	}
}

func TestCheckAttach(t *testing.T) {
	tests := []struct {
		name    string
		made    ObjectType // for user handlers
		builtin *Errhandler
		to      ObjectType
		ok      bool
	}{
		{name: "comm handler on comm", made: OnComm, to: OnComm, ok: true},
		{name: "win handler on win", made: OnWin, to: OnWin, ok: true},
		{name: "file handler on file", made: OnFile, to: OnFile, ok: true},
		{name: "session handler on session", made: OnSession, to: OnSession, ok: true},
		{name: "win handler on comm", made: OnWin, to: OnComm},
		{name: "comm handler on win", made: OnComm, to: OnWin},
		{name: "file handler on session", made: OnFile, to: OnSession},
		{name: "fatal on comm", builtin: ErrhFatal, to: OnComm, ok: true},
		{name: "return on win", builtin: ErrhReturn, to: OnWin, ok: true},
		{name: "abort on file", builtin: ErrhAbort, to: OnFile, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.builtin
			if e == nil {
				e = newHandler(t, tt.made)
				defer e.Release()
			}
			err := e.CheckAttach(tt.to)
			if tt.ok {
				noErr(t, err)
				return
			}
			ee := wantClass(t, err, ErrArg)
			if !strings.Contains(ee.Msg, tt.made.String()) || !strings.Contains(ee.Msg, tt.to.String()) {
				t.Errorf("message %q does not name %q and %q", ee.Msg, tt.made, tt.to)
			}
		})
	}
}

func TestSetErrhandlerWrongObject(t *testing.T) {
	c := &Comm{}
	c.errh.Store(ErrhFatal)
	w := newHandler(t, OnWin)
	defer w.Release()
	wantClass(t, c.SetErrhandler(w), ErrArg)
	if c.Errhandler() != ErrhFatal {
		t.Errorf("a rejected handler was attached")
	}
	if w.refs.Load() != 1 {
		t.Errorf("a rejected attach changed refs to %d", w.refs.Load())
	}
}

func TestObjectTypeString(t *testing.T) {
	want := map[ObjectType]string{
		AnyObject: "any object", OnComm: "communicators", OnWin: "windows",
		OnFile: "files", OnSession: "sessions",
	}
	for o, s := range want {
		if o.String() != s {
			t.Errorf("ObjectType(%d).String() = %q, want %q", o, o.String(), s)
		}
	}
}

func TestLookupComm(t *testing.T) {
	user := &Comm{Size: 3}
	user.Handle = comms.Add(user)
	defer comms.Remove(user.Handle)
	freed := &Comm{}
	freed.Handle = comms.Add(freed)
	comms.Remove(freed.Handle)
	tests := []struct {
		name    string
		h       int32
		want    *Comm
		errSubs string
	}{
		{name: "MPI_COMM_WORLD", h: 0x44000000, want: CommWorld},
		{name: "MPI_COMM_SELF", h: 0x44000001, want: CommSelf},
		{name: "user", h: user.Handle, want: user},
		{name: "MPI_COMM_NULL", h: 0x04000000, errSubs: "MPI_COMM_NULL"},
		{name: "unused builtin", h: 0x44000002, errSubs: "0x44000002"},
		{name: "MPI_INFO_ENV", h: 0x5c000001, errSubs: "0x5c000001"},
		{name: "MPI_ERRORS_RETURN", h: 0x54000001, errSubs: "0x54000001"},
		{name: "zero", h: 0, errSubs: "invalid communicator"},
		{name: "minus one", h: -1, errSubs: "invalid communicator"},
		{name: "freed", h: freed.Handle, errSubs: "invalid communicator"},
		{name: "user index as info kind", h: user.Handle&^(0xf<<26) | int32(KindInfo)<<26, errSubs: "invalid communicator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookupComm(tt.h)
			if tt.errSubs != "" {
				e := wantClass(t, err, ErrComm)
				if !strings.Contains(e.Msg, tt.errSubs) {
					t.Errorf("message %q does not mention %q", e.Msg, tt.errSubs)
				}
				if got != nil {
					t.Errorf("got comm %p alongside an error", got)
				}
				return
			}
			noErr(t, err)
			if got != tt.want {
				t.Errorf("LookupComm(0x%x) = %p, want %p", uint32(tt.h), got, tt.want)
			}
		})
	}
}

func TestCheckRank(t *testing.T) {
	c := &Comm{}
	c.init(0, NewGroup([]int{0, 1, 2, 3}), nil, nil)
	tests := []struct {
		rank                    int
		allowProcNull, allowAny bool
		ok                      bool
	}{
		{0, false, false, true},
		{3, false, false, true},
		{4, false, false, false},
		{4, true, true, false},
		{100, true, true, false},
		{ProcNull, false, false, false},
		{ProcNull, true, false, true},
		{ProcNull, false, true, false},
		{AnySource, false, false, false},
		{AnySource, false, true, true},
		{AnySource, true, false, false},
		{Root, true, true, false},
		{-4, true, true, false},
	}
	for _, tt := range tests {
		err := c.CheckRank(tt.rank, tt.allowProcNull, tt.allowAny)
		if tt.ok {
			if err != nil {
				t.Errorf("CheckRank(%d, %v, %v) = %v, want nil", tt.rank, tt.allowProcNull, tt.allowAny, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("CheckRank(%d, %v, %v) = nil, want MPI_ERR_RANK", tt.rank, tt.allowProcNull, tt.allowAny)
			continue
		}
		e := wantClass(t, err, ErrRank)
		want := "invalid rank " + strconv.Itoa(tt.rank) + " in communicator of size 4"
		if e.Msg != want {
			t.Errorf("message %q, want %q", e.Msg, want)
		}
	}
	if err := (&Comm{Size: 0}).CheckRank(0, true, true); err == nil {
		t.Errorf("rank 0 accepted in a communicator of size 0")
	}
}

func TestSpecialRankValuesMatchMPICH(t *testing.T) {
	got := [4]int{AnySource, ProcNull, Root, AnyTag}
	want := [4]int{-2, -1, -3, -1}
	if got != want {
		t.Errorf("[ANY_SOURCE PROC_NULL ROOT ANY_TAG] = %v, want %v", got, want)
	}
}

func TestCommNames(t *testing.T) {
	if CommWorld.Name() != "MPI_COMM_WORLD" || CommSelf.Name() != "MPI_COMM_SELF" {
		t.Errorf("predefined names %q %q", CommWorld.Name(), CommSelf.Name())
	}
	c := &Comm{}
	c.SetName("solver")
	if c.Name() != "solver" {
		t.Errorf("Name() = %q after SetName", c.Name())
	}
	if CommWorld.Name() != "MPI_COMM_WORLD" {
		t.Errorf("renaming one comm renamed MPI_COMM_WORLD")
	}
}
