package epshare

import (
	"strings"
	"testing"
)

// Each category's libfabric objects for 4 VCIs on a provider that grants everything.
func TestPlanFabricFull(t *testing.T) {
	caps := FabricCaps{Provider: "full", SharedTx: true, ThreadSafe: true}
	cases := []struct {
		c                  Category
		domains, eps, stxs int
		ep                 []int
		stxOf              []int
		mux                bool
	}{
		{MPIEverywhere, 4, 4, 0, []int{0, 1, 2, 3}, []int{-1, -1, -1, -1}, false},
		{TwoXDynamic, 1, 8, 0, []int{0, 2, 4, 6}, []int{-1, -1, -1, -1, -1, -1, -1, -1}, false},
		{Dynamic, 1, 4, 0, []int{0, 1, 2, 3}, []int{-1, -1, -1, -1}, false},
		{SharedDynamic, 1, 4, 2, []int{0, 1, 2, 3}, []int{0, 0, 1, 1}, false},
		{Static, 1, 4, 1, []int{0, 1, 2, 3}, []int{0, 0, 0, 0}, false},
		{MPIThreads, 1, 1, 0, []int{0, 0, 0, 0}, []int{-1}, true},
	}
	for _, tc := range cases {
		p, err := PlanFabric(tc.c, 4, caps, false)
		if err != nil {
			t.Fatal(err)
		}
		if p.Used != tc.c || p.Reason != "" {
			t.Errorf("%s: used %s (%s)", tc.c, p.Used, p.Reason)
		}
		if p.Domains != tc.domains || p.Endpoints != tc.eps || p.STXs != tc.stxs || p.CQs() != 2*tc.eps || p.Multiplexed != tc.mux {
			t.Errorf("%s: %d domains %d endpoints %d STXs mux %v", tc.c, p.Domains, p.Endpoints, p.STXs, p.Multiplexed)
		}
		for v := range tc.ep {
			if p.EP[v] != tc.ep[v] {
				t.Errorf("%s: VCI %d on endpoint %d, want %d", tc.c, v, p.EP[v], tc.ep[v])
			}
		}
		for e := range tc.stxOf {
			if p.STXOf[e] != tc.stxOf[e] {
				t.Errorf("%s: endpoint %d on STX %d, want %d", tc.c, e, p.STXOf[e], tc.stxOf[e])
			}
		}
	}
}

// tcp;ofi_rxm has no shared transmit contexts: shared_dynamic and static fall back
// to dynamic and say why; without a thread-safe domain every category that shares a
// domain falls back to mpi_everywhere. mpi_threads needs neither.
func TestPlanFabricFallback(t *testing.T) {
	tcp := FabricCaps{Provider: "tcp;ofi_rxm", ThreadSafe: true}
	for _, c := range []Category{SharedDynamic, Static} {
		p, _ := PlanFabric(c, 3, tcp, false)
		if p.Used != Dynamic || !strings.Contains(p.Reason, "fi_stx_context") || p.STXs != 0 {
			t.Errorf("%s on tcp: used %s, reason %q, %d STXs", c, p.Used, p.Reason, p.STXs)
		}
	}
	p, _ := PlanFabric(TwoXDynamic, 3, tcp, false)
	if p.Used != TwoXDynamic || p.Endpoints != 6 {
		t.Errorf("2xdynamic on tcp: %s with %d endpoints", p.Used, p.Endpoints)
	}
	none := FabricCaps{Provider: "old"}
	for _, c := range []Category{TwoXDynamic, Dynamic, SharedDynamic, Static} {
		p, _ := PlanFabric(c, 2, none, false)
		if p.Used != MPIEverywhere || !strings.Contains(p.Reason, "FI_THREAD_SAFE") || p.Domains != 2 {
			t.Errorf("%s without thread safety: used %s, reason %q", c, p.Used, p.Reason)
		}
	}
	if p, _ := PlanFabric(MPIThreads, 2, none, false); p.Used != MPIThreads || p.Reason != "" {
		t.Errorf("mpi_threads without thread safety: %s (%s)", p.Used, p.Reason)
	}
	if p, _ := PlanFabric(MPIThreads, 1, tcp, false); p.Multiplexed {
		t.Error("one VCI is multiplexed")
	}
	if _, err := PlanFabric(Dynamic, 0, tcp, false); err == nil {
		t.Error("0 VCIs accepted")
	}
}

// Shared CQs (MPIX_EP_CQ_SHARING=shared) apply to the categories whose endpoints share a
// domain: two CQs in all; mpi_everywhere says why it cannot.
func TestPlanFabricSharedCQ(t *testing.T) {
	caps := FabricCaps{Provider: "tcp;ofi_rxm", ThreadSafe: true}
	for _, c := range []Category{TwoXDynamic, Dynamic, SharedDynamic, Static} {
		p, _ := PlanFabric(c, 3, caps, true)
		if !p.SharedCQ || p.CQs() != 2 {
			t.Errorf("%s: shared %v, %d CQs", c, p.SharedCQ, p.CQs())
		}
	}
	p, _ := PlanFabric(MPIEverywhere, 3, caps, true)
	if p.SharedCQ || p.CQs() != 6 || !strings.Contains(p.Reason, "different domains") {
		t.Errorf("mpi_everywhere: shared %v, %d CQs, reason %q", p.SharedCQ, p.CQs(), p.Reason)
	}
	p, _ = PlanFabric(MPIThreads, 3, caps, true)
	if p.SharedCQ || p.CQs() != 2 || p.Reason != "" {
		t.Errorf("mpi_threads: shared %v, %d CQs, reason %q", p.SharedCQ, p.CQs(), p.Reason)
	}
	p, _ = PlanFabric(Dynamic, 3, FabricCaps{Provider: "old"}, true)
	if p.SharedCQ || p.Used != MPIEverywhere {
		t.Errorf("without a thread-safe domain: %s, shared %v", p.Used, p.SharedCQ)
	}
}
