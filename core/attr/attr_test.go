package attr

import (
	"errors"
	"fmt"
	"mpix/core/mpierr"
	"sync"
	"testing"
)

func classOf(err error) int {
	var e interface{ MPIErrorClass() int }
	if errors.As(err, &e) {
		return e.MPIErrorClass()
	}
	return -1
}

// recorder counts callback calls and can be told to fail.
type recorder struct {
	mu      sync.Mutex
	copies  []uintptr
	deletes []uintptr
	failDel error
	failCp  error
	keep    bool
}

func (r *recorder) copy(kv *Keyval, obj int32, val uintptr) (uintptr, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.copies = append(r.copies, val)
	if r.failCp != nil {
		return 0, false, r.failCp
	}
	return val + 1, r.keep, nil
}

func (r *recorder) del(kv *Keyval, obj int32, val uintptr) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failDel != nil {
		return r.failDel
	}
	r.deletes = append(r.deletes, val)
	return nil
}

func mustCreate(t *testing.T, k Kind, r *recorder) *Keyval {
	t.Helper()
	var cp CopyFunc
	var del DeleteFunc
	if r != nil {
		cp, del = r.copy, r.del
	}
	kv, err := Create(k, cp, del, 0)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func TestHandles(t *testing.T) {
	kv := mustCreate(t, Comm, nil)
	defer kv.Free()
	tk := mustCreate(t, Datatype, nil)
	defer tk.Free()
	if h := uint32(kv.Handle()); h&0xffc00000 != 0xa4400000 {
		t.Errorf("comm keyval handle 0x%x, want 0xa44xxxxx", h)
	}
	if h := uint32(tk.Handle()); h&0xffc00000 != 0xa4c00000 {
		t.Errorf("datatype keyval handle 0x%x, want 0xa4cxxxxx", h)
	}
	if uint32(TagUB) != 0x64400001 || uint32(AppNum) != 0x6440000d || uint32(WinBase) != 0x66000001 || uint32(WinModel) != 0x66000009 {
		t.Errorf("predefined keyval values differ from MPICH's")
	}
	if uint32(Invalid) != 0x24000000 {
		t.Errorf("MPI_KEYVAL_INVALID = 0x%x", uint32(Invalid))
	}
}

func TestLookup(t *testing.T) {
	kv := mustCreate(t, Comm, nil)
	freed := mustCreate(t, Comm, nil)
	if err := freed.Free(); err != nil {
		t.Fatal(err)
	}
	defer kv.Free()
	tests := []struct {
		name  string
		h     int32
		kind  Kind
		class int // 0: found
	}{
		{"user comm keyval", kv.Handle(), Comm, 0},
		{"wrong kind", kv.Handle(), Datatype, mpierr.ErrKeyval},
		{"freed", freed.Handle(), Comm, mpierr.ErrKeyval},
		{"invalid", Invalid, Comm, mpierr.ErrKeyval},
		{"not a keyval", 0x44000000, Comm, mpierr.ErrKeyval},
		{"index out of range", kv.Handle() + 1000, Comm, mpierr.ErrKeyval},
		{"mangled kind bits", kv.Handle() ^ int32(Comm^Datatype)<<kindShift, Datatype, mpierr.ErrKeyval},
		{"MPI_TAG_UB", TagUB, Comm, 0},
		{"MPI_TAG_UB Fortran", TagUB + 1, Comm, 0},
		{"MPI_TAG_UB on a datatype", TagUB, Datatype, mpierr.ErrKeyval},
		{"MPI_WIN_BASE", WinBase, Win, 0},
		{"MPI_WIN_BASE on a comm", WinBase, Comm, mpierr.ErrKeyval},
		{"unknown builtin", TagUB + 40, Comm, mpierr.ErrKeyval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Lookup(tt.h, tt.kind)
			if tt.class == 0 {
				if err != nil || got.Handle() != tt.h {
					t.Fatalf("Lookup(0x%x) = %v, %v", uint32(tt.h), got, err)
				}
				return
			}
			if c := classOf(err); c != tt.class {
				t.Fatalf("Lookup(0x%x): class %d (%v), want %d", uint32(tt.h), c, err, tt.class)
			}
		})
	}
}

func TestPredefined(t *testing.T) {
	kv, err := Lookup(UniverseSize+1, Comm)
	if err != nil {
		t.Fatal(err)
	}
	if !kv.Predefined() || kv.CKey() != UniverseSize {
		t.Errorf("Fortran MPI_UNIVERSE_SIZE: predefined %v, C key 0x%x", kv.Predefined(), uint32(kv.CKey()))
	}
	var s Store
	for name, err := range map[string]error{
		"free":   kv.Free(),
		"set":    s.Set(kv, 1, 5),
		"delete": s.Delete(kv, 1),
	} {
		if classOf(err) != mpierr.ErrKeyval {
			t.Errorf("%s of a predefined keyval: %v, want MPI_ERR_KEYVAL", name, err)
		}
	}
}

