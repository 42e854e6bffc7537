package core

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"mpix/core/datatype"
	"mpix/core/op"
)

// Intercommunicator collectives over the in-memory transport: each "process" runs in
// its own goroutine with its side of an intercommunicator built directly from two
// groups, runs every collective in all three forms (persistent ones started twice
// with different data), with the root in either group, and compares what it got with
// values computed from the other group's world ranks.

// interSplits says, for each test world, which world ranks form group A.
var interSplits = []struct {
	name string
	inA  []bool
}{
	{"1+1", []bool{true, false}},
	{"2+1 interleaved", []bool{true, false, true}},
	{"1+3", []bool{false, true, false, false}},
	{"3+2", []bool{true, true, true, false, false}},
}

// interWorld builds, over n in-memory engines, one intercommunicator per process.
func interWorld(inA []bool, capacity, maxPayload int, singleCopy bool) []*Comm {
	n := len(inA)
	ws := world(n, capacity, maxPayload, singleCopy)
	var a, b []int
	for w, x := range inA {
		if x {
			a = append(a, w)
		} else {
			b = append(b, w)
		}
	}
	out := make([]*Comm, n)
	for w := range ws {
		local, remote := a, b
		if !inA[w] {
			local, remote = b, a
		}
		lg := NewGroup(local)
		out[w] = newComm(1000, 1000, lg.RankOfWorld(w), lg, NewGroup(remote), ws[w].eng, nil)
	}
	return out
}

// The C boundary sets MPI_IN_PLACE's address; these tests need some non-nil address.
var interInPlaceMark byte

func init() {
	if InPlace == nil {
		InPlace = unsafe.Pointer(&interInPlaceMark)
	}
}

// interPoison fills buffers before a call, so writes where none belong show up.
const interPoison = int64(-0x3c3c3c3c3c3c3c3d)

func interLong(t testing.TB) *datatype.Type {
	lt, err := datatype.Lookup(0x4c000807) // MPI_LONG
	require.NoError(t, err)
	return lt
}

// interNets: small payloads and queues make most messages rendezvous and fill queues;
// the other configuration moves large ones by single copy.
var interNets = []struct {
	name                 string
	capacity, maxPayload int
	singleCopy           bool
}{
	{"pipelined", 4, 64, false},
	{"single copy", 64, 256, true},
}

// runInter runs body at every process concurrently and fails if any returns an error
// or they do not all return in time (a schedule that deadlocks).
func runInter(t *testing.T, comms []*Comm, body func(c *Comm) error) {
	t.Helper()
	errs := make(chan error, len(comms))
	for _, c := range comms {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					errs <- fmt.Errorf("world rank %d panicked: %v", worldOf(c), p)
				}
			}()
			if err := body(c); err != nil {
				errs <- fmt.Errorf("world rank %d: %w", worldOf(c), err)
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
			t.Fatal("collective did not complete at every process (deadlock?)")
		}
	}
}

func worldOf(c *Comm) int { return c.group.ranks[c.Rank] }

// ival is world rank w's element i at iteration iter.
func ival(iter, w, i int) int64 { return int64(iter*100003 + w*1009 + i*7 + 1) }

// affine is x -> m*x + c on pairs (m, c): associative, not commutative, so a result
// reduced in the wrong rank order differs. in op inout = "apply in, then inout".
type affine struct{}

func (affine) Commutative() bool            { return false }
func (affine) Check(t *datatype.Type) error { return nil }
func (affine) Apply(in, inout unsafe.Pointer, count int64, t *datatype.Type) error {
	a := unsafe.Slice((*int64)(in), 2*count)
	b := unsafe.Slice((*int64)(inout), 2*count)
	for i := int64(0); i < count; i++ {
		am, ac, bm, bc := a[2*i], a[2*i+1], b[2*i], b[2*i+1]
		b[2*i], b[2*i+1] = am*bm, ac*bm+bc
	}
	return nil
}

// interOp is a reduction with its element type, operand values and serial fold.
type interOp struct {
	name  string
	op    Reducer
	t     *datatype.Type
	width int // int64 words per element
	val   func(iter, w, i int) []int64
	fold  func(acc, x []int64) []int64
}

