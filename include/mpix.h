/*
 * mpix.h -- extension API of the mpix MPI library.
 *
 * These are the interfaces proposed or used by the five papers mpix is
 * built around (see docs/extensions.md for the user-level description):
 *
 *   [TC]  Zhou et al., "Frustrated with MPI+Threads? Try MPIxThreads!",
 *         EuroMPI'23                      -> thread communicators
 *   [VCI] Zambre et al., "How I Learned to Stop Worrying about
 *         User-Visible Endpoints and Love MPI", ICS'20
 *                                         -> VCI hints, MPI Endpoints
 *   [RMA] Schuchart et al., "Quo Vadis MPI RMA?", EuroMPI'21
 *                                         -> window duplication, RMA info
 *                                            keys, memory handles,
 *                                            notifications, Rr* operations
 *   [PA]  Temucin et al., "A Dynamic Network-Native MPI Partitioned
 *         Aggregation Over InfiniBand Verbs"
 *                                         -> partition aggregation hints
 *   [SE]  Zambre et al., "Scalable Communication Endpoints for
 *         MPI+Threads Applications", ICPADS'18
 *                                         -> endpoint resource-sharing hints
 *
 * Inclusion: mpi.h includes this file at its end unless MPIX_NO_EXTENSIONS
 * is defined, and this file includes mpi.h, so either may be included
 * first.  The guard is defined before mpi.h is pulled in so that the
 * nested include from mpi.h is a no-op.
 *
 * Layout rules (a generator reads this file to produce the C shim and the
 * Go exports, so keep them):
 *   - every prototype sits on a single line and names all its parameters;
 *   - each MPIX_/MPI_ prototype is followed on the very next line by its
 *     PMPIX_/PMPI_ profiling twin with the identical parameter list;
 *   - no other line begins with a return type followed by an MPI name;
 *   - function-pointer parameters go through a typedef;
 *   - every prototype belongs to the feature-test macro named by the last
 *     marker line above it, a comment holding "feature MPIX_HAVE_X" alone.
 *
 * Names printed in the papers with an MPI_ prefix (MPI_Threadcomm_*,
 * MPI_Comm_create_endpoints, MPI_Rrput, MPI_Rraccumulate,
 * MPI_Rrget_accumulate, MPI_Win_op_intrinsic) are real functions here so
 * that the papers' listings build unchanged; each behaves exactly like its
 * MPIX_ counterpart.  Everything mpix adds beyond the papers is MPIX_ only.
 */
#ifndef MPIX_H_INCLUDED
#define MPIX_H_INCLUDED

#include "mpi.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Version of this extension interface (bumped on incompatible change). */
#define MPIX_EXTENSIONS_VERSION 1

/* Feature-test macros, for #ifdef in user code: defined only for the features
 * that work.  The generated test ctests/generated/features.c fails if a
 * procedure declared under the "feature" marker of a defined macro is not
 * implemented.
 *
 * Not defined yet, because it does not work yet: MPIX_HAVE_EP_SHARING (no
 * fabric reads the mpix_ep_sharing keys yet).  Their procedures are declared and exported;
 * they fail with MPI_ERR_UNSUPPORTED_OPERATION, and their info keys are
 * ignored like any unknown key. */
#define MPIX_HAVE_THREADCOMM 1
#define MPIX_HAVE_PART_AGGREGATION 1
#define MPIX_HAVE_PBUF_PREPARE 1
#define MPIX_HAVE_ENDPOINTS 1
#define MPIX_HAVE_VCI_HINTS 1
#define MPIX_HAVE_RMA_INFO_KEYS 1
#define MPIX_HAVE_WIN_OP_INTRINSIC 1
#define MPIX_HAVE_WIN_DUP 1
#define MPIX_HAVE_MEMHANDLE 1
#define MPIX_HAVE_RR_RMA 1
#define MPIX_HAVE_RMA_NOTIFY 1

