package core

import (
	"math"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core/datatype"
	"mpix/vci"
)

// TagUB is the largest tag (the MPI_TAG_UB attribute): the whole positive int range.
const TagUB = math.MaxInt32

// engines are the process's VCIs (streams); engine, the first, is the fallback VCI of
// MPI_COMM_WORLD and of communicators that find no free VCI.
var (
	engines []*Engine
	engine  *Engine
	vcis    *vci.Pool
)

func newVCIPool(n int) *vci.Pool { return vci.NewPool(n) }

func checkBuffer(count int64, t *datatype.Type) error {
	if !t.Committed() {
		return Errorf(ErrType, "datatype is not committed (call MPI_Type_commit)")
	}
	if t.Size() > 0 && count > math.MaxInt64/t.Size() {
		return Errorf(ErrCount, "count %d of %d-byte elements overflows", count, t.Size())
	}
	return nil
}

func checkSendArgs(count int64, t *datatype.Type, dest, tag int, comm *Comm) error {
	if err := checkBuffer(count, t); err != nil {
		return err
	}
	if err := comm.CheckRank(dest, true, false); err != nil {
		return err
	}
	if tag < 0 || tag > TagUB {
		return Errorf(ErrTag, "invalid tag %d (valid: 0..%d)", tag, TagUB)
	}
	return nil
}

func checkRecvArgs(count int64, t *datatype.Type, source, tag int, comm *Comm) error {
	if err := checkBuffer(count, t); err != nil {
		return err
	}
	if err := comm.CheckRank(source, true, true); err != nil {
		return err
	}
	if tag != AnyTag && (tag < 0 || tag > TagUB) {
		return Errorf(ErrTag, "invalid tag %d (valid: 0..%d or MPI_ANY_TAG)", tag, TagUB)
	}
	return comm.checkSpreadWildcards(source, tag)
}

// CheckSendArgs checks the arguments of a send as Send and Isend do.
func CheckSendArgs(count int64, t *datatype.Type, dest, tag int, comm *Comm) error {
	return checkSendArgs(count, t, dest, tag, comm)
}

// CheckBuffer checks a (count, datatype) buffer argument.
func CheckBuffer(count int64, t *datatype.Type) error { return checkBuffer(count, t) }

// CheckRecvArgs checks the arguments of a receive as Recv and Irecv do.
func CheckRecvArgs(count int64, t *datatype.Type, source, tag int, comm *Comm) error {
	return checkRecvArgs(count, t, source, tag, comm)
}

// procNullStatus is the status of a receive from MPI_PROC_NULL.
var procNullStatus = Status{Source: ProcNull, Tag: AnyTag}

// newSend makes a send request (not started).
func newSend(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag int, comm *Comm, mode SendMode) *Request {
	r := newRequest(reqSend)
	r.buf, r.count, r.dtype, r.peer, r.tag, r.comm, r.mode, r.eng = buf, count, t, dest, tag, comm, mode, comm.sendEng(dest, tag)
	t.Ref()
	return r
}

// newRecv makes a receive request (not started).
func newRecv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag int, comm *Comm) *Request {
	r := newRequest(reqRecv)
	r.buf, r.count, r.dtype, r.peer, r.tag, r.comm, r.eng = buf, count, t, source, tag, comm, comm.recvEng(source, tag)
	t.Ref()
	return r
}

// start begins the operation of r.
func (r *Request) start() error {
	r.done.Store(false)
	r.active = true
	if r.drv != nil {
		if err := r.drv.Start(); err != nil {
			r.active = false
			return err
		}
		return nil
	}
	if r.kind == reqColl {
		return r.sched.start()
	}
	if r.kind == reqSend {
		if r.peer == ProcNull {
			r.complete(emptyStatus)
			return nil
		}
		if r.mode == ModeBuffered {
			err := bufferedSend(r)
			r.complete(emptyStatus)
			return err
		}
		locked := r.eng.enter()
		defer r.eng.exit(locked)
		return r.eng.startSend(r, r.comm.peerWorld(r.peer))
	}
	if r.peer == ProcNull {
		r.complete(procNullStatus)
		return nil
	}
	locked := r.eng.enter()
	r.eng.startRecv(r)
	r.eng.exit(locked)
	return nil
}

