package main

import (
	"math"
	"strconv"
	"strings"
)

// Impl is one MPI implementation under test: which build of the benchmark programs it
// runs and how it launches them.
type Impl struct {
	Name  string // short name used in file names and progress lines
	Label string // column header
	Build string // which build of the programs it runs: "mpix", "mpich" or "openmpi"
	Env   map[string]string
}

// Builds are the compilers each benchmark program is built with, by build name: CC
// for bench/*.c, FC for bench/*.f90.
var builds = []struct{ Name, CC, FC string }{
	{"mpix", "build/bin/mpixcc", "build/bin/mpixfort"},
	{"mpich", "mpicc.mpich", "mpif90.mpich"},
	{"openmpi", "mpicc.openmpi", "mpif90.openmpi"},
}

var (
	mpix    = Impl{Name: "mpix", Label: "mpix", Build: "mpix"}
	mpixOFI = Impl{Name: "mpix-ofi", Label: "mpix-ofi", Build: "mpix", Env: map[string]string{"MPIX_SHM": "0"}}
	mpich   = Impl{Name: "mpich", Label: "MPICH", Build: "mpich"}
	openmpi = Impl{Name: "openmpi", Label: "Open MPI", Build: "openmpi"}

	// allImpls is the order of the table columns.
	allImpls = []Impl{mpix, mpixOFI, mpich, openmpi}
	// p2pImpls adds mpix over libfabric (MPIX_SHM=0), the inter-node path run on one
	// node, to the three libraries.
	p2pImpls     = []string{"mpix", "mpix-ofi", "mpich", "openmpi"}
	defaultImpls = []string{"mpix", "mpich", "openmpi"}
)

// Better says which direction of a figure is better.
type Better int

const (
	Lower Better = iota
	Higher
)

// RowKind says what a figure's rows are: free-form names, message sizes in bytes
// (shown as "4 KiB", plotted on a log axis) or counts (threads, processes).
type RowKind int

const (
	Names RowKind = iota
	Sizes
	Counts
)

// PlotKind selects the PNG drawn for a figure.
type PlotKind int

const (
	NoPlot PlotKind = iota
	LogLog          // value vs size (or count), both axes logarithmic
	Lines           // value vs count (threads), linear axes
	Dots            // one point per implementation and named row, logarithmic values
)

// Parse is the rule that turns a program's output into samples: every line whose first
// field is Key is "KEY ROW... VALUE"; the fields between the key and the value name the
// row. Row, when set, replaces that name (all lines then feed one row). Values are
// multiplied by Scale (when not 0). Several values for one row within one run are
// combined by taking the largest (the slowest rank, for timings printed by every rank).
// WallRow, when set, adds a row with the whole launch's wall-clock time in
// milliseconds (launcher start-up and teardown included).
type Parse struct {
	Key     string
	Row     string
	Scale   float64
	WallRow string
}

// Point is one launch of a figure that sweeps a parameter (threads, processes): its
// samples all go to row Row. Args, Env and NP (when not 0) replace the figure's.
type Point struct {
	Row  string
	Args []string
	Env  map[string]string
	NP   int
}

// Figure is one table of the summary (and one plot): a program, how to launch it, how
// to read its output and how to present it. Adding a benchmark is adding an entry to
// figures.
type Figure struct {
	Name    string // unique; names the plot file
	Title   string
	Program string   // bench/PROGRAM.c (or .f90), built once per implementation
	Args    []string // program arguments
	NP      int      // processes
	Env     map[string]string
	Impls   []string // implementation names (defaultImpls when nil)
	Points  []Point  // launches per run when the figure sweeps a parameter
	Parse   Parse
	Unit    string
	Better  Better
	Rows    RowKind
	RowHead string // header of the row column
	Plot    PlotKind
	XLabel  string
	// Limit gives this machine's bound for a row (a latency floor or a bandwidth
	// ceiling), when one applies.
	Limit func(l Limits, row string) (float64, bool)
	Note  string
	// ThreadsArg: the program takes -threads LIST, which BENCH_THREADS sets.
	ThreadsArg bool
}