/* ===================================================================== */
/* 1. Thread communicators  [TC] section 2                               */
/* ===================================================================== */
/*
 * A threadcomm gives every thread of a parallel region its own rank.  With
 * N processes in the parent communicator each contributing M threads, the
 * active threadcomm has N*M ranks; ranks are grouped by parent rank, and
 * within a process the order is the order of arrival in _start.
 *
 * Life cycle:
 *   _init   (outside the parallel region, main thread, collective over the
 *            parent)  -> inactive threadcomm, usable only by _free
 *   _start  (inside the region, every thread of every process)  -> active
 *   ... any communication on the threadcomm, as if threads were processes
 *   _finish (inside the region, every thread)  -> inactive again; objects
 *            derived from the active threadcomm (attributes, groups, dup'ed
 *            threadcomms) must not outlive it
 *   _free   (outside the region, main thread, collective over the parent)
 *
 * Calls made on an active threadcomm do not require MPI_THREAD_MULTIPLE;
 * calls that carry no threadcomm (e.g. datatype creation inside the region)
 * still follow the thread level given to MPI_Init_thread.
 */

/* feature MPIX_HAVE_THREADCOMM */
/* Create an inactive threadcomm over comm for a region of num_threads
 * threads per process (the number may differ between processes).
 * Collective over comm; duplicates comm's attributes and topology like
 * MPI_Comm_dup.  [TC] sec. 2 */
int MPIX_Threadcomm_init(MPI_Comm comm, int num_threads, MPI_Comm *newthreadcomm);
int PMPIX_Threadcomm_init(MPI_Comm comm, int num_threads, MPI_Comm *newthreadcomm);

/* Activate threadcomm from inside the parallel region; every thread of
 * every process calls it, and each thread receives its own rank.
 * Collective over the threadcomm.  [TC] sec. 2, sec. 3.1 */
int MPIX_Threadcomm_start(MPI_Comm threadcomm);
int PMPIX_Threadcomm_start(MPI_Comm threadcomm);

/* Deactivate threadcomm before the parallel region ends; frees the
 * per-thread state (rank, queues, attributes) created by _start.
 * Collective over the threadcomm.  [TC] sec. 2 */
int MPIX_Threadcomm_finish(MPI_Comm threadcomm);
int PMPIX_Threadcomm_finish(MPI_Comm threadcomm);

/* Free an inactive threadcomm and set *threadcomm to MPI_COMM_NULL.
 * Main thread only, outside the region; collective over the parent.
 * [TC] sec. 2 */
int MPIX_Threadcomm_free(MPI_Comm *threadcomm);
int PMPIX_Threadcomm_free(MPI_Comm *threadcomm);

/* Set *flag to true if comm is a threadcomm (active or not, including a
 * duplicate of an active one), false otherwise.  Local.  (MPICH API) */
int MPIX_Comm_test_threadcomm(MPI_Comm comm, int *flag);
int PMPIX_Comm_test_threadcomm(MPI_Comm comm, int *flag);

/* The spelling used by [TC] Listings 1, 3 and 4.  Same semantics as the
 * MPIX_Threadcomm_* functions above. */
int MPI_Threadcomm_init(MPI_Comm comm, int num_threads, MPI_Comm *newthreadcomm);
int PMPI_Threadcomm_init(MPI_Comm comm, int num_threads, MPI_Comm *newthreadcomm);
int MPI_Threadcomm_start(MPI_Comm threadcomm);
int PMPI_Threadcomm_start(MPI_Comm threadcomm);
int MPI_Threadcomm_finish(MPI_Comm threadcomm);
int PMPI_Threadcomm_finish(MPI_Comm threadcomm);
int MPI_Threadcomm_free(MPI_Comm *threadcomm);
int PMPI_Threadcomm_free(MPI_Comm *threadcomm);

