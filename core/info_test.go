package core

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// newInfo makes an info object freed at the end of the test.
func newInfo(t *testing.T) *Info {
	t.Helper()
	in := NewInfo()
	t.Cleanup(func() { _ = in.Free() })
	return in
}

// contents lists an info object's pairs in NthKey order, checking NKeys and Get agree.
func contents(t *testing.T, in *Info) [][2]string {
	t.Helper()
	var kv [][2]string
	n := in.NKeys()
	for i := range n {
		k, err := in.NthKey(i)
		noErr(t, err)
		v, ok, err := in.Get(k)
		noErr(t, err)
		if !ok {
			t.Fatalf("key %q listed by NthKey(%d) is not set", k, i)
		}
		kv = append(kv, [2]string{k, v})
	}
	return kv
}

func TestInfoSetGetDeleteOrder(t *testing.T) {
	in := newInfo(t)
	if in.NKeys() != 0 {
		t.Fatalf("new info has %d keys", in.NKeys())
	}
	steps := []struct {
		name string
		do   func() error
		want [][2]string
	}{
		{"set a", func() error { return in.Set("a", "1") }, [][2]string{{"a", "1"}}},
		{"set b", func() error { return in.Set("b", "2") }, [][2]string{{"a", "1"}, {"b", "2"}}},
		{"set c", func() error { return in.Set("c", "3") }, [][2]string{{"a", "1"}, {"b", "2"}, {"c", "3"}}},
		{"replace b keeps its place", func() error { return in.Set("b", "20") }, [][2]string{{"a", "1"}, {"b", "20"}, {"c", "3"}}},
		{"empty value", func() error { return in.Set("c", "") }, [][2]string{{"a", "1"}, {"b", "20"}, {"c", ""}}},
		{"delete a", func() error { return in.Delete("a") }, [][2]string{{"b", "20"}, {"c", ""}}},
		{"set a again goes last", func() error { return in.Set("a", "x") }, [][2]string{{"b", "20"}, {"c", ""}, {"a", "x"}}},
		{"delete middle", func() error { return in.Delete("c") }, [][2]string{{"b", "20"}, {"a", "x"}}},
		{"keys are case sensitive", func() error { return in.Set("A", "upper") }, [][2]string{{"b", "20"}, {"a", "x"}, {"A", "upper"}}},
		{"spaces are part of the key", func() error { return in.Set(" a", "space") }, [][2]string{{"b", "20"}, {"a", "x"}, {"A", "upper"}, {" a", "space"}}},
	}
	for _, st := range steps {
		noErr(t, st.do())
		if diff := cmp.Diff(st.want, contents(t, in)); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", st.name, diff)
		}
	}

	v, ok, err := in.Get("missing")
	noErr(t, err)
	if ok || v != "" {
		t.Errorf("Get(missing) = %q, %v", v, ok)
	}
	for _, n := range []int{-1, in.NKeys(), in.NKeys() + 5} {
		k, err := in.NthKey(n)
		wantClass(t, err, ErrArg)
		if k != "" {
			t.Errorf("NthKey(%d) = %q alongside an error", n, k)
		}
	}
}

func TestInfoKeyAndValueLimits(t *testing.T) {
	key255 := strings.Repeat("k", MaxInfoKey)
	key256 := strings.Repeat("k", MaxInfoKey+1)
	val1024 := strings.Repeat("v", MaxInfoVal)
	val1025 := strings.Repeat("v", MaxInfoVal+1)
	if MaxInfoKey != 255 || MaxInfoVal != 1024 {
		t.Fatalf("limits %d/%d differ from MPICH's MPI_MAX_INFO_KEY 255 / MPI_MAX_INFO_VAL 1024", MaxInfoKey, MaxInfoVal)
	}
	tests := []struct {
		name      string
		key, val  string
		wantClass int // 0: accepted
	}{
		{"one-char key", "k", "v", 0},
		{"255-char key", key255, "v", 0},
		{"1024-char value", "big", val1024, 0},
		{"empty key", "", "v", ErrInfoKey},
		{"256-char key", key256, "v", ErrInfoKey},
		{"1025-char value", "big", val1025, ErrInfoValue},
		{"bad key wins over bad value", "", val1025, ErrInfoKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInfo(t)
			err := in.Set(tt.key, tt.val)
			if tt.wantClass == 0 {
				noErr(t, err)
				v, ok, err := in.Get(tt.key)
				noErr(t, err)
				if !ok || v != tt.val {
					t.Errorf("value of length %d did not round-trip (got length %d, %v)", len(tt.val), len(v), ok)
				}
				noErr(t, in.Delete(tt.key))
				return
			}
			wantClass(t, err, tt.wantClass)
			if in.NKeys() != 0 {
				t.Errorf("a rejected Set stored a key")
			}
			if tt.wantClass == ErrInfoKey {
				_, _, err := in.Get(tt.key)
				wantClass(t, err, ErrInfoKey)
				wantClass(t, in.Delete(tt.key), ErrInfoKey)
			}
		})
	}
}