// Send is a blocking send (MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Bsend).
func Send(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag int, comm *Comm, mode SendMode) error {
	if err := checkSendArgs(count, t, dest, tag, comm); err != nil {
		return err
	}
	if comm.LocalPeer(dest) {
		return localSend(buf, count, t, dest, tag, comm, mode)
	}
	r := getBlocking(reqSend)
	r.buf, r.count, r.dtype, r.peer, r.tag, r.comm, r.mode, r.eng = buf, count, t, dest, tag, comm, mode, comm.sendEng(dest, tag)
	t.Ref()
	err := r.start()
	if err == nil && !r.Done() {
		r.eng.wait(r.Done)
	}
	st := r.status
	putBlocking(r)
	if err != nil {
		return err
	}
	if st.Error != Success {
		return Errorf(st.Error, "send failed")
	}
	return nil
}

// Recv is a blocking receive.
func Recv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag int, comm *Comm) (Status, error) {
	if err := checkRecvArgs(count, t, source, tag, comm); err != nil {
		return Status{}, err
	}
	if comm.local != nil && source != ProcNull {
		return localRecv(buf, count, t, source, tag, comm)
	}
	r := getBlocking(reqRecv)
	r.buf, r.count, r.dtype, r.peer, r.tag, r.comm, r.eng = buf, count, t, source, tag, comm, comm.recvEng(source, tag)
	t.Ref()
	r.start()
	if !r.Done() {
		r.eng.wait(r.Done)
	}
	st := r.status
	putBlocking(r)
	return st, nil
}

// Isend starts a nonblocking send in the given mode.
func Isend(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag int, comm *Comm, mode SendMode) (*Request, error) {
	if err := checkSendArgs(count, t, dest, tag, comm); err != nil {
		return nil, err
	}
	if comm.LocalPeer(dest) { // capi makes these C requests (package threadcomm)
		return nil, errLocal("a Go request to a thread of this process")
	}
	r := newSend(buf, count, t, dest, tag, comm, mode)
	if err := r.start(); err != nil {
		r.Release()
		return nil, err
	}
	return r, nil
}

// Irecv starts a nonblocking receive.
func Irecv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag int, comm *Comm) (*Request, error) {
	if err := checkRecvArgs(count, t, source, tag, comm); err != nil {
		return nil, err
	}
	if comm.local != nil && source != ProcNull {
		return nil, errLocal("MPI_Irecv of this datatype or count")
	}
	r := newRecv(buf, count, t, source, tag, comm)
	r.start()
	return r, nil
}

// SendInit makes a persistent send request.
func SendInit(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag int, comm *Comm, mode SendMode) (*Request, error) {
	if err := checkSendArgs(count, t, dest, tag, comm); err != nil {
		return nil, err
	}
	if comm.LocalPeer(dest) { // capi makes these C requests (package threadcomm)
		return nil, errLocal("a Go request to a thread of this process")
	}
	r := newSend(buf, count, t, dest, tag, comm, mode)
	r.persistent = true
	r.done.Store(true)
	return r, nil
}

// RecvInit makes a persistent receive request.
func RecvInit(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag int, comm *Comm) (*Request, error) {
	if err := checkRecvArgs(count, t, source, tag, comm); err != nil {
		return nil, err
	}
	if comm.local != nil && source != ProcNull {
		return nil, errLocal("a persistent request")
	}
	r := newRecv(buf, count, t, source, tag, comm)
	r.persistent = true
	r.done.Store(true)
	return r, nil
}

