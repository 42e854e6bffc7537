package core

import (
	"fmt"
	"io"
	"strings"

	"mpix/core/cvar"
	"mpix/core/pvar"
	"mpix/transport"
	"mpix/transport/epshare"
)

// The network resources of the category in effect (MPIX_EP_SHARING): what the fabrics
// that account for themselves (transport.Accounter: libfabric) created at MPI_Init, as
// MPI_T performance variables and, with MPIX_EP_REPORT=1, a page on stderr at
// MPI_Finalize.

// accounters are the opened fabrics that report their resources.
var accounters []transport.Accounter

// resources returns what each accounting fabric reports now.
func resources() []transport.Resources {
	out := make([]transport.Resources, 0, len(accounters))
	for _, a := range accounters {
		out = append(out, a.Resources())
	}
	return out
}

// sumOf sums one count over the fabrics (counts a fabric does not see, -1, add 0).
func sumOf(f func(r *transport.Resources) int64) func(dst []uint64) {
	return func(dst []uint64) {
		var n int64
		for _, r := range resources() {
			if v := f(&r); v > 0 {
				n += v
			}
		}
		dst[0] = uint64(n)
	}
}

func epVar(name, desc string, class pvar.Class, read func(dst []uint64)) {
	pvar.Register(pvar.Spec{Name: name, Desc: desc, Class: class, Verbosity: cvar.TunerBasic,
		Category: cvar.Transport, Continuous: true, Readonly: true, Read: read})
}

func init() {
	epVar("mpix_ep_category", "the resource-sharing category in effect for the network endpoints (MPIX_EP_SHARING, after any fallback): 0 mpi_everywhere, 1 2xdynamic, 2 dynamic, 3 shared_dynamic, 4 static, 5 mpi_threads", pvar.State,
		func(dst []uint64) {
			dst[0] = 0
			for _, r := range resources() {
				if c, err := epshare.Parse(r.Used); err == nil {
					dst[0] = uint64(c)
				}
			}
		})
	epVar("mpix_ep_contexts", "network device contexts the endpoints use (libfabric: fabric objects)", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.Contexts) }))
	epVar("mpix_ep_pds", "protection domains the endpoints use (libfabric: domains)", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.PDs) }))
	epVar("mpix_ep_mrs", "memory registrations open now (buffers, windows)", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.MRs) }))
	epVar("mpix_ep_tds", "thread domains (verbs; libfabric has none)", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.TDs) }))
	epVar("mpix_ep_qps", "queue pairs (libfabric: endpoints), idle ones included", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.QPs) }))
	epVar("mpix_ep_cqs", "completion queues", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.CQs) }))
	epVar("mpix_ep_stxs", "shared transmit contexts (libfabric fi_stx_context)", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.STXs) }))
	epVar("mpix_ep_uars", "UAR (doorbell) pages, where the provider exposes them (0 otherwise)", pvar.Level,
		sumOf(func(r *transport.Resources) int64 { return int64(r.UARs) }))
	epVar("mpix_ep_memory", "bytes of memory mpix allocated for its network endpoints (libfabric: their buffers)", pvar.Size,
		sumOf(func(r *transport.Resources) int64 { return r.Memory }))
}

// writeEPReport writes this process's page.
func writeEPReport(w io.Writer) {
	rank := 0
	if proc.pmi != nil {
		rank = proc.pmi.Rank()
	}
	var b strings.Builder
	p := func(format string, a ...any) {
		fmt.Fprintf(&b, "mpix ep report [rank %d] ", rank)
		fmt.Fprintf(&b, format, a...)
		b.WriteByte('\n')
	}
	rs := resources()
	if len(rs) == 0 {
		p("no network fabric was opened (every peer is reached through shared memory); MPIX_EP_SHARING=%s had nothing to share", Settings.EPSharing)
	}
	count := func(n int) string {
		if n < 0 {
			return "n/a"
		}
		return fmt.Sprint(n)
	}
	for _, r := range rs {
		p("fabric: %s, %d VCIs", r.Fabric, r.VCIs)
		p("category: asked %s, in effect %s", r.Asked, r.Used)
		if r.Fallback != "" {
			p("fallback: %s", r.Fallback)
		}
		p("contexts: %d", r.Contexts)
		p("protection domains: %d", r.PDs)
		p("memory registrations: %d", r.MRs)
		p("thread domains: %d", r.TDs)
		p("queue pairs (endpoints): %d, %d driven by a VCI", r.QPs, r.QPsUsed)
		p("completion queues: %d%s", r.CQs, map[bool]string{true: " (shared by all endpoints)"}[r.SharedCQ])
		p("address vectors: %d", r.AVs)
		p("shared transmit contexts: %d", r.STXs)
		p("UAR pages: %s, uUARs: %s", count(r.UARs), count(r.UUARs))
		p("memory: %d bytes (%s)", r.Memory, r.MemoryIs)
		vs := make([]string, len(r.ByVCI))
		for v, e := range r.ByVCI {
			vs[v] = fmt.Sprintf("%d->%d", v, e)
		}
		p("VCI -> endpoint: %s%s", strings.Join(vs, " "), map[bool]string{true: " (one endpoint, messages carry their VCI)"}[r.Multiplex])
		if c, err := epshare.Parse(r.Used); err == nil {
			// An RC QP per peer process and VCI's QP (a process of one talks to itself).
			peers := max(1, len(proc.peers)-1)
			m, err := epshare.New(c, r.VCIs, 0, epshare.MLX5())
			if err == nil && r.SharedCQ {
				m = m.WithSharedCQ()
			}
			if err == nil {
				m, err = m.ForPeers(peers, epshare.MLX5())
			}
			if err == nil {
				p("on an mlx5 device (ICPADS'18 model, RC QPs to %d peers): contexts %d, PDs %d, TDs %d, QPs %d, CQs %d, UAR pages %d, uUARs %d (%d used), memory %d bytes",
					peers, m.Contexts, m.PDs, m.TDs, m.NumQPs(), m.CQs, m.UARs(), m.UUARs(), m.UsedUUARs(), m.Memory())
			} else {
				p("on an mlx5 device: %v", err)
			}
		}
	}
	io.WriteString(w, b.String())
}
