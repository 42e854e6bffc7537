package rma

import (
	"bytes"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
)

// Buf is one side of an operation: count elements of a datatype at an address.
type Buf struct {
	Ptr   unsafe.Pointer
	Count int64
	Type  *datatype.Type
}

func (b Buf) bytes() int64 { return b.Count * b.Type.Size() }

// packed returns b's data as one contiguous slice: its memory when contiguous, else a
// packed copy.
func (b Buf) packed() []byte {
	n := b.bytes()
	if n == 0 {
		return nil
	}
	if b.Type.Contiguous() {
		return unsafe.Slice((*byte)(unsafe.Add(b.Ptr, b.Type.TrueLB())), n)
	}
	out := make([]byte, n)
	datatype.Pack(out, b.Ptr, b.Count, b.Type, 0)
	return out
}

// into returns where to receive b's data contiguously, and a function that moves it
// into b's memory afterwards (nothing when b is contiguous).
func (b Buf) into() ([]byte, func()) {
	n := b.bytes()
	if n == 0 {
		return nil, func() {}
	}
	if b.Type.Contiguous() {
		return unsafe.Slice((*byte)(unsafe.Add(b.Ptr, b.Type.TrueLB())), n), func() {}
	}
	tmp := make([]byte, n)
	return tmp, func() { datatype.Unpack(tmp, b.Ptr, b.Count, b.Type, 0) }
}

// Target names the memory an operation reaches: count elements of a datatype at a
// displacement in a rank's window.
type Target struct {
	Rank  int
	Disp  int64
	Count int64
	Type  *datatype.Type
}

// begin checks what every operation needs: the rank, an access epoch that covers it,
// matching type signatures. It returns nil for MPI_PROC_NULL (nothing to do).
func (w *Win) begin(t Target, originBytes int64, what string) (*target, error) {
	if t.Rank == core.ProcNull {
		return nil, nil
	}
	if t.Rank < 0 || t.Rank >= len(w.targets) {
		return nil, core.Errorf(core.ErrRank, "%s: rank %d is not in the window's group of %d", what, t.Rank, len(w.targets))
	}
	if err := w.canAccess(t.Rank); err != nil {
		return nil, err
	}
	if tb := t.Count * t.Type.Size(); tb != originBytes {
		return nil, core.Errorf(core.ErrType, "%s: the origin has %d bytes and the target %d: the type signatures differ", what, originBytes, tb)
	}
	return &w.targets[t.Rank], nil
}

// checkRequestEpoch refuses the request-based operations outside a passive-target
// epoch (MPI-4.1 §12.3.5: MPI_Rput and friends only within lock or lock_all).
func (w *Win) checkRequestEpoch(rank int, wantReq bool, what string) error {
	if !wantReq || rank == core.ProcNull {
		return nil
	}
	return w.passive(rank, what)
}

// done returns the request of a request-based operation that is already complete.
func (w *Win) done(wantReq bool) *core.Request {
	if !wantReq {
		return nil
	}
	r := core.NewOpRequest(w.comm.Engine())
	r.Finish(0)
	return r
}

// prepare is what Put and Get (and their request forms, named by reqWhat) check
// first: the epoch, the rank, the signatures and the target runs. tg is nil for
// MPI_PROC_NULL, which has nothing to do.
func (w *Win) prepare(o Buf, t Target, wantReq bool, what, reqWhat string, buf []run) (*target, []run, where, error) {
	if err := w.checkRequestEpoch(t.Rank, wantReq, reqWhat); err != nil {
		return nil, nil, where{}, err
	}
	tg, err := w.begin(t, o.bytes(), what)
	if tg == nil || err != nil {
		return nil, nil, where{}, err
	}
	runs, at, err := w.targetRuns(tg, t.Disp, t.Count, t.Type, buf)
	if err != nil {
		return nil, nil, where{}, err
	}
	return tg, runs, at, nil
}

// Put is MPI_Put (and MPI_Rput when wantReq).
func (w *Win) Put(o Buf, t Target, wantReq bool) (*core.Request, error) {
	var rb [8]run
	tg, runs, at, err := w.prepare(o, t, wantReq, "MPI_Put", "MPI_Rput", rb[:])
	if tg == nil || err != nil {
		return w.done(wantReq && err == nil), err
	}
	if tg.how == reachAM {
		if w.viaNet(tg, runs) {
			return w.netPut(tg, runs, o.packed(), wantReq)
		}
		return w.amPut(tg, runs, o.packed(), wantReq)
	}
	if err := at.scatter(runs, o.packed()); err != nil {
		return nil, err
	}
	return w.done(wantReq), nil
}

