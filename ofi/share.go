//go:build cgo && !mpix_noofi

package ofi

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"os"
	"sync/atomic"
	"unsafe"

	"mpix/transport/epshare"
)

// The objects that endpoints of several VCIs share under MPIX_EP_SHARING (see
// transport/epshare for the categories and their libfabric form).

// Domain is a fabric and domain that several endpoints share. The last endpoint
// opened on it to close closes it; Release closes it if none was.
type Domain struct{ d *C.mpix_ofi_dom }

// SharedDomain opens a thread-safe domain on provider (empty: as Open picks it).
func SharedDomain(provider string) (*Domain, error) {
	if provider == "" {
		provider = os.Getenv(EnvProvider)
	}
	info, err := selectInfo(provider, C.MPIX_OFI_THREAD_SAFE)
	if err != nil {
		return nil, err
	}
	if os.Getenv(EnvRMA) != "0" {
		info = withRMA(info, C.GoString(info.fabric_attr.prov_name), C.MPIX_OFI_THREAD_SAFE)
	}
	defer C.mpix_ofi_freeinfo(info)
	var d *C.mpix_ofi_dom
	if rc := C.mpix_ofi_dom_open(info, &d); rc != 0 {
		return nil, fiError("fi_domain (shared)", rc)
	}
	return &Domain{d: d}, nil
}

// Unused reports whether no endpoint took the domain.
func (d *Domain) Unused() bool { return d.d != nil && d.d.refs == 0 }

// Release closes the domain if no endpoint took it.
func (d *Domain) Release() {
	if d != nil && d.d != nil && d.d.refs == 0 {
		C.mpix_ofi_dom_close(d.d)
	}
	d.d = nil
}

// STX is a shared transmit context (fi_stx_context) on a shared domain.
type STX struct{ s *C.mpix_ofi_stx }

// OpenSTX opens a shared transmit context on d for provider's endpoints.
func OpenSTX(d *Domain, provider string) (*STX, error) {
	info, err := selectInfo(provider, C.MPIX_OFI_THREAD_SAFE)
	if err != nil {
		return nil, err
	}
	defer C.mpix_ofi_freeinfo(info)
	s := (*C.mpix_ofi_stx)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mpix_ofi_stx{}))))
	if s == nil {
		return nil, errors.New("ofi: out of memory")
	}
	if rc := C.mpix_ofi_stx_open(d.d, info, s); rc != 0 {
		C.free(unsafe.Pointer(s))
		return nil, fiError("fi_stx_context", rc)
	}
	return &STX{s: s}, nil
}

// Release closes the context if no endpoint took it.
func (x *STX) Release() {
	if x != nil && x.s != nil && x.s.refs == 0 {
		C.mpix_ofi_stx_close(x.s)
	}
	x.s = nil
}

// SharedCQ is a transmit and a receive CQ that endpoints of several VCIs share; the
// last endpoint on them to close closes them.
type SharedCQ struct{ q *C.mpix_ofi_scq }

// OpenSharedCQ opens shared CQs on d for endpoints endpoints (sized for all their
// operations).
func OpenSharedCQ(d *Domain, endpoints int) (*SharedCQ, error) {
	tx := endpoints * (SendBuffers + C.MPIX_OFI_RMA_OPS)
	rx := endpoints * RecvBuffers
	var q *C.mpix_ofi_scq
	if rc := C.mpix_ofi_scq_open(d.d, C.size_t(tx), C.size_t(rx), &q); rc != 0 {
		return nil, fiError("fi_cq_open (shared)", rc)
	}
	return &SharedCQ{q: q}, nil
}

// Unused reports whether no endpoint took the CQs.
func (q *SharedCQ) Unused() bool { return q.q != nil && q.q.refs == 0 }

// Release closes the CQs if no endpoint took them.
func (q *SharedCQ) Release() {
	if q != nil && q.q != nil && q.q.refs == 0 {
		C.mpix_ofi_scq_close(q.q)
	}
	q.q = nil
}

// Caps asks libfabric what provider (empty: the one Open would pick) grants that the
// sharing categories need: a thread-safe domain, and shared transmit contexts on it.
func Caps(provider string) epshare.FabricCaps {
	if provider == "" {
		provider = os.Getenv(EnvProvider)
	}
	caps := epshare.FabricCaps{Provider: provider}
	info, err := selectInfo(provider, C.MPIX_OFI_THREAD_SAFE)
	if err != nil {
		if plain, err := selectInfo(provider, 0); err == nil {
			caps.Provider = C.GoString(plain.fabric_attr.prov_name)
			C.mpix_ofi_freeinfo(plain)
		}
		return caps
	}
	defer C.mpix_ofi_freeinfo(info)
	caps.Provider = C.GoString(info.fabric_attr.prov_name)
	caps.ThreadSafe = info.domain_attr.threading == C.FI_THREAD_SAFE
	caps.SharedTx = info.domain_attr.max_ep_stx_ctx > 0
	return caps
}

// MemoryRegistrations is the number of memory registrations open in this process.
func MemoryRegistrations() int64 {
	return int64(atomic.LoadInt64((*int64)(unsafe.Pointer(&C.mpix_ofi_mrs))))
}

// BufferBytes is the memory of the endpoint's send, receive and inject buffers.
func (e *Endpoint) BufferBytes() int64 {
	return int64(len(e.txMem) + len(e.rxMem) + len(e.injBuf))
}
