package core

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"mpix/core/datatype"
	"mpix/core/op"
)

// Collective algorithms over the in-memory transport: every rank runs in its own
// goroutine, as a process would, and each result is compared with a serial
// reference computed from what every rank contributed. Buffers are int64 slices
// filled with a poison value, so writes into gaps of a derived type or outside the
// blocks a rank should receive show up as differences.

// inPlaceMark stands for MPI_IN_PLACE (the C boundary sets the real address).
var inPlaceMark byte

func init() {
	if InPlace == nil {
		InPlace = unsafe.Pointer(&inPlaceMark)
	}
}

const poison = int64(-0x5a5a5a5a5a5a5a5b)

// layout describes a test datatype in int64 units: an element holds len(offs)
// values at those offsets, and elements are ext apart.
type layout struct {
	name string
	t    *datatype.Type
	offs []int
	ext  int
}

func longType(t testing.TB) *datatype.Type {
	lt, err := datatype.Lookup(0x4c000807) // MPI_LONG
	require.NoError(t, err)
	return lt
}

func layouts(t testing.TB) (long, vec, mat, matGap *layout) {
	lt := longType(t)
	v, err := datatype.Vector(2, 1, 2, lt, false) // two longs with a one-long gap
	require.NoError(t, err)
	m, err := datatype.Contiguous(4, lt, false) // a 2x2 matrix
	require.NoError(t, err)
	mg, err := datatype.Vector(4, 1, 2, lt, false) // a 2x2 matrix with gaps
	require.NoError(t, err)
	for _, x := range []*datatype.Type{v, m, mg} {
		x.Commit()
	}
	return &layout{"long", lt, []int{0}, 1},
		&layout{"vector", v, []int{0, 2}, 3},
		&layout{"matrix", m, []int{0, 1, 2, 3}, 4},
		&layout{"gapped matrix", mg, []int{0, 2, 4, 6}, 7}
}

// tbuf is a buffer of elements of a layout.
type tbuf struct {
	lay *layout
	v   []int64
}

func newBuf(lay *layout, count int) *tbuf {
	b := &tbuf{lay: lay, v: make([]int64, max(1, count*lay.ext))}
	b.poison()
	return b
}

func (b *tbuf) ptr() unsafe.Pointer { return unsafe.Pointer(&b.v[0]) }
func (b *tbuf) poison() {
	for i := range b.v {
		b.v[i] = poison
	}
}
func (b *tbuf) set(i int, vals []int64) {
	for j, o := range b.lay.offs {
		b.v[i*b.lay.ext+o] = vals[j]
	}
}
func (b *tbuf) get(i int) []int64 {
	out := make([]int64, len(b.lay.offs))
	for j, o := range b.lay.offs {
		out[j] = b.v[i*b.lay.ext+o]
	}
	return out
}

// like is a poisoned buffer of the same shape.
func (b *tbuf) like() *tbuf {
	c := &tbuf{lay: b.lay, v: make([]int64, len(b.v))}
	c.poison()
	return c
}

func (b *tbuf) equal(want *tbuf, what string) error {
	if i := firstDiff(b.v, want.v); i >= 0 {
		return fmt.Errorf("%s: word %d is %d, want %d (element %d of %s)", what, i, b.v[i], want.v[i], i/b.lay.ext, b.lay.name)
	}
	return nil
}

func firstDiff(a, b []int64) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// redOp is a reduction with its serial reference.
type redOp struct {
	name string
	op   Reducer
	val  func(iter, rank, i, j int) int64 // rank's element i, value j
	comb func(lo, hi []int64) []int64     // lo comes from the lower rank
}

func sumOp() redOp {
	return redOp{"sum", op.Predefined(op.Sum),
		func(iter, rank, i, j int) int64 { return int64(iter*1000003 + rank*10007 + i*101 + j*7 + 1) },
		func(lo, hi []int64) []int64 {
			out := slices.Clone(lo)
			for k := range out {
				out[k] += hi[k]
			}
			return out
		}}
}

// matmul multiplies 2x2 integer matrices (wrapping): associative, not commutative,
// so a result in the wrong rank order differs.
type matmul struct{ lay *layout }

func (matmul) Commutative() bool { return false }

func (m matmul) Check(t *datatype.Type) error { return nil }

func (m matmul) Apply(in, inout unsafe.Pointer, count int64, t *datatype.Type) error {
	if t != m.lay.t {
		return fmt.Errorf("matmul applied to the wrong type")
	}
	ext := m.lay.ext
	for i := 0; i < int(count); i++ {
		a := unsafe.Slice((*int64)(unsafe.Add(in, i*ext*8)), ext)
		b := unsafe.Slice((*int64)(unsafe.Add(inout, i*ext*8)), ext)
		var x, y []int64
		for _, o := range m.lay.offs {
			x, y = append(x, a[o]), append(y, b[o])
		}
		for k, v := range mul2(x, y) {
			b[m.lay.offs[k]] = v
		}
	}
	return nil
}

func mul2(x, y []int64) []int64 {
	return []int64{x[0]*y[0] + x[1]*y[2], x[0]*y[1] + x[1]*y[3], x[2]*y[0] + x[3]*y[2], x[2]*y[1] + x[3]*y[3]}
}

