package cvar

// The category tree. Every knob sits in one category under Root.
var (
	Root      = NewCategory("mpix", "every MPI_T variable of mpix", nil)
	Transport = NewCategory("mpix_transport", "how processes reach each other: shared memory and libfabric", Root)
	Progress  = NewCategory("mpix_progress", "how threads that wait for communication poll for progress", Root)
	VCI       = NewCategory("mpix_vci", "virtual communication interfaces", Root)
)

// The knobs: every MPIX_* environment variable the library reads. README.md's table of
// environment variables lists each of them (readme_test.go checks it). Those read by
// MPI_Init are BeforeInit: MPI_T can set them until MPI_Init, not after.
var (
	SHM = NewBool(Spec{
		Name:       "MPIX_SHM",
		Desc:       "use shared memory between the processes of a node (0: everything goes through libfabric)",
		Default:    "1",
		Verbosity:  TunerBasic,
		Scope:      ScopeAllEq, // a pair of processes must agree on the transport between them
		Category:   Transport,
		Mutability: BeforeInit,
	})
	OFIProvider = NewString(Spec{
		Name:       "MPIX_OFI_PROVIDER",
		Desc:       "libfabric provider, such as tcp;ofi_rxm or verbs;ofi_rxm (empty: the best available)",
		Default:    "",
		Verbosity:  TunerBasic,
		Scope:      ScopeAllEq, // endpoints of different providers cannot talk
		Category:   Transport,
		Mutability: BeforeInit,
	})
	NetMod = NewString(Spec{
		Name:       "MPIX_NETMOD",
		Desc:       "the transport between nodes: libfabric (the default) or verbs (libibverbs directly; it needs an RDMA device, and its data path is not built yet: MPI_Init says so)",
		Default:    "libfabric",
		Verbosity:  TunerBasic,
		Scope:      ScopeAllEq, // the two ends of a connection speak one transport
		Category:   Transport,
		Mutability: BeforeInit,
	})
	EPSharing = NewString(Spec{
		Name:       "MPIX_EP_SHARING",
		Desc:       "how the VCIs share network resources, the categories of the scalable-endpoints paper: mpi_everywhere (a libfabric fabric and domain per VCI, the default), 2xdynamic (one domain, two endpoints per VCI, the even one used), dynamic (one domain, an endpoint per VCI), shared_dynamic (as dynamic, two endpoints per shared transmit context), static (as dynamic, one shared transmit context for all), mpi_threads (one endpoint for all VCIs); a category the provider cannot give falls back to the nearest one it can, which MPIX_EP_REPORT and MPI_T's mpix_ep_category report",
		Default:    "mpi_everywhere",
		Verbosity:  TunerBasic,
		Scope:      ScopeAllEq, // mpi_threads frames its messages with the VCI
		Category:   Transport,
		Mutability: BeforeInit,
	})
	EPCQSharing = NewString(Spec{
		Name:       "MPIX_EP_CQ_SHARING",
		Desc:       "completion-queue sharing, orthogonal to MPIX_EP_SHARING (the process-wide form of the mpix_ep_cq_sharing info key): dedicated (a transmit and a receive CQ per libfabric endpoint) or shared (the endpoints of a shared domain, in every category but mpi_everywhere, complete into one pair: whoever polls reads them under a lock and files each completion with its endpoint)",
		Default:    "dedicated",
		Verbosity:  TunerBasic,
		Scope:      ScopeLocal,
		Category:   Transport,
		Mutability: BeforeInit,
	})
	EPReport = NewBool(Spec{
		Name:       "MPIX_EP_REPORT",
		Desc:       "print, at MPI_Finalize, one page per process to stderr on the network resources its endpoints use: the sharing category asked for and in effect, contexts, domains, memory registrations, thread domains, endpoints (QPs), completion queues, shared transmit contexts and memory, and what the category costs on an mlx5 device",
		Default:    "0",
		Verbosity:  TunerBasic,
		Scope:      ScopeLocal,
		Category:   Transport,
		Mutability: BeforeInit,
	})
	PMI = NewString(Spec{
		Name:       "MPIX_PMI",
		Desc:       "protocol to the launcher: 1 (PMI-1), 2 (PMI-2), x (PMIx, through libpmix.so.2) or auto, which picks PMIx where PMIX_NAMESPACE and PMIX_RANK are set, PMI-2 where PMI_FD and PMI_JOBID are (srun --mpi=pmi2), PMI-1 otherwise",
		Default:    "auto",
		Verbosity:  TunerBasic,
		Scope:      ScopeAllEq, // the launcher serves one protocol to the whole job
		Category:   Transport,
		Mutability: BeforeInit,
	})
	FastPath = NewBool(Spec{
		Name:       "MPIX_FASTPATH",
		Desc:       "run MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv and the waits on them for small contiguous messages within a node in C, without entering the Go engine (0: always take the engine's path)",
		Default:    "1",
		Verbosity:  TunerDetail,
		Scope:      ScopeLocal, // a C sender and a Go receiver (or the reverse) interoperate
		Category:   Progress,
		Mutability: BeforeInit,
	})
	AsyncProgress = NewBool(Spec{
		Name:       "MPIX_ASYNC_PROGRESS",
		Desc:       "run a progress thread in each process, so that one-sided operations that reach a process through its engine (other nodes, or everything under MPIX_SHM=0) progress while it computes outside MPI; it costs a core's share and turns off the single-thread VCI shortcut (0: progress only inside MPI calls)",
		Default:    "0",
		Verbosity:  TunerBasic,
		Scope:      ScopeLocal,
		Category:   Progress,
		Mutability: BeforeInit,
	})
	NetAtomics = NewInt(Spec{
		Name:       "MPIX_RMA_NET_ATOMICS",
		Desc:       "accumulates on windows whose processes reach each other through libfabric use the provider's atomics (fi_atomic) for the element types it does with every operation, all of a window's accumulates of such a type then going that way, node peers' and the process's own too: -1 where the provider does them natively (not the software emulation of ofi_rxm or tcp), 1 wherever the provider offers them (for tests), 0 never (the target's engine applies them)",
		Default:    "-1",
		Verbosity:  TunerDetail,
		Scope:      ScopeLocal, // a window uses them only where every process agrees
		Category:   Transport,
		Mutability: BeforeInit,
		Min:        -1,
		Max:        1,
	})
	ThreadcommSeats = NewInt(Spec{
		Name:       "MPIX_THREADCOMM_SEATS",
		Desc:       "reductions on a threadcomm of at most 16 threads in one process synchronise through one cache line per thread, every thread folding a slice, up to 16 bytes in one round on the lines themselves (1), or through one shared counter, the last thread to arrive folding small ones alone (0); -1: per-thread lines when every thread has a core",
		Default:    "-1",
		Verbosity:  TunerDetail,
		Scope:      ScopeLocal, // each process's threads synchronise among themselves
		Category:   Progress,
		Mutability: BeforeInit,
		Min:        -1,
		Max:        1,
	})
	DebugStuck = NewInt(Spec{
		Name:       "MPIX_DEBUG_STUCK",
		Desc:       "seconds after MPI_Init at which each process prints, to stderr, what every VCI's engine still holds (posted and unmatched messages, protocol requests, queued sends, transport buffers), to find a hang, and writes each VCI's last protocol messages to a file in TMPDIR; 0: never",
		Default:    "0",
		Verbosity:  TunerDetail,
		Scope:      ScopeLocal,
		Category:   Progress,
		Mutability: BeforeInit,
		Min:        0,
		Max:        1 << 20,
	})
	SpinPolls = NewInt(Spec{
		Name:       "MPIX_SPIN_POLLS",
		Desc:       "empty polls a waiting thread spins through before it starts yielding the processor between polls",
		Default:    "200",
		Verbosity:  TunerDetail,
		Scope:      ScopeLocal,
		Category:   Progress,
		Mutability: BeforeInit, // the engine copies it at MPI_Init
		Min:        0,
		Max:        1 << 30,
	})

	NumVCIs = NewInt(Spec{
		Name:       "MPIX_NUM_VCIS",
		Desc:       "virtual communication interfaces per process (0: one per core plus the fallback VCI); the job uses the smallest count any process asks for",
		Default:    "0",
		Verbosity:  TunerBasic,
		Scope:      ScopeAllEq, // senders pick the receiver's VCI from the count
		Category:   VCI,
		Mutability: BeforeInit,
		Min:        0,
		Max:        1 << 16,
	})
	GlobalProgressInterval = NewInt(Spec{
		Name:       "MPIX_GLOBAL_PROGRESS_INTERVAL",
		Desc:       "unsuccessful polls of a request's own VCI (in a wait, or unfinished MPI_Test/MPI_Iprobe calls) before one round of progress on every VCI (0: never, which can deadlock correct programs; for tests)",
		Default:    "256",
		Verbosity:  TunerDetail,
		Scope:      ScopeLocal,
		Category:   Progress,
		Mutability: BeforeInit,
		Min:        0,
		Max:        1 << 30,
	})
)
