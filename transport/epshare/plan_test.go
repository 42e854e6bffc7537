package epshare

import (
	"math"
	"testing"
)

// The paper's 16-thread numbers (§VI, §VII, Figures 12 and 14): contexts, QPs, CQs,
// TDs, UAR pages and uUARs per category, and the share of MPI everywhere's uUARs
// ("hardware resources") each uses: 2xDynamic 31.25%, Dynamic 18.75%, Shared Dynamic
// 12.5%, Static and MPI+threads 6.25%.
func TestPaperTable16(t *testing.T) {
	cases := []struct {
		c                  Category
		ctx, qps, cqs, tds int
		uars, uuars        int
		sharePct           float64
	}{
		{MPIEverywhere, 16, 16, 16, 0, 128, 256, 100},
		{TwoXDynamic, 1, 32, 32, 32, 40, 80, 31.25},
		{Dynamic, 1, 16, 16, 16, 24, 48, 18.75},
		{SharedDynamic, 1, 16, 16, 16, 16, 32, 12.5},
		{Static, 1, 16, 16, 0, 8, 16, 6.25},
		{MPIThreads, 1, 1, 1, 0, 8, 16, 6.25},
	}
	for _, tc := range cases {
		p, err := New(tc.c, 16, 0, MLX5())
		if err != nil {
			t.Fatalf("%s: %v", tc.c, err)
		}
		if p.Contexts != tc.ctx || p.PDs != tc.ctx || p.NumQPs() != tc.qps || p.CQs != tc.cqs || p.TDs != tc.tds {
			t.Errorf("%s: contexts %d PDs %d QPs %d CQs %d TDs %d, want %d/%d/%d/%d/%d", tc.c,
				p.Contexts, p.PDs, p.NumQPs(), p.CQs, p.TDs, tc.ctx, tc.ctx, tc.qps, tc.cqs, tc.tds)
		}
		if p.UARs() != tc.uars || p.UUARs() != tc.uuars {
			t.Errorf("%s: %d UARs %d uUARs, want %d and %d", tc.c, p.UARs(), p.UUARs(), tc.uars, tc.uuars)
		}
		if got := 100 * float64(p.UUARs()) / 256; got != tc.sharePct {
			t.Errorf("%s: %.2f%% of MPI everywhere's uUARs, want %.2f%%", tc.c, got, tc.sharePct)
		}
	}
}

// 2xDynamic: VCI v drives the even QP 2v; every odd QP exists (with its TD, UAR page
// and CQ) but no VCI uses it; each used QP rings the first uUAR of its own page.
func TestTwoXDynamicEvenOdd(t *testing.T) {
	p, err := New(TwoXDynamic, 16, 0, MLX5())
	if err != nil {
		t.Fatal(err)
	}
	pages := map[int]bool{}
	for v, u := range p.Use {
		if u.QP != 2*v {
			t.Errorf("VCI %d uses QP %d, want %d", v, u.QP, 2*v)
		}
		q := p.QPs[u.QP]
		if q.VCI != v || q.TD != 2*v || q.UUAR != q.UAR*2 || u.Level != Independent {
			t.Errorf("VCI %d's QP %+v level %d", v, q, u.Level)
		}
		if pages[q.UAR] {
			t.Errorf("VCI %d shares UAR page %d", v, q.UAR)
		}
		pages[q.UAR] = true
	}
	for i, q := range p.QPs {
		if i%2 == 1 && q.VCI != -1 {
			t.Errorf("odd QP %d is used by VCI %d", i, q.VCI)
		}
	}
	if p.UsedUUARs() != 16 {
		t.Errorf("%d uUARs used, want 16", p.UsedUUARs())
	}
}

// Shared Dynamic: the even TD takes the first uUAR of a new page, the odd one the
// second uUAR of the same page (§VI, Appendix B).
func TestSharedDynamicPairs(t *testing.T) {
	p, err := New(SharedDynamic, 5, 0, MLX5())
	if err != nil {
		t.Fatal(err)
	}
	for v, u := range p.Use {
		q := p.QPs[u.QP]
		if q.UAR != 8+v/2 || q.UUAR != q.UAR*2+v%2 {
			t.Errorf("VCI %d: UAR %d uUAR %d, want %d and %d", v, q.UAR, q.UUAR, 8+v/2, (8+v/2)*2+v%2)
		}
		want := SharedUAR
		if v == 4 {
			want = Independent // the fifth TD's page has no partner
		}
		if u.Level != want {
			t.Errorf("VCI %d level %d, want %d", v, u.Level, want)
		}
	}
	if p.DynamicUARs != 3 {
		t.Errorf("%d dynamic UARs, want 3", p.DynamicUARs)
	}
}

