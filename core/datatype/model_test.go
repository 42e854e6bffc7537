package datatype

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// A reference model of type maps, written from the definitions of MPI-4.1 §5.1 without
// the engine's layout shortcuts: a type is the ordered list of its basic elements
// (displacement, size) with its bounds. Tests build each type both ways and compare.

type mElem struct {
	off, size int64
	b         *basic
}

type model struct {
	tm     []mElem
	lb, ub int64
	align  int64
	ident  any
	copies []copyAt
}

func (m *model) ext() int64 { return m.ub - m.lb }

func (m *model) size() int64 {
	var s int64
	for _, e := range m.tm {
		s += e.size
	}
	return s
}

func (m *model) trueBounds() (lb, ub int64) {
	for i, e := range m.tm {
		if i == 0 || e.off < lb {
			lb = e.off
		}
		if i == 0 || e.off+e.size > ub {
			ub = e.off + e.size
		}
	}
	return lb, ub
}

func mBasic(t *Type) *model {
	m := &model{ub: t.size, align: t.align, ident: t.basic.ident}
	if t.size > 0 {
		m.tm = []mElem{{0, t.size, t.basic}}
	}
	return m
}

// copyAt is one copy of a child type map placed at a displacement.
type copyAt struct {
	disp int64
	m    *model
}

// place concatenates copies in order; the bounds are those of the copies.
func place(copies []copyAt) *model {
	out := &model{align: 1}
	for i, c := range copies {
		for _, e := range c.m.tm {
			out.tm = append(out.tm, mElem{c.disp + e.off, e.size, e.b})
		}
		lo, hi := c.disp+c.m.lb, c.disp+c.m.ub
		if i == 0 || lo < out.lb {
			out.lb = lo
		}
		if i == 0 || hi > out.ub {
			out.ub = hi
		}
		if c.m.align > out.align {
			out.align = c.m.align
		}
	}
	out.copies = copies
	out.settle()
	return out
}

// settle sets the identity MPICH's struct padding rule compares: a type that is one
// copy of another at displacement 0 with the same bounds is that type.
func (m *model) settle() {
	m.ident = m
	if len(m.copies) == 1 && m.copies[0].disp == 0 && m.lb == m.copies[0].m.lb && m.ub == m.copies[0].m.ub {
		m.ident = m.copies[0].m.ident
	}
}

func mRepeat(c *model, n int64, disp int64, copies []copyAt) []copyAt {
	for j := int64(0); j < n; j++ {
		copies = append(copies, copyAt{disp + j*c.ext(), c})
	}
	return copies
}

func mContiguous(n int64, c *model) *model { return place(mRepeat(c, n, 0, nil)) }

func mHvector(count, bl, stride int64, c *model) *model {
	var cs []copyAt
	for i := int64(0); i < count; i++ {
		cs = mRepeat(c, bl, i*stride, cs)
	}
	return place(cs)
}

func mHindexed(bls, displs []int64, c *model) *model {
	var cs []copyAt
	for i := range displs {
		cs = mRepeat(c, bls[i], displs[i], cs)
	}
	return place(cs)
}

func mStruct(bls, displs []int64, cs []*model, markers []int) *model {
	var copies []copyAt
	var first any
	same := true
	var lbMark, ubMark *int64
	for i, c := range cs {
		switch markers[i] {
		case 1:
			if lbMark == nil || displs[i] < *lbMark {
				lbMark = &displs[i]
			}
			continue
		case 2:
			if ubMark == nil || displs[i] > *ubMark {
				ubMark = &displs[i]
			}
			continue
		}
		if first == nil {
			first = c.ident
		} else if c.ident != first {
			same = false
		}
		copies = mRepeat(c, bls[i], displs[i], copies)
	}
	m := place(copies)
	if ext := m.ext(); !same && ext > 0 && ext%m.align != 0 {
		m.ub += m.align - ext%m.align
	}
	if lbMark != nil {
		m.lb = *lbMark
	}
	if ubMark != nil {
		m.ub = *ubMark
	}
	m.settle()
	return m
}

func mResized(c *model, lb, ext int64) *model {
	m := place([]copyAt{{0, c}})
	m.lb, m.ub = lb, lb+ext
	m.settle()
	return m
}

func mDup(c *model) *model { return place([]copyAt{{0, c}}) }

