/* Point-to-point between the threads of an activation: sends (eager cells and
 * single-copy direct cells), the byte-level operations Go's path calls, the C fast
 * paths of send, receive, probe, sendrecv, persistent requests and matched probes. */
#include "tc.h"

/* ---- sends ---- */

/* start_send queues a message from thread me to rank dest, a thread of this process;
 * a direct cell is returned for the caller to wait on (NULL when the message was
 * copied). */
static tc_cell *start_send(mpix_tc_act *a, int me, const void *buf, int64_t n, int dest, int tag, int sync)
{
    int eager = !sync && n <= TC_EAGER;
    dest -= a->base;
    if (a->boxes != NULL) {
        tc_own *o = &a->own[me * TC_BOX_MAXN + dest];
        if (eager && n <= TC_BOX_BYTES) {
            if (o->queued != o->dcache)
                o->dcache = __atomic_load_n(&a->drained[dest * TC_BOX_MAXN + me], __ATOMIC_ACQUIRE);
            if (o->queued == o->dcache && o->acked != o->bsent)
                o->acked = __atomic_load_n(&a->acks[dest * TC_BOX_MAXN + me], __ATOMIC_ACQUIRE);
            if (o->queued == o->dcache && o->acked == o->bsent) {
                tc_box *b = &a->boxes[(size_t)dest * a->n + me];
                b->ack = a->own[me * TC_BOX_MAXN + dest].seen;
                b->tag = tag;
                b->size = (int32_t)n;
                if (n > 0)
                    memcpy(b->data, buf, (size_t)n);
                __atomic_store_n(&b->seq, ++o->bsent, __ATOMIC_RELEASE);
                return NULL;
            }
        }
        o->queued++;
    }
    tc_cell *c = cell_get(&a->th[me], eager ? n : 0);
    c->src = a->base + me;
    c->tag = tag;
    c->size = n;
    c->sync = (uint32_t)sync;
    if (eager) {
        c->kind = TC_EAGER_CELL;
        c->home = &a->th[me];
        if (n > 0)
            memcpy(cell_data(c), buf, (size_t)n);
        q_push(&a->th[dest], c);
        return NULL;
    }
    c->kind = TC_DIRECT_CELL;
    c->addr = buf;
    c->state = TC_PENDING;
    q_push(&a->th[dest], c);
    return c;
}

/* send_test reports whether the direct send of cell c is over; a non-synchronous one
 * that has waited long enough (or is abandoned: force) copies its data and leaves the
 * cell to the receiver. */
int send_test(tc_cell *c, int force)
{
    uint32_t state = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
    if (state == TC_DONE) {
        cell_put(c);
        return 1;
    }
    if (state == TC_COPYING) {
        coop_help(c); /* the receiver is copying: take chunks too */
        return 0;
    }
    if (!force || c->sync)
        return 0;
    void *copy = malloc(c->size > 0 ? (size_t)c->size : 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, c->addr, (size_t)c->size);
    c->copy = copy; /* published by the release below; only an orphan's reader reads it */
    uint32_t pending = TC_PENDING;
    if (__atomic_compare_exchange_n(&c->state, &pending, TC_ORPHAN, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 1;
    /* The receiver claimed it first and copies from our buffer: wait for it. */
    free(copy);
    return 0;
}

static void send_wait(tc_cell *c)
{
    for (uint32_t i = 0; !send_test(c, i >= TC_ORPHAN_SPINS); i++)
        backoff(i);
}

/* ---- byte-level operations (also called from Go) ---- */


static int send_bytes(mpix_tc_act *a, int me, const void *buf, int64_t n, int dest, int tag, int sync)
{
    tc_cell *c = start_send(a, me, buf, n, dest, tag, sync);
    if (c != NULL)
        send_wait(c);
    return MPI_SUCCESS;
}

/* recv_bytes is a blocking receive; it returns the error class (MPI_ERR_TRUNCATE). */
static int recv_bytes(mpix_tc_act *a, int me, void *buf, int64_t cap, int src, int tag, MPI_Status *st)
{
    tc_req r = {.buf = buf, .cap = cap, .src = src, .tag = tag};
    tc_thread *t = &a->th[me];
    tc_post(t, &r);
    if (a->spanning && src != MPI_ANY_SOURCE && !is_local(a, src)) {
        /* From another process: only the engine can complete it, and Go waits on
         * the engine until something is pushed into this thread's queue (the tail
         * moves), or a while, after which the queue is drained again: a thread of
         * this process may send a message that an earlier receive takes, and its
         * sender may wait for that. */
        while (!r.done) {
            void *tail = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE);
            if (!tc_drain(t))
                mpixTcWaitRemote(a->handle, (void **)&t->tail, tail);
        }
    }
    for (uint32_t i = 0; !r.done; i++) {
        poll_remote(a, src);
        if (!tc_drain(t))
            backoff(i);
    }
    if (r.rdv != 0) /* a rendezvous from another process, still arriving */
        partner_done(&r, &r.rdv, 1);
    put_status(st, r.st_source, r.st_tag, r.st_bytes, 0);
    return r.st_error;
}

int mpix_tc_send_bytes(MPI_Comm comm, const void *buf, int64_t n, int dest, int tag, int sync)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL)
        return MPI_ERR_COMM;
    if (!is_local(a, dest))
        return MPI_ERR_RANK; /* Go sends to other processes itself */
    return send_bytes(a, me, buf, n, dest, tag, sync);
}

