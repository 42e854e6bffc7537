package main

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawPlot writes a figure's PNG to path: every implementation with values as one
// series of medians, the machine limit (when the figure has one) dashed. It returns
// false when the figure has no plot or nothing to draw.
func drawPlot(f Figure, res map[string]*Series, lim *Limits, path string) (bool, error) {
	if f.Plot == NoPlot {
		return false, nil
	}
	impls := implsOf(f)
	rows := rowsOf(f.Rows, impls, res)
	if len(rows) == 0 {
		return false, nil
	}
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.Unit
	// Lower-is-better curves rise to the right, higher-is-better ones leave the
	// bottom right empty: the legend goes where the data is not.
	p.Legend.Top, p.Legend.Left = f.Better == Lower, f.Better == Lower
	p.Title.Padding = vg.Points(6)
	p.Add(plotter.NewGrid())

	logY := f.Plot == LogLog || f.Plot == Dots
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if f.Plot == LogLog {
		p.X.Scale = plot.LogScale{}
		if f.Rows == Sizes {
			p.X.Tick.Marker = sizeTicks{}
		} else {
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
	}
	// x of a row: its number, or for Dots its index (shifted a little per series).
	xOf := func(i int, row string, series, nseries int) (float64, bool) {
		if f.Plot == Dots {
			return float64(i) + 0.4*(float64(series)/float64(max(nseries-1, 1))-0.5), true
		}
		x, err := strconv.ParseFloat(row, 64)
		return x, err == nil && (f.Plot != LogLog || x > 0)
	}
	drawn := 0
	nseries := len(impls)
	for si, im := range impls {
		s := res[im.Name]
		ci := colorIndex(im)
		var xys plotter.XYs
		for i, row := range rows {
			v, ok := s.Median(row)
			x, okX := xOf(i, row, si, nseries)
			if !ok || !okX || (logY && v <= 0) {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: v})
		}
		if len(xys) == 0 {
			continue
		}
		if f.Plot == Dots {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return false, err
			}
			sc.GlyphStyle.Color = plotutil.Color(ci)
			sc.GlyphStyle.Shape = plotutil.Shape(ci)
			sc.GlyphStyle.Radius = vg.Points(4)
			p.Add(sc)
			p.Legend.Add(im.Label, sc)
		} else {
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				return false, err
			}
			l.Color = plotutil.Color(ci)
			l.Width = vg.Points(1.5)
			pts.Color = plotutil.Color(ci)
			pts.Shape = plotutil.Shape(ci)
			p.Add(l, pts)
			p.Legend.Add(im.Label, l, pts)
		}
		drawn++
	}
	if drawn == 0 {
		return false, nil
	}
	if f.Limit != nil && lim != nil {
		var xys plotter.XYs
		for i, row := range rows {
			v, ok := f.Limit(*lim, row)
			x, okX := xOf(i, row, 0, 1)
			if f.Plot == Dots {
				x = float64(i)
			}
			if ok && okX && (!logY || v > 0) {
				xys = append(xys, plotter.XY{X: x, Y: v})
			}
		}
		if len(xys) > 0 {
			gray := color.Gray{Y: 110}
			if f.Plot == Dots {
				sc, err := plotter.NewScatter(xys)
				if err != nil {
					return false, err
				}
				sc.GlyphStyle.Color = gray
				sc.GlyphStyle.Shape = draw.BoxGlyph{}
				sc.GlyphStyle.Radius = vg.Points(3)
				p.Add(sc)
				p.Legend.Add("machine limit", sc)
			} else {
				l, err := plotter.NewLine(xys)
				if err != nil {
					return false, err
				}
				l.Color = gray
				l.Width = vg.Points(1.5)
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				p.Add(l)
				p.Legend.Add("machine limit", l)
			}
		}
	}
	if f.Plot == Dots {
		names := make([]string, len(rows))
		for i, r := range rows {
			names[i] = rowLabel(f.Rows, r)
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(rows))-0.4
		p.Legend.Top, p.Legend.Left = true, false
		p.Y.Max *= 30 // room for the legend above the points (log axis)
	}
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return false, fmt.Errorf("plot %s: %w", f.Name, err)
	}
	return true, nil
}

// colorIndex keeps an implementation's color and glyph the same in every plot.
func colorIndex(im Impl) int {
	for i, x := range allImpls {
		if x.Name == im.Name {
			return i
		}
	}
	return len(allImpls)
}

// sizeTicks marks powers of four with byte-size labels (1, 16, 256, 4K, ..., 4M),
// minor ticks at the other powers of two.
type sizeTicks struct{}

func (sizeTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := 0; e <= 62; e++ {
		v := math.Ldexp(1, e)
		if v < min/1.0001 {
			continue
		}
		if v > max*1.0001 {
			break
		}
		t := plot.Tick{Value: v}
		if e%2 == 0 {
			t.Label = shortSize(int64(v))
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func shortSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "G"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}
