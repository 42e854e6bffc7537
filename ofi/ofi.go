//go:build cgo && !mpix_noofi

package ofi

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unsafe"

	"mpix/transport"
)

// Buffer geometry. Each endpoint holds SendBuffers+RecvBuffers buffers of BufferSize
// bytes of C memory (8 MiB with these values), fewer when the provider's queues are
// shorter.
const (
	BufferSize  = 64 << 10
	SendBuffers = 64
	RecvBuffers = 64
)

// closeDrain bounds how long Close waits for outstanding sends to complete.
const closeDrain = 2 * time.Second

// sendTries bounds how many times Send progresses the transmit side and retries
// before it gives up with transport.ErrAgain.
const sendTries = 32

// Preference is the order in which Open picks a provider when none is named.
var Preference = []string{
	"cxi", "efa", "opx", "psm3", "psm2", "verbs;ofi_rxm", "tcp;ofi_rxm", "tcp", "sockets",
	"udp;ofi_rxd",
}

// EnvProvider is the environment variable that names the provider when
// Config.Provider is empty.
const EnvProvider = "MPIX_OFI_PROVIDER"

// ErrNoProvider is wrapped by Open's error when no provider offers what mpix needs
// (or not the one asked for).
var ErrNoProvider = errors.New("ofi: no suitable libfabric provider")

var errClosed = errors.New("ofi: endpoint is closed")

// Config says which provider to use and where this process sits in the world.
type Config struct {
	// Provider is a libfabric provider name such as "tcp;ofi_rxm" or "verbs;ofi_rxm".
	// Empty: MPIX_OFI_PROVIDER if set, else the first available of Preference.
	Provider string
	// Rank and Size are this process's MPI_COMM_WORLD rank and the world size.
	Rank, Size int
	// NoRMA keeps Open from asking for RMA (as EnvRMA=0 does): the endpoint's
	// transport.RemoteMemory methods then answer transport.ErrNoRemoteMemory.
	NoRMA bool
	// ThreadSafe asks the provider for a thread-safe domain (FI_THREAD_SAFE), which
	// endpoints that VCIs drive from different threads may share.
	ThreadSafe bool
	// Domain, when set, is a shared domain (SharedDomain) to open the endpoint on;
	// STX a shared transmit context on it (OpenSTX) to post through.
	Domain *Domain
	STX    *STX
	// SharedCQ, when set, is the CQs (on Domain) to bind the endpoint to.
	SharedCQ *SharedCQ
}

// Error is a failed libfabric call.
type Error struct {
	Op   string // the libfabric call, e.g. "fi_send"
	Code int    // the positive FI_* / errno value
	Text string // fi_strerror(Code), plus provider detail where there is some
}

func (e *Error) Error() string { return "ofi: " + e.Op + ": " + e.Text }

func fiError(op string, rc C.int) error {
	code := int(rc)
	if code < 0 {
		code = -code
	}
	return &Error{Op: op, Code: code, Text: C.GoString(C.mpix_ofi_strerror(C.int(code)))}
}

// Endpoint is one libfabric endpoint. Like every transport.Endpoint it is used by one
// VCI at a time; it does no locking.
type Endpoint struct {
	s          *C.mpix_ofi // C memory; nil once closed
	provider   string
	rank, size int
	bufSize    int
	injectSize int
	connected  bool
	polling    bool
	failed     error // a send or receive completed in error: the job is broken
	rma        rmaState

	txMem  []byte  // views over C memory
	rxMem  []byte  //
	injBuf []byte  //
	free   []int32 // free send buffers (a stack)
	hdr    transport.Header

	// spare is the idle odd endpoint of MPIX_EP_SHARING=2xdynamic, opened beside this
	// (even) one and closed with it.
	spare *Endpoint
}

var _ transport.Endpoint = (*Endpoint)(nil)

