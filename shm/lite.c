/* Lite requests: MPI_Irecv, a send to this process itself and the waits on them, in C
 * (see fastabi.h). The message-rate shape (a window of Irecvs, a window of Isends, one
 * Waitall) then never enters Go when the messages are small and come from this
 * process or from a node-local peer's fastbox.
 *
 * Posting: a receive is queued on its VCI's C-side list only while the Go side of the
 * VCI holds no posted receive, unmatched message or protocol (MPIX_IDLE_RECV), so the
 * list is always older than anything Go posts later; Go absorbs the whole list into
 * its own posted queue, in order, before it matches any message (core/fastlite.go).
 * Matching here therefore only ever needs the C list.
 *
 * Completion: a send to oneself that finds its receive on the list copies straight
 * into the receive buffer; a wait polls the fastbox of a posted receive's peer. Any
 * message C cannot deliver (a cell queued ahead of the fastbox, a protocol message,
 * truncation, no matching receive) sends the call to Go, which takes the requests over
 * and finds them by handle. */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include "fastint.h"
#include "ring.h"

void (*mpix_shm_progress_from)(uint32_t vci);

/* lite_by_index finds a VCI's lite state from a request handle. */
static mpix_vci_lite *lite_by_index[MPIX_LITE_VCIS];

/* lite_of returns v's lite state, made on first use (under v's lock). */
static mpix_vci_lite *lite_of(mpix_vci_shared *v)
{
    mpix_vci_lite *l = (mpix_vci_lite *)v->lite;
    if (l != NULL || v->index >= MPIX_LITE_VCIS)
        return l;
    void *m = mmap(NULL, sizeof *l, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    l = m;
    l->index = v->index;
    l->vci = (uintptr_t)v;
    __atomic_store_n(&lite_by_index[v->index], l, __ATOMIC_RELEASE);
    __atomic_store_n(&v->lite, (uintptr_t)l, __ATOMIC_RELEASE);
    return l;
}

static inline MPI_Request lite_handle(const mpix_vci_lite *l, uint32_t slot)
{
    return (MPI_Request)(MPIX_LITE_TAG | l->index << 12 | slot);
}

/* lite_req resolves a lite handle, or gives NULL for any other handle. */
static inline mpix_lreq *lite_req(MPI_Request h, mpix_vci_lite **lp)
{
    uint32_t u = (uint32_t)h;
    if ((u & MPIX_LITE_MASK) != MPIX_LITE_TAG)
        return NULL;
    uint32_t idx = (u >> 12) & 0x1fff, slot = u & 0xfff;
    if (slot >= MPIX_LITE_SLOTS)
        return NULL;
    mpix_vci_lite *l = __atomic_load_n(&lite_by_index[idx], __ATOMIC_ACQUIRE);
    if (l == NULL)
        return NULL;
    *lp = l;
    return &l->req[slot];
}

/* slot_new takes a free slot (under the VCI lock): one freed under the lock, else the
 * whole stack freed without it, else one never used. */
static mpix_lreq *slot_new(mpix_vci_lite *l, uint32_t *slot)
{
    uint32_t s = l->free_head;
    if (s == 0)
        s = __atomic_exchange_n(&l->returned, 0, __ATOMIC_ACQUIRE);
    if (s != 0) {
        l->free_head = l->req[s - 1].next;
        *slot = s - 1;
        return &l->req[s - 1];
    }
    if (l->used < MPIX_LITE_SLOTS) {
        *slot = l->used++;
        return &l->req[*slot];
    }
    return NULL;
}

/* slots_return gives a chain of slots (first..last, linked by next) back without the
 * lock: waiters of any thread push onto the returned stack, and only slot_new, under
 * the lock, takes it, whole, so a compare-and-swap push is safe (no ABA). Go's
 * liteState.release is the same for one slot. */
static void slots_return(mpix_vci_lite *l, uint32_t first, uint32_t last)
{
    mpix_lreq *q = &l->req[last];
    uint32_t old = __atomic_load_n(&l->returned, __ATOMIC_RELAXED);
    do
        q->next = old;
    while (!__atomic_compare_exchange_n(&l->returned, &old, first + 1, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* take_match unlinks and returns the first posted receive that a message (context,
 * world source, tag) matches, or NULL; NULL too when that receive is smaller than the
 * message, which stays posted for Go to report the truncation (under the VCI lock). */
static mpix_lreq *take_match(mpix_vci_lite *l, uint32_t ctx, int32_t src_world, int32_t tag, int64_t size)
{
    uint32_t prev = 0;
    for (uint32_t s = l->posted_head; s != 0; prev = s, s = l->req[s - 1].next) {
        mpix_lreq *q = &l->req[s - 1];
        if (q->ctx != ctx || q->src_world != src_world || (q->tag != MPI_ANY_TAG && q->tag != tag))
            continue;
        if (size > q->capacity)
            return NULL;
        if (prev == 0)
            l->posted_head = q->next;
        else
            l->req[prev - 1].next = q->next;
        if (l->posted_tail == s)
            l->posted_tail = prev;
        return q;
    }
    return NULL;
}

/* complete publishes a received message's status: the waiter may return the slot as
 * soon as it sees MPIX_LREQ_DONE. */
static inline void complete(mpix_lreq *q, int64_t n, int32_t tag)
{
    q->st_bytes = n;
    q->st_tag = tag;
    __atomic_store_n(&q->state, MPIX_LREQ_DONE, __ATOMIC_RELEASE);
}

int mpix_lite_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    mpix_comm_shared *c = fast_comm(comm);
    uint32_t esz = dt_size(datatype);
    if (c == NULL || request == NULL || esz == 0 || count < 0 || (tag < 0 && tag != MPI_ANY_TAG) || source < 0 ||
        source >= c->size)
        return MPIX_FAST_MISS;
    mpix_vci_shared *v = (mpix_vci_shared *)c->vci;
    const mpix_shm_view *sv = (const mpix_shm_view *)v->shm;
    if (sv == NULL || v->index >= MPIX_LITE_VCIS)
        return MPIX_FAST_MISS;
    /* Only sources whose messages C can deliver: this process and node-local peers. */
    int32_t w = world_of(c, source);
    if (w != sv->world && peer_index(c, sv, source) < 0)
        return MPIX_FAST_MISS;
    int locked = enter(v);
    mpix_vci_lite *l;
    uint32_t slot;
    mpix_lreq *q;
    if (!(v->idle & MPIX_IDLE_RECV) || (l = lite_of(v)) == NULL || (q = slot_new(l, &slot)) == NULL) {
        leave(v, locked);
        return MPIX_FAST_MISS;
    }
    q->next = 0;
    q->go_handle = 0;
    q->ctx = c->ctx;
    q->source = source;
    q->src_world = w;
    q->tag = tag;
    q->count = count;
    q->comm = comm;
    q->dtype = datatype;
    q->buf = (uintptr_t)buf;
    q->capacity = (int64_t)count * esz;
    if (l->posted_tail != 0)
        l->req[l->posted_tail - 1].next = slot + 1;
    else
        l->posted_head = slot + 1;
    l->posted_tail = slot + 1;
    __atomic_store_n(&q->state, MPIX_LREQ_POSTED, __ATOMIC_RELEASE);
    leave(v, locked);
    *request = lite_handle(l, slot);
    return MPI_SUCCESS;
}

/* A send to this process's own rank of comm completes at once when a receive on the
 * C list takes it. Nothing from this process to itself may be in flight on the Go
 * side: no queued send and an empty receive queue. */
int mpix_lite_self_send(mpix_comm_shared *c, const void *buf, int64_t n, int tag)
{
    mpix_vci_shared *v = (mpix_vci_shared *)c->vci;
    const mpix_shm_view *sv = (const mpix_shm_view *)v->shm;
    mpix_vci_lite *l = (mpix_vci_lite *)__atomic_load_n(&v->lite, __ATOMIC_ACQUIRE);
    if (l == NULL || sv->recv_tail == 0)
        return MPIX_FAST_MISS;
    const uint64_t *head = (const uint64_t *)sv->recv_head, *tail = (const uint64_t *)sv->recv_tail;
    int locked = enter(v);
    mpix_lreq *q = NULL;
    if ((v->idle & MPIX_IDLE_SEND) && __atomic_load_n(tail, __ATOMIC_ACQUIRE) == *head)
        q = take_match(l, c->send_ctx, sv->world, tag, n);
    if (q == NULL) {
        leave(v, locked);
        return MPIX_FAST_MISS;
    }
    if (n > 0)
        memcpy((void *)q->buf, buf, (size_t)n);
    complete(q, n, tag);
    v->fast_msgs++;
    leave(v, locked);
    return MPI_SUCCESS;
}

static inline uintptr_t region_of(const mpix_shm_view *sv, uint64_t li)
{
    return li < sv->nlocal ? ((const uintptr_t *)sv->regions)[li] : 0;
}

int mpix_lite_cell_send(const mpix_shm_view *sv, int li, const mpix_wire_header *h, const void *buf, int64_t n)
{
    uintptr_t own = region_of(sv, sv->me), dst = region_of(sv, (uint64_t)li);
    if (own == 0 || dst == 0 || (uint64_t)n > sv->cell_size)
        return 0;
    uint64_t *free_head = (uint64_t *)sv->free_head, c;
    mpix_ring_slot *free_slots = (mpix_ring_slot *)(own + sv->free_off);
    if (!ring_peek(free_slots, sv->free_mask, *free_head, &c) || c >= sv->ncells)
        return 0; /* no free cell (or a corrupt ring, which Go reports) */
    ring_advance(free_slots, sv->free_mask, free_head);
    mpix_cell_head *ch = (mpix_cell_head *)(own + sv->cells_off + c * sv->stride);
    uint64_t *seq = (uint64_t *)sv->send_seq + li;
    ch->hdr = *h;
    ch->len = (uint32_t)n;
    ch->seq = *seq;
    if (n > 0)
        memcpy(ch + 1, buf, (size_t)n);
    if (!ring_push((uint64_t *)(dst + MPIX_SHM_RECV_TAIL), (mpix_ring_slot *)(dst + sv->recv_off), sv->recv_mask,
                   (uint64_t)sv->me << 32 | c)) {
        /* Cannot happen in a healthy job (the queue has a slot for every cell on the
         * node): keep the cell, and let Go find and report the problem. */
        ring_push((uint64_t *)(own + MPIX_SHM_FREE_TAIL), free_slots, sv->free_mask, c);
        return 0;
    }
    *seq += 1;
    return 1;
}

/* take_fastbox delivers the message in the fastbox from local peer li to the first
 * posted receive it matches (under the VCI lock): 1 when it did, 0 when the fastbox is
 * empty, -1 when the message is Go's (cells queued ahead of it, a protocol message, no
 * match, truncation). */
static int take_fastbox(mpix_vci_shared *v, mpix_vci_lite *l, int li)
{
    const mpix_shm_view *sv = (const mpix_shm_view *)v->shm;
    mpix_fastbox *fb = (mpix_fastbox *)((const uintptr_t *)sv->fb_in)[li];
    if (fb == NULL)
        return -1;
    uint64_t f = __atomic_load_n(&fb->flag, __ATOMIC_ACQUIRE);
    const mpix_wire_header *h = &fb->hdr;
    if (f == 0)
        return 0;
    mpix_lreq *q = NULL;
    if (fastbox_plain(sv, li, fb, f))
        q = take_match(l, h->context, h->src, h->tag, h->size);
    if (q == NULL)
        return -1;
    int64_t n = h->size;
    int32_t tag = h->tag;
    fastbox_take(sv, li, fb, f, (void *)q->buf);
    complete(q, n, tag);
    v->fast_msgs++;
    return 1;
}

/* take_queue delivers the receive queue's cells, in order, to posted receives (under
 * the VCI lock), as shm's pollQueue would: 1 when it delivered any, 0 when the queue
 * is empty, -1 when the message at its head is Go's. A cell that comes after its
 * sender's fastbox message waits for that one. */
static int take_queue(mpix_vci_shared *v, mpix_vci_lite *l)
{
    const mpix_shm_view *sv = (const mpix_shm_view *)v->shm;
    uintptr_t own = region_of(sv, sv->me);
    if (own == 0)
        return -1;
    mpix_ring_slot *slots = (mpix_ring_slot *)(own + sv->recv_off);
    uint64_t *head = (uint64_t *)sv->recv_head, val;
    int got = 0;
    while (ring_peek(slots, sv->recv_mask, *head, &val)) {
        uint64_t idx = val >> 32, c = val & 0xffffffffu;
        uintptr_t r = region_of(sv, idx);
        if (r == 0 || c >= sv->ncells)
            return -1;
        mpix_cell_head *ch = (mpix_cell_head *)(r + sv->cells_off + c * sv->stride);
        uint64_t *next = (uint64_t *)sv->recv_seq + idx;
        if (ch->seq != *next && (take_fastbox(v, l, (int)idx) != 1 || ch->seq != *next))
            return got ? 1 : -1;
        const mpix_wire_header *h = &ch->hdr;
        mpix_lreq *q = NULL;
        if (h->kind == MPIX_KIND_EAGER && h->flags == 0 && h->recv_req == 0 && (int64_t)ch->len == h->size &&
            (uint64_t)ch->len <= sv->cell_size)
            q = take_match(l, h->context, h->src, h->tag, h->size);
        if (q == NULL)
            return got ? 1 : -1;
        int64_t n = h->size;
        int32_t tag = h->tag;
        if (n > 0)
            memcpy((void *)q->buf, ch + 1, (size_t)n);
        ring_advance(slots, sv->recv_mask, head);
        *next = ch->seq + 1;
        /* The cell back to its owner's free ring; it cannot be full (one slot per cell). */
        ring_push((uint64_t *)(r + MPIX_SHM_FREE_TAIL), (mpix_ring_slot *)(r + sv->free_off), sv->free_mask, c);
        complete(q, n, tag);
        v->fast_msgs++;
        got = 1;
    }
    return got;
}

/* progress_for tries to complete posted receive q from C: the receive queue, then
 * the fastbox of q's peer. 1: something was delivered, 0: nothing there, -1: a message
 * only Go can deliver is in the way. */
static int progress_for(mpix_vci_lite *l, const mpix_lreq *q)
{
    mpix_vci_shared *v = (mpix_vci_shared *)l->vci;
    const mpix_shm_view *sv = (const mpix_shm_view *)v->shm;
    const uint64_t *head = (const uint64_t *)sv->recv_head, *tail = (const uint64_t *)sv->recv_tail;
    if (tail == NULL)
        return -1;
    int li = -1;
    if (q->src_world != sv->world) {
        int64_t k = (int64_t)q->src_world - sv->min_rank;
        if (k < 0 || k >= sv->span || (li = ((const int32_t *)sv->local_of)[k]) < 0)
            return -1;
    }
    int queued = __atomic_load_n(tail, __ATOMIC_ACQUIRE) != __atomic_load_n(head, __ATOMIC_RELAXED);
    mpix_fastbox *fb = li < 0 ? NULL : (mpix_fastbox *)((const uintptr_t *)sv->fb_in)[li];
    int boxed = fb != NULL && __atomic_load_n(&fb->flag, __ATOMIC_ACQUIRE) != 0;
    if (!queued && !boxed)
        return 0; /* nothing arrived: no lock taken */
    int locked = enter(v), rc = 0;
    if (queued)
        rc = take_queue(v, l);
    if (rc >= 0 && li >= 0) {
        int f = take_fastbox(v, l, li);
        rc = f < 0 ? (rc > 0 ? 1 : -1) : (rc | f);
    }
    leave(v, locked);
    return rc;
}

/* report writes a completed lite request's status and nulls the handle; its slot is
 * then free, for the caller to return. */
static inline void report(mpix_lreq *q, MPI_Request *h, MPI_Status *st)
{
    if (st != NULL && st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = q->source;
        st->MPI_TAG = q->st_tag;
        st->count_lo = (int)(uint32_t)q->st_bytes;
        st->count_hi_and_cancelled = (int)((uint32_t)(q->st_bytes >> 32) << 1);
    }
    __atomic_store_n(&q->state, MPIX_LREQ_FREE, __ATOMIC_RELAXED);
    *h = MPI_REQUEST_NULL;
}

/* take reports a completed lite request and returns its slot. */
static void take(mpix_vci_lite *l, mpix_lreq *q, MPI_Request *h, MPI_Status *st)
{
    report(q, h, st);
    uint32_t s = (uint32_t)(q - l->req);
    slots_return(l, s, s);
}

static inline uint32_t spin_limit(const mpix_vci_lite *l)
{
    return ((const mpix_vci_shared *)l->vci)->spin_limit;
}

/* may_spin says whether a C wait may go on polling l's VCI: only while Go holds
 * nothing on it (a queued send, a protocol, a schedule), which needs Go's progress. */
static inline int may_spin(const mpix_vci_lite *l)
{
    const mpix_vci_shared *v = (const mpix_vci_shared *)l->vci;
    return __atomic_load_n(&v->idle, __ATOMIC_RELAXED) == (MPIX_IDLE_RECV | MPIX_IDLE_SEND);
}

int mpix_lite_Wait(MPI_Request *request, MPI_Status *status)
{
    mpix_vci_lite *l;
    mpix_lreq *q = lite_req(*request, &l);
    if (q == NULL)
        return MPIX_FAST_MISS;
    int rc = MPIX_FAST_MISS, waiting = 0;
    for (uint32_t i = 0, limit = spin_limit(l);; i++) {
        uint32_t s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
        if (s == MPIX_LREQ_DONE) {
            take(l, q, request, status);
            rc = MPI_SUCCESS;
            break;
        }
        if (s != MPIX_LREQ_POSTED || progress_for(l, q) < 0 || !may_spin(l))
            break;
        if (i >= limit) { /* Go's progress on every VCI, which other requests may need */
            mpix_shm_progress_from(l->index);
            i = 0;
            continue;
        }
        spin_pause(&waiting, i);
    }
    spin_done(waiting);
    return rc;
}

/* Test completes in C only what is done or arrives in a fastbox now; otherwise Go
 * tests it, with its progress. */
int mpix_lite_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    mpix_vci_lite *l;
    mpix_lreq *q = lite_req(*request, &l);
    if (q == NULL || flag == NULL)
        return MPIX_FAST_MISS;
    uint32_t s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
    if (s == MPIX_LREQ_POSTED && progress_for(l, q) > 0)
        s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
    if (s != MPIX_LREQ_DONE)
        return MPIX_FAST_MISS;
    take(l, q, request, status);
    *flag = 1;
    return MPI_SUCCESS;
}

/* Waitall over lite requests, completed sends and nulls. It reports nothing until
 * all are done, so that a call it hands to Go has every request still in place. */
int mpix_lite_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    uint32_t limit = 0, limit_vci = 0;
    for (int i = 0; i < count; i++) {
        MPI_Request r = array_of_requests[i];
        if (r == MPIX_REQUEST_COMPLETED_SEND || r == MPI_REQUEST_NULL)
            continue;
        mpix_vci_lite *l;
        mpix_lreq *q = lite_req(r, &l);
        if (q == NULL)
            return MPIX_FAST_MISS;
        limit = spin_limit(l);
        limit_vci = l->index;
    }
    int waiting = 0, rc = MPI_SUCCESS;
    for (uint32_t k = 0;; k++) {
        int all = 1; /* cleared by a request still waiting */
        for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
            mpix_vci_lite *l;
            mpix_lreq *q = lite_req(array_of_requests[i], &l);
            if (q == NULL)
                continue;
            uint32_t s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
            if (s == MPIX_LREQ_DONE)
                continue;
            if (s != MPIX_LREQ_POSTED || progress_for(l, q) < 0)
                rc = MPIX_FAST_MISS;
            else if (__atomic_load_n(&q->state, __ATOMIC_ACQUIRE) != MPIX_LREQ_DONE) {
                if (!may_spin(l))
                    rc = MPIX_FAST_MISS;
                all = 0;
            }
        }
        if (rc != MPI_SUCCESS || all)
            break;
        if (k >= limit) { /* as in mpix_lite_Wait (the last request's VCI) */
            mpix_shm_progress_from(limit_vci);
            k = 0;
            continue;
        }
        spin_pause(&waiting, k);
    }
    spin_done(waiting);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Slots go back in runs of one VCI's, one compare-and-swap per run. */
    int statuses = array_of_statuses != NULL && array_of_statuses != MPI_STATUSES_IGNORE;
    mpix_vci_lite *run = NULL;
    uint32_t first = 0, last = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses ? &array_of_statuses[i] : MPI_STATUS_IGNORE;
        mpix_vci_lite *l;
        mpix_lreq *q = lite_req(array_of_requests[i], &l);
        if (q == NULL) {
            array_of_requests[i] = MPI_REQUEST_NULL;
            if (statuses)
                empty_status(st);
            continue;
        }
        report(q, &array_of_requests[i], st);
        uint32_t s = (uint32_t)(q - l->req);
        if (l == run) {
            l->req[last].next = s + 1;
            last = s;
            continue;
        }
        if (run != NULL)
            slots_return(run, first, last);
        run = l;
        first = last = s;
    }
    if (run != NULL)
        slots_return(run, first, last);
    return MPI_SUCCESS;
}
