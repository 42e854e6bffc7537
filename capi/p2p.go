package main

/*
#include "capi.h"
#include "threadcomm.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	tc "mpix/threadcomm"
)

// Point-to-point bindings. Each converts C values and calls core; the int and _c
// (MPI_Count) forms share one Go function.

// ignoreStatus reports whether st is MPI_STATUS_IGNORE (or NULL).
func ignoreStatus(st *C.MPI_Status) bool { return st == nil || st == C.MPI_STATUS_IGNORE }

// putStatus fills a C status from a core status (MPI_ERROR is left alone: only the
// multiple-completion calls set it).
func putStatus(st *C.MPI_Status, s core.Status) {
	if ignoreStatus(st) {
		return
	}
	st.MPI_SOURCE = C.int(s.Source)
	st.MPI_TAG = C.int(s.Tag)
	setStatusCount(st, s.Bytes)
	setStatusCancelled(st, s.Cancelled)
}

// putEmptyStatus stores the standard's empty status (MPI-4.1 §3.7.3) with its
// error field: source MPI_ANY_SOURCE, tag MPI_ANY_TAG, error MPI_SUCCESS, count 0, not
// cancelled. MPI_Request_get_status reports it for MPI_REQUEST_NULL, as MPICH does;
// waits and tests leave MPI_ERROR alone (§3.2.5: only a multiple completion that
// returns MPI_ERR_IN_STATUS writes it) and store the rest with putStatus.
func putEmptyStatus(st *C.MPI_Status) {
	if ignoreStatus(st) {
		return
	}
	putStatus(st, core.Status{Source: core.AnySource, Tag: core.AnyTag})
	st.MPI_ERROR = C.int(core.Success)
}

// statusErr turns a completed operation's error into the call's error.
func statusErr(s core.Status) error {
	switch s.Error {
	case core.Success:
		return nil
	case core.ErrTruncate:
		return core.Errorf(core.ErrTruncate, "message truncated: it is larger than the receive buffer (%d bytes)", s.Bytes)
	}
	return core.Errorf(s.Error, "operation failed")
}

func send(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag C.int, comm *core.Comm, mode core.SendMode) error {
	return core.Send(buf, count, t, int(dest), int(tag), comm, mode)
}

func isend(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag C.int, comm *core.Comm, mode core.SendMode, req *C.MPI_Request) error {
	if comm.LocalPeer(int(dest)) { // to a thread whose receives run in C (package threadcomm)
		return tc.Isend(buf, count, t, int(dest), int(tag), comm, mode, false, (*int32)(unsafe.Pointer(req)))
	}
	r, err := core.Isend(buf, count, t, int(dest), int(tag), comm, mode)
	if err != nil {
		return err
	}
	*req = C.MPI_Request(r.Handle)
	return nil
}

func recv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag C.int, comm *core.Comm, status *C.MPI_Status) error {
	st, err := core.Recv(buf, count, t, int(source), int(tag), comm)
	if err != nil {
		return err
	}
	putStatus(status, st)
	return statusErr(st)
}

func irecv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag C.int, comm *core.Comm, req *C.MPI_Request) error {
	if comm.HasLocalP2P() && source != C.int(core.ProcNull) {
		// The thread's receives run in C (package threadcomm); the C fast path took the
		// builtin types, this is the rest.
		if err := core.CheckRecvArgs(count, t, int(source), int(tag), comm); err != nil {
			return err
		}
		return tc.Irecv(buf, count, t, int(source), int(tag), comm, 0, (*int32)(unsafe.Pointer(req)))
	}
	r, err := core.Irecv(buf, count, t, int(source), int(tag), comm)
	if err != nil {
		return err
	}
	*req = C.MPI_Request(r.Handle)
	return nil
}

func impl_MPI_Send_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm) error {
	return send(buf, int64(count), dt, dest, tag, comm, core.ModeStandard)
}
func impl_MPI_Ssend_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm) error {
	return send(buf, int64(count), dt, dest, tag, comm, core.ModeSync)
}
func impl_MPI_Rsend_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm) error {
	return send(buf, int64(count), dt, dest, tag, comm, core.ModeReady)
}
func impl_MPI_Bsend_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm) error {
	return send(buf, int64(count), dt, dest, tag, comm, core.ModeBuffered)
}

func impl_MPI_Isend_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return isend(buf, int64(count), dt, dest, tag, comm, core.ModeStandard, request)
}
func impl_MPI_Issend_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return isend(buf, int64(count), dt, dest, tag, comm, core.ModeSync, request)
}
func impl_MPI_Irsend_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return isend(buf, int64(count), dt, dest, tag, comm, core.ModeReady, request)
}
func impl_MPI_Ibsend_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return isend(buf, int64(count), dt, dest, tag, comm, core.ModeBuffered, request)
}

func impl_MPI_Recv_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, source C.int, tag C.int, comm *core.Comm, status *C.MPI_Status) error {
	return recv(buf, int64(count), dt, source, tag, comm, status)
}
func impl_MPI_Irecv_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, source C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return irecv(buf, int64(count), dt, source, tag, comm, request)
}

// ---- send-receive ----

func sendrecv(sbuf unsafe.Pointer, scount int64, stype *datatype.Type, dest, stag C.int,
	rbuf unsafe.Pointer, rcount int64, rtype *datatype.Type, source, rtag C.int, comm *core.Comm, replace bool, status *C.MPI_Status) error {
	if comm.HasLocalP2P() { // the thread's receives run in C (package threadcomm)
		var h C.MPI_Request
		if err := tc.Isendrecv(sbuf, scount, stype, int(dest), int(stag), rbuf, rcount, rtype, int(source), int(rtag), comm, replace, (*int32)(unsafe.Pointer(&h))); err != nil {
			return err
		}
		return tcWait(&h, status)
	}
	r, err := core.Isendrecv(sbuf, scount, stype, int(dest), int(stag), rbuf, rcount, rtype, int(source), int(rtag), comm, replace)
	if err != nil {
		return err
	}
	st := core.Wait(r)
	putStatus(status, st)
	return statusErr(st)
}

func isendrecv(sbuf unsafe.Pointer, scount int64, stype *datatype.Type, dest, stag C.int,
	rbuf unsafe.Pointer, rcount int64, rtype *datatype.Type, source, rtag C.int, comm *core.Comm, replace bool, req *C.MPI_Request) error {
	if comm.HasLocalP2P() {
		return tc.Isendrecv(sbuf, scount, stype, int(dest), int(stag), rbuf, rcount, rtype, int(source), int(rtag), comm, replace, (*int32)(unsafe.Pointer(req)))
	}
	r, err := core.Isendrecv(sbuf, scount, stype, int(dest), int(stag), rbuf, rcount, rtype, int(source), int(rtag), comm, replace)
	if err != nil {
		return err
	}
	*req = C.MPI_Request(r.Handle)
	return nil
}

func impl_MPI_Sendrecv_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, dest C.int, sendtag C.int, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, source C.int, recvtag C.int, comm *core.Comm, status *C.MPI_Status) error {
	return sendrecv(sendbuf, int64(sendcount), sendtype, dest, sendtag, recvbuf, int64(recvcount), recvtype, source, recvtag, comm, false, status)
}
func impl_MPI_Sendrecv_replace_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, sendtag C.int, source C.int, recvtag C.int, comm *core.Comm, status *C.MPI_Status) error {
	return sendrecv(buf, int64(count), dt, dest, sendtag, buf, int64(count), dt, source, recvtag, comm, true, status)
}
func impl_MPI_Isendrecv_c(ctx *C.mpix_ctx, sendbuf unsafe.Pointer, sendcount C.MPI_Count, sendtype *datatype.Type, dest C.int, sendtag C.int, recvbuf unsafe.Pointer, recvcount C.MPI_Count, recvtype *datatype.Type, source C.int, recvtag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return isendrecv(sendbuf, int64(sendcount), sendtype, dest, sendtag, recvbuf, int64(recvcount), recvtype, source, recvtag, comm, false, request)
}
func impl_MPI_Isendrecv_replace_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, sendtag C.int, source C.int, recvtag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return isendrecv(buf, int64(count), dt, dest, sendtag, buf, int64(count), dt, source, recvtag, comm, true, request)
}

// ---- persistent requests ----

func sendInit(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag C.int, comm *core.Comm, mode core.SendMode, req *C.MPI_Request) error {
	if comm.LocalPeer(int(dest)) {
		return tc.Isend(buf, count, t, int(dest), int(tag), comm, mode, true, (*int32)(unsafe.Pointer(req)))
	}
	r, err := core.SendInit(buf, count, t, int(dest), int(tag), comm, mode)
	if err != nil {
		return err
	}
	*req = C.MPI_Request(r.Handle)
	return nil
}

func impl_MPI_Send_init_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return sendInit(buf, int64(count), dt, dest, tag, comm, core.ModeStandard, request)
}
func impl_MPI_Ssend_init_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return sendInit(buf, int64(count), dt, dest, tag, comm, core.ModeSync, request)
}
func impl_MPI_Rsend_init_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return sendInit(buf, int64(count), dt, dest, tag, comm, core.ModeReady, request)
}
func impl_MPI_Bsend_init_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, dest C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return sendInit(buf, int64(count), dt, dest, tag, comm, core.ModeBuffered, request)
}

func recvInit(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag C.int, comm *core.Comm, req *C.MPI_Request) error {
	if comm.HasLocalP2P() && source != C.int(core.ProcNull) { // the types C's fast path left
		return tc.RecvInit(buf, count, t, int(source), int(tag), comm, (*int32)(unsafe.Pointer(req)))
	}
	r, err := core.RecvInit(buf, count, t, int(source), int(tag), comm)
	if err != nil {
		return err
	}
	*req = C.MPI_Request(r.Handle)
	return nil
}

func impl_MPI_Recv_init_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, source C.int, tag C.int, comm *core.Comm, request *C.MPI_Request) error {
	return recvInit(buf, int64(count), dt, source, tag, comm, request)
}

func impl_MPI_Start(ctx *C.mpix_ctx, request *C.MPI_Request) error {
	r, err := core.LookupRequest(int32(*request))
	if err != nil {
		return err
	}
	if r == nil {
		return core.Errorf(core.ErrRequest, "MPI_Start on MPI_REQUEST_NULL")
	}
	return core.Start(r)
}

// impl_MPI_Startall checks every request before it starts any, as MPICH does: a bad
// one in the array leaves all of them inactive. (With a C request in it, the C fast
// path starts the array and comes here only when something is wrong.)
func impl_MPI_Startall(ctx *C.mpix_ctx, count C.int, requests *C.MPI_Request) error {
	if count < 0 {
		return core.Errorf(core.ErrCount, "count must not be negative (%d)", int(count))
	}
	hs := requestSlice(requests, count)
	for i, h := range hs {
		if err := startable(h); err != nil {
			return core.Errorf(core.AsError(err).Class, "array_of_requests[%d]: %v", i, err)
		}
	}
	for i := range hs {
		if isThreadcommRequest(hs[i]) {
			if C.mpix_tc_start_request(hs[i]) == 0 {
				return core.Errorf(core.ErrRequest, "array_of_requests[%d]: the threadcomm request cannot start here", i)
			}
			continue
		}
		if err := impl_MPI_Start(ctx, &hs[i]); err != nil {
			return err
		}
	}
	return nil
}

// startable reports why MPI_Start cannot start h now, or nil.
func startable(h C.MPI_Request) error {
	if isThreadcommRequest(h) {
		if C.mpix_tc_startable(h) == 0 {
			return core.Errorf(core.ErrRequest, "request 0x%x cannot start: it is active or not persistent, or this thread is outside its threadcomm's region", uint32(h))
		}
		return nil
	}
	r, err := core.LookupRequest(int32(h))
	if err != nil {
		return err
	}
	if r == nil {
		return core.Errorf(core.ErrRequest, "MPI_Start on MPI_REQUEST_NULL")
	}
	return core.CheckStart(r)
}

// ---- probe and matched receive ----

func impl_MPI_Iprobe(ctx *C.mpix_ctx, source C.int, tag C.int, comm *core.Comm, flag *C.int, status *C.MPI_Status) error {
	found, st, err := core.Iprobe(int(source), int(tag), comm)
	if err != nil {
		return err
	}
	setFlag(flag, found)
	if found {
		putStatus(status, st)
	}
	return nil
}

func impl_MPI_Probe(ctx *C.mpix_ctx, source C.int, tag C.int, comm *core.Comm, status *C.MPI_Status) error {
	st, err := core.Probe(int(source), int(tag), comm)
	if err != nil {
		return err
	}
	putStatus(status, st)
	return nil
}

func impl_MPI_Improbe(ctx *C.mpix_ctx, source C.int, tag C.int, comm *core.Comm, flag *C.int, message *C.MPI_Message, status *C.MPI_Status) error {
	m, st, err := core.Improbe(int(source), int(tag), comm)
	if err != nil {
		return err
	}
	setFlag(flag, m != nil)
	if m != nil {
		*message = C.MPI_Message(m.Handle)
		putStatus(status, st)
	}
	return nil
}

func impl_MPI_Mprobe(ctx *C.mpix_ctx, source C.int, tag C.int, comm *core.Comm, message *C.MPI_Message, status *C.MPI_Status) error {
	m, st, err := core.Mprobe(int(source), int(tag), comm)
	if err != nil {
		return err
	}
	*message = C.MPI_Message(m.Handle)
	putStatus(status, st)
	return nil
}

func imrecv(buf unsafe.Pointer, count int64, t *datatype.Type, message *C.MPI_Message) (*core.Request, error) {
	m, err := core.LookupMessage(int32(*message))
	if err != nil {
		return nil, err
	}
	r, err := core.Imrecv(buf, count, t, m)
	if err != nil {
		return nil, err
	}
	*message = C.MPI_MESSAGE_NULL
	return r, nil
}

func mrecv(buf unsafe.Pointer, count int64, t *datatype.Type, message *C.MPI_Message, status *C.MPI_Status) error {
	if isThreadcommRequest(C.MPI_Request(*message)) { // taken by the C queues' MPI_Mprobe
		var h C.MPI_Request
		if err := tc.Imrecv(buf, count, t, (*int32)(unsafe.Pointer(message)), (*int32)(unsafe.Pointer(&h))); err != nil {
			return err
		}
		return tcWait(&h, status)
	}
	r, err := imrecv(buf, count, t, message)
	if err != nil {
		return err
	}
	st := core.Wait(r)
	putStatus(status, st)
	return statusErr(st)
}

func impl_MPI_Mrecv_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, message *C.MPI_Message, status *C.MPI_Status) error {
	return mrecv(buf, int64(count), dt, message, status)
}
func impl_MPI_Imrecv_c(ctx *C.mpix_ctx, buf unsafe.Pointer, count C.MPI_Count, dt *datatype.Type, message *C.MPI_Message, request *C.MPI_Request) error {
	if isThreadcommRequest(C.MPI_Request(*message)) { // taken by the C queues' MPI_Mprobe
		return tc.Imrecv(buf, int64(count), dt, (*int32)(unsafe.Pointer(message)), (*int32)(unsafe.Pointer(request)))
	}
	r, err := imrecv(buf, int64(count), dt, message)
	if err == nil {
		*request = C.MPI_Request(r.Handle)
	}
	return err
}

// ---- buffered-send buffer ----

func bufferAttach(buffer unsafe.Pointer, size int64) error {
	return core.BufferAttach(buffer, size, buffer == C.MPI_BUFFER_AUTOMATIC)
}

func bufferDetach(addr unsafe.Pointer) (int64, error) {
	buf, size, automatic, err := core.BufferDetach()
	if err != nil {
		return 0, err
	}
	if addr != nil {
		if automatic {
			buf = C.MPI_BUFFER_AUTOMATIC
		}
		*(*unsafe.Pointer)(addr) = buf
	}
	return size, nil
}

func impl_MPI_Buffer_attach_c(ctx *C.mpix_ctx, buffer unsafe.Pointer, size C.MPI_Count) error {
	return bufferAttach(buffer, int64(size))
}
func impl_MPI_Buffer_detach(ctx *C.mpix_ctx, buffer_addr unsafe.Pointer, size *C.int) error {
	n, err := bufferDetach(buffer_addr)
	if err == nil {
		*size = C.int(n)
	}
	return err
}
func impl_MPI_Buffer_detach_c(ctx *C.mpix_ctx, buffer_addr unsafe.Pointer, size *C.MPI_Count) error {
	n, err := bufferDetach(buffer_addr)
	if err == nil {
		*size = C.MPI_Count(n)
	}
	return err
}

// mpixgo_recv_wait finishes an MPI_Recv that shm's C path posted but could not
// complete (capi/dispatch.c): MPI_Wait's work on the posted request, with an error
// reported as MPI_Recv's, the call the user made, on comm's error handler.
//
//export mpixgo_recv_wait
func mpixgo_recv_wait(ctx *C.mpix_ctx, comm C.MPI_Comm, request *C.MPI_Request, status *C.MPI_Status) (rc C.int) {
	defer recoverCall(fnMPI_Recv, &rc)
	c, err := lookupComm(ctx, int32(comm))
	if err != nil {
		return raise(fnMPI_Recv, nil, err)
	}
	if err := impl_MPI_Wait(ctx, request, status); err != nil {
		return raise(fnMPI_Recv, c, err)
	}
	return 0
}
