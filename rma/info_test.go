package rma

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"mpix/core"
)

func TestNormalOrdering(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"rar,raw,war,waw", "rar,raw,war,waw", true},
		{"none", "none", true},
		{" none ", "none", true},
		{"rar", "rar", true},
		{"waw,rar", "waw,rar", true},
		{" raw , war ", "raw,war", true},
		{"rar,rar", "rar,rar", true},
		{"", "", false},
		{"   ", "", false},
		{",", "", false},
		{"rar,", "", false},
		{"rar,,raw", "", false},
		{"RAR", "", false},
		{"none,rar", "", false},
		{"rar,none", "", false},
		{"rar raw", "", false},
		{"rwa", "", false},
	}
	for _, tc := range tests {
		got, ok := normalOrdering(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("normalOrdering(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// newInfo makes an info object with the pairs, freed at the end of the test.
func newInfo(t *testing.T, kv ...string) *core.Info {
	t.Helper()
	in := core.NewInfo()
	t.Cleanup(func() { _ = in.Free() })
	for i := 0; i+1 < len(kv); i += 2 {
		if err := in.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

var infoCmp = cmp.AllowUnexported(winInfo{})

func TestParseInfo(t *testing.T) {
	defaults := winInfo{ordering: defaultOrdering, ops: "same_op_no_op"}
	all := []string{"no_locks", "true", "accumulate_ordering", "none", "accumulate_ops", "same_op",
		"same_size", "true", "same_disp_unit", "true", "alloc_shared_noncontig", "true",
		"mpi_accumulate_granularity", "64"}
	allSet := winInfo{noLocks: true, ordering: "none", ops: "same_op", sameSize: true, sameDisp: true, noncontig: true, granularity: 64}
	allButNoncontig := allSet
	allButNoncontig.noncontig = false
	tests := []struct {
		name   string
		kv     []string
		nilIn  bool
		flavor Flavor
		want   winInfo
	}{
		{"no info", nil, true, FlavorCreate, defaults},
		{"empty info", nil, false, FlavorAllocate, defaults},
		{"every key, shared", all, false, FlavorShared, allSet},
		{"every key, allocate: noncontig is for shared windows", all, false, FlavorAllocate, allButNoncontig},
		{"every key, create", all, false, FlavorCreate, allButNoncontig},
		{"every key, dynamic", all, false, FlavorDynamic, allButNoncontig},
		{"spaces around values", []string{"no_locks", " true ", "accumulate_ops", " same_op ", "mpi_accumulate_granularity", " 8 "}, false, FlavorCreate,
			winInfo{noLocks: true, ordering: defaultOrdering, ops: "same_op", granularity: 8}},
		{"explicit false", []string{"no_locks", "false", "same_size", "false"}, false, FlavorCreate, defaults},
		{"ordering subset", []string{"accumulate_ordering", "war, raw"}, false, FlavorCreate,
			winInfo{ordering: "war,raw", ops: "same_op_no_op"}},
		{"bad values are ignored", []string{"no_locks", "yes", "same_size", "1", "same_disp_unit", "TRUE",
			"alloc_shared_noncontig", "", "accumulate_ordering", "rar,foo", "accumulate_ops", "any",
			"mpi_accumulate_granularity", "-1"}, false, FlavorShared, defaults},
		{"granularity not a number", []string{"mpi_accumulate_granularity", "4k"}, false, FlavorCreate, defaults},
		{"granularity overflows", []string{"mpi_accumulate_granularity", "99999999999999999999"}, false, FlavorCreate, defaults},
		{"granularity 0", []string{"mpi_accumulate_granularity", "0"}, false, FlavorCreate, defaults},
		{"unknown keys are ignored", []string{"no_lock", "true", "mpi_assert_memory_alloc_kinds", "system"}, false, FlavorCreate, defaults},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in *core.Info
			if !tc.nilIn {
				in = newInfo(t, tc.kv...)
			}
			if diff := cmp.Diff(tc.want, parseInfo(in, tc.flavor), infoCmp); diff != "" {
				t.Errorf("parseInfo (-want +got):\n%s", diff)
			}
		})
	}
}

// After creation (MPI_Win_set_info) only the accumulate hints may change.
func TestApplyAfterCreation(t *testing.T) {
	start := parseInfo(newInfo(t, "no_locks", "true", "same_size", "true"), FlavorShared)
	wi := start
	wi.apply(newInfo(t, "no_locks", "false", "same_size", "false", "same_disp_unit", "true",
		"alloc_shared_noncontig", "true", "accumulate_ordering", "raw", "accumulate_ops", "same_op",
		"mpi_accumulate_granularity", "128"), false)
	want := start
	want.ordering, want.ops, want.granularity = "raw", "same_op", 128
	if diff := cmp.Diff(want, wi, infoCmp); diff != "" {
		t.Errorf("after apply (-want +got):\n%s", diff)
	}
	// The RMA paper's keys change after creation (MPI_Win_set_info, dup_with_info).
	wi.apply(newInfo(t, "mpi_win_scope", "thread", "mpi_win_order", "true", "mpi_assert_accumulate_intrinsic", "true"), false)
	want.threadScope, want.ordered, want.intrinsic = true, true, true
	if diff := cmp.Diff(want, wi, infoCmp); diff != "" {
		t.Errorf("after the paper's keys (-want +got):\n%s", diff)
	}
	wi.apply(newInfo(t, "mpi_win_scope", "process", "mpi_win_order", "maybe", "acc_single_intrinsic", "false"), false)
	want.threadScope, want.intrinsic = false, false
	if diff := cmp.Diff(want, wi, infoCmp); diff != "" {
		t.Errorf("after scope process, a bad order value and acc_single_intrinsic (-want +got):\n%s", diff)
	}
	// nil changes nothing; bad values change nothing.
	before := wi
	wi.apply(nil, false)
	wi.apply(newInfo(t, "accumulate_ordering", "bogus", "accumulate_ops", "", "mpi_accumulate_granularity", "x"), false)
	if diff := cmp.Diff(before, wi, infoCmp); diff != "" {
		t.Errorf("bad values changed hints (-before +after):\n%s", diff)
	}
}

func infoMap(t *testing.T, in *core.Info) map[string]string {
	t.Helper()
	m := map[string]string{}
	for i := 0; i < in.NKeys(); i++ {
		k, err := in.NthKey(i)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := in.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		m[k] = v
	}
	return m
}

func TestWinInfoRoundTrip(t *testing.T) {
	w := &Win{window: &window{flavor: FlavorShared}}
	w.info = parseInfo(newInfo(t, "no_locks", "true", "alloc_shared_noncontig", "true",
		"accumulate_ordering", "rar, waw", "mpi_accumulate_granularity", "16"), w.flavor)
	got := w.Info()
	t.Cleanup(func() { _ = got.Free() })
	want := map[string]string{
		"no_locks":                        "true",
		"accumulate_ordering":             "rar,waw",
		"accumulate_ops":                  "same_op_no_op",
		"same_size":                       "false",
		"same_disp_unit":                  "false",
		"alloc_shared_noncontig":          "true",
		"mpi_accumulate_granularity":      "16",
		"mpi_win_scope":                   "process",
		"mpi_win_order":                   "false",
		"mpi_assert_accumulate_intrinsic": "false",
		"mpix_accumulate_net_atomics":     "none",
	}
	if diff := cmp.Diff(want, infoMap(t, got)); diff != "" {
		t.Errorf("Info (-want +got):\n%s", diff)
	}
	// What Info reports reads back as the same hints.
	if diff := cmp.Diff(w.info, parseInfo(got, w.flavor), infoCmp); diff != "" {
		t.Errorf("parseInfo(Info()) (-want +got):\n%s", diff)
	}

	// SetInfo changes what may change; the returned objects are independent copies.
	w.SetInfo(newInfo(t, "no_locks", "false", "accumulate_ordering", "none", "accumulate_ops", "same_op"))
	after := w.Info()
	t.Cleanup(func() { _ = after.Free() })
	want["accumulate_ordering"], want["accumulate_ops"] = "none", "same_op"
	if diff := cmp.Diff(want, infoMap(t, after)); diff != "" {
		t.Errorf("Info after SetInfo (-want +got):\n%s", diff)
	}
	if v, _, _ := got.Get("accumulate_ordering"); v != "rar,waw" {
		t.Errorf("an earlier Info object changed to %q", v)
	}
	if got.Handle == after.Handle {
		t.Error("two Info calls returned the same handle")
	}
}