// Open creates an endpoint on the chosen provider. Publish Name through PMI, then
// Connect with every rank's name.
func Open(cfg Config) (*Endpoint, error) {
	if cfg.Size <= 0 || cfg.Rank < 0 || cfg.Rank >= cfg.Size {
		return nil, fmt.Errorf("ofi: invalid rank %d in world of size %d", cfg.Rank, cfg.Size)
	}
	want := cfg.Provider
	if want == "" {
		want = os.Getenv(EnvProvider)
	}
	var flags C.int
	if cfg.ThreadSafe || cfg.Domain != nil {
		flags = C.MPIX_OFI_THREAD_SAFE
	}
	info, err := selectInfo(want, flags)
	if err != nil {
		return nil, err
	}
	provider := C.GoString(info.fabric_attr.prov_name)
	if !cfg.NoRMA && os.Getenv(EnvRMA) != "0" {
		info = withRMA(info, provider, flags)
	}
	if info.tx_attr.msg_order&C.FI_ORDER_SAS == 0 || info.rx_attr.msg_order&C.FI_ORDER_SAS == 0 {
		C.mpix_ofi_freeinfo(info)
		return nil, fmt.Errorf("%w: provider %q does not grant send-after-send ordering (FI_ORDER_SAS)", ErrNoProvider, provider)
	}

	bufSize := BufferSize
	if m := uint64(info.ep_attr.max_msg_size); m < uint64(bufSize) {
		bufSize = int(m)
	}
	if bufSize < transport.HeaderSize {
		C.mpix_ofi_freeinfo(info)
		return nil, fmt.Errorf("%w: provider %q carries messages of at most %d bytes", ErrNoProvider, provider, bufSize)
	}
	ntx, nrx := SendBuffers, RecvBuffers
	if q := int(info.tx_attr.size); q > 0 && q < ntx {
		ntx = q
	}
	if q := int(info.rx_attr.size); q > 0 && q < nrx {
		nrx = q
	}
	injectSize := int(info.tx_attr.inject_size)
	if injectSize > bufSize {
		injectSize = bufSize
	}

	s := (*C.mpix_ofi)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mpix_ofi{}))))
	if s == nil {
		C.mpix_ofi_freeinfo(info)
		return nil, errors.New("ofi: out of memory")
	}
	var where *C.char
	var dom *C.mpix_ofi_dom
	var stx *C.mpix_ofi_stx
	if cfg.Domain != nil {
		dom = cfg.Domain.d
	}
	if cfg.STX != nil {
		stx = cfg.STX.s
	}
	if cfg.SharedCQ != nil {
		s.scq = cfg.SharedCQ.q
	}
	if rc := C.mpix_ofi_open(s, info, C.size_t(bufSize), C.int32_t(ntx), C.int32_t(nrx), C.int32_t(cfg.Size), dom, stx, &where); rc != 0 {
		err := fiError(C.GoString(where), rc)
		C.mpix_ofi_close(s) // frees info too
		C.free(unsafe.Pointer(s))
		return nil, fmt.Errorf("%w (provider %s)", err, provider)
	}
	e := &Endpoint{
		s:          s,
		provider:   provider,
		rank:       cfg.Rank,
		size:       cfg.Size,
		bufSize:    bufSize,
		injectSize: injectSize,
		txMem:      unsafe.Slice((*byte)(unsafe.Pointer(s.txmem)), ntx*bufSize),
		rxMem:      unsafe.Slice((*byte)(unsafe.Pointer(s.rxmem)), nrx*bufSize),
		free:       make([]int32, 0, ntx),
	}
	if injectSize > 0 {
		e.injBuf = unsafe.Slice((*byte)(unsafe.Pointer(s.injbuf)), injectSize)
	}
	e.initRMA()
	for i := ntx - 1; i >= 0; i-- {
		e.free = append(e.free, int32(i))
	}
	return e, nil
}

// withRMA returns the fi_info to open for provider when it also offers RMA (and, where
// it can, atomics: rmaFlags) with the same ordering, freeing info; otherwise info itself: a provider without RMA works
// as before, and its endpoints answer transport.ErrNoRemoteMemory.
func withRMA(info *C.struct_fi_info, provider string, extra C.int) *C.struct_fi_info {
	cs := C.CString(provider)
	defer C.free(unsafe.Pointer(cs))
	for _, flags := range rmaFlags() {
		var list *C.struct_fi_info
		if rc := C.mpix_ofi_getinfo(cs, flags|extra, &list); rc != 0 || list == nil {
			continue
		}
		for p := list; p != nil; p = p.next {
			if C.GoString(p.fabric_attr.prov_name) != provider ||
				p.tx_attr.msg_order&C.FI_ORDER_SAS == 0 || p.rx_attr.msg_order&C.FI_ORDER_SAS == 0 {
				continue
			}
			if dup := C.mpix_ofi_dupinfo(p); dup != nil {
				C.mpix_ofi_freeinfo(list)
				C.mpix_ofi_freeinfo(info)
				return dup
			}
			break
		}
		C.mpix_ofi_freeinfo(list)
	}
	return info
}