int mpix_tc_recv_bytes(MPI_Comm comm, void *buf, int64_t cap, int src, int tag, MPI_Status *st)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL)
        return MPI_ERR_COMM;
    return recv_bytes(a, me, buf, cap, src, tag, st);
}

int mpix_tc_probe(MPI_Comm comm, int src, int tag, int block, MPI_Status *st)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL)
        return -1;
    tc_thread *t = &a->th[me];
    tc_cell *c;
    for (uint32_t i = 0;; i++) {
        poll_remote(a, src);
        tc_drain(t);
        if ((c = unexp_find(t, src, tag, 0)) != NULL)
            break;
        if (!block)
            return 0;
        backoff(i);
    }
    put_status(st, c->src, c->tag, c->size, 0);
    return 1;
}

/* ---- the C fast paths ---- */

/* Argument checks: anything doubtful goes to Go, which reports the error (or, for a
 * valid call the fast path does not take, comes back through the byte functions). */
static inline int p2p_ok(mpix_tc_act *a, int count, MPI_Datatype dt, int peer, int tag, int wild)
{
    return count >= 0 && dt_bytes(dt) > 0 && peer < a->size && (peer >= 0 || (wild && peer == MPI_ANY_SOURCE)) &&
           (tag >= 0 || (wild && tag == MPI_ANY_TAG));
}

/* send_ok is p2p_ok for a send here: to another process, the send is Go's. */
static inline int send_ok(mpix_tc_act *a, int count, MPI_Datatype dt, int dest, int tag)
{
    return p2p_ok(a, count, dt, dest, tag, 0) && is_local(a, dest);
}

int mpix_tc_fast_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int sync)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || !send_ok(a, count, dt, dest, tag))
        return MPIX_FAST_MISS;
    return send_bytes(a, me, buf, (int64_t)count * dt_bytes(dt), dest, tag, sync);
}

int mpix_tc_fast_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *st)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || !p2p_ok(a, count, dt, source, tag, 1))
        return MPIX_FAST_MISS;
    int err = recv_bytes(a, me, buf, (int64_t)count * dt_bytes(dt), source, tag, st);
    if (err != MPI_SUCCESS)
        return mpixTcRaise("MPI_Recv", comm, err);
    return MPI_SUCCESS;
}

/* send_started sets up send r after start_send gave it cell c: a copied message is
 * done; a buffered send's direct one leaves a copy at once, unless its receiver is
 * already copying it (MPI completes a buffered send locally). */
static void send_started(tc_req *r, tc_cell *c)
{
    r->cell = c;
    r->done = c == NULL || (r->buffered && send_test(c, 1));
}

/* isend_new starts a nonblocking send of n bytes at buf from thread me to dest, a
 * thread of this process (NULL when no handle is left). */
static tc_req *isend_new(mpix_tc_act *a, int me, const void *buf, int64_t n, int dest, int tag, int sync,
                         int buffered)
{
    tc_req *r = req_new(1, 0);
    if (r == NULL)
        return NULL;
    r->buffered = (uint8_t)buffered;
    send_started(r, start_send(a, me, buf, n, dest, tag, sync));
    return r;
}

static int fast_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request, int sync)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || request == NULL || !send_ok(a, count, dt, dest, tag))
        return MPIX_FAST_MISS;
    tc_req *r = isend_new(a, me, buf, (int64_t)count * dt_bytes(dt), dest, tag, sync, 0);
    if (r == NULL)
        return MPIX_FAST_MISS;
    *request = (MPI_Request)r->handle;
    return MPI_SUCCESS;
}

