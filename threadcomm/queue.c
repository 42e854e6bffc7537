/* Cells and queues of the data plane: per-thread cell pools, each receiving thread's
 * lock-free MPSC queue, and matching (draining the queue into posted receives and the
 * unexpected list, in arrival order, so matching is non-overtaking per source and tag). */
#include "tc.h"

/* ---- cells ----
 *
 * Two sizes, each with a per-thread pool: small cells (one 256-byte block) for
 * messages up to TC_SMALL bytes and for direct cells, which carry no payload; big
 * ones for eager messages up to TC_EAGER. Cells are 64-byte aligned, so a header and
 * an 8-byte payload share one cache line. */

#define TC_CELL_SMALL 256
#define TC_SMALL (TC_CELL_SMALL - (int64_t)sizeof(tc_cell))
#define TC_CELL_BIG (((sizeof(tc_cell) + TC_EAGER) + 63) / 64 * 64)

static MPIX_TLS tc_cell *pool[2];
static MPIX_TLS int pool_len[2];


/* cell_get returns a cell for payload bytes; home is the calling thread's queue, whose
 * returned cells refill its pools. */
tc_cell *cell_get(struct tc_thread *home, int64_t payload)
{
    int big = payload > TC_SMALL;
    tc_cell *c = pool[big];
    if (c == NULL && home != NULL && __atomic_load_n(&home->ret, __ATOMIC_RELAXED) != NULL) {
        for (tc_cell *r = __atomic_exchange_n(&home->ret, NULL, __ATOMIC_ACQUIRE), *next; r != NULL; r = next) {
            next = r->next;
            cell_put(r);
        }
        c = pool[big];
    }
    if (c != NULL) {
        pool[big] = c->next;
        pool_len[big]--;
        return c;
    }
    c = aligned_alloc(64, big ? TC_CELL_BIG : TC_CELL_SMALL);
    if (c == NULL)
        abort();
    c->big = (uint32_t)big;
    return c;
}

/* cell_msg is a cell with room for payload bytes, headed for a message of size bytes
 * from rank src (no sender waits on it, no pool takes it back). */
tc_cell *cell_msg(int64_t payload, int src, int tag, int64_t size, uint32_t kind)
{
    tc_cell *c = cell_get(NULL, payload);
    c->src = src;
    c->tag = tag;
    c->size = size;
    c->kind = kind;
    c->sync = 0;
    c->home = NULL;
    return c;
}

void cell_put(tc_cell *c)
{
    int big = c->big != 0;
    if (pool_len[big] >= TC_POOL_MAX) {
        free(c);
        return;
    }
    c->next = pool[big];
    pool[big] = c;
    pool_len[big]++;
}

/* ---- the queue (Vyukov's intrusive MPSC) ---- */

/* q_init empties thread t's queue and lists (a zeroed t, or one a purge resets: the
 * thread itself may then be reading act and busy, in own_drain, which stay). */
void q_init(tc_thread *t, struct mpix_tc_act *a, int me)
{
    memset(&t->stub, 0, sizeof t->stub);
    t->head = &t->stub;
    t->tail = &t->stub;
    t->unexp_head = t->unexp_tail = NULL;
    t->posted_head = t->posted_tail = NULL;
    t->ret = NULL;
    t->act = a;
    t->me = me;
}


static tc_cell *q_pop(tc_thread *t)
{
    tc_cell *head = t->head, *next = __atomic_load_n(&head->next, __ATOMIC_ACQUIRE);
    if (head == &t->stub) {
        if (next == NULL)
            return NULL;
        t->head = head = next;
        next = __atomic_load_n(&head->next, __ATOMIC_ACQUIRE);
    }
    if (next != NULL) {
        t->head = next;
        return head;
    }
    if (head != __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE))
        return NULL; /* a push is half done: see it next time */
    q_push(t, &t->stub);
    next = __atomic_load_n(&head->next, __ATOMIC_ACQUIRE);
    if (next != NULL) {
        t->head = next;
        return head;
    }
    return NULL;
}

/* ---- the calling thread's activation ---- */




static inline int tc_match(const tc_cell *c, int src, int tag)
{
    return (src == MPI_ANY_SOURCE || src == c->src) && (tag == MPI_ANY_TAG || tag == c->tag);
}