func interOps(t *testing.T) []interOp {
	lt := interLong(t)
	pair, err := datatype.Contiguous(2, lt, false)
	require.NoError(t, err)
	pair.Commit()
	return []interOp{
		{"sum", op.Predefined(op.Sum), lt, 1,
			func(iter, w, i int) []int64 { return []int64{ival(iter, w, i)} },
			func(acc, x []int64) []int64 { return []int64{acc[0] + x[0]} }},
		{"affine", affine{}, pair, 2,
			func(iter, w, i int) []int64 { return []int64{int64((iter+w+i)%3 + 1), ival(iter, w, i) % 97} },
			func(acc, x []int64) []int64 { return []int64{acc[0] * x[0], acc[1]*x[0] + x[1]} }},
	}
}

// reference folds element i over the given world ranks in order.
func (o interOp) reference(iter int, ranks []int, i int) []int64 {
	acc := o.val(iter, ranks[0], i)
	for _, w := range ranks[1:] {
		acc = o.fold(acc, o.val(iter, w, i))
	}
	return acc
}

type interCase struct {
	name  string
	fill  func(iter int)
	call  func(m CollMode) (*Request, error)
	check func(iter int) error
}

// interDrive runs one case in every form at one process.
func interDrive(cc interCase) error {
	for _, m := range []CollMode{Blocking, Nonblocking, Persistent} {
		iters := []int{0}
		var r *Request
		var err error
		if m == Persistent {
			iters = []int{1, 2}
			if r, err = cc.call(m); err != nil {
				return fmt.Errorf("%s persistent init: %w", cc.name, err)
			}
		}
		for _, iter := range iters {
			cc.fill(iter)
			switch m {
			case Blocking:
				_, err = cc.call(m)
			case Nonblocking:
				if r, err = cc.call(m); err == nil {
					if st := Wait(r); st.Error != Success {
						err = fmt.Errorf("error class %d", st.Error)
					}
				}
			case Persistent:
				if err = Start(r); err == nil {
					if st := Wait(r); st.Error != Success {
						err = fmt.Errorf("error class %d", st.Error)
					}
				}
			}
			if err == nil {
				err = cc.check(iter)
			}
			if err != nil {
				return fmt.Errorf("%s (mode %d, iteration %d): %w", cc.name, m, iter, err)
			}
		}
		if m == Persistent {
			r.Free()
		}
	}
	return nil
}

func longs(n int) []int64 {
	v := make([]int64, max(1, n))
	for i := range v {
		v[i] = interPoison
	}
	return v
}

func lp(v []int64) unsafe.Pointer { return unsafe.Pointer(&v[0]) }

func wantEq(got, want []int64, what string) error {
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s: word %d is %d, want %d", what, i, got[i], want[i])
		}
	}
	return nil
}

// rootArg is what process c passes as root when the root is local rank rootLocal of
// group A (rootInA) or B.
func rootArg(c *Comm, inA, rootInA bool, rootLocal int) int {
	if inA != rootInA {
		return rootLocal
	}
	if c.Rank == rootLocal {
		return Root
	}
	return ProcNull
}