// figures are the benchmarks make bench runs, in the order of the summary.
var figures = []Figure{
	{
		Name: "init_finalize", Title: "MPI_Init + MPI_Finalize, 2 processes",
		Program: "init_finalize", NP: 2, Impls: p2pImpls,
		Parse: Parse{Key: "init_finalize_us", Row: "init+finalize (slowest rank)", Scale: 1e-3, WallRow: "whole launch"},
		Unit:  "ms", Better: Lower, Rows: Names, RowHead: "time",
		Note: "init+finalize is measured inside each process (CLOCK_MONOTONIC); whole launch is the launcher's wall-clock time.",
	},
	{
		Name: "latency", Title: "Point-to-point one-way latency (pingpong), 2 processes",
		Program: "pingpong", NP: 2, Impls: p2pImpls,
		Parse: Parse{Key: "latency"},
		Unit:  "µs", Better: Lower, Rows: Sizes, RowHead: "size",
		Plot: LogLog, XLabel: "message size (bytes)",
		Limit: latencyLimit,
		Note:  "limit: the larger of the cache-line one-way latency and one memcpy of the message (the 1 MiB memcpy figure while the buffers fit in 8 MiB, else the 64 MiB one).",
	},
	{
		Name: "bandwidth", Title: "Point-to-point bandwidth (window of 64), 2 processes",
		Program: "bandwidth", NP: 2, Impls: p2pImpls,
		Parse: Parse{Key: "bandwidth"},
		Unit:  "MB/s", Better: Higher, Rows: Sizes, RowHead: "size",
		Plot: LogLog, XLabel: "message size (bytes)",
		Limit: bandwidthLimit,
		Note:  "limit: memcpy bandwidth, one copy (the 1 MiB figure while the 64 receive buffers fit in 8 MiB, else the 64 MiB one).",
	},
	{
		Name: "msgrate", Title: "Message rate, 8-byte messages, 1 pair, window of 64",
		Program: "msgrate", Args: []string{"8", "64"}, NP: 2, Impls: p2pImpls,
		Parse: Parse{Key: "msgrate"},
		Unit:  "million messages/s", Better: Higher, Rows: Sizes, RowHead: "size",
	},
	rmaFigure("lat", "allocate"),
	rmaFigure("lat", "create"),
	rmaFigure("lat", "create-allocmem"),
	rmaFigure("lat", "dynamic"),
	rmaFigure("bw", "allocate"),
	rmaFigure("bw", "create"),
	rmaFigure("bw", "create-allocmem"),
	rmaFigure("bw", "dynamic"),
	{
		Name: "rma_epochs", Title: "One-sided epochs with one 8-byte MPI_Put, allocated window, 2 processes",
		Program: "rma", Args: []string{"epochs"}, NP: 2, Impls: p2pImpls,
		Parse: Parse{Key: "rmaepoch"},
		Unit:  "µs", Better: Lower, Rows: Names, RowHead: "epoch",
		Plot: Dots, XLabel: "epoch",
		Note: "Time per epoch at the origin. fence: MPI_Put then MPI_Win_fence, both processes fencing (consecutive epochs share their fences); " +
			"pscw: MPI_Win_start, MPI_Put, MPI_Win_complete at the origin against MPI_Win_post, MPI_Win_wait at the target. " +
			"2 processes on one node (this machine has 2 cores)." + rmaCounts + rmaOFI,
	},
	rmaextScope,
	rmaextOrder,
	rmaextWindows,
	partOverhead,
	partPerceived,
	partSweep,
	partStrategies,
	partStrategiesPerceived,
	collectives(2),
	collectives(4),
	{
		Name: "fortran_calls", Title: "Calling MPI from Fortran: module mpi_f08, module mpi and C in one program, 2 processes",
		Program: "fcall", NP: 2,
		Parse: Parse{Key: "fcall"},
		Unit:  "ns", Better: Lower, Rows: Names, RowHead: "binding and call",
		Plot: Dots, XLabel: "binding and call",
		Note: "comm_rank: one MPI_Comm_rank(MPI_COMM_WORLD); send/recv_8B: one-way latency of an 8-byte MPI_Send/MPI_Recv pingpong. " +
			"Each library's own Fortran bindings (mpixfort, mpif90.mpich, mpif90.openmpi); the C rows are the same loops in C " +
			"(bench/fortran/fcall_c.c) in the same process, so f08/C within a column is that library's Fortran overhead. Best of 3 repetitions per run.",
	},
	{
		Name: "io", Title: "MPI-IO bandwidth (IOR-like), 2 processes, 64 MiB per process",
		Program: "io", Args: []string{"64", "256"}, NP: 2,
		Parse: Parse{Key: "io"},
		Unit:  "MB/s", Better: Higher, Rows: Names, RowHead: "access",
		Plot: Dots, XLabel: "access",
		Note: "contig: one 64 MiB block per process in 1 MiB calls; strided: 256-byte records of the processes interleaved through a file view, 1 MiB of data per call; " +
			"indep: MPI_File_write/read, coll: MPI_File_write_all/read_all; writes end with MPI_File_sync, reads may hit the page cache. " +
			"dd write limit: the same 128 MiB written by one process with write(2) in 1 MiB blocks and fsync, measured in each launch. Files under $TMPDIR.",
	},
	mtMsgrate("mt_msgrate_self", "Multithreaded message rate, 8-byte Isend/Irecv, one process (self-loops, ICS'20 Fig. 10/12 shape)", nil, 1,
		[][]string{{"par_comm", "1", "single"}, {"par_comm", "1", "multiple"}, {"par_comm", "2", "multiple"},
			{"par_comm_st", "1", "multiple"}, {"par_comm_st", "2", "multiple"},
			{"ser_comm", "1", "multiple"}, {"ser_comm", "2", "multiple"}}),
	mtMsgrate("mt_msgrate_2proc", "Multithreaded message rate, 8-byte Isend/Irecv, 2 processes (4 for everywhere 2)", nil, 2,
		[][]string{{"everywhere", "1", "single"}, {"everywhere", "1", "single", "4"}, {"par_comm", "1", "single"},
			{"par_comm", "1", "multiple"}, {"par_comm", "2", "multiple"}, {"ser_comm", "2", "multiple"}}),
	mtMsgrate("mt_msgrate_endpoints", "Multithreaded message rate, 8-byte Isend/Irecv, MPIX_Comm_create_endpoints (mpix only)", []string{"mpix"}, 1,
		[][]string{{"endpoints", "1", "multiple", "1"}, {"endpoints", "2", "multiple", "1"},
			{"endpoints", "1", "multiple", "2"}, {"endpoints", "2", "multiple", "2"}}),
}

