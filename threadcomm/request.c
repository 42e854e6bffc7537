/* Requests of the data plane: C request objects and their handles (top bits 11), their
 * completion, Wait/Test and their array forms, request free, cancel and the state
 * queries Go's mixed Wait/Test sets use. */
#include "tc.h"

/* ---- requests ---- */

#define TC_REQ_MAX (1u << 20)

static tc_req *reqs[TC_REQ_MAX / 1024]; /* blocks of 1024, made on demand */
static uint32_t req_next;               /* atomic: next unused index */
static MPIX_TLS tc_req *req_free;

/* req_take takes a request handle from the calling thread's free list. */
static tc_req *req_take(void)
{
    tc_req *r = req_free;
    if (r != NULL) {
        req_free = r->next;
        return r;
    }
    /* A block of 64 fresh indices for this thread. */
    uint32_t base = __atomic_fetch_add(&req_next, 64, __ATOMIC_RELAXED);
    if (base + 64 > TC_REQ_MAX)
        return NULL;
    tc_req **blk = &reqs[base / 1024];
    tc_req *b = __atomic_load_n(blk, __ATOMIC_ACQUIRE);
    if (b == NULL) {
        tc_req *fresh = calloc(1024, sizeof(tc_req));
        if (fresh == NULL)
            return NULL;
        tc_req *expect = NULL;
        if (__atomic_compare_exchange_n(blk, &expect, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            b = fresh;
        else {
            free(fresh);
            b = expect;
        }
    }
    for (uint32_t i = 1; i < 64; i++) {
        tc_req *q = &b[(base + i) % 1024];
        q->handle = MPIX_REQ_THREADCOMM | (base + i);
        q->next = req_free;
        req_free = q;
    }
    r = &b[base % 1024];
    r->handle = MPIX_REQ_THREADCOMM | base;
    return r;
}

/* req_new is a live request, inactive, with no cell and nothing for Go to finish
 * (NULL when no handle is left). */
tc_req *req_new(int is_send, int persistent)
{
    tc_req *r = req_take();
    if (r == NULL)
        return NULL;
    r->is_send = (uint8_t)is_send;
    r->live = 1;
    r->persistent = (uint8_t)persistent;
    r->active = 0;
    r->cancelled = 0;
    r->cell = NULL;
    r->packed = 0;
    r->delivered = 0;
    r->buffered = 0;
    r->orphan = 0;
    r->partner = r->rdv = 0;
    return r;
}

static void req_release(tc_req *r)
{
    if (r->packed != 0) { /* Go drops the packed copy (if not done already) */
        mpixTcUnpack(r->packed, -1);
        r->packed = 0;
    }
    r->live = 0;
    r->next = req_free;
    req_free = r;
}

int mpix_tc_is_request(MPI_Request h) { return mpix_request_kind((uint32_t)h) == MPIX_REQKIND_THREADCOMM; }

tc_req *req_lookup(MPI_Request h)
{
    uint32_t i = (uint32_t)h & 0x03ffffffu;
    if (!mpix_tc_is_request(h) || i >= TC_REQ_MAX)
        return NULL;
    tc_req *b = __atomic_load_n(&reqs[i / 1024], __ATOMIC_ACQUIRE);
    if (b == NULL || !b[i % 1024].live)
        return NULL;
    return &b[i % 1024];
}


/* partner_done tests (block: waits for) the Go request *h that receive r completes
 * with, and once it is done clears *h and keeps its error in r's outcome. */
int partner_done(tc_req *r, int32_t *h, int block)
{
    int rc = mpixTcPartnerDone(*h, block);
    if (rc < 0)
        return 0;
    *h = 0;
    if (rc != MPI_SUCCESS && r->st_error == MPI_SUCCESS)
        r->st_error = rc;
    return 1;
}

/* req_poll advances r once; the receive side's progress is its owner's queue. */
static int req_poll(tc_req *r, int force)
{
    if (r->persistent && !r->active)
        return 1;
    if (r->is_send) {
        if (!r->done && (r->cell == NULL || send_test(r->cell, force)))
            r->done = 1;
        return r->done;
    }
    if (!r->done) {
        int me;
        mpix_tc_act *a = tc_self(cur_comm(), &me);
        if (a != NULL) {
            poll_remote(a, r->src);
            tc_drain(&a->th[me]);
        }
    }
    if (r->done && r->rdv != 0 && !partner_done(r, &r->rdv, 0))
        return 0;
    if (r->done && r->partner != 0 && !partner_done(r, &r->partner, 0))
        return 0;
    return r->done;
}

/* put_status fills st in MPICH's layout (capi/status_count.go): the count's low 32
 * bits, then bits 32-62 above the cancelled flag in bit 0. */
void put_status(MPI_Status *st, int src, int tag, int64_t bytes, int cancelled)
{
    if (st == NULL || st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = src;
    st->MPI_TAG = tag;
    st->count_lo = (int)bytes;
    st->count_hi_and_cancelled = (int)((uint32_t)(bytes >> 32) << 1 | (cancelled != 0));
}

/* unpack_once hands the bytes a completed receive got in a packed copy to Go, which
 * unpacks them into the user's datatype, once per completion. */
static void unpack_once(tc_req *r)
{
    if (r->packed == 0 || r->delivered)
        return;
    mpixTcUnpack(r->packed, r->st_bytes);
    r->delivered = 1;
    if (!r->persistent) /* Go dropped the copy; a persistent one keeps it until freed */
        r->packed = 0;
}

/* orphan_done releases a receive that MPI_Request_free let go while it was posted:
 * once its message has arrived, the data goes where the program asked (MPI completes
 * a freed receive normally), or at a purge with none. A message from another process
 * that came by rendezvous is matched and on its way: its Go receive is waited for,
 * since it writes into the buffer; an MPI_Isendrecv's send completes in Go's own
 * time. */
void orphan_done(tc_req *r)
{
    if (r->rdv != 0)
        partner_done(r, &r->rdv, 1);
    if (r->partner != 0) {
        mpixTcPartnerFree(r->partner);
        r->partner = 0;
    }
    if (r->done)
        unpack_once(r);
    r->orphan = 0;
    req_release(r);
}

/* req_finish reports a completed request: its status, its handle back to the pool;
 * it returns the request's error class. */
int req_finish(tc_req *r, MPI_Request *h, MPI_Status *st)
{
    int err = MPI_SUCCESS;
    if (r->is_send || (r->persistent && !r->active))
        put_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
    else {
        unpack_once(r);
        put_status(st, r->st_source, r->st_tag, r->st_bytes, r->cancelled);
        err = r->st_error;
    }
    if (r->persistent) {
        r->active = 0; /* the handle stays, inactive */
        return err;
    }
    req_release(r);
    *h = MPI_REQUEST_NULL;
    return err;
}

int mpix_tc_fast_Wait(MPI_Request *request, MPI_Status *status)
{
    tc_req *r;
    if (request == NULL || (r = req_lookup(*request)) == NULL)
        return MPIX_FAST_MISS;
    for (uint32_t i = 0; !req_poll(r, i >= TC_ORPHAN_SPINS); i++)
        backoff(i);
    int err = req_finish(r, request, status);
    return err == MPI_SUCCESS ? MPI_SUCCESS : mpixTcRaise("MPI_Wait", cur_comm(), err);
}

int mpix_tc_fast_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    tc_req *r;
    if (request == NULL || flag == NULL || (r = req_lookup(*request)) == NULL)
        return MPIX_FAST_MISS;
    *flag = req_poll(r, 0);
    if (!*flag)
        return MPI_SUCCESS;
    int err = req_finish(r, request, status);
    return err == MPI_SUCCESS ? MPI_SUCCESS : mpixTcRaise("MPI_Test", cur_comm(), err);
}

/* Synchronous sends whose requests MPI_Request_free released before their receivers
 * took the data: the calling thread's, linked through next. The handles are gone;
 * the requests go back to the pool once their cells are done (reap_abandoned). */
static MPIX_TLS tc_req *abandoned;

/* reap_abandoned releases the abandoned sends that have completed; it reports
 * whether any is left. */
int reap_abandoned(void)
{
    for (tc_req **pp = &abandoned; *pp != NULL;) {
        tc_req *r = *pp;
        if (!send_test(r->cell, 0)) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        r->cell = NULL; /* send_test gave it back */
        req_release(r);
    }
    return abandoned != NULL;
}

int mpix_fast_MPI_Request_free(MPI_Request *request)
{
    tc_req *r;
    if (request == NULL || (r = req_lookup(*request)) == NULL)
        return MPIX_FAST_MISS;
    reap_abandoned();
    /* A standard send still pending leaves a copy behind and completes; a synchronous
     * one completes when its receiver takes it, which may be after this thread's next
     * calls: it is abandoned, and reaped later (MPI lets it complete after the free). */
    if (r->is_send && !req_poll(r, 1)) {
        r->live = 0; /* the handle is gone */
        r->next = abandoned;
        abandoned = r;
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    /* A receive still posted stays posted without its handle (its sender may wait for
     * this thread first): the message completes it whenever it comes, in any of the
     * thread's later calls or waits (own_drain), and its request then goes
     * (orphan_done; at the latest at the region's finish, whose purge releases one
     * that nothing matched). */
    if (!r->is_send && !r->done && r->cell == NULL && !(r->persistent && !r->active)) {
        r->live = 0;
        r->orphan = 1;
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    /* Matched already: the rest is local, or Go's and on its way. */
    for (uint32_t i = 0; !req_poll(r, 1); i++)
        backoff(i);
    if (r->cell != NULL && !r->is_send) { /* a matched message never received */
        int err;
        tc_take(r->cell, NULL, 0, &err, NULL);
    }
    if (!r->is_send && !(r->persistent && !r->active))
        unpack_once(r); /* the message is received: deliver it */
    req_release(r);     /* (and a packed copy goes) */
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* in_status records request i's outcome in a call that completes several: their
 * statuses' MPI_ERROR change only when the call returns MPI_ERR_IN_STATUS (MPI 4.1
 * 3.2.5). At the first failure every other status gets MPI_SUCCESS: those completed
 * before it succeeded, and the rest are written as they complete. */
static void in_status(MPI_Status *sts, int count, int i, int err, int *failed)
{
    if (!*failed && err != MPI_SUCCESS) {
        *failed = 1;
        if (sts != MPI_STATUSES_IGNORE)
            for (int k = 0; k < count; k++)
                sts[k].MPI_ERROR = MPI_SUCCESS;
    }
    if (*failed && sts != MPI_STATUSES_IGNORE)
        sts[i].MPI_ERROR = err;
}

/* Waitall with at least one C request: the C ones complete here, the others through
 * PMPI_Wait one by one (each still runs Go's progress). */
int mpix_tc_fast_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    if (count <= 0 || array_of_requests == NULL)
        return MPIX_FAST_MISS;
    int any = 0;
    for (int i = 0; i < count; i++)
        if (req_lookup(array_of_requests[i]) != NULL) {
            any = 1;
            break;
        }
    if (!any)
        return MPIX_FAST_MISS;
    int ignore = array_of_statuses == MPI_STATUSES_IGNORE, failed = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < count; i++) {
            MPI_Status *st = ignore ? MPI_STATUS_IGNORE : &array_of_statuses[i];
            tc_req *r = req_lookup(array_of_requests[i]);
            if (pass == 0 && r != NULL) {
                for (uint32_t k = 0; !req_poll(r, k >= TC_ORPHAN_SPINS); k++)
                    backoff(k);
                in_status(array_of_statuses, count, i, req_finish(r, &array_of_requests[i], st), &failed);
            } else if (pass == 1 && r == NULL && array_of_requests[i] != MPI_REQUEST_NULL) {
                MPI_Status tmp;
                in_status(array_of_statuses, count, i, PMPI_Wait(&array_of_requests[i], ignore ? &tmp : st), &failed);
            } else if (pass == 0 && r == NULL && array_of_requests[i] == MPI_REQUEST_NULL && !ignore) {
                put_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
            }
        }
    }
    if (failed)
        return mpixTcRaise("MPI_Waitall", cur_comm(), MPI_ERR_IN_STATUS);
    return MPI_SUCCESS;
}

/* Testall over C requests only (a mix goes to Go, which knows C handles too). */
int mpix_fast_MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    if (count <= 0 || array_of_requests == NULL || flag == NULL)
        return MPIX_FAST_MISS;
    int all = 1;
    for (int i = 0; i < count; i++) {
        if (array_of_requests[i] == MPI_REQUEST_NULL)
            continue;
        tc_req *r = req_lookup(array_of_requests[i]);
        if (r == NULL)
            return MPIX_FAST_MISS;
        all &= req_poll(r, 0);
    }
    *flag = all;
    if (!all)
        return MPI_SUCCESS;
    int ignore = array_of_statuses == MPI_STATUSES_IGNORE, failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = ignore ? MPI_STATUS_IGNORE : &array_of_statuses[i];
        tc_req *r = req_lookup(array_of_requests[i]);
        int err = MPI_SUCCESS;
        if (r != NULL)
            err = req_finish(r, &array_of_requests[i], st);
        else
            put_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
        in_status(array_of_statuses, count, i, err, &failed);
    }
    if (failed)
        return mpixTcRaise("MPI_Testall", cur_comm(), MPI_ERR_IN_STATUS);
    return MPI_SUCCESS;
}