func matOp(lay *layout) redOp {
	return redOp{"matmul", matmul{lay},
		func(iter, rank, i, j int) int64 { return int64(((iter+1)*(rank+2)*(i+1)*(j+3)+rank*j)%11) - 5 },
		mul2}
}

// contrib is rank's operand (count elements) at iteration iter.
func (o redOp) contrib(lay *layout, iter, rank, count int) *tbuf {
	b := newBuf(lay, count)
	for i := 0; i < count; i++ {
		vals := make([]int64, len(lay.offs))
		for j := range vals {
			vals[j] = o.val(iter, rank, i, j)
		}
		b.set(i, vals)
	}
	return b
}

// fold is the reference reduction of element i over ranks lo..hi-1.
func (o redOp) fold(iter, lo, hi, i, width int) []int64 {
	var acc []int64
	for r := lo; r < hi; r++ {
		x := make([]int64, width)
		for j := range x {
			x[j] = o.val(iter, r, i, j)
		}
		if acc == nil {
			acc = x
		} else {
			acc = o.comb(acc, x)
		}
	}
	return acc
}

// collCase is one collective call at one rank: fill writes the inputs of an
// iteration into the buffers (which persistent requests keep), call makes the
// collective in a mode, check compares the outputs with the reference.
type collCase struct {
	fill  func(iter int)
	call  func(m CollMode) (*Request, error)
	check func(iter int) error
}

// drive runs a case in every mode at one rank; persistent requests start twice with
// different data.
func drive(c *Comm, mk func(c *Comm) collCase) error {
	for _, m := range []CollMode{Blocking, Nonblocking, Persistent} {
		cc := mk(c)
		switch m {
		case Blocking:
			cc.fill(0)
			if _, err := cc.call(m); err != nil {
				return fmt.Errorf("blocking: %w", err)
			}
			if err := cc.check(0); err != nil {
				return fmt.Errorf("blocking: %w", err)
			}
		case Nonblocking:
			cc.fill(0)
			r, err := cc.call(m)
			if err != nil {
				return fmt.Errorf("nonblocking: %w", err)
			}
			if st := Wait(r); st.Error != Success {
				return fmt.Errorf("nonblocking: error class %d", st.Error)
			}
			if err := cc.check(0); err != nil {
				return fmt.Errorf("nonblocking: %w", err)
			}
		case Persistent:
			cc.fill(0) // persistent init must not read the buffers; refill below anyway
			r, err := cc.call(m)
			if err != nil {
				return fmt.Errorf("persistent init: %w", err)
			}
			for iter := 1; iter <= 2; iter++ {
				cc.fill(iter)
				if err := Start(r); err != nil {
					return fmt.Errorf("persistent start %d: %w", iter, err)
				}
				if st := Wait(r); st.Error != Success {
					return fmt.Errorf("persistent start %d: error class %d", iter, st.Error)
				}
				if err := cc.check(iter); err != nil {
					return fmt.Errorf("persistent start %d: %w", iter, err)
				}
			}
			r.Free()
		}
	}
	return nil
}

type netCfg struct {
	name                 string
	capacity, maxPayload int
	singleCopy           bool
}

// Small payloads and queues make most messages rendezvous and exercise the outbox.
var netCfgs = []netCfg{
	{"pipelined", 4, 64, false},
	{"single copy", 64, 256, true},
}

// runRanks runs body at every rank of comms concurrently and fails if any returns
// an error or they do not all return in time (a schedule that deadlocks).
func runRanks(t *testing.T, comms []*Comm, body func(c *Comm) error) {
	t.Helper()
	errs := make(chan error, len(comms))
	for _, c := range comms {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					errs <- fmt.Errorf("rank %d panicked: %v", c.Rank, p)
				}
			}()
			if err := body(c); err != nil {
				errs <- fmt.Errorf("rank %d: %w", c.Rank, err)
				return
			}
			errs <- nil
		}()
	}
	deadline := time.After(60 * time.Second)
	for range comms {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-deadline:
			t.Fatal("collective did not complete at every rank (deadlock?)")
		}
	}
}

// forWorlds runs a case maker at sizes 1..6.
func forWorlds(t *testing.T, name string, mk func(c *Comm) collCase) {
	t.Helper()
	for n := 1; n <= 6; n++ {
		nc := netCfgs[n%2] // both protocols at both odd and even sizes, in turn
		t.Run(fmt.Sprintf("%s/%s/n=%d", name, nc.name, n), func(t *testing.T) {
			comms := world(n, nc.capacity, nc.maxPayload, nc.singleCopy)
			runRanks(t, comms, func(c *Comm) error { return drive(c, mk) })
		})
	}
}

// 301 longs cross the 2 KiB switch to Rabenseifner's allreduce, and do not divide
// evenly among the ranks.
var testCounts = []int{0, 1, 7, 301}

// flipper alternates in-place and not across the cases of a test (running both for
// every case would double tests that -race already makes slow): next returns a
// one-element list, false and true in turn.
type flipper struct{ n int }

func (f *flipper) next() []bool {
	f.n++
	return []bool{f.n%2 == 0}
}