/* cell_recycle gives a received eager cell back to its sender's pool. */
static void cell_recycle(tc_cell *c)
{
    struct tc_thread *h = c->home;
    if (h == NULL) {
        cell_put(c);
        return;
    }
    tc_cell *old = __atomic_load_n(&h->ret, __ATOMIC_RELAXED);
    do
        c->next = old;
    while (!__atomic_compare_exchange_n(&h->ret, &old, c, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* A large direct message is copied by both threads when its sender is waiting for it
 * anyway: the receiver, having claimed it, publishes where it goes (in the direct
 * cell's unused payload room) and marks it TC_COPYING; then each side takes
 * TC_COOP_CHUNK-byte chunks off a shared counter until none is left. One core's copy
 * is what limits a single-copy transfer of this size, so two copy about twice as
 * fast. The receiver marks the cell TC_DONE once every chunk's bytes are counted. */
#define TC_COOP_MIN (256 << 10)
#define TC_COOP_CHUNK (64 << 10)
typedef struct tc_coop {
    char *dst;
    int64_t n;
    int64_t next;   /* atomic: chunks handed out */
    int64_t copied; /* atomic: bytes copied */
} tc_coop;
_Static_assert(sizeof(tc_coop) <= TC_SMALL, "a direct cell has room for its copy state");

/* coop_help copies chunks of direct message c until none is left to hand out. */
void coop_help(tc_cell *c)
{
    tc_coop *k = (tc_coop *)cell_data(c);
    for (;;) {
        int64_t off = __atomic_fetch_add(&k->next, 1, __ATOMIC_RELAXED) * TC_COOP_CHUNK;
        if (off >= k->n)
            return;
        int64_t len = k->n - off < TC_COOP_CHUNK ? k->n - off : TC_COOP_CHUNK;
        memcpy(k->dst + off, (const char *)c->addr + off, (size_t)len);
        __atomic_add_fetch(&k->copied, len, __ATOMIC_RELEASE);
    }
}

/* coop_copy is the receiver's copy of n bytes of claimed direct message c into buf,
 * shared with its sender if the sender comes to help. */
static void coop_copy(tc_cell *c, void *buf, int64_t n)
{
    tc_coop *k = (tc_coop *)cell_data(c);
    k->dst = buf;
    k->n = n;
    k->next = 0;
    k->copied = 0;
    __atomic_store_n(&c->state, TC_COPYING, __ATOMIC_RELEASE);
    coop_help(c);
    for (uint32_t i = 0; __atomic_load_n(&k->copied, __ATOMIC_ACQUIRE) != n; i++)
        backoff(i); /* the sender's last chunk (it may have lost its core) */
}

/* take copies message c into buf (cap bytes) and disposes of the cell; it returns the
 * bytes copied and sets *err to MPI_ERR_TRUNCATE when the message did not fit. A
 * rendezvous from another process may still be arriving when it returns: then *rdv
 * gets Go's request for it (rdv NULL: take waits for it). */
int64_t tc_take(tc_cell *c, void *buf, int64_t cap, int *err, int32_t *rdv)
{
    int64_t n = c->size;
    *err = n > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    if (n > cap)
        n = cap;
    if (c->kind == TC_EAGER_CELL) {
        if (n > 0)
            memcpy(buf, cell_data(c), (size_t)n);
        cell_recycle(c);
        return n;
    }
    if (c->kind == TC_REMOTE_CELL) { /* the engine receives it */
        int64_t got = 0;
        *err = mpixTcMrecv(c->msg, buf, cap, &got, rdv);
        cell_put(c);
        return got;
    }
    uint32_t pending = TC_PENDING;
    if (__atomic_compare_exchange_n(&c->state, &pending, TC_CLAIMED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (n >= TC_COOP_MIN)
            coop_copy(c, buf, n);
        else if (n > 0)
            memcpy(buf, c->addr, (size_t)n);
        __atomic_store_n(&c->state, TC_DONE, __ATOMIC_RELEASE); /* the sender owns the cell */
        return n;
    }
    /* Orphaned: the sender left a heap copy and the cell to us. */
    if (n > 0)
        memcpy(buf, c->copy, (size_t)n);
    free(c->copy);
    cell_put(c);
    return n;
}


/* recv_done marks receive r complete once its outcome is in; a freed one goes. */
static void recv_done(tc_req *r)
{
    r->done = 1;
    if (r->orphan)
        orphan_done(r);
}

/* recv_none completes receive r with nothing received: from src (MPI_ANY_SOURCE or
 * MPI_PROC_NULL), class err, cancelled or not. */
void recv_none(tc_req *r, int src, int err, int cancelled)
{
    r->st_source = src;
    r->st_tag = MPI_ANY_TAG;
    r->st_bytes = 0;
    r->st_error = err;
    r->cancelled = (uint8_t)cancelled;
    r->done = 1;
}

/* unpost takes the receive at *pp (prev before it, or NULL) off thread t's posted
 * list. */
void tc_unpost(tc_thread *t, tc_req **pp, tc_req *prev)
{
    tc_req *r = *pp;
    *pp = r->next;
    if (t->posted_tail == r)
        t->posted_tail = prev;
}

void complete_recv(tc_req *r, tc_cell *c)
{
    r->st_source = c->src;
    r->st_tag = c->tag;
    r->st_bytes = tc_take(c, r->buf, r->cap, &r->st_error, &r->rdv);
    recv_done(r);
}

/* deliver gives message c to thread t's first matching posted receive, else to the
 * end of its unexpected list. */
static void tc_deliver(tc_thread *t, tc_cell *c)
{
    tc_req **pp = &t->posted_head, *prev = NULL;
    /* A purge receives nothing from another process (that is Go's engine, whose lock
     * a spanning threadcomm's purge holds): such a message goes. */
    tc_req *first = c->kind == TC_REMOTE_CELL && t->act->purging == TC_PURGE ? NULL : t->posted_head;
    for (tc_req *r = first; r != NULL; prev = r, pp = &r->next, r = r->next) {
        if (tc_match(c, r->src, r->tag)) {
            tc_unpost(t, pp, prev);
            complete_recv(r, c);
            return;
        }
    }
    c->next = NULL;
    if (t->unexp_tail)
        t->unexp_tail->next = c;
    else
        t->unexp_head = c;
    t->unexp_tail = c;
}

/* box_take delivers the message in box b (from thread src to t) and empties it:
 * straight into a matching posted receive, else through a cell. */
static void box_take(tc_thread *t, tc_box *b, int src, uint32_t seq)
{
    struct mpix_tc_act *a = t->act;
    tc_own *o = &a->own[t->me * TC_BOX_MAXN + src];
    int64_t n = b->size;
    int tag = b->tag;
    uint32_t ack = b->ack;
    if ((int32_t)(ack - o->acked) > 0)
        o->acked = ack; /* src has taken our box messages up to ack */
    o->seen = seq;
    int rank = a->base + src;
    tc_req **pp = &t->posted_head, *prev = NULL;
    for (tc_req *r = t->posted_head; r != NULL; prev = r, pp = &r->next, r = r->next) {
        if ((r->src == MPI_ANY_SOURCE || r->src == rank) && (r->tag == MPI_ANY_TAG || r->tag == tag)) {
            tc_unpost(t, pp, prev);
            int64_t m = n > r->cap ? r->cap : n;
            if (m > 0)
                memcpy(r->buf, b->data, (size_t)m);
            __atomic_store_n(&a->acks[t->me * TC_BOX_MAXN + src], seq, __ATOMIC_RELEASE);
            r->st_source = rank;
            r->st_tag = tag;
            r->st_bytes = m;
            r->st_error = n > r->cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
            recv_done(r);
            return;
        }
    }
    tc_cell *c = cell_msg(n, rank, tag, n, TC_EAGER_CELL);
    if (n > 0)
        memcpy(cell_data(c), b->data, (size_t)n);
    __atomic_store_n(&a->acks[t->me * TC_BOX_MAXN + src], seq, __ATOMIC_RELEASE);
    tc_deliver(t, c);
}

/* drain moves what arrived for thread t into its posted receives, else into its
 * unexpected list; it returns whether anything arrived. */
int tc_drain(tc_thread *t)
{
    int any = 0;
    struct mpix_tc_act *a = t->act;
    tc_box *row = a->boxes != NULL ? &a->boxes[(size_t)t->me * a->n] : NULL;
    tc_own *orow = a->boxes != NULL ? &a->own[t->me * TC_BOX_MAXN] : NULL;
    tc_cell *c;
    uint32_t seq;
    while ((c = q_pop(t)) != NULL) {
        any = 1;
        if (row == NULL) {
            tc_deliver(t, c);
            continue;
        }
        int src = c->src - a->base;
        if ((unsigned)src >= (unsigned)a->n) { /* from another process */
            tc_deliver(t, c);
            continue;
        }
        if ((seq = __atomic_load_n(&row[src].seq, __ATOMIC_ACQUIRE)) != orow[src].seen)
            box_take(t, &row[src], src, seq); /* older than c: see tc_box */
        tc_deliver(t, c);
        uint32_t *d = &a->drained[t->me * TC_BOX_MAXN + src];
        __atomic_store_n(d, *d + 1, __ATOMIC_RELEASE);
    }
    if (row != NULL) {
        for (int src = 0; src < a->n; src++) {
            if ((seq = __atomic_load_n(&row[src].seq, __ATOMIC_ACQUIRE)) != orow[src].seen) {
                box_take(t, &row[src], src, seq);
                any = 1;
            }
        }
    }
    return any;
}

/* unexp_find returns the first unexpected message matching (src, tag), unlinking it
 * when take_it is set. */
tc_cell *unexp_find(tc_thread *t, int src, int tag, int take_it)
{
    tc_cell *prev = NULL;
    for (tc_cell *c = t->unexp_head; c != NULL; prev = c, c = c->next) {
        if (!tc_match(c, src, tag))
            continue;
        if (take_it) {
            if (prev)
                prev->next = c->next;
            else
                t->unexp_head = c->next;
            if (t->unexp_tail == c)
                t->unexp_tail = prev;
        }
        return c;
    }
    return NULL;
}

/* post starts receive r on thread t: an unexpected message completes it now, else it
 * joins the posted list. Messages already queued are matched first, against the
 * receives posted before r. */
void tc_post(tc_thread *t, tc_req *r)
{
    r->cancelled = 0;
    tc_drain(t);
    tc_cell *c = unexp_find(t, r->src, r->tag, 1);
    if (c != NULL) {
        complete_recv(r, c);
        return;
    }
    r->done = 0;
    r->next = NULL;
    if (t->posted_tail)
        t->posted_tail->next = r;
    else
        t->posted_head = r;
    t->posted_tail = r;
}