func TestFreeTwice(t *testing.T) {
	kv := mustCreate(t, Win, nil)
	if err := kv.Free(); err != nil {
		t.Fatal(err)
	}
	if err := kv.Free(); classOf(err) != mpierr.ErrKeyval {
		t.Fatalf("second free: %v", err)
	}
}

// A freed keyval stays alive, with its handle, while attributes use it, and its
// delete callback still runs.
func TestKeyvalLifetime(t *testing.T) {
	before := Live()
	r := &recorder{keep: true}
	kv := mustCreate(t, Comm, r)
	var a, b Store
	if err := a.Set(kv, 1, 10); err != nil {
		t.Fatal(err)
	}
	if err := a.CopyTo(&b, 1, 2); err != nil {
		t.Fatal(err)
	}
	h := kv.Handle()
	if err := kv.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup(h, Comm); classOf(err) != mpierr.ErrKeyval {
		t.Fatalf("lookup of freed keyval: %v", err)
	}
	if Live() != before+1 {
		t.Fatalf("Live = %d after free with attributes set, want %d", Live(), before+1)
	}
	if err := a.Set(kv, 1, 12); err != nil { // the attribute is still there: replace it
		t.Fatal(err)
	}
	if err := a.DeleteAll(1); err != nil {
		t.Fatal(err)
	}
	if Live() != before+1 {
		t.Fatalf("Live = %d with one attribute left", Live())
	}
	if err := b.Delete(kv, 2); err != nil {
		t.Fatal(err)
	}
	if Live() != before {
		t.Fatalf("Live = %d after the last attribute went, want %d", Live(), before)
	}
	if want := fmt.Sprint([]uintptr{10, 12, 11}); fmt.Sprint(r.deletes) != want {
		t.Errorf("deleted values %v, want %s", r.deletes, want)
	}
	if err := b.Set(kv, 2, 1); classOf(err) != mpierr.ErrKeyval {
		t.Errorf("set with a dead keyval: %v", err)
	}
}

func TestStore(t *testing.T) {
	r := &recorder{}
	kv := mustCreate(t, Comm, r)
	defer kv.Free()
	var s Store
	if _, ok := s.Get(kv); ok || s.Len() != 0 {
		t.Fatal("empty store has an attribute")
	}
	if err := s.Delete(kv, 1); err != nil {
		t.Fatalf("delete of unset attribute: %v", err)
	}
	steps := []struct {
		op      string
		val     uintptr
		want    uintptr
		present bool
		deletes int
	}{
		{"set", 7, 7, true, 0},
		{"set", 8, 8, true, 1}, // replacing runs the delete callback on 7
		{"delete", 0, 0, false, 2},
		{"delete", 0, 0, false, 2},
		{"set", 9, 9, true, 2},
	}
	for i, st := range steps {
		var err error
		if st.op == "set" {
			err = s.Set(kv, 1, st.val)
		} else {
			err = s.Delete(kv, 1)
		}
		if err != nil {
			t.Fatalf("step %d %s: %v", i, st.op, err)
		}
		v, ok := s.Get(kv)
		if ok != st.present || v != st.want || len(r.deletes) != st.deletes {
			t.Fatalf("step %d: get = %d,%v deletes %d; want %d,%v,%d", i, v, ok, len(r.deletes), st.want, st.present, st.deletes)
		}
	}
}

