package core

import (
	"runtime"
	"strconv"

	"mpix/vci"
)

// The hints and how they steer a communicator's traffic are vci's (vci/hints.go);
// here they meet communicators: the agreement of the members at creation, the VCIs
// a communicator sends and receives on, and what MPI_Comm_get_info reports.

// noHints is a communicator made without hints.
var noHints = vci.NoHints

// parseVCIHints reads the hints of info (nil: none).
func parseVCIHints(in *Info) vci.Hints {
	if in == nil {
		return noHints
	}
	return vci.ParseHints(func(key string) (string, bool) {
		v, ok, _ := in.Get(key)
		return v, ok
	})
}

// vciRoute is how a communicator's point-to-point traffic maps onto VCIs: all on
// Comm.eng, or spread over set.
type vciRoute struct {
	set []*Engine
	by  uint8 // vci.SpreadSource|vci.SpreadTag when set is not nil
}

// pick is the VCI of messages from communicator rank src with tag tag.
func (rt *vciRoute) pick(src, tag int) *Engine {
	return rt.set[vci.Spread(rt.by, src, tag, len(rt.set))]
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
	if source == AnySource && c.vr.by&vci.SpreadSource != 0 {
		return Errorf(ErrRank, "MPI_ANY_SOURCE on a communicator with mpi_assert_no_any_source")
	}
	if tag == AnyTag && c.vr.by&vci.SpreadTag != 0 {
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
func agreeVCIs(s *schedule, c *Comm, h vci.Hints, done func(p *vciPlan) error) {
	n := vcis.Len()
	words := vci.Words(n)
	extra := -1
	if h.Explicit >= 0 {
		extra = h.Explicit % n
	}
	mask, usable := vcis.Offer(extra)
	mine := make([]int64, words+agLen)
	for i, w := range mask {
		mine[i] = int64(w)
	}
	t := mine[words:]
	t[agExplicit], t[agExplicitNeg] = int64(h.Explicit), -int64(h.Explicit)
	if usable {
		t[agUsable] = 1
	}
	t[agSpread], t[agSpreadNeg] = int64(h.Spread), -int64(h.Spread)
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
		case h.Explicit >= 0 && a[agExplicit] == -a[agExplicitNeg] && a[agUsable] == 1 && samePool:
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
		if h.Single && base != 0 {
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
	if _, ok, _ := in.Get(vci.HintSingleThread); ok {
		in.Set(vci.HintSingleThread, strconv.FormatBool(owned))
	}
	for _, k := range []string{vci.HintVCI, vci.HintSenderVCI, vci.HintReceiverVCI} {
		if _, ok, _ := in.Get(k); ok {
			in.Set(k, strconv.Itoa(c.eng.Index()))
		}
	}
	if p.spread != nil {
		in.Set(vci.HintNumVCIs, strconv.Itoa(len(c.vr.set)))
	}
}

// claim makes c's VCIs owned: from now on c's thread uses them without the lock.
// A thread of global progress may be inside one of them: taking each lock once
// waits for it, and progressShared checks ownership again under the lock. A VCI with
// operations still in flight (of a communicator freed before they completed) cannot
// be owned: their waiters would run beside the owner.
func (p *vciPlan) claim(c *Comm) bool {
	if Settings.Async {
		return false // the progress thread polls every VCI
	}
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
