package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Table is one figure's summary table.
type Table struct {
	Title string
	Head  []string
	Rows  [][]string
	Notes []string
}

// ratioCols are the ratios each table shows, when both implementations are in it.
var ratioCols = []struct{ Num, Den string }{{"mpix", "mpich"}, {"mpix", "openmpi"}}

// buildTable makes a figure's table from its series (by implementation name): the
// median of every row for every implementation, mpix's ratios to MPICH and Open MPI,
// and the machine limit where the figure has one (lim may be nil: not measured).
func buildTable(f Figure, res map[string]*Series, lim *Limits) Table {
	impls := implsOf(f)
	label := map[string]string{}
	for _, im := range impls {
		label[im.Name] = im.Label
	}
	t := Table{Title: fmt.Sprintf("%s (%s, %s is better)", f.Title, f.Unit, better(f.Better))}
	head := f.RowHead
	if head == "" {
		head = "row"
	}
	t.Head = append(t.Head, head)
	for _, im := range impls {
		t.Head = append(t.Head, im.Label)
	}
	var ratios [][2]string
	for _, rc := range ratioCols {
		if label[rc.Num] != "" && label[rc.Den] != "" {
			ratios = append(ratios, [2]string{rc.Num, rc.Den})
			t.Head = append(t.Head, label[rc.Num]+"/"+label[rc.Den])
		}
	}
	if f.Limit != nil {
		t.Head = append(t.Head, "limit")
	}
	for _, row := range rowsOf(f.Rows, impls, res) {
		line := []string{rowLabel(f.Rows, row)}
		for _, im := range impls {
			line = append(line, cell(res[im.Name], row))
		}
		for _, r := range ratios {
			a, okA := res[r[0]].Median(row)
			b, okB := res[r[1]].Median(row)
			if okA && okB && b != 0 {
				line = append(line, strconv.FormatFloat(a/b, 'f', 2, 64))
			} else {
				line = append(line, "–")
			}
		}
		if f.Limit != nil {
			v, ok := 0.0, false
			if lim != nil {
				v, ok = f.Limit(*lim, row)
			}
			if ok {
				line = append(line, formatValue(v))
			} else {
				line = append(line, "–")
			}
		}
		t.Rows = append(t.Rows, line)
	}
	if len(ratios) > 0 {
		dir := "below 1 means mpix is faster"
		if f.Better == Higher {
			dir = "above 1 means mpix is better"
		}
		t.Notes = append(t.Notes, "ratio: mpix's median divided by the other's; "+better(f.Better)+" is better, so a ratio "+dir+".")
	}
	for _, im := range impls {
		s := res[im.Name]
		switch {
		case s == nil:
			t.Notes = append(t.Notes, im.Label+": n/a: not run.")
		case s.OK == 0 && len(s.Failures) > 0:
			t.Notes = append(t.Notes, im.Label+": n/a: "+s.Failures[0])
		case len(s.Failures) > 0:
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %d of %d runs failed (%s); medians of the other %d.",
				im.Label, len(s.Failures), s.OK+len(s.Failures), s.Failures[0], s.OK))
		}
		if s != nil {
			for _, n := range s.Notes {
				t.Notes = append(t.Notes, im.Label+": "+n)
			}
		}
	}
	if f.Note != "" {
		t.Notes = append(t.Notes, f.Note)
	}
	return t
}

func better(b Better) string {
	if b == Higher {
		return "higher"
	}
	return "lower"
}

func cell(s *Series, row string) string {
	if s == nil || s.OK == 0 {
		return "n/a"
	}
	if v, ok := s.Median(row); ok {
		return formatValue(v)
	}
	return "–"
}

// formatValue prints about three significant digits, without exponents.
func formatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

// rowLabel shows sizes as "4 KiB".
func rowLabel(kind RowKind, row string) string {
	if kind != Sizes {
		return row
	}
	n, err := strconv.ParseInt(row, 10, 64)
	if err != nil {
		return row
	}
	return humanSize(n)
}

func humanSize(n int64) string {
	for _, u := range []struct {
		div  int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.div && n%u.div == 0 {
			return strconv.FormatInt(n/u.div, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Markdown renders the table with right-aligned value columns.
func (t Table) Markdown() string {
	var b strings.Builder
	b.WriteString("### " + t.Title + "\n\n")
	writeRow(&b, t.Head)
	sep := make([]string, len(t.Head))
	for i := range sep {
		sep[i] = "---:"
	}
	if len(sep) > 0 {
		sep[0] = "---"
	}
	writeRow(&b, sep)
	for _, r := range t.Rows {
		writeRow(&b, r)
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.Notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}
