// Package vci manages virtual communication interfaces (VCIs): the independent
// communication streams of a process (ICS'20, "How I Learned to Stop Worrying about
// User-Visible Endpoints"). Each VCI owns its transport endpoints, lock and queues;
// this package decides which communicator uses which VCI.
//
// VCI v of one process talks only to VCI v of the others, so a communicator's members
// must all use the same index: communicator creation agrees on it. Each process offers
// the VCIs no communicator uses (FreeMask), the members AND their masks, and the
// lowest index free everywhere wins (Choose). VCI 0 is the fallback: MPI_COMM_WORLD's,
// and every communicator's when no VCI is free everywhere.
package vci

import (
	"math/bits"
	"sync"
)

// Pool counts the communicators using each VCI of this process.
type Pool struct {
	mu   sync.Mutex // taken at communicator creation and free only
	refs []int
}

// NewPool makes a pool of n VCIs (at least 1: the fallback).
func NewPool(n int) *Pool { return &Pool{refs: make([]int, max(n, 1))} }

// Len is the number of VCIs.
func (p *Pool) Len() int { return len(p.refs) }

// FreeMask is the bit set of VCIs no communicator uses (never the fallback), in
// 64-bit words.
func (p *Pool) FreeMask() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make([]uint64, Words(len(p.refs)))
	for i := 1; i < len(p.refs); i++ {
		if p.refs[i] == 0 {
			m[i/64] |= 1 << (i % 64)
		}
	}
	return m
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
}

// Users is the number of communicators on VCI v.
func (p *Pool) Users(v int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refs[v]
}
