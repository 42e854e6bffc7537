/* The C fast paths of MPI_Send and MPI_Recv over fastboxes (see fastabi.h for when
 * they apply), and the waits on requests they complete at once. */
#define _GNU_SOURCE
#include <string.h>
#include "fastint.h"

mpix_fast_header *mpix_fast_table;
uint32_t mpix_fast_dtsize[256];
MPI_Datatype mpix_fast_dthandle[256];

/* mpix_shm_fast_send copies a small message into the destination's fastbox, or into a cell
 * of the queue when the fastbox is busy (MPI_Send and MPI_Isend: either way the send
 * is complete when it returns). */
int mpix_shm_fast_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    mpix_comm_shared *c = fast_comm(comm);
    uint32_t esz = dt_size(datatype);
    if (c == NULL || esz == 0 || count < 0 || tag < 0 || dest < 0 || dest >= c->size)
        return MPIX_FAST_MISS;
    mpix_vci_shared *v = (mpix_vci_shared *)c->vci;
    const mpix_shm_view *sv = (const mpix_shm_view *)v->shm;
    int64_t n = (int64_t)count * esz;
    if (sv == NULL)
        return MPIX_FAST_MISS;
    if (world_of(c, dest) == sv->world)
        return mpix_lite_self_send(c, buf, n, tag);
    int li = peer_index(c, sv, dest);
    if (li < 0 || (n > sv->fbcap && (uint64_t)n > sv->cell_size))
        return MPIX_FAST_MISS;
    mpix_fastbox *fb = (mpix_fastbox *)((const uintptr_t *)sv->fb_out)[li];
    int locked = enter(v);
    /* Messages Go queued for the transports go first. */
    if (!(v->idle & MPIX_IDLE_SEND)) {
        leave(v, locked);
        return MPIX_FAST_MISS;
    }
    mpix_wire_header h = {.kind = MPIX_KIND_EAGER, .src = sv->world, .tag = tag, .context = c->send_ctx, .size = n};
    if (fb != NULL && n <= sv->fbcap && __atomic_load_n(&fb->flag, __ATOMIC_ACQUIRE) == 0) {
        fb->len = (uint32_t)n;
        fb->hdr = h;
        if (n > 0)
            memcpy((char *)fb + sizeof *fb, buf, (size_t)n);
        uint64_t *seq = (uint64_t *)sv->send_seq + li;
        uint64_t k = *seq;
        *seq = k + 1;
        __atomic_store_n(&fb->flag, k + 1, __ATOMIC_RELEASE); /* publish */
    } else if (!mpix_lite_cell_send(sv, li, &h, buf, n)) {
        /* The fastbox is busy and no cell is free: Go queues the message. */
        leave(v, locked);
        return MPIX_FAST_MISS;
    }
    v->fast_msgs++;
    leave(v, locked);
    return MPI_SUCCESS;
}

static inline int trivially_done(MPI_Request r)
{
    return r == MPIX_REQUEST_COMPLETED_SEND || r == MPI_REQUEST_NULL;
}

int mpix_shm_fast_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!fast_enabled() || request == NULL)
        return MPIX_FAST_MISS;
    if (!trivially_done(*request))
        return mpix_lite_Wait(request, status);
    *request = MPI_REQUEST_NULL;
    if (status != NULL && status != MPI_STATUS_IGNORE)
        empty_status(status);
    return MPI_SUCCESS;
}

int mpix_shm_fast_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!fast_enabled() || request == NULL || flag == NULL)
        return MPIX_FAST_MISS;
    if (!trivially_done(*request))
        return mpix_lite_Test(request, flag, status);
    *request = MPI_REQUEST_NULL;
    *flag = 1;
    if (status != NULL && status != MPI_STATUS_IGNORE)
        empty_status(status);
    return MPI_SUCCESS;
}

/* Waitall over completed sends, nulls and lite requests stays in C (lite.c); any
 * other request sends the whole call to Go, which understands those handles too. */
int mpix_shm_fast_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    if (!fast_enabled() || count < 0 || (count > 0 && array_of_requests == NULL))
        return MPIX_FAST_MISS;
    return mpix_lite_Waitall(count, array_of_requests, array_of_statuses);
}

/* TRY_LITE: fastbox_recv cannot take the message, but a lite receive may. */
#define TRY_LITE (-2)

/* fastbox_recv is MPI_Recv of the next message in the sender's fastbox, spinning for
 * it while nothing else arrives. */
