package verbs

import (
	"errors"
	"fmt"
	"unsafe"

	"mpix/transport"
)

// Eager messages over an RC QP: the sender copies the transport.Header and the payload
// into a registered send slot and posts a send with immediate data; the receiver's
// posted receive buffer takes it whole. Flow control keeps a sender from posting a send
// the peer has no buffer for (an RC QP would stall in receiver-not-ready retries):
// each side counts the receive buffers it has posted for the peer since the connection
// began (a 32-bit count that wraps), and tells the peer that count in the immediate of
// each message, or, when it has no message to send, by an RDMA write of the count into
// a registered word of the peer's (the credit word), which takes no receive buffer, so
// that two sides that both wait for credits the other owes cannot deadlock. Counts
// rather than increments make a lost or overtaken update harmless: the newest wins.

// ErrFrame is wrapped by Decode's errors.
var ErrFrame = errors.New("verbs: malformed message")

// Encode writes h and payload into slot and returns the bytes to send.
func Encode(slot []byte, h *transport.Header, payload []byte) (int, error) {
	n := transport.HeaderSize + len(payload)
	if n > len(slot) {
		return 0, fmt.Errorf("verbs: a %d-byte payload exceeds the %d-byte slot", len(payload), len(slot)-transport.HeaderSize)
	}
	*(*transport.Header)(unsafe.Pointer(&slot[0])) = *h
	copy(slot[transport.HeaderSize:], payload)
	return n, nil
}

// Decode reads the n bytes a receive completion reported in buf.
func Decode(buf []byte, n int) (transport.Header, []byte, error) {
	if n < transport.HeaderSize || n > len(buf) {
		return transport.Header{}, nil, fmt.Errorf("%w: %d bytes in a %d-byte buffer", ErrFrame, n, len(buf))
	}
	h := *(*transport.Header)(unsafe.Pointer(&buf[0]))
	if h.Kind == 0 {
		return h, nil, fmt.Errorf("%w: kind 0", ErrFrame)
	}
	return h, buf[transport.HeaderSize:n:n], nil
}

// Credits is the flow control of one connection (one peer on one QP).
type Credits struct {
	sent       uint32 // messages this side sent to the peer
	peerPosted uint32 // buffers the peer posted for this side, as last told
	posted     uint32 // buffers this side posted for the peer
	told       uint32 // posted as the peer was last told it
	limit      uint32 // untold buffers at which a credit write is due
}

// NewCredits starts a connection on which each side pre-posted posted receive buffers
// for the other; a credit write is due once half as many are untold.
func NewCredits(posted int) *Credits {
	n := uint32(posted)
	return &Credits{peerPosted: n, posted: n, told: n, limit: max(1, n/2)}
}

// Avail is the number of sends that may be posted now.
func (c *Credits) Avail() int { return int(c.peerPosted - c.sent) }

// Take uses one credit for a send; false when none is left (the sender waits for the
// peer's credits: transport.ErrAgain).
func (c *Credits) Take() bool {
	if c.peerPosted == c.sent {
		return false
	}
	c.sent++
	return true
}

// Update applies a count the peer told (a message's immediate, or the credit word):
// counts only grow (modulo 2^32), so an older one changes nothing.
func (c *Credits) Update(count uint32) {
	if int32(count-c.peerPosted) > 0 {
		c.peerPosted = count
	}
}

// Reposted records a receive buffer posted again for the peer.
func (c *Credits) Reposted() { c.posted++ }

// Tell returns the count to send the peer, in a message's immediate or a credit write.
func (c *Credits) Tell() uint32 {
	c.told = c.posted
	return c.posted
}

// Due reports whether a credit write should go now: many buffers are untold, or some
// are and this side has no credit left (with no message of its own to carry them, both
// sides could otherwise wait for the few each owes the other).
func (c *Credits) Due() bool {
	untold := c.posted - c.told
	return untold >= c.limit || untold > 0 && c.Avail() == 0
}