/* ===================================================================== */
/* 2. VCIs and user-visible endpoints  [VCI], [TC] sec. 5.2, [SE]         */
/* ===================================================================== */
/*
 * Info hints that steer the mapping of communicators and windows onto
 * virtual communication interfaces (VCIs).  They take effect where a
 * communicator is made with them: MPI_Comm_dup_with_info (and _idup_),
 * MPI_Comm_dup (which copies the parent's hints), MPI_Comm_split_type,
 * MPI_Comm_create_from_group.  MPI_Comm_set_info records them for later
 * duplicates but never moves a live communicator (messages in flight on its
 * old VCI would be stranded).  Unknown or unsatisfiable hints are ignored;
 * MPI_Comm_get_info reports them.  Besides the MPIX_ keys below, the MPI-4
 * assertions mpi_assert_no_any_source / mpi_assert_no_any_tag spread a
 * communicator's point-to-point traffic over several VCIs by (source, tag);
 * the output-only key "mpix_vcis" then gives their number.
 */

/* "true": give this communicator/window a VCI of its own instead of
 * sharing the pool's fallback VCI (the hint [VCI] sec. 5.2 asks for). */
#define MPIX_INFO_ASSERT_NEW_VCI "mpi_assert_new_vci"
/* Integer: use VCI number <value> (taken modulo the pool size) for both
 * sending and receiving on this communicator, if every member asks for the
 * same VCI and no single-thread communicator owns it; otherwise ignored.
 * (MPICH-compatible) */
#define MPIX_INFO_VCI "vci"
/* Integer: VCI used to send on this communicator.  (MPICH)  VCI v of one
 * process talks to VCI v of the others in mpix, so sending and receiving
 * VCIs cannot differ: receiver_vci wins over vci, which wins over
 * sender_vci; MPI_Comm_get_info reports the VCI in use under each key. */
#define MPIX_INFO_SENDER_VCI "sender_vci"
/* Integer: VCI the receiver matches on (and the sender sends to).  (MPICH) */
#define MPIX_INFO_RECEIVER_VCI "receiver_vci"
/* "true": the application promises that one thread at a time uses this
 * communicator and its requests, so the VCIs this process can give it
 * exclusively skip their lock ([VCI] sec. 5.1, "thread safety costs").
 * Other threads' global progress then leaves those VCIs alone: the
 * communicator progresses only in calls on it or its requests, so a
 * program that needs another thread's wait to progress it ([VCI] Figure
 * 9) must not use the hint.  MPI_Comm_get_info says "true" only where the
 * hint took effect. */
#define MPIX_INFO_ASSERT_SINGLE_THREAD "mpix_assert_single_thread"

/* feature MPIX_HAVE_ENDPOINTS */
/* Create my_num_ep endpoint ranks in this process: a new communicator in
 * which every process of parent_comm contributes as many ranks as it asks
 * for.  out_comm_handles[i] is the handle for local endpoint i; each must
 * be freed with MPI_Comm_free.  Each handle is meant to be used by one
 * thread; every endpoint gets its own VCI when the pool allows (the
 * sharing category can be chosen with MPIX_INFO_EP_SHARING below).
 * Collective over parent_comm.  MPI Endpoints proposal, cited by [VCI]
 * sec. 1 and compared with threadcomm in [TC] sec. 5.2 */
int MPIX_Comm_create_endpoints(MPI_Comm parent_comm, int my_num_ep, MPI_Info info, MPI_Comm out_comm_handles[]);
int PMPIX_Comm_create_endpoints(MPI_Comm parent_comm, int my_num_ep, MPI_Info info, MPI_Comm out_comm_handles[]);

/* The spelling printed in [TC] sec. 5.2; same as above. */
int MPI_Comm_create_endpoints(MPI_Comm parent_comm, int my_num_ep, MPI_Info info, MPI_Comm out_comm_handles[]);
int PMPI_Comm_create_endpoints(MPI_Comm parent_comm, int my_num_ep, MPI_Info info, MPI_Comm out_comm_handles[]);