int mpix_tc_fast_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
    return fast_isend(buf, count, datatype, dest, tag, comm, request, 0);
}

int mpix_fast_MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request)
{
    return fast_isend(buf, count, datatype, dest, tag, comm, request, 1);
}

int mpix_fast_MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mpix_tc_fast_send(buf, count, datatype, dest, tag, comm, 1);
}

/* irecv_new starts a nonblocking receive of up to cap bytes into buf on thread me
 * (NULL when no handle is left); the request is posted unless the caller sets more
 * first (post_it 0). */
static tc_req *irecv_new(mpix_tc_act *a, int me, void *buf, int64_t cap, int source, int tag, int post_it)
{
    tc_req *r = req_new(0, 0);
    if (r == NULL)
        return NULL;
    r->buf = buf;
    r->cap = cap;
    r->src = source;
    r->tag = tag;
    if (post_it)
        tc_post(&a->th[me], r);
    return r;
}

int mpix_fast_MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL) /* not a threadcomm between local threads: the lite path (lite.c) */
        return mpix_lite_Irecv(buf, count, datatype, source, tag, comm, request);
    if (request == NULL || !p2p_ok(a, count, datatype, source, tag, 1))
        return MPIX_FAST_MISS;
    tc_req *r = irecv_new(a, me, buf, (int64_t)count * dt_bytes(datatype), source, tag, 1);
    if (r == NULL)
        return MPIX_FAST_MISS;
    *request = (MPI_Request)r->handle;
    return MPI_SUCCESS;
}

/* mpix_tc_irecv_packed starts a receive of up to cap bytes into buf for Go: with
 * unpack nonzero, packed bytes that Go unpacks when the request completes
 * (mpixTcUnpack); with partner nonzero, a Go send request that must complete before
 * this one does (MPI_Isendrecv to another process). */
int mpix_tc_irecv_packed(MPI_Comm comm, void *buf, int64_t cap, int source, int tag, uint32_t unpack,
                         int32_t partner, MPI_Request *request)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL)
        return MPI_ERR_COMM;
    tc_req *r = irecv_new(a, me, buf, cap, source, tag, 0);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    r->packed = unpack;
    r->partner = partner;
    if (source == MPI_PROC_NULL) /* complete at once, or with its partner send */
        recv_none(r, MPI_PROC_NULL, MPI_SUCCESS, 0);
    else
        tc_post(&a->th[me], r);
    *request = (MPI_Request)r->handle;
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || !p2p_ok(a, 0, MPI_BYTE, source, tag, 1))
        return MPIX_FAST_MISS;
    mpix_tc_probe(comm, source, tag, 1, status);
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || flag == NULL || !p2p_ok(a, 0, MPI_BYTE, source, tag, 1))
        return MPIX_FAST_MISS;
    *flag = mpix_tc_probe(comm, source, tag, 0, status);
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || !send_ok(a, sendcount, sendtype, dest, sendtag) ||
        !p2p_ok(a, recvcount, recvtype, source, recvtag, 1))
        return MPIX_FAST_MISS;
    /* The send first, then the receive, then the send's end: a direct send to a
     * thread that sends to us first is received while we wait. */
    tc_cell *c = start_send(a, me, sendbuf, (int64_t)sendcount * dt_bytes(sendtype), dest, sendtag, 0);
    int err = recv_bytes(a, me, recvbuf, (int64_t)recvcount * dt_bytes(recvtype), source, recvtag, status);
    if (c != NULL)
        send_wait(c);
    if (err != MPI_SUCCESS)
        return mpixTcRaise("MPI_Sendrecv", comm, err);
    return MPI_SUCCESS;
}

/* Wait and Test: C requests here, anything else goes to Go. */

/* persistent_new makes an inactive persistent request for bytes at buf (NULL when
 * no handle is left). */
static tc_req *persistent_new(const void *buf, int64_t bytes, int peer, int tag, int is_send, int sync)
{
    tc_req *r = req_new(is_send, 1);
    if (r == NULL)
        return NULL;
    r->done = 1;
    r->sync = sync;
    if (is_send) {
        r->sbuf = buf;
        r->sbytes = bytes;
        r->dest = peer;
        r->tag = tag;
    } else {
        r->buf = (void *)buf;
        r->cap = bytes;
        r->src = peer;
        r->tag = tag;
    }
    return r;
}

