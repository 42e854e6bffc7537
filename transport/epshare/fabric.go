package epshare

import "fmt"

// The same categories over libfabric (issue 27, Must 3). libfabric has no UAR pages or
// thread domains; what it has is the fabric and domain (the device context and its
// protection domain), endpoints (the QPs), completion queues, address vectors, and
// shared transmit contexts (fi_stx_context), which several endpoints post through, as
// QPs share a doorbell page. The mapping:
//
//	mpi_everywhere  a fabric and domain per VCI, each with one endpoint (mpix's default)
//	2xdynamic       one domain, two endpoints per VCI; VCI v drives endpoint 2v, 2v+1 idles
//	dynamic         one domain, an endpoint per VCI
//	shared_dynamic  one domain, an endpoint per VCI, two endpoints per shared transmit context
//	static          one domain, an endpoint per VCI, all on one shared transmit context
//	mpi_threads     one domain, one endpoint that every VCI sends and polls through
//
// Every endpoint has its own transmit and receive CQs and address vector, unless the
// CQs are shared: the paper treats CQ sharing as orthogonal to the categories (§VI:
// "the CQ can be shared in any manner"), and so does MPIX_EP_CQ_SHARING=shared, which has the
// endpoints of a shared domain (every category but mpi_everywhere) complete into one
// transmit and one receive CQ. A category the provider cannot give falls back to the
// nearest one it can, and the plan says which and why.

// FabricCaps is what the provider grants that the categories depend on.
type FabricCaps struct {
	Provider string
	// SharedTx: the domain offers shared transmit contexts (max_ep_stx_ctx > 0).
	SharedTx bool
	// ThreadSafe: the provider opens domains that endpoints driven from different
	// threads may share (FI_THREAD_SAFE).
	ThreadSafe bool
}

// FabricPlan is one category's libfabric objects for a number of VCIs.
type FabricPlan struct {
	Asked, Used Category
	Reason      string // why Used is not Asked; "" when it is
	VCIs        int
	Domains     int   // each in its own fabric object
	Endpoints   int   // each with a transmit and a receive CQ and an address vector
	STXs        int   // shared transmit contexts
	EP          []int // by VCI: the endpoint it drives
	DomainOf    []int // by endpoint
	STXOf       []int // by endpoint: its shared transmit context, -1: its own
	Multiplexed bool  // several VCIs drive one endpoint (the messages carry their VCI)
	SharedCQ    bool  // the endpoints share one transmit and one receive CQ
}

// CQs is the number of completion queues: a transmit and a receive one per endpoint,
// or the two they share.
func (p *FabricPlan) CQs() int {
	if p.SharedCQ {
		return 2
	}
	return 2 * p.Endpoints
}

// PlanFabric maps category asked onto a provider with caps, falling back where the
// provider refuses: shared_dynamic and static need shared transmit contexts and fall
// back to dynamic without them; the categories that share a domain between VCIs need a
// thread-safe domain and fall back to mpi_everywhere without one. mpi_threads needs
// neither: its VCIs take one lock around the one endpoint.
//
// sharedCQ asks for shared CQs; it applies where several endpoints share a domain.
func PlanFabric(asked Category, vcis int, caps FabricCaps, sharedCQ bool) (*FabricPlan, error) {
	if vcis < 1 {
		return nil, fmt.Errorf("epshare: %d VCIs", vcis)
	}
	if asked < MPIEverywhere || asked > MPIThreads {
		return nil, fmt.Errorf("epshare: unknown category %d", int(asked))
	}
	p := &FabricPlan{Asked: asked, Used: asked, VCIs: vcis}
	var why []string
	if (p.Used == SharedDynamic || p.Used == Static) && !caps.SharedTx {
		why = append(why, fmt.Sprintf("provider %s offers no shared transmit contexts (fi_stx_context)", caps.Provider))
		p.Used = Dynamic
	}
	if (p.Used == TwoXDynamic || p.Used == Dynamic || p.Used == SharedDynamic || p.Used == Static) && !caps.ThreadSafe {
		why = append(why, fmt.Sprintf("provider %s opens no thread-safe domain (FI_THREAD_SAFE) for VCIs to share", caps.Provider))
		p.Used = MPIEverywhere
	}
	if sharedCQ {
		switch {
		case p.Used == MPIEverywhere:
			why = append(why, "shared CQs not used: mpi_everywhere's endpoints are in different domains, which cannot share CQs")
		case p.Used == MPIThreads || p.Used != TwoXDynamic && vcis == 1:
			// one endpoint: its CQs are all there are
		default:
			p.SharedCQ = true
		}
	}
	for i, w := range why {
		if i > 0 {
			p.Reason += "; "
		}
		p.Reason += w
	}
	switch p.Used {
	case MPIEverywhere:
		p.Domains, p.Endpoints = vcis, vcis
	case TwoXDynamic:
		p.Domains, p.Endpoints = 1, 2*vcis
	case Dynamic, SharedDynamic, Static:
		p.Domains, p.Endpoints = 1, vcis
	case MPIThreads:
		p.Domains, p.Endpoints, p.Multiplexed = 1, 1, vcis > 1
	}
	p.EP = make([]int, vcis)
	for v := range p.EP {
		switch p.Used {
		case TwoXDynamic:
			p.EP[v] = 2 * v
		case MPIThreads:
			p.EP[v] = 0
		default:
			p.EP[v] = v
		}
	}
	p.DomainOf = make([]int, p.Endpoints)
	p.STXOf = make([]int, p.Endpoints)
	for e := range p.DomainOf {
		if p.Used == MPIEverywhere {
			p.DomainOf[e] = e
		}
		switch p.Used {
		case SharedDynamic:
			p.STXOf[e] = e / 2
		case Static:
			p.STXOf[e] = 0
		default:
			p.STXOf[e] = -1
		}
	}
	switch p.Used {
	case SharedDynamic:
		p.STXs = (p.Endpoints + 1) / 2
	case Static:
		p.STXs = 1
	}
	return p, nil
}