/*
 * Scalable-endpoint resource sharing  [SE] sec. VI.
 *
 * How the network resources behind a set of VCIs/endpoints are shared
 * between threads.  Give MPIX_INFO_EP_SHARING one of the MPIX_EP_SHARING_*
 * values in the info of MPIX_Comm_create_endpoints, of a communicator or
 * window that asks for a new VCI, or (as a process-wide default) through
 * the environment variable MPIX_EP_SHARING.  Categories are listed from
 * the most resources per thread to the fewest.  On fabrics without these
 * distinctions (anything but verbs/mlx5-like devices) the value is
 * accepted and mapped to the nearest configuration the fabric offers.
 */
#define MPIX_INFO_EP_SHARING "mpix_ep_sharing"
/* One device context, QP and CQ per thread (as with one process per core). */
#define MPIX_EP_SHARING_EVERYWHERE "mpi_everywhere"
/* One shared context; twice as many thread-domain QPs as threads, each
 * thread using every other one: a private hardware register page per
 * thread (best throughput in [SE] sec. VII). */
#define MPIX_EP_SHARING_2XDYNAMIC "2xdynamic"
/* One shared context; one thread-domain QP per thread, each on its own
 * dynamically allocated register. */
#define MPIX_EP_SHARING_DYNAMIC "dynamic"
/* As "dynamic" but two threads share one register page. */
#define MPIX_EP_SHARING_SHARED_DYNAMIC "shared_dynamic"
/* One shared context; one QP per thread on the context's statically
 * allocated registers (several QPs may share a register). */
#define MPIX_EP_SHARING_STATIC "static"
/* One context, one QP and one CQ for all threads (fewest resources). */
#define MPIX_EP_SHARING_MPI_THREADS "mpi_threads"

/* Completion-queue sharing, orthogonal to the category above ([SE] sec.
 * V-E): "dedicated" (default, one CQ per QP) or "shared" (one CQ for all
 * the QPs of the context). */
#define MPIX_INFO_EP_CQ_SHARING "mpix_ep_cq_sharing"
#define MPIX_EP_CQ_DEDICATED "dedicated"
#define MPIX_EP_CQ_SHARED "shared"

/* ===================================================================== */
/* 3. RMA extensions  [RMA]                                               */
/* ===================================================================== */

/* ---- 3.1 Window info keys  [RMA] sec. 2 ---------------------------- */

/* Scope of passive-target flushes ([RMA] sec. 2.1).  With "thread", a
 * flush (MPI_Win_flush*, MPI_Win_flush_local*) only has to complete the
 * operations the calling thread issued on the window.  Default "process".
 * No effect on active-target synchronization.  This key is the whole
 * "thread-scope flush" interface: there are no separate flush functions. */
#define MPIX_INFO_WIN_SCOPE "mpi_win_scope"
#define MPIX_WIN_SCOPE_PROCESS "process"
#define MPIX_WIN_SCOPE_THREAD "thread"

/* "true": operations issued to the same target on this window complete at
 * the target in issue order (per thread when mpi_win_scope is "thread"),
 * so no flush is needed between a data put and a signalling accumulate
 * ([RMA] sec. 2.2, Listing 2).  Default "false".  Check the value returned
 * by MPI_Win_get_info before relying on it. */
#define MPIX_INFO_WIN_ORDER "mpi_win_order"

/* "true": the application asserts that it only issues accumulate
 * operations that MPIX_Win_op_intrinsic reported as intrinsic for this
 * window; any other accumulate is erroneous (no atomicity guarantee).
 * [RMA] sec. 2.3 */
#define MPIX_INFO_ASSERT_ACCUMULATE_INTRINSIC "mpi_assert_accumulate_intrinsic"

/* Open MPI's older key with the same effect for single-element accumulates
 * ([RMA] sec. 6.4); accepted for compatibility. */
#define MPIX_INFO_ACC_SINGLE_INTRINSIC "acc_single_intrinsic"

