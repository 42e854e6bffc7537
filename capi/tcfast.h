/* Threadcomm messages between the threads of one process (tcfast.c). */
#ifndef MPIX_TCFAST_H
#define MPIX_TCFAST_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

/* The C state of a threadcomm whose ranks are all threads of this process: its
 * threads' queues and barrier, made at its first MPIX_Threadcomm_start (through Go)
 * and kept until MPIX_Threadcomm_free, so that later regions start and finish in C. */
typedef struct mpix_tc_act mpix_tc_act;

/* The head of mpix_tc_act, which Go reads (capi/threadcomm.go). */
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

#endif
