package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Sample is one value of one row, from one run.
type Sample struct {
	Row   string
	Value float64
}

// parseOutput applies a figure's parse rule to one launch's standard output. It returns
// the samples in the order their rows first appear, several values of one row combined
// into their maximum. A line that starts with the key but does not end in a number is
// an error: a benchmark that prints garbage must not be averaged in.
func parseOutput(p Parse, out string) ([]Sample, error) {
	var order []string
	vals := map[string]float64{}
	scale := p.Scale
	if scale == 0 {
		scale = 1
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != p.Key {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("no value in line %q", line)
		}
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return nil, fmt.Errorf("no value in line %q", line)
		}
		row := p.Row
		if row == "" {
			row = strings.Join(f[1:len(f)-1], " ")
		}
		v *= scale
		if old, ok := vals[row]; !ok {
			order = append(order, row)
			vals[row] = v
		} else if v > old {
			vals[row] = v
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("no %q line in its output", p.Key)
	}
	out2 := make([]Sample, len(order))
	for i, r := range order {
		out2[i] = Sample{r, vals[r]}
	}
	return out2, nil
}

// parseNotes returns the text of a launch's "note TEXT" lines: what a program says
// about rows it skipped.
func parseNotes(out string) []string {
	var notes []string
	for _, line := range strings.Split(out, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "note "); ok && strings.TrimSpace(t) != "" {
			notes = append(notes, strings.TrimSpace(t))
		}
	}
	return notes
}

// median of the values (the mean of the two middle ones for an even count); NaN-free
// input assumed. ok is false for no values.
func median(v []float64) (m float64, ok bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

// Series collects one implementation's runs of one figure.
type Series struct {
	Values   map[string][]float64 // row -> one value per successful run
	Order    []string             // rows in order of first appearance
	OK       int                  // successful runs
	Failures []string             // why runs failed, in order
	Dead     bool                 // failed: not run again
	Notes    []string             // the programs' notes, each once, in order
}

func newSeries() *Series { return &Series{Values: map[string][]float64{}} }

// Add records one successful run.
func (s *Series) Add(samples []Sample) {
	for _, x := range samples {
		if _, ok := s.Values[x.Row]; !ok {
			s.Order = append(s.Order, x.Row)
		}
		s.Values[x.Row] = append(s.Values[x.Row], x.Value)
	}
	s.OK++
}

// AddNotes records a run's notes, each text once.
func (s *Series) AddNotes(notes []string) {
	for _, n := range notes {
		seen := false
		for _, old := range s.Notes {
			seen = seen || old == n
		}
		if !seen {
			s.Notes = append(s.Notes, n)
		}
	}
}

// Fail records a failed run; the series is not run again.
func (s *Series) Fail(reason string) {
	s.Failures = append(s.Failures, reason)
	s.Dead = true
}

// Median of a row over the successful runs.
func (s *Series) Median(row string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	return median(s.Values[row])
}

// rowsOf is the union of the rows of a figure's series: sizes and counts in numeric
// order, names in order of first appearance (implementations taken in column order).
func rowsOf(kind RowKind, impls []Impl, res map[string]*Series) []string {
	seen := map[string]bool{}
	var rows []string
	for _, im := range impls {
		s := res[im.Name]
		if s == nil {
			continue
		}
		for _, r := range s.Order {
			if !seen[r] {
				seen[r] = true
				rows = append(rows, r)
			}
		}
	}
	if kind != Names {
		sort.SliceStable(rows, func(i, j int) bool {
			a, errA := strconv.ParseFloat(rows[i], 64)
			b, errB := strconv.ParseFloat(rows[j], 64)
			if errA != nil || errB != nil {
				return errA == nil && errB != nil
			}
			return a < b
		})
	}
	return rows
}