// Static with 16 QPs under mlx5's policy (Appendix B, §VI): the first four QPs take
// the low-latency uUARs 12-15, the next eleven the medium-latency uUARs 1-11, and the
// 16th wraps onto uUAR 1, the 5th QP's (level 3); the others share only a UAR page.
func TestStaticUUARPolicy(t *testing.T) {
	p, err := New(Static, 16, 0, MLX5())
	if err != nil {
		t.Fatal(err)
	}
	want := []int{12, 13, 14, 15, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1}
	for v, u := range p.Use {
		q := p.QPs[u.QP]
		if q.UUAR != want[v] || q.UAR != want[v]/2 {
			t.Errorf("QP %d on uUAR %d (UAR %d), want uUAR %d", v+1, q.UUAR, q.UAR, want[v])
		}
		lvl := SharedUAR
		if v == 4 || v == 15 {
			lvl = SharedUUAR
		}
		if u.Level != lvl {
			t.Errorf("QP %d level %d, want %d", v+1, u.Level, lvl)
		}
	}
	if p.UsedUUARs() != 15 {
		t.Errorf("%d uUARs used, want 15", p.UsedUUARs())
	}
	// With only the low-latency uUARs in use, every QP is alone on its uUAR; 12 and 13
	// share page 6, 14 and 15 page 7.
	p4, _ := New(Static, 4, 0, MLX5())
	for v, u := range p4.Use {
		if u.Level != SharedUAR {
			t.Errorf("4 QPs: QP %d level %d, want %d", v+1, u.Level, SharedUAR)
		}
	}
}

// MPI everywhere: each VCI's QP is the first of its own context, on a low-latency
// uUAR; MPI+threads: every VCI on QP 0.
func TestEverywhereAndThreads(t *testing.T) {
	p, _ := New(MPIEverywhere, 4, 1, MLX5())
	for v, u := range p.Use {
		q := p.QPs[u.QP]
		if u.Context != v || u.PD != v || q.Context != v || q.UUAR != 12 || u.Level != Independent {
			t.Errorf("VCI %d: %+v on %+v", v, u, q)
		}
	}
	if p.MRs != 4 {
		t.Errorf("%d MRs, want 4", p.MRs)
	}
	m, _ := New(MPIThreads, 4, 1, MLX5())
	for v, u := range m.Use {
		if u.QP != 0 || u.CQ != 0 || u.Level != SharedQP {
			t.Errorf("VCI %d: %+v", v, u)
		}
	}
}

// Memory (Table I): one endpoint is 345K (256K context + 80K QP + 9K CQ, plus 144
// bytes of PD); MPI everywhere with 16 threads 5.39 MB (§VII); a QP and a CQ 89 KB, 16
// of them 1.39 MB (§IV). 2xDynamic counts all 32 QPs and CQs it creates: 3.03 MB. The
// paper quotes 1.64 MB for it (§VII), which is one context and 16 QP+CQ pairs, the
// used half only, although it says in the same paragraph that 2xDynamic has twice MPI
// everywhere's QPs and CQs; we count what is created.
func TestMemory(t *testing.T) {
	mb := func(c Category, n int) float64 {
		p, err := New(c, n, 0, MLX5())
		if err != nil {
			t.Fatal(err)
		}
		return float64(p.Memory()) / (1 << 20)
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 0.005 {
			t.Errorf("%s: %.3f MB, want %.2f MB", what, got, want)
		}
	}
	near("MPI everywhere, 16", mb(MPIEverywhere, 16), 5.39)
	near("MPI+threads, 16", mb(MPIThreads, 16), 345.0/1024)
	near("2xDynamic, 16", mb(TwoXDynamic, 16), (256+32*89)/1024.0)
	near("16 QP+CQ pairs", float64(16*(QPBytes+CQBytes))/(1<<20), 1.39)
	if mb(Dynamic, 16) != mb(SharedDynamic, 16) || mb(Dynamic, 16) != mb(Static, 16) {
		t.Error("Dynamic, Shared Dynamic and Static should use the same memory (§VII)")
	}
}