/* Waitany over C requests only. */
int mpix_fast_MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    if (count <= 0 || array_of_requests == NULL || index == NULL)
        return MPIX_FAST_MISS;
    int live = 0;
    for (int i = 0; i < count; i++) {
        if (array_of_requests[i] == MPI_REQUEST_NULL)
            continue;
        tc_req *r = req_lookup(array_of_requests[i]);
        if (r == NULL)
            return MPIX_FAST_MISS;
        live += !(r->persistent && !r->active);
    }
    if (live == 0)
        return MPIX_FAST_MISS; /* Go reports MPI_UNDEFINED and the empty status */
    for (uint32_t k = 0;; k++) {
        for (int i = 0; i < count; i++) {
            tc_req *r = req_lookup(array_of_requests[i]);
            if (r != NULL && !(r->persistent && !r->active) && req_poll(r, k >= TC_ORPHAN_SPINS)) {
                *index = i;
                int err = req_finish(r, &array_of_requests[i], status);
                return err == MPI_SUCCESS ? MPI_SUCCESS : mpixTcRaise("MPI_Waitany", cur_comm(), err);
            }
        }
        backoff(k);
    }
}

/* Persistent requests. */

/* mpix_tc_cancel is MPI_Cancel of C request h: a receive of the calling thread that
 * has not matched leaves its posted list and completes as cancelled; anything else
 * is left to complete (a send cannot be cancelled here, as in Go: MPI lets a cancel
 * fail). It returns nonzero when h is no C request. */