static int fastbox_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Status *status)
{
    const uint32_t idle = MPIX_IDLE_RECV | MPIX_IDLE_SEND;
    mpix_comm_shared *c = fast_comm(comm);
    uint32_t esz = dt_size(datatype);
    if (c == NULL || esz == 0 || count < 0 || (tag < 0 && tag != MPI_ANY_TAG) || source < 0 ||
        source >= c->size)
        return MPIX_FAST_MISS;
    mpix_vci_shared *v = (mpix_vci_shared *)c->vci;
    const mpix_shm_view *sv = (const mpix_shm_view *)v->shm;
    if (sv == NULL || sv->fbcap < 0)
        return MPIX_FAST_MISS;
    /* Go holds something (a posted receive, an unmatched message, a protocol in
     * flight): it must see this receive, and its requests need its progress. */
    if ((__atomic_load_n(&v->idle, __ATOMIC_RELAXED) & idle) != idle)
        return MPIX_FAST_MISS;
    int li = peer_index(c, sv, source);
    mpix_fastbox *fb = li < 0 ? NULL : (mpix_fastbox *)((const uintptr_t *)sv->fb_in)[li];
    if (fb == NULL)
        return TRY_LITE; /* from this process, or no fastbox: lite.c knows the way */
    /* Wait for the fastbox while nothing else arrives. A message in the receive queue
     * (a cell: the fastbox was busy, or the message is larger) goes through a lite
     * receive, and after spin_limit polls Go's wait (which yields and makes progress
     * on every VCI) takes over. */
    const uint64_t *head = (const uint64_t *)sv->recv_head, *tail = (const uint64_t *)sv->recv_tail;
    if (tail == NULL)
        return MPIX_FAST_MISS;
    int rc = 0, waiting = 0;
    for (uint32_t i = 0, limit = v->spin_limit; __atomic_load_n(&fb->flag, __ATOMIC_ACQUIRE) == 0; i++) {
        if (i >= limit) {
            rc = MPIX_FAST_MISS;
            break;
        }
        if (__atomic_load_n(tail, __ATOMIC_ACQUIRE) != __atomic_load_n(head, __ATOMIC_RELAXED)) {
            rc = TRY_LITE;
            break;
        }
        spin_pause(&waiting, i);
    }
    spin_done(waiting);
    if (rc != 0)
        return rc;
    int locked = enter(v);
    uint64_t f = __atomic_load_n(&fb->flag, __ATOMIC_ACQUIRE);
    const mpix_wire_header *h = &fb->hdr;
    int64_t capacity = (int64_t)count * esz;
    /* Only the next message from the sender, eager, for this communicator and tag, and
     * fitting: anything else (a message ahead of cells in the queue, another tag, a
     * synchronous or rendezvous send, truncation, a receive posted earlier in C by
     * lite.c, which comes first) goes through a lite receive, which leaves to Go what
     * C cannot do. */
    const mpix_vci_lite *l = (const mpix_vci_lite *)v->lite;
    if ((v->idle & idle) != idle || (l != NULL && l->posted_head != 0) || !fastbox_plain(sv, li, fb, f) ||
        h->context != c->ctx || (tag != MPI_ANY_TAG && h->tag != tag) || h->size > capacity) {
        leave(v, locked);
        return TRY_LITE;
    }
    int64_t n = h->size;
    int rtag = h->tag;
    fastbox_take(sv, li, fb, f, buf);
    v->fast_msgs++;
    leave(v, locked);
    if (status != NULL && status != MPI_STATUS_IGNORE) {
        status->count_lo = (int)n;
        status->count_hi_and_cancelled = 0;
        status->MPI_SOURCE = source;
        status->MPI_TAG = rtag;
    }
    return MPI_SUCCESS;
}

/* lite_recv is MPI_Irecv and MPI_Wait through lite.c: it sees cells and other
 * threads' receives in order. Once the receive is posted, a wait C cannot finish
 * goes to Go with the handle (MPIX_SHM_POSTED). */
static int lite_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Status *status, MPI_Request *posted)
{
    if (mpix_lite_Irecv(buf, count, datatype, source, tag, comm, posted) != MPI_SUCCESS)
        return MPIX_FAST_MISS; /* nothing posted: Go receives */
    int rc = mpix_lite_Wait(posted, status);
    return rc != MPIX_FAST_MISS ? rc : MPIX_SHM_POSTED;
}

int mpix_shm_fast_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status, MPI_Request *posted)
{
    int rc = fastbox_recv(buf, count, datatype, source, tag, comm, status);
    return rc == TRY_LITE ? lite_recv(buf, count, datatype, source, tag, comm, status, posted) : rc;
}

/* MPI_Comm_rank and MPI_Comm_size are called in loops and cost a crossing into Go
 * (about 90 ns) for what the descriptor holds: answer them here when it is live.
 * Anything else (a freed or null handle, a threadcomm, an endpoint, a NULL pointer)
 * goes to Go, which raises the error or knows the answer. */
int mpix_shm_fast_comm_rank(MPI_Comm comm, int *rank)
{
    mpix_comm_shared *c = fast_comm(comm);
    if (c == NULL || rank == NULL)
        return MPIX_FAST_MISS;
    *rank = c->rank;
    return MPI_SUCCESS;
}

int mpix_shm_fast_comm_size(MPI_Comm comm, int *size)
{
    mpix_comm_shared *c = fast_comm(comm);
    if (c == NULL || size == NULL || c->inter)
        return MPIX_FAST_MISS;
    *size = c->size;
    return MPI_SUCCESS;
}
