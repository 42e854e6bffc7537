package verbs

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// QPAddr is what a peer needs to connect an RC QP to this one, published through PMI:
// the port's LID (InfiniBand) or GID (RoCE, and InfiniBand across subnets), the QP
// number and the first packet sequence number.
type QPAddr struct {
	LID uint16
	GID [16]byte
	QPN uint32 // 24 bits
	PSN uint32 // 24 bits
	MTU uint8  // the port's active MTU (IBV_MTU_*); the pair uses the smaller
}

const addrLen = 2 + 16 + 4 + 4 + 1

// String is the address as PMI carries it (hex).
func (a QPAddr) String() string {
	b := make([]byte, addrLen)
	binary.BigEndian.PutUint16(b[0:], a.LID)
	copy(b[2:18], a.GID[:])
	binary.BigEndian.PutUint32(b[18:], a.QPN)
	binary.BigEndian.PutUint32(b[22:], a.PSN)
	b[26] = a.MTU
	return hex.EncodeToString(b)
}

// ParseQPAddr reads an address String wrote.
func ParseQPAddr(s string) (QPAddr, error) {
	var a QPAddr
	b, err := hex.DecodeString(s)
	if err != nil {
		return a, fmt.Errorf("verbs: QP address %q: %v", s, err)
	}
	if len(b) != addrLen {
		return a, fmt.Errorf("verbs: QP address of %d bytes, want %d", len(b), addrLen)
	}
	a.LID = binary.BigEndian.Uint16(b[0:])
	copy(a.GID[:], b[2:18])
	a.QPN = binary.BigEndian.Uint32(b[18:])
	a.PSN = binary.BigEndian.Uint32(b[22:])
	a.MTU = b[26]
	if a.QPN >= 1<<24 || a.PSN >= 1<<24 {
		return a, fmt.Errorf("verbs: QP number %#x or PSN %#x exceeds 24 bits", a.QPN, a.PSN)
	}
	if a.MTU < 1 || a.MTU > 5 {
		return a, fmt.Errorf("verbs: MTU code %d is not IBV_MTU_256..IBV_MTU_4096", a.MTU)
	}
	return a, nil
}

// AddrKey is the PMI key under which rank publishes VCI vci's QP address for peer.
// Every pair of processes has its own RC QP per VCI (RC connects two QPs).
func AddrKey(rank, vci, peer int) string { return fmt.Sprintf("mpix-verbs-%d-%d-%d", rank, vci, peer) }

// PathMTU is the MTU a connected pair uses: the smaller of the two ports'.
func PathMTU(a, b QPAddr) uint8 { return min(a.MTU, b.MTU) }

// UsesGID reports whether the pair must address by GID (a global route): RoCE ports
// have no LID (0).
func UsesGID(a QPAddr) bool { return a.LID == 0 }