static int fast_init(const void *buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
                     MPI_Request *request, int is_send, int sync)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || request == NULL || !(is_send ? send_ok(a, count, dt, peer, tag) : p2p_ok(a, count, dt, peer, tag, 1)))
        return MPIX_FAST_MISS;
    tc_req *r = persistent_new(buf, (int64_t)count * dt_bytes(dt), peer, tag, is_send, sync);
    if (r == NULL)
        return MPIX_FAST_MISS;
    *request = (MPI_Request)r->handle;
    return MPI_SUCCESS;
}

/* mpix_tc_recv_init_packed is MPI_Recv_init for Go: cap packed bytes at buf, which
 * Go unpacks at each completion (unpack, as mpix_tc_irecv_packed). */
int mpix_tc_recv_init_packed(MPI_Comm comm, void *buf, int64_t cap, int source, int tag, uint32_t unpack,
                             MPI_Request *request)
{
    int me;
    if (tc_self(comm, &me) == NULL)
        return MPI_ERR_COMM;
    tc_req *r = persistent_new(buf, cap, source, tag, 0, 0);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    r->packed = unpack;
    *request = (MPI_Request)r->handle;
    return MPI_SUCCESS;
}

/* mpix_tc_isend_packed is a nonblocking send of n bytes at buf to dest, a thread of
 * this process, for the sends C's fast paths leave to Go (derived datatypes, MPI_Count
 * forms, buffered and ready modes): mode 0 standard or ready, 1 synchronous, 2
 * buffered; persistent: an MPI_*_init request. With packed nonzero, buf is Go's packed
 * copy of the data: a persistent request has Go pack it again at each start
 * (mpixTcPack), and the request drops it when released. */
int mpix_tc_isend_packed(MPI_Comm comm, const void *buf, int64_t n, int dest, int tag, int mode, uint32_t packed,
                         int persistent, MPI_Request *request)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || !is_local(a, dest))
        return MPI_ERR_COMM;
    int sync = mode == 1, buffered = mode == 2;
    tc_req *r;
    if (persistent) {
        if ((r = persistent_new(buf, n, dest, tag, 1, sync)) != NULL)
            r->buffered = (uint8_t)buffered;
    } else
        r = isend_new(a, me, buf, n, dest, tag, sync, buffered);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    r->packed = packed;
    *request = (MPI_Request)r->handle;
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request *request)
{
    return fast_init(buf, count, datatype, dest, tag, comm, request, 1, 0);
}

int mpix_fast_MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request *request)
{
    return fast_init(buf, count, datatype, dest, tag, comm, request, 1, 1);
}

int mpix_fast_MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                            MPI_Request *request)
{
    return fast_init(buf, count, datatype, source, tag, comm, request, 0, 0);
}

/* start_act is the activation in which the calling thread (me) may start r now: r
 * is an inactive persistent request and the thread is inside a region; NULL if not. */
static mpix_tc_act *start_act(tc_req *r, int *me)
{
    return r->persistent && !r->active ? tc_self(cur_comm(), me) : NULL;
}

/* can_start says whether MPI_Start may start r now. */
static int can_start(tc_req *r)
{
    int me;
    return start_act(r, &me) != NULL;
}

/* start_req starts an inactive persistent request of the calling thread. */
static int start_req(tc_req *r)
{
    int me;
    mpix_tc_act *a = start_act(r, &me);
    if (a == NULL)
        return 0;
    r->active = 1;
    r->done = 0;
    r->delivered = 0;
    if (r->is_send) {
        if (r->packed != 0)
            mpixTcPack(r->packed); /* the user's data as it is now */
        send_started(r, start_send(a, me, r->sbuf, r->sbytes, r->dest, r->tag, r->sync));
    } else
        tc_post(&a->th[me], r);
    return 1;
}

int mpix_tc_start_request(MPI_Request h)
{
    tc_req *r = req_lookup(h);
    return r != NULL && start_req(r);
}

int mpix_fast_MPI_Start(MPI_Request *request)
{
    tc_req *r;
    if (request == NULL || (r = req_lookup(*request)) == NULL || !start_req(r))
        return MPIX_FAST_MISS; /* Go reports the error */
    return MPI_SUCCESS;
}

/* mpix_tc_startable says whether h is a C request that MPI_Start may start now (for
 * Go's MPI_Startall, which checks every request before it starts any). */
int mpix_tc_startable(MPI_Request h)
{
    tc_req *r = req_lookup(h);
    return r != NULL && can_start(r);
}

/* Startall with at least one C request: the C ones start here, the others (a
 * threadcomm spanning processes sends to the others through Go) through PMPI_Start.
 * Every request is checked before any starts, so that a bad one starts none (Go
 * reports it). */
