// Package epshare is the scalable-endpoints resource-sharing model (Zambre,
// Chandramowlishwaran, Balaji, ICPADS'18, §VI): six categories that map a process's
// VCIs (the paper's threads) onto device contexts, protection domains, thread domains,
// queue pairs, completion queues and the mlx5 doorbell pages behind them (UAR pages
// and their micro UARs), from one context per thread (MPI everywhere) to one queue
// pair for all (MPI+threads).
//
// Plan is pure arithmetic over the paper's description and the device's limits: how
// many of each resource a category creates, which VCI uses which, which UAR and uUAR
// each queue pair lands on under mlx5's assignment policy (Appendix B), and the memory
// of the whole (Table I). The verbs transport creates what a Plan says; the libfabric
// transport uses the libfabric form of the same categories (ofi.go in this package).
package epshare

import (
	"fmt"
	"strings"
)

// Category is one of the paper's six resource-sharing categories.
type Category int

const (
	// MPIEverywhere: a context per VCI, each with its own PD, QP and CQ (level 1:
	// maximally independent, at 8 UAR pages a context).
	MPIEverywhere Category = iota
	// TwoXDynamic: one context, twice as many thread-domain-assigned QPs as VCIs, each
	// TD on its own dynamically allocated UAR page; VCI v uses the even QP 2v only.
	TwoXDynamic
	// Dynamic: one context, a TD-assigned QP per VCI, each TD on its own UAR page.
	Dynamic
	// SharedDynamic: one context, a TD-assigned QP per VCI, two TDs per UAR page
	// (level 2: the even TD on its first uUAR, the odd one on its second).
	SharedDynamic
	// Static: one context, a QP per VCI and no TDs: the QPs share the context's
	// statically allocated uUARs (levels 2 and 3).
	Static
	// MPIThreads: one context, one QP and one CQ that every VCI shares (level 4).
	MPIThreads
)

// Categories lists them, most independent first.
var Categories = []Category{MPIEverywhere, TwoXDynamic, Dynamic, SharedDynamic, Static, MPIThreads}

var names = [...]string{"mpi_everywhere", "2xdynamic", "dynamic", "shared_dynamic", "static", "mpi_threads"}

// String is the category's name as MPIX_EP_SHARING spells it.
func (c Category) String() string {
	if c < 0 || int(c) >= len(names) {
		return fmt.Sprintf("category(%d)", int(c))
	}
	return names[c]
}

// Parse reads a category name (as MPIX_EP_SHARING spells it, case-insensitive; "-"
// and "_" alike, "mpi+threads" and "mpi_threads" alike).
func Parse(s string) (Category, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.NewReplacer("-", "_", "+", "_").Replace(k)
	for i, n := range names {
		if k == n {
			return Category(i), nil
		}
	}
	return 0, fmt.Errorf("unknown endpoint-sharing category %q (want one of %s)", s, strings.Join(names[:], ", "))
}

// Limits are what the device allows and how its driver lays out doorbells. MLX5 gives
// the ConnectX-4 values the paper uses.
type Limits struct {
	StaticUARs      int // UAR pages a context allocates when it is created (mlx5: 8)
	UUARsPerUAR     int // data-path micro UARs per UAR page (mlx5: 2)
	LowLatencyUUARs int // static uUARs given to one QP each, the last ones (mlx5: 4, uUAR 12-15)
	MaxDynamicUARs  int // UAR pages TDs may allocate per context (mlx5: 512)
	MaxUARs         int // UAR pages of the whole device (ConnectX-4: 8K); 0: no limit
	MaxQPs, MaxCQs  int // per device (ibv_query_device); 0: no limit
}

// MLX5 is the mlx5 driver's default layout on ConnectX-4 (§II-A, §III, Appendix B).
func MLX5() Limits {
	return Limits{StaticUARs: 8, UUARsPerUAR: 2, LowLatencyUUARs: 4, MaxDynamicUARs: 512, MaxUARs: 8192}
}

