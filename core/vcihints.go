package core

import (
	"runtime"
	"strconv"
	"strings"

	"mpix/vci"
)

// Communicator hints that steer the mapping of point-to-point traffic onto VCIs
// (ICS'20 §2.1 and §5; MPI-4.0 §7.4.4; MPICH's VCI keys).
//
// They take effect where a communicator is made with them: MPI_Comm_dup_with_info,
// MPI_Comm_idup_with_info, MPI_Comm_dup (which copies the parent's hints),
// MPI_Comm_split_type, MPI_Comm_create_from_group and MPIX_Comm_create_endpoints.
// MPI_Comm_set_info records them (MPI_Comm_get_info shows them, and communicators
// duplicated from it inherit them) but does not move a live communicator to other
// VCIs: a message sent before the call travels on the old VCI and would never meet
// a receive posted on the new one, and MPI_Comm_set_info does not synchronize.
//
//   - mpi_assert_no_any_source, mpi_assert_no_any_tag: the receiver will name the
//     source (the tag) in every receive and probe, so both sides know it and a
//     message from communicator rank s with tag t can travel on VCI f(s, t) of a set
//     of VCIs agreed at creation: f uses s, t or both, whichever the hints fix. A
//     stream then carries every message a receive could match, so MPI's order
//     (non-overtaking among messages that match the same receive) still holds.
//     While spreading, a receive or probe with the excluded wildcard fails with
//     MPI_ERR_RANK or MPI_ERR_TAG instead of silently missing messages.
//   - mpi_assert_allow_overtaking alone does not spread: a receive with wildcards is
//     matched by one VCI's queues, so a message sent round-robin on another VCI would
//     never meet it. Matching across VCIs would need the very shared lock VCIs exist
//     to avoid. The hint is accepted and reported.
//   - mpi_assert_new_vci: every communicator already gets a VCI of its own while the
//     pool has one free on all members; accepted and reported.
//   - vci, sender_vci, receiver_vci (MPICH): the communicator uses this VCI (modulo
//     the pool size) if every member asked for the same one and no single-thread
//     communicator owns it anywhere; otherwise the hint is ignored. VCI v of one
//     process talks to VCI v of the others, so the sending and receiving VCIs cannot
//     differ: receiver_vci wins, then vci, then sender_vci. MPI_Comm_get_info reports
//     the VCI in use under the keys given.
//   - mpix_assert_single_thread: one thread at a time uses the communicator and its
//     requests (including MPI_Test/Wait*/Request_get_status* on them). If this
//     process can give it VCIs no other communicator uses, they run without their
//     lock, and global progress by other threads leaves them alone. So the
//     communicator progresses only inside calls on it or its requests: a program
//     that relies on another thread's wait to progress it (the paper's Figure 9)
//     must not use the hint. MPI_Comm_get_info reports "true" only if the hint took
//     effect on this process.
//
// mpix_vcis (output only) is the number of VCIs the communicator's point-to-point
// traffic spreads over.
const (
	hintNoAnySource     = "mpi_assert_no_any_source"
	hintNoAnyTag        = "mpi_assert_no_any_tag"
	hintAllowOvertaking = "mpi_assert_allow_overtaking"
	hintNewVCI          = "mpi_assert_new_vci"
	hintVCI             = "vci"
	hintSenderVCI       = "sender_vci"
	hintReceiverVCI     = "receiver_vci"
	hintSingleThread    = "mpix_assert_single_thread"
	hintNumVCIs         = "mpix_vcis"
)

// What a spread communicator's VCI depends on.
const (
	spreadSource = 1
	spreadTag    = 2
)

// vciHints are the VCI-related hints of one process for a communicator it creates.
type vciHints struct {
	spread   uint8 // spreadSource|spreadTag
	explicit int   // VCI asked for by vci/sender_vci/receiver_vci; -1 for none
	single   bool
}

var noHints = vciHints{explicit: -1}

// infoBool reads a boolean hint: "true" (any case) is true, anything else false.
func infoBool(in *Info, key string) bool {
	v, ok, _ := in.Get(key)
	return ok && strings.EqualFold(strings.TrimSpace(v), "true")
}