/* Spellings of the boolean values used by the keys above. */
#define MPIX_INFO_TRUE "true"
#define MPIX_INFO_FALSE "false"

/* ---- 3.2 Accumulate intrinsics query  [RMA] sec. 2.3, Listing 3 ---- */

/* feature MPIX_HAVE_WIN_OP_INTRINSIC */
/* Ask whether the accumulate operations listed in ops, applied to at most
 * max_count elements of type on win, are carried out by hardware intrinsic
 * to the origin (NIC atomics) rather than by a lock or by the target CPU.
 * ops is a comma-separated list of the suffixes of predefined MPI_Op names
 * ("sum", "band", "max", ...), plus "replace" for MPI_REPLACE, "no_op" for
 * MPI_NO_OP and "cas" for MPI_Compare_and_swap.  Sets *flag to 1 if all of
 * them are intrinsic, 0 otherwise.  Local. */
int MPIX_Win_op_intrinsic(const char *ops, MPI_Aint max_count, MPI_Datatype type, MPI_Win win, int *flag);
int PMPIX_Win_op_intrinsic(const char *ops, MPI_Aint max_count, MPI_Datatype type, MPI_Win win, int *flag);
/* The spelling of [RMA] Listing 3; same as above. */
int MPI_Win_op_intrinsic(const char *ops, MPI_Aint max_count, MPI_Datatype type, MPI_Win win, int *flag);
int PMPI_Win_op_intrinsic(const char *ops, MPI_Aint max_count, MPI_Datatype type, MPI_Win win, int *flag);

/* ---- 3.3 Window duplication  [RMA] sec. 3, Listing 4 --------------- */

/* feature MPIX_HAVE_WIN_DUP */
/* Return in *newwin a second handle to the memory and network resources
 * of win, carrying win's info keys overridden by those in info (pass
 * MPI_INFO_NULL to keep them all).  Synchronization is shared: a lock,
 * epoch or flush on one handle applies to its duplicates too.  Accumulates
 * stay mutually atomic across duplicates that agree on
 * mpi_assert_accumulate_intrinsic.  Local (no communication); keys the
 * implementation cannot change keep their old value, so check with
 * MPI_Win_get_info.  Free each handle with MPI_Win_free. */
int MPIX_Win_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin);
int PMPIX_Win_dup_with_info(MPI_Win win, MPI_Info info, MPI_Win *newwin);

/* ---- 3.4 Memory handles  [RMA] sec. 4.2, Listing 5 ------------------ */
/*
 * Why there is no int handle type: a memory handle is the registration
 * record of one memory region (owner, address, length, network keys), and
 * the whole point of [RMA] sec. 4 is that the owner ships it to other
 * processes as plain bytes (MPI_BYTE), which an int index into a
 * process-local table or a pointer cannot be.  So, as in the paper's
 * Listing 5, the functions take caller-owned buffers of at most
 * MPIX_MAX_MEMHANDLE_SIZE bytes through void pointers; the byte layout is
 * private to mpix (it may differ between builds and fabrics, but every
 * process of one job agrees on it).  MPIX_Memhandle is merely a
 * convenient, suitably aligned storage type for such a buffer.
 */

/* Upper bound on the bytes MPIX_Memhandle_create writes.  Part of the
 * ABI: it will not shrink, and growing it is an incompatible change. */
#define MPIX_MAX_MEMHANDLE_SIZE 256

/* The paper spells this constant two ways ([RMA] sec. 4.2 text and
 * Listing 5); both are provided unless mpi.h already has them. */
#ifndef MPI_MAX_MEMHANDLE_SIZE
#define MPI_MAX_MEMHANDLE_SIZE MPIX_MAX_MEMHANDLE_SIZE
#endif
#ifndef MPI_MAX_MEMORY_HANDLE_SIZE
#define MPI_MAX_MEMORY_HANDLE_SIZE MPIX_MAX_MEMHANDLE_SIZE
#endif

