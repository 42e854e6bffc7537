package rma

import (
	"strings"
	"sync/atomic"

	"mpix/core"
	"mpix/core/cvar"
	"mpix/core/datatype"
	"mpix/core/op"
	"mpix/core/pvar"
	"mpix/transport"
)

// Accumulates with the transport's atomics (MPIX_RMA_NET_ATOMICS; ofi's fi_atomic
// family, transport.Atomics).
//
// A provider's atomics are atomic with each other, not with CPU atomics, the lock in
// the window's state page or the target engine's updates. So a window takes them for
// an element type only if every accumulate of that type, to every rank, can go that
// way: the provider does every operation MPI allows on the type (plain, fetching and,
// for integers, compare-and-swap), every process reaches every rank of the window
// through its engine's one-sided endpoint (node peers and itself included) on one
// VCI, and every rank registered its window memory. Each process says what it can in
// its card; the window takes what all can (netAtomics), so every process decides the
// same. Dynamic windows never take them (their regions come and go), nor
// memory-handle windows (their memory is another window's).
//
// MPI orders one origin's accumulates to a target (accumulate_ordering, default
// rar,raw,war,waw); a provider that does not order its atomics gets them one at a time:
// an accumulate waits for the one-sided operations still outstanding to that target.

// netAtomics is what a window does with the transport's atomics.
type netAtomics struct {
	types   uint32 // bit 1<<t per transport.AtomicType whose accumulates all go there
	ordered bool   // the provider applies them in order
}

func (n netAtomics) has(t transport.AtomicType) bool { return t != 0 && n.types&(1<<t) != 0 }

// netTypeNames name the types for MPI_Win_get_info's mpix_accumulate_net_atomics.
var netTypeNames = map[transport.AtomicType]string{
	transport.AtomicInt32: "int32", transport.AtomicUint32: "uint32", transport.AtomicInt64: "int64",
	transport.AtomicUint64: "uint64", transport.AtomicFloat32: "float32", transport.AtomicFloat64: "float64",
}

