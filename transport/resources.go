package transport

// Resources is what a fabric created for this process's endpoints under the
// resource-sharing category in effect (MPIX_EP_SHARING), for MPI_T and the report of
// MPIX_EP_REPORT. Counts a fabric cannot see are -1.
type Resources struct {
	Fabric   string // the fabric and provider, "libfabric (tcp;ofi_rxm)"
	Asked    string // the category asked for
	Used     string // the category in effect
	Fallback string // why Used is not Asked; "" when it is
	VCIs     int

	Contexts  int // device contexts: libfabric fabric objects
	PDs       int // protection domains: libfabric domains
	MRs       int // memory registrations open now
	TDs       int // thread domains (verbs); libfabric has none
	QPs       int // queue pairs: libfabric endpoints
	QPsUsed   int // of them, the ones some VCI drives (2xdynamic leaves half idle)
	CQs       int // completion queues
	AVs       int // address vectors (libfabric)
	STXs      int // shared transmit contexts (libfabric)
	UARs      int // doorbell pages (mlx5), -1 where the provider does not expose them
	UUARs     int // their micro UARs, -1 likewise
	Memory    int64
	MemoryIs  string // what Memory counts
	ByVCI     []int  // the endpoint (QP) each VCI drives
	Multiplex bool   // VCIs share one endpoint
	SharedCQ  bool   // the endpoints share their CQs
}

// Accounter is a fabric that reports the resources it created (after Open was called
// for every VCI).
type Accounter interface {
	Resources() Resources
}
