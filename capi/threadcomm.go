package main

/*
#include "capi.h"
#include "fast.h"
#include "tcfast.h"
#include <stdlib.h>
int mpix_omp_team_size(void);
static inline mpix_ctx *tc_ctx(void) { return mpix_ctx_get(); }
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// Thread communicators (core/threadcomm.go). The calling thread's place in its active
// threadcomm lives in its C context (mpix_ctx: activation key and thread index), set
// by MPIX_Threadcomm_start and cleared by MPIX_Threadcomm_finish; every procedure that
// takes a communicator resolves a threadcomm handle to that thread's view through
// lookupComm, so the whole p2p and collective API routes to the threadcomm path.

// lookupComm resolves a communicator handle; a threadcomm gives the calling thread's
// view of it (an error if the thread is not in its active region).
//
// It is also how capi learns that a region used Go: between regions run in C, Go's
// activation of a single-process threadcomm is kept (parked) for the next start, so
// anything Go derives from it during a region (attributes, duplicates, groups, error
// handlers) would outlive the region. The first resolution in a region marks it;
// the region's finish then goes through Go, which ends the activation.
func lookupComm(ctx *C.mpix_ctx, h int32) (*core.Comm, error) {
	c, err := core.LookupComm(h)
	if err != nil || !c.IsThreadcomm() {
		return c, err
	}
	if p := core.ThreadcommExtOf(c); p != nil {
		t := (*C.mpix_tc_team)(p)
		state := (*uint32)(unsafe.Pointer(&t.state))
		dirty := (*uint32)(unsafe.Pointer(&t.dirty))
		switch atomic.LoadUint32(state) {
		case C.MPIX_TC_PARKED:
			// A region C started leaves the state parked: the thread is in it if its
			// context holds the activation.
			if ctx.tc_act != p {
				return nil, core.ErrThreadcommInactive(c)
			}
			fallthrough
		case C.MPIX_TC_ACTIVE:
			if atomic.LoadUint32(dirty) == 0 {
				atomic.StoreUint32(dirty, 1)
			}
		}
	}
	return core.ThreadView(c, uint64(ctx.threadcomm_key), int(ctx.threadcomm_thread))
}

func impl_MPIX_Threadcomm_init(ctx *C.mpix_ctx, comm *core.Comm, num_threads C.int, newthreadcomm *C.MPI_Comm) error {
	if ctx.threadcomm_key != 0 {
		return core.Errorf(core.ErrOther, "MPIX_Threadcomm_init must be called outside the parallel region of an active threadcomm")
	}
	c, err := core.ThreadcommInit(comm, int(num_threads))
	if err != nil {
		return err
	}
	putComm(newthreadcomm, c)
	return nil
}

func impl_MPIX_Threadcomm_start(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	if !threadcomm.IsThreadcomm() {
		return core.Errorf(core.ErrComm, "communicator is not a threadcomm (make one with MPIX_Threadcomm_init)")
	}
	// With an OpenMP runtime, a team whose size differs from num_threads would leave
	// the threads waiting for each other forever: refuse at once.
	if team := int(C.mpix_omp_team_size()); team > 0 && team != core.ThreadcommThreads(threadcomm) && ctx.threadcomm_key == 0 {
		return core.Errorf(core.ErrOther, "MPIX_Threadcomm_start from a team of %d threads, but the threadcomm was made for %d", team, core.ThreadcommThreads(threadcomm))
	}
	key, thread, err := core.ThreadcommStart(threadcomm, uint64(ctx.threadcomm_key))
	if err != nil {
		return err
	}
	ctx.threadcomm_key, ctx.threadcomm_thread = C.uint64_t(key), C.int32_t(thread)
	attachLocal(ctx, threadcomm, thread)
	return nil
}

// attachLocal moves the thread's messages to the C queues (tcfast.c) when the C fast
// paths are on (MPIX_FASTPATH): those between threads of this process, and when the
// threadcomm spans processes, those the others send to it too, which the engine
// forwards (tcSink), so that each thread matches everything it receives in one place.
// Its sends to other processes stay with the engine.
func attachLocal(ctx *C.mpix_ctx, h *core.Comm, thread int) {
	if C.mpix_fast_table == nil || C.mpix_fast_table.enabled == 0 {
		return
	}
	v, err := core.ThreadView(h, uint64(ctx.threadcomm_key), thread)
	if err != nil {
		return
	}
	n := core.ThreadcommThreads(h)
	act := core.ThreadcommExt(v, func() unsafe.Pointer {
		return unsafe.Pointer(C.mpix_tc_act_new(C.int(n), C.MPI_Comm(h.Handle), C.int(core.ThreadcommBase(h)), C.int(h.Size)))
	})
	if act == nil {
		return
	}
	core.SetThreadIdle(tcIdle)
	if !core.ThreadcommSingleProcess(h) {
		core.ThreadcommForward(v, tcSink{act: (*C.mpix_tc_act)(act)})
	}
	C.mpix_tc_act_activate((*C.mpix_tc_act)(act), ctx.threadcomm_key)
	ctx.tc_act, ctx.tc_handle = act, C.MPI_Comm(h.Handle)
	// Go numbered the threads: each takes the seat of its index (tcfast.c's take_seat
	// is for regions started in C).
	ctx.tc_seat, ctx.tc_seat_act = C.int32_t(thread), act
	core.SetLocalP2P(v, tcLocal{handle: C.MPI_Comm(h.Handle)})
}

// tcSink is core.RemoteSink over the C queues: the engine pushes what other
// processes send to this process's threads (under its lock, from any thread).
type tcSink struct{ act *C.mpix_tc_act }

func (s tcSink) Eager(thread, src, tag int, data []byte) bool {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	return C.mpix_tc_push_eager(s.act, C.int(thread), C.int(src), C.int(tag), p, C.int64_t(len(data))) != 0
}

func (s tcSink) Message(thread, src, tag int, size int64, msg int32) {
	C.mpix_tc_push_msg(s.act, C.int(thread), C.int(src), C.int(tag), C.int64_t(size), C.int32_t(msg))
}

func (s tcSink) Purge() { C.mpix_tc_purge(s.act) }

func (s tcSink) Settle() { C.mpix_tc_settle(s.act) }

// tcIdle is core's hook for a thread waiting in Go: it takes the messages for its
// receives posted in C (tcfast.c: mpix_tc_idle).
func tcIdle() bool { return C.mpix_tc_idle() != 0 }

// mpixTcPoll is a round of progress on the engine of threadcomm h's thread messages
// (a C receive waiting for another process).
//
//export mpixTcPoll
func mpixTcPoll(h C.MPI_Comm) { core.ThreadcommPoll(int32(h)) }

// mpixTcWaitRemote makes rounds of progress on threadcomm h's engine until the tail
// of the calling thread's queue moves from seen (something was pushed) or a while has
// passed: a C receive from another process waits here, in one cgo call rather than
// one per poll.
//
//export mpixTcWaitRemote
func mpixTcWaitRemote(h C.MPI_Comm, tail *unsafe.Pointer, seen unsafe.Pointer) {
	core.ThreadcommWaitRemote(int32(h), tail, seen)
}

// mpixTcMrecv receives a message from another process, which C matched, into cap
// bytes at buf; it sets *got to the bytes received and returns the error class. With
// rdv set, a rendezvous still arriving is left running and its Go request goes to
// *rdv (mpixTcPartnerDone completes it); otherwise it waits.
//
//export mpixTcMrecv
func mpixTcMrecv(msg C.int32_t, buf unsafe.Pointer, capBytes C.int64_t, got *C.int64_t, rdv *C.int32_t) C.int {
	st, pending := core.ThreadcommMrecv(int32(msg), buf, int64(capBytes), rdv != nil)
	if pending != nil {
		*rdv = C.int32_t(pending.Handle)
	}
	*got = C.int64_t(st.Bytes)
	return C.int(st.Error)
}

// mpixTcDropMessage forgets a message from another process nobody received.
//
//export mpixTcDropMessage
func mpixTcDropMessage(msg C.int32_t) { core.ThreadcommDropMessage(int32(msg)) }

// tcLocal is core.LocalP2P over the C queues, for calls the C fast paths leave to Go.
// It runs on the calling thread, whose C context tcfast.c reads.
type tcLocal struct{ handle C.MPI_Comm }

func (l tcLocal) Send(data []byte, dest, tag int, sync bool) error {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	s := C.int(0)
	if sync {
		s = 1
	}
	if rc := C.mpix_tc_send_bytes(l.handle, p, C.int64_t(len(data)), C.int(dest), C.int(tag), s); rc != 0 {
		return core.Errorf(int(rc), "threadcomm send between threads failed")
	}
	return nil
}

func (l tcLocal) Recv(buf []byte, source, tag int) (core.Status, error) {
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	var st C.MPI_Status
	rc := C.mpix_tc_recv_bytes(l.handle, p, C.int64_t(len(buf)), C.int(source), C.int(tag), &st)
	s := cStatus(&st)
	if rc != 0 {
		s.Error = int(rc)
		return s, core.Errorf(int(rc), "message truncated: %d bytes sent, receive buffer holds %d", s.Bytes, len(buf))
	}
	return s, nil
}

func (l tcLocal) Probe(source, tag int, block bool) (bool, core.Status) {
	var st C.MPI_Status
	b := C.int(0)
	if block {
		b = 1
	}
	found := C.mpix_tc_probe(l.handle, C.int(source), C.int(tag), b, &st) == 1
	return found, cStatus(&st)
}

// Requests made in Go on a thread whose receives run in C (derived datatypes,
// MPI_Isendrecv, MPI_Count forms, buffered and ready sends) are C requests over
// bytes: a contiguous datatype's are the user's buffer; any other's are a packed copy
// in C memory, registered here under the id the C request keeps. A receive's copy is
// unpacked into the user's buffer when C completes the request (mpixTcUnpack); a send's
// holds the data packed when it started (a persistent send packs again at each start,
// mpixTcPack). The copy goes when the request is released.
type packedBuf struct {
	buf   unsafe.Pointer
	count int64
	t     *datatype.Type
	data  unsafe.Pointer // C.malloc'd
	n     int64
	keep  bool // a persistent request's: kept until its request is freed
}

var packedBufs = struct {
	sync.Mutex
	next uint32
	m    map[uint32]*packedBuf
}{m: map[uint32]*packedBuf{}}

// packedTarget is the bytes C sends or receives for count elements of t at buf: the
// buffer itself when t is contiguous (id 0), else a packed copy registered under id.
func packedTarget(buf unsafe.Pointer, count int64, t *datatype.Type, keep bool) (dst unsafe.Pointer, n int64, id uint32, err error) {
	n = datatype.PackedSize(count, t)
	if t.Contiguous() || n == 0 {
		return unsafe.Add(buf, t.TrueLB()), n, 0, nil
	}
	p := &packedBuf{buf: buf, count: count, t: t, data: C.malloc(C.size_t(max(n, 1))), n: n, keep: keep}
	if p.data == nil {
		return nil, 0, 0, core.Errorf(core.ErrNoMem, "no memory for a %d-byte packed copy", n)
	}
	t.Ref()
	packedBufs.Lock()
	packedBufs.next++
	if packedBufs.next == 0 {
		packedBufs.next = 1
	}
	id = packedBufs.next
	packedBufs.m[id] = p
	packedBufs.Unlock()
	return p.data, n, id, nil
}

// tcIsend is a send to a thread of this process that C's fast paths left to Go;
// persistent makes it MPI_*_init's inactive request. A packed copy is filled now, and
// again at each start of a persistent request (mpixTcPack).
func tcIsend(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag C.int, comm *core.Comm, mode core.SendMode, persistent bool, req *C.MPI_Request) error {
	if err := core.CheckSendArgs(count, t, int(dest), int(tag), comm); err != nil {
		return err
	}
	src, n, id, err := packedTarget(buf, count, t, persistent)
	if err != nil {
		return err
	}
	if id != 0 && !persistent {
		mpixTcPack(C.uint32_t(id))
	}
	m, p := C.int(0), C.int(0) // mpix_tc_isend_packed's modes: standard and ready alike
	switch mode {
	case core.ModeSync:
		m = 1
	case core.ModeBuffered:
		m = 2
	}
	if persistent {
		p = 1
	}
	if rc := C.mpix_tc_isend_packed(C.MPI_Comm(comm.Handle), src, C.int64_t(n), dest, tag, m, C.uint32_t(id), p, req); rc != 0 {
		mpixTcUnpack(C.uint32_t(id), -1)
		return core.Errorf(int(rc), "threadcomm send between threads failed")
	}
	return nil
}

// mpixTcPack packs the user's data into the copy registered under id (a send's, as it
// starts).
//
//export mpixTcPack
func mpixTcPack(id C.uint32_t) {
	packedBufs.Lock()
	p := packedBufs.m[uint32(id)]
	packedBufs.Unlock()
	if p != nil {
		datatype.Pack(unsafe.Slice((*byte)(p.data), p.n), p.buf, p.count, p.t, 0)
	}
}

// tcIrecv starts such a receive; partner is a Go request the C one completes with
// (0: none).
func tcIrecv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag C.int, comm *core.Comm, partner int32, req *C.MPI_Request) error {
	dst, n, unpack, err := packedTarget(buf, count, t, false)
	if err != nil {
		return err
	}
	if rc := C.mpix_tc_irecv_packed(C.MPI_Comm(comm.Handle), dst, C.int64_t(n), source, tag, C.uint32_t(unpack), C.int32_t(partner), req); rc != 0 {
		mpixTcUnpack(C.uint32_t(unpack), -1)
		return core.Errorf(int(rc), "threadcomm receive failed")
	}
	return nil
}

// tcImrecv is MPI_Imrecv of a message the C queues' MPI_Mprobe took, for the
// datatypes C leaves to Go; the message handle becomes the request.
func tcImrecv(buf unsafe.Pointer, count int64, t *datatype.Type, message *C.MPI_Message, req *C.MPI_Request) error {
	if err := core.CheckBuffer(count, t); err != nil {
		return err
	}
	dst, n, unpack, err := packedTarget(buf, count, t, false)
	if err != nil {
		return err
	}
	if C.mpix_tc_mrecv_packed(message, dst, C.int64_t(n), C.uint32_t(unpack), req) != 0 {
		mpixTcUnpack(C.uint32_t(unpack), -1)
		return core.Errorf(core.ErrRequest, "invalid message handle 0x%x", uint32(*message))
	}
	return nil
}

// tcIsendrecv is MPI_Isendrecv(_replace) on such a thread, and with tcWait
// MPI_Sendrecv(_replace): a send to a thread of this process completes without its
// receiver, so it goes after the receive is posted; one to another process is a Go
// request that the C receive request completes with.
func tcIsendrecv(sbuf unsafe.Pointer, scount int64, stype *datatype.Type, dest, stag C.int,
	rbuf unsafe.Pointer, rcount int64, rtype *datatype.Type, source, rtag C.int, comm *core.Comm, replace bool, req *C.MPI_Request) error {
	if err := core.CheckRecvArgs(rcount, rtype, int(source), int(rtag), comm); err != nil {
		return err
	}
	if err := core.CheckSendArgs(scount, stype, int(dest), int(stag), comm); err != nil {
		return err
	}
	if replace { // the data leaves before the receive may overwrite it
		data := make([]byte, datatype.PackedSize(scount, stype))
		datatype.Pack(data, sbuf, scount, stype, 0)
		byteT, _ := datatype.Lookup(int32(C.MPI_BYTE))
		sbuf, scount, stype = unsafe.Pointer(unsafe.SliceData(data)), int64(len(data)), byteT
	}
	local := comm.LocalPeer(int(dest)) || dest == C.int(core.ProcNull)
	var partner *core.Request
	var ph int32
	if !local {
		r, err := core.Isend(sbuf, scount, stype, int(dest), int(stag), comm, core.ModeStandard)
		if err != nil {
			return err
		}
		partner, ph = r, r.Handle
	}
	if err := tcIrecv(rbuf, rcount, rtype, source, rtag, comm, ph, req); err != nil {
		if partner != nil {
			partner.Free()
		}
		return err
	}
	if local {
		return core.Send(sbuf, scount, stype, int(dest), int(stag), comm, core.ModeStandard)
	}
	return nil
}

// tcWait completes C request h and reports it as a blocking receive does: the status
// (its MPI_ERROR left alone) and the error.
func tcWait(h *C.MPI_Request, status *C.MPI_Status) error {
	var tmp C.MPI_Status
	st := status
	if ignoreStatus(st) {
		st = &tmp
	}
	keep := st.MPI_ERROR
	var flag C.int
	rc := C.mpix_tc_request_complete(h, 1, &flag, st)
	st.MPI_ERROR = keep
	s := cStatus(st)
	s.Error = int(rc)
	return statusErr(s)
}

// mpixTcPartnerDone tests (block: waits for) a Go request that a C request completes
// with: an MPI_Isendrecv's send to another process, or a rendezvous from one. It
// returns -1 while it runs; once done, the request is released and its error class
// returned.
//
//export mpixTcPartnerDone
func mpixTcPartnerDone(h C.int32_t, block C.int) C.int {
	r, err := core.LookupRequest(int32(h))
	if err != nil || r == nil {
		return 0
	}
	var st core.Status
	if block != 0 {
		st = core.Wait(r)
	} else {
		var done bool
		if done, st = core.Test(r); !done {
			return -1
		}
	}
	core.Recycle(r)
	return C.int(st.Error)
}

// mpixTcPartnerFree lets Go request h complete on its own (MPI_Request_free): the
// send of an MPI_Isendrecv whose C receive was freed.
//
//export mpixTcPartnerFree
func mpixTcPartnerFree(h C.int32_t) {
	if r, err := core.LookupRequest(int32(h)); err == nil && r != nil {
		r.Free()
	}
}

// tcRecvInit is MPI_Recv_init on such a thread, for the datatypes C leaves to Go.
func tcRecvInit(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag C.int, comm *core.Comm, req *C.MPI_Request) error {
	if err := core.CheckRecvArgs(count, t, int(source), int(tag), comm); err != nil {
		return err
	}
	dst, n, unpack, err := packedTarget(buf, count, t, true)
	if err != nil {
		return err
	}
	if rc := C.mpix_tc_recv_init_packed(C.MPI_Comm(comm.Handle), dst, C.int64_t(n), source, tag, C.uint32_t(unpack), req); rc != 0 {
		mpixTcUnpack(C.uint32_t(unpack), -1)
		return core.Errorf(int(rc), "threadcomm persistent receive failed")
	}
	return nil
}

// mpixTcUnpack unpacks the bytes a packed receive got; a nonpersistent receive's
// copy then goes, a persistent one's stays for its next start. With bytes -1 (the
// request was released; a send's always is) the copy goes without unpacking.
//
//export mpixTcUnpack
func mpixTcUnpack(id C.uint32_t, bytes C.int64_t) {
	packedBufs.Lock()
	p := packedBufs.m[uint32(id)]
	if p != nil && (bytes < 0 || !p.keep) {
		delete(packedBufs.m, uint32(id))
	}
	packedBufs.Unlock()
	if p == nil {
		return
	}
	if bytes > 0 {
		datatype.Unpack(unsafe.Slice((*byte)(p.data), min(int64(bytes), p.n)), p.buf, p.count, p.t, 0)
	}
	if bytes >= 0 && p.keep {
		return
	}
	C.free(p.data)
	p.t.Release()
}

// cStatus reads a status tcfast.c filled in.
func cStatus(st *C.MPI_Status) core.Status {
	return core.Status{Source: int(st.MPI_SOURCE), Tag: int(st.MPI_TAG), Bytes: statusCount(st), Cancelled: statusCancelled(st)}
}

// mpixTcRaise reports an error class found in C (a truncated message) through the
// error handler of comm, as procedure fn.
//
//export mpixTcRaise
func mpixTcRaise(fn *C.char, comm C.MPI_Comm, class C.int) C.int {
	name := C.GoString(fn)
	id := fnMPI_Recv
	for i, n := range funcNames {
		if n == name {
			id = funcID(i)
			break
		}
	}
	var target errTarget
	// The calling thread's view: its error handler is the one MPI_Comm_set_errhandler set.
	if c, err := lookupComm(C.tc_ctx(), int32(comm)); err == nil {
		target = c
	}
	msg := "operation failed"
	switch int(class) {
	case core.ErrTruncate:
		msg = "message truncated: the receive buffer is smaller than the message"
	case core.ErrInStatus:
		msg = "a request failed (see the statuses' MPI_ERROR)"
	}
	return raise(id, target, core.Errorf(int(class), "%s", msg))
}

func impl_MPIX_Threadcomm_finish(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	if !threadcomm.IsThreadcomm() {
		return core.Errorf(core.ErrComm, "communicator is not a threadcomm")
	}
	// Objects derived from the activation go now: this thread's attributes on the
	// threadcomm and on the duplicates it has not freed (delete callbacks run once per
	// thread).
	for _, d := range core.ThreadcommDups(threadcomm) {
		if err := deleteCommAttrs(d); err != nil {
			return err
		}
	}
	if err := deleteCommAttrs(threadcomm); err != nil {
		return err
	}
	if err := core.ThreadcommFinish(threadcomm); err != nil {
		return err
	}
	// The C queues were emptied by the C finish's barrier, which ran first
	// (tcfast.c: tc_finish) and sent this region here; they stay for the next one.
	ctx.tc_act, ctx.tc_handle = nil, 0
	ctx.threadcomm_key, ctx.threadcomm_thread = 0, -1
	return nil
}

func impl_MPIX_Threadcomm_free(ctx *C.mpix_ctx, threadcomm *C.MPI_Comm) error {
	c, err := core.LookupComm(int32(*threadcomm))
	if err != nil {
		return err
	}
	act := (*C.mpix_tc_act)(core.ThreadcommExtOf(c))
	if act != nil {
		// A region that ended in C left Go's activation parked: end it now, so that
		// free sees the threadcomm inactive (a running region, in C or Go, still
		// fails).
		t := (*C.mpix_tc_team)(unsafe.Pointer(act))
		if atomic.LoadUint32((*uint32)(unsafe.Pointer(&t.state))) == C.MPIX_TC_PARKED && C.mpix_tc_act_running(act) == 0 {
			core.ThreadcommEndParked(c)
			atomic.StoreUint32((*uint32)(unsafe.Pointer(&t.state)), C.MPIX_TC_GO)
		}
	}
	if err := core.ThreadcommFree(c); err != nil {
		return err
	}
	if act != nil {
		C.mpix_tc_act_free(act)
	}
	*threadcomm = C.MPI_Comm(core.NullHandle(core.KindComm))
	return nil
}

func impl_MPIX_Comm_test_threadcomm(ctx *C.mpix_ctx, comm *core.Comm, flag *C.int) error {
	*flag = 0
	if comm.IsThreadcomm() {
		*flag = 1
	}
	return nil
}

// The spelling of the paper's listings.

func impl_MPI_Threadcomm_init(ctx *C.mpix_ctx, comm *core.Comm, num_threads C.int, newthreadcomm *C.MPI_Comm) error {
	return impl_MPIX_Threadcomm_init(ctx, comm, num_threads, newthreadcomm)
}

func impl_MPI_Threadcomm_start(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	return impl_MPIX_Threadcomm_start(ctx, threadcomm)
}

func impl_MPI_Threadcomm_finish(ctx *C.mpix_ctx, threadcomm *core.Comm) error {
	return impl_MPIX_Threadcomm_finish(ctx, threadcomm)
}

func impl_MPI_Threadcomm_free(ctx *C.mpix_ctx, threadcomm *C.MPI_Comm) error {
	return impl_MPIX_Threadcomm_free(ctx, threadcomm)
}

// notOnThreadcomm rejects the communicator constructors a threadcomm does not support.
func notOnThreadcomm(c *core.Comm, what string) error {
	if c.IsThreadcomm() {
		return core.Errorf(core.ErrComm, "%s is not supported on a threadcomm (MPI_Comm_dup is)", what)
	}
	return nil
}

// dupThreadcomm is MPI_Comm_dup inside the region: every thread calls it and gets its
// view of one new threadcomm, active until the activation's finish, carrying copies
// of the thread's attributes.
func dupThreadcomm(comm *core.Comm, newcomm *C.MPI_Comm, request *C.MPI_Request) error {
	if request != nil {
		return core.Errorf(core.ErrComm, "MPI_Comm_idup is not supported on a threadcomm (MPI_Comm_dup is)")
	}
	v, err := core.ThreadcommDup(comm)
	if err != nil {
		return err
	}
	if err := copyCommAttrs(comm, v); err != nil {
		return err
	}
	putComm(newcomm, v)
	return nil
}

// freeThreadcommView is MPI_Comm_free on the calling thread's view of a duplicate.
func freeThreadcommView(v *core.Comm, comm *C.MPI_Comm) error {
	if err := core.ThreadcommFreeView(v); err != nil {
		return err
	}
	if err := deleteCommAttrs(v); err != nil {
		return err
	}
	*comm = C.MPI_Comm(core.NullHandle(core.KindComm))
	return nil
}