// rmaFlavours are the windows bench/rma.c opens, by its argument: how each is made.
var rmaFlavours = map[string]string{
	"allocate":        "MPI_Win_allocate",
	"create":          "MPI_Win_create over malloc'd memory",
	"create-allocmem": "MPI_Win_create over MPI_Alloc_mem memory (as OSU's benchmarks do)",
	"dynamic":         "MPI_Win_create_dynamic + MPI_Win_attach of MPI_Alloc_mem memory, the target's address sent with MPI_Send",
}

// rmaCounts says how bench/rma.c chooses its iteration counts and what a row reports.
const rmaCounts = " Up to 10000 operations or epochs (200 windows) a row, fewer above 4 KiB and for rows too slow for bench/rma.c's time budget, " +
	"after a tenth as many warm-up ones, timed in 32 chunks: a row is the median over its chunks of the mean time in the chunk " +
	"(a process that loses its core for a scheduler tick on this shared machine would otherwise add milliseconds to sub-microsecond means)."

// rmaOFI explains the mpix-ofi column of the figures that have one.
const rmaOFI = " mpix-ofi (MPIX_SHM=0: operations as active messages over libfabric) runs the allocated window's latency and the epochs only, " +
	"to keep the launches few: its launches take several seconds where the others take one or two."

// rmaFigure is a figure of bench/rma.c for one window flavour: "lat" (every
// operation + MPI_Win_flush, by size) or "bw" (put and get bandwidth, by size). Its rows
// are named by the program: "OP SIZE" ("put 4 KiB"). mpix-ofi runs the allocated
// window's latency only (see rmaOFI).
func rmaFigure(mode, flavour string) Figure {
	made, ok := rmaFlavours[flavour]
	if !ok {
		panic("rma: unknown window flavour " + flavour)
	}
	impls := defaultImpls
	if mode == "lat" && flavour == "allocate" {
		impls = p2pImpls
	}
	f := Figure{
		Program: "rma", Args: []string{mode, flavour}, NP: 2, Impls: impls,
		Parse: Parse{Key: "rma" + mode}, Rows: Names, RowHead: "operation, size",
	}
	name := "_" + strings.ReplaceAll(flavour, "-", "_")
	where := " 2 processes on one node (this machine has 2 cores): rank 0 the origin, inside one MPI_Win_lock(MPI_LOCK_SHARED) epoch on rank 1, " +
		"the target, which waits in MPI_Barrier. Window: " + made + "." + rmaCounts
	switch mode {
	case "lat":
		f.Name, f.Unit, f.Better = "rma_latency"+name, "µs", Lower
		f.Title = "One-sided latency, operation + MPI_Win_flush, " + flavour + " window, 2 processes"
		f.Note = "Each operation followed by MPI_Win_flush. acc (MPI_Accumulate), get_acc (MPI_Get_accumulate), fop (MPI_Fetch_and_op): " +
			"MPI_SUM on MPI_LONG elements (size/8 of them); cas: MPI_Compare_and_swap of one MPI_LONG." + where
		if flavour == "allocate" {
			f.Note += rmaOFI
			f.Note += " Open MPI 4.x: no cas row, as its osc/rdma crashes the target in an 8-byte MPI_Compare_and_swap " +
				"on an MPI_Win_allocate window (open-mpi/ompi#11349); bench/rma.c skips it when built against Open MPI before 5."
		}
	case "bw":
		f.Name, f.Unit, f.Better = "rma_bandwidth"+name, "MB/s", Higher
		f.Title = "One-sided bandwidth, 64 operations then MPI_Win_flush, " + flavour + " window, 2 processes"
		f.Note = "MPI_Put or MPI_Get of one size, 64 at a time to the same target bytes, then MPI_Win_flush; MB = 10^6 bytes." + where
	default:
		panic("rma: unknown mode " + mode)
	}
	return f
}