// CheckStart reports why Start cannot start r now, or nil.
func CheckStart(r *Request) error {
	if !r.persistent {
		return Errorf(ErrRequest, "MPI_Start needs a persistent request")
	}
	if r.active {
		return Errorf(ErrRequest, "persistent request is already active")
	}
	return nil
}

// Start starts an inactive persistent request.
func Start(r *Request) error {
	if err := CheckStart(r); err != nil {
		return err
	}
	return r.start()
}

// Wait blocks until r completes and returns its status. The request's handle is
// released unless it is persistent (the caller sets its handle to MPI_REQUEST_NULL).
func Wait(r *Request) Status {
	if !r.Active() {
		return emptyStatus
	}
	if !r.Done() {
		r.eng.wait(r.Done)
	}
	if r.gen != nil {
		return r.genReport(r.genStatus())
	}
	st := r.status
	r.Release()
	return st
}

// Test progresses once and reports whether r completed; a completed nonpersistent
// request is released.
func Test(r *Request) (bool, Status) {
	if !r.Active() {
		return true, emptyStatus
	}
	if !r.Done() {
		r.eng.Progress()
		if !r.Done() {
			r.eng.missed()
			if !r.Done() {
				return false, Status{}
			}
		}
	}
	if r.gen != nil {
		return true, r.genReport(r.genStatus())
	}
	st := r.status
	r.Release()
	return true, st
}

// PeekStatus is MPI_Request_get_status: like Test, but the request stays.
func PeekStatus(r *Request) (bool, Status) {
	if !r.Active() {
		return true, emptyStatus
	}
	if !r.Done() {
		r.eng.Progress()
		if !r.Done() {
			r.eng.missed()
		}
	}
	if !r.Done() {
		return false, Status{}
	}
	if r.gen != nil {
		return true, r.genStatus()
	}
	return true, r.status
}

// Progress makes one round of progress on every VCI (for Waitany/Testsome loops).
func Progress() int {
	n := 0
	for _, e := range engines {
		n += e.progressShared()
	}
	return n
}

// ProgressFrom is a round of progress for a C wait on VCI v that has spun its limit:
// every VCI, unless MPIX_GLOBAL_PROGRESS_INTERVAL turned global progress off, in which
// case only v, as in Engine.wait.
func ProgressFrom(v int) int {
	if v < 0 || v >= len(engines) {
		return 0
	}
	if e := engines[v]; e.GlobalOff() {
		return e.progressShared()
	}
	return Progress()
}

