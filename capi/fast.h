/* The C fast paths the generated shim tries before it enters Go.
 *
 * Entering Go costs about 220 ns per call (docs/performance.md), more than MPICH's whole
 * 8-byte latency. So the calls below first try C: the threadcomm data plane
 * (tcfast.c) for a thread communicator's traffic, then shm's fastboxes and lite
 * requests (shm/fastabi.h) for small contiguous messages between processes of one
 * node. Each answers MPIX_FAST_MISS for what it does not handle, and the call goes to
 * Go as before.
 *
 * The generator (capi/gen) wraps every procedure declared here as
 * `int mpix_fast_<name>(<the procedure's parameters>)`: PMPI_<name> calls it first.
 * dispatch.c defines the entries that more than one data plane serves; tcfast.c the
 * threadcomm-only ones. */
#ifndef MPIX_FAST_H
#define MPIX_FAST_H

#include "mpi.h"
#include "fastabi.h"

int mpix_fast_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int mpix_fast_MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request);
int mpix_fast_MPI_Wait(MPI_Request *request, MPI_Status *status);
int mpix_fast_MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int mpix_fast_MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int mpix_fast_MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);

/* Threadcomm traffic between the threads of one process (tcfast.c): these answer
 * MPIX_FAST_MISS for anything else. MPI_Isend, MPI_Wait, MPI_Test and MPI_Waitall
 * (dispatch.c) try the threadcomm forms first, then shm's. */
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
