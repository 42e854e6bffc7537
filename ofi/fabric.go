package ofi

import (
	"encoding/hex"
	"fmt"
	"sync"

	"mpix/transport"
	"mpix/transport/epshare"
)

// fabric opens libfabric endpoints for the registry, one per VCI by default;
// processes exchange their endpoint names through the process manager. Under
// MPIX_EP_SHARING (transport/epshare) the VCIs' endpoints share a domain, shared
// transmit contexts or one endpoint, as the category's libfabric plan says.
type fabric struct{}

func init() { transport.Register(fabric{}) }

func (fabric) Name() string { return "libfabric" }
func (fabric) Local() bool  { return false }

func nameKey(rank, vci int) string { return fmt.Sprintf("mpix-ofi-%d-%d", rank, vci) }

// job is what this process opened for the current MPI_Init: the plan, the shared
// domain and transmit contexts, and the endpoints by plan index.
type job struct {
	plan     *epshare.FabricPlan
	provider string
	dom      *Domain
	stx      []*STX
	scq      *SharedCQ
	eps      []*Endpoint
	mux      *muxShared
}

var current struct {
	sync.Mutex
	j *job
}

// plan decides the category for s (at VCI 0's Open).
func plan(s *transport.Setup) (*epshare.FabricPlan, epshare.FabricCaps, error) {
	asked := epshare.MPIEverywhere
	if s.EPSharing != "" {
		c, err := epshare.Parse(s.EPSharing)
		if err != nil {
			return nil, epshare.FabricCaps{}, err
		}
		asked = c
	}
	vcis := s.VCIs
	if vcis < 1 {
		vcis = 1
	}
	var caps epshare.FabricCaps
	if asked != epshare.MPIEverywhere && asked != epshare.MPIThreads {
		caps = Caps(s.Provider) // only the categories that share a domain ask
	}
	p, err := epshare.PlanFabric(asked, vcis, caps, s.EPSharedCQ)
	return p, caps, err
}

// Open opens VCI vci's endpoint (and what the category puts beside it) and publishes
// its name.
func (fabric) Open(s *transport.Setup, vci int) (transport.Endpoint, error) {
	current.Lock()
	defer current.Unlock()
	if vci == 0 {
		p, caps, err := plan(s)
		if err != nil {
			return nil, err
		}
		current.j = &job{plan: p, provider: caps.Provider, eps: make([]*Endpoint, p.Endpoints)}
	}
	j := current.j
	if j == nil || vci >= len(j.plan.EP) {
		return nil, fmt.Errorf("ofi: Open for VCI %d of a job planned for %d", vci, s.VCIs)
	}
	p := j.plan
	idx := p.EP[vci]
	if p.Used == epshare.MPIThreads && vci > 0 {
		return j.mux.view(vci), nil
	}
	e, err := j.open(s, idx)
	if err != nil {
		return nil, err
	}
	if p.Used == epshare.TwoXDynamic {
		// The odd endpoint: created, with its CQs and address vector, never driven.
		if e.spare, err = j.open(s, idx+1); err != nil {
			e.Close()
			return nil, err
		}
	}
	if err := s.Put(nameKey(s.Rank, vci), hex.EncodeToString(e.Name())); err != nil {
		e.Close()
		return nil, fmt.Errorf("PMI put: %w", err)
	}
	if p.Used == epshare.MPIThreads {
		j.mux = newMux(e, p.VCIs)
		if p.Multiplexed {
			return j.mux.view(0), nil
		}
	}
	return e, nil
}

// open opens the plan's endpoint idx: on its own domain (mpi_everywhere, mpi_threads)
// or the shared one, through its shared transmit context if it has one.
func (j *job) open(s *transport.Setup, idx int) (*Endpoint, error) {
	p := j.plan
	cfg := Config{Provider: s.Provider, Rank: s.Rank, Size: s.Size}
	if p.Domains == 1 && p.Used != epshare.MPIThreads {
		if j.dom == nil {
			d, err := SharedDomain(s.Provider)
			if err != nil {
				return nil, err
			}
			j.dom = d
		}
		cfg.Domain = j.dom
		if p.SharedCQ {
			if j.scq == nil {
				q, err := OpenSharedCQ(j.dom, p.Endpoints)
				if err != nil {
					return nil, err
				}
				j.scq = q
			}
			cfg.SharedCQ = j.scq
		}
		if x := p.STXOf[idx]; x >= 0 {
			for len(j.stx) <= x {
				t, err := OpenSTX(j.dom, s.Provider)
				if err != nil {
					return nil, err
				}
				j.stx = append(j.stx, t)
			}
			cfg.STX = j.stx[x]
		}
	}
	e, err := Open(cfg)
	if err != nil {
		if j.scq != nil && j.scq.Unused() {
			j.scq.Release() // no endpoint took them
			j.scq = nil
		}
		if j.dom != nil && j.dom.Unused() {
			j.dom.Release() // no endpoint took it
			j.dom = nil
		}
		return nil, err
	}
	j.eps[idx] = e
	if j.provider == "" {
		j.provider = e.Provider()
	}
	return e, nil
}

// Resources reports what the current job opened (transport.Accounter).
func (fabric) Resources() transport.Resources {
	current.Lock()
	defer current.Unlock()
	j := current.j
	if j == nil {
		return transport.Resources{Fabric: "libfabric"}
	}
	p := j.plan
	r := transport.Resources{
		Fabric: "libfabric (" + j.provider + ")", Asked: p.Asked.String(), Used: p.Used.String(), Fallback: p.Reason,
		VCIs: p.VCIs, Contexts: p.Domains, PDs: p.Domains, MRs: int(MemoryRegistrations()),
		QPs: p.Endpoints, CQs: p.CQs(), AVs: p.Endpoints, STXs: p.STXs, UARs: -1, UUARs: -1,
		ByVCI: append([]int(nil), p.EP...), Multiplex: p.Multiplexed, SharedCQ: p.SharedCQ,
		MemoryIs: "bytes of send, receive and inject buffers mpix allocated for its endpoints (the provider's own memory is not visible)",
	}
	used := map[int]bool{}
	for _, e := range p.EP {
		used[e] = true
	}
	r.QPsUsed = len(used)
	for _, e := range j.eps {
		if e != nil {
			r.Memory += e.BufferBytes()
		}
	}
	return r
}

// ConnectPeers reads every process's name for VCI vci and connects to them
// (transport.Connecter): every process opened libfabric, since whether one is needed
// depends only on the nodes, which all processes know.
func (e *Endpoint) ConnectPeers(s *transport.Setup, vci int) error {
	names := make([][]byte, s.Size)
	for r := range names {
		val, err := s.Get(r, nameKey(r, vci))
		if err != nil {
			return fmt.Errorf("rank %d published no libfabric address: %w", r, err)
		}
		if names[r], err = hex.DecodeString(val); err != nil {
			return fmt.Errorf("rank %d's libfabric address: %w", r, err)
		}
	}
	return e.Connect(names)
}

var _ transport.Connecter = (*Endpoint)(nil)
var _ transport.Accounter = fabric{}
