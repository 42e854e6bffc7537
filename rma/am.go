package rma

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
	"mpix/transport"
)

// Active messages, for targets this process cannot reach by itself (other nodes, or
// every peer under MPIX_SHM=0): the origin sends the operation, with the target memory
// described as runs of absolute addresses, and the target's engine checks the runs
// against its window and applies the operation in its progress, under the same locks
// as node peers take.
//
// Message (transport.Header: Kind KindRMA, Context the window's context, Tag the
// operation, SendReq the origin's operation id, Offset the chunk's place in the
// operation's data) and payload:
//
//	request: prefix (16 bytes: runs uint32, op int32, datatype int32, unused), runs
//	         (16 bytes each: address, length), then the data of put and accumulates
//	         (for compare-and-swap: the new value, then the value to compare)
//	answer:  the data of get, get-accumulate and compare-and-swap
//
// An operation larger than a message is sent as chunks, each with its own runs.
// Puts and accumulates are not answered; MPI_Win_flush sends amFlush, answered once
// everything before it is applied (messages between two processes on one VCI arrive
// in order), with the first error the target met since the last flush.
const (
	amPut = iota + 1
	amGet
	amAcc
	amGetAcc
	amCAS
	amFlush
	amLock
	amUnlock
	// answers
	amData
	amFlushed
	amLocked
	amFailed // an operation failed at the target: Offset is the error class
	// requests, unanswered
	amNotify // an arrival for notification id Offset (notify.go)
	// a request and its answer: a dynamic window's registered region (dynnet.go)
	amKeys
	amKeysAnswer
)

const (
	prefixLen = 16
	runLen    = 16
)

// flags of amLock and amLocked
const (
	flagExclusive = 1 << 4
	flagGranted   = 1 << 5
)

func init() { core.RegisterAM(transport.KindRMA, handle) }

// amOrigin is what a window's origin side waits for: operations whose answers have
// not all arrived, and the ranks with operations outstanding (pending.go).
type amOrigin struct {
	table opTable
	pend  pending
	// failed is the first error class a target answered for an operation that had no
	// request to carry it (a blocking MPI_Get); the next flush or fence reports it.
	failed atomic.Int32
}

// amOp is one operation waiting for answers.
type amOp struct {
	dst     Buf    // where answered data goes (get, get-accumulate)
	raw     []byte // or here (compare-and-swap)
	want    int64  // bytes expected
	got     int64
	granted bool // amLock's answer
	err     int  // error class from the target
	done    atomic.Bool
	req     *core.Request
}

func (a *amOrigin) add(o *amOp) uint64 { return a.table.add(o) }

// path is how one operation goes to its target: the target, the key of its memory
// for the transport's one-sided access (nil: none), the memory handle the operation
// reaches through (its id at the target, carried in RecvReq; 0: none) and the thread
// that issues it.
type path struct {
	tg  *target
	key []byte
	mh  uint64
	by  uint64
}

// send transmits one request message to tg.
func (w *window) send(tg *target, tag int32, id uint64, offset int64, flags uint8, payload []byte) error {
	return w.sendMH(tg, tag, id, 0, offset, flags, payload)
}

// sendMH is send for an operation through memory handle mh.
func (w *window) sendMH(tg *target, tag int32, id, mh uint64, offset int64, flags uint8, payload []byte) error {
	h := transport.Header{Kind: transport.KindRMA, Flags: flags, Tag: tag, Context: w.comm.ContextID,
		SendReq: id, RecvReq: mh, Offset: offset, Size: int64(len(payload))}
	return w.comm.Engine().SendAM(tg.world, &h, payload)
}

// chunks splits an operation over runs into messages: f gets each chunk's runs, its
// offset in the operation's data and its length. unit is the size chunks of data are
// multiples of (accumulate elements); carry says the data rides in the request.
func (w *window) chunks(tg *target, runs []run, unit int64, carry bool, f func(rs []run, off, n int64) error) error {
	return splitRuns(runs, int64(w.comm.Engine().MaxPayload(tg.world)), unit, carry, f)
}

