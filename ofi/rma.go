//go:build cgo && !mpix_noofi

package ofi

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"mpix/transport"
)

// One-sided access (transport.RemoteMemory): fi_write and fi_read on memory peers
// registered, when the provider grants FI_RMA with remote read and write. See doc.go.

var _ transport.RemoteMemory = (*Endpoint)(nil)

// EnvRMA is the environment variable that, set to 0, keeps Open from asking for RMA:
// the endpoint then answers transport.ErrNoRemoteMemory, as with a provider without it.
const EnvRMA = "MPIX_OFI_RMA"

// maxRMA bounds one fi_write or fi_read; longer transfers are split.
const maxRMA = 1 << 30

// The key a registration publishes, little-endian:
//
//	0  magic 'M', version 1
//	2  flags: keyVirt (addresses are absolute, FI_MR_VIRT_ADDR), keyRaw (FI_MR_RAW)
//	4  length of the raw key (keyRaw), else 0
//	8  the registration's address in the target's memory
//	16 its length in bytes
//	24 the provider's key, or (keyRaw) the base address fi_mr_map_raw takes
//	32 the raw key (keyRaw)
const (
	keyMagic0  = 'M'
	keyVersion = 1
	keyVirt    = 1 << 0
	keyRaw     = 1 << 1
	keyHeader  = 32
	maxRawKey  = 256
)

// registration is what RegisterMemory hands out as reg.
type registration struct {
	ep   *Endpoint
	mr   *C.struct_fid_mr // nil: an empty registration (0 bytes), or deregistered
	base uintptr
	n    int64
	done bool // deregistered, or released by Close
}

// rmaState is the endpoint's one-sided side: views of the C counters, the
// registrations to release at Close, the raw keys mapped for peers, and the Go
// memory pinned for operations in flight, per peer.
type rmaState struct {
	on      bool
	virt    bool // FI_MR_VIRT_ADDR: remote addresses are absolute
	raw     bool // FI_MR_RAW
	pending []C.int32_t
	errs    []C.int32_t
	regs    map[*registration]struct{}
	mapped  map[string]uint64 // raw key bytes -> mapped key
	pins    []runtime.Pinner
	pinned  []bool
	// Operations not posted yet: the provider pushed back (no slot, a full queue, or,
	// on tcp;ofi_rxm, a connection to the peer still being set up, which needs the
	// peer's progress). Progress posts them in order; queued counts them per peer.
	queue  []rmaReq
	head   int
	queued []int32
	qerr   []error // per peer: the first error posting a queued operation
}

// rmaReq is one operation waiting to be posted.
type rmaReq struct {
	write       bool
	withData    bool // fi_writedata: data reaches the target's completion queue
	peer        int32
	buf         []byte
	raddr, rkey uint64
	data        uint64
	atomic      *atomicReq // an atomic (atomic.go) instead of a write or read
}

func (e *Endpoint) initRMA() {
	s := e.s
	if s.rma == 0 {
		return
	}
	mode := s.info.domain_attr.mr_mode
	e.rma = rmaState{
		on:      true,
		virt:    mode&C.FI_MR_VIRT_ADDR != 0,
		raw:     mode&C.FI_MR_RAW != 0,
		pending: unsafe.Slice((*C.int32_t)(unsafe.Pointer(s.rma_pending)), e.size),
		errs:    unsafe.Slice((*C.int32_t)(unsafe.Pointer(s.rma_err)), e.size),
		regs:    map[*registration]struct{}{},
		pins:    make([]runtime.Pinner, e.size),
		pinned:  make([]bool, e.size),
		queued:  make([]int32, e.size),
		qerr:    make([]error, e.size),
	}
}

// RMA reports whether the endpoint reads and writes peers' memory (the provider
// granted FI_RMA and EnvRMA did not turn it off).
func (e *Endpoint) RMA() bool { return e.s != nil && e.rma.on }

