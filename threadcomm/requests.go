package threadcomm

/*
#include <stdlib.h>
#include "threadcomm.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

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

// Isend is a send to a thread of this process that C's fast paths left to Go;
// persistent makes it MPI_*_init's inactive request. A packed copy is filled now, and
// again at each start of a persistent request (mpixTcPack).
func Isend(buf unsafe.Pointer, count int64, t *datatype.Type, dest, tag int, comm *core.Comm, mode core.SendMode, persistent bool, req *int32) error {
	if err := core.CheckSendArgs(count, t, dest, tag, comm); err != nil {
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
	if rc := C.mpix_tc_isend_packed(C.MPI_Comm(comm.Handle), src, C.int64_t(n), C.int(dest), C.int(tag), m, C.uint32_t(id), p, (*C.MPI_Request)(req)); rc != 0 {
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

// Irecv starts such a receive; partner is a Go request the C one completes with
// (0: none).
func Irecv(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag int, comm *core.Comm, partner int32, req *int32) error {
	dst, n, unpack, err := packedTarget(buf, count, t, false)
	if err != nil {
		return err
	}
	if rc := C.mpix_tc_irecv_packed(C.MPI_Comm(comm.Handle), dst, C.int64_t(n), C.int(source), C.int(tag), C.uint32_t(unpack), C.int32_t(partner), (*C.MPI_Request)(req)); rc != 0 {
		mpixTcUnpack(C.uint32_t(unpack), -1)
		return core.Errorf(int(rc), "threadcomm receive failed")
	}
	return nil
}

// Imrecv is MPI_Imrecv of a message the C queues' MPI_Mprobe took, for the
// datatypes C leaves to Go; the message handle becomes the request.
func Imrecv(buf unsafe.Pointer, count int64, t *datatype.Type, message *int32, req *int32) error {
	if err := core.CheckBuffer(count, t); err != nil {
		return err
	}
	dst, n, unpack, err := packedTarget(buf, count, t, false)
	if err != nil {
		return err
	}
	if C.mpix_tc_mrecv_packed((*C.MPI_Message)(message), dst, C.int64_t(n), C.uint32_t(unpack), (*C.MPI_Request)(req)) != 0 {
		mpixTcUnpack(C.uint32_t(unpack), -1)
		return core.Errorf(core.ErrRequest, "invalid message handle 0x%x", uint32(*message))
	}
	return nil
}

// Isendrecv is MPI_Isendrecv(_replace) on such a thread, and with a wait
// MPI_Sendrecv(_replace): a send to a thread of this process completes without its
// receiver, so it goes after the receive is posted; one to another process is a Go
// request that the C receive request completes with.
func Isendrecv(sbuf unsafe.Pointer, scount int64, stype *datatype.Type, dest, stag int,
	rbuf unsafe.Pointer, rcount int64, rtype *datatype.Type, source, rtag int, comm *core.Comm, replace bool, req *int32) error {
	if err := core.CheckRecvArgs(rcount, rtype, source, rtag, comm); err != nil {
		return err
	}
	if err := core.CheckSendArgs(scount, stype, dest, stag, comm); err != nil {
		return err
	}
	if replace { // the data leaves before the receive may overwrite it
		data := make([]byte, datatype.PackedSize(scount, stype))
		datatype.Pack(data, sbuf, scount, stype, 0)
		byteT, _ := datatype.Lookup(int32(C.MPI_BYTE))
		sbuf, scount, stype = unsafe.Pointer(unsafe.SliceData(data)), int64(len(data)), byteT
	}
	local := comm.LocalPeer(dest) || dest == core.ProcNull
	var partner *core.Request
	var ph int32
	if !local {
		r, err := core.Isend(sbuf, scount, stype, dest, stag, comm, core.ModeStandard)
		if err != nil {
			return err
		}
		partner, ph = r, r.Handle
	}
	if err := Irecv(rbuf, rcount, rtype, source, rtag, comm, ph, req); err != nil {
		if partner != nil {
			partner.Free()
		}
		return err
	}
	if local {
		return core.Send(sbuf, scount, stype, dest, stag, comm, core.ModeStandard)
	}
	return nil
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

// RecvInit is MPI_Recv_init on such a thread, for the datatypes C leaves to Go.
func RecvInit(buf unsafe.Pointer, count int64, t *datatype.Type, source, tag int, comm *core.Comm, req *int32) error {
	if err := core.CheckRecvArgs(count, t, source, tag, comm); err != nil {
		return err
	}
	dst, n, unpack, err := packedTarget(buf, count, t, true)
	if err != nil {
		return err
	}
	if rc := C.mpix_tc_recv_init_packed(C.MPI_Comm(comm.Handle), dst, C.int64_t(n), C.int(source), C.int(tag), C.uint32_t(unpack), (*C.MPI_Request)(req)); rc != 0 {
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
