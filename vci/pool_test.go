package vci

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChooseAgreedVCI(t *testing.T) {
	tests := []struct {
		name string
		n    int
		used [][]int // per process, VCIs in use
		want int
	}{
		{"all free", 4, [][]int{{}, {}}, 1},
		{"first taken on one process", 4, [][]int{{1}, {}}, 2},
		{"different ones taken", 5, [][]int{{1, 3}, {2}}, 4},
		{"none free everywhere", 3, [][]int{{1}, {2}}, 0},
		{"only the fallback", 1, [][]int{{}, {}}, 0},
		{"beyond 64", 70, [][]int{seq(1, 66), seq(1, 60)}, 66},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agreed := make([]uint64, Words(tt.n))
			for i := range agreed {
				agreed[i] = ^uint64(0)
			}
			for _, used := range tt.used {
				p := NewPool(tt.n)
				for _, v := range used {
					p.Acquire(v)
				}
				for i, w := range p.FreeMask() {
					agreed[i] &= w
				}
			}
			if got := Choose(agreed); got != tt.want {
				t.Fatalf("Choose = %d, want %d", got, tt.want)
			}
		})
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestAcquireRelease(t *testing.T) {
	p := NewPool(3)
	p.Acquire(1)
	p.Acquire(1)
	p.Release(1)
	if diff := cmp.Diff([]uint64{0b100}, p.FreeMask()); diff != "" {
		t.Fatalf("mask (-want +got):\n%s", diff)
	}
	p.Release(1)
	p.Release(1) // extra releases are ignored
	if p.Users(1) != 0 || p.FreeMask()[0] != 0b110 {
		t.Fatalf("users %d mask %b", p.Users(1), p.FreeMask()[0])
	}
}

// A claim for a single-thread communicator fails while another creation that
// offered the VCI is in flight, or once someone uses it; an owned VCI is offered to
// nobody until its owner frees it.
func TestOfferSettleClaim(t *testing.T) {
	p := NewPool(4)
	a, _ := p.Offer(-1) // creation A (single-thread)
	b, _ := p.Offer(-1) // creation B, concurrent
	if p.Settle(a, -1, []int{1}) {
		t.Fatal("claimed VCI 1 while creation B had offered it")
	}
	p.Settle(b, -1, nil)
	c, _ := p.Offer(-1)
	if !p.Settle(c, -1, []int{1}) {
		t.Fatal("claim of a free VCI failed")
	}
	p.Acquire(1)
	if !p.Owned(1) {
		t.Fatal("VCI 1 not owned")
	}
	if diff := cmp.Diff([]uint64{0b1100}, p.FreeMask()); diff != "" {
		t.Fatalf("mask with VCI 1 owned (-want +got):\n%s", diff)
	}
	if _, usable := p.Offer(1); usable {
		t.Fatal("an explicit hint may not land on an owned VCI")
	}
	p.Release(1)
	if p.Owned(1) {
		t.Fatal("VCI 1 still owned after its owner was freed")
	}
	p.Acquire(2)
	d, _ := p.Offer(-1)
	if p.Settle(d, -1, []int{3, 2}) {
		t.Fatal("claimed VCI 2, which a communicator uses")
	}
	if p.Owned(3) {
		t.Fatal("a failed claim left VCI 3 owned")
	}
}

func TestLowest(t *testing.T) {
	mask := []uint64{0b10110, 1}
	if diff := cmp.Diff([]int{1, 2, 4, 64}, Lowest(mask, 10)); diff != "" {
		t.Fatal(diff)
	}
	if diff := cmp.Diff([]int{1, 2}, Lowest(mask, 2)); diff != "" {
		t.Fatal(diff)
	}
}
