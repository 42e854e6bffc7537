/* Threadcomm messages between the threads of one process (tcfast.c). */
#ifndef MPIX_TCFAST_H
#define MPIX_TCFAST_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

/* One activation of a threadcomm whose ranks are all threads of this process. */
typedef struct mpix_tc_act mpix_tc_act;

mpix_tc_act *mpix_tc_act_new(int n, MPI_Comm handle);
void mpix_tc_act_leave(mpix_tc_act *a);
size_t mpix_tc_pending(mpix_tc_act *a, int me);

/* For the Go path (packed bytes) and the fast paths of MPI_Send and MPI_Recv. */
int mpix_tc_send_bytes(MPI_Comm comm, const void *buf, int64_t n, int dest, int tag, int sync);
int mpix_tc_recv_bytes(MPI_Comm comm, void *buf, int64_t cap, int src, int tag, MPI_Status *st);
int mpix_tc_probe(MPI_Comm comm, int src, int tag, int block, MPI_Status *st);
int mpix_tc_fast_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int sync);
int mpix_tc_fast_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *st);

/* C request handles, for Go's Wait/Test family. */
int mpix_tc_is_request(MPI_Request h);
int mpix_tc_request_complete(MPI_Request *h, int block, int *flag, MPI_Status *st);

#endif
