/* The thread communicator's C data plane as the rest of the library sees it: the
 * per-thread state, the activation's head that Go reads, the entries Go's path calls
 * and the C fast paths capi dispatches to (MPIX_FAST_MISS: the call goes to Go). */
#ifndef MPIX_THREADCOMM_H
#define MPIX_THREADCOMM_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

/* Thread-local state uses the initial-exec model: the general one costs a
 * __tls_get_addr call per access, and the library needs static TLS anyway (Go's
 * runtime does). */
#ifndef MPIX_TLS
#define MPIX_TLS __thread __attribute__((tls_model("initial-exec")))
#endif

/* mpix_tc_self is one OS thread's place in thread communicators. It lives in C
 * thread-local storage (Go has none); capi's thread context points at it, so that Go
 * reads it through the context the shim passes down. */
typedef struct mpix_tc_self {
    uint64_t key;   /* activation key of the active threadcomm, 0 if none */
    int32_t thread; /* thread index in it, -1 if none */
    /* The seat this thread takes in reductions. It stays after the finish, with the
     * activation it belongs to (seat_act), so that the next region gives the thread
     * the same seat, and the same slice of each result, whatever its rank then: its
     * slice stays in its own cache. */
    int32_t seat;
    void *act;         /* mpix_tc_act * when its threads' messages run in C */
    MPI_Comm handle;   /* the handle of that threadcomm */
    void *seat_act;
} mpix_tc_self;

extern MPIX_TLS mpix_tc_self mpix_tc_tls;

/* mpix_omp_team_size is the size of the calling thread's OpenMP team, or -1 outside
 * one or without an OpenMP runtime (omp.c). */
int mpix_omp_team_size(void);

/* The C state of a threadcomm whose ranks are all threads of this process: its
 * threads' queues and barrier, made at its first MPIX_Threadcomm_start (through Go)
 * and kept until MPIX_Threadcomm_free, so that later regions start and finish in C. */
typedef struct mpix_tc_act mpix_tc_act;

/* The head of mpix_tc_act, which Go reads (threadcomm/cstate.go). */
typedef struct mpix_tc_team {
    uint32_t state; /* MPIX_TC_* (atomic) */
    uint32_t dirty; /* atomic: Go resolved the threadcomm during the region */
    uint64_t key;   /* Go's activation key, which C starts reuse */
} mpix_tc_team;

/* MPIX_TC_GO: Go's activation state is authoritative (none yet, or Go is finishing
 * it): the next start goes through Go. MPIX_TC_ACTIVE: a region that Go started is
 * running. MPIX_TC_PARKED: Go's activation (views, key) is kept for starts that C
 * makes without entering Go, and a region C started may be running on it
 * (mpix_tc_act_running; a thread in it has the activation in its context). */
#define MPIX_TC_GO 0u
#define MPIX_TC_ACTIVE 1u
#define MPIX_TC_PARKED 2u

/* mpix_tc_act_new makes the state of a threadcomm with n threads here, ranks
 * base..base+n-1 of ranks (ranks > n: it spans processes). */
mpix_tc_act *mpix_tc_act_new(int n, MPI_Comm handle, int base, int ranks);
/* mpix_tc_teams counts the threadcomm states mpix_tc_act_new made: [0] reducing
 * through the shared counter, [1] through per-thread seats (MPI_T performance
 * variable mpix_threadcomm_c_teams), so that tests see which path ran. */
extern uint64_t mpix_tc_teams[2];
/* mpix_tc_act_activate marks a region that Go started with activation key. */
void mpix_tc_act_activate(mpix_tc_act *a, uint64_t key);
/* mpix_tc_act_running says whether a region runs on a (started in C or in Go). */
int mpix_tc_act_running(mpix_tc_act *a);
/* mpix_tc_act_free forgets the threadcomm (MPIX_Threadcomm_free, never while active). */
void mpix_tc_act_free(mpix_tc_act *a);

/* Messages from other processes' threads (Go's engine, core.RemoteSink). */
int mpix_tc_push_eager(mpix_tc_act *a, int thread, int src, int tag, const void *data, int64_t n);
void mpix_tc_push_msg(mpix_tc_act *a, int thread, int src, int tag, int64_t size, int32_t msg);
void mpix_tc_purge(mpix_tc_act *a);
void mpix_tc_settle(mpix_tc_act *a);
/* For Go's waits: the calling thread takes its threadcomm messages (1: it has receives
 * posted, and must not sleep). */
