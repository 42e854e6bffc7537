package datatype

import (
	"math"
	"mpix/core/mpierr"
)

// arith does int64 arithmetic that remembers whether anything overflowed, so that a
// constructor can compute a whole layout and check once.
type arith struct{ overflow bool }

func (a *arith) add(x, y int64) int64 {
	s := x + y
	if (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0) {
		a.overflow = true
	}
	return s
}

func (a *arith) mul(x, y int64) int64 {
	if x == 0 || y == 0 {
		return 0
	}
	p := x * y
	if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		a.overflow = true
	}
	return p
}

var errTooLarge = errorf(mpierr.ErrArg, "datatype too large: its size or bounds overflow 64 bits")

// derive makes an unregistered derived type whose type map is reps copies, stride
// bytes apart, of blocks, and computes its size and bounds. Constructors then adjust
// the bounds (resized, struct padding) and record their arguments.
func derive(reps, stride int64, blocks []block) (*Type, error) {
	t := &Type{kind: kindDerived, reps: reps, stride: stride, align: 1}
	var a arith
	var haveBounds, haveData bool
	for _, b := range blocks {
		if b.n == 0 {
			continue
		}
		t.blocks = append(t.blocks, b)
		c := b.child
		if c.align > t.align {
			t.align = c.align
		}
		span := a.mul(b.n-1, c.Extent())
		lo := a.add(a.add(b.disp, c.lb), min(0, span))
		hi := a.add(a.add(b.disp, c.ub), max(0, span))
		if !haveBounds || lo < t.lb {
			t.lb = lo
		}
		if !haveBounds || hi > t.ub {
			t.ub = hi
		}
		haveBounds = true
		t.size = a.add(t.size, a.mul(b.n, c.size))
		t.nbasic = a.add(t.nbasic, a.mul(b.n, c.nbasic))
		t.extSize = a.add(t.extSize, a.mul(b.n, c.extSize))
		if c.size > 0 {
			lo := a.add(a.add(b.disp, c.trueLB), min(0, span))
			hi := a.add(a.add(b.disp, c.trueUB), max(0, span))
			if !haveData || lo < t.trueLB {
				t.trueLB = lo
			}
			if !haveData || hi > t.trueUB {
				t.trueUB = hi
			}
			haveData = true
		}
	}
	if reps == 0 || len(t.blocks) == 0 {
		t.reps, t.blocks, t.align = 0, nil, 1
		t.lb, t.ub, t.trueLB, t.trueUB, t.size, t.nbasic, t.extSize = 0, 0, 0, 0, 0, 0, 0
		return t, nil
	}
	span := a.mul(reps-1, stride)
	t.lb = a.add(t.lb, min(0, span))
	t.ub = a.add(t.ub, max(0, span))
	if haveData {
		t.trueLB = a.add(t.trueLB, min(0, span))
		t.trueUB = a.add(t.trueUB, max(0, span))
	}
	t.size = a.mul(t.size, reps)
	t.nbasic = a.mul(t.nbasic, reps)
	t.extSize = a.mul(t.extSize, reps)
	a.add(t.ub, -t.lb)
	a.add(t.trueUB, -t.trueLB)
	if a.overflow {
		return nil, errTooLarge
	}
	return t, nil
}

// wrap makes a type with t's type map (one copy at displacement disp) and the given
// bounds: the shape of resized, subarray and darray types.
func wrap(t *Type, disp, lb, ub int64) (*Type, error) {
	w, err := derive(1, 0, []block{{disp: disp, n: 1, child: t}})
	if err != nil {
		return nil, err
	}
	w.lb, w.ub = lb, ub
	var a arith
	a.add(ub, -lb)
	if a.overflow {
		return nil, errTooLarge
	}
	return w, nil
}

// ident is what MPICH compares when it decides whether a struct holds one type only
// (and then does not pad it): the basic type, seen through dups, one-element
// contiguous types and resizes that change nothing.
func (t *Type) ident() any {
	switch t.kind {
	case kindBasic, kindMarker:
		return t.basic.ident
	case kindDerived:
		if len(t.blocks) == 1 && t.reps == 1 && t.blocks[0].n == 1 && t.blocks[0].disp == 0 {
			c := t.blocks[0].child
			if t.lb == c.lb && t.ub == c.ub {
				return c.ident()
			}
		}
	}
	return t
}