// selectInfo returns the fi_info to open (the caller owns it); flags may ask for a
// thread-safe domain (MPIX_OFI_THREAD_SAFE).
func selectInfo(want string, flags C.int) (*C.struct_fi_info, error) {
	if want != "" {
		cs := C.CString(want)
		defer C.free(unsafe.Pointer(cs))
		var list *C.struct_fi_info
		rc := C.mpix_ofi_getinfo(cs, flags, &list)
		if rc == 0 && list != nil {
			info := C.mpix_ofi_dupinfo(list)
			C.mpix_ofi_freeinfo(list)
			if info == nil {
				return nil, errors.New("ofi: out of memory")
			}
			return info, nil
		}
		avail, _ := Available()
		why := "none offers reliable datagram endpoints (FI_EP_RDM) with FI_MSG and FI_ORDER_SAS"
		if len(avail) > 0 {
			why = "available: " + strings.Join(avail, ", ")
		}
		detail := "no match"
		if rc != 0 {
			detail = fiError("fi_getinfo", rc).Error()
		}
		return nil, fmt.Errorf("%w: provider %q is not available (%s); %s", ErrNoProvider, want, detail, why)
	}

	var list *C.struct_fi_info
	rc := C.mpix_ofi_getinfo(nil, flags, &list)
	if rc != 0 || list == nil {
		detail := "no match"
		if rc != 0 {
			detail = fiError("fi_getinfo", rc).Error()
		}
		return nil, fmt.Errorf("%w: libfabric found no provider with reliable datagram endpoints (FI_EP_RDM), FI_MSG and FI_ORDER_SAS (%s)", ErrNoProvider, detail)
	}
	defer C.mpix_ofi_freeinfo(list)
	var names []string
	for p := list; p != nil; p = p.next {
		names = append(names, C.GoString(p.fabric_attr.prov_name))
	}
	pick := choose(names)
	if pick == "" {
		return nil, fmt.Errorf("%w: none of the available providers (%s) is one mpix picks by default; set %s to use one", ErrNoProvider, strings.Join(unique(names), ", "), EnvProvider)
	}
	for p := list; p != nil; p = p.next {
		if C.GoString(p.fabric_attr.prov_name) == pick {
			info := C.mpix_ofi_dupinfo(p)
			if info == nil {
				return nil, errors.New("ofi: out of memory")
			}
			return info, nil
		}
	}
	return nil, fmt.Errorf("%w: provider %q vanished from the list", ErrNoProvider, pick)
}

// choose returns the first of Preference among available, or "".
func choose(available []string) string {
	for _, p := range Preference {
		for _, a := range available {
			if a == p {
				return p
			}
		}
	}
	return ""
}

