/* One-sided communication's C data plane as the rest of the library sees it: the
 * window state Go publishes for C (mpix_rma_win), and the fast paths capi dispatches
 * to (MPIX_FAST_MISS: the call goes to Go, which handles every case, errors included). */
#ifndef MPIX_RMA_H
#define MPIX_RMA_H

#include <stdint.h>
#include "mpi.h"

/* One rank of a window as this process reaches it by loads and stores. mem is NULL
 * when it does not (process_vm_writev, active messages, dynamic windows): the call
 * goes to Go. state is the rank's state page (rma/state.go): the accumulate lock is
 * the uint32 at MPIX_RMA_ACC_LOCK. */
/* A dynamic window's MPI_Alloc_mem block of a peer that this process maps: its
 * serial (rma/shareable.go) and where it is here. */
typedef struct mpix_rma_block {
    uint64_t serial;
    char *local;
} mpix_rma_block;

#define MPIX_RMA_MAX_BLOCKS 16

typedef struct mpix_rma_peer {
    char *mem;
    int64_t size;
    int64_t disp_unit;
    char *state;
    uint32_t access;  /* atomic: MPIX_RMA_LOCKED | MPIX_RMA_STARTED, the epochs covering this rank */
    uint32_t nblocks; /* atomic: blocks published (dynamic windows) */
    int32_t self;     /* this process: a dynamic window's addresses are its own */
    int32_t sync;     /* operations complete in the call (no active messages): a flush is a fence */
    int32_t atomics;  /* shareable memory: accumulates use CPU atomics where they can (rma/atomic.go) */
    int32_t pad;
    mpix_rma_block blocks[MPIX_RMA_MAX_BLOCKS];
} mpix_rma_peer;

/* A window's C state, in C memory, written by Go (rma/cstate.go) under the window's
 * lock; C reads the flags atomically. */
typedef struct mpix_rma_win {
    int32_t nranks;
    uint32_t all;     /* atomic: a fence or lock_all epoch covers every rank */
    uint32_t passive; /* atomic: lock_all is open (flushes of any rank are legal) */
    uint32_t direct;  /* every rank's sync is set: MPI_Win_flush_all is a fence */
    uint32_t dynamic; /* MPI_Win_create_dynamic: addresses, checked against the state page */
    uint32_t netacc;  /* accumulates go through the transport's atomics (rma/netatomic.go): Go */
    mpix_rma_peer *peers;
} mpix_rma_win;

/* One handle of a window (rma/cstate.go): a window's handles (its duplicates, its
 * memory-handle windows) share its mpix_rma_win and differ in their flags. A
 * memory-handle window reaches one region of one rank: mh_rank (-1 on other handles),
 * mapped here at mh_mem when this process maps it (else NULL: Go), as long as the
 * rank's region table has not changed since Go checked the handle against it (the
 * generation word at mh_gen still reads mh_seen). */
typedef struct mpix_rma_view {
    mpix_rma_win *w;
    uint32_t flags;   /* MPIX_RMA_ORDERED | MPIX_RMA_INTRINSIC */
    int32_t mh_rank;
    char *mh_mem;
    int64_t mh_size;  /* bytes the window reaches, from mh_mem */
    int64_t mh_disp_unit;
    int32_t mh_atomics;
    int32_t pad;
    const uint64_t *mh_gen;
    uint64_t mh_seen; /* atomic: Go rewrites it when it checks the handle again */
} mpix_rma_view;

#define MPIX_RMA_ORDERED 1u   /* mpi_win_order=true */
#define MPIX_RMA_INTRINSIC 2u /* mpi_assert_accumulate_intrinsic=true: no locked accumulates */

#ifndef MPIX_FAST_MISS
#define MPIX_FAST_MISS (-1)
#endif

/* The state page (rma/state.go). */
#define MPIX_RMA_ACC_LOCK 64
#define MPIX_RMA_REGION_GEN 128
#define MPIX_RMA_REGION_N 136
#define MPIX_RMA_REGIONS 256
#define MPIX_RMA_REGION_LEN 64
#define MPIX_RMA_REGIONS_END 8192
#define MPIX_RMA_LOCKED 1u  /* MPI_Win_lock holds the rank */
#define MPIX_RMA_STARTED 2u /* the rank is in MPI_Win_start's group */
#define MPIX_RMA_MAX_WINS 4096

/* The window handles by index (handle & 0x03ffffff), NULL where C does not serve it. */
extern mpix_rma_view *mpix_rma_views[MPIX_RMA_MAX_WINS];

int mpix_rma_fast_put(const void *origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp, int tcount,
                      MPI_Datatype ttype, MPI_Win win);
int mpix_rma_fast_get(void *origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp, int tcount,
                      MPI_Datatype ttype, MPI_Win win);
int mpix_rma_fast_accumulate(const void *origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                             int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win);
int mpix_rma_fast_get_accumulate(const void *origin, int ocount, MPI_Datatype otype, void *result, int rcount,
                                 MPI_Datatype rtype, int rank, MPI_Aint disp, int tcount, MPI_Datatype ttype,
                                 MPI_Op op, MPI_Win win);
int mpix_rma_fast_fetch_and_op(const void *origin, void *result, MPI_Datatype dt, int rank, MPI_Aint disp,
                               MPI_Op op, MPI_Win win);
int mpix_rma_fast_compare_and_swap(const void *origin, const void *compare, void *result, MPI_Datatype dt,
                                   int rank, MPI_Aint disp, MPI_Win win);
int mpix_rma_fast_flush(int rank, MPI_Win win);
int mpix_rma_fast_flush_all(MPI_Win win);

#endif
