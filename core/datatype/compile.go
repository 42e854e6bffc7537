package datatype

// The pack engine's compiled form of a type. One element is unitReps copies, stride
// bytes apart, of a list of contiguous byte runs in type-map order; adjacent runs are
// merged. Keeping the outermost repetition (a vector's count, a contiguous type's
// count) out of the list keeps it short for the common large types.

// run is a contiguous piece of data: off is relative to the buffer address.
type run struct {
	off, len int64
}

type program struct {
	runs   []run
	cum    []int64 // cum[i] is the packed offset of runs[i] in a unit; cum[len(runs)] = unit
	unit   int64   // packed bytes in one unit
	reps   int64   // units in one element
	stride int64   // bytes between units
	contig bool    // see Type.Contiguous
}

// program returns t's compiled form, compiling it on first use.
func (t *Type) program() *program {
	if p := t.prog.Load(); p != nil {
		return p
	}
	p := compile(t)
	if !t.prog.CompareAndSwap(nil, p) {
		return t.prog.Load()
	}
	return p
}

// runList collects runs, merging each with the previous one when they touch.
type runList []run

func (l *runList) add(off, n int64) {
	if n <= 0 {
		return
	}
	if k := len(*l); k > 0 && (*l)[k-1].off+(*l)[k-1].len == off {
		(*l)[k-1].len += n
		return
	}
	*l = append(*l, run{off, n})
}

// flattener expands type maps into runs, remembering the runs of each inner type.
type flattener struct {
	memo map[*Type][]run
}

// runsOf returns the runs of one element of t at displacement 0.
func (f *flattener) runsOf(t *Type) []run {
	if r, ok := f.memo[t]; ok {
		return r
	}
	var l runList
	f.emit(&l, t, 0)
	f.memo[t] = l
	return l
}

// emit appends the runs of one element of t at displacement base.
func (f *flattener) emit(l *runList, t *Type, base int64) {
	if t.size == 0 {
		return
	}
	if t.kind == kindBasic {
		l.add(base, t.size)
		return
	}
	for r := int64(0); r < t.reps; r++ {
		f.emitBlocks(l, t, base+r*t.stride)
	}
}

func (f *flattener) emitBlocks(l *runList, t *Type, base int64) {
	for _, b := range t.blocks {
		c := b.child
		if c.size == 0 {
			continue
		}
		cr := f.runsOf(c)
		if len(cr) == 1 && cr[0].len == c.size && c.Extent() == c.size {
			l.add(base+b.disp+cr[0].off, b.n*c.size) // the copies tile
			continue
		}
		ext := c.Extent()
		for j := int64(0); j < b.n; j++ {
			at := base + b.disp + j*ext
			for _, x := range cr {
				l.add(at+x.off, x.len)
			}
		}
	}
}

func compile(t *Type) *program {
	f := &flattener{memo: map[*Type][]run{}}
	p := &program{reps: 1}
	// Look through wrappers (dup, resized, subarray...) for an outer repetition.
	u, base := t, int64(0)
	for u.kind == kindDerived && u.reps == 1 && len(u.blocks) == 1 && u.blocks[0].n == 1 {
		base += u.blocks[0].disp
		u = u.blocks[0].child
	}
	var l runList
	switch {
	case u.size == 0:
	case u.kind == kindDerived && u.reps > 1:
		f.emitBlocks(&l, u, base)
		p.reps, p.stride = u.reps, u.stride
	case u.kind == kindDerived && u.reps == 1 && len(u.blocks) == 1 && u.blocks[0].n > 1:
		b := u.blocks[0]
		f.emit(&l, b.child, base+b.disp)
		p.reps, p.stride = b.n, b.child.Extent()
	default:
		f.emit(&l, t, 0)
	}
	if p.reps > 1 && len(l) == 1 && l[0].len == p.stride {
		l[0].len *= p.reps // the units tile
		p.reps, p.stride = 1, 0
	}
	p.runs = l
	p.cum = make([]int64, len(l)+1)
	for i, x := range l {
		p.cum[i+1] = p.cum[i] + x.len
	}
	p.unit = p.cum[len(l)]
	p.contig = t.size == 0 || (p.reps == 1 && len(l) == 1 && l[0].len == t.size && t.Extent() == t.size)
	return p
}