// RegisterMemory registers n bytes at base for peers to read and write and returns
// the key they need (transport.RemoteMemory). n == 0 gives a key that every access
// is refused with, and no libfabric registration.
func (e *Endpoint) RegisterMemory(base unsafe.Pointer, n int64) ([]byte, any, error) {
	if e.s == nil {
		return nil, nil, errClosed
	}
	if !e.rma.on {
		return nil, nil, transport.ErrNoRemoteMemory
	}
	if n < 0 || (n > 0 && base == nil) {
		return nil, nil, fmt.Errorf("ofi: RegisterMemory: %d bytes at %p", n, base)
	}
	r := &registration{ep: e, base: uintptr(base), n: n}
	var key, rawBase C.uint64_t
	var raw [maxRawKey]byte
	rawLen := C.size_t(0)
	if n > 0 {
		rawLen = C.size_t(len(raw))
		rc := C.mpix_ofi_mr_reg(e.s, base, C.size_t(n), &r.mr, &key, (*C.uint8_t)(unsafe.Pointer(&raw[0])), &rawLen, &rawBase)
		if rc != 0 {
			return nil, nil, fiError("fi_mr_reg", rc)
		}
		e.rma.regs[r] = struct{}{}
	}
	flags := byte(0)
	if e.rma.virt {
		flags |= keyVirt
	}
	word := uint64(key)
	if e.rma.raw {
		flags |= keyRaw
		word = uint64(rawBase)
	} else {
		rawLen = 0
	}
	k := make([]byte, keyHeader+int(rawLen))
	k[0], k[1], k[2] = keyMagic0, keyVersion, flags
	binary.LittleEndian.PutUint32(k[4:], uint32(rawLen))
	binary.LittleEndian.PutUint64(k[8:], uint64(r.base))
	binary.LittleEndian.PutUint64(k[16:], uint64(n))
	binary.LittleEndian.PutUint64(k[24:], word)
	copy(k[keyHeader:], raw[:rawLen])
	return k, r, nil
}

// DeregisterMemory releases a registration RegisterMemory made on this endpoint.
// Peers' later accesses with its key fail at the target.
func (e *Endpoint) DeregisterMemory(reg any) error {
	r, ok := reg.(*registration)
	if !ok || r == nil || r.ep != e {
		return fmt.Errorf("ofi: DeregisterMemory: %T is not a registration of this endpoint", reg)
	}
	if r.done {
		if e.s == nil {
			return nil // Close released it
		}
		return errors.New("ofi: DeregisterMemory: already deregistered")
	}
	r.done = true
	if r.mr == nil {
		return nil // 0 bytes
	}
	delete(e.rma.regs, r)
	mr := r.mr
	r.mr = nil
	if rc := C.mpix_ofi_mr_close(mr); rc != 0 {
		return fiError("fi_close (MR)", rc)
	}
	return nil
}

// target checks an access of n bytes at addr against key and returns the address and
// key the provider takes. Every field of the key is checked against this endpoint's
// modes: a key from another provider, a truncated one or an address outside the
// registration is refused here, before anything is posted.
func (e *Endpoint) target(key []byte, addr uint64, n int) (raddr, rkey uint64, err error) {
	if len(key) < keyHeader || key[0] != keyMagic0 || key[1] != keyVersion {
		return 0, 0, errors.New("ofi: not a remote memory key of this transport")
	}
	flags := key[2]
	rawLen := binary.LittleEndian.Uint32(key[4:])
	if (flags&keyVirt != 0) != e.rma.virt || (flags&keyRaw != 0) != e.rma.raw {
		return 0, 0, errors.New("ofi: remote memory key made under other registration modes (another provider?)")
	}
	if (flags&keyRaw == 0 && rawLen != 0) || uint64(len(key)) != keyHeader+uint64(rawLen) {
		return 0, 0, errors.New("ofi: remote memory key of the wrong length")
	}
	base := binary.LittleEndian.Uint64(key[8:])
	size := binary.LittleEndian.Uint64(key[16:])
	word := binary.LittleEndian.Uint64(key[24:])
	if addr < base || addr-base > size || uint64(n) > size-(addr-base) {
		return 0, 0, fmt.Errorf("ofi: remote bytes [%#x, %#x) are outside the registration [%#x, %#x)", addr, addr+uint64(n), base, base+size)
	}
	raddr = addr
	if !e.rma.virt {
		raddr = addr - base
	}
	if !e.rma.raw {
		return raddr, word, nil
	}
	if k, ok := e.rma.mapped[string(key[keyHeader:])]; ok {
		return raddr, k, nil
	}
	raw := key[keyHeader:]
	var k C.uint64_t
	if rc := C.mpix_ofi_map_raw(e.s, C.uint64_t(word), (*C.uint8_t)(unsafe.Pointer(&raw[0])), C.size_t(len(raw)), &k); rc != 0 {
		return 0, 0, fiError("fi_mr_map_raw", rc)
	}
	if e.rma.mapped == nil {
		e.rma.mapped = map[string]uint64{}
	}
	e.rma.mapped[string(raw)] = uint64(k)
	return raddr, uint64(k), nil
}

// StartWrite starts copying src to addr in peer's registration key
// (transport.RemoteMemory). It never waits: what the provider cannot take now is
// queued, and posted by the endpoint's progress (Poll, Pending, Flush).
func (e *Endpoint) StartWrite(peer int, key []byte, addr uint64, src []byte) error {
	return e.start(true, peer, key, addr, src)
}

