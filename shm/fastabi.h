/* The layouts the shared-memory transport shares with C fast paths: the communicator
 * table core publishes, shm's FastView of an endpoint (fastview.go), the wire header
 * (transport.Header), fastboxes and cells (region.go), and the lite requests of C's
 * nonblocking path (lite.c; core/fastlite.go takes them over). layout.go checks at
 * start-up that C and Go agree.
 *
 * The C here (fast.c, lite.c) runs MPI_Send, MPI_Recv, MPI_Irecv and the waits on them
 * for small contiguous messages between processes of one node, on the same fastboxes
 * and queues and under the same VCI lock as the Go engine, because entering Go costs
 * more than MPICH's whole 8-byte latency; anything else (a busy fastbox, a wildcard
 * source, a receive Go already holds, a derived type, an error to report) answers
 * MPIX_FAST_MISS and the call goes to Go. capi's dispatcher calls the entries at the
 * end of this header. */
#ifndef MPIX_SHM_FASTABI_H
#define MPIX_SHM_FASTABI_H

#include <stdint.h>
#include "mpi.h"
#include "vci.h"
#include "handles.h"

#define MPIX_FAST_MISS (-1)

/* core.commShared: a communicator as the fast path sees it. */
typedef struct mpix_comm_shared {
    uint32_t live;
    uint32_t ctx;
    uint32_t send_ctx;
    int32_t rank;
    int32_t size;
    int32_t inter;   /* an intercommunicator: MPI_Comm_size is not size */
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
    int32_t waiters; /* threads spinning in a wait (core.fastHeader.Waiters) */
    int32_t cores;   /* cores the process has to itself */
    int32_t seats;   /* MPIX_THREADCOMM_SEATS */
    char pad1[52];
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
    /* The queues (shm/region.go's layout), for lite.c's cell path. */
    uintptr_t free_head; /* uint64_t *: this rank's free ring's consumer head (Go's) */
    uintptr_t regions;   /* uintptr_t[nlocal]: region base by local index, 0 until mapped */
    uint64_t cell_size;  /* payload capacity of a cell */
    uint64_t stride;     /* bytes per cell */
    uint64_t ncells;
    uint64_t recv_off, free_off, cells_off;
    uint64_t recv_mask, free_mask;
} mpix_shm_view;

/* In a region: the rings' shared tails, and a cell's head (shm/region.go). */
#define MPIX_SHM_RECV_TAIL 128
#define MPIX_SHM_FREE_TAIL 192
typedef struct mpix_ring_slot {
    uint64_t seq;
    uint64_t val;
} mpix_ring_slot;


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

typedef struct mpix_cell_head {
    mpix_wire_header hdr;
    uint32_t len;
    uint32_t pad0;
    uint64_t seq;
} mpix_cell_head;

#define MPIX_KIND_EAGER 1

/* A fastbox in shared memory; the payload follows at byte 64. */
typedef struct mpix_fastbox {
    uint64_t flag; /* 0 empty, else the message's sequence number + 1 */
    uint32_t len;
    uint32_t pad0;
    mpix_wire_header hdr;
} mpix_fastbox;

/* Lite requests: MPI_Irecv and MPI_Isend handled in C (lite.c). A VCI's C-side
 * receive queue holds receives posted while the Go side of the VCI was idle; Go takes
 * them over (core/fastlite.go absorbLite) before it matches any message on the VCI,
 * so they always come first in posting order. Their handles: core/handles.h. */
#define MPIX_LITE_SLOTS 1024
#define MPIX_LITE_VCIS 8192

enum { MPIX_LREQ_FREE, MPIX_LREQ_POSTED, MPIX_LREQ_DONE, MPIX_LREQ_GO };

