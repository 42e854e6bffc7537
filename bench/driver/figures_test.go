package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRMAFigure(t *testing.T) {
	cases := []struct {
		mode, flavour, name, key, unit string
		better                         Better
		impls                          []string
		openMPINote                    bool
	}{
		{"lat", "allocate", "rma_latency_allocate", "rmalat", "µs", Lower, p2pImpls, true},
		{"lat", "create-allocmem", "rma_latency_create_allocmem", "rmalat", "µs", Lower, defaultImpls, false},
		{"bw", "allocate", "rma_bandwidth_allocate", "rmabw", "MB/s", Higher, defaultImpls, false},
		{"bw", "dynamic", "rma_bandwidth_dynamic", "rmabw", "MB/s", Higher, defaultImpls, false},
	}
	for _, c := range cases {
		f := rmaFigure(c.mode, c.flavour)
		if f.Name != c.name || f.Parse.Key != c.key || f.Unit != c.unit || f.Better != c.better ||
			f.Program != "rma" || f.NP != 2 || strings.Join(f.Args, " ") != c.mode+" "+c.flavour ||
			strings.Join(f.Impls, ",") != strings.Join(c.impls, ",") || f.Rows != Names {
			t.Errorf("%s %s: %+v", c.mode, c.flavour, f)
		}
		if !strings.Contains(f.Note, rmaFlavours[c.flavour]) || !strings.Contains(f.Note, "2 cores") {
			t.Errorf("%s: note lacks the window or the machine: %s", f.Name, f.Note)
		}
		if got := strings.Contains(f.Note, "open-mpi/ompi#11349"); got != c.openMPINote {
			t.Errorf("%s: Open MPI note %v", f.Name, got)
		}
		if got := strings.Contains(f.Note, "mpix-ofi"); got != (c.flavour == "allocate" && c.mode == "lat") {
			t.Errorf("%s: mpix-ofi note %v", f.Name, got)
		}
	}
	for _, bad := range [][2]string{{"lat", "shared"}, {"ops", "allocate"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("rmaFigure(%q, %q) did not panic", bad[0], bad[1])
				}
			}()
			rmaFigure(bad[0], bad[1])
		}()
	}
}

// The rma figures cover every flavour in both modes, and bench/rma.c knows each
// flavour and prints each figure's key.
func TestRMAFiguresMatchProgram(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "rma.c"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range figures {
		if f.Program != "rma" {
			continue
		}
		seen[strings.Join(f.Args, " ")] = true
		if !strings.Contains(string(src), `"`+f.Parse.Key+" ") {
			t.Errorf("%s: bench/rma.c prints no %q line", f.Name, f.Parse.Key)
		}
		if len(f.Args) == 2 && !strings.Contains(string(src), `"`+f.Args[1]+`"`) {
			t.Errorf("%s: bench/rma.c does not know flavour %s", f.Name, f.Args[1])
		}
	}
	for flavour := range rmaFlavours {
		for _, mode := range []string{"lat", "bw"} {
			if !seen[mode+" "+flavour] {
				t.Errorf("no figure runs rma %s %s", mode, flavour)
			}
		}
	}
	if !seen["epochs"] {
		t.Error("no figure runs rma epochs")
	}
}

// The rows of rma's output are its operation and size.
func TestRMAParse(t *testing.T) {
	f := rmaFigure("lat", "dynamic")
	out := "rmalat put 8 B 0.031\nrmalat put 1 MiB 58.1\nrmalat cas 8 B 0.046\nrmabw put 8 B 400\n"
	samples, err := parseOutput(f.Parse, out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Sample{{"put 8 B", 0.031}, {"put 1 MiB", 58.1}, {"cas 8 B", 0.046}}
	if len(samples) != len(want) {
		t.Fatalf("samples %v", samples)
	}
	for i := range want {
		if samples[i] != want[i] {
			t.Errorf("sample %d: %v, want %v", i, samples[i], want[i])
		}
	}
}

// The rmaext figures name bench/rmaext.c's modes and keys, and the threaded ones take
// BENCH_THREADS.
func TestRMAExtFiguresMatchProgram(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "rmaext.c"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"scope": true, "order": true, "windows": false}
	seen := map[string]bool{}
	for _, f := range figures {
		if f.Program != "rmaext" {
			continue
		}
		mode := f.Args[0]
		threaded, ok := want[mode]
		if !ok || len(f.Args) != 1 {
			t.Errorf("%s: unknown arguments %v", f.Name, f.Args)
			continue
		}
		seen[mode] = true
		if f.ThreadsArg != threaded {
			t.Errorf("%s: ThreadsArg %v", f.Name, f.ThreadsArg)
		}
		if !strings.Contains(string(src), `"`+f.Parse.Key+" ") {
			t.Errorf("%s: bench/rmaext.c prints no %q line", f.Name, f.Parse.Key)
		}
		if !strings.Contains(string(src), `strcmp(what, "`+mode+`")`) {
			t.Errorf("%s: bench/rmaext.c has no mode %s", f.Name, mode)
		}
		if f.NP != 2 || !strings.Contains(f.Note, "2 cores") || !strings.Contains(f.Note, "[RMA]") {
			t.Errorf("%s: NP %d, note %q", f.Name, f.NP, f.Note)
		}
	}
	for mode := range want {
		if !seen[mode] {
			t.Errorf("no figure runs rmaext %s", mode)
		}
	}
	if !strings.Contains(string(src), "-threads") {
		t.Error("bench/rmaext.c takes no -threads")
	}
}

// The part figures name bench/part.c's modes and keys, and say what runs where.
func TestPartFiguresMatchProgram(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "part.c"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range figures {
		if f.Program != "part" {
			continue
		}
		names[f.Name] = true
		if !strings.Contains(string(src), `"`+f.Parse.Key+" ") {
			t.Errorf("%s: bench/part.c prints no %q line", f.Name, f.Parse.Key)
		}
		args := [][]string{f.Args}
		for _, p := range f.Points {
			args = append(args, p.Args)
		}
		for _, a := range args {
			if a == nil {
				continue
			}
			if !strings.Contains(string(src), `strcmp(what, "`+a[0]+`")`) {
				t.Errorf("%s: bench/part.c has no mode %s", f.Name, a[0])
			}
		}
		wantNP := 2
		if f.Args != nil && f.Args[0] == "sweep" {
			wantNP = 4
		}
		if f.NP != wantNP || !strings.Contains(f.Note, "2 cores") || !strings.Contains(f.Note, "[PA]") ||
			!strings.Contains(f.Note, "part/persist") || f.Env["OMP_WAIT_POLICY"] != "passive" {
			t.Errorf("%s: NP %d, env %v, note %q", f.Name, f.NP, f.Env, f.Note)
		}
	}
	for _, n := range []string{"part_overhead", "part_perceived", "part_sweep", "part_strategies", "part_strategies_perceived"} {
		if !names[n] {
			t.Errorf("no figure %s", n)
		}
	}
	for _, strat := range []string{"MPIX_PART_AGGR_NONE", "MPIX_PART_AGGR_TABLE", "MPIX_PART_AGGR_PLOGGP", "MPIX_PART_AGGR_TIMER_PLOGGP", "PART_EMULATE"} {
		if !strings.Contains(string(src), strat) {
			t.Errorf("bench/part.c does not use %s", strat)
		}
	}
}
