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