func TestInfoDeleteMissingKey(t *testing.T) {
	in := newInfo(t)
	noErr(t, in.Set("present", "1"))
	wantClass(t, in.Delete("absent"), ErrInfoNokey)
	noErr(t, in.Delete("present"))
	wantClass(t, in.Delete("present"), ErrInfoNokey)
	if in.NKeys() != 0 {
		t.Errorf("NKeys() = %d", in.NKeys())
	}
}

func TestInfoDupIsIndependent(t *testing.T) {
	orig := newInfo(t)
	for _, kv := range [][2]string{{"a", "1"}, {"b", "2"}, {"c", "3"}} {
		noErr(t, orig.Set(kv[0], kv[1]))
	}
	dup := orig.Dup()
	t.Cleanup(func() { _ = dup.Free() })
	if dup == orig || dup.Handle == orig.Handle {
		t.Fatalf("Dup returned the same object or handle")
	}
	if got, err := LookupInfo(dup.Handle); err != nil || got != dup {
		t.Fatalf("dup's handle does not resolve: %v", err)
	}
	origWant := [][2]string{{"a", "1"}, {"b", "2"}, {"c", "3"}}
	if diff := cmp.Diff(origWant, contents(t, dup)); diff != "" {
		t.Fatalf("dup content (-want +got):\n%s", diff)
	}

	// Changes to the copy leave the original alone (deleting from the middle
	// shifts the copy's key slice, which must not be shared).
	noErr(t, dup.Delete("a"))
	noErr(t, dup.Set("b", "changed"))
	noErr(t, dup.Set("d", "4"))
	if diff := cmp.Diff(origWant, contents(t, orig)); diff != "" {
		t.Errorf("original changed with its dup (-want +got):\n%s", diff)
	}
	// And the other way round.
	noErr(t, orig.Delete("b"))
	noErr(t, orig.Set("e", "5"))
	dupWant := [][2]string{{"b", "changed"}, {"c", "3"}, {"d", "4"}}
	if diff := cmp.Diff(dupWant, contents(t, dup)); diff != "" {
		t.Errorf("dup changed with its original (-want +got):\n%s", diff)
	}

	// Dup of an empty info.
	empty := newInfo(t)
	d2 := empty.Dup()
	t.Cleanup(func() { _ = d2.Free() })
	noErr(t, d2.Set("x", "y"))
	if empty.NKeys() != 0 {
		t.Errorf("setting a key on a dup of an empty info changed the original")
	}
}

func TestInfoEnvIsReadOnly(t *testing.T) {
	env, err := LookupInfo(0x5c000001)
	noErr(t, err)
	if env != infoEnv {
		t.Fatalf("MPI_INFO_ENV resolved to %p, want infoEnv", env)
	}
	before := contents(t, env)
	wantClass(t, env.Set("command", "hijack"), ErrInfo)
	wantClass(t, env.Set("new", "x"), ErrInfo)
	wantClass(t, env.Delete("command"), ErrInfo)
	wantClass(t, env.Delete("nothing"), ErrInfo)
	wantClass(t, env.Free(), ErrInfo)
	if diff := cmp.Diff(before, contents(t, env)); diff != "" {
		t.Errorf("MPI_INFO_ENV changed (-before +after):\n%s", diff)
	}
	if got, err := LookupInfo(0x5c000001); err != nil || got != infoEnv {
		t.Errorf("MPI_INFO_ENV gone after a Free attempt: %v", err)
	}
	if _, _, err := env.Get("command"); err != nil {
		t.Errorf("Get on MPI_INFO_ENV: %v", err)
	}
	// Its dup is an ordinary, writable info.
	d := env.Dup()
	t.Cleanup(func() { _ = d.Free() })
	noErr(t, d.Set("new", "x"))
	if diff := cmp.Diff(before, contents(t, env)); diff != "" {
		t.Errorf("writing a dup changed MPI_INFO_ENV (-before +after):\n%s", diff)
	}
}

