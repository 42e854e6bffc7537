package core

import (
	"strings"
	"testing"

	"mpix/core/pvar"
	"mpix/transport"
)

type fakeAccounter transport.Resources

func (f fakeAccounter) Resources() transport.Resources { return transport.Resources(f) }

// The report's page and the MPI_T variables read what the fabrics report.
func TestEPReportAndPvars(t *testing.T) {
	saved := accounters
	defer func() { accounters = saved }()
	accounters = []transport.Accounter{fakeAccounter{Fabric: "libfabric (test)", Asked: "static", Used: "dynamic",
		Fallback: "no shared transmit contexts", VCIs: 4, Contexts: 1, PDs: 1, MRs: 2, QPs: 4, QPsUsed: 4, CQs: 8,
		AVs: 4, UARs: -1, UUARs: -1, Memory: 1234, MemoryIs: "buffers", ByVCI: []int{0, 1, 2, 3}}}
	var b strings.Builder
	writeEPReport(&b)
	out := b.String()
	for _, want := range []string{
		"] fabric: libfabric (test), 4 VCIs\n", "] category: asked static, in effect dynamic\n",
		"] fallback: no shared transmit contexts\n", "] contexts: 1\n", "] memory registrations: 2\n",
		"] queue pairs (endpoints): 4, 4 driven by a VCI\n", "] completion queues: 8\n",
		"] UAR pages: n/a, uUARs: n/a\n", "] memory: 1234 bytes (buffers)\n", "] VCI -> endpoint: 0->0 1->1 2->2 3->3\n",
		"] on an mlx5 device (ICPADS'18 model, RC QPs to 1 peers): contexts 1, PDs 1, TDs 4, QPs 4, CQs 4, UAR pages 12, uUARs 24 (4 used)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "mpix ep report [rank ") {
			t.Errorf("line without the prefix: %q", l)
		}
	}
	read := func(name string, class pvar.Class) uint64 {
		v, ok := pvar.Lookup(name, class)
		if !ok {
			t.Fatalf("no variable %s", name)
		}
		s := pvar.NewSession()
		defer s.Close()
		h, err := s.Alloc(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dst := make([]uint64, 1)
		if err := h.Read(s, dst); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return dst[0]
	}
	if c := read("mpix_ep_category", pvar.State); c != 2 {
		t.Errorf("mpix_ep_category %d, want 2 (dynamic)", c)
	}
	if q := read("mpix_ep_qps", pvar.Level); q != 4 {
		t.Errorf("mpix_ep_qps %d", q)
	}
	if u := read("mpix_ep_uars", pvar.Level); u != 0 {
		t.Errorf("mpix_ep_uars %d for a fabric that does not expose them", u)
	}
	if m := read("mpix_ep_memory", pvar.Size); m != 1234 {
		t.Errorf("mpix_ep_memory %d", m)
	}
}
