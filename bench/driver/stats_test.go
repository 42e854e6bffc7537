package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseOutputRowsAndValues(t *testing.T) {
	out := "warming up\nlatency 1 0.5\nlatency 8 0.75\n\nother 1 2\nlatency 1048576 180.25\n"
	got, err := parseOutput(Parse{Key: "latency"}, out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Sample{{"1", 0.5}, {"8", 0.75}, {"1048576", 180.25}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestParseOutputMultiWordRows(t *testing.T) {
	got, err := parseOutput(Parse{Key: "collective"}, "collective bcast 8 B 1.5\ncollective barrier 2\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Sample{{"bcast 8 B", 1.5}, {"barrier", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestParseOutputFixedRowTakesMaxAndScales(t *testing.T) {
	// init_finalize prints one line per rank: the slowest rank counts.
	p := Parse{Key: "init_finalize_us", Row: "init", Scale: 1e-3}
	got, err := parseOutput(p, "init_finalize_us 1 4000\ninit_finalize_us 0 5500\ninit_finalize_us 2 3000\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Row != "init" || got[0].Value != 5.5 {
		t.Fatalf("got %v, want [{init 5.5}]", got)
	}
}

func TestParseOutputErrors(t *testing.T) {
	for _, out := range []string{"", "nothing here\n", "latency 1 fast\n", "latency\n"} {
		if _, err := parseOutput(Parse{Key: "latency"}, out); err == nil {
			t.Errorf("parseOutput(%q) = nil error", out)
		}
	}
	// A key that is only a prefix of the first field does not match.
	if _, err := parseOutput(Parse{Key: "lat"}, "latency 1 2\n"); err == nil || !strings.Contains(err.Error(), `"lat"`) {
		t.Errorf("prefix key matched: %v", err)
	}
}

func TestMedian(t *testing.T) {
	cases := []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{10, 1, 1, 1, 100}, 1},
	}
	for _, c := range cases {
		in := append([]float64(nil), c.in...)
		got, ok := median(in)
		if !ok || got != c.want {
			t.Errorf("median(%v) = %v, %v; want %v", c.in, got, ok, c.want)
		}
		if !reflect.DeepEqual(in, c.in) {
			t.Errorf("median reordered its input: %v", in)
		}
	}
	if _, ok := median(nil); ok {
		t.Error("median(nil) ok")
	}
}

func TestSeries(t *testing.T) {
	s := newSeries()
	s.Add([]Sample{{"1", 2}, {"8", 4}})
	s.Add([]Sample{{"1", 6}, {"8", 5}, {"64", 9}})
	s.Add([]Sample{{"1", 4}})
	if s.OK != 3 || !reflect.DeepEqual(s.Order, []string{"1", "8", "64"}) {
		t.Fatalf("OK %d order %v", s.OK, s.Order)
	}
	if m, _ := s.Median("1"); m != 4 {
		t.Errorf("median of row 1 = %v, want 4", m)
	}
	if m, _ := s.Median("8"); m != 4.5 {
		t.Errorf("median of row 8 = %v, want 4.5", m)
	}
	if _, ok := s.Median("512"); ok {
		t.Error("median of a missing row ok")
	}
	s.Fail("timed out after 1m0s")
	if !s.Dead || len(s.Failures) != 1 {
		t.Errorf("after Fail: dead %v failures %v", s.Dead, s.Failures)
	}
	var none *Series
	if _, ok := none.Median("1"); ok {
		t.Error("nil series has a median")
	}
}

func TestRowsOf(t *testing.T) {
	a, b := newSeries(), newSeries()
	a.Add([]Sample{{"64", 1}, {"8", 1}})
	b.Add([]Sample{{"1", 1}, {"4194304", 1}, {"8", 1}})
	res := map[string]*Series{"mpix": a, "mpich": b}
	impls := []Impl{mpix, mpich}
	if got := rowsOf(Sizes, impls, res); !reflect.DeepEqual(got, []string{"1", "8", "64", "4194304"}) {
		t.Errorf("sizes: %v", got)
	}
	if got := rowsOf(Names, impls, res); !reflect.DeepEqual(got, []string{"64", "8", "1", "4194304"}) {
		t.Errorf("names keep first-appearance order: %v", got)
	}
}