// rmaextWhere says what the bench/rmaext.c figures measure on a machine like this one.
const rmaextWhere = " 2 processes on one node: rank 0 the origin, rank 1 the target, which waits in MPI_Barrier. " +
	"On this machine's 2 cores the target holds one core while the origin's threads share the other (or both, " +
	"when the target's wait sleeps): from 2 threads on they oversubscribe the cores, so the threaded rows " +
	"measure software contention and time sharing, not a network's parallel endpoints."

// rmaextThreaded says how the threaded rows of bench/rmaext.c are timed.
const rmaextThreaded = " Threads: 1, 2, 4, ... up to the CPUs (BENCH_THREADS=1,2 sets the list), all running at once, " +
	"each putting 8 bytes to its own 64-byte slot of one MPI_Win_allocate window of the target inside one " +
	"MPI_Win_lock_all epoch, MPI_THREAD_MULTIPLE. A row is the time per put that one thread sees: per thread " +
	"the median over 4 chunks of about 12 ms (units for 50 ms in all, so that contention and time sharing are in them) of the mean, " +
	"averaged over the threads."

// rmaextScope is the EuroMPI'21 paper's Figures 8-9: put + flush by threads, with
// process- and thread-scope flushes.
var rmaextScope = Figure{
	Name: "rmaext_scope", Title: "RMA put + MPI_Win_flush per thread, process vs thread scope (mpi_win_scope), 8 B, 2 processes",
	Program: "rmaext", Args: []string{"scope"}, NP: 2, Impls: p2pImpls, ThreadsArg: true,
	Parse: Parse{Key: "rmascope"},
	Unit:  "µs", Better: Lower, Rows: Names, RowHead: "scope threads",
	Plot: Dots, XLabel: "scope, threads",
	Note: "[RMA] sec. 2.1, Figures 8-9. Each thread: MPI_Put of 8 bytes then MPI_Win_flush of the target. " +
		"process: the window, created with mpi_win_scope=process (the default); thread: a handle from " +
		"MPIX_Win_dup_with_info(win, mpi_win_scope=thread), mpix only, where a flush completes only the " +
		"calling thread's puts (MPICH and Open MPI have no such call and ignore the key: process rows only). " +
		"mpix-ofi: MPIX_SHM=0, the puts as active messages over libfabric (tcp;ofi_rxm), where a flush waits " +
		"for the target's acknowledgements, so that is where a process-scope flush waits for the other threads' puts." +
		rmaextThreaded + rmaextWhere,
}

