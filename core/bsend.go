package core

import (
	"sync"
	"unsafe"

	"mpix/core/datatype"
)

// BsendOverhead is MPI_BSEND_OVERHEAD (MPICH's value): what each buffered message
// costs in the attached buffer besides its packed data.
const BsendOverhead = 96

// The attached buffer of MPI_Buffer_attach. mpix copies buffered messages into Go
// memory, but accounts their size against the attached space exactly as if it stored
// them there, so programs see MPI's MPI_ERR_BUFFER behaviour.
var bsendBuf struct {
	mu        sync.Mutex
	attached  bool
	automatic bool // MPI_BUFFER_AUTOMATIC (MPI-4.1): no limit
	addr      unsafe.Pointer
	size      int64
	used      int64
	inflight  []*Request
}

// BufferAttach implements MPI_Buffer_attach.
func BufferAttach(addr unsafe.Pointer, size int64, automatic bool) error {
	b := &bsendBuf
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.attached {
		return Errorf(ErrBuffer, "a buffer is already attached (detach it first)")
	}
	if size < 0 {
		return Errorf(ErrArg, "buffer size must not be negative (%d)", size)
	}
	b.attached, b.automatic, b.addr, b.size, b.used = true, automatic, addr, size, 0
	return nil
}

// BufferDetach implements MPI_Buffer_detach: it waits until every buffered message
// has left, then returns the buffer.
func BufferDetach() (unsafe.Pointer, int64, bool, error) {
	b := &bsendBuf
	b.mu.Lock()
	if !b.attached {
		b.mu.Unlock()
		return nil, 0, false, Errorf(ErrBuffer, "no buffer is attached")
	}
	inflight := b.inflight
	b.inflight = nil
	b.mu.Unlock()
	for _, r := range inflight {
		WaitUntil(r.Done)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.attached = false
	return b.addr, b.size, b.automatic, nil
}

// bufferedSend copies the message of a buffered-mode request into accounted space and
// sends the copy on an internal request; the user's request completes at once.
func bufferedSend(r *Request) error {
	size := packedSize(r.count, r.dtype)
	b := &bsendBuf
	b.mu.Lock()
	if !b.attached {
		b.mu.Unlock()
		return Errorf(ErrBuffer, "MPI_Bsend needs a buffer attached with MPI_Buffer_attach")
	}
	// Reclaim the space of messages that have left.
	live := b.inflight[:0]
	for _, q := range b.inflight {
		if q.Done() {
			b.used -= packedSize(q.count, q.dtype) + BsendOverhead
		} else {
			live = append(live, q)
		}
	}
	b.inflight = live
	need := size + BsendOverhead
	if !b.automatic && b.used+need > b.size {
		free := b.size - b.used
		b.mu.Unlock()
		return Errorf(ErrBuffer, "attached buffer too small: message needs %d bytes (with MPI_BSEND_OVERHEAD), %d free", need, free)
	}
	b.used += need
	q := &Request{kind: reqSend, buf: r.buf, count: r.count, dtype: r.dtype, peer: r.peer,
		tag: r.tag, comm: r.comm, eng: r.eng, mode: ModeStandard, active: true}
	q.scratch = make([]byte, size)
	datatype.Pack(q.scratch, r.buf, r.count, r.dtype, 0)
	r.dtype.Ref()
	b.inflight = append(b.inflight, q)
	b.mu.Unlock()

	q.eng.lock()
	err := q.eng.startSend(q, q.comm.peerWorld(q.peer))
	q.eng.unlock()
	return err
}