// The device's limits bound the plans: mlx5 allows 512 dynamic UAR pages per
// context (Appendix B) and ConnectX-4 has 8K pages.
func TestLimits(t *testing.T) {
	if _, err := New(TwoXDynamic, 256, 0, MLX5()); err != nil {
		t.Errorf("2xDynamic, 256 VCIs: %v", err)
	}
	if _, err := New(TwoXDynamic, 257, 0, MLX5()); err == nil {
		t.Error("2xDynamic, 257 VCIs: no error for 514 dynamic UARs")
	}
	if _, err := New(MPIEverywhere, 1025, 0, MLX5()); err == nil {
		t.Error("MPI everywhere, 1025 VCIs: no error for 8200 UAR pages")
	}
	lim := MLX5()
	lim.MaxQPs = 8
	if _, err := New(Dynamic, 9, 0, lim); err == nil {
		t.Error("9 QPs allowed on a device of 8")
	}
	if _, err := New(Dynamic, 0, 0, MLX5()); err == nil {
		t.Error("0 VCIs accepted")
	}
}

func TestParse(t *testing.T) {
	for _, c := range Categories {
		got, err := Parse(c.String())
		if err != nil || got != c {
			t.Errorf("Parse(%q) = %v, %v", c.String(), got, err)
		}
	}
	if c, err := Parse("MPI+Threads"); err != nil || c != MPIThreads {
		t.Errorf("Parse(MPI+Threads) = %v, %v", c, err)
	}
	if _, err := Parse("everything"); err == nil {
		t.Error("Parse(everything) accepted")
	}
}

// Connections to several peers (§VII's stencil: a QP per neighbour, both on the
// thread's CQ): QPs multiply, CQs, TDs, UAR pages and contexts do not; the QPs of a TD
// ring its uUAR.
func TestForPeers(t *testing.T) {
	cases := []struct {
		c        Category
		qps, cqs int
	}{
		{MPIEverywhere, 32, 16}, {TwoXDynamic, 64, 32}, {Dynamic, 32, 16},
		{SharedDynamic, 32, 16}, {Static, 32, 16}, {MPIThreads, 2, 1},
	}
	for _, tc := range cases {
		one, _ := New(tc.c, 16, 0, MLX5())
		p, err := one.ForPeers(2, MLX5())
		if err != nil {
			t.Fatalf("%s: %v", tc.c, err)
		}
		if p.NumQPs() != tc.qps || p.CQs != tc.cqs || p.UARs() != one.UARs() || p.Contexts != one.Contexts || p.TDs != one.TDs {
			t.Errorf("%s: %d QPs %d CQs %d UARs, want %d, %d, %d", tc.c, p.NumQPs(), p.CQs, p.UARs(), tc.qps, tc.cqs, one.UARs())
		}
		for i, q := range p.QPs {
			o := one.QPs[i/2]
			if q.CQ != o.CQ || q.TD != o.TD || q.Context != o.Context || q.VCI != o.VCI {
				t.Errorf("%s: QP %d %+v from %+v", tc.c, i, q, o)
			}
			if o.TD >= 0 && q.UUAR != o.UUAR {
				t.Errorf("%s: QP %d of TD %d on uUAR %d, the TD's is %d", tc.c, i, q.TD, q.UUAR, o.UUAR)
			}
		}
		for v, u := range p.Use {
			if u.QP != 2*one.Use[v].QP {
				t.Errorf("%s: VCI %d uses QP %d", tc.c, v, u.QP)
			}
		}
	}
	// Static with 2 QPs per thread on 4 threads: 8 QPs on the 16 static uUARs, the
	// fifth (thread 2's first) on the first medium-latency one.
	one, _ := New(Static, 4, 0, MLX5())
	p, _ := one.ForPeers(2, MLX5())
	if p.QPs[4].UUAR != 1 || p.QPs[3].UUAR != 15 {
		t.Errorf("static, 8 QPs: uUARs %d and %d", p.QPs[3].UUAR, p.QPs[4].UUAR)
	}
	lim := MLX5()
	lim.MaxQPs = 40
	if _, err := one.ForPeers(11, lim); err == nil {
		t.Error("44 QPs allowed on a device of 40")
	}
}

// CQ sharing: one CQ per context, and 9K less memory for each CQ saved (Table I).
func TestWithSharedCQ(t *testing.T) {
	for _, c := range Categories {
		p, _ := New(c, 16, 0, MLX5())
		s := p.WithSharedCQ()
		if s.CQs != p.Contexts || s.NumQPs() != p.NumQPs() || s.UARs() != p.UARs() {
			t.Errorf("%s: %d CQs, %d QPs", c, s.CQs, s.NumQPs())
		}
		if p.Memory()-s.Memory() != int64(p.CQs-s.CQs)*CQBytes {
			t.Errorf("%s: memory %d -> %d", c, p.Memory(), s.Memory())
		}
		for v, u := range s.Use {
			if u.CQ != s.QPs[u.QP].Context || p.Use[v].CQ != p.QPs[p.Use[v].QP].CQ {
				t.Errorf("%s: VCI %d on CQ %d", c, v, u.CQ)
			}
		}
	}
}