// rmaextOrder is the paper's Figures 10-11: puts with a flush after each against
// ordered puts (mpi_win_order) with one flush per batch.
var rmaextOrder = Figure{
	Name: "rmaext_order", Title: "RMA put, a flush after each vs ordered puts (mpi_win_order), 8 B, per put, 2 processes",
	Program: "rmaext", Args: []string{"order"}, NP: 2, Impls: p2pImpls, ThreadsArg: true,
	Parse: Parse{Key: "rmaorder"},
	Unit:  "µs", Better: Lower, Rows: Names, RowHead: "mode threads",
	Plot: Dots, XLabel: "mode, threads",
	Note: "[RMA] sec. 2.2, Figures 10-11: time per 8-byte MPI_Put. put+flush: MPI_Win_flush after each put " +
		"(what ordering costs without the key); ordered: batches of 64 puts then one MPI_Win_flush on a window " +
		"created with mpi_win_order=true (the puts complete at the target in issue order, so no flush is needed " +
		"between them), mpix only (skipped unless MPI_Win_get_info reports the key back); ordered+thread: the same " +
		"with mpi_win_scope=thread (order per thread); unordered: batches of 64 puts then one flush on a plain " +
		"window, which orders nothing: the floor for ordered. Target: ordered at least 2x faster per put than " +
		"put+flush on the network path (mpix-ofi: MPIX_SHM=0, libfabric tcp;ofi_rxm, a flush is a round trip)." +
		rmaextThreaded + rmaextWhere,
}

// rmaextWindows is the paper's Figure 12: put latency on allocated, dynamic and
// memory-handle windows, and what a memory-handle window costs to make.
var rmaextWindows = Figure{
	Name: "rmaext_windows", Title: "RMA put + MPI_Win_flush: allocated, dynamic and memory-handle windows, 2 processes",
	Program: "rmaext", Args: []string{"windows"}, NP: 2, Impls: p2pImpls,
	Parse: Parse{Key: "rmawin"},
	Unit:  "µs", Better: Lower, Rows: Names, RowHead: "window, size",
	Note: "[RMA] sec. 4, Figure 12. MPI_Put of SIZE bytes then MPI_Win_flush, inside one MPI_Win_lock(MPI_LOCK_SHARED) " +
		"epoch. allocate: MPI_Win_allocate; dynamic: MPI_Win_create_dynamic + MPI_Win_attach of MPI_Alloc_mem memory, " +
		"the address sent with MPI_Send; dynamic-malloc: the same over malloc'd memory; memhandle (mpix only): the " +
		"target's MPIX_Memhandle_create of MPI_Alloc_mem memory on a dynamic window, the handle sent with MPI_Send, " +
		"the origin's MPIX_Win_from_memhandle, the lock on the parent dynamic window and put and flush on the " +
		"memory-handle window; memhandle-malloc: the same over malloc'd memory. Costs: memhandle create+free " +
		"(origin: MPIX_Win_from_memhandle + MPI_Win_free), memhandle create+put+flush+free 8 B (the paper's " +
		"latency with window creation and destruction), memhandle register+release 64 KiB (target: " +
		"MPIX_Memhandle_create + MPIX_Memhandle_release), dynamic attach+detach 64 KiB (target: MPI_Win_attach + " +
		"MPI_Win_detach, every library). mpix-ofi (MPIX_SHM=0): every put an active message over libfabric " +
		"(tcp;ofi_rxm) that the target's engine applies, whatever the window, so there the windows differ only in " +
		"the origin's lookup. Up to 10000 units a row (fewer above 4 KiB and for rows slower than " +
		"20 ms of them), after a tenth as many warm-up ones, timed in 32 chunks: a row is the median over its chunks " +
		"of the mean time in the chunk, as in the rma_latency figures." +
		" 2 processes on one node (this machine has 2 cores): rank 0 the origin, rank 1 the target, waiting in MPI_Barrier.",
}

// partEnv is the environment of the bench/part.c figures: idle OpenMP threads sleep
// instead of spinning on cores the other process needs.
var partEnv = map[string]string{"OMP_WAIT_POLICY": "passive"}

