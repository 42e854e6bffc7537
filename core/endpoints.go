package core

import (
	"mpix/transport"
	"mpix/vci"
)

// MPIX_Comm_create_endpoints (the MPI Endpoints proposal, ICS'20's comparison
// point): a communicator in which each process has as many ranks as it asks for,
// ranked by parent rank, then endpoint index. Each endpoint is a Comm of its own,
// meant for one thread, with its own receive context and, while the pool has them,
// its own VCI:
//
//   - contexts: the members agree on K consecutive context blocks (K the largest
//     endpoint count); endpoint j receives on block j of its process, so a sender
//     addresses the destination endpoint by context and the engine needs no new
//     envelope field for it;
//   - the sending endpoint's index travels in transport.Header.SrcEP, since a
//     receive naming a source rank must tell apart the endpoints of one process;
//   - VCIs: the members agree on up to K VCIs free everywhere; endpoint j receives
//     on VCI j (modulo their number, the fallback if none), and a send goes out on
//     the destination endpoint's VCI, because VCI v of one process talks to VCI v of
//     the others;
//   - collectives run on one VCI shared by all endpoints of the communicator, so
//     that both sides of every collective message poll the same stream; they use
//     the point-to-point algorithms (no shared-memory arena: its layout assumes one
//     rank per process).
//
// Communicator constructors (dup, split, ...) are not supported on an endpoints
// communicator: the context agreement assumes one rank per process.

// epInfo describes an endpoints communicator for one of its local endpoints.
type epInfo struct {
	self  uint16    // this endpoint's index in its process
	idx   []uint16  // per rank: the endpoint's index in its process
	first []int     // per world rank: the rank of that process's endpoint 0 (-1: none)
	engs  []*Engine // per endpoint index: its VCI
}

// envelope is the context and source endpoint stamped on a message to peer.
func (c *Comm) envelope(peer int) (uint32, uint16) {
	if c.ep == nil {
		return c.sendCtx, 0
	}
	return c.sendCtx + uint32(c.ep.idx[peer])*ctxStride, c.ep.self
}

// sameEndpoint reports whether a message (from peer's process) came from peer's
// endpoint.
func (c *Comm) sameEndpoint(peer int, h *transport.Header) bool {
	return c.ep == nil || c.ep.idx[peer] == h.SrcEP
}

// sourceOf is the rank a receive reports for a message with header h.
func (c *Comm) sourceOf(h *transport.Header) int {
	if c.tc != nil {
		return c.tc.rankOf(h)
	}
	if c.ep == nil {
		return c.rankOfWorld(int(h.Src))
	}
	if int(h.Src) >= len(c.ep.first) || c.ep.first[h.Src] < 0 {
		return Undefined
	}
	return c.ep.first[h.Src] + int(h.SrcEP)
}

// IsEndpoints reports whether c is an endpoint of an endpoints communicator.
func (c *Comm) IsEndpoints() bool { return c.ep != nil }

// CreateEndpoints is MPIX_Comm_create_endpoints: collective over parent, it returns
// this process's numEP endpoints.
func CreateEndpoints(parent *Comm, numEP int, info *Info) ([]*Comm, error) {
	if parent.IsInter() {
		return nil, Errorf(ErrComm, "MPIX_Comm_create_endpoints needs an intracommunicator")
	}
	if numEP < 1 || numEP > 1<<16 {
		return nil, Errorf(ErrArg, "invalid number of endpoints %d (valid: 1..65536)", numEP)
	}
	var out []*Comm
	_, err := runInternal(Blocking, parent, 0, false, func(s *schedule) {
		counts := make([]int64, parent.Size)
		allgatherInts(s, parent.internal, []int64{int64(numEP)}, counts)
		s.then(func() error {
			k := 0
			for _, n := range counts {
				if n < 1 {
					return Errorf(ErrArg, "a process asked for %d endpoints", n)
				}
				k = max(k, int(n))
			}
			agreeEndpointVCIs(s, parent, k, func(engs []*Engine, coll *Engine) error {
				allocContextN(s, parent, k, func(base uint32) error {
					out = makeEndpoints(parent, counts, base, engs, coll, info)
					return nil
				})
				return nil
			})
			return nil
		})
	})
	return out, err
}

