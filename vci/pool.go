// Package vci manages virtual communication interfaces (VCIs): the independent
// communication streams of a process (ICS'20, "How I Learned to Stop Worrying about
// User-Visible Endpoints"). A VCI (vci.go) is a lock shared with C (shared.go, vci.h),
// the single-thread owner flag, its counters and the rule for when a thread polling
// it owes the other VCIs a round of progress; core's engine embeds one and adds
// matching and protocols. The Pool decides which communicator uses which VCI.
//
// VCI v of one process talks only to VCI v of the others, so a communicator's members
// must all use the same index: communicator creation agrees on it. Each process offers
// the VCIs no communicator uses (FreeMask), the members AND their masks, and the
// lowest index free everywhere wins (Choose). VCI 0 is the fallback: MPI_COMM_WORLD's,
// and every communicator's when no VCI is free everywhere.
//
// A communicator with the mpix_assert_single_thread hint may own its VCIs: then no
// other communicator of this process may use them, because the owner runs without
// the VCI's lock. Ownership is decided per process (it only changes how this process
// locks) but must never race with a concurrent creation that may pick the same VCI,
// so every creation brackets its agreement with Offer and Settle: an offered VCI
// cannot be claimed until the creation that offered it has settled.
package vci

import (
	"math/bits"
	"sync"
)

// Pool counts the communicators using each VCI of this process.
type Pool struct {
	mu        sync.Mutex // taken at communicator creation and free only
	refs      []int
	tentative []int  // creations in flight that offered the VCI
	owned     []bool // claimed by a single-thread communicator
}

// NewPool makes a pool of n VCIs (at least 1: the fallback).
func NewPool(n int) *Pool {
	n = max(n, 1)
	return &Pool{refs: make([]int, n), tentative: make([]int, n), owned: make([]bool, n)}
}

// Len is the number of VCIs.
func (p *Pool) Len() int { return len(p.refs) }

// FreeMask is the bit set of VCIs no communicator uses (never the fallback), in
// 64-bit words.
func (p *Pool) FreeMask() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.freeMask()
}

func (p *Pool) freeMask() []uint64 {
	m := make([]uint64, Words(len(p.refs)))
	for i := 1; i < len(p.refs); i++ {
		if p.refs[i] == 0 && !p.owned[i] {
			m[i/64] |= 1 << (i % 64)
		}
	}
	return m
}

// Offer is FreeMask for a creation that will Settle: until then no VCI in the mask
// can be claimed by another creation, since this one may still pick it. extra names
// one more VCI the creation may use (an explicit "vci" hint; -1 for none); it is
// reported usable when nobody owns it.
func (p *Pool) Offer(extra int) (mask []uint64, extraUsable bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	mask = p.freeMask()
	p.mark(mask, extra, 1)
	if extra >= 0 && extra < len(p.refs) {
		extraUsable = !p.owned[extra]
	}
	return mask, extraUsable
}

func (p *Pool) mark(mask []uint64, extra, d int) {
	for i := range p.refs {
		if mask[i/64]&(1<<(i%64)) != 0 || i == extra {
			p.tentative[i] += d
		}
	}
}

// Settle ends the creation that offered mask and extra (Offer's arguments and
// result). With claim not empty it tries to make those VCIs owned by the new
// communicator: each must be unused, claimed by nobody and offered by no other
// creation in flight. It reports whether the claim succeeded; the caller then
// Acquires the VCIs as usual.
func (p *Pool) Settle(mask []uint64, extra int, claim []int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mark(mask, extra, -1)
	if len(claim) == 0 {
		return false
	}
	for _, v := range claim {
		if v <= 0 || v >= len(p.refs) || p.refs[v] != 0 || p.owned[v] || p.tentative[v] != 0 {
			return false
		}
	}
	for _, v := range claim {
		p.owned[v] = true
	}
	return true
}

// Disown ends a claim that could not take effect (the caller found the VCI busy).
func (p *Pool) Disown(v int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.owned[v] = false
}

// Owned reports whether VCI v is owned by a single-thread communicator.
func (p *Pool) Owned(v int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.owned[v]
}

// Lowest returns up to k VCIs set in the agreed mask, lowest first.
func Lowest(mask []uint64, k int) []int {
	var out []int
	for w, x := range mask {
		for x != 0 && len(out) < k {
			b := bits.TrailingZeros64(x)
			out = append(out, w*64+b)
			x &^= 1 << b
		}
	}
	return out
}

// Words is the length of a mask for n VCIs.
func Words(n int) int { return (n + 63) / 64 }

// Choose returns the lowest VCI set in the agreed mask, or the fallback 0.
func Choose(mask []uint64) int {
	for w, x := range mask {
		if x != 0 {
			return w*64 + bits.TrailingZeros64(x)
		}
	}
	return 0
}

// Acquire records a communicator on VCI v. Two communicators created at once on
// different threads may both get v: they share it, which is correct, only slower.
func (p *Pool) Acquire(v int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refs[v]++
}

// Release records that a communicator on VCI v was freed.
func (p *Pool) Release(v int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refs[v] > 0 {
		p.refs[v]--
	}
	if p.refs[v] == 0 {
		p.owned[v] = false // the owner was the last user
	}
}

// Users is the number of communicators on VCI v.
func (p *Pool) Users(v int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refs[v]
}