typedef struct mpix_lreq {
    uint32_t state;    /* MPIX_LREQ_*: written under the VCI lock, read by waiters */
    uint32_t next;     /* posted list or free stack: slot + 1, 0 ends it */
    int32_t go_handle; /* MPIX_LREQ_GO: the Go request that serves the handle now */
    uint32_t ctx;      /* the receive's context */
    int32_t source;    /* its communicator rank */
    int32_t src_world; /* the source's world rank (what headers carry) */
    int32_t tag;       /* or MPI_ANY_TAG */
    int32_t count;
    MPI_Comm comm;
    MPI_Datatype dtype;
    uintptr_t buf;
    int64_t capacity; /* bytes */
    int64_t st_bytes; /* MPIX_LREQ_DONE: the received message */
    int32_t st_tag;
    int32_t pad0;
} mpix_lreq;

typedef struct mpix_vci_lite {
    uint32_t posted_head, posted_tail; /* slot + 1 */
    uint32_t free_head;                /* slots to reuse, under the VCI lock */
    uint32_t returned;                 /* slots freed without the lock (a CAS stack) */
    uint32_t used;                     /* slots handed out at least once */
    uint32_t index;                    /* the VCI's index */
    uintptr_t vci;                     /* its mpix_vci_shared * */
    char pad[32];
    mpix_lreq req[MPIX_LITE_SLOTS];
} mpix_vci_lite;

/* lite.c: the C nonblocking path. */
int mpix_lite_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request *request);
int mpix_lite_self_send(mpix_comm_shared *c, const void *buf, int64_t n, int tag);
int mpix_lite_Wait(MPI_Request *request, MPI_Status *status);
int mpix_lite_Test(MPI_Request *request, int *flag, MPI_Status *status);
int mpix_lite_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
/* mpix_lite_cell_send queues a message in a cell for local peer li (under the VCI
 * lock, Go's send queue empty): 1 sent, 0 not (no free cell, too large). */
int mpix_lite_cell_send(const mpix_shm_view *sv, int li, const mpix_wire_header *h, const void *buf, int64_t n);

/* Set once at start-up (shm.EnableFastPath), after the layout check. */
extern mpix_fast_header *mpix_fast_table;
extern uint32_t mpix_fast_dtsize[256]; /* bytes of builtin datatype (handle & 0xff), 0: not eligible */
extern MPI_Datatype mpix_fast_dthandle[256];


/* The fast paths, each answering MPIX_FAST_MISS for what it does not handle:
 * mpix_shm_fast_send is MPI_Send (and MPI_Isend, whose request is then
 * MPIX_REQUEST_COMPLETED_SEND) into a fastbox or a cell; Wait, Test and Waitall finish
 * completed sends, nulls and lite requests. */
int mpix_shm_fast_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

/* mpix_shm_fast_comm_rank and _size answer MPI_Comm_rank and MPI_Comm_size from a
 * communicator's descriptor (an intercommunicator's size is Go's), or MPIX_FAST_MISS. */
int mpix_shm_fast_comm_rank(MPI_Comm comm, int *rank);
int mpix_shm_fast_comm_size(MPI_Comm comm, int *size);
int mpix_shm_fast_Wait(MPI_Request *request, MPI_Status *status);
int mpix_shm_fast_Test(MPI_Request *request, int *flag, MPI_Status *status);
int mpix_shm_fast_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);

/* mpix_shm_fast_recv is MPI_Recv: MPIX_FAST_MISS when nothing was posted,
 * MPIX_SHM_POSTED when C posted the receive as lite request *posted but cannot finish
 * it (the caller waits for it in Go, which takes it over), else the call's result. */
#define MPIX_SHM_POSTED (-3)
int mpix_shm_fast_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status, MPI_Request *posted);

/* mpix_shm_progress_from, set by the library before it enables the table, makes a
 * round of Go's progress for a C wait on VCI vci that has spun its limit (Go's rule
 * for global progress). shm's C calls nothing outside shm, so that the package links
 * on its own. */
extern void (*mpix_shm_progress_from)(uint32_t vci);

#endif