func TestDeleteErrors(t *testing.T) {
	boom := errors.New("boom")
	r := &recorder{failDel: boom}
	kv := mustCreate(t, Comm, r)
	defer kv.Free()
	var s Store
	if err := s.Set(kv, 1, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(kv, 1, 2); err != boom {
		t.Fatalf("replace with failing delete: %v", err)
	}
	if v, _ := s.Get(kv); v != 1 {
		t.Fatalf("value after failed replace = %d, want 1", v)
	}
	if err := s.Delete(kv, 1); err != boom {
		t.Fatalf("delete: %v", err)
	}
	if err := s.DeleteAll(1); err != boom {
		t.Fatalf("delete all: %v", err)
	}
	if s.Len() != 1 {
		t.Fatal("attribute went although its delete callback failed")
	}
	r.failDel = nil
	if err := s.DeleteAll(1); err != nil || s.Len() != 0 {
		t.Fatalf("delete all: %v, %d left", err, s.Len())
	}
}

// DeleteAll goes newest first; CopyTo follows keyval creation order, whatever the
// order the attributes were set in.
func TestOrder(t *testing.T) {
	var order []string
	mk := func(name string) *Keyval {
		kv, err := Create(Comm,
			func(kv *Keyval, obj int32, val uintptr) (uintptr, bool, error) {
				order = append(order, "copy "+name)
				return val, true, nil
			},
			func(kv *Keyval, obj int32, val uintptr) error {
				order = append(order, "delete "+name)
				return nil
			}, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { kv.Free() })
		return kv
	}
	a, b, c := mk("a"), mk("b"), mk("c")
	var s, d Store
	for _, kv := range []*Keyval{c, a, b} {
		if err := s.Set(kv, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CopyTo(&d, 1, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAll(1); err != nil {
		t.Fatal(err)
	}
	want := "[copy a copy b copy c delete b delete a delete c]"
	if fmt.Sprint(order) != want {
		t.Errorf("order %v, want %s", order, want)
	}
	if d.Len() != 3 {
		t.Errorf("copy has %d attributes", d.Len())
	}
	d.DeleteAll(2)
}

func TestCopy(t *testing.T) {
	boom := errors.New("copy failed")
	keep := &recorder{keep: true}
	drop := &recorder{keep: false}
	fail := &recorder{failCp: boom}
	kKeep, kDrop, kNull := mustCreate(t, Comm, keep), mustCreate(t, Comm, drop), mustCreate(t, Comm, nil)
	defer kKeep.Free()
	defer kDrop.Free()
	defer kNull.Free()
	var s, d Store
	s.Set(kKeep, 1, 100)
	s.Set(kDrop, 1, 200)
	s.Set(kNull, 1, 300)
	if err := s.CopyTo(&d, 1, 2); err != nil {
		t.Fatal(err)
	}
	if v, ok := d.Get(kKeep); !ok || v != 101 {
		t.Errorf("kept attribute: %d,%v, want 101", v, ok)
	}
	if _, ok := d.Get(kDrop); ok {
		t.Error("attribute whose copy callback said no was copied")
	}
	if _, ok := d.Get(kNull); ok {
		t.Error("attribute with a null copy callback was copied")
	}
	if len(keep.copies) != 1 || len(drop.copies) != 1 {
		t.Errorf("copy calls %d/%d, want 1/1", len(keep.copies), len(drop.copies))
	}

	// A failing copy undoes what was copied before it.
	kFail := mustCreate(t, Comm, fail) // created last: copied last
	defer kFail.Free()
	s.Set(kFail, 1, 400)
	var e Store
	nDel := len(keep.deletes)
	if err := s.CopyTo(&e, 1, 3); err != boom {
		t.Fatalf("copy: %v, want the callback's error", err)
	}
	if e.Len() != 0 || len(keep.deletes) != nDel+1 {
		t.Errorf("after failed copy: %d attributes left, %d deletes (want 0, %d)", e.Len(), len(keep.deletes), nDel+1)
	}
	fail.failCp = nil
	s.DeleteAll(1)
	d.DeleteAll(2)
}

// Callbacks run without the store's lock, so they may use the store themselves.
func TestReentrantCallbacks(t *testing.T) {
	var s Store
	var kv *Keyval
	var seen uintptr
	var inner error
	kv, err := Create(Comm, nil, func(k *Keyval, obj int32, val uintptr) error {
		seen, _ = s.Get(k)       // still the old value
		inner = s.Delete(k, obj) // already being deleted: nothing to do
		return nil
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Free()
	s.Set(kv, 1, 42)
	if err := s.Delete(kv, 1); err != nil || inner != nil {
		t.Fatal(err, inner)
	}
	if seen != 42 || s.Len() != 0 {
		t.Errorf("callback saw %d, %d left", seen, s.Len())
	}
}

func TestConcurrent(t *testing.T) {
	before := Live()
	var wg sync.WaitGroup
	var s Store
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &recorder{keep: true}
			for i := range 200 {
				kv, err := Create(Comm, r.copy, r.del, 0)
				if err != nil {
					t.Error(err)
					return
				}
				var d Store
				s.Set(kv, 1, uintptr(g*1000+i))
				s.Get(kv)
				s.CopyTo(&d, 1, 2)
				kv.Free()
				s.Delete(kv, 1)
				d.DeleteAll(2)
			}
		}()
	}
	wg.Wait()
	if s.Len() != 0 || Live() != before {
		t.Errorf("%d attributes and %d keyvals left over", s.Len(), Live()-before)
	}
}

func TestCreateInvalidKind(t *testing.T) {
	if _, err := Create(Kind(2), nil, nil, 0); classOf(err) != mpierr.ErrArg {
		t.Fatalf("Create with a group kind: %v", err)
	}
}