func TestLookupInfo(t *testing.T) {
	live := newInfo(t)
	freed := NewInfo()
	freedHandle := freed.Handle
	noErr(t, freed.Free())
	tests := []struct {
		name       string
		h          int32
		want       *Info // nil with wantErr false: LookupInfoOrNull gives nil, nil
		wantErr    bool  // for LookupInfo
		orNullErrs bool  // for LookupInfoOrNull
	}{
		{name: "user", h: live.Handle, want: live},
		{name: "MPI_INFO_ENV", h: 0x5c000001, want: infoEnv},
		{name: "MPI_INFO_NULL", h: 0x1c000000, wantErr: true, orNullErrs: false},
		{name: "builtin index 0", h: 0x5c000000, wantErr: true, orNullErrs: true},
		{name: "zero", h: 0, wantErr: true, orNullErrs: true},
		{name: "minus one", h: -1, wantErr: true, orNullErrs: true},
		{name: "MPI_COMM_WORLD", h: 0x44000000, wantErr: true, orNullErrs: true},
		{name: "MPI_COMM_NULL", h: 0x04000000, wantErr: true, orNullErrs: true},
		{name: "freed", h: freedHandle, wantErr: true, orNullErrs: true},
		{name: "user index as comm kind", h: live.Handle&^(0xf<<26) | int32(KindComm)<<26, wantErr: true, orNullErrs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookupInfo(tt.h)
			if tt.wantErr {
				wantClass(t, err, ErrInfo)
				if got != nil {
					t.Errorf("LookupInfo gave %p alongside an error", got)
				}
			} else {
				noErr(t, err)
				if got != tt.want {
					t.Errorf("LookupInfo(0x%x) = %p, want %p", uint32(tt.h), got, tt.want)
				}
			}
			got, err = LookupInfoOrNull(tt.h)
			if tt.orNullErrs {
				wantClass(t, err, ErrInfo)
				if got != nil {
					t.Errorf("LookupInfoOrNull gave %p alongside an error", got)
				}
				return
			}
			noErr(t, err)
			if got != tt.want {
				t.Errorf("LookupInfoOrNull(0x%x) = %p, want %p", uint32(tt.h), got, tt.want)
			}
		})
	}
	if e := wantClass(t, func() error { _, err := LookupInfo(0x1c000000); return err }(), ErrInfo); !strings.Contains(e.Msg, "MPI_INFO_NULL") {
		t.Errorf("message %q does not name MPI_INFO_NULL", e.Msg)
	}
}

func TestInfoFree(t *testing.T) {
	before := infos.Live()
	in := NewInfo()
	if infos.Live() != before+1 {
		t.Fatalf("Live() = %d after NewInfo, want %d", infos.Live(), before+1)
	}
	noErr(t, in.Set("k", "v"))
	noErr(t, in.Free())
	if infos.Live() != before {
		t.Errorf("Live() = %d after Free, want %d", infos.Live(), before)
	}
	_, err := LookupInfo(in.Handle)
	wantClass(t, err, ErrInfo)
}

func TestNewEnvInfo(t *testing.T) {
	host, err := os.Hostname()
	noErr(t, err)
	wd, err := os.Getwd()
	noErr(t, err)
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	size, level := "1", "MPI_THREAD_SINGLE"
	if Initialized() {
		size, level = strconv.Itoa(CommWorld.Size), ThreadLevelName(ThreadLevel())
	}
	tail := [][2]string{{"maxprocs", size}, {"soft", size}, {"host", host}, {"arch", arch}, {"wdir", wd}, {"thread_level", level}}
	with := func(head ...[2]string) [][2]string { return append(head, tail...) }

	tests := []struct {
		name string
		args []string
		want [][2]string
	}{
		{"command with arguments", []string{"/bin/prog", "-n", "3", "x y"},
			with([2]string{"command", "/bin/prog"}, [2]string{"argv", "-n 3 x y"})},
		{"command alone", []string{"./a.out"},
			with([2]string{"command", "./a.out"}, [2]string{"argv", ""})},
		{"no arguments at all", []string{}, with()},
		{"this program (nil)", nil,
			with([2]string{"command", os.Args[0]}, [2]string{"argv", strings.Join(os.Args[1:], " ")})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := NewEnvInfo(tt.args)
			t.Cleanup(func() { _ = in.Free() })
			if diff := cmp.Diff(tt.want, contents(t, in)); diff != "" {
				t.Errorf("NewEnvInfo(%q) (-want +got):\n%s", tt.args, diff)
			}
			if got, err := LookupInfo(in.Handle); err != nil || got != in {
				t.Errorf("the new info has no live handle: %v", err)
			}
			noErr(t, in.Set("extra", "ok")) // an ordinary, writable object
		})
	}
}
