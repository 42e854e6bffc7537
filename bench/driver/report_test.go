package main

import (
	"strings"
	"testing"
)

func series(runs ...[]Sample) *Series {
	s := newSeries()
	for _, r := range runs {
		s.Add(r)
	}
	return s
}

func TestBuildTableLatency(t *testing.T) {
	f := Figure{
		Title: "Latency", Unit: "µs", Better: Lower, Rows: Sizes, RowHead: "size",
		Impls: p2pImpls, Limit: latencyLimit,
	}
	dead := newSeries()
	dead.Fail("mpix: MPI_Send is not implemented yet (exit status 44)")
	flaky := series([]Sample{{"1", 3}, {"1048576", 300}})
	flaky.Fail("timed out after 1m0s")
	res := map[string]*Series{
		"mpix":     series([]Sample{{"1", 1}, {"1048576", 100}}, []Sample{{"1", 3}, {"1048576", 200}}, []Sample{{"1", 2}, {"1048576", 150}}),
		"mpix-ofi": dead,
		"mpich":    series([]Sample{{"1", 4}, {"1048576", 300}}),
		"openmpi":  flaky,
	}
	lim := &Limits{CacheLineNs: 100, Memcpy1MiB: 10000, Memcpy64MiB: 5000}
	tab := buildTable(f, res, lim)
	wantHead := []string{"size", "mpix", "mpix-ofi", "MPICH", "Open MPI", "mpix/MPICH", "mpix/Open MPI", "limit"}
	if strings.Join(tab.Head, ",") != strings.Join(wantHead, ",") {
		t.Fatalf("head %v", tab.Head)
	}
	if len(tab.Rows) != 2 {
		t.Fatalf("rows %v", tab.Rows)
	}
	// 1 B: medians 2, n/a, 4, 3; ratios 0.50, 0.67; limit max(0.1 µs, 1 B / 10000 MB/s).
	if got := strings.Join(tab.Rows[0], ","); got != "1 B,2.00,n/a,4.00,3.00,0.50,0.67,0.100" {
		t.Errorf("row 0: %s", got)
	}
	// 1 MiB: limit 1048576 B / 10000 MB/s = 104.9 µs (2 MiB of buffers: cached).
	if got := strings.Join(tab.Rows[1], ","); got != "1 MiB,150,n/a,300,300,0.50,0.50,105" {
		t.Errorf("row 1: %s", got)
	}
	notes := strings.Join(tab.Notes, "\n")
	for _, want := range []string{
		"a ratio below 1 means mpix is faster",
		"mpix-ofi: n/a: mpix: MPI_Send is not implemented yet",
		"Open MPI: 1 of 2 runs failed (timed out after 1m0s); medians of the other 1.",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if !strings.Contains(tab.Title, "lower is better") {
		t.Errorf("title %q", tab.Title)
	}
}

func TestBuildTableHigherBetterWithoutLimits(t *testing.T) {
	f := Figure{Title: "Rate", Unit: "Mmsg/s", Better: Higher, Rows: Names, RowHead: "op", Limit: bandwidthLimit}
	res := map[string]*Series{
		"mpix":    series([]Sample{{"x", 2}}),
		"mpich":   series([]Sample{{"x", 1}}),
		"openmpi": series([]Sample{{"x", 4}}),
	}
	tab := buildTable(f, res, nil) // limits not measured
	if got := strings.Join(tab.Rows[0], ","); got != "x,2.00,1.00,4.00,2.00,0.50,–" {
		t.Errorf("row: %s", got)
	}
	if !strings.Contains(tab.Notes[0], "above 1 means mpix is better") {
		t.Errorf("notes %v", tab.Notes)
	}
}

func TestBuildTableRowMissingForOne(t *testing.T) {
	f := Figure{Title: "T", Unit: "µs", Rows: Sizes, Impls: []string{"mpix", "mpich"}}
	res := map[string]*Series{
		"mpix":  series([]Sample{{"1", 1}}),
		"mpich": series([]Sample{{"1", 2}, {"8", 3}}),
	}
	tab := buildTable(f, res, nil)
	if len(tab.Head) != 4 { // row, mpix, MPICH, mpix/MPICH: no Open MPI ratio, no limit
		t.Fatalf("head %v", tab.Head)
	}
	if got := strings.Join(tab.Rows[1], ","); got != "8 B,–,3.00,–" {
		t.Errorf("row: %s", got)
	}
}

func TestMarkdown(t *testing.T) {
	tab := Table{Title: "T (µs)", Head: []string{"size", "mpix"}, Rows: [][]string{{"1 B", "2.00"}}, Notes: []string{"a note"}}
	want := "### T (µs)\n\n| size | mpix |\n| --- | ---: |\n| 1 B | 2.00 |\n\n- a note\n"
	if got := tab.Markdown(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormatValue(t *testing.T) {
	for v, want := range map[float64]string{
		0.4234: "0.423", 1.2345: "1.23", 17.117: "17.1", 143.857: "144", 1730.369: "1730", 0: "0.000",
	} {
		if got := formatValue(v); got != want {
			t.Errorf("formatValue(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{
		1: "1 B", 64: "64 B", 1000: "1000 B", 1024: "1 KiB", 65536: "64 KiB", 4 << 20: "4 MiB", 3 << 30: "3 GiB", 1536: "1536 B",
	} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %q, want %q", n, got, want)
		}
	}
	if got := rowLabel(Sizes, "abc"); got != "abc" {
		t.Errorf("rowLabel of a non-number: %q", got)
	}
	if got := rowLabel(Names, "4096"); got != "4096" {
		t.Errorf("rowLabel of a name: %q", got)
	}
}

// A program's "note" lines reach the table once each, after the implementation's label.
func TestBuildTableNotes(t *testing.T) {
	out := "rmascope process 1 0.03\nnote thread rows skipped: no dup\nnote  \nrmascope process 2 0.05\n"
	notes := parseNotes(out)
	if len(notes) != 1 || notes[0] != "thread rows skipped: no dup" {
		t.Fatalf("notes %q", notes)
	}
	samples, err := parseOutput(Parse{Key: "rmascope"}, out)
	if err != nil || len(samples) != 2 {
		t.Fatalf("samples %v, %v", samples, err)
	}
	s := series(samples, samples)
	s.AddNotes(notes)
	s.AddNotes(notes)
	f := Figure{Title: "Scope", Unit: "µs", Rows: Names, Impls: []string{"mpix"}}
	tab := buildTable(f, map[string]*Series{"mpix": s}, nil)
	n := 0
	for _, x := range tab.Notes {
		if x == "mpix: thread rows skipped: no dup" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("notes %q", tab.Notes)
	}
}