// rootsOf lists the roots to try in a world of n.
func rootsOf(n int) []int {
	roots := []int{0}
	if n > 1 {
		roots = append(roots, n-1)
	}
	if n > 2 {
		roots = append(roots, n/2)
	}
	return roots
}

func TestCollBarrier(t *testing.T) {
	forWorlds(t, "barrier", func(c *Comm) collCase {
		return collCase{
			fill:  func(int) {},
			call:  func(m CollMode) (*Request, error) { return Barrier(m, c) },
			check: func(int) error { return nil },
		}
	})
}

// A barrier must not let any rank out before every rank entered.
func TestCollBarrierSynchronizes(t *testing.T) {
	for n := 2; n <= 6; n++ {
		comms := world(n, 8, 64, false)
		var entered [6]atomic.Int32
		runRanks(t, comms, func(c *Comm) error {
			for round := int32(1); round <= 5; round++ {
				entered[c.Rank].Store(round)
				if _, err := Barrier(Blocking, c); err != nil {
					return err
				}
				for i := 0; i < n; i++ {
					if v := entered[i].Load(); v < round {
						return fmt.Errorf("round %d: rank %d left the barrier before rank %d entered", round, c.Rank, i)
					}
				}
				if _, err := Barrier(Blocking, c); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

func TestCollBcast(t *testing.T) {
	long, vec, _, _ := layouts(t)
	for _, lay := range []*layout{long, vec} {
		for _, count := range testCounts {
			for _, root := range []int{0, 1, 5} {
				forWorlds(t, fmt.Sprintf("%s/count=%d/root=%d", lay.name, count, root), func(c *Comm) collCase {
					root := root % c.Size
					o := sumOp()
					var buf *tbuf
					return collCase{
						fill: func(iter int) {
							src := o.contrib(lay, iter, root, count)
							if buf == nil {
								buf = src.like()
							}
							buf.poison()
							if c.Rank == root {
								copy(buf.v, src.v)
							}
						},
						call: func(m CollMode) (*Request, error) {
							return Bcast(m, buf.ptr(), int64(count), lay.t, root, c)
						},
						check: func(iter int) error { return buf.equal(o.contrib(lay, iter, root, count), "bcast") },
					}
				})
			}
		}
	}
}

// reduceCases lists (layout, op) pairs: sums on plain and gapped types, matrix
// products (non-commutative) on contiguous and gapped matrices.
func reduceCases(t *testing.T) []struct {
	lay *layout
	o   redOp
} {
	long, vec, mat, matGap := layouts(t)
	return []struct {
		lay *layout
		o   redOp
	}{{long, sumOp()}, {vec, sumOp()}, {mat, matOp(mat)}, {matGap, matOp(matGap)}}
}

func TestCollReduce(t *testing.T) {
	var fl flipper
	for _, rc := range reduceCases(t) {
		for _, count := range testCounts {
			for _, root := range []int{0, 2, 5} {
				for _, inPlace := range fl.next() {
					name := fmt.Sprintf("%s/%s/count=%d/root=%d/inplace=%v", rc.o.name, rc.lay.name, count, root, inPlace)
					forWorlds(t, name, func(c *Comm) collCase {
						lay, o, root := rc.lay, rc.o, root%c.Size
						var sbuf, rbuf *tbuf
						return collCase{
							fill: func(iter int) {
								mine := o.contrib(lay, iter, c.Rank, count)
								if sbuf == nil {
									sbuf, rbuf = mine.like(), mine.like()
								}
								copy(sbuf.v, mine.v)
								rbuf.poison()
								if inPlace && c.Rank == root {
									copy(rbuf.v, mine.v)
								}
							},
							call: func(m CollMode) (*Request, error) {
								sp := sbuf.ptr()
								if inPlace && c.Rank == root {
									sp = InPlace
								}
								return Reduce(m, sp, rbuf.ptr(), int64(count), lay.t, o.op, root, c)
							},
							check: func(iter int) error {
								if err := sbuf.equal(o.contrib(lay, iter, c.Rank, count), "send buffer changed"); err != nil {
									return err
								}
								want := rbuf.like()
								if c.Rank == root {
									for i := 0; i < count; i++ {
										want.set(i, o.fold(iter, 0, c.Size, i, len(lay.offs)))
									}
								}
								return rbuf.equal(want, "reduce")
							},
						}
					})
				}
			}
		}
	}
}

func TestCollAllreduce(t *testing.T) {
	var fl flipper
	for _, rc := range reduceCases(t) {
		for _, count := range testCounts {
			for _, inPlace := range fl.next() {
				name := fmt.Sprintf("%s/%s/count=%d/inplace=%v", rc.o.name, rc.lay.name, count, inPlace)
				forWorlds(t, name, func(c *Comm) collCase {
					lay, o := rc.lay, rc.o
					var sbuf, rbuf *tbuf
					return collCase{
						fill: func(iter int) {
							mine := o.contrib(lay, iter, c.Rank, count)
							if sbuf == nil {
								sbuf, rbuf = mine.like(), mine.like()
							}
							copy(sbuf.v, mine.v)
							rbuf.poison()
							if inPlace {
								copy(rbuf.v, mine.v)
							}
						},
						call: func(m CollMode) (*Request, error) {
							sp := sbuf.ptr()
							if inPlace {
								sp = InPlace
							}
							return Allreduce(m, sp, rbuf.ptr(), int64(count), lay.t, o.op, c)
						},
						check: func(iter int) error {
							if err := sbuf.equal(o.contrib(lay, iter, c.Rank, count), "send buffer changed"); err != nil {
								return err
							}
							want := rbuf.like()
							for i := 0; i < count; i++ {
								want.set(i, o.fold(iter, 0, c.Size, i, len(lay.offs)))
							}
							return rbuf.equal(want, "allreduce")
						},
					}
				})
			}
		}
	}
}

// vcounts are the per-rank counts of the v forms: uneven, some zero.
func vcounts(n, count int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(max(0, count+i%3-1))
	}
	return out
}

// vdispls places blocks in reverse rank order with a one-element gap after each.
func vdispls(counts []int64) (displs []int64, total int) {
	displs = make([]int64, len(counts))
	var off int64
	for i := len(counts) - 1; i >= 0; i-- {
		displs[i] = off
		off += counts[i] + 1
	}
	return displs, int(off)
}

func TestCollGather(t *testing.T) {
	var fl flipper
	long, vec, _, _ := layouts(t)
	for _, lay := range []*layout{long, vec} {
		for _, count := range testCounts {
			for _, root := range []int{0, 1, 5} {
				for _, v := range []bool{false, true} {
					for _, inPlace := range fl.next() {
						name := fmt.Sprintf("%s/count=%d/root=%d/v=%v/inplace=%v", lay.name, count, root, v, inPlace)
						forWorlds(t, name, func(c *Comm) collCase {
							n, root, o := c.Size, root%c.Size, sumOp()
							counts := make([]int64, n)
							for i := range counts {
								counts[i] = int64(count)
							}
							var displs []int64
							total := n * count
							if v {
								counts = vcounts(n, count)
								displs, total = vdispls(counts)
							} else {
								for i := 0; i < n; i++ {
									displs = append(displs, int64(i*count))
								}
							}
							at := func(i int) int { return int(displs[i]) }
							var sbuf, rbuf *tbuf
							want := func(iter int) *tbuf {
								w := newBuf(lay, total)
								for i := 0; i < n; i++ {
									src := o.contrib(lay, iter, i, int(counts[i]))
									for k := 0; k < int(counts[i]); k++ {
										w.set(at(i)+k, src.get(k))
									}
								}
								return w
							}
							return collCase{
								fill: func(iter int) {
									if sbuf == nil {
										sbuf, rbuf = newBuf(lay, int(counts[c.Rank])), newBuf(lay, total)
									}
									copy(sbuf.v, o.contrib(lay, iter, c.Rank, int(counts[c.Rank])).v)
									rbuf.poison()
									if inPlace && c.Rank == root {
										for k := 0; k < int(counts[root]); k++ {
											rbuf.set(at(root)+k, sbuf.get(k))
										}
									}
								},
								call: func(m CollMode) (*Request, error) {
									sp := sbuf.ptr()
									if inPlace && c.Rank == root {
										sp = InPlace
									}
									if v {
										var rc, rd []int64
										if c.Rank == root {
											rc, rd = counts, displs
										}
										return Gather(m, sp, counts[c.Rank], lay.t, rbuf.ptr(), 0, rc, rd, lay.t, root, c)
									}
									return Gather(m, sp, int64(count), lay.t, rbuf.ptr(), int64(count), nil, nil, lay.t, root, c)
								},
								check: func(iter int) error {
									if c.Rank != root {
										return rbuf.equal(newBuf(lay, total), "gather wrote at a non-root")
									}
									return rbuf.equal(want(iter), "gather")
								},
							}
						})
					}
				}
			}
		}
	}
}

func TestCollScatter(t *testing.T) {
	var fl flipper
	long, vec, _, _ := layouts(t)
	for _, lay := range []*layout{long, vec} {
		for _, count := range testCounts {
			for _, root := range []int{0, 1, 5} {
				for _, v := range []bool{false, true} {
					for _, inPlace := range fl.next() {
						name := fmt.Sprintf("%s/count=%d/root=%d/v=%v/inplace=%v", lay.name, count, root, v, inPlace)
						forWorlds(t, name, func(c *Comm) collCase {
							n, root, o := c.Size, root%c.Size, sumOp()
							counts := make([]int64, n)
							var displs []int64
							total := n * count
							for i := range counts {
								counts[i] = int64(count)
								displs = append(displs, int64(i*count))
							}
							if v {
								counts = vcounts(n, count)
								displs, total = vdispls(counts)
							}
							// The root's send buffer holds element k of rank i's block as
							// the root's contribution element displs[i]+k.
							var sbuf, rbuf *tbuf
							return collCase{
								fill: func(iter int) {
									if sbuf == nil {
										sbuf, rbuf = newBuf(lay, total), newBuf(lay, int(counts[c.Rank]))
									}
									sbuf.poison()
									if c.Rank == root {
										copy(sbuf.v, o.contrib(lay, iter, root, total).v)
									}
									rbuf.poison()
								},
								call: func(m CollMode) (*Request, error) {
									rp := rbuf.ptr()
									if inPlace && c.Rank == root {
										rp = InPlace
									}
									if v {
										var sc, sd []int64
										if c.Rank == root {
											sc, sd = counts, displs
										}
										return Scatter(m, sbuf.ptr(), 0, sc, sd, lay.t, rp, counts[c.Rank], lay.t, root, c)
									}
									return Scatter(m, sbuf.ptr(), int64(count), nil, nil, lay.t, rp, int64(count), lay.t, root, c)
								},
								check: func(iter int) error {
									want := newBuf(lay, int(counts[c.Rank]))
									if !(inPlace && c.Rank == root) {
										all := o.contrib(lay, iter, root, total)
										for k := 0; k < int(counts[c.Rank]); k++ {
											want.set(k, all.get(int(displs[c.Rank])+k))
										}
									}
									return rbuf.equal(want, "scatter")
								},
							}
						})
					}
				}
			}
		}
	}
}

func TestCollAllgather(t *testing.T) {
	var fl flipper
	long, vec, _, _ := layouts(t)
	for _, lay := range []*layout{long, vec} {
		for _, count := range testCounts {
			for _, v := range []bool{false, true} {
				for _, inPlace := range fl.next() {
					name := fmt.Sprintf("%s/count=%d/v=%v/inplace=%v", lay.name, count, v, inPlace)
					forWorlds(t, name, func(c *Comm) collCase {
						n, o := c.Size, sumOp()
						counts := make([]int64, n)
						var displs []int64
						total := n * count
						for i := range counts {
							counts[i] = int64(count)
							displs = append(displs, int64(i*count))
						}
						if v {
							counts = vcounts(n, count)
							displs, total = vdispls(counts)
						}
						var sbuf, rbuf *tbuf
						return collCase{
							fill: func(iter int) {
								if sbuf == nil {
									sbuf, rbuf = newBuf(lay, int(counts[c.Rank])), newBuf(lay, total)
								}
								copy(sbuf.v, o.contrib(lay, iter, c.Rank, int(counts[c.Rank])).v)
								rbuf.poison()
								if inPlace {
									for k := 0; k < int(counts[c.Rank]); k++ {
										rbuf.set(int(displs[c.Rank])+k, sbuf.get(k))
									}
								}
							},
							call: func(m CollMode) (*Request, error) {
								sp := sbuf.ptr()
								if inPlace {
									sp = InPlace
								}
								if v {
									return Allgather(m, sp, counts[c.Rank], lay.t, rbuf.ptr(), 0, counts, displs, lay.t, c)
								}
								return Allgather(m, sp, int64(count), lay.t, rbuf.ptr(), int64(count), nil, nil, lay.t, c)
							},
							check: func(iter int) error {
								want := newBuf(lay, total)
								for i := 0; i < n; i++ {
									src := o.contrib(lay, iter, i, int(counts[i]))
									for k := 0; k < int(counts[i]); k++ {
										want.set(int(displs[i])+k, src.get(k))
									}
								}
								return rbuf.equal(want, "allgather")
							},
						}
					})
				}
			}
		}
	}
}

// a2aVal is the value rank src sends to rank dst as element k, value j.
func a2aVal(iter, src, dst, k, j int) int64 {
	return int64(iter*1000003 + src*10007 + dst*1009 + k*13 + j + 1)
}

func TestCollAlltoall(t *testing.T) {
	var fl flipper
	long, vec, _, _ := layouts(t)
	type form int
	const (
		plain form = iota
		vform
		wform
	)
	for _, lay := range []*layout{long, vec} {
		for _, count := range testCounts {
			for _, f := range []form{plain, vform, wform} {
				for _, inPlace := range fl.next() {
					name := fmt.Sprintf("%s/count=%d/form=%d/inplace=%v", lay.name, count, f, inPlace)
					forWorlds(t, name, func(c *Comm) collCase {
						n, r := c.Size, c.Rank
						// Per-peer counts: cnt(src, dst) elements go from src to dst.
						cnt := func(src, dst int) int {
							if f == plain {
								return count
							}
							return max(0, count+(src+2*dst)%3-1)
						}
						// Block layout: blocks in reverse peer order with a one-element gap.
						layoutOf := func(side func(p int) int) (displs []int64, total int) {
							displs = make([]int64, n)
							for p := n - 1; p >= 0; p-- {
								displs[p] = int64(total)
								total += side(p) + 1
							}
							return
						}
						if f == plain {
							layoutOf = func(side func(p int) int) ([]int64, int) {
								d := make([]int64, n)
								for p := range d {
									d[p] = int64(p * count)
								}
								return d, n * count
							}
						}
						scnt := func(p int) int { return cnt(r, p) }
						rcnt := func(p int) int { return cnt(p, r) }
						if inPlace { // MPI_IN_PLACE needs the send and receive sides to match
							cnt = func(src, dst int) int {
								if f == plain {
									return count
								}
								return max(0, count+(src+dst)%3-1)
							}
						}
						sdispl, stotal := layoutOf(scnt)
						rdispl, rtotal := layoutOf(rcnt)
						toInt := func(g func(p int) int) []int64 {
							out := make([]int64, n)
							for p := range out {
								out[p] = int64(g(p))
							}
							return out
						}
						var sbuf, rbuf *tbuf
						want := func(iter int) *tbuf {
							w := newBuf(lay, rtotal)
							for p := 0; p < n; p++ {
								for k := 0; k < rcnt(p); k++ {
									vals := make([]int64, len(lay.offs))
									for j := range vals {
										vals[j] = a2aVal(iter, p, r, k, j)
									}
									w.set(int(rdispl[p])+k, vals)
								}
							}
							return w
						}
						return collCase{
							fill: func(iter int) {
								if sbuf == nil {
									sbuf, rbuf = newBuf(lay, stotal), newBuf(lay, rtotal)
								}
								sbuf.poison()
								for p := 0; p < n; p++ {
									for k := 0; k < scnt(p); k++ {
										vals := make([]int64, len(lay.offs))
										for j := range vals {
											vals[j] = a2aVal(iter, r, p, k, j)
										}
										sbuf.set(int(sdispl[p])+k, vals)
									}
								}
								rbuf.poison()
								if inPlace {
									copy(rbuf.v, sbuf.v)
								}
							},
							call: func(m CollMode) (*Request, error) {
								a := AlltoallArgs{Sbuf: sbuf.ptr(), Rbuf: rbuf.ptr()}
								switch f {
								case plain:
									a.Scount, a.St, a.Rcount, a.Rt = int64(count), lay.t, int64(count), lay.t
								case vform:
									a.Scounts, a.Sdispl, a.St = toInt(scnt), sdispl, lay.t
									a.Rcounts, a.Rdispl, a.Rt = toInt(rcnt), rdispl, lay.t
								case wform:
									bytes := func(d []int64) []int64 {
										out := make([]int64, len(d))
										for i, x := range d {
											out[i] = x * int64(lay.ext*8)
										}
										return out
									}
									ts := make([]*datatype.Type, n)
									for i := range ts {
										ts[i] = lay.t
									}
									a.Scounts, a.Sdispl, a.Sts = toInt(scnt), bytes(sdispl), ts
									a.Rcounts, a.Rdispl, a.Rts = toInt(rcnt), bytes(rdispl), ts
								}
								if inPlace {
									a.Sbuf, a.Scount, a.Scounts, a.Sdispl, a.St, a.Sts = InPlace, 0, nil, nil, nil, nil
								}
								return Alltoall(m, a, c)
							},
							check: func(iter int) error { return rbuf.equal(want(iter), "alltoall") },
						}
					})
				}
			}
		}
	}
}

func TestCollReduceScatter(t *testing.T) {
	var fl flipper
	for _, rc := range reduceCases(t) {
		for _, count := range []int{0, 1, 7, 100} { // n*100 longs still reach Rabenseifner
			for _, v := range []bool{false, true} {
				for _, inPlace := range fl.next() {
					name := fmt.Sprintf("%s/%s/count=%d/v=%v/inplace=%v", rc.o.name, rc.lay.name, count, v, inPlace)
					forWorlds(t, name, func(c *Comm) collCase {
						lay, o, n := rc.lay, rc.o, c.Size
						counts := make([]int64, n)
						for i := range counts {
							counts[i] = int64(count)
						}
						if v {
							counts = vcounts(n, count)
						}
						total, mine := 0, 0
						for i, x := range counts {
							if i < c.Rank {
								mine += int(x)
							}
							total += int(x)
						}
						var sbuf, rbuf *tbuf
						return collCase{
							fill: func(iter int) {
								in := o.contrib(lay, iter, c.Rank, total)
								if sbuf == nil {
									sbuf = in.like()
									rbuf = newBuf(lay, int(counts[c.Rank]))
									if inPlace {
										rbuf = in.like()
									}
								}
								copy(sbuf.v, in.v)
								rbuf.poison()
								if inPlace {
									copy(rbuf.v, in.v)
								}
							},
							call: func(m CollMode) (*Request, error) {
								sp := sbuf.ptr()
								if inPlace {
									sp = InPlace
								}
								if v {
									return ReduceScatter(m, sp, rbuf.ptr(), 0, counts, lay.t, o.op, c)
								}
								return ReduceScatter(m, sp, rbuf.ptr(), int64(count), nil, lay.t, o.op, c)
							},
							check: func(iter int) error {
								for k := 0; k < int(counts[c.Rank]); k++ {
									want := o.fold(iter, 0, n, mine+k, len(lay.offs))
									if got := rbuf.get(k); !slices.Equal(got, want) {
										return fmt.Errorf("reduce_scatter element %d: got %v, want %v", k, got, want)
									}
								}
								if !inPlace {
									return rbuf.equal(func() *tbuf {
										w := rbuf.like()
										for k := 0; k < int(counts[c.Rank]); k++ {
											w.set(k, o.fold(iter, 0, n, mine+k, len(lay.offs)))
										}
										return w
									}(), "reduce_scatter")
								}
								return nil
							},
						}
					})
				}
			}
		}
	}
}

func TestCollScan(t *testing.T) {
	var fl flipper
	for _, rc := range reduceCases(t) {
		for _, count := range testCounts {
			for _, exclusive := range []bool{false, true} {
				for _, inPlace := range fl.next() {
					name := fmt.Sprintf("%s/%s/count=%d/exclusive=%v/inplace=%v", rc.o.name, rc.lay.name, count, exclusive, inPlace)
					forWorlds(t, name, func(c *Comm) collCase {
						lay, o := rc.lay, rc.o
						var sbuf, rbuf *tbuf
						return collCase{
							fill: func(iter int) {
								in := o.contrib(lay, iter, c.Rank, count)
								if sbuf == nil {
									sbuf, rbuf = in.like(), in.like()
								}
								copy(sbuf.v, in.v)
								rbuf.poison()
								if inPlace {
									copy(rbuf.v, in.v)
								}
							},
							call: func(m CollMode) (*Request, error) {
								sp := sbuf.ptr()
								if inPlace {
									sp = InPlace
								}
								return Scan(m, sp, rbuf.ptr(), int64(count), lay.t, o.op, exclusive, c)
							},
							check: func(iter int) error {
								if err := sbuf.equal(o.contrib(lay, iter, c.Rank, count), "send buffer changed"); err != nil {
									return err
								}
								hi := c.Rank + 1
								if exclusive {
									if c.Rank == 0 {
										return nil // undefined at rank 0
									}
									hi = c.Rank
								}
								want := rbuf.like()
								for i := 0; i < count; i++ {
									want.set(i, o.fold(iter, 0, hi, i, len(lay.offs)))
								}
								return rbuf.equal(want, "scan")
							},
						}
					})
				}
			}
		}
	}
}

// Several nonblocking collectives and point-to-point messages outstanding on one
// communicator at once, completed in the reverse order of their start.
func TestCollOverlapped(t *testing.T) {
	long, _, mat, _ := layouts(t)
	for _, nc := range netCfgs {
		for n := 1; n <= 6; n++ {
			t.Run(fmt.Sprintf("%s/n=%d", nc.name, n), func(t *testing.T) {
				comms := world(n, nc.capacity, nc.maxPayload, nc.singleCopy)
				runRanks(t, comms, func(c *Comm) error {
					r, sum, mm := c.Rank, sumOp(), matOp(mat)
					const count = 40
					bc := newBuf(long, count)
					if r == n-1 {
						copy(bc.v, sum.contrib(long, 0, n-1, count).v)
					}
					ar := newBuf(long, count)
					sc := newBuf(mat, 3)
					ag := newBuf(long, n*count)
					ringOut := sum.contrib(long, 5, r, count)
					ringIn := newBuf(long, count)
					var reqs []*Request
					add := func(q *Request, err error) error {
						reqs = append(reqs, q)
						return err
					}
					mine := sum.contrib(long, 1, r, count)
					if err := firstErr(
						add(Irecv(ringIn.ptr(), count, long.t, (r-1+n)%n, 3, c)),
						add(Bcast(Nonblocking, bc.ptr(), count, long.t, n-1, c)),
						add(Allreduce(Nonblocking, mine.ptr(), ar.ptr(), count, long.t, sum.op, c)),
						add(Barrier(Nonblocking, c)),
						add(Scan(Nonblocking, mm.contrib(mat, 0, r, 3).ptr(), sc.ptr(), 3, mat.t, mm.op, false, c)),
						add(Allgather(Nonblocking, sum.contrib(long, 2, r, count).ptr(), count, long.t, ag.ptr(), count, nil, nil, long.t, c)),
						add(Isend(ringOut.ptr(), count, long.t, (r+1)%n, 3, c, ModeStandard)),
					); err != nil {
						return err
					}
					for i := len(reqs) - 1; i >= 0; i-- {
						if st := Wait(reqs[i]); st.Error != Success {
							return fmt.Errorf("request %d: error class %d", i, st.Error)
						}
					}
					check := []error{
						bc.equal(sum.contrib(long, 0, n-1, count), "bcast"),
						ringIn.equal(sum.contrib(long, 5, (r-1+n)%n, count), "ring"),
					}
					want := newBuf(long, count)
					for i := 0; i < count; i++ {
						want.set(i, sum.fold(1, 0, n, i, 1))
					}
					check = append(check, ar.equal(want, "allreduce"))
					wantScan := newBuf(mat, 3)
					for i := 0; i < 3; i++ {
						wantScan.set(i, mm.fold(0, 0, r+1, i, 4))
					}
					check = append(check, sc.equal(wantScan, "scan"))
					wantAg := newBuf(long, n*count)
					for i := 0; i < n; i++ {
						src := sum.contrib(long, 2, i, count)
						copy(wantAg.v[i*count:], src.v)
					}
					check = append(check, ag.equal(wantAg, "allgather"))
					return firstErr(check...)
				})
			})
		}
	}
}

func TestCollArgumentErrors(t *testing.T) {
	comms := world(2, 8, 64, false)
	c := comms[0]
	lt := longType(t)
	uncommitted, err := datatype.Contiguous(2, lt, false)
	require.NoError(t, err)
	sum := op.Predefined(op.Sum)
	b := make([]int64, 8)
	p := unsafe.Pointer(&b[0])
	tests := []struct {
		name string
		call func() (*Request, error)
		want int
	}{
		{"bcast root too large", func() (*Request, error) { return Bcast(Blocking, p, 1, lt, 2, c) }, ErrRoot},
		{"bcast negative root", func() (*Request, error) { return Bcast(Nonblocking, p, 1, lt, -1, c) }, ErrRoot},
		{"bcast negative count", func() (*Request, error) { return Bcast(Blocking, p, -1, lt, 0, c) }, ErrCount},
		{"bcast uncommitted", func() (*Request, error) { return Bcast(Persistent, p, 1, uncommitted, 0, c) }, ErrType},
		{"reduce null op", func() (*Request, error) { return Reduce(Blocking, p, p, 1, lt, nil, 0, c) }, ErrOp},
		{"allreduce null op", func() (*Request, error) { return Allreduce(Nonblocking, p, p, 1, lt, nil, c) }, ErrOp},
		{"reduce bad root", func() (*Request, error) { return Reduce(Blocking, p, p, 1, lt, sum, 9, c) }, ErrRoot},
		{"gather bad root", func() (*Request, error) {
			return Gather(Blocking, p, 1, lt, p, 1, nil, nil, lt, -3, c)
		}, ErrRoot},
		{"scatterv negative count", func() (*Request, error) {
			return Scatter(Blocking, p, 0, []int64{1, -1}, []int64{0, 1}, lt, p, 1, lt, 0, c)
		}, ErrCount},
		{"allgather uncommitted", func() (*Request, error) {
			return Allgather(Blocking, p, 1, uncommitted, p, 1, nil, nil, lt, c)
		}, ErrType},
		{"alltoall negative count", func() (*Request, error) {
			return Alltoall(Blocking, AlltoallArgs{Sbuf: p, Scount: -1, St: lt, Rbuf: p, Rcount: 1, Rt: lt}, c)
		}, ErrCount},
		{"reduce_scatter null op", func() (*Request, error) {
			return ReduceScatter(Blocking, p, p, 1, nil, lt, nil, c)
		}, ErrOp},
		{"scan null op", func() (*Request, error) { return Scan(Blocking, p, p, 1, lt, nil, false, c) }, ErrOp},
		{"allreduce into MPI_IN_PLACE", func() (*Request, error) { return Allreduce(Blocking, p, InPlace, 1, lt, sum, c) }, ErrBuffer},
		{"allreduce aliased", func() (*Request, error) { return Allreduce(Blocking, p, p, 1, lt, sum, c) }, ErrBuffer},
		{"reduce in place at a non-root", func() (*Request, error) { return Reduce(Blocking, InPlace, p, 1, lt, sum, 1, c) }, ErrBuffer},
		{"gather in place at a non-root", func() (*Request, error) {
			return Gather(Blocking, InPlace, 1, lt, p, 1, nil, nil, lt, 1, c)
		}, ErrBuffer},
		{"scatter in place at a non-root", func() (*Request, error) {
			return Scatter(Blocking, p, 1, nil, nil, lt, InPlace, 1, lt, 1, c)
		}, ErrBuffer},
		{"scan aliased", func() (*Request, error) { return Scan(Nonblocking, p, p, 2, lt, sum, true, c) }, ErrBuffer},
		{"sum on a pair type", func() (*Request, error) {
			pair, _ := datatype.Lookup(0x4c000816) // MPI_2INT
			return Allreduce(Blocking, p, p, 1, pair, sum, c)
		}, ErrOp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.call()
			require.Error(t, err)
			require.Nil(t, r)
			require.Equal(t, tc.want, AsError(err).Class, "%v", err)
		})
	}
}

// TestCollIgnoredArguments: what the standard makes insignificant is not checked, so
// invalid values there (a count of -1, no datatype) pass: the root's send side of a
// gather in place, a gather's receive side off the root, a scatter's mirror images,
// and the send side of an allgather or all-to-all in place.
func TestCollIgnoredArguments(t *testing.T) {
	lt := longType(t)
	comms := world(2, 8, 64, false)
	runRanks(t, comms, func(c *Comm) error {
		b := make([]int64, 4)
		for i := range b {
			b[i] = int64(10*c.Rank + i)
		}
		p := unsafe.Pointer(&b[0])
		root := c.Rank == 0
		steps := []struct {
			name string
			call func() (*Request, error)
		}{
			{"gather", func() (*Request, error) {
				if root {
					return Gather(Blocking, InPlace, -1, nil, p, 1, nil, nil, lt, 0, c)
				}
				return Gather(Blocking, p, 1, lt, nil, -1, nil, nil, nil, 0, c)
			}},
			{"scatter", func() (*Request, error) {
				if root {
					return Scatter(Blocking, p, 1, nil, nil, lt, InPlace, -1, nil, 0, c)
				}
				return Scatter(Blocking, nil, -1, nil, nil, nil, p, 1, lt, 0, c)
			}},
			{"allgather", func() (*Request, error) {
				return Allgather(Blocking, InPlace, -1, nil, p, 1, nil, nil, lt, c)
			}},
			{"alltoall", func() (*Request, error) {
				return Alltoall(Blocking, AlltoallArgs{Sbuf: InPlace, Scount: -1, Rbuf: p, Rcount: 1, Rt: lt}, c)
			}},
		}
		for _, s := range steps {
			if _, err := s.call(); err != nil {
				return fmt.Errorf("%s with ignored invalid arguments: %w", s.name, err)
			}
		}
		return nil
	})
}