// StartRead starts copying from addr in peer's registration key into dst.
func (e *Endpoint) StartRead(peer int, key []byte, addr uint64, dst []byte) error {
	return e.start(false, peer, key, addr, dst)
}

// StartWriteData is StartWrite whose arrival the target sees: data is delivered by
// the target endpoint's Poll as a transport.KindWriteData message once src is in its
// memory (transport.DataWriter). src must not be empty.
func (e *Endpoint) StartWriteData(peer int, key []byte, addr uint64, src []byte, data uint64) error {
	if e.s == nil || e.s.cq_data_size == 0 {
		return transport.ErrNoRemoteMemory
	}
	if len(src) == 0 || len(src) > maxRMA {
		return fmt.Errorf("ofi: a write with data carries 1 to %d bytes, not %d", maxRMA, len(src))
	}
	if m := int(e.s.info.ep_attr.max_msg_size); m > 0 && len(src) > m {
		return fmt.Errorf("ofi: a write with data carries at most %d bytes here, not %d", m, len(src))
	}
	if bits := 8 * int(e.s.cq_data_size); bits < 64 && data>>uint(bits) != 0 {
		return fmt.Errorf("ofi: the provider carries %d bits of write data; %#x does not fit", bits, data)
	}
	return e.startData(true, peer, key, addr, src, true, data)
}

// WriteDataBytes is how many bytes of data StartWriteData carries (0: none).
func (e *Endpoint) WriteDataBytes() int {
	if e.s == nil || !e.rma.on {
		return 0
	}
	return int(e.s.cq_data_size)
}

func (e *Endpoint) start(write bool, peer int, key []byte, addr uint64, buf []byte) error {
	return e.startData(write, peer, key, addr, buf, false, 0)
}

func (e *Endpoint) startData(write bool, peer int, key []byte, addr uint64, buf []byte, withData bool, data uint64) error {
	if err := e.rmaUsable(peer, false); err != nil {
		return err
	}
	raddr, rkey, err := e.target(key, addr, len(buf))
	if err != nil {
		return err
	}
	if len(buf) == 0 {
		return nil
	}
	// Go memory stays put until the operations towards peer complete (Flush).
	e.rma.pins[peer].Pin(&buf[0])
	e.rma.pinned[peer] = true
	for off := 0; off < len(buf); {
		n := min(len(buf)-off, maxRMA)
		if m := int(e.s.info.ep_attr.max_msg_size); m > 0 && n > m {
			n = m
		}
		r := rmaReq{write: write, peer: int32(peer), buf: buf[off : off+n], raddr: raddr + uint64(off), rkey: rkey,
			withData: withData, data: data}
		off += n
		if err := e.submit(r); err != nil {
			return err
		}
	}
	return nil
}

// submit posts r, or queues it behind operations still waiting or when the provider
// pushes back; progress posts the queue in order.
func (e *Endpoint) submit(r rmaReq) error {
	if e.rma.head < len(e.rma.queue) {
		e.enqueue(r) // after those waiting
		return nil
	}
	rc := e.post(&r)
	if rc == -C.FI_EAGAIN {
		e.enqueue(r)
		return nil
	}
	if rc != 0 {
		return fiError(r.op(), C.int(rc))
	}
	return nil
}

func (r *rmaReq) op() string {
	if r.atomic != nil {
		return "fi_atomic"
	}
	if r.write {
		return "fi_write"
	}
	return "fi_read"
}

func (e *Endpoint) post(r *rmaReq) C.ssize_t {
	if r.atomic != nil {
		return e.postAtomic(r)
	}
	w := C.int(0)
	if r.write {
		w = 1
	}
	d := C.int(0)
	if r.withData {
		d = 1
	}
	return C.mpix_ofi_rma(e.s, w, C.int32_t(r.peer), unsafe.Pointer(&r.buf[0]), C.size_t(len(r.buf)), C.uint64_t(r.raddr), C.uint64_t(r.rkey), d, C.uint64_t(r.data))
}

func (e *Endpoint) enqueue(r rmaReq) {
	e.rma.queue = append(e.rma.queue, r)
	e.rma.queued[r.peer]++
}

// postQueued posts waiting operations, in order, until the provider pushes back. An
// operation that cannot be posted at all counts as failed for its peer.
func (e *Endpoint) postQueued() {
	q := &e.rma
	for q.head < len(q.queue) {
		r := &q.queue[q.head]
		rc := e.post(r)
		if rc == -C.FI_EAGAIN {
			return
		}
		if rc != 0 && q.qerr[r.peer] == nil {
			q.qerr[r.peer] = fiError(r.op(), C.int(rc))
		}
		q.queued[r.peer]--
		*r = rmaReq{}
		q.head++
	}
	q.queue, q.head = q.queue[:0], 0
}