// Get is MPI_Get (and MPI_Rget).
func (w *Win) Get(o Buf, t Target, wantReq bool) (*core.Request, error) {
	var rb [8]run
	tg, runs, at, err := w.prepare(o, t, wantReq, "MPI_Get", "MPI_Rget", rb[:])
	if tg == nil || err != nil {
		return w.done(wantReq && err == nil), err
	}
	if tg.how == reachAM {
		if w.viaNet(tg, runs) {
			return w.netGet(tg, runs, o, wantReq)
		}
		return w.amGet(tg, runs, o, wantReq)
	}
	dst, finish := o.into()
	if err := at.gather(runs, dst); err != nil {
		return nil, err
	}
	finish()
	return w.done(wantReq), nil
}

// checkAccOp checks an accumulate's op and types: a predefined op (or MPI_REPLACE,
// MPI_NO_OP) and datatypes made of one predefined type, the same at both ends. It
// returns that predefined type.
func checkAccOp(o *op.Op, origin, tt *datatype.Type, what string) (*datatype.Type, error) {
	if o.Kind() == op.User {
		return nil, core.Errorf(core.ErrOp, "%s takes only predefined operations, not one from MPI_Op_create", what)
	}
	basic, err := o.Basic(tt)
	if err != nil {
		return nil, err
	}
	if origin != nil && origin.Size() > 0 && basic != nil {
		ob, err := o.Basic(origin)
		if err != nil {
			return nil, err
		}
		if ob != nil && !op.SameElements(ob, basic) {
			return nil, core.Errorf(core.ErrType, "%s: origin elements are %s and target elements %s", what, ob.Name(), basic.Name())
		}
	}
	return basic, nil
}

// combine computes tgt = in op tgt on n elements of basic, both packed.
func combine(o *op.Op, in, tgt []byte, n int64, basic *datatype.Type) error {
	switch o.Kind() {
	case op.NoOp:
		return nil
	case op.Replace:
		copy(tgt, in)
		return nil
	}
	if n == 0 {
		return nil
	}
	if basic.Extent() == basic.Size() {
		return o.Apply(unsafe.Pointer(&in[0]), unsafe.Pointer(&tgt[0]), n, basic)
	}
	// A pair type with padding (MPI_DOUBLE_INT): the kernels take the C layout.
	mi, mt := make([]byte, n*basic.Extent()), make([]byte, n*basic.Extent())
	datatype.Unpack(in, unsafe.Pointer(&mi[0]), n, basic, 0)
	datatype.Unpack(tgt, unsafe.Pointer(&mt[0]), n, basic, 0)
	if err := o.Apply(unsafe.Pointer(&mi[0]), unsafe.Pointer(&mt[0]), n, basic); err != nil {
		return err
	}
	datatype.Pack(tgt, unsafe.Pointer(&mt[0]), n, basic, 0)
	return nil
}

// Accumulate is MPI_Accumulate (and MPI_Raccumulate).
func (w *Win) Accumulate(o Buf, t Target, opr *op.Op, wantReq bool) (*core.Request, error) {
	return w.accumulate(o, Buf{}, t, opr, wantReq, "MPI_Accumulate")
}

// GetAccumulate is MPI_Get_accumulate (and MPI_Rget_accumulate, MPI_Fetch_and_op):
// result receives the target's data from before the operation.
func (w *Win) GetAccumulate(o, result Buf, t Target, opr *op.Op, wantReq bool) (*core.Request, error) {
	return w.accumulate(o, result, t, opr, wantReq, "MPI_Get_accumulate")
}