/* MPI_WIN_CREATE_FLAVOR of a window from MPIX_Win_from_memhandle. */
#define MPIX_WIN_FLAVOR_MEMHANDLE 5
#ifndef MPI_WIN_FLAVOR_MEMHANDLE
#define MPI_WIN_FLAVOR_MEMHANDLE MPIX_WIN_FLAVOR_MEMHANDLE
#endif

/* Storage for one memory handle; send it with MPI_BYTE, using the size
 * returned by MPIX_Memhandle_create (or sizeof the whole object). */
typedef union MPIX_Memhandle {
    unsigned char bytes[MPIX_MAX_MEMHANDLE_SIZE];
    MPI_Aint align_;
} MPIX_Memhandle;

/* feature MPIX_HAVE_MEMHANDLE */
/* Register [base, base+size) with the dynamic window parentwin and write
 * its memory handle into memhandle (a buffer of at least
 * MPIX_MAX_MEMHANDLE_SIZE bytes); *memhandle_size receives the number of
 * bytes used.  The handle may be sent to any process of parentwin's group
 * or used locally.  The region stays exposed until
 * MPIX_Memhandle_release.  Local.  [RMA] sec. 4.2 */
int MPIX_Memhandle_create(void *base, MPI_Aint size, MPI_Info info, MPI_Win parentwin, void *memhandle, int *memhandle_size);
int PMPIX_Memhandle_create(void *base, MPI_Aint size, MPI_Info info, MPI_Win parentwin, void *memhandle, int *memhandle_size);

/* Create in *newwin a window that reaches exactly the region described by
 * memhandle (made by MPIX_Memhandle_create on process target of
 * parentwin, and received by whatever means).  size and disp_unit
 * describe the window as seen by this origin; target is the only valid
 * target rank.  Only put, get, the accumulate family and flushes are
 * allowed on the new window; lock/unlock happen on parentwin (shared locks
 * expected).  Local; free with MPI_Win_free.  [RMA] sec. 4.2 */
int MPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPI_Info info, int target, MPI_Win parentwin, MPI_Win *newwin);
int PMPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPI_Info info, int target, MPI_Win parentwin, MPI_Win *newwin);

/* End the exposure of the region behind memhandle (created by this
 * process on parentwin).  Afterwards no RMA operation may target windows
 * created from that handle; those windows must still be freed with
 * MPI_Win_free.  Releasing a handle twice is erroneous.  Local.
 * [RMA] sec. 4.2 */
int MPIX_Memhandle_release(void *memhandle, MPI_Win parentwin);
int PMPIX_Memhandle_release(void *memhandle, MPI_Win parentwin);

/* ---- 3.5 Target-side completion notification  [RMA] sec. 5.1 ------- */
/*
 * [RMA] sec. 5.1 names MPIX_Win_test_notify / MPIX_Win_wait_notify from
 * the notified-RMA work it cites (Sergent et al., EuroMPI'19); the
 * operations that raise notifications and the window constructors come
 * from the same work.  A notification id is an integer in
 * [0, value of MPIX_INFO_WIN_NOTIFY_IDS).  Each notifying operation that
 * has completed at the target adds one arrival to (window, id); a
 * successful wait or test consumes one arrival, after which the data of
 * that operation is visible in the target's memory.
 */

/* Integer: number of notification ids a notify window supports (set at
 * creation: 1 to 1024, default 64; MPI_Win_get_info reports it). */
#define MPIX_INFO_WIN_NOTIFY_IDS "mpix_win_notify_ids"

/* feature MPIX_HAVE_RMA_NOTIFY */
/* Like MPI_Win_create, but the window can send and receive notifications.
 * Collective over comm. */