// rmaUsable checks the endpoint and peer (-1: every peer, where all is true).
func (e *Endpoint) rmaUsable(peer int, all bool) error {
	if e.s == nil {
		return errClosed
	}
	if !e.rma.on {
		return transport.ErrNoRemoteMemory
	}
	if (peer < 0 || peer >= e.size) && !(all && peer == -1) {
		return fmt.Errorf("ofi: rank %d not reachable (world size %d)", peer, e.size)
	}
	if !e.connected {
		return errors.New("ofi: remote memory access before Connect")
	}
	return nil
}

// inFlight reports whether operations towards peer (-1: any) are in flight or queued.
func (e *Endpoint) inFlight(peer int) bool {
	if peer < 0 {
		return e.s.rma_inflight > 0 || e.rma.head < len(e.rma.queue)
	}
	return e.rma.pending[peer] > 0 || e.rma.queued[peer] > 0
}

// settle unpins and collects the error of peer (-1: every peer) once nothing is in
// flight towards it.
func (e *Endpoint) settle(peer int) error {
	lo, hi := peer, peer+1
	if peer < 0 {
		lo, hi = 0, e.size
	}
	var first C.int32_t
	var posting error
	for p := lo; p < hi; p++ {
		if e.rma.pending[p] > 0 || e.rma.queued[p] > 0 {
			continue
		}
		if e.rma.pinned[p] {
			e.rma.pins[p].Unpin()
			e.rma.pinned[p] = false
		}
		if err := e.rma.qerr[p]; err != nil {
			if posting == nil {
				posting = err
			}
			e.rma.qerr[p] = nil
		}
		if c := e.rma.errs[p]; c != 0 {
			if first == 0 {
				first = c
			}
			e.rma.errs[p] = 0
		}
	}
	if posting != nil {
		return posting
	}
	if first == 0 {
		return nil
	}
	text := C.GoString(&e.s.rma_errtext[0])
	e.s.rma_errtext[0] = 0
	if text == "" {
		text = C.GoString(C.mpix_ofi_strerror(C.int(first)))
	}
	return &Error{Op: "RMA completion", Code: int(first), Text: text}
}

// Flush waits until every operation started towards peer (-1: every peer) is
// complete, making progress on the endpoint, and returns the first error among them.
func (e *Endpoint) Flush(peer int) error {
	if err := e.rmaUsable(peer, true); err != nil {
		return err
	}
	for e.inFlight(peer) {
		e.progressTx()
		if e.failed != nil {
			return e.failed
		}
	}
	return e.settle(peer)
}

// Pending reads the completion queue once and reports whether operations towards
// peer (-1: every peer) are still in flight.
func (e *Endpoint) Pending(peer int) bool {
	if e.rmaUsable(peer, true) != nil {
		return false
	}
	if !e.inFlight(peer) {
		return false
	}
	e.progressTx()
	return e.inFlight(peer)
}

// WriteRemote is StartWrite followed by Flush(peer).
func (e *Endpoint) WriteRemote(peer int, key []byte, addr uint64, src []byte) error {
	if err := e.StartWrite(peer, key, addr, src); err != nil {
		e.Flush(peer) // let what was posted finish before the caller reuses src
		return err
	}
	return e.Flush(peer)
}

// ReadRemote is StartRead followed by Flush(peer).
func (e *Endpoint) ReadRemote(peer int, key []byte, addr uint64, dst []byte) error {
	if err := e.StartRead(peer, key, addr, dst); err != nil {
		e.Flush(peer)
		return err
	}
	return e.Flush(peer)
}

// closeRMA, before the endpoint closes: lets operations in flight finish (until
// deadline at most) and releases the registrations and mapped keys.
func (e *Endpoint) closeRMA(deadline time.Time) {
	if !e.rma.on {
		return
	}
	for e.inFlight(-1) && time.Now().Before(deadline) {
		e.progressTx()
	}
	e.rma.queue, e.rma.head = nil, 0
	for r := range e.rma.regs {
		C.mpix_ofi_mr_close(r.mr)
		r.mr, r.done = nil, true
	}
	for _, k := range e.rma.mapped {
		C.mpix_ofi_unmap_key(e.s, C.uint64_t(k))
	}
}

// unpinRMA, once the endpoint is closed (nothing in flight can touch Go memory any
// more), lets the pinned buffers go.
func (e *Endpoint) unpinRMA() {
	for p := range e.rma.pins {
		if e.rma.pinned[p] {
			e.rma.pins[p].Unpin()
		}
	}
	e.rma = rmaState{}
}