func (w *Win) accumulate(o, result Buf, t Target, opr *op.Op, wantReq bool, what string) (*core.Request, error) {
	fetch := result.Type != nil
	if err := w.checkRequestEpoch(t.Rank, wantReq, what); err != nil {
		return nil, err
	}
	if !fetch && opr.Kind() == op.NoOp {
		return nil, core.Errorf(core.ErrOp, "MPI_Accumulate does not take MPI_NO_OP (only the fetching accumulates do)")
	}
	var ob int64
	switch {
	case opr.Kind() == op.NoOp && fetch:
		ob = result.bytes()
	default:
		ob = o.bytes()
	}
	if fetch && result.bytes() != t.Count*t.Type.Size() {
		return nil, core.Errorf(core.ErrType, "%s: the result buffer has %d bytes and the target %d", what, result.bytes(), t.Count*t.Type.Size())
	}
	var ot *datatype.Type
	if opr.Kind() != op.NoOp {
		ot = o.Type
	}
	basic, err := checkAccOp(opr, ot, t.Type, what)
	if err != nil {
		return nil, err
	}
	tg, err := w.begin(t, ob, what)
	if tg == nil || err != nil {
		return w.done(wantReq && err == nil), err
	}
	var rb [8]run
	runs, at, err := w.targetRuns(tg, t.Disp, t.Count, t.Type, rb[:])
	if err != nil {
		return nil, err
	}
	var in []byte
	if opr.Kind() != op.NoOp {
		in = o.packed()
	}
	if tg.how == reachAM || at.viaAM { // (process_vm runs are the target's addresses)
		return w.amAccumulate(tg, runs, in, result, opr, basic, wantReq)
	}
	var out []byte
	var finish func()
	if fetch {
		out, finish = result.into()
	}
	if err := at.apply(runs, in, out, opr, basic); err != nil {
		return nil, err
	}
	if fetch {
		finish()
	}
	return w.done(wantReq), nil
}

// apply performs an accumulate on the target's memory under its accumulate lock: old
// (if not nil) receives the data from before.
func (at where) apply(runs []run, in, old []byte, opr *op.Op, basic *datatype.Type) error {
	if at.atomics && at.cma == 0 {
		if k := atomicKindOf(basic); atomicOp(opr, k) {
			applyAtomic(runs, in, old, opr, k)
			return nil
		}
	}
	n := totalLen(runs)
	at.st.accLock()
	defer at.st.accUnlock()
	if opr.Kind() == op.Replace && old == nil {
		return at.scatter(runs, in)
	}
	cur := old
	if cur == nil {
		cur = make([]byte, n)
	}
	if err := at.gather(runs, cur); err != nil {
		return err
	}
	if opr.Kind() == op.NoOp {
		return nil
	}
	next := cur
	if old != nil {
		next = append([]byte(nil), cur...)
	}
	var elems int64
	if basic != nil && basic.Size() > 0 {
		elems = n / basic.Size()
	}
	if err := combine(opr, in, next, elems, basic); err != nil {
		return err
	}
	return at.scatter(runs, next)
}

// CompareAndSwap is MPI_Compare_and_swap: one element of a predefined type.
func (w *Win) CompareAndSwap(origin, compare, result unsafe.Pointer, t *datatype.Type, rank int, disp int64) error {
	if !t.IsPredefined() || atomicKindOf(t) == atomicF32 || atomicKindOf(t) == atomicF64 || t.Extent() != t.Size() || t.Size() > 8 {
		return core.Errorf(core.ErrType, "MPI_Compare_and_swap takes an integer, logical or byte datatype, not %s", t.Name())
	}
	tgt := Target{Rank: rank, Disp: disp, Count: 1, Type: t}
	tg, err := w.begin(tgt, t.Size(), "MPI_Compare_and_swap")
	if tg == nil || err != nil {
		return err
	}
	var rb [1]run
	runs, at, err := w.targetRuns(tg, disp, 1, t, rb[:])
	if err != nil {
		return err
	}
	n := t.Size()
	o := unsafe.Slice((*byte)(origin), n)
	c := unsafe.Slice((*byte)(compare), n)
	r := unsafe.Slice((*byte)(result), n)
	if tg.how == reachAM || at.viaAM {
		return w.amCAS(tg, runs, o, c, r)
	}
	return at.cas(runs, o, c, r)
}

// cas swaps in o where the target holds c, under the accumulate lock; r gets the old value.
func (at where) cas(runs []run, o, c, r []byte) error {
	if at.atomics && at.cma == 0 && len(runs) == 1 && casAtomic(runs[0].addr, o, c, r) {
		return nil
	}
	at.st.accLock()
	defer at.st.accUnlock()
	old := make([]byte, len(r))
	if err := at.gather(runs, old); err != nil {
		return err
	}
	copy(r, old)
	if bytes.Equal(old, c) {
		return at.scatter(runs, o)
	}
	return nil
}