int MPIX_Win_create_notify(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
int PMPIX_Win_create_notify(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);

/* Like MPI_Win_allocate, but the window can send and receive
 * notifications.  Collective over comm. */
int MPIX_Win_allocate_notify(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
int PMPIX_Win_allocate_notify(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);

/* MPI_Put that, once the data is in the target's memory, adds an arrival
 * to notification_id at the target.  Needs a passive-target epoch like
 * MPI_Put; origin completion as usual (flush/unlock). */
int MPIX_Put_notify(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, int notification_id);
int PMPIX_Put_notify(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, int notification_id);

/* MPI_Get that adds an arrival to notification_id at the target once the
 * data has been read there (the target may then reuse the memory). */
int MPIX_Get_notify(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, int notification_id);
int PMPIX_Get_notify(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, int notification_id);

/* At the target: set *flag to true and consume one arrival if one is
 * pending for notification_id on win, else set *flag to false.  Drives
 * progress of all communication, not only RMA.  [RMA] sec. 5.1 */
int MPIX_Win_test_notify(MPI_Win win, int notification_id, int *flag);
int PMPIX_Win_test_notify(MPI_Win win, int notification_id, int *flag);

/* At the target: block until an arrival is pending for notification_id on
 * win, then consume it.  Drives global progress while waiting.
 * [RMA] sec. 5.1 */
int MPIX_Win_wait_notify(MPI_Win win, int notification_id);
int PMPIX_Win_wait_notify(MPI_Win win, int notification_id);

/* Request-based form that [RMA] sec. 5.1 recommends: *request completes
 * (through MPI_Test/MPI_Wait and friends, mixed freely with other
 * requests) when an arrival for notification_id has been consumed.  Not a
 * persistent request; free it by completing it.  (mpix name; the paper
 * sketches it only as "MPI_Win_wait_notify(win, notify_id, request)".) */
int MPIX_Win_iwait_notify(MPI_Win win, int notification_id, MPI_Request *request);
int PMPIX_Win_iwait_notify(MPI_Win win, int notification_id, MPI_Request *request);

/* ---- 3.6 Remote-completing request-based operations  [RMA] sec. 5.2 - */
/*
 * Same arguments as MPI_Rput / MPI_Rget / MPI_Raccumulate /
 * MPI_Rget_accumulate, but the returned request completes only once the
 * operation is complete at the target as well as at the origin, so no
 * MPI_Win_flush is needed before telling the target (Listing 6).  Passive
 * target epoch required, as for the R* operations.
 * MPIX_Rrget is included so the family covers all four R* operations;
 * a completed MPI_Rget is already complete at the target, so it behaves
 * like MPI_Rget.
 */
/* feature MPIX_HAVE_RR_RMA */
int MPIX_Rrput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPIX_Rrput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPIX_Rrget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPIX_Rrget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPIX_Rraccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int PMPIX_Rraccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int MPIX_Rrget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int PMPIX_Rrget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);

/* The three spellings printed in [RMA] sec. 5.2 / Listing 6. */
int MPI_Rrput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPI_Rrput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rraccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int PMPI_Rraccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int MPI_Rrget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int PMPI_Rrget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);

/* ===================================================================== */
/* 4. Partitioned communication  [PA]                                     */
/* ===================================================================== */
/*
 * MPI_Psend_init, MPI_Precv_init, MPI_Pready, MPI_Pready_range,
 * MPI_Pready_list and MPI_Parrived are standard (MPI-4.0) and live in
 * mpi.h.  [PA] adds no functions; it adds a choice of how user partitions
 * are combined into "transport partitions" (one RDMA write each).  The
 * keys below go into the info argument of MPI_Psend_init (sender side
 * decides the aggregation; the receiver learns it at matching).  The same
 * names in upper case (MPIX_PART_AGGREGATION, ...) as environment
 * variables set the defaults.  Values the fabric cannot honour fall back
 * to no aggregation.
 */

