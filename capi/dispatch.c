/* The shim's fast paths (zfast.h) that more than one C data plane serves: each tries
 * the threadcomm path (threadcomm/), then shm's (shm/fast.c), and answers MPIX_FAST_MISS when
 * neither takes the call. */
#include "capi.h"
#include "zfast.h"
#include "fastabi.h"
#include "threadcomm.h"
#include "_cgo_export.h"

/* A fast path that enters Go leaves fault.c's marker off meanwhile: a fault in Go
 * is Go's to report (capi/errors.go). */
static void progress_from(uint32_t vci)
{
    const char *call = mpix_fast_call;
    mpix_fast_call = NULL;
    mpixGoProgressFrom(vci);
    mpix_fast_call = call;
}

/* mpix_dispatch_init gives shm's C waits their way into Go's progress. */
void mpix_dispatch_init(void) { mpix_shm_progress_from = progress_from; }

/* send_now is MPI_Send of a message either data plane can complete at once. */
static int send_now(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    int rc = mpix_tc_fast_send(buf, count, datatype, dest, tag, comm, 0);
    return rc != MPIX_FAST_MISS ? rc : mpix_shm_fast_send(buf, count, datatype, dest, tag, comm);
}

int mpix_fast_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_now(buf, count, datatype, dest, tag, comm);
}

/* A send that completes at once needs no request of its own: its handle is the
 * pre-completed lightweight one, which no table holds and nobody frees. */
int mpix_fast_MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
    if (request == NULL)
        return MPIX_FAST_MISS; /* Go reports the error */
    int rc = mpix_tc_fast_Isend(buf, count, datatype, dest, tag, comm, request);
    if (rc != MPIX_FAST_MISS)
        return rc;
    rc = send_now(buf, count, datatype, dest, tag, comm);
    if (rc == MPI_SUCCESS)
        *request = MPIX_REQUEST_COMPLETED_SEND;
    return rc;
}

int mpix_fast_MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int rc = mpix_tc_fast_Wait(request, status);
    return rc != MPIX_FAST_MISS ? rc : mpix_shm_fast_Wait(request, status);
}

int mpix_fast_MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int rc = mpix_tc_fast_Test(request, flag, status);
    return rc != MPIX_FAST_MISS ? rc : mpix_shm_fast_Test(request, flag, status);
}

int mpix_fast_MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int rc = mpix_tc_fast_Waitall(count, array_of_requests, array_of_statuses);
    return rc != MPIX_FAST_MISS ? rc : mpix_shm_fast_Waitall(count, array_of_requests, array_of_statuses);
}

/* A receive shm posted in C but cannot finish there is waited for in Go, which takes
 * it over by its handle. */
int mpix_fast_MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status)
{
    int rc = mpix_tc_fast_recv(buf, count, datatype, source, tag, comm, status);
    if (rc != MPIX_FAST_MISS)
        return rc;
    MPI_Request posted;
    rc = mpix_shm_fast_recv(buf, count, datatype, source, tag, comm, status, &posted);
    if (rc != MPIX_SHM_POSTED)
        return rc;
    rc = mpix_fast_MPI_Wait(&posted, status);
    if (rc != MPIX_FAST_MISS)
        return rc;
    const char *call = mpix_fast_call;
    mpix_fast_call = NULL;
    rc = mpixgo_recv_wait(mpix_ctx_get(), comm, &posted, status);
    mpix_fast_call = call;
    return rc;
}

/* MPI_Comm_rank and MPI_Comm_size: a threadcomm's rank is the calling thread's (its
 * activation), any other communicator's is in its descriptor. */
int mpix_fast_MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int rc = mpix_tc_fast_comm_rank(comm, rank);
    return rc != MPIX_FAST_MISS ? rc : mpix_shm_fast_comm_rank(comm, rank);
}

int mpix_fast_MPI_Comm_size(MPI_Comm comm, int *size)
{
    int rc = mpix_tc_fast_comm_size(comm, size);
    return rc != MPIX_FAST_MISS ? rc : mpix_shm_fast_comm_size(comm, size);
}