// partWhere says what the bench/part.c figures measure on a machine like this one.
const partWhere = " 2 processes on one node (this machine has 2 cores): rank 0 sends, rank 1 receives. The paper runs " +
	"one OpenMP thread per partition; here the partitions are split in static chunks over omp_get_max_threads() " +
	"threads (2: one per core), and the sender's threads and the receiver share the 2 cores, so the threads " +
	"oversubscribe them (OMP_WAIT_POLICY=passive: idle OpenMP threads sleep). MPI_THREAD_MULTIPLE; times from " +
	"clock_gettime(CLOCK_MONOTONIC)."

// partLibs says what each library's partitioned communication is in these figures.
const partLibs = " MPICH 4.0.2 implements partitioned communication natively (it sends the data when the last partition " +
	"is ready). Open MPI 4.1.4 (Debian) does not implement it: its column is Open MPI's point-to-point used the way " +
	"Open MPI 5's part/persist component uses it (bench/part.c built with -DPART_EMULATE): a receive posted per " +
	"partition at MPI_Start, one MPI_Isend per partition as soon as MPI_Pready makes it ready, MPI_Parrived = " +
	"MPI_Test of that partition's receive, MPI_Wait = MPI_Waitall of the partitions. mpix: early-bird transfers " +
	"(process_vm_writev into the receive buffer and a shared arrival page within a node), with its default " +
	"aggregation (timer_ploggp) unless a row names another. A library that refuses MPI_Psend_init/MPI_Precv_init " +
	"has no partitioned rows, with its reason."

// partOverhead is [PA] sec. V-B: a partitioned round against one send of the same size.
var partOverhead = Figure{
	Name: "part_overhead", Title: "Partitioned overhead: one partitioned round vs one MPI_Send of the same size, per round, 2 processes",
	Program: "part", Args: []string{"overhead"}, NP: 2, Impls: p2pImpls, Env: partEnv,
	Parse: Parse{Key: "partov"},
	Unit:  "µs, ratio rows unitless", Better: Lower, Rows: Names, RowHead: "kind partitions size",
	Note: "[PA] sec. V-B (Temuçin et al.'s overhead benchmark). part P SIZE: one round of a partitioned send of SIZE bytes " +
		"in P partitions: the sender's MPI_Start, MPI_Pready of every partition from an OpenMP parallel loop, MPI_Wait; " +
		"the receiver's MPI_Start (posted before the sender starts) and MPI_Wait, then a 0-byte acknowledgement that the " +
		"sender receives before its next round. send SIZE: MPI_Send/MPI_Recv of SIZE bytes + the same acknowledgement. " +
		"ratio P SIZE: part / send (unitless; above 1: the partitioned round is slower). Sizes 1 KiB to 64 MiB in powers of 4 " +
		"(PART_MAXSIZE or -maxsize caps them). A row: rounds for 0.15 s (at least 5) after a tenth as many warm-up ones, timed " +
		"in up to 16 chunks, the median over the chunks of the mean per round; the first round's data is checked." +
		partLibs + partWhere,
}

// partPerceived is [PA] sec. V-C: perceived bandwidth with one late partition.
var partPerceived = Figure{
	Name: "part_perceived", Title: "Partitioned perceived bandwidth, single thread delay, 2 processes",
	Program: "part", NP: 2, Impls: p2pImpls, Env: partEnv,
	Points: []Point{
		{Args: []string{"perceived", "-compute", "1000", "-noise", "1"}},
		{Args: []string{"perceived", "-compute", "1000", "-noise", "4"}},
		{Args: []string{"perceived", "-compute", "100000", "-noise", "4", "-parts", "32", "-iters", "5", "-maxsize", "4194304"}},
	},
	Parse: Parse{Key: "partbw"},
	Unit:  "MB/s", Better: Higher, Rows: Names, RowHead: "compute noise partitions size",
	Note: "[PA] sec. V-C, Temuçin et al. (ICPP'22) perceived bandwidth with the single thread delay model: every partition " +
		"is computed (a busy wait) for COMPUTE from a common start after an MPI_Barrier, one partition (random each " +
		"iteration) NOISE percent longer: the late thread. Each thread MPI_Pready's its partitions as their compute ends, the " +
		"late one last. The sender takes the clock just before every MPI_Pready and sends the latest to the receiver, which " +
		"takes the clock when its MPI_Wait returns (one node, one CLOCK_MONOTONIC): perceived bandwidth = bytes / (receiver " +
		"done - last MPI_Pready), the median over 20 iterations (fewer above 1 MiB, at least 5) after 2 warm-up ones. " +
		"Rows: 1 ms with 1% and 4% noise, 4 and 32 partitions, 1 KiB to 64 MiB; 100 ms with 4% noise (the paper's Figure 9 " +
		"setting), 32 partitions, 5 iterations, 1 KiB to 4 MiB (100 ms a launch per iteration)." + partLibs + partWhere,
}