int mpix_fast_MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (count <= 0 || array_of_requests == NULL)
        return MPIX_FAST_MISS;
    int any = 0, others = 0;
    for (int i = 0; i < count; i++) {
        tc_req *r = req_lookup(array_of_requests[i]);
        if (r != NULL && !can_start(r))
            return MPIX_FAST_MISS;
        any |= r != NULL;
        others |= r == NULL;
    }
    if (!any)
        return MPIX_FAST_MISS;
    if (others)
        for (int i = 0; i < count; i++)
            if (req_lookup(array_of_requests[i]) == NULL && !mpixTcStartableGo(array_of_requests[i]))
                return MPIX_FAST_MISS;
    for (int i = 0; i < count; i++) {
        tc_req *r = req_lookup(array_of_requests[i]);
        if (r != NULL)
            start_req(r); /* cannot fail: can_start said yes above */
        else {
            int err = PMPI_Start(&array_of_requests[i]);
            if (err != MPI_SUCCESS)
                return err;
        }
    }
    return MPI_SUCCESS;
}

/* Matched probes: the message leaves the unexpected list inside a C handle. */

int mpix_fast_MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    int me;
    mpix_tc_act *a = tc_self(comm, &me);
    if (a == NULL || flag == NULL || message == NULL || !p2p_ok(a, 0, MPI_BYTE, source, tag, 1))
        return MPIX_FAST_MISS;
    tc_thread *t = &a->th[me];
    poll_remote(a, source);
    tc_drain(t);
    tc_cell *c = unexp_find(t, source, tag, 1);
    *flag = c != NULL;
    if (c == NULL)
        return MPI_SUCCESS;
    tc_req *r = req_new(0, 0);
    if (r == NULL)
        abort();
    r->done = 1;
    r->cell = c;
    put_status(status, c->src, c->tag, c->size, 0);
    *message = (MPI_Message)r->handle;
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    int flag = 0, rc;
    for (uint32_t i = 0; (rc = mpix_fast_MPI_Improbe(source, tag, comm, &flag, message, status)) == MPI_SUCCESS && !flag;
         i++)
        backoff(i);
    return rc;
}

/* mrecv receives the message of handle m into r's outcome. */
/* mrecv_bytes receives the message of handle m into cap bytes at buf, in r's
 * outcome; NULL when m is no C message. */
static tc_req *mrecv_bytes(MPI_Message m, void *buf, int64_t cap)
{
    tc_req *r = req_lookup((MPI_Request)m);
    if (r == NULL || r->is_send || r->cell == NULL)
        return NULL;
    r->buf = buf;
    r->cap = cap;
    tc_cell *c = r->cell;
    r->cell = NULL;
    complete_recv(r, c);
    return r;
}

/* mrecv is mrecv_bytes for a builtin datatype (NULL for any other). */
static tc_req *mrecv(MPI_Message m, void *buf, int count, MPI_Datatype dt)
{
    if (count < 0 || dt_bytes(dt) == 0)
        return NULL;
    return mrecv_bytes(m, buf, (int64_t)count * dt_bytes(dt));
}

/* mpix_tc_mrecv_packed is MPI_Imrecv of C message *m into cap bytes at buf for Go,
 * which unpacks them at completion (unpack nonzero, as mpix_tc_irecv_packed); it
 * returns nonzero when *m is no C message. */
int mpix_tc_mrecv_packed(MPI_Message *m, void *buf, int64_t cap, uint32_t unpack, MPI_Request *request)
{
    tc_req *r = mrecv_bytes(*m, buf, cap);
    if (r == NULL)
        return 1;
    r->packed = unpack; /* read when the request completes */
    *request = (MPI_Request)r->handle;
    *m = MPI_MESSAGE_NULL;
    return 0;
}

int mpix_fast_MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    tc_req *r;
    if (message == NULL || (r = mrecv(*message, buf, count, datatype)) == NULL)
        return MPIX_FAST_MISS;
    if (r->rdv != 0)
        partner_done(r, &r->rdv, 1);
    MPI_Request h;
    int err = req_finish(r, &h, status);
    *message = MPI_MESSAGE_NULL;
    return err == MPI_SUCCESS ? MPI_SUCCESS : mpixTcRaise("MPI_Mrecv", cur_comm(), err);
}

int mpix_fast_MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    tc_req *r;
    if (message == NULL || request == NULL || (r = mrecv(*message, buf, count, datatype)) == NULL)
        return MPIX_FAST_MISS;
    *request = (MPI_Request)r->handle; /* the message's handle lives on as the request */
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

