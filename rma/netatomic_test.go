package rma

import (
	"testing"

	"mpix/core"
	"mpix/transport"
)

// TestAgreeNetAtomics: the window takes the types every rank can, the order only if
// every rank's provider orders, and nothing when the ranks' windows run on different
// VCIs (their keys would belong to different endpoints).
func TestAgreeNetAtomics(t *testing.T) {
	bit := func(ts ...transport.AtomicType) int64 {
		b := int64(0)
		for _, x := range ts {
			b |= 1 << x
		}
		return b
	}
	i32, i64, f64 := transport.AtomicInt32, transport.AtomicInt64, transport.AtomicFloat64
	cases := []struct {
		name    string
		atomics []int64 // per rank
		vcis    []int64
		want    string
		ordered bool
	}{
		{"all agree, ordered", []int64{bit(i32, i64) | 1, bit(i32, i64) | 1}, []int64{0, 0}, "int32,int64", true},
		{"intersection", []int64{bit(i32, i64, f64), bit(i64, f64) | 1}, []int64{1, 1}, "int64,float64", false},
		{"one rank cannot", []int64{bit(i32), 0, bit(i32)}, []int64{0, 0, 0}, "none", false},
		{"only the order bit", []int64{1, 1}, []int64{0, 0}, "none", false},
		{"different VCIs", []int64{bit(i32), bit(i32)}, []int64{0, 1}, "none", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := len(c.atomics)
			w := &window{comm: &core.Comm{Size: n}}
			cards := make([]int64, n*cardLen)
			for r := 0; r < n; r++ {
				cards[r*cardLen+cardAtomics] = c.atomics[r]
				cards[r*cardLen+cardVCI] = c.vcis[r]
			}
			w.agreeNetAtomics(cards)
			if got := w.netAcc.String(); got != c.want || w.netAcc.ordered != c.ordered {
				t.Fatalf("netAcc = %s (ordered %v), want %s (ordered %v)", got, w.netAcc.ordered, c.want, c.ordered)
			}
		})
	}
}

// TestNetNeeds: integer types need every MPI op in both plain and fetching form plus
// compare-and-swap; floating-point types no logical or bitwise ops and no CAS.
func TestNetNeeds(t *testing.T) {
	count := func(ty transport.AtomicType) (plain, fetch, cas int) {
		for _, n := range netNeeds(ty) {
			switch n.f {
			case transport.AtomicWrite:
				plain++
			case transport.AtomicFetch:
				fetch++
			case transport.AtomicCompare:
				cas++
			}
		}
		return
	}
	for _, c := range []struct {
		ty                transport.AtomicType
		plain, fetch, cas int
	}{
		{transport.AtomicInt32, 11, 12, 1}, // 10 reductions + replace; + no_op when fetching
		{transport.AtomicUint64, 11, 12, 1},
		{transport.AtomicFloat64, 5, 6, 0}, // sum, prod, max, min, replace (+ no_op)
	} {
		p, f, cs := count(c.ty)
		if p != c.plain || f != c.fetch || cs != c.cas {
			t.Errorf("type %d: %d plain, %d fetching, %d compare; want %d, %d, %d", c.ty, p, f, cs, c.plain, c.fetch, c.cas)
		}
	}
}
