//go:build cgo && !mpix_noofi

package ofi

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"mpix/transport"
)

// Atomics (transport.Atomics): fi_atomic, fi_fetch_atomic and fi_compare_atomic on
// memory peers registered, when the provider granted FI_ATOMIC beside FI_RMA. They
// share the RMA operations' slots, per-peer counts, queue and Flush.

var _ transport.Atomics = (*Endpoint)(nil)

// EnvAtomics is the environment variable that, set to 0, keeps Open from asking for
// FI_ATOMIC.
const EnvAtomics = "MPIX_OFI_ATOMICS"

// atomicReq is what an atomic adds to an rmaReq: its buf is the operand.
type atomicReq struct {
	family          transport.AtomicFamily
	dt, op          C.int
	compare, result []byte
	count           int
}

// fiDatatype and fiOp translate to libfabric's enums.
var fiDatatype = map[transport.AtomicType]C.int{
	transport.AtomicInt8: C.FI_INT8, transport.AtomicUint8: C.FI_UINT8,
	transport.AtomicInt16: C.FI_INT16, transport.AtomicUint16: C.FI_UINT16,
	transport.AtomicInt32: C.FI_INT32, transport.AtomicUint32: C.FI_UINT32,
	transport.AtomicInt64: C.FI_INT64, transport.AtomicUint64: C.FI_UINT64,
	transport.AtomicFloat32: C.FI_FLOAT, transport.AtomicFloat64: C.FI_DOUBLE,
}

var fiOp = map[transport.AtomicOp]C.int{
	transport.AtomicMin: C.FI_MIN, transport.AtomicMax: C.FI_MAX,
	transport.AtomicSum: C.FI_SUM, transport.AtomicProd: C.FI_PROD,
	transport.AtomicLOr: C.FI_LOR, transport.AtomicLAnd: C.FI_LAND,
	transport.AtomicBOr: C.FI_BOR, transport.AtomicBAnd: C.FI_BAND,
	transport.AtomicLXor: C.FI_LXOR, transport.AtomicBXor: C.FI_BXOR,
	transport.AtomicRead: C.FI_ATOMIC_READ, transport.AtomicSwap: C.FI_ATOMIC_WRITE,
	transport.AtomicCSwap: C.FI_CSWAP,
}

// AtomicCount is how many elements one atomic carries (0: not done by the provider).
func (e *Endpoint) AtomicCount(f transport.AtomicFamily, t transport.AtomicType, op transport.AtomicOp) int {
	dt, ok1 := fiDatatype[t]
	o, ok2 := fiOp[op]
	if e.s == nil || !e.rma.on || !ok1 || !ok2 {
		return 0
	}
	return int(C.mpix_ofi_atomic_valid(e.s, C.int(f), dt, o))
}

// softAtomics are the providers whose atomics are messages the peer's progress
// applies (the utility providers over tcp, udp and verbs, and the software ones).
var softAtomics = []string{"ofi_rxm", "ofi_rxd", "tcp", "udp", "sockets", "shm"}

// NativeAtomics reports whether the provider applies atomics without the target's
// software: none of softAtomics is in its name.
func (e *Endpoint) NativeAtomics() bool {
	if e.s == nil || e.s.atomic == 0 {
		return false
	}
	for _, p := range strings.Split(e.provider, ";") {
		for _, soft := range softAtomics {
			if p == soft {
				return false
			}
		}
	}
	return true
}

// AtomicsOrdered reports whether the provider applies atomics to one peer in order.
func (e *Endpoint) AtomicsOrdered() bool {
	const all = C.FI_ORDER_ATOMIC_RAR | C.FI_ORDER_ATOMIC_RAW | C.FI_ORDER_ATOMIC_WAR | C.FI_ORDER_ATOMIC_WAW
	return e.s != nil && e.s.info.tx_attr.msg_order&all == all
}

// StartAtomic starts atomics of len(src) bytes (AtomicRead: len(result)) at addr of
// peer's registration key, in pieces of at most the provider's count.
func (e *Endpoint) StartAtomic(peer int, key []byte, addr uint64, f transport.AtomicFamily, t transport.AtomicType,
	op transport.AtomicOp, src, compare, result []byte) error {
	if err := e.rmaUsable(peer, false); err != nil {
		return err
	}
	if e.s.atomic == 0 {
		return transport.ErrNoRemoteMemory
	}
	size := t.Size()
	n := len(src)
	if op == transport.AtomicRead {
		n = len(result)
	}
	switch {
	case size == 0:
		return fmt.Errorf("ofi: no atomic element type %d", t)
	case n%size != 0 || (f != transport.AtomicWrite && len(result) != n) ||
		(f == transport.AtomicCompare && len(compare) != n) || (op != transport.AtomicRead && len(src) != n):
		return fmt.Errorf("ofi: atomic buffers of %d, %d and %d bytes for %d-byte elements", len(src), len(compare), len(result), size)
	}
	per := e.AtomicCount(f, t, op)
	if per <= 0 {
		return fmt.Errorf("ofi: the %s provider does not do this atomic (family %d, type %d, op %d)", e.provider, f, t, op)
	}
	raddr, rkey, err := e.target(key, addr, n)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	for _, b := range [][]byte{src, compare, result} {
		if len(b) > 0 {
			e.rma.pins[peer].Pin(&b[0])
			e.rma.pinned[peer] = true
		}
	}
	piece := func(b []byte, off, m int) []byte {
		if b == nil {
			return nil
		}
		return b[off : off+m]
	}
	for off := 0; off < n; {
		m := min(n-off, per*size)
		r := rmaReq{peer: int32(peer), raddr: raddr + uint64(off), rkey: rkey, buf: piece(src, off, m),
			atomic: &atomicReq{family: f, dt: fiDatatype[t], op: fiOp[op], compare: piece(compare, off, m),
				result: piece(result, off, m), count: m / size}}
		off += m
		if err := e.submit(r); err != nil {
			return err
		}
	}
	return nil
}

func (e *Endpoint) postAtomic(r *rmaReq) C.ssize_t {
	a := r.atomic
	ptr := func(b []byte) unsafe.Pointer {
		if len(b) == 0 {
			return nil
		}
		return unsafe.Pointer(&b[0])
	}
	return C.mpix_ofi_atomic(e.s, C.int(a.family), C.int32_t(r.peer), ptr(r.buf), ptr(a.compare), ptr(a.result),
		C.size_t(a.count), a.dt, a.op, C.uint64_t(r.raddr), C.uint64_t(r.rkey))
}

// rmaFlags is what withRMA asks fi_getinfo for: RMA (1), and atomics (2) unless
// EnvAtomics is 0.
func rmaFlags() []C.int {
	if os.Getenv(EnvAtomics) == "0" {
		return []C.int{1}
	}
	return []C.int{3, 1}
}