// Bytes of memory each resource takes (Table I, mlx5). TDs are not in the table; the
// UAR page a TD allocates is device memory mapped into the process, counted as UARs.
const (
	CtxBytes = 256 << 10
	PDBytes  = 144
	MRBytes  = 144
	QPBytes  = 80 << 10
	CQBytes  = 9 << 10
)

// Level is the paper's level of sharing between threads (Figure 4(b)).
type Level int

const (
	Independent Level = 1 // own UAR page
	SharedUAR   Level = 2 // own uUAR, on a UAR page shared with another
	SharedUUAR  Level = 3 // own QP, on a uUAR shared with another QP
	SharedQP    Level = 4 // the QP is shared
)

// QP is one queue pair of a plan.
type QP struct {
	Context int // index of its context
	TD      int // its thread domain, -1: none
	CQ      int // its completion queue
	UAR     int // the UAR page it rings, numbered per context: 0..StaticUARs-1 static, then dynamic ones
	UUAR    int // the uUAR it rings, numbered per context: UAR*UUARsPerUAR + slot
	VCI     int // the VCI that drives it, -1: none (2xDynamic's odd QPs)
}

// VCI is what one VCI uses.
type VCI struct {
	Context, PD, QP, CQ int
	TD                  int   // -1: none
	Level               Level // how independent its path to the NIC is
}

// Plan is one category's resources for a number of VCIs.
type Plan struct {
	Category    Category
	VCIs        int
	Contexts    int
	PDs         int
	MRs         int
	TDs         int // thread domains (each with its parent domain)
	CQs         int
	StaticUARs  int // UAR pages the contexts allocated at creation
	DynamicUARs int // UAR pages the TDs allocated
	UUARsPerUAR int
	QPs         []QP
	Use         []VCI // by VCI
}

// NumQPs is the number of queue pairs.
func (p *Plan) NumQPs() int { return len(p.QPs) }

// UARs is the number of UAR pages, static and dynamic.
func (p *Plan) UARs() int { return p.StaticUARs + p.DynamicUARs }

// UUARs is the number of data-path micro UARs those pages hold (the paper's measure of
// hardware resources, used or wasted).
func (p *Plan) UUARs() int { return p.UARs() * p.UUARsPerUAR }

// UsedUUARs is the number of distinct uUARs some VCI rings.
func (p *Plan) UsedUUARs() int {
	seen := map[[2]int]bool{}
	for _, u := range p.Use {
		q := p.QPs[u.QP]
		seen[[2]int{q.Context, q.UUAR}] = true
	}
	return len(seen)
}

// Memory is the plan's memory in bytes, by Table I's sizes.
func (p *Plan) Memory() int64 {
	return int64(p.Contexts)*CtxBytes + int64(p.PDs)*PDBytes + int64(p.MRs)*MRBytes +
		int64(len(p.QPs))*QPBytes + int64(p.CQs)*CQBytes
}