// partSweep is [PA] sec. V-D: the sweep3d pattern on a 2x2 process grid.
var partSweep = Figure{
	Name: "part_sweep", Title: "Partitioned sweep3d pattern, 2x2 processes, time per sweep",
	Program: "part", Args: []string{"sweep"}, NP: 4, Env: partEnv,
	Parse: Parse{Key: "partsweep"},
	Unit:  "µs", Better: Lower, Rows: Names, RowHead: "kind partitions size",
	Note: "[PA] sec. V-D. 4 processes on a 2x2 grid, the wavefront from rank 0's corner: each process receives partitioned " +
		"from its upstream neighbours (up, left) and, per partition in its OpenMP thread, waits for it with MPI_Parrived from " +
		"every upstream, computes 50 µs (a busy wait) and MPI_Pready's it to every downstream neighbour (down, right). part P " +
		"SIZE: SIZE-byte messages in P partitions; send P SIZE: the same with whole messages (MPI_Irecv from every upstream, " +
		"MPI_Waitall, the P partitions computed in parallel, MPI_Isend downstream, MPI_Waitall). A sweep starts after an " +
		"MPI_Barrier; the row is the median over 10 sweeps (after 3 warm-up ones) of the slowest process's time, compute " +
		"included. On this machine's 2 cores the 4 processes x 2 threads oversubscribe the cores 4 times: a library whose " +
		"waits poll without yielding (MPICH) loses whole scheduler time slices, which the times show." + partLibs,
}

// partStrategiesNote is what the two strategy figures share.
const partStrategiesNote = " mpix: one set of rows per aggregation strategy, set with the info key mpix_part_aggregation " +
	"(include/mpix.h sec. 4) on MPI_Psend_init: none (a transport partition per user partition), table (the tuning table, " +
	"[PA] sec. IV-B), ploggp (the PLogGP model, sec. IV-C), timer_ploggp (PLogGP grouping, the first ready partition of a " +
	"group waiting at most delta for the rest, sec. IV-D). MPICH and Open MPI have no such key: one set of rows each, " +
	"labelled mpich and openmpi-isend. 32 partitions, 1 KiB to 16 MiB."

// partStrategies is [PA] sec. V-B Figure 8: the overhead round per aggregation strategy.
var partStrategies = Figure{
	Name: "part_strategies", Title: "Partitioned aggregation strategies: overhead round, 2 processes",
	Program: "part", Args: []string{"strategies", "overhead"}, NP: 2, Impls: p2pImpls, Env: partEnv,
	Parse: Parse{Key: "partstrat"},
	Unit:  "µs", Better: Lower, Rows: Names, RowHead: "strategy partitions size",
	Note: "[PA] sec. V-B Figure 8: the part_overhead round (MPI_Start, MPI_Pready of every partition from an OpenMP loop, " +
		"MPI_Wait, a 0-byte acknowledgement) per strategy." + partStrategiesNote + partLibs + partWhere,
}

// partStrategiesPerceived is [PA] sec. V-C Figure 9: perceived bandwidth per strategy.
var partStrategiesPerceived = Figure{
	Name: "part_strategies_perceived", Title: "Partitioned aggregation strategies: perceived bandwidth, 1 ms compute, 4% noise, 2 processes",
	Program: "part", Args: []string{"strategies", "perceived"}, NP: 2, Impls: p2pImpls, Env: partEnv,
	Parse: Parse{Key: "partstratbw"},
	Unit:  "MB/s", Better: Higher, Rows: Names, RowHead: "strategy compute noise partitions size",
	Note: "[PA] sec. V-C Figure 9 (there with 100 ms compute): the part_perceived measurement per strategy." +
		partStrategiesNote + partLibs + partWhere,
}

// mtWindows is how many windows of 64 messages each stream of mtmsgrate sends.
const mtWindows = "2000"