// interCases lists every collective case for process c (in group A when inA).
func interCases(t *testing.T, c *Comm, inA bool) []interCase {
	lt := interLong(t)
	me, local, remote := worldOf(c), c.group.ranks, c.remote.ranks
	n, m := len(local), len(remote)
	var cases []interCase
	// Roots: the last process of A and the first of B.
	type rootSpec struct {
		inA   bool
		local int
	}
	sizeA := n
	if !inA {
		sizeA = m
	}
	roots := []rootSpec{{true, sizeA - 1}, {false, 0}}
	for _, rs := range roots {
		root := rootArg(c, inA, rs.inA, rs.local)
		rootGroup := local
		if inA != rs.inA {
			rootGroup = remote
		}
		rootWorld := rootGroup[rs.local]
		tag := fmt.Sprintf("root %d of group A=%v", rs.local, rs.inA)

		const cnt = 5
		bbuf := longs(cnt)
		cases = append(cases, interCase{"bcast " + tag,
			func(iter int) {
				for i := range bbuf {
					bbuf[i] = interPoison
					if root == Root {
						bbuf[i] = ival(iter, me, i)
					}
				}
			},
			func(md CollMode) (*Request, error) { return Bcast(md, lp(bbuf), cnt, lt, root, c) },
			func(iter int) error {
				if root < 0 {
					return nil
				}
				want := make([]int64, cnt)
				for i := range want {
					want[i] = ival(iter, rootWorld, i)
				}
				return wantEq(bbuf, want, "bcast")
			}})

		for _, o := range interOps(t) {
			sb, rb := longs(cnt*o.width), longs(cnt*o.width)
			cases = append(cases, interCase{"reduce " + o.name + " " + tag,
				func(iter int) {
					for i := 0; i < cnt; i++ {
						copy(sb[i*o.width:], o.val(iter, me, i))
					}
					copy(rb, longs(len(rb)))
				},
				func(md CollMode) (*Request, error) { return Reduce(md, lp(sb), lp(rb), cnt, o.t, o.op, root, c) },
				func(iter int) error {
					if root != Root {
						return wantEq(rb, longs(len(rb)), "reduce left a non-root's buffer alone")
					}
					for i := 0; i < cnt; i++ {
						if err := wantEq(rb[i*o.width:], o.reference(iter, remote, i), fmt.Sprintf("reduce element %d", i)); err != nil {
							return err
						}
					}
					return nil
				}})
		}

		// Gather(v): remote process j contributes j+1 (v) or 3 elements.
		for _, v := range []bool{false, true} {
			name := "gather"
			if v {
				name = "gatherv"
			}
			var counts, displs []int64
			total := 0
			if root == Root {
				counts, displs = make([]int64, m), make([]int64, m)
				for j := range counts {
					counts[j] = 3
					if v {
						counts[j] = int64(j + 1)
					}
					displs[j] = int64(total)
					total += int(counts[j]) + 1 // a one-element gap
				}
				if !v {
					counts, displs = nil, nil
					total = 3 * m
				}
			}
			scount := 3
			if v && root >= 0 {
				scount = c.Rank + 1
			}
			sb, rb := longs(scount), longs(total)
			cases = append(cases, interCase{name + " " + tag,
				func(iter int) {
					for i := 0; i < scount; i++ {
						sb[i] = ival(iter, me, i)
					}
					copy(rb, longs(len(rb)))
				},
				func(md CollMode) (*Request, error) {
					return Gather(md, lp(sb), int64(scount), lt, lp(rb), 3, counts, displs, lt, root, c)
				},
				func(iter int) error {
					if root != Root {
						return nil
					}
					want := longs(total)
					for j, w := range remote {
						off, k := 3*j, 3
						if v {
							off, k = int(displs[j]), int(counts[j])
						}
						for i := 0; i < k; i++ {
							want[off+i] = ival(iter, w, i)
						}
					}
					return wantEq(rb, want, name)
				}})
		}

		// Scatter(v): the root sends remote process j its block (j+2 elements for v).
		for _, v := range []bool{false, true} {
			name := "scatter"
			if v {
				name = "scatterv"
			}
			var counts, displs []int64
			total := 0
			if root == Root {
				counts, displs = make([]int64, m), make([]int64, m)
				for j := range counts {
					counts[j] = 2
					if v {
						counts[j] = int64(j + 2)
					}
					displs[j] = int64(total)
					total += int(counts[j]) + 2
				}
				if !v {
					counts, displs = nil, nil
					total = 2 * m
				}
			}
			rcount := 2
			if v && root >= 0 {
				rcount = c.Rank + 2
			}
			sb, rb := longs(total), longs(rcount)
			cases = append(cases, interCase{name + " " + tag,
				func(iter int) {
					for j, w := range remote {
						if root != Root {
							break
						}
						off, k := 2*j, 2
						if v {
							off, k = int(displs[j]), int(counts[j])
						}
						for i := 0; i < k; i++ {
							sb[off+i] = ival(iter, w, i)
						}
					}
					copy(rb, longs(len(rb)))
				},
				func(md CollMode) (*Request, error) {
					return Scatter(md, lp(sb), 2, counts, displs, lt, lp(rb), int64(rcount), lt, root, c)
				},
				func(iter int) error {
					if root < 0 {
						return nil
					}
					want := make([]int64, rcount)
					for i := range want {
						want[i] = ival(iter, me, i)
					}
					return wantEq(rb, want, name)
				}})
		}
	}

	for _, o := range interOps(t) {
		const cnt = 4
		sb, rb := longs(cnt*o.width), longs(cnt*o.width)
		cases = append(cases, interCase{"allreduce " + o.name,
			func(iter int) {
				for i := 0; i < cnt; i++ {
					copy(sb[i*o.width:], o.val(iter, me, i))
				}
				copy(rb, longs(len(rb)))
			},
			func(md CollMode) (*Request, error) { return Allreduce(md, lp(sb), lp(rb), cnt, o.t, o.op, c) },
			func(iter int) error {
				for i := 0; i < cnt; i++ {
					if err := wantEq(rb[i*o.width:], o.reference(iter, remote, i), fmt.Sprintf("allreduce element %d", i)); err != nil {
						return err
					}
				}
				return nil
			}})

		// Reduce_scatter(_block): both groups reduce vectors of nA*nB elements; block
		// gives each local process the same share, v an uneven one.
		total := n * m
		for _, v := range []bool{false, true} {
			name := "reduce_scatter_block " + o.name
			var counts []int64
			if v {
				name = "reduce_scatter " + o.name
				counts = make([]int64, n)
				for i := range counts {
					counts[i] = int64(m)
					if i%2 == 0 && i+1 < n {
						counts[i]++
					} else if i%2 == 1 {
						counts[i]--
					}
				}
			}
			mine, off := m, 0
			if v {
				mine = int(counts[c.Rank])
				for i := 0; i < c.Rank; i++ {
					off += int(counts[i])
				}
			} else {
				off = c.Rank * m
			}
			sb, rb := longs(total*o.width), longs(mine*o.width)
			cases = append(cases, interCase{name,
				func(iter int) {
					for i := 0; i < total; i++ {
						copy(sb[i*o.width:], o.val(iter, me, i))
					}
					copy(rb, longs(len(rb)))
				},
				func(md CollMode) (*Request, error) {
					return ReduceScatter(md, lp(sb), lp(rb), int64(m), counts, o.t, o.op, c)
				},
				func(iter int) error {
					for i := 0; i < mine; i++ {
						if err := wantEq(rb[i*o.width:], o.reference(iter, remote, off+i), fmt.Sprintf("%s element %d", name, i)); err != nil {
							return err
						}
					}
					return nil
				}})
		}
	}

	// Allgather(v): world rank w contributes w%3+1 elements (v) or 2.
	for _, v := range []bool{false, true} {
		name := "allgather"
		scount := 2
		var counts, displs []int64
		total := 2 * m
		if v {
			name = "allgatherv"
			scount = me%3 + 1
			counts, displs = make([]int64, m), make([]int64, m)
			total = 0
			for j, w := range remote {
				counts[j], displs[j] = int64(w%3+1), int64(total+1)
				total += int(counts[j]) + 1
			}
		}
		sb, rb := longs(scount), longs(total)
		cases = append(cases, interCase{name,
			func(iter int) {
				for i := 0; i < scount; i++ {
					sb[i] = ival(iter, me, i)
				}
				copy(rb, longs(len(rb)))
			},
			func(md CollMode) (*Request, error) {
				return Allgather(md, lp(sb), int64(scount), lt, lp(rb), 2, counts, displs, lt, c)
			},
			func(iter int) error {
				want := longs(total)
				for j, w := range remote {
					off, k := 2*j, 2
					if v {
						off, k = int(displs[j]), int(counts[j])
					}
					for i := 0; i < k; i++ {
						want[off+i] = ival(iter, w, i)
					}
				}
				return wantEq(rb, want, name)
			}})
	}

	// Alltoall(v/w): the block from world rank s to world rank d has (s+d)%3+1
	// elements (v, w) or 2, valued a2a(s, d, k).
	a2a := func(iter, s, d, k int) int64 { return int64(iter*7919 + s*101 + d*13 + k) }
	for _, form := range []string{"alltoall", "alltoallv", "alltoallw"} {
		size := func(s, d int) int {
			if form == "alltoall" {
				return 2
			}
			return (s+d)%3 + 1
		}
		var scounts, sdispl, rcounts, rdispl []int64
		var sts, rts []*datatype.Type
		stot, rtot := 0, 0
		for _, w := range remote {
			scounts, sdispl = append(scounts, int64(size(me, w))), append(sdispl, int64(stot))
			rcounts, rdispl = append(rcounts, int64(size(w, me))), append(rdispl, int64(rtot+1))
			stot += size(me, w)
			rtot += size(w, me) + 1
			sts, rts = append(sts, lt), append(rts, lt)
		}
		a := AlltoallArgs{St: lt, Rt: lt}
		switch form {
		case "alltoall":
			a.Scount, a.Rcount = 2, 2
			stot, rtot = 2*m, 2*m
		case "alltoallv":
			a.Scounts, a.Sdispl, a.Rcounts, a.Rdispl = scounts, sdispl, rcounts, rdispl
		case "alltoallw":
			a.Scounts, a.Rcounts, a.Sts, a.Rts = scounts, rcounts, sts, rts
			for j := range remote {
				sdispl[j] *= 8
				rdispl[j] *= 8
			}
			a.Sdispl, a.Rdispl = sdispl, rdispl
		}
		sb, rb := longs(stot), longs(rtot)
		a.Sbuf, a.Rbuf = lp(sb), lp(rb)
		unit := int64(1)
		if form == "alltoallw" {
			unit = 8
		}
		cases = append(cases, interCase{form,
			func(iter int) {
				for j, w := range remote {
					off := 2 * j
					if form != "alltoall" {
						off = int(sdispl[j] / unit)
					}
					for k := 0; k < size(me, w); k++ {
						sb[off+k] = a2a(iter, me, w, k)
					}
				}
				copy(rb, longs(len(rb)))
			},
			func(md CollMode) (*Request, error) { return Alltoall(md, a, c) },
			func(iter int) error {
				want := longs(rtot)
				for j, w := range remote {
					off := 2 * j
					if form != "alltoall" {
						off = int(rdispl[j] / unit)
					}
					for k := 0; k < size(w, me); k++ {
						want[off+k] = a2a(iter, w, me, k)
					}
				}
				return wantEq(rb, want, form)
			}})
	}

	cases = append(cases, interCase{"barrier", func(int) {},
		func(md CollMode) (*Request, error) { return Barrier(md, c) },
		func(int) error { return nil }})
	return cases
}