// mArray is the type map of the elements of a sizes array (of old) that keep
// selects, in storage order, with lower bound 0 and the extent of the whole array.
func mArray(sizes []int64, order int, c *model, keep func(idx []int64) bool) *model {
	n := len(sizes)
	idx := make([]int64, n)
	var cs []copyAt
	total := int64(1)
	for _, s := range sizes {
		total *= s
	}
	for lin := int64(0); lin < total; lin++ {
		// lin is the storage position; recover the index of each dimension
		r := lin
		if order == OrderC {
			for d := n - 1; d >= 0; d-- {
				idx[d] = r % sizes[d]
				r /= sizes[d]
			}
		} else {
			for d := 0; d < n; d++ {
				idx[d] = r % sizes[d]
				r /= sizes[d]
			}
		}
		if keep(idx) {
			cs = append(cs, copyAt{lin * c.ext(), c})
		}
	}
	m := place(cs)
	m.lb, m.ub = 0, total*c.ext()
	m.settle()
	return m
}

func mSubarray(sizes, subsizes, starts []int64, order int, c *model) *model {
	return mArray(sizes, order, c, func(idx []int64) bool {
		for d := range idx {
			if idx[d] < starts[d] || idx[d] >= starts[d]+subsizes[d] {
				return false
			}
		}
		return true
	})
}

func mDarray(size, rank int, gsizes []int64, distribs, dargs, psizes []int, order int, c *model) *model {
	n := len(gsizes)
	coords := make([]int64, n)
	r := rank
	for d := n - 1; d >= 0; d-- {
		coords[d] = int64(r % psizes[d])
		r /= psizes[d]
	}
	return mArray(gsizes, order, c, func(idx []int64) bool {
		for d := range idx {
			p := int64(psizes[d])
			switch distribs[d] {
			case DistributeBlock:
				b := int64(dargs[d])
				if dargs[d] == DistributeDfltArg {
					b = (gsizes[d] + p - 1) / p
				}
				if idx[d]/b != coords[d] {
					return false
				}
			case DistributeCyclic:
				b := int64(dargs[d])
				if dargs[d] == DistributeDfltArg {
					b = 1
				}
				if (idx[d]/b)%p != coords[d] {
					return false
				}
			}
		}
		return true
	})
}

// ---- random types ----

// gen builds random nested types together with their models.
type gen struct {
	r       *rand.Rand
	created []*Type
	basics  []*Type
}

func newGen(seed uint64) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for _, h := range []int32{hChar, hShort, hInt, hDouble, hFloat, hInt64, hByte, hCFloatComplex} {
		g.basics = append(g.basics, Predefined(h))
	}
	return g
}

func (g *gen) keep(t *Type, err error) *Type {
	if err != nil {
		panic(err)
	}
	g.created = append(g.created, t)
	return t
}

// free releases every type the generator made.
func (g *gen) free(tb testing.TB) {
	for _, t := range g.created {
		if err := Free(t); err != nil {
			tb.Fatalf("free: %v", err)
		}
	}
	g.created = nil
}