// infoVCI reads a VCI index hint; -1 when absent or not a non-negative integer.
func infoVCI(in *Info, key string) int {
	v, ok, _ := in.Get(key)
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// parseVCIHints reads the hints of info (nil: none).
func parseVCIHints(in *Info) vciHints {
	h := noHints
	if in == nil {
		return h
	}
	if infoBool(in, hintNoAnySource) {
		h.spread |= spreadSource
	}
	if infoBool(in, hintNoAnyTag) {
		h.spread |= spreadTag
	}
	for _, k := range []string{hintReceiverVCI, hintVCI, hintSenderVCI} {
		if v := infoVCI(in, k); v >= 0 {
			h.explicit = v
			break
		}
	}
	h.single = infoBool(in, hintSingleThread)
	return h
}

// vciRoute is how a communicator's point-to-point traffic maps onto VCIs: all on
// Comm.eng, or spread over set.
type vciRoute struct {
	set []*Engine
	by  uint8 // spreadSource|spreadTag when set is not nil
}

// pick is the VCI of messages from communicator rank src with tag tag.
func (rt *vciRoute) pick(src, tag int) *Engine {
	k := 0
	switch rt.by {
	case spreadSource:
		k = src
	case spreadTag:
		k = tag
	default:
		k = src + tag
	}
	return rt.set[uint(k)%uint(len(rt.set))]
}

// sendEng is the VCI of a send to dest with tag tag on c.
func (c *Comm) sendEng(dest, tag int) *Engine {
	if c.ep != nil && dest >= 0 { // an endpoint sends on the destination endpoint's VCI
		return c.ep.engs[c.ep.idx[dest]]
	}
	if c.vr.set == nil {
		return c.eng
	}
	return c.vr.pick(c.Rank, tag)
}

// recvEng is the VCI of a receive (or probe) from source with tag tag on c, once
// checkSpreadWildcards has accepted them.
func (c *Comm) recvEng(source, tag int) *Engine {
	if c.vr.set == nil || source == ProcNull || c.ep != nil {
		return c.eng
	}
	return c.vr.pick(source, tag)
}

// checkSpreadWildcards rejects the wildcards a spread communicator's hints exclude.
func (c *Comm) checkSpreadWildcards(source, tag int) error {
	if c.vr.set == nil {
		return nil
	}
	if source == AnySource && c.vr.by&spreadSource != 0 {
		return Errorf(ErrRank, "MPI_ANY_SOURCE on a communicator with mpi_assert_no_any_source")
	}
	if tag == AnyTag && c.vr.by&spreadTag != 0 {
		return Errorf(ErrTag, "MPI_ANY_TAG on a communicator with mpi_assert_no_any_tag")
	}
	return nil
}

// enter takes e's lock unless a single-thread communicator owns e, in which case
// the caller is that communicator's thread; exit undoes what enter did.
func (e *Engine) enter() bool {
	if e.Owned() {
		return false
	}
	e.lock()
	return true
}

func (e *Engine) exit(locked bool) {
	if locked {
		e.unlock()
		return
	}
	e.publishIdle() // C's fast path takes the lock even on an owned VCI and reads these
}

// progressShared is one round of progress on e made by a thread that may not own
// it (global progress): an owned VCI is left to its owner.
func (e *Engine) progressShared() int {
	if e.Owned() || !e.tryLock() { // owned, or another thread progresses it now
		return 0
	}
	defer e.unlock()
	if e.Owned() { // claimed while this thread took the lock
		return 0
	}
	return e.progress()
}

// idle reports whether nothing is in flight on e (under e.mu).
func (e *Engine) idle() bool {
	return len(e.posted) == 0 && len(e.pending) == 0 && len(e.outbox) == 0 && len(e.scheds) == 0
}

// vciPlan is the outcome of the agreement on a new communicator's VCIs.
type vciPlan struct {
	base     *Engine
	spread   []int // VCI indices, base first; nil when not spreading
	by       uint8
	owned    bool  // this process claimed the VCIs for a single-thread communicator
	claimed  []int // the VCIs claimed
	explicit bool  // an explicit VCI hint was honoured
}

// disownPlan drops the claim of a plan whose communicator is not made here
// (MPI_UNDEFINED in a split).
func disownPlan(p *vciPlan) {
	for _, v := range p.claimed {
		vcis.Disown(v)
	}
	p.claimed = nil
}

// planFor is the plan of a communicator that simply shares eng.
func planFor(eng *Engine) *vciPlan { return &vciPlan{base: eng} }

// Agreement vector tail after the free-VCI mask words: reduced with min, negated
// entries giving the max, so equal values everywhere can be recognised.
const (
	agExplicit = iota
	agExplicitNeg
	agUsable
	agSpread
	agSpreadNeg
	agPool
	agPoolNeg
	agCPUs
	agLen
)

// agreeVCIs appends the agreement of c's members on the VCIs of a communicator
// created with hints h, then calls done with the plan.
func agreeVCIs(s *schedule, c *Comm, h vciHints, done func(p *vciPlan) error) {
	n := vcis.Len()
	words := vci.Words(n)
	extra := -1
	if h.explicit >= 0 {
		extra = h.explicit % n
	}
	mask, usable := vcis.Offer(extra)
	mine := make([]int64, words+agLen)
	for i, w := range mask {
		mine[i] = int64(w)
	}
	t := mine[words:]
	t[agExplicit], t[agExplicitNeg] = int64(h.explicit), -int64(h.explicit)
	if usable {
		t[agUsable] = 1
	}
	t[agSpread], t[agSpreadNeg] = int64(h.spread), -int64(h.spread)
	t[agPool], t[agPoolNeg] = int64(n), -int64(n)
	t[agCPUs] = int64(runtime.NumCPU())
	agreed := make([]int64, len(mine))
	agree(s, c, mine, func(acc, x []int64) {
		for i := range acc {
			if i < words {
				acc[i] &= x[i]
			} else {
				acc[i] = min(acc[i], x[i])
			}
		}
	}, agreed, func() error {
		free := make([]uint64, words)
		for i := range free {
			free[i] = uint64(agreed[i])
		}
		a := agreed[words:]
		samePool := a[agPool] == -a[agPoolNeg]
		p := &vciPlan{}
		base := 0
		switch {
		case h.explicit >= 0 && a[agExplicit] == -a[agExplicitNeg] && a[agUsable] == 1 && samePool:
			base, p.explicit = extra, true
		case a[agSpread] == -a[agSpreadNeg] && a[agSpread] != 0:
			if set := vci.Lowest(free, int(max(a[agCPUs], 2))); len(set) >= 2 {
				p.spread, p.by = set, uint8(a[agSpread])
				base = set[0]
			} else {
				base = vci.Choose(free)
			}
		default:
			base = vci.Choose(free)
		}
		var claim []int
		if h.single && base != 0 {
			claim = []int{base}
			if p.spread != nil {
				claim = p.spread
			}
		}
		if p.owned = vcis.Settle(mask, extra, claim); p.owned {
			p.claimed = claim
		}
		p.base = engines[base]
		return done(p)
	})
}

// apply gives the new communicator c (made on p.base by newComm) the rest of its
// plan: the spread VCIs, ownership, and the hints that took effect in its info.
func (p *vciPlan) apply(c *Comm) {
	if p.spread != nil {
		c.vr.by = p.by
		for _, v := range p.spread {
			c.vr.set = append(c.vr.set, engines[v])
			if v != p.base.Index() {
				vcis.Acquire(v)
			}
		}
		publishComm(c) // withdraws it from the C fast path, which knows one VCI only
	}
	owned := p.owned && p.claim(c)
	in := c.info // the communicator's own copy, not yet visible to others
	if in == nil {
		if p.spread == nil {
			return
		}
		in = &Info{vals: map[string]string{}}
		c.info = in
	}
	if _, ok, _ := in.Get(hintSingleThread); ok {
		in.Set(hintSingleThread, strconv.FormatBool(owned))
	}
	for _, k := range []string{hintVCI, hintSenderVCI, hintReceiverVCI} {
		if _, ok, _ := in.Get(k); ok {
			in.Set(k, strconv.Itoa(c.eng.Index()))
		}
	}
	if p.spread != nil {
		in.Set(hintNumVCIs, strconv.Itoa(len(c.vr.set)))
	}
}

// claim makes c's VCIs owned: from now on c's thread uses them without the lock.
// A thread of global progress may be inside one of them: taking each lock once
// waits for it, and progressShared checks ownership again under the lock. A VCI with
// operations still in flight (of a communicator freed before they completed) cannot
// be owned: their waiters would run beside the owner.
func (p *vciPlan) claim(c *Comm) bool {
	engs := []*Engine{c.eng}
	if c.vr.set != nil {
		engs = c.vr.set
	}
	for _, e := range engs {
		e.SetOwned(true)
	}
	ok := true
	for _, e := range engs {
		e.lock()
		ok = ok && e.idle()
		e.unlock()
	}
	if !ok {
		for _, e := range engs {
			e.SetOwned(false)
			vcis.Disown(e.Index())
		}
	}
	return ok
}

// releaseVCIs returns a freed communicator's VCIs to the pool.
func (c *Comm) releaseVCIs() {
	if vcis == nil {
		return
	}
	// An owned VCI is c's alone and c's thread frees it: later users lock again.
	c.eng.SetOwned(false)
	for _, e := range c.vr.set {
		e.SetOwned(false)
		if e != c.eng {
			vcis.Release(e.Index())
		}
	}
	vcis.Release(c.eng.Index())
}

// disownFor is called when a communicator other than the owner is made on eng
// (an intercommunicator on its parent's VCI): the caller is the owner's thread, so
// the VCI can go back to locking at once.
func disownFor(eng *Engine) {
	if eng != nil && eng.Owned() {
		eng.SetOwned(false)
		vcis.Disown(eng.Index())
	}
}

// ProgressFor makes one round of progress for a call that tests or waits on rs:
// first the owned VCIs of rs (the caller is their owner's thread), then every VCI
// no single-thread communicator owns.
func ProgressFor(rs []*Request) int {
	n := 0
	for _, r := range rs {
		if r != nil && r.eng != nil && r.eng.Owned() {
			n += r.eng.progress()
		}
	}
	return n + Progress()
}

// WaitUntilFor is WaitUntil for a wait on the requests rs.
func WaitUntilFor(rs []*Request, done func() bool) {
	owned := false
	for _, r := range rs {
		if r != nil && r.eng != nil && r.eng.Owned() {
			owned = true
		}
	}
	if !owned {
		WaitUntil(done)
		return
	}
	WaitUntil(func() bool {
		if done() {
			return true
		}
		for _, r := range rs {
			if r != nil && r.eng != nil && r.eng.Owned() {
				r.eng.progress()
			}
		}
		return done()
	})
}