func TestInterColl(t *testing.T) {
	for _, nc := range interNets {
		for _, sp := range interSplits {
			t.Run(nc.name+"/"+sp.name, func(t *testing.T) {
				comms := interWorld(sp.inA, nc.capacity, nc.maxPayload, nc.singleCopy)
				runInter(t, comms, func(c *Comm) error {
					for _, cc := range interCases(t, c, sp.inA[worldOf(c)]) {
						if err := interDrive(cc); err != nil {
							return err
						}
					}
					return nil
				})
			})
		}
	}
}

// TestInterBarrierSynchronizes: no process of one group leaves the barrier before
// every process of the other group has entered it.
func TestInterBarrierSynchronizes(t *testing.T) {
	inA := []bool{true, false, true, false, false}
	comms := interWorld(inA, 64, 256, true)
	var entered [2]atomic.Int32
	size := [2]int32{2, 3}
	runInter(t, comms, func(c *Comm) error {
		g := 0
		if !inA[worldOf(c)] {
			g = 1
		}
		time.Sleep(time.Duration(worldOf(c)*5) * time.Millisecond)
		entered[g].Add(1)
		if _, err := Barrier(Blocking, c); err != nil {
			return err
		}
		if got := entered[1-g].Load(); got != size[1-g] {
			return fmt.Errorf("left the barrier when %d of the other group's %d had entered", got, size[1-g])
		}
		return nil
	})
}