func (g *gen) between(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

// count is a repetition count: mostly 1 to hi, sometimes 0.
func (g *gen) count(hi int64) int64 {
	if g.r.IntN(16) == 0 {
		return 0
	}
	return g.between(1, hi)
}

// typ returns a random type of at most about budget basic elements per element.
func (g *gen) typ(depth int, budget int64) (*Type, *model) {
	if depth == 0 || budget < 2 || (g.r.IntN(5) == 0 && len(g.created) > 0) {
		b := g.basics[g.r.IntN(len(g.basics))]
		return b, mBasic(b)
	}
	large := g.r.IntN(2) == 0
	switch g.r.IntN(10) {
	case 0: // contiguous
		n := g.count(4)
		c, cm := g.typ(depth-1, budget/max(n, 1))
		return g.keep(Contiguous(n, c, large)), mContiguous(n, cm)
	case 1: // vector, negative strides allowed
		count, bl := g.count(4), g.count(3)
		c, cm := g.typ(depth-1, budget/max(count*bl, 1))
		stride := g.between(-5, 5)
		return g.keep(Vector(count, bl, stride, c, large)), mHvector(count, bl, stride*cm.ext(), cm)
	case 2: // hvector
		count, bl := g.count(4), g.count(3)
		c, cm := g.typ(depth-1, budget/max(count*bl, 1))
		stride := g.between(-40, 40)
		return g.keep(Hvector(count, bl, stride, c, large)), mHvector(count, bl, stride, cm)
	case 3: // indexed with negative displacements
		n := g.count(4)
		c, cm := g.typ(depth-1, budget/max(3*n, 1))
		bls, ds := make([]int64, n), make([]int64, n)
		for i := range ds {
			bls[i], ds[i] = g.count(3), g.between(-6, 6)
		}
		scaled := make([]int64, n)
		for i := range ds {
			scaled[i] = ds[i] * cm.ext()
		}
		return g.keep(Indexed(bls, ds, c, large)), mHindexed(bls, scaled, cm)
	case 4: // hindexed or hindexed_block
		n := g.count(4)
		c, cm := g.typ(depth-1, budget/max(3*n, 1))
		ds := make([]int64, n)
		for i := range ds {
			ds[i] = g.between(-50, 50)
		}
		if g.r.IntN(2) == 0 {
			bl := g.count(3)
			bls := make([]int64, n)
			for i := range bls {
				bls[i] = bl
			}
			return g.keep(HindexedBlock(bl, ds, c, large)), mHindexed(bls, ds, cm)
		}
		bls := make([]int64, n)
		for i := range bls {
			bls[i] = g.count(3)
		}
		return g.keep(Hindexed(bls, ds, c, large)), mHindexed(bls, ds, cm)
	case 5: // indexed_block
		n, bl := g.count(4), g.count(3)
		c, cm := g.typ(depth-1, budget/max(n*bl, 1))
		ds, bls, scaled := make([]int64, n), make([]int64, n), make([]int64, n)
		for i := range ds {
			ds[i], bls[i] = g.between(-4, 6), bl
			scaled[i] = ds[i] * cm.ext()
		}
		return g.keep(IndexedBlock(bl, ds, c, large)), mHindexed(bls, scaled, cm)
	case 6: // struct, sometimes with MPI_LB/MPI_UB markers
		n := g.between(1, 4)
		bls, ds := make([]int64, n), make([]int64, n)
		ts, ms, marks := make([]*Type, n), make([]*model, n), make([]int, n)
		for i := range ts {
			bls[i], ds[i] = g.count(3), g.between(-60, 60)
			switch k := g.r.IntN(24); {
			case k == 0:
				ts[i], marks[i] = Predefined(hLB), 1
				ms[i] = &model{}
			case k == 1:
				ts[i], marks[i] = Predefined(hUB), 2
				ms[i] = &model{}
			default:
				ts[i], ms[i] = g.typ(depth-1, budget/(3*n))
			}
		}
		return g.keep(Struct(bls, ds, ts, large)), mStruct(bls, ds, ms, marks)
	case 7: // resized: gaps on either side, negative extents
		c, cm := g.typ(depth-1, budget)
		lb, ext := cm.lb+g.between(-16, 8), cm.ext()+g.between(-8, 24)
		return g.keep(Resized(c, lb, ext, large)), mResized(cm, lb, ext)
	case 8: // dup
		c, cm := g.typ(depth-1, budget)
		return g.keep(Dup(c)), mDup(cm)
	default: // subarray or darray, small
		n := int(g.between(1, 3))
		order := OrderC
		if g.r.IntN(2) == 0 {
			order = OrderFortran
		}
		c, cm := g.typ(depth-1, budget/27)
		if g.r.IntN(2) == 0 {
			sizes, subs, starts := make([]int64, n), make([]int64, n), make([]int64, n)
			for d := range sizes {
				sizes[d] = g.between(1, 4)
				subs[d] = g.between(1, sizes[d])
				starts[d] = g.between(0, sizes[d]-subs[d])
			}
			return g.keep(Subarray(sizes, subs, starts, order, c, large)), mSubarray(sizes, subs, starts, order, cm)
		}
		gs, dist, dargs, ps := make([]int64, n), make([]int, n), make([]int, n), make([]int, n)
		size := 1
		for d := range gs {
			gs[d] = g.between(1, 5)
			ps[d] = int(g.between(1, 2))
			size *= ps[d]
			switch g.r.IntN(3) {
			case 0:
				dist[d], dargs[d] = DistributeNone, DistributeDfltArg
			case 1:
				dist[d], dargs[d] = DistributeBlock, DistributeDfltArg
				if g.r.IntN(2) == 0 {
					dargs[d] = int((gs[d]+int64(ps[d])-1)/int64(ps[d])) + int(g.between(0, 2))
				}
			default:
				dist[d], dargs[d] = DistributeCyclic, DistributeDfltArg
				if g.r.IntN(2) == 0 {
					dargs[d] = int(g.between(1, 3))
				}
			}
		}
		rank := int(g.between(0, int64(size-1)))
		return g.keep(Darray(size, rank, gs, dist, dargs, ps, order, c, large)),
			mDarray(size, rank, gs, dist, dargs, ps, order, cm)
	}
}

func (m *model) String() string {
	return fmt.Sprintf("model(%d elems, lb %d ub %d)", len(m.tm), m.lb, m.ub)
}

func fmtAny(x any) string { return fmt.Sprint(x) }