int mpix_tc_idle(void);

/* For the Go path (packed bytes) and the fast paths of MPI_Send and MPI_Recv. */
int mpix_tc_send_bytes(MPI_Comm comm, const void *buf, int64_t n, int dest, int tag, int sync);
int mpix_tc_recv_bytes(MPI_Comm comm, void *buf, int64_t cap, int src, int tag, MPI_Status *st);
int mpix_tc_probe(MPI_Comm comm, int src, int tag, int block, MPI_Status *st);
int mpix_tc_irecv_packed(MPI_Comm comm, void *buf, int64_t cap, int source, int tag, uint32_t unpack,
                         int32_t partner, MPI_Request *request);
int mpix_tc_fast_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int sync);
int mpix_tc_fast_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *st);

/* C request handles, for Go's Wait/Test family. */
int mpix_tc_is_request(MPI_Request h);
int mpix_tc_request_complete(MPI_Request *h, int block, int *flag, MPI_Status *st);
int mpix_tc_request_state(MPI_Request h, int force);
int mpix_tc_startable(MPI_Request h);
int mpix_tc_start_request(MPI_Request h);
int mpix_tc_cancel(MPI_Request h);
int mpix_tc_recv_init_packed(MPI_Comm comm, void *buf, int64_t cap, int source, int tag, uint32_t unpack,
                             MPI_Request *request);
int mpix_tc_isend_packed(MPI_Comm comm, const void *buf, int64_t n, int dest, int tag, int mode, uint32_t packed,
                         int persistent, MPI_Request *request);
int mpix_tc_request_peek(MPI_Request h, MPI_Status *st);
int mpix_tc_mrecv_packed(MPI_Message *m, void *buf, int64_t cap, uint32_t unpack, MPI_Request *request);

/* Threadcomm traffic between the threads of one process (this package): these answer
 * MPIX_FAST_MISS for anything else. MPI_Isend, MPI_Wait, MPI_Test and MPI_Waitall
 * (capi/dispatch.c) try the threadcomm forms first, then shm's; the others are the
 * shim's fast paths themselves (capi/gen/fastpaths.txt). */
int mpix_tc_fast_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request);
int mpix_tc_fast_Wait(MPI_Request *request, MPI_Status *status);
int mpix_tc_fast_Test(MPI_Request *request, int *flag, MPI_Status *status);
int mpix_tc_fast_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int mpix_fast_MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int mpix_fast_MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
int mpix_fast_MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
int mpix_fast_MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int mpix_fast_MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int mpix_fast_MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int mpix_fast_MPI_Request_free(MPI_Request *request);
int mpix_fast_MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]);
int mpix_fast_MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int mpix_fast_MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
int mpix_fast_MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
int mpix_fast_MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
int mpix_fast_MPI_Start(MPI_Request *request);
int mpix_fast_MPI_Startall(int count, MPI_Request array_of_requests[]);
int mpix_fast_MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
int mpix_fast_MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int mpix_fast_MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
int mpix_fast_MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
int mpix_fast_MPI_Barrier(MPI_Comm comm);
int mpix_fast_MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int mpix_fast_MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int mpix_fast_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int mpix_fast_MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int mpix_fast_MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int mpix_fast_MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int mpix_fast_MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int mpix_fast_MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int mpix_fast_MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int mpix_fast_MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int mpix_fast_MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int mpix_fast_MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int mpix_fast_MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int mpix_fast_MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int mpix_fast_MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* Threadcomm region entry and exit, and rank and size, in C (region.c): a
 * single-process threadcomm whose previous region ended in C starts and finishes
 * without entering Go; the first start, a region that used Go, and every misuse
 * answer MPIX_FAST_MISS and go to Go. */
int mpix_fast_MPIX_Threadcomm_start(MPI_Comm threadcomm);
int mpix_fast_MPI_Threadcomm_start(MPI_Comm threadcomm);
int mpix_fast_MPIX_Threadcomm_finish(MPI_Comm threadcomm);
int mpix_fast_MPI_Threadcomm_finish(MPI_Comm threadcomm);
int mpix_tc_fast_comm_rank(MPI_Comm comm, int *rank);
int mpix_tc_fast_comm_size(MPI_Comm comm, int *size);

#endif