func TestInterCollErrors(t *testing.T) {
	lt := interLong(t)
	c := interWorld([]bool{true, false, false}, 64, 256, true)[0] // local size 1, remote 2
	sum := op.Predefined(op.Sum)
	buf := longs(8)
	cases := []struct {
		name string
		call func() (*Request, error)
		want int
	}{
		{"scan", func() (*Request, error) { return Scan(Blocking, lp(buf), lp(buf), 1, lt, sum, false, c) }, ErrComm},
		{"exscan", func() (*Request, error) { return Scan(Nonblocking, lp(buf), lp(buf), 1, lt, sum, true, c) }, ErrComm},
		{"allreduce in place", func() (*Request, error) { return Allreduce(Blocking, InPlace, lp(buf), 1, lt, sum, c) }, ErrBuffer},
		{"allgather in place", func() (*Request, error) {
			return Allgather(Blocking, InPlace, 1, lt, lp(buf), 1, nil, nil, lt, c)
		}, ErrBuffer},
		{"alltoall in place", func() (*Request, error) {
			return Alltoall(Blocking, AlltoallArgs{Sbuf: InPlace, Rbuf: lp(buf), Rcount: 1, Rt: lt}, c)
		}, ErrBuffer},
		{"reduce in place", func() (*Request, error) { return Reduce(Blocking, InPlace, lp(buf), 1, lt, sum, 0, c) }, ErrBuffer},
		{"gather root out of the remote group", func() (*Request, error) {
			return Gather(Blocking, lp(buf), 1, lt, lp(buf), 1, nil, nil, lt, 2, c)
		}, ErrRoot},
		{"bcast root as a local rank", func() (*Request, error) { return Bcast(Blocking, lp(buf), 1, lt, -7, c) }, ErrRoot},
		{"reduce no op", func() (*Request, error) { return Reduce(Blocking, lp(buf), lp(buf), 1, lt, nil, Root, c) }, ErrOp},
		{"reduce_scatter counts of the remote size", func() (*Request, error) {
			return ReduceScatter(Blocking, lp(buf), lp(buf), 0, []int64{1, 1}, lt, sum, c)
		}, ErrArg},
		{"gatherv counts of the wrong length", func() (*Request, error) {
			return Gather(Persistent, lp(buf), 1, lt, lp(buf), 0, []int64{1}, []int64{0}, lt, Root, c)
		}, ErrArg},
		{"negative count", func() (*Request, error) { return Allreduce(Blocking, lp(buf), lp(buf), -1, lt, sum, c) }, ErrCount},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.call()
			require.Error(t, err)
			require.Equal(t, tc.want, AsError(err).Class, "%v", err)
		})
	}
}

// TestSpliceOn: stages spliced from a sub-schedule keep their order and view, and
// what follows waits for them.
func TestSpliceOn(t *testing.T) {
	c := interWorld([]bool{true, false}, 64, 256, true)[0]
	s := newSchedule(c.coll, -5)
	bt := byteType()
	s.send(0, nil, 0, bt)
	s.spliceOn(c.localComm.coll, func(sub *schedule) {
		sub.recv(0, nil, 0, bt)
		sub.next()
		sub.send(0, nil, 0, bt)
	})
	s.recv(0, nil, 0, bt)
	var views []*Comm
	for _, st := range s.stages {
		for _, x := range st.xfers {
			views = append(views, x.on)
		}
	}
	require.Equal(t, []*Comm{nil, c.localComm.coll, c.localComm.coll, nil}, views)
	nonEmpty := 0
	for _, st := range s.stages {
		if len(st.xfers) > 0 {
			require.Len(t, st.xfers, 1, "spliced transfers must not share a stage with others")
			nonEmpty++
		}
	}
	require.Equal(t, 4, nonEmpty)
}
