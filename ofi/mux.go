//go:build cgo && !mpix_noofi

package ofi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"mpix/transport"
)

// MPIX_EP_SHARING=mpi_threads: one endpoint for every VCI of the process (the paper's
// MPI+threads, one QP and one CQ). Each VCI gets a view (a muxEP) of the one Endpoint;
// the views take one lock around it, and each message carries its VCI in a 2-byte
// trailer after the payload, since VCI v of one process talks to VCI v of the others.
// A view's Poll reads everything that arrived, queues (copies) the messages of other
// VCIs for them, and delivers its own once the lock is released, so that what deliver
// sends does not wait for the lock it holds. Views offer messages only: one-sided
// operations and partitioned writes then take active messages, as on a provider
// without RMA.

const vciTrailer = 2

type muxShared struct {
	mu     sync.Mutex
	ep     *Endpoint
	queues [][]muxMsg // by VCI
	open   int        // views not closed
	buf    []byte     // send staging: payload + trailer
}

type muxMsg struct {
	h       transport.Header
	payload []byte
}

type muxEP struct {
	sh      *muxShared
	vci     int
	own     []muxMsg // taken from the queue, being delivered
	polling bool
	closed  bool
}

var _ transport.Endpoint = (*muxEP)(nil)
var _ transport.Connecter = (*muxEP)(nil)
var _ transport.Failer = (*muxEP)(nil)

func newMux(ep *Endpoint, vcis int) *muxShared {
	return &muxShared{ep: ep, queues: make([][]muxMsg, vcis), open: vcis}
}

func (m *muxShared) view(vci int) *muxEP { return &muxEP{sh: m, vci: vci} }

// frame appends the VCI trailer to payload (in the shared staging buffer).
func (m *muxShared) frame(vci int, payload []byte) []byte {
	n := len(payload) + vciTrailer
	if cap(m.buf) < n {
		m.buf = make([]byte, n, max(n, 4096))
	}
	b := m.buf[:n]
	copy(b, payload)
	binary.LittleEndian.PutUint16(b[len(payload):], uint16(vci))
	return b
}

// unframe splits a received payload into the VCI and the message's own payload.
func unframe(p []byte) (int, []byte, error) {
	if len(p) < vciTrailer {
		return 0, nil, fmt.Errorf("ofi: mpi_threads message of %d bytes has no VCI trailer", len(p))
	}
	n := len(p) - vciTrailer
	return int(binary.LittleEndian.Uint16(p[n:])), p[:n], nil
}

func (v *muxEP) Send(dst int, h *transport.Header, payload []byte) error {
	m := v.sh
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ep.Send(dst, h, m.frame(v.vci, payload))
}

// Poll delivers this VCI's messages, in arrival order per sender; a nested Poll (from
// inside deliver) returns 0.
func (v *muxEP) Poll(deliver transport.DeliverFunc) int {
	if v.polling {
		return 0
	}
	v.polling = true
	defer func() { v.polling = false }()
	m := v.sh
	m.mu.Lock()
	m.ep.Poll(func(h *transport.Header, p []byte) {
		vci, body, err := unframe(p)
		if err == nil && (vci < 0 || vci >= len(m.queues)) {
			err = fmt.Errorf("ofi: mpi_threads message for VCI %d of %d", vci, len(m.queues))
		}
		if err != nil {
			if m.ep.failed == nil {
				m.ep.failed = err
			}
			return
		}
		m.queues[vci] = append(m.queues[vci], muxMsg{h: *h, payload: append([]byte(nil), body...)})
	})
	v.own, m.queues[v.vci] = m.queues[v.vci], v.own[:0]
	m.mu.Unlock()
	for i := range v.own {
		deliver(&v.own[i].h, v.own[i].payload)
		v.own[i] = muxMsg{}
	}
	return len(v.own)
}

func (v *muxEP) ReadFrom(peer int, addr uintptr, dst []byte) error { return transport.ErrNoSingleCopy }

func (v *muxEP) MaxPayload() int { return v.sh.ep.MaxPayload() - vciTrailer }

func (v *muxEP) Reaches(dst int) bool {
	v.sh.mu.Lock()
	defer v.sh.mu.Unlock()
	return v.sh.ep.Reaches(dst)
}

func (v *muxEP) Err() error {
	v.sh.mu.Lock()
	defer v.sh.mu.Unlock()
	return v.sh.ep.Err()
}

// ConnectPeers connects the one endpoint, through VCI 0's view: it alone published a
// name.
func (v *muxEP) ConnectPeers(s *transport.Setup, vci int) error {
	if v.vci != 0 {
		return nil
	}
	v.sh.mu.Lock()
	defer v.sh.mu.Unlock()
	return v.sh.ep.ConnectPeers(s, 0)
}

// Close closes the endpoint with the last view.
func (v *muxEP) Close() error {
	m := v.sh
	m.mu.Lock()
	defer m.mu.Unlock()
	if v.closed {
		return errors.New("ofi: view closed twice")
	}
	v.closed = true
	m.open--
	if m.open > 0 {
		return nil
	}
	return m.ep.Close()
}

// Describe says what the one endpoint holds, and what waits for each VCI.
func (v *muxEP) Describe() string {
	m := v.sh
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("mpi_threads view of VCI %d (%d messages queued for it): %s", v.vci, len(m.queues[v.vci]), m.ep.Describe())
}