// New plans category c for vcis VCIs under limits lim, with mrsPerVCI memory regions
// registered per VCI (in its context's PD). Each QP has its own CQ (the paper's
// simplification, §VI), except MPIThreads' single QP and CQ.
func New(c Category, vcis, mrsPerVCI int, lim Limits) (*Plan, error) {
	if vcis < 1 {
		return nil, fmt.Errorf("epshare: %d VCIs", vcis)
	}
	if lim.UUARsPerUAR < 1 || lim.StaticUARs < 1 || lim.LowLatencyUUARs < 0 ||
		lim.LowLatencyUUARs >= lim.StaticUARs*lim.UUARsPerUAR {
		return nil, fmt.Errorf("epshare: invalid limits %+v", lim)
	}
	p := &Plan{Category: c, VCIs: vcis, UUARsPerUAR: lim.UUARsPerUAR, Use: make([]VCI, vcis)}
	// staticQPs counts the QPs assigned to static uUARs per context (Appendix B).
	staticQPs := map[int]int{}
	addStatic := func(ctx, vci int) int {
		k := staticQPs[ctx]
		staticQPs[ctx]++
		p.QPs = append(p.QPs, QP{Context: ctx, TD: -1, CQ: p.CQs, VCI: vci})
		p.CQs++
		q := &p.QPs[len(p.QPs)-1]
		q.UUAR = staticUUAR(k, lim)
		q.UAR = q.UUAR / lim.UUARsPerUAR
		return len(p.QPs) - 1
	}
	// addTD creates TD t (its index in the context) on a dynamic UAR page: its own page
	// (level 1), or two TDs per page (level 2).
	addTD := func(ctx, t, vci int, pairs bool) int {
		var uar, slot int
		if pairs {
			uar, slot = lim.StaticUARs+t/2, t%2
			if t%2 == 0 {
				p.DynamicUARs++
			}
		} else {
			uar, slot = lim.StaticUARs+t, 0
			p.DynamicUARs++
		}
		p.QPs = append(p.QPs, QP{Context: ctx, TD: p.TDs, CQ: p.CQs, UAR: uar, UUAR: uar*lim.UUARsPerUAR + slot, VCI: vci})
		p.TDs++
		p.CQs++
		return len(p.QPs) - 1
	}
	switch c {
	case MPIEverywhere:
		p.Contexts = vcis
		for v := 0; v < vcis; v++ {
			q := addStatic(v, v)
			p.Use[v] = VCI{Context: v, PD: v, QP: q, CQ: p.QPs[q].CQ, TD: -1, Level: Independent}
		}
	case TwoXDynamic:
		p.Contexts = 1
		for t := 0; t < 2*vcis; t++ {
			vci := -1
			if t%2 == 0 {
				vci = t / 2
			}
			q := addTD(0, t, vci, false)
			if vci >= 0 {
				p.Use[vci] = VCI{QP: q, CQ: p.QPs[q].CQ, TD: p.QPs[q].TD, Level: Independent}
			}
		}
	case Dynamic, SharedDynamic:
		p.Contexts = 1
		for v := 0; v < vcis; v++ {
			q := addTD(0, v, v, c == SharedDynamic)
			lvl := Independent
			if c == SharedDynamic && (v%2 == 1 || v+1 < vcis) {
				lvl = SharedUAR // the page holds this TD and its even/odd partner
			}
			p.Use[v] = VCI{QP: q, CQ: p.QPs[q].CQ, TD: p.QPs[q].TD, Level: lvl}
		}
	case Static:
		p.Contexts = 1
		for v := 0; v < vcis; v++ {
			q := addStatic(0, v)
			p.Use[v] = VCI{QP: q, CQ: p.QPs[q].CQ, TD: -1}
		}
		// Each QP's level follows from who else rings its uUAR and its page.
		for v := range p.Use {
			p.Use[v].Level = p.staticLevel(v)
		}
	case MPIThreads:
		p.Contexts = 1
		q := addStatic(0, 0)
		for v := 0; v < vcis; v++ {
			lvl := SharedQP
			if vcis == 1 {
				lvl = Independent
			}
			p.Use[v] = VCI{QP: q, CQ: p.QPs[q].CQ, TD: -1, Level: lvl}
		}
	default:
		return nil, fmt.Errorf("epshare: unknown category %d", int(c))
	}
	p.PDs = p.Contexts // a PD cannot span contexts; one per context suffices (§V-C)
	p.MRs = vcis * mrsPerVCI
	p.StaticUARs = p.Contexts * lim.StaticUARs
	if err := p.check(lim); err != nil {
		return nil, err
	}
	return p, nil
}

// staticUUAR is the static uUAR mlx5 gives the k-th QP (from 0) created without a TD
// in a context (Appendix B): the low-latency uUARs (the last LowLatencyUUARs) one QP
// each, then the medium-latency ones (1 .. the first low-latency one - 1) round robin;
// uUAR 0 (high latency) only when every other one is low latency.
func staticUUAR(k int, lim Limits) int {
	total := lim.StaticUARs * lim.UUARsPerUAR
	low := lim.LowLatencyUUARs
	if k < low {
		return total - low + k
	}
	medium := total - low - 1
	if medium == 0 {
		return 0
	}
	return 1 + (k-low)%medium
}