// WaitUntil progresses every VCI until done reports true (waits on several requests,
// which may belong to different VCIs), yielding like Engine.wait.
func WaitUntil(done func() bool) {
	if engine == nil {
		return
	}
	empty := 0
	for !done() {
		if Progress() > 0 {
			empty = 0
			continue
		}
		if empty++; empty%idleEvery == 0 {
			idleTurn()
		}
		if empty >= engine.spinLimit {
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
}

// Cancel cancels a receive that has not matched yet (sends are not cancellable here:
// MPI lets a cancel fail, and MPI_Test_cancelled then reports false).
func Cancel(r *Request) {
	if r.drv != nil {
		if r.active && !r.done.Load() {
			r.drv.Cancel()
		}
		return
	}
	if r.kind != reqRecv || r.Done() {
		return
	}
	e := r.eng
	locked := e.enter()
	defer e.exit(locked)
	for i, p := range e.posted {
		if p == r {
			e.posted = append(e.posted[:i], e.posted[i+1:]...)
			r.complete(Status{Source: AnySource, Tag: AnyTag, Cancelled: true})
			return
		}
	}
}

// Iprobe reports whether a message matching (source, tag, comm) has arrived.
func Iprobe(source, tag int, comm *Comm) (bool, Status, error) {
	if err := comm.CheckRank(source, true, true); err != nil {
		return false, Status{}, err
	}
	if source == ProcNull {
		return true, procNullStatus, nil
	}
	if err := comm.checkSpreadWildcards(source, tag); err != nil {
		return false, Status{}, err
	}
	if comm.local != nil {
		found, st := comm.local.Probe(source, tag, false)
		return found, st, nil
	}
	probe := &Request{kind: reqRecv, peer: source, tag: tag, comm: comm}
	e := comm.recvEng(source, tag)
	e.missed() // a probe loop must move the other VCIs too (counted per call)
	locked := e.enter()
	defer e.exit(locked)
	e.progress()
	for _, u := range e.unexpected {
		if matches(probe, &u.hdr) {
			return true, Status{Source: comm.sourceOf(&u.hdr), Tag: int(u.hdr.Tag), Bytes: u.hdr.Size}, nil
		}
	}
	return false, Status{}, nil
}

// Probe blocks until a matching message has arrived.
func Probe(source, tag int, comm *Comm) (Status, error) {
	if comm.local != nil && source != ProcNull {
		if err := comm.CheckRank(source, true, true); err != nil {
			return Status{}, err
		}
		_, st := comm.local.Probe(source, tag, true)
		return st, nil
	}
	var st Status
	var err error
	found := false
	comm.recvEng(source, tag).wait(func() bool {
		found, st, err = Iprobe(source, tag, comm)
		return found || err != nil
	})
	return st, err
}

// Message is a matched message taken by MPI_Mprobe/Improbe, received with Mrecv.
type Message struct {
	Handle int32
	msg    *unexpected
	comm   *Comm
	eng    *Engine
	noProc bool
}

var messages = NewTable[Message](KindRequest)

// MessageNoProc is MPI_MESSAGE_NO_PROC (0x6c000000); MessageNull is MPI_MESSAGE_NULL.
var (
	MessageNoProc = BuiltinHandle(KindRequest, 0)
	MessageNull   = NullHandle(KindRequest)
	noProcMessage = &Message{Handle: MessageNoProc, noProc: true}
)

// LookupMessage resolves a message handle.
func LookupMessage(h int32) (*Message, error) {
	if h == MessageNoProc {
		return noProcMessage, nil
	}
	if m := messages.Get(h); m != nil {
		return m, nil
	}
	return nil, Errorf(ErrRequest, "invalid message handle 0x%x", uint32(h))
}

// Improbe takes a matching message off the queue if one has arrived.
func Improbe(source, tag int, comm *Comm) (*Message, Status, error) {
	if err := comm.CheckRank(source, true, true); err != nil {
		return nil, Status{}, err
	}
	if source == ProcNull {
		return noProcMessage, procNullStatus, nil
	}
	if err := comm.checkSpreadWildcards(source, tag); err != nil {
		return nil, Status{}, err
	}
	if comm.local != nil {
		return nil, Status{}, errLocal("MPI_Mprobe/MPI_Improbe")
	}
	probe := &Request{kind: reqRecv, peer: source, tag: tag, comm: comm}
	e := comm.recvEng(source, tag)
	e.missed() // a probe loop must move the other VCIs too (counted per call)
	locked := e.enter()
	defer e.exit(locked)
	e.progress()
	for i, u := range e.unexpected {
		if matches(probe, &u.hdr) {
			e.unexpected = append(e.unexpected[:i], e.unexpected[i+1:]...)
			m := &Message{msg: u, comm: comm, eng: e}
			m.Handle = messages.Add(m)
			return m, Status{Source: comm.sourceOf(&u.hdr), Tag: int(u.hdr.Tag), Bytes: u.hdr.Size}, nil
		}
	}
	return nil, Status{}, nil
}

// Mprobe blocks until a matching message is taken.
func Mprobe(source, tag int, comm *Comm) (*Message, Status, error) {
	var m *Message
	var st Status
	var err error
	comm.recvEng(source, tag).wait(func() bool {
		m, st, err = Improbe(source, tag, comm)
		return m != nil || err != nil
	})
	return m, st, err
}

// Imrecv receives a message taken by Mprobe/Improbe.
func Imrecv(buf unsafe.Pointer, count int64, t *datatype.Type, m *Message) (*Request, error) {
	if err := checkBuffer(count, t); err != nil {
		return nil, err
	}
	if m.noProc {
		r := newRecv(buf, count, t, ProcNull, AnyTag, CommSelf)
		r.complete(procNullStatus)
		return r, nil
	}
	messages.Remove(m.Handle)
	r := newRecv(buf, count, t, AnySource, AnyTag, m.comm)
	r.active = true
	e := m.eng // the VCI the message arrived on
	r.eng = e
	locked := e.enter()
	e.matched(r, &m.msg.hdr, m.msg.payload)
	e.exit(locked)
	return r, nil
}

// Isendrecv starts a send and a receive as one request (MPI-4.0 MPI_Isendrecv); its
// status is the receive's. replace makes it MPI_Isendrecv_replace: the outgoing data
// is packed first, so the receive may overwrite the buffer.
func Isendrecv(sbuf unsafe.Pointer, scount int64, stype *datatype.Type, dest, stag int,
	rbuf unsafe.Pointer, rcount int64, rtype *datatype.Type, source, rtag int, comm *Comm, replace bool) (*Request, error) {
	if err := checkSendArgs(scount, stype, dest, stag, comm); err != nil {
		return nil, err
	}
	if err := checkRecvArgs(rcount, rtype, source, rtag, comm); err != nil {
		return nil, err
	}
	if comm.local != nil {
		return nil, errLocal("MPI_Isendrecv")
	}
	parent := newRequest(reqRecv)
	// The parent waits on the receive's VCI; a send on another VCI of a spread
	// communicator that needs progress gets it from the wait's global rounds.
	reng, seng := comm.recvEng(source, rtag), comm.sendEng(dest, stag)
	parent.eng, parent.comm, parent.active = reng, comm, true
	parent.parts.Store(2)
	recv := newInternalRequest(reqRecv)
	recv.buf, recv.count, recv.dtype, recv.peer, recv.tag, recv.comm, recv.eng, recv.parent = rbuf, rcount, rtype, source, rtag, comm, reng, parent
	send := newInternalRequest(reqSend)
	send.buf, send.count, send.dtype, send.peer, send.tag, send.comm, send.eng, send.parent = sbuf, scount, stype, dest, stag, comm, seng, parent
	if replace {
		send.scratch = make([]byte, packedSize(scount, stype))
		datatype.Pack(send.scratch, sbuf, scount, stype, 0)
	}
	rtype.Ref()
	stype.Ref()
	recv.start()
	if err := send.start(); err != nil {
		return nil, err
	}
	return parent, nil
}

// handleMPIByte is MPI_BYTE's handle (MPICH's value).
const handleMPIByte = 0x4c00010d

// ctxFinalize is the context id of the internal communicator MPI_Finalize
// synchronizes on; user communicators never get it.
const ctxFinalize = 0x7fffffff

// quiesce is MPI_Finalize's barrier through the engine. Unlike a PMI fence it keeps
// every transport progressing until all processes have finished their communication,
// which transports whose sends need the sender's progress (libfabric rendezvous)
// rely on. A dissemination barrier: log2(size) rounds of zero-byte messages.
func quiesce(world *Comm) error {
	if world.Size == 1 {
		return nil
	}
	c := &Comm{ContextID: ctxFinalize}
	c.init(world.Rank, world.group, nil, world.eng)
	bt, err := datatype.Lookup(handleMPIByte)
	if err != nil {
		return err
	}
	for k := 1; k < c.Size; k <<= 1 {
		r, err := Irecv(nil, 0, bt, (c.Rank-k+c.Size)%c.Size, 0, c)
		if err != nil {
			return err
		}
		s, err := Isend(nil, 0, bt, (c.Rank+k)%c.Size, 0, c, ModeStandard)
		if err != nil {
			return err
		}
		Wait(r)
		Wait(s)
	}
	return nil
}
