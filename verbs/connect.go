package verbs

import (
	"fmt"

	"mpix/transport/epshare"
)

// Connecting a plan's RC QPs through PMI. A plan made ForPeers has, for each QP i of
// the category's plan, one QP per peer: QPs[i*len(peers)+k] connects to peers[k]. Each
// process publishes, under AddrKey(rank, i, peer), the address of its QP i's
// connection to that peer; each then reads the peer's address for its connection to
// it and connects the two (RTR, RTS). QPs no VCI drives (2xDynamic's odd ones) are
// not connected: they stay in INIT, as the paper leaves them idle.

// PeerList is the processes rank connects to in a world of size: every other one, or
// itself alone (a process of one connects a QP to itself).
func PeerList(rank, size int) []int {
	if size == 1 {
		return []int{rank}
	}
	out := make([]int, 0, size-1)
	for r := 0; r < size; r++ {
		if r != rank {
			out = append(out, r)
		}
	}
	return out
}

// Conn is one connection to make: per-peer plan QP Index towards Peer's QP, with both
// ends' addresses.
type Conn struct {
	Index         int
	Peer          int
	Local, Remote QPAddr
}

// used reports which of the base plan's QPs some VCI drives.
func used(base *epshare.Plan) []bool {
	u := make([]bool, base.NumQPs())
	for _, v := range base.Use {
		u[v.QP] = true
	}
	return u
}

// Publish puts the address of every driven connection of this process: qpn are the
// per-peer plan's QP numbers, addr this port's address (LID, GID, MTU), psn the first
// sequence number of each per-peer QP.
func Publish(put func(key, value string) error, rank, size int, base *epshare.Plan, qpn []uint32, addr QPAddr, psn func(index int) uint32) error {
	peers := PeerList(rank, size)
	if len(qpn) != base.NumQPs()*len(peers) {
		return fmt.Errorf("verbs: %d QP numbers for %d QPs to %d peers", len(qpn), base.NumQPs(), len(peers))
	}
	for i, u := range used(base) {
		if !u {
			continue
		}
		for k, peer := range peers {
			a := addr
			a.QPN, a.PSN = qpn[i*len(peers)+k], psn(i*len(peers)+k)&(1<<24-1)
			if err := put(AddrKey(rank, i, peer), a.String()); err != nil {
				return fmt.Errorf("verbs: PMI put: %w", err)
			}
		}
	}
	return nil
}

// Connections reads the peers' addresses (after the fence that follows Publish) and
// returns the connections to make: for each driven QP i and peer, the peer's QP i's
// connection to this process.
func Connections(get func(rank int, key string) (string, error), rank, size int, base *epshare.Plan, qpn []uint32, addr QPAddr, psn func(index int) uint32) ([]Conn, error) {
	peers := PeerList(rank, size)
	if len(qpn) != base.NumQPs()*len(peers) {
		return nil, fmt.Errorf("verbs: %d QP numbers for %d QPs to %d peers", len(qpn), base.NumQPs(), len(peers))
	}
	var out []Conn
	for i, u := range used(base) {
		if !u {
			continue
		}
		for k, peer := range peers {
			v, err := get(peer, AddrKey(peer, i, rank))
			if err != nil {
				return nil, fmt.Errorf("verbs: rank %d published no address for its QP %d to rank %d: %w", peer, i, rank, err)
			}
			remote, err := ParseQPAddr(v)
			if err != nil {
				return nil, fmt.Errorf("verbs: rank %d's QP %d: %w", peer, i, err)
			}
			idx := i*len(peers) + k
			local := addr
			local.QPN, local.PSN = qpn[idx], psn(idx)&(1<<24-1)
			out = append(out, Conn{Index: idx, Peer: peer, Local: local, Remote: remote})
		}
	}
	return out, nil
}