// staticLevel is the sharing level of VCI v's QP among the VCIs' QPs.
func (p *Plan) staticLevel(v int) Level {
	me := p.QPs[p.Use[v].QP]
	lvl := Independent
	for w, u := range p.Use {
		if w == v {
			continue
		}
		o := p.QPs[u.QP]
		if o.Context != me.Context {
			continue
		}
		switch {
		case u.QP == p.Use[v].QP:
			return SharedQP
		case o.UUAR == me.UUAR:
			lvl = SharedUUAR
		case o.UAR == me.UAR && lvl < SharedUAR:
			lvl = SharedUAR
		}
	}
	return lvl
}

func (p *Plan) check(lim Limits) error {
	perCtx := p.DynamicUARs // dynamic UARs all sit in context 0 when there are any
	if perCtx > lim.MaxDynamicUARs && lim.MaxDynamicUARs > 0 {
		return fmt.Errorf("epshare: %s with %d VCIs needs %d dynamically allocated UAR pages in one context; the device allows %d",
			p.Category, p.VCIs, perCtx, lim.MaxDynamicUARs)
	}
	if lim.MaxUARs > 0 && p.UARs() > lim.MaxUARs {
		return fmt.Errorf("epshare: %s with %d VCIs needs %d UAR pages; the device has %d", p.Category, p.VCIs, p.UARs(), lim.MaxUARs)
	}
	if lim.MaxQPs > 0 && len(p.QPs) > lim.MaxQPs {
		return fmt.Errorf("epshare: %s with %d VCIs needs %d QPs; the device allows %d", p.Category, p.VCIs, len(p.QPs), lim.MaxQPs)
	}
	if lim.MaxCQs > 0 && p.CQs > lim.MaxCQs {
		return fmt.Errorf("epshare: %s with %d VCIs needs %d CQs; the device allows %d", p.Category, p.VCIs, p.CQs, lim.MaxCQs)
	}
	return nil
}

// ForPeers is the plan for reliable connections to peers processes: an RC QP connects
// two QPs, so each of the plan's QPs becomes one per peer, in the same context and
// thread domain and on the same CQ (the paper's stencil, §VII: a thread's two QPs, one
// per neighbour, share its CQ). QPs of a TD ring the TD's uUAR; QPs without one take
// static uUARs in order (Appendix B). QPs[i*peers+k] is QP i's connection to the k-th
// peer; Use names the one to the first peer.
func (p *Plan) ForPeers(peers int, lim Limits) (*Plan, error) {
	if peers < 1 {
		return nil, fmt.Errorf("epshare: %d peers", peers)
	}
	q := *p
	q.QPs = make([]QP, 0, len(p.QPs)*peers)
	staticQPs := map[int]int{}
	for _, o := range p.QPs {
		for k := 0; k < peers; k++ {
			n := o
			if o.TD < 0 {
				n.UUAR = staticUUAR(staticQPs[o.Context], lim)
				n.UAR = n.UUAR / lim.UUARsPerUAR
				staticQPs[o.Context]++
			}
			q.QPs = append(q.QPs, n)
		}
	}
	q.Use = make([]VCI, len(p.Use))
	for v, u := range p.Use {
		u.QP *= peers
		q.Use[v] = u
	}
	if p.Category == Static {
		for v := range q.Use {
			q.Use[v].Level = q.staticLevel(v)
		}
	}
	if err := q.check(lim); err != nil {
		return nil, err
	}
	return &q, nil
}

// WithSharedCQ is the plan with one CQ per context that all its QPs complete into
// (the paper's orthogonal CQ sharing, §V-E and §VI; MPIX_EP_CQ_SHARING=shared): CQ c is
// context c's.
func (p *Plan) WithSharedCQ() *Plan {
	q := *p
	q.QPs = append([]QP(nil), p.QPs...)
	for i := range q.QPs {
		q.QPs[i].CQ = q.QPs[i].Context
	}
	q.Use = append([]VCI(nil), p.Use...)
	for v := range q.Use {
		q.Use[v].CQ = q.QPs[q.Use[v].QP].Context
	}
	q.CQs = q.Contexts
	return &q
}