/* Aggregation strategy, one of MPIX_PART_AGGR_* ([PA] sec. IV-B..D). */
#define MPIX_INFO_PART_AGGREGATION "mpix_part_aggregation"
/* One transport partition per user partition. */
#define MPIX_PART_AGGR_NONE "none"
/* Look the transport partition and QP counts up in a tuning table keyed by
 * (user partitions, message size)  ([PA] sec. IV-B). */
#define MPIX_PART_AGGR_TABLE "table"
/* Choose the transport partition count from the PLogGP model
 * ([PA] sec. IV-C). */
#define MPIX_PART_AGGR_PLOGGP "ploggp"
/* PLogGP grouping, plus: the first partition of a group to become ready
 * waits at most delta microseconds for the rest, then sends what has
 * arrived as contiguous runs ([PA] sec. IV-D).  Default strategy. */
#define MPIX_PART_AGGR_TIMER_PLOGGP "timer_ploggp"

/* Integer >= 0: force this many transport partitions (a power of two that
 * divides the user partition count); 0 = let the strategy decide. */
#define MPIX_INFO_PART_TRANSPORT_PARTITIONS "mpix_part_transport_partitions"
/* Integer >= 0: number of queue pairs (or fabric endpoints) to spread the
 * transport partitions over; 0 = let the strategy decide ([PA] sec. IV-A). */
#define MPIX_INFO_PART_NUM_QPS "mpix_part_num_qps"
/* Integer: the delta of the timer-based aggregator, in microseconds
 * ([PA] sec. IV-D, V-C3). */
#define MPIX_INFO_PART_DELTA_USEC "mpix_part_delta_usec"

/* The job-wide defaults, as environment variables: MPIX_PART_AGGREGATION,
 * MPIX_PART_TRANSPORT_PARTITIONS, MPIX_PART_NUM_QPS, MPIX_PART_DELTA_USEC;
 * MPIX_PART_TABLE names a tuning-table file and MPIX_PART_LOGGP a LogGP
 * parameter file (both written by the mpixpart command; the library carries
 * defaults measured on a 2-core node).  MPIX_PART_PLOGGP_DELAY_USEC is the
 * delay the PLogGP model assumes for the late partition (default 4000). */

/* Read-only keys MPIX_Part_get_info adds: what a request uses. */
/* "shm" (written into the peer's memory on this node), "ofi" (RDMA writes
 * with immediate data), "am" (messages the peer's progress copies), "self"
 * or "null". */
#define MPIX_INFO_PART_PATH "mpix_part_path"
/* Transport writes the last completed round issued (send side), or
 * received (receive side). */
#define MPIX_INFO_PART_WRITES "mpix_part_writes"

/* feature MPIX_HAVE_PART_AGGREGATION */
/* The aggregation a partitioned request uses, as an info object the caller
 * frees: the MPIX_INFO_PART_* keys with the values chosen (the sender's
 * choice, on the receive side once matched), MPIX_INFO_PART_PATH and
 * MPIX_INFO_PART_WRITES. */
int MPIX_Part_get_info(MPI_Request request, MPI_Info *info_used);
int PMPIX_Part_get_info(MPI_Request request, MPI_Info *info_used);

/* feature MPIX_HAVE_PBUF_PREPARE */
/* Forum proposal cited in [PA] sec. IV-A (MPI_Pbuf_prepare, mpi-issues
 * #302).  After MPI_Start on a partitioned request, block until the remote
 * side's buffer is ready to accept data, so that later MPI_Pready calls
 * never wait for connection setup.  Called by the sender or the receiver. */
int MPIX_Pbuf_prepare(MPI_Request request);
int PMPIX_Pbuf_prepare(MPI_Request request);
/* MPIX_Pbuf_prepare for each of count partitioned requests. */
int MPIX_Pbuf_prepareall(int count, MPI_Request array_of_requests[]);
int PMPIX_Pbuf_prepareall(int count, MPI_Request array_of_requests[]);

#if defined(__cplusplus)
}
#endif

#endif /* MPIX_H_INCLUDED */
