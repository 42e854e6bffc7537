/* The C fast paths of point-to-point messaging.
 *
 * Entering Go costs about 220 ns per call (docs/performance.md), more than MPICH's whole
 * 8-byte latency. So MPI_Send and MPI_Recv of small contiguous messages between
 * processes of one node run here, in C, on the same shared-memory fastboxes and under
 * the same VCI lock as the Go engine; anything else (a busy fastbox, a wildcard source,
 * a receive Go already holds, a derived type, an error to report) returns
 * MPIX_FAST_MISS and the call goes to Go as before.
 *
 * The generator (capi/gen) wraps every procedure declared here as
 * `int mpix_fast_<name>(<the procedure's parameters>)`: PMPI_<name> calls it first.
 *
 * The structures mirror Go types (core/fastabi.go, shm/fastview.go, transport.Header);
 * capi/fast.go checks at load time that the layouts agree. */
#ifndef MPIX_FAST_H
#define MPIX_FAST_H

#include <stdint.h>
#include "mpi.h"

#define MPIX_FAST_MISS (-1)

/* core.vciShared: a VCI's lock and what the Go side holds. */
typedef struct mpix_vci_shared {
    uint32_t lock;       /* 0 free, 1 held, 2 held with sleepers (futex) */
    uint32_t idle;       /* MPIX_IDLE_* bits, written under lock */
    uint64_t locks;      /* acquisitions, counted under lock */
    uint32_t spin_limit; /* empty polls before a C wait hands over to Go */
    uint32_t owned;      /* 1: a single-thread communicator owns the VCI: no lock */
    uintptr_t shm;       /* mpix_shm_view *, or 0 */
    uint64_t fast_msgs;  /* messages sent or received here without Go, under lock */
    char pad1[24];
} mpix_vci_shared;

#define MPIX_IDLE_RECV 1u /* no receive posted and no unmatched message in Go */
#define MPIX_IDLE_SEND 2u /* no send queued in Go */

/* core.commShared: a communicator as the fast path sees it. */
typedef struct mpix_comm_shared {
    uint32_t live;
    uint32_t ctx;
    uint32_t send_ctx;
    int32_t rank;
    int32_t size;
    int32_t pad0;
    uintptr_t vci;   /* mpix_vci_shared * */
    uintptr_t peers; /* int32_t[size] world ranks, or 0 for the identity */
    char pad1[24];
} mpix_comm_shared;

/* core.fastHeader: starts the table; MPI_COMM_WORLD's, MPI_COMM_SELF's and then one
 * descriptor per user communicator index follow it. */
typedef struct mpix_fast_header {
    uint32_t enabled;
    uint32_t max;
    char pad[56];
} mpix_fast_header;

/* shm.FastView. */
typedef struct mpix_shm_view {
    uint32_t nlocal;
    uint32_t me;
    int32_t fbcap;
    int32_t min_rank;
    int32_t span;
    int32_t world;
    uintptr_t local_of; /* int32_t[span] */
    uintptr_t send_seq; /* uint64_t[nlocal] */
    uintptr_t recv_seq; /* uint64_t[nlocal] */
    uintptr_t pending;  /* uint8_t[nlocal] */
    uintptr_t fb_out;   /* uintptr_t[nlocal] */
    uintptr_t fb_in;    /* uintptr_t[nlocal] */
    uintptr_t recv_head; /* uint64_t *: the receive queue's consumer head (Go's) */
    uintptr_t recv_tail; /* uint64_t *: its tail in shared memory, 0 until mapped */
} mpix_shm_view;

/* transport.Header, 48 bytes. */
typedef struct mpix_wire_header {
    uint8_t kind;
    uint8_t flags;
    uint16_t pad0;
    int32_t src;
    int32_t tag;
    uint32_t context;
    int64_t size;
    uint64_t send_req;
    uint64_t recv_req;
    int64_t offset;
} mpix_wire_header;

#define MPIX_KIND_EAGER 1

/* A fastbox in shared memory; the payload follows at byte 64. */
typedef struct mpix_fastbox {
    uint64_t flag; /* 0 empty, else the message's sequence number + 1 */
    uint32_t len;
    uint32_t pad0;
    mpix_wire_header hdr;
} mpix_fastbox;

/* Set once by capi/fast.go. */
extern mpix_fast_header *mpix_fast_table;
extern uint32_t mpix_fast_dtsize[256]; /* bytes of builtin datatype (handle & 0xff), 0: not eligible */
extern MPI_Datatype mpix_fast_dthandle[256];

/* The pre-completed lightweight request (core.CompletedSend): what MPI_Isend returns
 * for a send that completed at once. */
#define MPIX_REQUEST_COMPLETED_SEND ((MPI_Request)0x6c000001)

int mpix_fast_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int mpix_fast_MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request);
int mpix_fast_MPI_Wait(MPI_Request *request, MPI_Status *status);
int mpix_fast_MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int mpix_fast_MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int mpix_fast_MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);

/* Threadcomm traffic between the threads of one process (tcfast.c): these answer
 * MPIX_FAST_MISS for anything else. MPI_Isend, MPI_Wait, MPI_Test and MPI_Waitall
 * (fast.c) try the threadcomm forms first. */
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

/* The VCI lock, shared with Go's vciShared.lock. */
void mpix_vci_lock(mpix_vci_shared *v);
void mpix_vci_unlock(mpix_vci_shared *v);

/* Layout facts for capi/fast.go's check. */
size_t mpix_fast_layout(int what);

/* Threadcomm region entry and exit, and rank and size, in C (tcfast.c): a
 * single-process threadcomm whose previous region ended in C starts and finishes
 * without entering Go; the first start, a region that used Go, and every misuse
 * answer MPIX_FAST_MISS and go to Go. */
int mpix_fast_MPIX_Threadcomm_start(MPI_Comm threadcomm);
int mpix_fast_MPI_Threadcomm_start(MPI_Comm threadcomm);
int mpix_fast_MPIX_Threadcomm_finish(MPI_Comm threadcomm);
int mpix_fast_MPI_Threadcomm_finish(MPI_Comm threadcomm);
int mpix_fast_MPI_Comm_rank(MPI_Comm comm, int *rank);
int mpix_fast_MPI_Comm_size(MPI_Comm comm, int *size);

#endif