int mpix_tc_cancel(MPI_Request h)
{
    tc_req *r = req_lookup(h);
    if (r == NULL)
        return 1;
    int me;
    mpix_tc_act *a = tc_self(cur_comm(), &me);
    if (r->is_send || r->done || a == NULL || (r->persistent && !r->active))
        return 0;
    tc_thread *t = &a->th[me];
    for (tc_req **pp = &t->posted_head, *prev = NULL; *pp != NULL; prev = *pp, pp = &(*pp)->next) {
        if (*pp != r)
            continue;
        tc_unpost(t, pp, prev);
        recv_none(r, MPI_ANY_SOURCE, MPI_SUCCESS, 1);
        break;
    }
    return 0;
}

/* mpix_tc_request_state advances C request h once without completing it (force: a
 * direct send that waited long enough leaves a copy, as in a Wait): 0 when it is
 * inactive (a persistent request not started), 1 pending, 2 complete; -1 when h is
 * not a live C request (capi/tcwait.go: mixed sets). */
int mpix_tc_request_state(MPI_Request h, int force)
{
    tc_req *r = req_lookup(h);
    if (r == NULL)
        return -1;
    if (r->persistent && !r->active)
        return 0;
    return req_poll(r, force) ? 2 : 1;
}

/* mpix_tc_request_peek reports C request h, which mpix_tc_request_state found complete,
 * as MPI_Request_get_status does: its status (a receive's data unpacked) without
 * completing it; it returns the request's error class. */
int mpix_tc_request_peek(MPI_Request h, MPI_Status *st)
{
    tc_req *r = req_lookup(h);
    if (r == NULL)
        return MPI_ERR_REQUEST;
    if (r->is_send || (r->persistent && !r->active)) {
        put_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
        return MPI_SUCCESS;
    }
    unpack_once(r);
    put_status(st, r->st_source, r->st_tag, r->st_bytes, r->cancelled);
    return r->st_error;
}

/* Go's view of a C request (capi/wait.go): test it, or wait for it, and report. */
int mpix_tc_request_complete(MPI_Request *h, int block, int *flag, MPI_Status *st)
{
    tc_req *r = req_lookup(*h);
    if (r == NULL)
        return MPI_ERR_REQUEST;
    for (uint32_t i = 0; !req_poll(r, block && i >= TC_ORPHAN_SPINS); i++) {
        if (!block) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        backoff(i);
    }
    *flag = 1;
    int err = req_finish(r, h, st);
    if (st != NULL && st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = err;
    return err;
}