// mtMsgrate is a figure of bench/mtmsgrate.c: one launch per point, each point
// MODE THREADS LEVEL [NP] (NP defaults to np). Rows are named by the program:
// "MODE THREADS LEVEL NP".
func mtMsgrate(name, title string, impls []string, np int, points [][]string) Figure {
	f := Figure{
		Name: name, Title: title, Program: "mtmsgrate", NP: np, Impls: impls,
		Parse: Parse{Key: "mtrate"},
		Unit:  "million messages/s", Better: Higher, Rows: Names, RowHead: "mode threads level processes",
		Note: "Rows: MODE THREADS LEVEL PROCESSES. everywhere: one thread per process; ser_comm: all threads on " +
			"MPI_COMM_WORLD; par_comm: a communicator per thread; par_comm_st: the same with mpix_assert_single_thread (mpix skips the VCI locks; others ignore the hint); endpoints: an endpoint per thread. single/multiple: " +
			"the MPI_Init_thread level. One process: each thread sends to itself, which measures software contention " +
			"only; this machine has few cores, so 2 processes x 2 threads oversubscribe it.",
	}
	for _, p := range points {
		pt := Point{Args: []string{p[0], p[1], p[2], mtWindows}}
		if len(p) > 3 {
			pt.NP, _ = strconv.Atoi(p[3])
		}
		f.Points = append(f.Points, pt)
	}
	return f
}

func collectives(np int) Figure {
	f := Figure{
		Name: "collectives_" + strconv.Itoa(np), Title: "Collective latency, " + strconv.Itoa(np) + " processes",
		Program: "collectives", NP: np,
		Parse: Parse{Key: "collective"},
		Unit:  "µs", Better: Lower, Rows: Names, RowHead: "operation",
		Plot: Dots, XLabel: "operation",
		Limit: collectiveLimit,
		Note:  "limit: one cache-line transfer (64 KiB allreduce: one memcpy of 64 KiB).",
	}
	if np > 2 {
		f.Note += " 4 processes oversubscribe this machine's cores when it has fewer."
	}
	return f
}

// Limits are this machine's figures measured by bench/limits/limits.c.
type Limits struct {
	CacheLineNs       float64 // one-way cache-line transfer between two cores, best
	Memcpy1MiB        float64 // MB/s
	Memcpy64MiB       float64 // MB/s
	CacheLineMedianNs float64 // the cache-line transfer's median (shown, not a bound)
}

// cachedBytes is the largest working set for which the 1 MiB memcpy figure (caches)
// applies; larger ones get the 64 MiB figure (memory).
const cachedBytes = 8 << 20

// copyBW is the memcpy bandwidth for a benchmark touching working bytes of buffers.
func (l Limits) copyBW(working float64) float64 {
	if working <= cachedBytes {
		return l.Memcpy1MiB
	}
	return l.Memcpy64MiB
}

// latencyLimit is the floor of a one-way latency in µs: a message needs at least one
// cache line to move between cores and at least one copy (pingpong touches a send and
// a receive buffer).
func latencyLimit(l Limits, row string) (float64, bool) {
	size, err := strconv.ParseFloat(row, 64)
	if err != nil || l.CacheLineNs <= 0 || l.copyBW(2*size) <= 0 {
		return 0, false
	}
	return math.Max(l.CacheLineNs/1e3, size/l.copyBW(2*size)), true // bytes / (MB/s) = µs
}

// bandwidthLimit is one copy's bandwidth; the benchmark's receiver cycles through a
// window of 64 buffers.
func bandwidthLimit(l Limits, row string) (float64, bool) {
	size, err := strconv.ParseFloat(row, 64)
	if err != nil || l.copyBW(65*size) <= 0 {
		return 0, false
	}
	return l.copyBW(65 * size), true
}

func collectiveLimit(l Limits, row string) (float64, bool) {
	if row == "allreduce_64KiB" {
		if l.Memcpy1MiB <= 0 {
			return 0, false
		}
		return 65536 / l.Memcpy1MiB, true
	}
	if l.CacheLineNs <= 0 {
		return 0, false
	}
	return l.CacheLineNs / 1e3, true
}

// implsOf returns the implementations a figure runs, in column order.
func implsOf(f Figure) []Impl {
	names := f.Impls
	if names == nil {
		names = defaultImpls
	}
	var out []Impl
	for _, im := range allImpls {
		for _, n := range names {
			if n == im.Name {
				out = append(out, im)
			}
		}
	}
	return out
}