// String lists the element types that go through the transport's atomics ("none").
func (n netAtomics) String() string {
	var names []string
	for t := transport.AtomicInt32; t <= transport.AtomicFloat64; t++ {
		if n.has(t) {
			names = append(names, netTypeNames[t])
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// netAtomicsPosted is the MPI_T performance variable mpix_rma_net_atomics.
var netAtomicsPosted atomic.Uint64

var _ = pvar.Register(pvar.Spec{
	Name:       "mpix_rma_net_atomics",
	Desc:       "one-sided communication: accumulates, fetch-and-ops and compare-and-swaps this process started with the transport's atomics (fi_atomic), one per contiguous run of target memory",
	Class:      pvar.Counter,
	Verbosity:  cvar.TunerBasic,
	Category:   cvar.Transport,
	Continuous: true,
	Readonly:   true,
	Read:       func(dst []uint64) { dst[0] = netAtomicsPosted.Load() },
})

// netTypeOf maps the elements CPU atomics handle (atomic.go) to the transport's types.
func netTypeOf(basic *datatype.Type) transport.AtomicType {
	switch atomicKindOf(basic) {
	case atomicI32:
		return transport.AtomicInt32
	case atomicU32:
		return transport.AtomicUint32
	case atomicI64:
		return transport.AtomicInt64
	case atomicU64:
		return transport.AtomicUint64
	case atomicF32:
		return transport.AtomicFloat32
	case atomicF64:
		return transport.AtomicFloat64
	}
	return 0
}

var netOps = map[op.Kind]transport.AtomicOp{
	op.Sum: transport.AtomicSum, op.Prod: transport.AtomicProd, op.Max: transport.AtomicMax, op.Min: transport.AtomicMin,
	op.Band: transport.AtomicBAnd, op.Bor: transport.AtomicBOr, op.Bxor: transport.AtomicBXor,
	op.Land: transport.AtomicLAnd, op.Lor: transport.AtomicLOr, op.Lxor: transport.AtomicLXor,
	op.Replace: transport.AtomicSwap, op.NoOp: transport.AtomicRead,
}

// netNeeds lists the atomics a type needs for all of MPI's accumulates on it.
func netNeeds(t transport.AtomicType) []struct {
	f  transport.AtomicFamily
	op transport.AtomicOp
} {
	type need = struct {
		f  transport.AtomicFamily
		op transport.AtomicOp
	}
	float := t == transport.AtomicFloat32 || t == transport.AtomicFloat64
	var needs []need
	for k, o := range netOps {
		if float && (k == op.Band || k == op.Bor || k == op.Bxor || k == op.Land || k == op.Lor || k == op.Lxor) {
			continue
		}
		if k != op.NoOp {
			needs = append(needs, need{transport.AtomicWrite, o})
		}
		needs = append(needs, need{transport.AtomicFetch, o})
	}
	if !float {
		needs = append(needs, need{transport.AtomicCompare, transport.AtomicCSwap})
	}
	return needs
}

// netAtomicCard is this process's card entry: the types it can take through the
// transport's atomics on this window (bit 1<<t), 0 where it cannot reach every rank
// that way or MPIX_RMA_NET_ATOMICS says no. ordered (bit 0) says the provider orders.
func (w *window) netAtomicCard(registered bool) int64 {
	mode := core.Settings.NetAtomics
	if mode == 0 || !registered || w.flavor == FlavorDynamic {
		return 0
	}
	e := w.comm.Engine()
	for r := 0; r < w.comm.Size; r++ {
		if !e.AtomicsReach(w.comm.WorldRank(r)) {
			return 0
		}
	}
	card := int64(0)
	for t := transport.AtomicInt32; t <= transport.AtomicFloat64; t++ {
		if t.Size() < 4 {
			continue
		}
		ok := true
		for _, n := range netNeeds(t) {
			count, native, ordered := e.RemoteAtomicCaps(n.f, t, n.op)
			if count <= 0 || (mode < 0 && !native) {
				ok = false
				break
			}
			if ordered {
				card |= 1
			}
		}
		if ok {
			card |= 1 << t
		}
	}
	if card == 1 {
		return 0
	}
	return card
}

// agreeNetAtomics sets what the window does with the transport's atomics from every
// rank's card: the types all can take, when every rank's window runs on one VCI.
func (w *window) agreeNetAtomics(cards []int64) {
	all := int64(-1)
	for r := 0; r < w.comm.Size; r++ {
		card := cards[r*cardLen:]
		all &= card[cardAtomics]
		if card[cardVCI] != cards[cardVCI] {
			all = 0
		}
	}
	w.netAcc = netAtomics{types: uint32(all) &^ 1, ordered: all&1 != 0}
	if w.netAcc.types == 0 {
		w.netAcc = netAtomics{}
	}
}

// netAccumulable is the transport type an accumulate of basic elements with opr goes
// through the transport's atomics as, or 0 when it does not.
func (w *Win) netAccumulable(basic *datatype.Type, opr *op.Op) transport.AtomicType {
	if w.netAcc.types == 0 || w.mh != nil {
		return 0
	}
	t := netTypeOf(basic)
	if _, ok := netOps[opr.Kind()]; !ok || !w.netAcc.has(t) {
		return 0
	}
	return t
}

// netRunsOf turns runs as targetRuns gave them into the target's addresses, which its
// registration covers.
func netRunsOf(tg *target, runs []run) {
	if tg.how != reachMapped {
		return // the target's addresses already (self, process_vm, active messages)
	}
	for i := range runs {
		runs[i].addr = uint64(tg.base) + (runs[i].addr - uint64(uintptr(tg.mem)))
	}
}

// netOrder waits, on a provider that does not order its atomics, for what is still
// outstanding to p's target, unless the window lets accumulates pass each other.
func (w *Win) netOrder(p path) error {
	if !w.info.ordered && (w.netAcc.ordered || w.created.ordering == "none") {
		return nil
	}
	rank, sc := w.rankOf(p.tg), w.flushScope(p.by)
	if w.am.pend.has(sc, rank, netKind) || w.am.pend.has(sc, rank, amKind) {
		return w.flushTarget(rank, sc)
	}
	return nil
}

// netAccumulate starts an accumulate of in (packed; nil for MPI_NO_OP) with opr on
// runs of p's target through the transport's atomics; out (packed, nil unless
// fetching) receives the elements from before once the operation completes.
func (w *Win) netAccumulate(p path, t transport.AtomicType, runs []run, in, out []byte, opr *op.Op) error {
	f := transport.AtomicWrite
	if out != nil {
		f = transport.AtomicFetch
	}
	return w.netPost(p, runs, func(e *core.Engine, x run, off int64) error {
		var src, res []byte
		if in != nil {
			src = in[off : off+x.n]
		}
		if out != nil {
			res = out[off : off+x.n]
		}
		return e.StartRemoteAtomic(p.tg.world, p.tg.akey, x.addr, f, t, netOps[opr.Kind()], src, nil, res)
	})
}

// netCAS starts a compare-and-swap of one element through the transport's atomics.
func (w *Win) netCAS(p path, t transport.AtomicType, runs []run, o, c, r []byte) error {
	return w.netPost(p, runs, func(e *core.Engine, x run, off int64) error {
		return e.StartRemoteAtomic(p.tg.world, p.tg.akey, x.addr, transport.AtomicCompare, t, transport.AtomicCSwap,
			o[off:off+x.n], c[off:off+x.n], r[off:off+x.n])
	})
}

// netPost orders an atomic operation after what it must follow, turns its runs into
// the target's addresses and posts one atomic per run, counting those posted.
func (w *Win) netPost(p path, runs []run, post func(e *core.Engine, x run, off int64) error) error {
	if err := w.netOrder(p); err != nil {
		return err
	}
	netRunsOf(p.tg, runs)
	return w.startRuns(p, runs, "atomic", func(e *core.Engine, x run, off int64) error {
		err := post(e, x, off)
		if err == nil {
			netAtomicsPosted.Add(1)
		}
		return err
	})
}

// netAccumulateBuf is netAccumulate for Win.accumulate: the result (if fetching) goes
// to result's memory, and request forms complete once the atomics have.
func (w *Win) netAccumulateBuf(p path, t transport.AtomicType, runs []run, in []byte, result Buf, opr *op.Op, wantReq bool) (*core.Request, error) {
	var out []byte
	finish := func() {}
	if result.Type != nil {
		out, finish = result.into()
	}
	if err := w.netAccumulate(p, t, runs, in, out, opr); err != nil {
		return nil, err
	}
	if wantReq || (result.Type != nil && !result.Type.Contiguous()) {
		if err := w.flushNet(w.rankOf(p.tg), scope{thread: p.by}); err != nil {
			return nil, err
		}
		finish()
	}
	return w.done(wantReq), nil
}
