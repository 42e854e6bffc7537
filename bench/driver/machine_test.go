package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestVersions(t *testing.T) {
	out := "MPICH Version:    \t4.0.2\nMPICH Release date:\tThu Apr  7\nMPICH Device:    \tch4:ucx\n"
	if got := mpichVersion(out); got != "MPICH 4.0.2 (ch4:ucx)" {
		t.Errorf("mpich: %q", got)
	}
	if got := mpichVersion(""); got != "" {
		t.Errorf("no mpich: %q", got)
	}
	if got := openmpiVersion("mpirun (Open MPI) 4.1.4\n\nReport bugs to ...\n"); got != "Open MPI 4.1.4" {
		t.Errorf("openmpi: %q", got)
	}
}

func TestLimits(t *testing.T) {
	samples, err := parseOutput(Parse{Key: "limit"}, "limit cacheline_ns 120.5\nlimit cacheline_median_ns 150\nlimit memcpy_1MiB 15000\nlimit memcpy_64MiB 5000\n")
	if err != nil {
		t.Fatal(err)
	}
	l := limitsFrom(samples)
	if l != (Limits{120.5, 15000, 5000, 150}) {
		t.Fatalf("limits %+v", l)
	}
	check := func(name string, got float64, ok bool, want float64) {
		t.Helper()
		if !ok || got < want*0.999 || got > want*1.001 {
			t.Errorf("%s = %v, %v; want %v", name, got, ok, want)
		}
	}
	v, ok := latencyLimit(l, "8")
	check("latency 8 B", v, ok, 0.1205)
	v, ok = latencyLimit(l, "4194304") // 8 MiB of buffers: cached
	check("latency 4 MiB", v, ok, 4194304/15000.0)
	v, ok = latencyLimit(l, "16777216")
	check("latency 16 MiB", v, ok, 16777216/5000.0)
	v, ok = bandwidthLimit(l, "65536") // 65 buffers of 64 KiB: cached
	check("bandwidth 64 KiB", v, ok, 15000)
	v, ok = bandwidthLimit(l, "262144")
	check("bandwidth 256 KiB", v, ok, 5000)
	v, ok = collectiveLimit(l, "barrier")
	check("barrier", v, ok, 0.1205)
	v, ok = collectiveLimit(l, "allreduce_64KiB")
	check("allreduce 64 KiB", v, ok, 65536/15000.0)
	if _, ok := latencyLimit(Limits{}, "8"); ok {
		t.Error("latency limit without measurements")
	}
	if _, ok := bandwidthLimit(l, "barrier"); ok {
		t.Error("bandwidth limit of a name")
	}
}

// Every figure names an existing program, a unique name and a parse key, and runs
// implementations that exist.
func TestFigures(t *testing.T) {
	names := map[string]bool{}
	for _, f := range figures {
		if names[f.Name] {
			t.Errorf("figure %s twice", f.Name)
		}
		names[f.Name] = true
		if !fileExists(filepath.Join("..", f.Program+".c")) && !fileExists(filepath.Join("..", f.Program+".f90")) {
			t.Errorf("%s: no bench/%s.c or .f90", f.Name, f.Program)
		}
		if f.Parse.Key == "" || f.NP < 1 || f.Unit == "" || f.Title == "" {
			t.Errorf("%s: incomplete: %+v", f.Name, f)
		}
		want := len(defaultImpls)
		if f.Impls != nil {
			want = len(f.Impls)
		}
		if got := len(implsOf(f)); got != want {
			t.Errorf("%s: %d implementations known of %d", f.Name, got, want)
		}
	}
}

func TestDrawPlot(t *testing.T) {
	dir := t.TempDir()
	res := map[string]*Series{
		"mpix":  series([]Sample{{"1", 1}, {"1024", 2}, {"4194304", 900}}),
		"mpich": series([]Sample{{"1", 0.5}, {"1024", 3}, {"4194304", 1000}}),
	}
	lim := &Limits{100, 15000, 5000, 200}
	for _, f := range figures {
		if f.Plot == NoPlot {
			continue
		}
		path := filepath.Join(dir, f.Name+".png")
		r := res
		if f.Rows == Names {
			r = map[string]*Series{"mpich": series([]Sample{{"barrier", 2}, {"allreduce_64KiB", 40}})}
		}
		ok, err := drawPlot(f, r, lim, path)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", f.Name, ok, err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	if ok, _ := drawPlot(Figure{Plot: LogLog}, map[string]*Series{}, nil, filepath.Join(dir, "none.png")); ok {
		t.Error("drew a plot without data")
	}
}
