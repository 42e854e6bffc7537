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
// displacement in a rank's window. By is the thread that issues the operation (capi's
// thread serial), whose flushes complete it under mpi_win_scope=thread.
type Target struct {
	Rank  int
	Disp  int64
	Count int64
	Type  *datatype.Type
	By    uint64
}

// Req is the request an operation returns.
type Req uint8

const (
	NoReq     Req = iota // MPI_Put, MPI_Get, MPI_Accumulate...
	LocalReq             // MPI_Rput...: complete when the origin may reuse its buffer
	RemoteReq            // MPIX_Rrput...: complete when the operation is complete at the target
)

// begin checks what every operation needs: the rank, an access epoch that covers it,
// matching type signatures. It returns nil for MPI_PROC_NULL (nothing to do).
func (w *Win) begin(t Target, originBytes int64, what string) (*target, error) {
	if t.Rank == core.ProcNull {
		return nil, nil
	}
	if t.Rank < 0 || t.Rank >= len(w.targets) {
		return nil, core.Errorf(core.ErrRank, "%s: rank %d is not in the window's group of %d", what, t.Rank, len(w.targets))
	}
	if w.mh != nil && t.Rank != w.mh.rank {
		return nil, core.Errorf(core.ErrRank, "%s: a window from a memory handle reaches rank %d only, not %d", what, w.mh.rank, t.Rank)
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
func (w *Win) checkRequestEpoch(rank int, rq Req, what string) error {
	if rq == NoReq || rank == core.ProcNull {
		return nil
	}
	return w.passive(rank, what)
}

// done returns the request of a request-based operation that is already complete.
func (w *window) done(wantReq bool) *core.Request {
	if !wantReq {
		return nil
	}
	r := core.NewOpRequest(w.comm.Engine())
	r.Finish(0)
	return r
}

// runs is targetRuns for the handle: a memory-handle window's region (memhandle.go),
// else the rank's window.
func (w *Win) runs(tg *target, t Target, buf []run) ([]run, where, error) {
	if w.mh != nil {
		return w.mhRuns(tg, t.Disp, t.Count, t.Type, buf)
	}
	return w.targetRuns(tg, t.Disp, t.Count, t.Type, buf)
}

// pathTo is how the handle's operations by thread by reach tg.
func (w *Win) pathTo(tg *target, by uint64) path {
	if w.mh != nil {
		return path{tg: tg, mh: uint64(w.mh.id), by: by} // (active messages: memhandle.go)
	}
	return path{tg: tg, key: tg.rkey, by: by}
}

// prepare is what Put and Get (and their request forms, named by reqWhat) check
// first: the epoch, the rank, the signatures and the target runs. p.tg is nil for
// MPI_PROC_NULL, which has nothing to do.
func (w *Win) prepare(o Buf, t Target, rq Req, what, reqWhat string, buf []run) (path, []run, where, error) {
	if err := w.checkRequestEpoch(t.Rank, rq, reqWhat); err != nil {
		return path{}, nil, where{}, err
	}
	tg, err := w.begin(t, o.bytes(), what)
	if tg == nil || err != nil {
		return path{}, nil, where{}, err
	}
	runs, at, err := w.runs(tg, t, buf)
	if err != nil {
		return path{}, nil, where{}, err
	}
	return w.pathTo(tg, t.By), runs, at, nil
}

// viaAM reports whether an operation on p goes as active messages, not through the
// transport's one-sided access: an ordered handle keeps every operation to an engine's
// target on the one ordered channel (mpi_win_order, order.go).
func (w *Win) viaAM(p path, runs []run) bool {
	return w.info.ordered || !w.viaNet(p, runs)
}

// remote returns the request of an operation sent as active messages: for RemoteReq,
// one that the target's answer to a flush completes, which comes once the target has
// applied everything before it.
func (w *Win) remote(p path, rq Req, req *core.Request, err error) (*core.Request, error) {
	if rq != RemoteReq || err != nil {
		return req, err
	}
	r := core.NewOpRequest(w.comm.Engine())
	if err := w.ackAM(w.rankOf(p.tg), r); err != nil {
		return nil, err
	}
	return r, nil
}

// Put is MPI_Put (MPI_Rput with LocalReq, MPIX_Rrput with RemoteReq).
func (w *Win) Put(o Buf, t Target, rq Req) (*core.Request, error) { return w.put(o, t, rq, -1) }

// put is Put, adding an arrival for notification id at the target (notify.go) when id
// is not negative.
func (w *Win) put(o Buf, t Target, rq Req, id int) (*core.Request, error) {
	var rb [8]run
	p, runs, at, err := w.prepare(o, t, rq, "MPI_Put", "MPI_Rput", rb[:])
	if p.tg == nil || err != nil {
		return w.done(rq != NoReq && err == nil), err
	}
	if p.tg.how == reachAM {
		w.dynamicPath(&p, runs, id)
		if id < 0 && !w.viaAM(p, runs) {
			return w.netPut(p, runs, o.packed(), rq != NoReq) // (a request waits: complete at the target)
		}
		if err := w.orderAM(p); err != nil {
			return nil, err
		}
		req, err := w.amPut(p, runs, o.packed(), rq == LocalReq)
		if err == nil && id >= 0 {
			err = w.arrive(p, id, false)
		}
		return w.remote(p, rq, req, err)
	}
	if err := w.orderDirect(p); err != nil {
		return nil, err
	}
	if err := at.scatter(runs, o.packed()); err != nil {
		return nil, err
	}
	if id >= 0 {
		if err := w.arrive(p, id, true); err != nil {
			return nil, err
		}
	}
	return w.done(rq != NoReq), nil
}

// Get is MPI_Get (and MPI_Rget): its data has come from the target when it completes.
func (w *Win) Get(o Buf, t Target, rq Req) (*core.Request, error) { return w.get(o, t, rq, -1) }

// get is Get, with an arrival for notification id once the data has been read.
func (w *Win) get(o Buf, t Target, rq Req, id int) (*core.Request, error) {
	var rb [8]run
	p, runs, at, err := w.prepare(o, t, rq, "MPI_Get", "MPI_Rget", rb[:])
	if p.tg == nil || err != nil {
		return w.done(rq != NoReq && err == nil), err
	}
	if p.tg.how == reachAM {
		w.dynamicPath(&p, runs, id)
		if id < 0 && !w.viaAM(p, runs) {
			return w.netGet(p, runs, o, rq != NoReq)
		}
		if err := w.orderAM(p); err != nil {
			return nil, err
		}
		req, err := w.amGet(p, runs, o, rq != NoReq)
		if err == nil && id >= 0 {
			err = w.arrive(p, id, false)
		}
		return req, err
	}
	if err := w.orderDirect(p); err != nil {
		return nil, err
	}
	dst, finish := o.into()
	if err := at.gather(runs, dst); err != nil {
		return nil, err
	}
	finish()
	if id >= 0 {
		if err := w.arrive(p, id, true); err != nil {
			return nil, err
		}
	}
	return w.done(rq != NoReq), nil
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

// Accumulate is MPI_Accumulate (and MPI_Raccumulate, MPIX_Rraccumulate).
func (w *Win) Accumulate(o Buf, t Target, opr *op.Op, rq Req) (*core.Request, error) {
	return w.accumulate(o, Buf{}, t, opr, rq, "MPI_Accumulate")
}

// GetAccumulate is MPI_Get_accumulate (and MPI_Rget_accumulate, MPIX_Rrget_accumulate,
// MPI_Fetch_and_op): result receives the target's data from before the operation,
// which the target sends once it applied it, so it completes at the target too.
func (w *Win) GetAccumulate(o, result Buf, t Target, opr *op.Op, rq Req) (*core.Request, error) {
	return w.accumulate(o, result, t, opr, rq, "MPI_Get_accumulate")
}

func (w *Win) accumulate(o, result Buf, t Target, opr *op.Op, rq Req, what string) (*core.Request, error) {
	fetch := result.Type != nil
	wantReq := rq != NoReq
	if err := w.checkRequestEpoch(t.Rank, rq, what); err != nil {
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
	runs, at, err := w.runs(tg, t, rb[:])
	if err != nil {
		return nil, err
	}
	var in []byte
	if nt := w.netAccumulable(basic, opr); nt != 0 {
		if opr.Kind() != op.NoOp {
			in = o.packed()
		}
		return w.netAccumulateBuf(w.pathTo(tg, t.By), nt, runs, in, result, opr, wantReq)
	}
	if err := w.checkIntrinsic(tg, at, opr, basic, what); err != nil {
		return nil, err
	}
	if opr.Kind() != op.NoOp {
		in = o.packed()
	}
	p := w.pathTo(tg, t.By)
	if tg.how == reachAM || at.viaAM { // (process_vm runs are the target's addresses)
		if err := w.orderAM(p); err != nil {
			return nil, err
		}
		req, err := w.amAccumulate(p, runs, in, result, opr, basic, wantReq && (fetch || rq == LocalReq))
		if fetch {
			return req, err
		}
		return w.remote(p, rq, req, err)
	}
	if err := w.orderDirect(p); err != nil {
		return nil, err
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

// CompareAndSwap is MPI_Compare_and_swap, by thread by: one element of a predefined type.
func (w *Win) CompareAndSwap(origin, compare, result unsafe.Pointer, t *datatype.Type, rank int, disp int64, by uint64) error {
	if !t.IsPredefined() || atomicKindOf(t) == atomicF32 || atomicKindOf(t) == atomicF64 || t.Extent() != t.Size() || t.Size() > 8 {
		return core.Errorf(core.ErrType, "MPI_Compare_and_swap takes an integer, logical or byte datatype, not %s", t.Name())
	}
	tgt := Target{Rank: rank, Disp: disp, Count: 1, Type: t, By: by}
	tg, err := w.begin(tgt, t.Size(), "MPI_Compare_and_swap")
	if tg == nil || err != nil {
		return err
	}
	var rb [1]run
	runs, at, err := w.runs(tg, tgt, rb[:])
	if err != nil {
		return err
	}
	n := t.Size()
	o := unsafe.Slice((*byte)(origin), n)
	c := unsafe.Slice((*byte)(compare), n)
	r := unsafe.Slice((*byte)(result), n)
	p := w.pathTo(tg, by)
	if nt := w.netAccumulable(t, op.Predefined(op.Replace)); nt != 0 {
		return w.netCAS(p, nt, runs, o, c, r) // (lock-free: intrinsic as far as the assertion goes)
	}
	if w.info.intrinsic && !(reachesAtomically(tg, at) && len(runs) == 1 && (t.Size() == 4 || t.Size() == 8)) {
		return core.Errorf(core.ErrOp, "MPI_Compare_and_swap on %s is not intrinsic on this window, which asserts mpi_assert_accumulate_intrinsic (see MPIX_Win_op_intrinsic)", t.Name())
	}
	if tg.how == reachAM || at.viaAM {
		if err := w.orderAM(p); err != nil {
			return err
		}
		return w.amCAS(p, runs, o, c, r)
	}
	if err := w.orderDirect(p); err != nil {
		return err
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