// splitRuns is chunks' splitting, for messages of at most max bytes of payload.
func splitRuns(runs []run, max, unit int64, carry bool, f func(rs []run, off, n int64) error) error {
	if unit <= 0 {
		unit = 1
	}
	var off int64
	i, within := 0, int64(0)
	for i < len(runs) {
		var rs []run
		var n int64
		room := max - prefixLen
		for i < len(runs) && room >= runLen+unit {
			room -= runLen
			x := runs[i]
			left := x.n - within
			take := left
			if carry {
				take = min(take, room/unit*unit)
			} else {
				take = min(take, (max-n)/unit*unit)
			}
			if take <= 0 {
				break
			}
			rs = append(rs, run{x.addr + uint64(within), take})
			n += take
			if carry {
				room -= take
			}
			if take == left {
				i, within = i+1, 0
			} else {
				within += take
				break
			}
		}
		if len(rs) == 0 {
			return core.Errorf(core.ErrIntern, "one-sided message of %d bytes cannot carry an element of %d bytes", max, unit)
		}
		if err := f(rs, off, n); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// request builds a request payload.
func request(rs []run, opH, typeH int32, data ...[]byte) []byte {
	n := prefixLen + runLen*len(rs)
	for _, d := range data {
		n += len(d)
	}
	p := make([]byte, prefixLen+runLen*len(rs), n)
	binary.LittleEndian.PutUint32(p[0:], uint32(len(rs)))
	binary.LittleEndian.PutUint32(p[4:], uint32(opH))
	binary.LittleEndian.PutUint32(p[8:], uint32(typeH))
	for i, x := range rs {
		binary.LittleEndian.PutUint64(p[prefixLen+runLen*i:], x.addr)
		binary.LittleEndian.PutUint64(p[prefixLen+runLen*i+8:], uint64(x.n))
	}
	for _, d := range data {
		p = append(p, d...)
	}
	return p
}

func (w *window) amPut(p path, runs []run, data []byte, wantReq bool) (*core.Request, error) {
	tg := p.tg
	err := w.chunks(tg, runs, 1, true, func(rs []run, off, n int64) error {
		return w.sendMH(tg, amPut, 0, p.mh, off, 0, request(rs, 0, 0, data[off:off+n]))
	})
	w.am.pend.mark(p.by, w.rankOf(tg), amKind)
	if err != nil {
		return nil, err
	}
	return w.done(wantReq), nil
}

func (w *window) amGet(p path, runs []run, o Buf, wantReq bool) (*core.Request, error) {
	tg := p.tg
	a := &amOp{dst: o, want: totalLen(runs)}
	return w.startFetch(tg, a, p.by, wantReq, func(id uint64) error {
		return w.chunks(tg, runs, 1, false, func(rs []run, off, n int64) error {
			return w.sendMH(tg, amGet, id, p.mh, off, 0, request(rs, 0, 0))
		})
	})
}

// startFetch registers an operation that waits for data and sends it.
func (w *window) startFetch(tg *target, a *amOp, by uint64, wantReq bool, send func(id uint64) error) (*core.Request, error) {
	if wantReq {
		a.req = core.NewOpRequest(w.comm.Engine())
	}
	if a.want == 0 {
		a.done.Store(true)
		if a.req != nil {
			a.req.Finish(0)
		}
		return a.req, nil
	}
	id := w.am.add(a)
	err := send(id)
	w.am.pend.mark(by, w.rankOf(tg), amKind)
	if err != nil {
		return nil, err
	}
	return a.req, nil
}

func (w *window) amAccumulate(p path, runs []run, in []byte, result Buf, opr *op.Op, basic *datatype.Type, wantReq bool) (*core.Request, error) {
	tg, by := p.tg, p.by
	unit := int64(1)
	if basic != nil {
		unit = basic.Size()
	}
	typeH := int32(0)
	if basic != nil {
		typeH = basic.Handle()
	}
	if result.Type == nil {
		defer w.am.pend.mark(by, w.rankOf(tg), amKind)
		err := w.chunks(tg, runs, unit, opr.Kind() != op.NoOp, func(rs []run, off, n int64) error {
			var d []byte
			if in != nil {
				d = in[off : off+n]
			}
			return w.sendMH(tg, amAcc, 0, p.mh, off, 0, request(rs, opr.Handle, typeH, d))
		})
		if err != nil {
			return nil, err
		}
		return w.done(wantReq), nil
	}
	a := &amOp{dst: result, want: totalLen(runs)}
	return w.startFetch(tg, a, by, wantReq, func(id uint64) error {
		return w.chunks(tg, runs, unit, true, func(rs []run, off, n int64) error {
			var d []byte
			if in != nil {
				d = in[off : off+n]
			}
			return w.sendMH(tg, amGetAcc, id, p.mh, off, 0, request(rs, opr.Handle, typeH, d))
		})
	})
}

func (w *window) amCAS(p path, runs []run, o, c, r []byte) error {
	a := &amOp{raw: r, want: int64(len(r))}
	if _, err := w.startFetch(p.tg, a, p.by, false, func(id uint64) error {
		return w.sendMH(p.tg, amCAS, id, p.mh, 0, 0, request(runs, 0, 0, o, c))
	}); err != nil {
		return err
	}
	return nil
}

// rankOf is tg's rank in the window.
func (w *window) rankOf(tg *target) int {
	return int((uintptr(unsafe.Pointer(tg)) - uintptr(unsafe.Pointer(&w.targets[0]))) / unsafe.Sizeof(target{}))
}

// flushTarget completes the operations to rank that sc covers at the target.
func (w *window) flushTarget(rank int, sc scope) error {
	tg := &w.targets[rank]
	if tg.how != reachAM {
		if w.netAcc.types != 0 {
			return w.flushNet(rank, sc) // atomics through the transport (netatomic.go)
		}
		return nil
	}
	if err := w.flushNet(rank, sc); err != nil { // (memory-handle windows have keys of their own)
		w.flushAM(rank, sc)
		return err
	}
	return w.flushAM(rank, sc)
}

// flushAM completes the active messages to rank that sc covers: the target answers
// amFlush once it has applied everything that came before it (messages between two
// processes on one VCI arrive in order).
func (w *window) flushAM(rank int, sc scope) error {
	n, all := w.am.pend.due(sc, rank, amKind)
	if n == 0 {
		return nil
	}
	defer w.am.pend.covered(sc, rank, amKind, n, all) // (failed ones too: reported once)
	return w.ackAM(rank, nil)
}

// ackAM sends amFlush to rank and waits for its answer, or, with req, returns at once
// and lets the answer complete req.
func (w *window) ackAM(rank int, req *core.Request) error {
	a := &amOp{want: 1, req: req}
	id := w.am.add(a)
	if err := w.send(&w.targets[rank], amFlush, id, 0, 0, nil); err != nil {
		w.am.table.remove(id)
		return err
	}
	if req != nil {
		return nil
	}
	w.comm.Engine().WaitOn(a.done.Load)
	if a.err == 0 {
		a.err = int(w.am.failed.Swap(0))
	}
	if a.err != 0 {
		return core.Errorf(a.err, "a one-sided operation failed at rank %d", rank)
	}
	return nil
}

// flushAll completes every operation sc covers on the window.
func (w *window) flushAll(sc scope) error {
	var first error
	for r := range w.targets {
		if err := w.flushTarget(r, sc); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// amLock takes tg's lock through its engine, asking again while it is busy.
func (w *window) amLock(tg *target, excl bool) error {
	flags := uint8(0)
	if excl {
		flags = flagExclusive
	}
	for {
		a := &amOp{want: 1}
		id := w.am.add(a)
		if err := w.send(tg, amLock, id, 0, flags, nil); err != nil {
			return err
		}
		w.comm.Engine().WaitOn(a.done.Load)
		if a.granted {
			return nil
		}
		core.Progress()
	}
}

func (w *window) amUnlock(tg *target, excl bool) error {
	flags := uint8(0)
	if excl {
		flags = flagExclusive
	}
	return w.send(tg, amUnlock, 0, 0, flags, nil)
}

// ---- the target side and the answers, in the engine's progress ----

// targetErrs remembers, per origin, the first error of an unanswered operation until
// the origin's next flush.
type targetErrs struct {
	mu   sync.Mutex
	errs map[errKey]int
}

// errKey is a window (its context) and an origin (its world rank).
type errKey struct {
	ctx uint32
	src int32
}

var failures targetErrs

func (t *targetErrs) note(ctx uint32, src int32, class int) {
	t.mu.Lock()
	k := errKey{ctx, src}
	if t.errs == nil {
		t.errs = map[errKey]int{}
	}
	if t.errs[k] == 0 {
		t.errs[k] = class
	}
	t.mu.Unlock()
}

func (t *targetErrs) take(ctx uint32, src int32) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := errKey{ctx, src}
	c := t.errs[k]
	delete(t.errs, k)
	return c
}

// handle is the engine's handler of KindRMA messages.
func handle(e *core.Engine, h *transport.Header, payload []byte) {
	v, ok := byContext.Load(h.Context)
	if !ok {
		return // a window freed, or not this process's: nothing to apply
	}
	w := v.(*window)
	switch h.Tag {
	case amData, amFlushed, amLocked, amFailed, amKeysAnswer:
		w.answer(h, payload)
		return
	}
	reply := func(tag int32, flags uint8, offset int64, data []byte) {
		a := transport.Header{Kind: transport.KindRMA, Flags: flags, Tag: tag, Context: h.Context,
			SendReq: h.SendReq, Offset: offset, Size: int64(len(data))}
		e.Reply(int(h.Src), &a, data)
	}
	fail := func(class int) {
		if h.SendReq != 0 && h.Tag != amPut && h.Tag != amAcc {
			reply(amFailed, 0, int64(class), nil)
			return
		}
		failures.note(h.Context, h.Src, class)
	}
	switch h.Tag {
	case amFlush:
		reply(amFlushed, 0, int64(failures.take(h.Context, h.Src)), nil)
		return
	case amLock:
		granted := uint8(0)
		if w.own.tryLock(h.Flags&flagExclusive != 0) {
			granted = flagGranted
		}
		reply(amLocked, granted, 0, nil)
		return
	case amUnlock:
		w.own.unlock(h.Flags&flagExclusive != 0)
		return
	case amKeys:
		runs, _, _, _, ok := parseRequest(payload)
		if !ok || len(runs) != 1 {
			reply(amFailed, 0, core.ErrOther, nil)
			return
		}
		reply(amKeysAnswer, 0, 0, w.keyAnswer(runs[0].addr, runs[0].n, h.RecvReq))
		return
	case amNotify:
		if h.Offset < 0 || h.Offset >= int64(w.notifyIDs) {
			fail(core.ErrArg)
			return
		}
		w.own.notifyCounter(int(h.Offset)).Add(1)
		return
	}
	runs, opH, typeH, data, ok := parseRequest(payload)
	if !ok {
		fail(core.ErrOther)
		return
	}
	if err := w.checkOwn(runs, h.RecvReq); err != nil {
		fail(core.AsError(err).Class)
		return
	}
	self := w.ownWhere(runs) // the runs are this process's addresses, checked above
	n := totalLen(runs)
	switch h.Tag {
	case amPut:
		if int64(len(data)) != n {
			fail(core.ErrOther)
			return
		}
		self.scatter(runs, data)
	case amGet:
		out := make([]byte, n)
		self.gather(runs, out)
		reply(amData, 0, h.Offset, out)
	case amAcc, amGetAcc:
		opr, err := op.Lookup(opH)
		if err != nil || opr.Kind() == op.User {
			fail(core.ErrOp)
			return
		}
		var basic *datatype.Type
		if typeH != 0 {
			if basic = datatype.Predefined(typeH); basic == nil || (basic.Size() > 0 && n%basic.Size() != 0) {
				fail(core.ErrType)
				return
			}
		}
		if opr.Kind() != op.NoOp && int64(len(data)) != n {
			fail(core.ErrOther)
			return
		}
		var old []byte
		if h.Tag == amGetAcc {
			old = make([]byte, n)
		}
		if err := self.apply(runs, data, old, opr, basic); err != nil {
			fail(core.AsError(err).Class)
			return
		}
		if old != nil {
			reply(amData, 0, h.Offset, old)
		}
	case amCAS:
		if int64(len(data)) != 2*n {
			fail(core.ErrOther)
			return
		}
		old := make([]byte, n)
		self.cas(runs, data[:n], data[n:], old)
		reply(amData, 0, 0, old)
	default:
		fail(core.ErrOther)
	}
}

// parseRequest decodes a request's payload, checking its lengths.
func parseRequest(p []byte) (runs []run, opH, typeH int32, data []byte, ok bool) {
	if len(p) < prefixLen {
		return nil, 0, 0, nil, false
	}
	k := int(binary.LittleEndian.Uint32(p[0:]))
	opH = int32(binary.LittleEndian.Uint32(p[4:]))
	typeH = int32(binary.LittleEndian.Uint32(p[8:]))
	if k < 0 || k > (len(p)-prefixLen)/runLen {
		return nil, 0, 0, nil, false
	}
	runs = make([]run, k)
	for i := range runs {
		at := prefixLen + runLen*i
		runs[i] = run{binary.LittleEndian.Uint64(p[at:]), int64(binary.LittleEndian.Uint64(p[at+8:]))}
		if runs[i].n < 0 {
			return nil, 0, 0, nil, false
		}
	}
	return runs, opH, typeH, p[prefixLen+runLen*k:], true
}

// ownWhere is how this process's engine reaches its own window memory for runs: loads
// and stores, with atomics where the memory is shareable (as its peers decide).
func (w *window) ownWhere(runs []run) where {
	at := where{st: w.own, atomics: w.self.shareable}
	if w.flavor == FlavorDynamic {
		var rbuf [16]region
		rs := w.own.regions(rbuf[:0])
		shared, plain := 0, 0
		for _, x := range runs {
			if i := regionOf(rs, x.addr, uint64(x.n)); i >= 0 && rs[i].memfd > 0 {
				shared++
			} else {
				plain++
			}
		}
		at.atomics = plain == 0 && shared > 0
	}
	return at
}

// checkOwn checks runs an origin sent against this process's window (through memory
// handle mh, when not 0: against that handle's region only): a forged or mistaken
// address, or a released handle, never reaches memory outside what is exposed.
func (w *window) checkOwn(runs []run, mh uint64) error {
	if mh != 0 {
		return w.checkHandleRuns(runs, mh)
	}
	if w.flavor == FlavorDynamic {
		var rbuf [16]region
		rs := w.own.regions(rbuf[:0])
		for _, x := range runs {
			if !covers(rs, x.addr, uint64(x.n)) {
				return core.Errorf(core.ErrRMARange, "address %#x (%d bytes) is not attached to the dynamic window", x.addr, x.n)
			}
		}
		return nil
	}
	return inWindow(runs, uint64(w.self.base), w.self.size)
}

// answer takes a target's answer to one of this process's operations.
func (w *window) answer(h *transport.Header, payload []byte) {
	a := w.am.table.get(h.SendReq)
	if a == nil {
		return
	}
	finished := false
	switch h.Tag {
	case amData:
		switch {
		case h.Offset < 0 || h.Offset > a.want-int64(len(payload)): // no overflow: want >= 0
			a.err, finished = core.ErrOther, true
		case a.raw != nil:
			copy(a.raw[h.Offset:], payload)
		default:
			datatype.Unpack(payload, a.dst.Ptr, a.dst.Count, a.dst.Type, h.Offset)
		}
		a.got += int64(len(payload))
		finished = finished || a.got >= a.want
	case amFlushed:
		a.err, finished = int(h.Offset), true
	case amLocked:
		a.granted, finished = h.Flags&flagGranted != 0, true
	case amFailed:
		a.err, finished = int(h.Offset), true
	case amKeysAnswer:
		a.raw, finished = append([]byte(nil), payload...), true
	}
	if !finished {
		return
	}
	w.am.table.remove(h.SendReq)
	if a.req != nil {
		a.req.Finish(a.err)
	} else if a.err != 0 && h.Tag != amFlushed {
		w.am.failed.CompareAndSwap(0, int32(a.err))
	}
	a.done.Store(true)
}