func unique(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Available lists, without duplicates and in libfabric's order, the providers that
// offer what mpix needs.
func Available() ([]string, error) {
	var list *C.struct_fi_info
	rc := C.mpix_ofi_getinfo(nil, 0, &list)
	if rc != 0 {
		if rc == -C.FI_ENODATA {
			return nil, nil
		}
		return nil, fiError("fi_getinfo", rc)
	}
	defer C.mpix_ofi_freeinfo(list)
	var names []string
	for p := list; p != nil; p = p.next {
		names = append(names, C.GoString(p.fabric_attr.prov_name))
	}
	return unique(names), nil
}

// Provider is the chosen provider's name, e.g. "tcp;ofi_rxm".
func (e *Endpoint) Provider() string { return e.provider }

// Name is this endpoint's address, to publish through PMI.
func (e *Endpoint) Name() []byte {
	if e.s == nil {
		return nil
	}
	buf := make([]byte, 64)
	for {
		n := C.size_t(len(buf))
		rc := C.mpix_ofi_getname(e.s, unsafe.Pointer(&buf[0]), &n)
		if rc == -C.FI_ETOOSMALL && int(n) > len(buf) {
			buf = make([]byte, n)
			continue
		}
		if rc != 0 {
			return nil
		}
		return buf[:n]
	}
}

// Connect inserts every world rank's name into the address vector; names[r] is rank
// r's Name.
func (e *Endpoint) Connect(names [][]byte) error {
	if e.s == nil {
		return errClosed
	}
	if e.connected {
		return errors.New("ofi: Connect called twice")
	}
	if len(names) != e.size {
		return fmt.Errorf("ofi: Connect got %d names for a world of size %d", len(names), e.size)
	}
	for r, name := range names {
		if len(name) == 0 {
			return fmt.Errorf("ofi: Connect: empty name for rank %d", r)
		}
		if rc := C.mpix_ofi_av_insert(e.s, C.int32_t(r), unsafe.Pointer(&name[0])); rc != 0 {
			return fmt.Errorf("%w (rank %d)", fiError("fi_av_insert", rc), r)
		}
	}
	e.connected = true
	return nil
}

// Err reports the first send or receive that completed in error, if any. Send also
// returns it.
func (e *Endpoint) Err() error {
	e.collectError()
	return e.failed
}

func (e *Endpoint) collectError() {
	if e.s == nil || e.s.err == 0 {
		return
	}
	if e.failed == nil {
		e.failed = &Error{Op: "completion", Code: int(e.s.err), Text: C.GoString(&e.s.errtext[0])}
	}
	e.s.err = 0
}

// progressTx reads the transmit CQ and takes back the send buffers it returns.
func (e *Endpoint) progressTx() {
	n := int(C.mpix_ofi_progress_tx(e.s))
	e.reclaim(n)
	if e.rma.head < len(e.rma.queue) {
		e.postQueued()
	}
}

func (e *Endpoint) reclaim(n int) {
	for i := 0; i < n; i++ {
		e.free = append(e.free, int32(e.s.tx_idx[i]))
	}
	if e.s.err != 0 {
		e.collectError()
	}
}

// Send transmits h and payload to world rank dst. It copies them into C memory before
// returning. It returns transport.ErrAgain when the provider or the bounce buffers stay
// busy after a bounded amount of transmit progress.
func (e *Endpoint) Send(dst int, h *transport.Header, payload []byte) error {
	if e.s == nil {
		return errClosed
	}
	if e.failed != nil {
		return e.failed
	}
	if !e.connected || dst < 0 || dst >= e.size {
		return fmt.Errorf("ofi: Send: rank %d not reachable (world size %d, connected %v)", dst, e.size, e.connected)
	}
	n := transport.HeaderSize + len(payload)
	if n > e.bufSize {
		return fmt.Errorf("ofi: Send: payload of %d bytes exceeds MaxPayload %d", len(payload), e.bufSize-transport.HeaderSize)
	}

	if n <= e.injectSize {
		*(*transport.Header)(unsafe.Pointer(&e.injBuf[0])) = *h
		copy(e.injBuf[transport.HeaderSize:], payload)
		for try := 0; ; try++ {
			rc := C.mpix_ofi_inject(e.s, C.int32_t(dst), C.size_t(n))
			if rc == 0 {
				return nil
			}
			if rc != -C.FI_EAGAIN {
				return fiError("fi_inject", C.int(rc))
			}
			if try == sendTries {
				return transport.ErrAgain
			}
			e.progressTx()
			if e.failed != nil {
				return e.failed
			}
		}
	}

	for try := 0; len(e.free) == 0; try++ {
		if try == sendTries {
			return transport.ErrAgain
		}
		e.progressTx()
		if e.failed != nil {
			return e.failed
		}
	}
	idx := e.free[len(e.free)-1]
	e.free = e.free[:len(e.free)-1]
	buf := e.txMem[int(idx)*e.bufSize : int(idx)*e.bufSize+n]
	*(*transport.Header)(unsafe.Pointer(&buf[0])) = *h
	copy(buf[transport.HeaderSize:], payload)
	for try := 0; ; try++ {
		rc := C.mpix_ofi_send(e.s, C.int32_t(dst), C.int32_t(idx), C.size_t(n))
		if rc == 0 {
			return nil
		}
		if rc != -C.FI_EAGAIN {
			e.free = append(e.free, idx)
			return fiError("fi_send", C.int(rc))
		}
		if try == sendTries {
			e.free = append(e.free, idx)
			return transport.ErrAgain
		}
		e.progressTx()
		if e.failed != nil {
			e.free = append(e.free, idx)
			return e.failed
		}
	}
}

// Poll delivers the messages that have arrived, in the order the provider completed
// them (per-sender FIFO), and returns how many it delivered. The header and payload
// passed to deliver are valid only during the call. A nested Poll (from inside
// deliver) returns 0.
func (e *Endpoint) Poll(deliver transport.DeliverFunc) int {
	if e.s == nil || e.polling {
		return 0
	}
	e.polling = true
	n := int(C.mpix_ofi_poll(e.s))
	defer e.endPoll(n)
	e.reclaim(int(e.s.ntxdone))
	if e.rma.head < len(e.rma.queue) {
		e.postQueued()
	}
	delivered := 0
	for i := 0; i < int(e.s.nimm); i++ {
		e.hdr = transport.Header{Kind: transport.KindWriteData, Src: -1, Offset: int64(e.s.imm[i])}
		deliver(&e.hdr, nil)
		delivered++
	}
	e.s.nimm = 0
	for i := 0; i < n; i++ {
		idx, l := int(e.s.rx_idx[i]), int(e.s.rx_len[i])
		if l < transport.HeaderSize || l > e.bufSize {
			if e.failed == nil {
				e.failed = fmt.Errorf("ofi: received a malformed message of %d bytes", l)
			}
			continue
		}
		buf := e.rxMem[idx*e.bufSize : idx*e.bufSize+l : idx*e.bufSize+l]
		e.hdr = *(*transport.Header)(unsafe.Pointer(&buf[0]))
		deliver(&e.hdr, buf[transport.HeaderSize:])
		delivered++
	}
	return delivered
}

// endPoll posts the n receive buffers of this Poll again, even if deliver panicked.
func (e *Endpoint) endPoll(n int) {
	e.polling = false
	if e.s == nil || n == 0 {
		return
	}
	if rc := C.mpix_ofi_repost(e.s, C.int32_t(n)); rc != 0 && e.failed == nil {
		e.failed = fiError("fi_recv", rc)
	}
}

// ReadFrom is not offered yet: it always returns transport.ErrNoSingleCopy, so core
// uses its pipelined rendezvous. A later version can register the sender's buffer
// (fi_mr_reg with FI_REMOTE_READ), carry its key in the RTS and fi_read it here.
func (e *Endpoint) ReadFrom(peer int, addr uintptr, dst []byte) error {
	return transport.ErrNoSingleCopy
}

// MaxPayload is the largest payload one Send carries: the buffer size minus the header.
func (e *Endpoint) MaxPayload() int { return e.bufSize - transport.HeaderSize }

// Reaches reports whether dst is a world rank and Connect has been called.
func (e *Endpoint) Reaches(dst int) bool {
	return e.s != nil && e.connected && dst >= 0 && dst < e.size
}

// Close releases the endpoint, its libfabric objects and its buffers, in reverse order
// of creation. Messages still in flight are dropped.
func (e *Endpoint) Close() error {
	if e.s == nil {
		return nil
	}
	if e.polling {
		return errors.New("ofi: Close called from inside Poll")
	}
	var spareErr error
	if e.spare != nil {
		spareErr = e.spare.Close()
		e.spare = nil
	}
	// Let sends still in flight finish first: a provider may hold resources for them
	// (tcp;ofi_rxm keeps a rendezvous send's registration until the receiver's
	// acknowledgement arrives, and its domain then refuses to close).
	deadline := time.Now().Add(closeDrain)
	for len(e.free) < cap(e.free) && time.Now().Before(deadline) {
		e.progressTx()
	}
	e.closeRMA(deadline)
	rc := C.mpix_ofi_close(e.s)
	where := "fi_close"
	if e.s.close_where != nil {
		where = C.GoString(e.s.close_where)
	}
	C.free(unsafe.Pointer(e.s))
	e.s = nil
	e.unpinRMA()
	e.txMem, e.rxMem, e.injBuf, e.free = nil, nil, nil, nil
	if rc != 0 {
		return fiError(where, rc)
	}
	return spareErr
}

// Describe says where the endpoint's buffers are, for a hang report: receive buffers
// posted and handed out, completions held back for an earlier buffer, and send
// buffers in flight.
func (e *Endpoint) Describe() string {
	if e.s == nil {
		return "closed"
	}
	s := e.s
	held := []string{}
	for q := uint64(s.next_seq); q < uint64(s.post_seq); q++ {
		slot := q % uint64(s.nrx)
		if idx := *(*C.int32_t)(unsafe.Add(unsafe.Pointer(s.ring_idx), slot*4)); idx >= 0 {
			held = append(held, fmt.Sprintf("%d", q-uint64(s.next_seq)))
		}
	}
	return fmt.Sprintf("ofi %s: receive buffers posted up to %d, handed out up to %d, %d unposted; completed but held behind position %d: [%s]; %d of %d send buffers in flight; %d RMA operations in flight; error %v",
		e.provider, uint64(s.post_seq), uint64(s.next_seq), int(s.nunposted), uint64(s.next_seq), strings.Join(held, " "),
		cap(e.free)-len(e.free), cap(e.free), int(s.rma_inflight), e.failed)
}