// agreeEndpointVCIs appends the agreement on the VCIs of k endpoint indices: the
// lowest VCIs free on every member, reused cyclically when fewer than k; the
// fallback VCI when none. coll is the VCI of the communicator's collectives.
func agreeEndpointVCIs(s *schedule, c *Comm, k int, done func(engs []*Engine, coll *Engine) error) {
	engs := make([]*Engine, k)
	if vcis == nil || vcis.Len() == 1 {
		for i := range engs {
			engs[i] = c.eng
		}
		s.then(func() error { return done(engs, c.eng) })
		return
	}
	mask, _ := vcis.Offer(-1)
	words := len(mask)
	mine := make([]int64, words)
	for i, w := range mask {
		mine[i] = int64(w)
	}
	agreed := make([]int64, words)
	agree(s, c, mine, func(acc, x []int64) {
		for i := range acc {
			acc[i] &= x[i]
		}
	}, agreed, func() error {
		vcis.Settle(mask, -1, nil)
		free := make([]uint64, words)
		for i := range free {
			free[i] = uint64(agreed[i])
		}
		set := vci.Lowest(free, k)
		if len(set) == 0 {
			set = []int{0}
		}
		for i := range engs {
			engs[i] = engines[set[i%len(set)]]
		}
		return done(engs, engines[set[0]])
	})
}

// allocContextN is allocContext for n consecutive context blocks.
func allocContextN(s *schedule, c *Comm, n int, done func(id uint32) error) {
	proposal := []int64{int64(nextContext.Load())}
	agreed := make([]int64, 1)
	agree(s, c, proposal, maxInts, agreed, func() error {
		id := uint32(agreed[0])
		if uint64(id)+uint64(n)*ctxStride >= ctxLimit {
			return Errorf(ErrOther, "out of communicator context ids")
		}
		ok := []int64{0}
		if claimContexts(id, n) {
			ok[0] = 1
		}
		allOK := make([]int64, 1)
		agree(s, c, ok, func(acc, x []int64) { acc[0] = min(acc[0], x[0]) }, allOK, func() error {
			if allOK[0] == 1 {
				return done(id)
			}
			allocContextN(s, c, n, done)
			return nil
		})
		return nil
	})
}

// claimContexts is claimContext for n blocks from id.
func claimContexts(id uint32, n int) bool {
	for {
		v := nextContext.Load()
		if v > id {
			return false
		}
		if nextContext.CompareAndSwap(v, id+uint32(n)*ctxStride) {
			return true
		}
	}
}

// makeEndpoints builds this process's endpoints once everything is agreed.
func makeEndpoints(parent *Comm, counts []int64, base uint32, engs []*Engine, coll *Engine, info *Info) []*Comm {
	n := 0
	for _, c := range counts {
		n += int(c)
	}
	world := make([]int, 0, n)
	idx := make([]uint16, 0, n)
	first := make([]int, len(proc.peers))
	if len(first) == 0 { // a job without peers known (tests): the parent's world ranks
		first = make([]int, CommWorld.Size)
	}
	for i := range first {
		first[i] = -1
	}
	me := 0
	for p, c := range counts {
		w := parent.peers[p]
		if p == parent.Rank {
			me = len(world)
		}
		first[w] = len(world)
		for j := 0; j < int(c); j++ {
			world = append(world, w)
			idx = append(idx, uint16(j))
		}
	}
	g := NewGroup(world)
	out := make([]*Comm, counts[parent.Rank])
	for j := range out {
		ctx := base + uint32(j)*ctxStride
		c := &Comm{ContextID: ctx, sendCtx: base}
		c.ep = &epInfo{self: uint16(j), idx: idx, first: first, engs: engs}
		c.init(me+j, g, nil, engs[j])
		// The views carry the endpoint addressing too, and share one VCI.
		for _, v := range []*Comm{c.coll, c.internal} {
			v.ep, v.eng = c.ep, coll
			v.sendCtx = base + (v.ContextID - ctx)
		}
		c.arenaState = arenaNone
		c.info = info.copyUnregistered()
		c.errh.Store(ErrhFatal)
		if vcis != nil {
			vcis.Acquire(c.eng.Index())
		}
		c.Handle = comms.Add(c)
		out[j] = c
	}
	return out
}
