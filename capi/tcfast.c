/* Threadcomm messages between the threads of one process, in C (issue 6).
 *
 * The point-to-point traffic between threads of one process, and when every rank of
 * an active threadcomm is a thread of this process their Barrier, Bcast, Reduce and
 * Allreduce of builtin types, never enter Go: each costs a cgo crossing (~220 ns)
 * that is more than the whole message should. The rule that keeps the two paths
 * consistent is simple: on such an activation *every* message a thread receives
 * goes through its queue here. When the threadcomm spans processes, what the other
 * processes send to this process's threads comes through Go's engine, which pushes
 * it into the receiving thread's queue in arrival order (core: tcForward; small
 * eager data as a copy, anything else as a message Go receives once C matched it),
 * and a receive that may match one polls the engine; sends to other processes and
 * the collectives stay Go's. So a thread matches what it receives in one place, and
 * MPI_ANY_SOURCE and probes see both kinds of messages.
 *
 * The C fast paths (fast.h) cover the common calls; the Go path of the other calls
 * (derived datatypes, MPI_Bsend, MPI_Rsend, MPI_Count forms...) packs and calls
 * mpix_tc_send_bytes / mpix_tc_recv_bytes / mpix_tc_probe, or makes C requests over
 * packed copies (mpix_tc_isend_packed, mpix_tc_irecv_packed: Go packs a send's at its
 * start and unpacks a receive's at completion), so Go's engine never sees these
 * messages and nothing can overtake anything.
 *
 * Each receiving thread has a lock-free multi-producer single-consumer queue (Vyukov's
 * intrusive queue) of cells. A message up to TC_EAGER bytes is copied into a cell
 * (from a per-thread pool); a larger one, and every synchronous send, publishes the
 * sender's address and the receiver copies straight from it (one copy), then marks
 * the cell done. A sender that waits too long for that (the receiver may be busy
 * elsewhere) copies its data into the heap and orphans the cell, so a standard send
 * always completes without the receiver's help, as MPI requires of a buffered one.
 * Matching belongs to the receiving thread alone: it drains its queue into its
 * unexpected list, in arrival order, after offering each message to its posted
 * receives in posting order, so matching is non-overtaking per source and tag.
 *
 * The C state of a threadcomm (mpix_tc_act: queues, barrier) is made at its first
 * start, which goes through Go, and lives until MPIX_Threadcomm_free. A region whose
 * threads used only C ends in C: the finish barrier's last arriver empties the
 * queues and parks Go's activation (its key and per-thread views stay), and the next
 * MPIX_Threadcomm_start of the same threadcomm takes a rank in C (no barrier), so a region
 * entered and left in a loop (the paper's Figure 5) never enters Go. A region in
 * which Go resolved the threadcomm (capi/threadcomm.go: lookupComm) finishes through
 * Go, which ends whatever it derived; the next start goes through Go again. (A
 * threadcomm that spans processes always starts and finishes through Go, whose finish
 * is a barrier over the processes; its queues are emptied when the next region
 * starts.)
 *
 * Requests of these operations are C objects whose handles have the top two bits
 * set (Go's are 0b10...); C's Wait/Test family completes them and hands any other
 * handle to Go (capi/wait.go knows them too). */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "capi.h"
#include "fastint.h"
#include "tcfast.h"
#include "_cgo_export.h"

int mpix_omp_team_size(void);

#define TC_EAGER (16 << 10)
#define TC_POOL_MAX 64
#define TC_SPIN_FAST 256      /* empty polls without a pause */
#define TC_SPIN_YIELD 512     /* empty polls before a wait starts yielding the core */
#define TC_ORPHAN_SPINS 20000 /* polls before a waiting sender copies and leaves */
#define TC_BAR_SPIN 512       /* barrier polls before yielding the core */
#define TC_BAR_YIELDS 32      /* yields before sleeping on the futex */
#define TC_BAR_FLAT 3          /* teams up to this size arrive on one counter; larger
                                * ones up a tree (barrier_arrive) */
#define TC_BAR_FANIN 4         /* the arrival tree's nodes' children */
#define TC_ONE_SHOT (64 << 10) /* broadcasts copying up to this many bytes in all: one
                                * thread does the work inside a single barrier */
#define TC_ONE_FOLD (4 << 10)  /* teams without seats: reductions whose last arriver
                                * would read up to this many bytes of the other
                                * threads' inputs fold in one thread inside a single
                                * barrier; larger ones slice */
#define TC_SLICE_MIN 512       /* bytes: the least a thread folds of a reduction */
#define TC_SEAT_SMALL 16       /* bytes: reductions up to this size travel on the seats */

/* TC_REMOTE_CELL: a message from another process's thread that the engine holds
 * (mpixTcMrecv receives it); its eager data, when small, comes in a TC_EAGER_CELL. */
enum { TC_EAGER_CELL = 1, TC_DIRECT_CELL = 2, TC_REMOTE_CELL = 3 };
enum { TC_PENDING = 0, TC_CLAIMED = 1, TC_DONE = 2, TC_ORPHAN = 3, TC_COPYING = 4 };

typedef struct tc_cell {
    struct tc_cell *next; /* queue link (atomic), then list link */
    int32_t src, tag;
    int64_t size;
    uint32_t kind;
    uint32_t sync;        /* a synchronous send: never orphaned */
    uint32_t state;       /* direct cells: TC_PENDING..TC_COPYING (atomic) */
    uint32_t big;         /* 1: room for TC_EAGER bytes, 0: for TC_SMALL */
    const void *addr;     /* direct: the sender's buffer */
    union {
        void *copy;             /* direct, orphaned: the sender's heap copy */
        struct tc_thread *home; /* eager: whose pool it goes back to, or NULL */
        int32_t msg;            /* remote: Go's message handle */
    };
    /* An eager cell's payload follows (on the header's line for up to 8 bytes). */
} tc_cell;

static inline char *cell_data(tc_cell *c) { return (char *)(c + 1); }

/* A request: an Isend/Issend or an Irecv, or a blocking Recv's posted receive. */
typedef struct tc_req {
    struct tc_req *next; /* posted list; free list */
    uint32_t handle;
    uint8_t is_send, live;
    uint8_t persistent, active; /* MPI_*_init requests; active between Start and its report */
    uint8_t cancelled;          /* a receive MPI_Cancel took off the posted list */
    uint8_t delivered;          /* its packed copy was unpacked (MPI_Request_get_status) */
    uint8_t buffered;           /* a buffered send: completes at its start (a copy if need be) */
    uint8_t orphan;             /* a receive MPI_Request_free released while posted */
    uint32_t done;       /* atomic for sends (the cell's state is polled) */
    /* receive */
    void *buf;
    int64_t cap;
    int32_t src, tag;
    /* send (a message handle's taken cell, too) */
    tc_cell *cell;
    const void *sbuf;
    int64_t sbytes;
    int32_t dest, sync;
    uint32_t packed; /* a derived datatype's packed copy, Go's (or 0): a receive's is
                      * unpacked at completion, a persistent send's packed again at
                      * each start; it goes when the request is released */
    int32_t partner; /* MPI_Isendrecv: the Go send that must complete too (or 0) */
    int32_t rdv;     /* a matched rendezvous from another process: Go's receive (or 0) */
    /* outcome */
    int32_t st_source, st_tag, st_error;
    int64_t st_bytes;
} tc_req;

/* One receiving thread. */
typedef struct tc_thread {
    tc_cell *tail; /* producers swap here */
    char pad0[56];
    tc_cell *head;         /* the consumer's end */
    tc_cell *unexp_head, *unexp_tail;
    tc_req *posted_head, *posted_tail;
    struct mpix_tc_act *act;
    int32_t me;
    uint32_t busy; /* atomic: the thread drains its queue while it waits (own_drain) */
    tc_cell stub;
    /* Eager cells this thread sent, given back by their receivers (pushed like the
     * queue, taken whole by the thread when its pool runs dry): a one-way stream
     * does not malloc in the sender and free in the receiver, which contend on
     * malloc's arena lock. */
    tc_cell *ret __attribute__((aligned(64)));
} __attribute__((aligned(64))) tc_thread;

/* Fastboxes: with at most TC_BOX_MAXN threads, each ordered pair of threads has a
 * one-line box for one small message, which costs fewer cache-line transfers than a
 * queued cell: the sender writes the line, the receiver reads it, and nobody else
 * writes it. A message is new to the receiver when the box's sequence number differs
 * from the last one it took; the sender may reuse the box once the receiver has
 * taken its last message, which it learns from the receiver's acknowledgement line
 * or, free of any transfer, from the acknowledgement the receiver piggybacks on its
 * own box messages back (a ping-pong never reads the line).
 *
 * Order: a sender uses its box only when the receiver has drained every cell the
 * sender queued to it (drained == queued); the receiver, before a queued cell from a
 * sender, takes that sender's new box message, which is then the older one. So
 * messages from one sender are seen in the order sent. */
#define TC_BOX_MAXN 16
#define TC_BOX_BYTES 48
typedef struct tc_box {
    uint32_t seq; /* atomic: the sender's count of box messages, written last */
    uint32_t ack; /* the box messages the sender has taken from the receiver */
    int32_t tag;
    int32_t size;
    char data[TC_BOX_BYTES];
} __attribute__((aligned(64))) tc_box;

/* What one thread alone keeps about one peer (own[me*TC_BOX_MAXN+peer]). */
typedef struct tc_own {
    uint32_t queued; /* cells queued to peer */
    uint32_t dcache; /* the peer's drained count of them, as last read */
    uint32_t bsent;  /* box messages sent to peer */
    uint32_t acked;  /* of those, taken by peer as far as known */
    uint32_t seen;   /* the peer's box message taken last (its seq) */
} tc_own;

/* Seats: with at most TC_BOX_MAXN threads, reductions synchronise through one line
 * per thread instead of the barrier's shared counter. A thread writes its buffers
 * and its arrival on its own line, reads the others' lines, folds its slice, then
 * posts that it is done with the others' buffers. Its own line is the only one it
 * writes, so a late thread's arrival costs one transfer (the others' lines it reads)
 * where the counter costs two read-modify-writes of a line the waiters keep reading,
 * and no thread has to be the last one: all of them fold at once. The words count the
 * reductions a rank took part in, equal across the ranks between reductions; the top
 * bit says that a thread sleeps on the word. A thread keeps its seat from region to
 * region when it can (take_seat), and with it its slice of every result. */
typedef struct tc_seat {
    const void *sbuf;
    void *rbuf;
    uint32_t arrived; /* atomic: the reduction the seat's thread arrived in */
    uint32_t folded;  /* atomic: the reduction whose slice it has folded */
    /* Small inputs travel on the seat's own line (seat_small), alternating between
     * two copies by generation: a rank rewrites one only two reductions later, once
     * it has finished the one between, which every reader of the copy entered (and
     * so had folded it) before that could end. */
    char small[2][TC_SEAT_SMALL];
    int32_t rank; /* the rank of the seat's thread in this region */
} __attribute__((aligned(64))) tc_seat;
_Static_assert(sizeof(tc_seat) == 64, "a seat is one line");
_Static_assert(offsetof(tc_seat, small) % 8 == 0 && TC_SEAT_SMALL % 8 == 0, "small copies are 8-byte aligned");
#define TC_SEAT_WAITER 0x80000000u
#define TC_SEAT_GEN 0x7fffffffu

#define TC_SETTLE 1u /* purge_begin: deliver what arrived, from other processes too */
#define TC_PURGE 2u  /* purge_begin: deliver this process's messages only, then reset */

struct mpix_tc_act {
    mpix_tc_team team; /* first: Go reads it */
    int32_t n;         /* this process's threads */
    MPI_Comm handle;
    uint32_t stale;   /* atomic: a thread left something behind at finish */
    uint32_t purging; /* atomic: TC_SETTLE or TC_PURGE runs (purge_begin) */
    /* A threadcomm that spans processes: its ranks are size, this process's threads
     * are ranks base..base+n-1, and messages from the other processes arrive as cells
     * that the engine pushes (mpix_tc_push_*); everything else, and all collectives,
     * stay with Go. Cells and statuses carry threadcomm ranks; th[], boxes and counts
     * are indexed by thread (rank - base). */
    int32_t base, size;
    uint32_t spanning;
    char pad0[20];
    /* Barrier, on a line of its own: one word of arrivals (low half) and generation
     * (high half, the futex word), so that an arrival learns its generation and the
     * last one releases with one atomic on one line. What a barrier's waiters read
     * after it (the finish's decision) and the start's arrivals share the line: a
     * region's synchronisation moves this one line between cores, nothing else.
     * (Above TC_BAR_FLAT threads, arrivals go up bar_nodes instead, and the low
     * half stays 0.) */
    uint64_t bar;
    uint32_t sleepers;
    uint32_t arrived;   /* threads that started the region in C (n: Go started it) */
    uint32_t go_finish; /* the last finish's decision (1: Go ends the activation) */
    uint32_t seat_claims; /* atomic: the seats taken in this region, a bit each (take_seat) */
    char pad1[40];
    /* Collectives: each thread's buffers, read after a barrier. */
    const void **sbuf;
    void **rbuf;
    /* Fastboxes (NULL above TC_BOX_MAXN threads): boxes[dst*n+src]; per-thread
     * private counts own[me*TC_BOX_MAXN+peer]; lines the receiver writes and senders
     * read: drained[dst*TC_BOX_MAXN+src] (cells drained) and acks[dst*TC_BOX_MAXN+src]
     * (the box message taken last). */
    tc_box *boxes;
    tc_own *own;
    uint32_t *drained, *acks;
    tc_seat *seats; /* NULL above TC_BOX_MAXN threads */
    /* The barrier's arrival tree (NULL up to TC_BAR_FLAT threads, see
     * barrier_arrive): its levels one after the other, leaves first. */
    struct tc_bar_node *bar_nodes;
    tc_thread th[];
};
_Static_assert(offsetof(struct mpix_tc_act, bar) == 64 && offsetof(struct mpix_tc_act, sbuf) == 128,
               "the barrier has a line of its own");

/* Waits poll; past TC_SPIN_YIELD polls they give the core away (two cores, many
 * threads) and now and then let Go progress the other communicators. */
static inline void backoff(uint32_t i)
{
    if (i < TC_SPIN_FAST)
        return; /* a pause costs ~140 cycles here: it would delay seeing the message */
    if (i < TC_SPIN_YIELD) {
        cpu_relax();
        return;
    }
    sched_yield();
    if ((i & 1023) == 0)
        mpixGoProgress();
}

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

static void cell_put(tc_cell *c);

/* cell_get returns a cell for payload bytes; home is the calling thread's queue, whose
 * returned cells refill its pools. */
static tc_cell *cell_get(struct tc_thread *home, int64_t payload)
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
static tc_cell *cell_msg(int64_t payload, int src, int tag, int64_t size, uint32_t kind)
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

static void cell_put(tc_cell *c)
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
static void q_init(tc_thread *t, struct mpix_tc_act *a, int me)
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

static inline void q_push(tc_thread *t, tc_cell *c)
{
    __atomic_store_n(&c->next, NULL, __ATOMIC_RELAXED);
    tc_cell *prev = __atomic_exchange_n(&t->tail, c, __ATOMIC_ACQ_REL);
    __atomic_store_n(&prev->next, c, __ATOMIC_RELEASE);
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

/* tc_self returns the activation when comm is the calling thread's active threadcomm
 * and its messages run here, with the thread's rank. */
static inline mpix_tc_act *tc_self(MPI_Comm comm, int *me)
{
    mpix_ctx *x = mpix_tls_ctx;
    if (x == NULL || x->tc_act == NULL || x->tc_handle != comm)
        return NULL;
    *me = x->threadcomm_thread;
    return (mpix_tc_act *)x->tc_act;
}

/* is_local reports whether threadcomm rank r is a thread of this process. */
static inline int is_local(const mpix_tc_act *a, int r) { return (unsigned)(r - a->base) < (unsigned)a->n; }

/* poll_remote lets Go move what other processes sent to this process's threads into
 * their queues (mpix_tc_push_*), when a threadcomm spans processes and a receive
 * from src may come from another process. A receive from this process does not: the
 * cgo callback (~200 ns, and a wait for one of Go's Ps when threads outnumber cores)
 * would cost more than its message, and backoff's rounds of global progress move the
 * engine's other traffic. */
static inline void poll_remote(const mpix_tc_act *a, int src)
{
    if (a->spanning && (src == MPI_ANY_SOURCE || !is_local(a, src)))
        mpixTcPoll(a->handle);
}

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
static void coop_help(tc_cell *c)
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
static int64_t take(tc_cell *c, void *buf, int64_t cap, int *err, int32_t *rdv)
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

static void orphan_done(tc_req *r);

/* recv_done marks receive r complete once its outcome is in; a freed one goes. */
static void recv_done(tc_req *r)
{
    r->done = 1;
    if (r->orphan)
        orphan_done(r);
}

/* recv_none completes receive r with nothing received: from src (MPI_ANY_SOURCE or
 * MPI_PROC_NULL), class err, cancelled or not. */
static void recv_none(tc_req *r, int src, int err, int cancelled)
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
static void unpost(tc_thread *t, tc_req **pp, tc_req *prev)
{
    tc_req *r = *pp;
    *pp = r->next;
    if (t->posted_tail == r)
        t->posted_tail = prev;
}

static void complete_recv(tc_req *r, tc_cell *c)
{
    r->st_source = c->src;
    r->st_tag = c->tag;
    r->st_bytes = take(c, r->buf, r->cap, &r->st_error, &r->rdv);
    recv_done(r);
}

/* deliver gives message c to thread t's first matching posted receive, else to the
 * end of its unexpected list. */
static void deliver(tc_thread *t, tc_cell *c)
{
    tc_req **pp = &t->posted_head, *prev = NULL;
    /* A purge receives nothing from another process (that is Go's engine, whose lock
     * a spanning threadcomm's purge holds): such a message goes. */
    tc_req *first = c->kind == TC_REMOTE_CELL && t->act->purging == TC_PURGE ? NULL : t->posted_head;
    for (tc_req *r = first; r != NULL; prev = r, pp = &r->next, r = r->next) {
        if (tc_match(c, r->src, r->tag)) {
            unpost(t, pp, prev);
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
            unpost(t, pp, prev);
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
    deliver(t, c);
}

/* drain moves what arrived for thread t into its posted receives, else into its
 * unexpected list; it returns whether anything arrived. */
static int drain(tc_thread *t)
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
            deliver(t, c);
            continue;
        }
        int src = c->src - a->base;
        if ((unsigned)src >= (unsigned)a->n) { /* from another process */
            deliver(t, c);
            continue;
        }
        if ((seq = __atomic_load_n(&row[src].seq, __ATOMIC_ACQUIRE)) != orow[src].seen)
            box_take(t, &row[src], src, seq); /* older than c: see tc_box */
        deliver(t, c);
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
static tc_cell *unexp_find(tc_thread *t, int src, int tag, int take_it)
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
static void post(tc_thread *t, tc_req *r)
{
    r->cancelled = 0;
    drain(t);
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
static int send_test(tc_cell *c, int force)
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

/* ---- requests ---- */

#define TC_REQ_MAX (1u << 20)
#define TC_REQ_TAG 0xEC000000u /* top bits 11, kind request (0xb) */

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
        q->handle = TC_REQ_TAG | (base + i);
        q->next = req_free;
        req_free = q;
    }
    r = &b[base % 1024];
    r->handle = TC_REQ_TAG | base;
    return r;
}

/* req_new is a live request, inactive, with no cell and nothing for Go to finish
 * (NULL when no handle is left). */
static tc_req *req_new(int is_send, int persistent)
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

int mpix_tc_is_request(MPI_Request h) { return ((uint32_t)h & 0xfc000000u) == TC_REQ_TAG; }

static tc_req *req_lookup(MPI_Request h)
{
    uint32_t i = (uint32_t)h & 0x03ffffffu;
    if (!mpix_tc_is_request(h) || i >= TC_REQ_MAX)
        return NULL;
    tc_req *b = __atomic_load_n(&reqs[i / 1024], __ATOMIC_ACQUIRE);
    if (b == NULL || !b[i % 1024].live)
        return NULL;
    return &b[i % 1024];
}

/* cur_comm is the calling thread's active threadcomm, whose handler reports errors of
 * its requests. */
static inline MPI_Comm cur_comm(void)
{
    mpix_ctx *x = mpix_tls_ctx;
    return x != NULL && x->tc_act != NULL ? x->tc_handle : MPI_COMM_WORLD;
}

/* partner_done tests (block: waits for) the Go request *h that receive r completes
 * with, and once it is done clears *h and keeps its error in r's outcome. */
static int partner_done(tc_req *r, int32_t *h, int block)
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
            drain(&a->th[me]);
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
static void put_status(MPI_Status *st, int src, int tag, int64_t bytes, int cancelled)
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
static void orphan_done(tc_req *r)
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
static int req_finish(tc_req *r, MPI_Request *h, MPI_Status *st)
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

/* ---- byte-level operations (also called from Go) ---- */

static inline int64_t dt_bytes(MPI_Datatype dt)
{
    uint32_t i = (uint32_t)dt & 0xff;
    return mpix_fast_dthandle[i] == dt ? (int64_t)mpix_fast_dtsize[i] : 0;
}

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
    post(t, &r);
    if (a->spanning && src != MPI_ANY_SOURCE && !is_local(a, src)) {
        /* From another process: only the engine can complete it, and Go waits on
         * the engine until something is pushed into this thread's queue (the tail
         * moves), or a while, after which the queue is drained again: a thread of
         * this process may send a message that an earlier receive takes, and its
         * sender may wait for that. */
        while (!r.done) {
            void *tail = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE);
            if (!drain(t))
                mpixTcWaitRemote(a->handle, (void **)&t->tail, tail);
        }
    }
    for (uint32_t i = 0; !r.done; i++) {
        poll_remote(a, src);
        if (!drain(t))
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
        drain(t);
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
        post(&a->th[me], r);
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
        post(&a->th[me], r);
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
static int reap_abandoned(void)
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
        take(r->cell, NULL, 0, &err, NULL);
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
        post(&a->th[me], r);
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
            if (req_lookup(array_of_requests[i]) == NULL && !mpixStartableGo(array_of_requests[i]))
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
    drain(t);
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
        unpost(t, pp, prev);
        recv_none(r, MPI_ANY_SOURCE, MPI_SUCCESS, 1);
        break;
    }
    return 0;
}

/* mpix_tc_request_state advances C request h once without completing it (force: a
 * direct send that waited long enough leaves a copy, as in a Wait): 0 when it is
 * inactive (a persistent request not started), 1 pending, 2 complete; -1 when h is
 * not a live C request (capi/tcwait.go). */
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

/* ---- taking messages while waiting for something else ----
 *
 * A thread with receives posted takes what arrives for them while it waits in a
 * barrier, in the finish or in Go (MPI's progress rule: a synchronous or rendezvous
 * sender may be waiting for it before it can arrive). A purge drains every thread's
 * queue itself; the two announce themselves in sequentially consistent order
 * (t->busy, a->purging), so that one queue never has two consumers. */

/* posting_self is the calling thread's queue in its active threadcomm when it has
 * receives posted (NULL otherwise). */
static inline tc_thread *posting_self(void)
{
    mpix_ctx *x = mpix_tls_ctx;
    if (x == NULL || x->tc_act == NULL)
        return NULL;
    tc_thread *t = &((mpix_tc_act *)x->tc_act)->th[x->threadcomm_thread];
    return t->posted_head != NULL ? t : NULL;
}

/* own_drain drains thread t's queue for t itself, unless a purge runs; it reports
 * whether anything arrived. */
static int own_drain(tc_thread *t)
{
    /* Set already: this call is nested in the thread's own drain (a Go wait inside
     * it, e.g. for a freed receive's rendezvous), which stays the queue's consumer. */
    if (t->busy)
        return 0;
    __atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
    int any = 0;
    if (__atomic_load_n(&t->act->purging, __ATOMIC_SEQ_CST) == 0)
        any = drain(t);
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
    return any;
}

/* purge_begin makes the calling thread the only consumer of every queue of a. */
static void purge_begin(mpix_tc_act *a, uint32_t kind)
{
    __atomic_store_n(&a->purging, kind, __ATOMIC_SEQ_CST);
    for (int i = 0; i < a->n; i++)
        for (uint32_t k = 0; __atomic_load_n(&a->th[i].busy, __ATOMIC_SEQ_CST); k++)
            if (k > TC_SPIN_FAST)
                cpu_relax();
}

static void purge_end(mpix_tc_act *a) { __atomic_store_n(&a->purging, 0, __ATOMIC_RELEASE); }

/* mpix_tc_idle is a Go wait's turn for the calling thread's queue; it reports whether
 * the thread has receives posted (then it must not sleep). */
int mpix_tc_idle(void)
{
    tc_thread *t = posting_self();
    if (t == NULL)
        return 0;
    own_drain(t);
    return 1;
}

/* mpix_tc_settle delivers what has arrived for a spanning threadcomm's threads, from
 * other processes too: Go's finish calls it without the engine's lock, then the
 * purge under it, which ends what this begins (the threads' own drains stay off in
 * between: one could otherwise wait for Go's engine inside the purge's lock). */
void mpix_tc_settle(mpix_tc_act *a)
{
    purge_begin(a, TC_SETTLE);
    for (int i = 0; i < a->n; i++)
        drain(&a->th[i]);
    __atomic_store_n(&a->purging, TC_PURGE, __ATOMIC_SEQ_CST);
}

/* ---- collectives of a single-process activation ---- */

#define TC_BAR_GEN ((uint64_t)1 << 32)

static inline uint32_t bar_gen(const mpix_tc_act *a)
{
    return (uint32_t)(__atomic_load_n(&a->bar, __ATOMIC_ACQUIRE) >> 32);
}

/* The generation half of bar, for the futex and the waits' polls (the high half is
 * the second word on little-endian targets; GCC and the kernel read it as a 32-bit
 * word of the 64-bit one). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bar_futex is the high half of bar");
static inline uint32_t *bar_futex(mpix_tc_act *a) { return (uint32_t *)&a->bar + 1; }

/* moved says whether word w has left generation g (a barrier's, reached == 0) or,
 * a seat's word (reached == 1), has reached g or a later generation: seat
 * generations count modulo 2^31 and none is more than one ahead of a waiter, so
 * "later" is less than 2^30 ahead (the top bit, a waiter's, drops out). A seat's
 * waiter must accept a later one: in a one-round reduction (seat_small) a rank that
 * has seen everyone arrive moves on, and may arrive again before a slow waiter looks. */
static inline int seat_reached(uint32_t v, uint32_t g) { return ((v - g) & TC_SEAT_GEN) <= (TC_SEAT_GEN >> 1); }

static inline int moved(const uint32_t *w, uint32_t g, int reached)
{
    uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    return reached ? seat_reached(v, g) : v != g;
}

/* poll_wait is a collective's wait up to sleeping, for word w to have moved: it spins
 * briefly (the threads of a region usually arrive together), then yields a little
 * (more threads than cores). It returns 0 when the caller should sleep. Sleeping at
 * once when the team outnumbers the CPUs (libgomp's throttled wait) measured worse
 * here on a quiet machine (docs/performance.md, session 12). */
static inline __attribute__((always_inline)) int poll_wait(mpix_tc_act *a, const uint32_t *w, uint32_t g,
                                                           int reached)
{
    /* A thread with receives posted keeps taking its messages while it waits: a
     * synchronous sender may need one of them taken before it can arrive (MPI's
     * progress rule), and it does not sleep. */
    tc_thread *t = posting_self();
    if (t != NULL && t->act == a) {
        for (uint32_t i = 0; !moved(w, g, reached); i++)
            if (!own_drain(t))
                backoff(i);
        return 1;
    }
    for (uint32_t i = 0; i < TC_BAR_SPIN; i++) {
        if (moved(w, g, reached))
            return 1;
        if (i >= TC_SPIN_FAST)
            cpu_relax(); /* not at first: a pause is ~140 cycles of not seeing w move */
    }
    for (uint32_t i = 0; i < TC_BAR_YIELDS; i++) {
        if (moved(w, g, reached))
            return 1;
        sched_yield();
    }
    return 0;
}

/* gen_wait waits until the barrier's generation moves past g, then sleeps on the
 * futex (hundreds of threads: the ones with work left get the cores). */
static void gen_wait(mpix_tc_act *a, uint32_t g)
{
    if (!poll_wait(a, bar_futex(a), g, 0))
        while (bar_gen(a) == g) {
            __atomic_add_fetch(&a->sleepers, 1, __ATOMIC_SEQ_CST);
            syscall(SYS_futex, bar_futex(a), FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
            __atomic_sub_fetch(&a->sleepers, 1, __ATOMIC_SEQ_CST);
        }
#ifdef __SANITIZE_THREAD__
    /* ThreadSanitizer pairs a release with an acquire of the same address only: the
     * poll reads the generation's half of bar, gen_release adds to all of it. An
     * acquire of the whole word shows it the barrier (make sanitize; no code else). */
    (void)__atomic_load_n(&a->bar, __ATOMIC_ACQUIRE);
#endif
}

/* gen_release ends the barrier generation that all n threads have arrived in: one
 * addition empties the arrivals (n) and moves the generation on. A sleeper counts
 * itself before the kernel checks the generation, and both sides use sequentially
 * consistent order, so either the sleeper sees the new generation or the releaser
 * sees the sleeper. */
static void gen_release(mpix_tc_act *a)
{
    /* (With a tree, bar holds only the generation.) */
    __atomic_fetch_add(&a->bar, TC_BAR_GEN - (a->bar_nodes != NULL ? 0 : (uint64_t)a->n), __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&a->sleepers, __ATOMIC_SEQ_CST) != 0)
        syscall(SYS_futex, bar_futex(a), FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* A node of the barrier's arrival tree, on a line of its own. */
typedef struct tc_bar_node {
    uint32_t count; /* atomic: arrivals in this generation */
    int32_t members;
} __attribute__((aligned(64))) tc_bar_node;

/* bar_level is the number of tree nodes that width arrivals (threads, or the nodes of
 * the level below) go up to. */
static inline int32_t bar_level(int32_t width) { return (width + TC_BAR_FANIN - 1) / TC_BAR_FANIN; }

/* barrier_arrive is the arrival half of a barrier: it returns 1 to the last of the n
 * threads to arrive, which must then call gen_release(a) (after any work that the
 * others must see), and 0 to the others, which call gen_wait(a, *g). No thread
 * arrives again before the release, so the generation read with the arrival is the
 * one being counted.
 *
 * Up to TC_BAR_FLAT threads, arrivals and the generation share one word: a thread
 * learns its generation from its arrival, and the release is one atomic on one line.
 * Above, n read-modify-writes of the line that n-1 waiters keep reading serialise
 * behind those reads (at 16 threads, twice OpenMP's barrier). There the waiters read
 * only the generation, and threads arrive up a tree of counters, TC_BAR_FANIN to a
 * node, each on its own line: the last arrival at a node arrives at its parent, and
 * the last at the root releases. A node's last clears it before going up, which the
 * release passes on to every waiter before it can arrive again. */
static inline int barrier_arrive(mpix_tc_act *a, uint32_t *g)
{
    if (a->bar_nodes == NULL) {
        uint64_t w = __atomic_fetch_add(&a->bar, 1, __ATOMIC_ACQ_REL);
        *g = (uint32_t)(w >> 32);
        return (uint32_t)w + 1 == (uint32_t)a->n;
    }
    *g = bar_gen(a); /* it cannot move before this thread has arrived */
    int32_t i = mpix_tls_ctx->threadcomm_thread, width = a->n;
    for (tc_bar_node *level = a->bar_nodes;;) {
        int32_t nodes = bar_level(width);
        i /= TC_BAR_FANIN;
        tc_bar_node *node = &level[i];
        if (__atomic_add_fetch(&node->count, 1, __ATOMIC_ACQ_REL) != (uint32_t)node->members)
            return 0;
        __atomic_store_n(&node->count, 0, __ATOMIC_RELAXED);
        if (nodes == 1)
            return 1;
        level += nodes;
        width = nodes;
    }
}

static void barrier(mpix_tc_act *a)
{
    uint32_t g;
    if (barrier_arrive(a, &g))
        gen_release(a);
    else
        gen_wait(a, g);
}

/* seat_post sets a seat word to generation g. An exchange rather than a store: it
 * returns the waiter bit that a sleeper set before the new generation, so no wake is
 * lost (a sleeper sets it with a compare-and-swap on the generation it saw, and the
 * kernel sleeps only while the word still holds that). */
static inline void seat_post(uint32_t *w, uint32_t g)
{
    if (__atomic_exchange_n(w, g, __ATOMIC_SEQ_CST) & TC_SEAT_WAITER)
        syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* seat_wait waits until another rank's seat word reaches generation g (or a later
 * one, see moved). */
static void seat_wait(mpix_tc_act *a, uint32_t *w, uint32_t g)
{
    if (moved(w, g, 1) || poll_wait(a, w, g, 1))
        return;
    for (;;) {
        uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        if (seat_reached(v, g))
            return;
        if (!(v & TC_SEAT_WAITER) &&
            !__atomic_compare_exchange_n(w, &v, v | TC_SEAT_WAITER, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
            continue;
        syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v | TC_SEAT_WAITER, NULL, NULL, 0);
    }
}

/* The collectives here are a single-process activation's; Go composes those of a
 * threadcomm that spans processes. */
static inline mpix_tc_act *coll_self(MPI_Comm comm, int *me)
{
    mpix_tc_act *a = tc_self(comm, me);
    return a != NULL && !a->spanning ? a : NULL;
}

int mpix_fast_MPI_Barrier(MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL)
        return MPIX_FAST_MISS;
    barrier(a);
    return MPI_SUCCESS;
}

/* ---- views: the buffers of the copying collectives ----
 *
 * Broadcasts, gathers, scatters and all-to-alls between the threads of one process
 * copy straight between the threads' buffers. Each thread describes its buffer as
 * blocks (a view: one block per rank, or one) and posts it. A buffer of a derived
 * datatype travels packed (into a staging area, unpacked after, by Go's datatype
 * engine): MPI lets one thread pass a derived datatype where another passes a
 * predefined one of the same signature, and a thread that went to Go would leave the
 * others waiting, so every thread stays in C whatever its datatypes. */

#define TC_VIEW_INLINE 16

typedef struct tc_view {
    int nblk;
    char **blk;   /* block addresses: in the user's buffer, or in tmp when packed */
    size_t *len;  /* block bytes */
    char *tmp;    /* packed staging (derived datatype), or NULL */
    void *user;   /* what to unpack into, for a receive view with tmp */
    MPI_Datatype dt;
    int64_t ext;
    const int *counts, *displs; /* per block (v-variants), or NULL: count each, in order */
    int count;
    char *blk_in[TC_VIEW_INLINE];
    size_t len_in[TC_VIEW_INLINE];
} tc_view;

static void view_free(tc_view *v)
{
    if (v->blk != v->blk_in) {
        free(v->blk);
        free(v->len);
    }
    free(v->tmp);
}

/* view_init describes nblk blocks of buf: block b holds counts[b] elements of dt at
 * displs[b] extents (v-variants), or count elements at b*count extents. A receive
 * view (recv) of a derived datatype gets a staging area, packed with the buffer's
 * contents first when keep (in place: some blocks are inputs). It returns 0 on bad
 * arguments (negative counts, an invalid or uncommitted datatype), having raised
 * nothing: the caller goes to Go, which reports them. */
static int view_init(tc_view *v, const void *buf, int nblk, int count, const int *counts, const int *displs,
                     MPI_Datatype dt, int recv, int keep)
{
    memset(v, 0, offsetof(tc_view, blk_in));
    v->nblk = nblk;
    v->blk = v->blk_in;
    v->len = v->len_in;
    if (nblk > TC_VIEW_INLINE) {
        v->blk = malloc((size_t)nblk * sizeof *v->blk);
        v->len = malloc((size_t)nblk * sizeof *v->len);
        if (v->blk == NULL || v->len == NULL) {
            free(v->blk);
            free(v->len);
            v->blk = v->blk_in; /* view_free frees nothing */
            return 0;
        }
    }
    v->user = (void *)buf, v->dt = dt, v->count = count, v->counts = counts, v->displs = displs;
    int64_t size = dt_bytes(dt), ext = size, packed = size; /* packed: bytes an element packs into */
    if (size == 0 && !mpixGoTypeView(dt, &ext, &packed))
        goto bad; /* not a committed datatype */
    v->ext = ext;
    size_t total = 0;
    for (int b = 0; b < nblk; b++) {
        int c = counts != NULL ? counts[b] : count;
        if (c < 0)
            goto bad;
        v->len[b] = (size_t)c * (size_t)packed;
        total += v->len[b];
    }
    if (size > 0) {
        for (int b = 0; b < nblk; b++) {
            int64_t at = displs != NULL ? displs[b] : (int64_t)b * count;
            v->blk[b] = (char *)buf + at * ext;
        }
        return 1;
    }
    /* Derived: staged. A send view packs now; a receive view packs only when some of
     * its blocks are inputs (in place), and unpacks in view_finish. */
    v->tmp = malloc(total > 0 ? total : 1);
    if (v->tmp == NULL)
        goto bad;
    size_t off = 0;
    for (int b = 0; b < nblk; b++) {
        v->blk[b] = v->tmp + off;
        if (!recv || keep) {
            int c = counts != NULL ? counts[b] : count;
            int64_t at = displs != NULL ? displs[b] : (int64_t)b * count;
            if (!mpixGoPack(0, (char *)buf + at * ext, c, dt, v->blk[b], (int64_t)v->len[b]))
                goto bad;
        }
        off += v->len[b];
    }
    return 1;
bad:
    view_free(v);
    return 0;
}

/* view_finish unpacks a staged receive view into the user's buffer (the datatype
 * passed mpixGoTypeView and the sizes are its own: it cannot refuse), and frees the
 * view. */
static void view_finish(tc_view *v, int recv)
{
    if (recv && v->tmp != NULL)
        for (int b = 0; b < v->nblk; b++) {
            int c = v->counts != NULL ? v->counts[b] : v->count;
            int64_t at = v->displs != NULL ? v->displs[b] : (int64_t)b * v->count;
            mpixGoPack(1, (char *)v->user + at * v->ext, c, v->dt, v->blk[b], (int64_t)v->len[b]);
        }
    view_free(v);
}

/* copy_block moves one block between two views' blocks; signatures match (MPI's
 * rule), so the lengths agree unless the program is erroneous: then the shorter. */
static inline void copy_block(char *dst, size_t dlen, const char *src, size_t slen)
{
    size_t n = dlen < slen ? dlen : slen;
    if (n > 0 && dst != src)
        memcpy(dst, src, n);
}

int mpix_fast_MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    tc_view v;
    if (a == NULL || root < 0 || root >= a->n || !view_init(&v, buffer, 1, count, NULL, NULL, datatype, me != root, 0))
        return MPIX_FAST_MISS;
    a->rbuf[me] = v.blk[0];
    size_t bytes = v.len[0]; /* the same on every thread: the signatures match */
    if (bytes * (size_t)(a->n - 1) <= TC_ONE_SHOT) {
        /* Small: the last to arrive copies for everyone; one barrier. */
        uint32_t g;
        if (barrier_arrive(a, &g)) {
            for (int i = 0; i < a->n && bytes > 0; i++)
                if (i != root)
                    memcpy(a->rbuf[i], a->rbuf[root], bytes);
            gen_release(a);
        } else
            gen_wait(a, g);
    } else {
        barrier(a);
        if (me != root)
            memcpy(v.blk[0], a->rbuf[root], bytes);
        barrier(a); /* the root's buffer is read until here */
    }
    view_finish(&v, me != root);
    return MPI_SUCCESS;
}

/* The predefined operations on the common element types: each thread folds a slice
 * of the elements over all threads' contributions, in rank order, a chunk at a time
 * into a local accumulator (vectorized; every input is read before any output is
 * written, so an in-place root's buffer may be both). */
#define TC_CHUNK 256
#define TC_FOLD(T, EXPR)                                                                 \
    do {                                                                                 \
        if (n == 2 && nout <= 2) {                                                       \
            /* Two threads (the common team): one pass, element by element, with no    \
             * staging (each element's inputs are read before its outputs are written, \
             * so in place is safe). */                                                  \
            const T *x0 = (const T *)in[0], *x1 = (const T *)in[1];                     \
            T *o0 = (T *)out[0], *o1 = (T *)out[nout - 1];                               \
            if (nout == 1)                                                               \
                for (int64_t j = lo; j < hi; j++) {                                      \
                    T a = x0[j], b = x1[j];                                              \
                    o0[j] = (EXPR);                                                      \
                }                                                                        \
            else                                                                         \
                for (int64_t j = lo; j < hi; j++) {                                      \
                    T a = x0[j], b = x1[j];                                              \
                    o0[j] = o1[j] = (EXPR);                                              \
                }                                                                        \
            break;                                                                       \
        }                                                                                \
        T acc[TC_CHUNK];                                                                 \
        for (int64_t c0 = lo; c0 < hi; c0 += TC_CHUNK) {                                 \
            int64_t m = hi - c0 < TC_CHUNK ? hi - c0 : TC_CHUNK;                         \
            const T *x = (const T *)in[0] + c0;                                          \
            for (int64_t j = 0; j < m; j++)                                              \
                acc[j] = x[j];                                                           \
            for (int k = 1; k < n; k++) {                                                \
                x = (const T *)in[k] + c0;                                               \
                for (int64_t j = 0; j < m; j++) {                                        \
                    T a = acc[j], b = x[j];                                              \
                    acc[j] = (EXPR);                                                     \
                }                                                                        \
            }                                                                            \
            for (int k = 0; k < nout; k++)                                               \
                memcpy((T *)out[k] + c0, acc, (size_t)m * sizeof(T));                   \
        }                                                                                \
    } while (0)

/* What fold serves: the predefined operations MPI allows on each element kind
 * (arithmetic on integers and floats, logical on integers and C bools, bitwise on
 * integers and bytes, MINLOC and MAXLOC on the value-index pairs). Anything else
 * (long double, complex, MPI_CHAR, user ops) goes to Go. */
enum {
    TC_I8, TC_U8, TC_I16, TC_U16, TC_I32, TC_U32, TC_I64, TC_U64, /* integers */
    TC_F32, TC_F64,                                               /* floats */
    TC_BOOL, TC_BYTE,
    TC_FLOAT_INT, TC_DOUBLE_INT, TC_LONG_INT, TC_2INT, TC_SHORT_INT, /* pairs */
};
#define TC_CLASS_ARITH (1u << 0)
#define TC_CLASS_LOGIC (1u << 1)
#define TC_CLASS_BITS (1u << 2)
#define TC_CLASS_LOC (1u << 3)

typedef struct { float v; int i; } tc_float_int;
typedef struct { double v; int i; } tc_double_int;
typedef struct { long v; int i; } tc_long_int;
typedef struct { int v; int i; } tc_2int;
typedef struct { short v; int i; } tc_short_int;

/* fold_kind is dt's element kind, or -1. */
static int fold_kind(MPI_Datatype dt)
{
    switch ((uint32_t)dt) {
    case (uint32_t)MPI_SIGNED_CHAR: case (uint32_t)MPI_INT8_T: return TC_I8;
    case (uint32_t)MPI_UNSIGNED_CHAR: case (uint32_t)MPI_UINT8_T: return TC_U8;
    case (uint32_t)MPI_SHORT: case (uint32_t)MPI_INT16_T: return TC_I16;
    case (uint32_t)MPI_UNSIGNED_SHORT: case (uint32_t)MPI_UINT16_T: return TC_U16;
    case (uint32_t)MPI_INT: case (uint32_t)MPI_INT32_T: return TC_I32;
    case (uint32_t)MPI_UNSIGNED: case (uint32_t)MPI_UINT32_T: return TC_U32;
    case (uint32_t)MPI_LONG: return sizeof(long) == 8 ? TC_I64 : TC_I32;
    case (uint32_t)MPI_UNSIGNED_LONG: return sizeof(long) == 8 ? TC_U64 : TC_U32;
    case (uint32_t)MPI_LONG_LONG: case (uint32_t)MPI_INT64_T: return TC_I64;
    case (uint32_t)MPI_UNSIGNED_LONG_LONG: case (uint32_t)MPI_UINT64_T: return TC_U64;
    case (uint32_t)MPI_FLOAT: return TC_F32;
    case (uint32_t)MPI_DOUBLE: return TC_F64;
    case (uint32_t)MPI_C_BOOL: return TC_BOOL;
    case (uint32_t)MPI_BYTE: return TC_BYTE;
    case (uint32_t)MPI_FLOAT_INT: return TC_FLOAT_INT;
    case (uint32_t)MPI_DOUBLE_INT: return TC_DOUBLE_INT;
    case (uint32_t)MPI_LONG_INT: return TC_LONG_INT;
    case (uint32_t)MPI_2INT: return TC_2INT;
    case (uint32_t)MPI_SHORT_INT: return TC_SHORT_INT;
    }
    return -1;
}

/* fold_esz is the bytes of one element of kind k (the pairs' C layouts are MPI's). */
static int64_t fold_esz(int k)
{
    static const int64_t size[] = {
        [TC_I8] = 1, [TC_U8] = 1, [TC_I16] = 2, [TC_U16] = 2, [TC_I32] = 4, [TC_U32] = 4,
        [TC_I64] = 8, [TC_U64] = 8, [TC_F32] = 4, [TC_F64] = 8, [TC_BOOL] = sizeof(_Bool), [TC_BYTE] = 1,
        [TC_FLOAT_INT] = sizeof(tc_float_int), [TC_DOUBLE_INT] = sizeof(tc_double_int),
        [TC_LONG_INT] = sizeof(tc_long_int), [TC_2INT] = sizeof(tc_2int), [TC_SHORT_INT] = sizeof(tc_short_int),
    };
    return size[k];
}

static uint32_t op_class(MPI_Op op)
{
    if (op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN)
        return TC_CLASS_ARITH;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return TC_CLASS_LOGIC;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return TC_CLASS_BITS;
    if (op == MPI_MINLOC || op == MPI_MAXLOC)
        return TC_CLASS_LOC;
    return 0;
}

static uint32_t kind_ops(int k)
{
    if (k <= TC_U64)
        return TC_CLASS_ARITH | TC_CLASS_LOGIC | TC_CLASS_BITS;
    if (k <= TC_F64)
        return TC_CLASS_ARITH;
    if (k == TC_BOOL)
        return TC_CLASS_LOGIC;
    if (k == TC_BYTE)
        return TC_CLASS_BITS;
    return TC_CLASS_LOC;
}

/* fold_ok says whether fold serves dt and op; the size table must be there too, as a
 * sign that the fast paths run at all (capi/fast.go). */
static int fold_ok(MPI_Datatype dt, MPI_Op op)
{
    int k = fold_kind(dt);
    return k >= 0 && dt_bytes(MPI_INT) > 0 && (kind_ops(k) & op_class(op)) != 0;
}

/* bad_reduce_bufs is what Go's reductions refuse with MPI_ERR_BUFFER, so that they
 * report it: MPI_IN_PLACE as the receive buffer, or the send buffer passed as the
 * receive buffer (count > 0; MPI_IN_PLACE is the way to reduce in place). */
static inline int bad_reduce_bufs(const void *sbuf, const void *rbuf, int count)
{
    return rbuf == MPI_IN_PLACE || (sbuf == rbuf && sbuf != NULL && count > 0);
}

/* MINLOC and MAXLOC: the better value, and on a tie the lower index. */
#define TC_LOC_FNS(P)                                                                    \
    static inline P P##_min(P a, P b)                                                    \
    {                                                                                    \
        return a.v < b.v || (a.v == b.v && a.i < b.i) ? a : b;                           \
    }                                                                                    \
    static inline P P##_max(P a, P b)                                                    \
    {                                                                                    \
        return a.v > b.v || (a.v == b.v && a.i < b.i) ? a : b;                           \
    }
TC_LOC_FNS(tc_float_int)
TC_LOC_FNS(tc_double_int)
TC_LOC_FNS(tc_long_int)
TC_LOC_FNS(tc_2int)
TC_LOC_FNS(tc_short_int)

/* Sums and products of integers wrap, computed in U (unsigned, at least as wide as
 * int): a signed overflow would be undefined behaviour, and MPI leaves the value to
 * the implementation. */
#define TC_ARITH_OPS(T, U)                                                               \
    case (uint32_t)MPI_SUM: TC_FOLD(T, (T)((U)a + (U)b)); return 1;                      \
    case (uint32_t)MPI_PROD: TC_FOLD(T, (T)((U)a * (U)b)); return 1;                     \
    case (uint32_t)MPI_MAX: TC_FOLD(T, a > b ? a : b); return 1;                         \
    case (uint32_t)MPI_MIN: TC_FOLD(T, a < b ? a : b); return 1;
#define TC_LOGIC_OPS(T)                                                                  \
    case (uint32_t)MPI_LAND: TC_FOLD(T, (T)(a && b)); return 1;                          \
    case (uint32_t)MPI_LOR: TC_FOLD(T, (T)(a || b)); return 1;                           \
    case (uint32_t)MPI_LXOR: TC_FOLD(T, (T)(!a != !b)); return 1;
#define TC_BITS_OPS(T)                                                                   \
    case (uint32_t)MPI_BAND: TC_FOLD(T, (T)(a & b)); return 1;                           \
    case (uint32_t)MPI_BOR: TC_FOLD(T, (T)(a | b)); return 1;                            \
    case (uint32_t)MPI_BXOR: TC_FOLD(T, (T)(a ^ b)); return 1;
#define TC_INT(T, U)                                                                     \
    switch ((uint32_t)op) { TC_ARITH_OPS(T, U) TC_LOGIC_OPS(T) TC_BITS_OPS(T) }          \
    return 0
#define TC_LOC(P)                                                                        \
    switch ((uint32_t)op) {                                                              \
    case (uint32_t)MPI_MINLOC: TC_FOLD(P, P##_min(a, b)); return 1;                      \
    case (uint32_t)MPI_MAXLOC: TC_FOLD(P, P##_max(a, b)); return 1;                      \
    }                                                                                    \
    return 0

/* On x86-64, built for AVX2 too and picked at load time where the CPU has it: twice
 * the SSE2 rate. (Clones need the compiler's attribute and the loader's ifuncs.) Not
 * under ThreadSanitizer: gcc instruments the ifunc resolver, which the loader runs
 * before libtsan is initialised, and the program dies in relocation (make sanitize). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute) && !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones) && defined(__GLIBC__)
#define TC_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef TC_CLONES
#define TC_CLONES
#endif
/* fold folds elements lo..hi of the n inputs in (rank order) into the nout outputs;
 * kind k and op passed fold_ok. */
__attribute__((optimize("O3"))) TC_CLONES static int fold(int k, MPI_Op op, const void *const *in, int n,
                                                 void *const *out, int nout, int64_t lo, int64_t hi)
{
    switch (k) {
    case TC_I8: TC_INT(int8_t, uint32_t);
    case TC_U8: TC_INT(uint8_t, uint32_t);
    case TC_I16: TC_INT(int16_t, uint32_t);
    case TC_U16: TC_INT(uint16_t, uint32_t);
    case TC_I32: TC_INT(int32_t, uint32_t);
    case TC_U32: TC_INT(uint32_t, uint32_t);
    case TC_I64: TC_INT(int64_t, uint64_t);
    case TC_U64: TC_INT(uint64_t, uint64_t);
    case TC_F32: switch ((uint32_t)op) { TC_ARITH_OPS(float, float) } return 0;
    case TC_F64: switch ((uint32_t)op) { TC_ARITH_OPS(double, double) } return 0;
    case TC_BOOL: switch ((uint32_t)op) { TC_LOGIC_OPS(_Bool) } return 0;
    case TC_BYTE: switch ((uint32_t)op) { TC_BITS_OPS(uint8_t) } return 0;
    case TC_FLOAT_INT: TC_LOC(tc_float_int);
    case TC_DOUBLE_INT: TC_LOC(tc_double_int);
    case TC_LONG_INT: TC_LOC(tc_long_int);
    case TC_2INT: TC_LOC(tc_2int);
    case TC_SHORT_INT: TC_LOC(tc_short_int);
    }
    return 0;
}

/* seat_reduce is reduce for a team with seats, in slices of per elements: the seats
 * with a slice (folders) fold it between their arrival and their post that they are
 * done with everyone's buffers; the others only arrive and wait for the folders.
 * Slices go by seat, not by rank, so a thread folds the same slice in every region.
 * Every seat moves both its words on every time, or a word left behind would look
 * current again once the generation wraps (2^31 reductions later). */
static void seat_reduce(mpix_tc_act *a, int rank, int seat, const void *sbuf, void *rbuf, int count,
                        int k, MPI_Op op, int root, int64_t per)
{
    int n = a->n, folders = (int)(((int64_t)count + per - 1) / per);
    tc_seat *seats = a->seats, *mine = &seats[seat];
    uint32_t g = (__atomic_load_n(&mine->arrived, __ATOMIC_RELAXED) + 1) & TC_SEAT_GEN;
    mine->sbuf = sbuf;
    mine->rbuf = rbuf;
    mine->rank = rank;
    seat_post(&mine->arrived, g);
    if (seat < folders) {
        const void *in[TC_BOX_MAXN]; /* by rank: the fold's order (a sum's rounding) stays the ranks' */
        void *out[TC_BOX_MAXN];
        for (int p = 0; p < n; p++) {
            if (p != seat)
                seat_wait(a, &seats[p].arrived, g);
            int r = seats[p].rank;
            in[r] = seats[p].sbuf;
            out[r] = seats[p].rbuf;
        }
        int64_t lo = (int64_t)seat * per, hi = lo + per < count ? lo + per : count;
        if (root >= 0)
            fold(k, op, in, n, &out[root], 1, lo, hi);
        else
            fold(k, op, in, n, out, n, lo, hi);
        seat_post(&mine->folded, g);
    }
    for (int p = 0; p < folders; p++)
        if (p != seat)
            seat_wait(a, &seats[p].folded, g);
    if (seat >= folders)
        seat_post(&mine->folded, g);
}

/* seat_small is reduce for a team with seats and at most TC_SEAT_SMALL bytes: each
 * rank copies its input onto its seat and arrives; once all have arrived, each rank
 * that wants the result folds the copies into its own rbuf. One round, and no rank
 * writes another's buffer: a scalar allreduce costs about what a barrier costs. (So
 * a rank may return while others still write their results: threads that share one
 * receive buffer, which MPI does not allow, could see it written after they return.) */
static void seat_small(mpix_tc_act *a, int rank, int seat, const void *sbuf, void *rbuf, int count,
                       int k, MPI_Op op, int root, size_t bytes)
{
    int n = a->n;
    tc_seat *seats = a->seats, *mine = &seats[seat];
    uint32_t g = (__atomic_load_n(&mine->arrived, __ATOMIC_RELAXED) + 1) & TC_SEAT_GEN;
    mine->rank = rank;
    if (bytes > 0)
        memcpy(mine->small[g & 1], sbuf, bytes);
    /* Keep folded up with the generation (seat_reduce). Before the arrival, nobody
     * can be waiting on it for g or later, and every earlier generation is already
     * there, so no waiter bit can be set: a plain store does. Release, so that a
     * slow waiter of the previous generation that sees this value also sees the
     * slice this seat folded then. */
    __atomic_store_n(&mine->folded, g, __ATOMIC_RELEASE);
    seat_post(&mine->arrived, g);
    const void *in[TC_BOX_MAXN];
    for (int p = 0; p < n; p++) {
        if (p != seat)
            seat_wait(a, &seats[p].arrived, g); /* every rank waits: see tc_seat.small */
        in[seats[p].rank] = seats[p].small[g & 1];
    }
    if (root < 0 || root == rank)
        fold(k, op, in, n, &rbuf, 1, 0, count);
}

/* reduce folds every thread's sbuf into the rbuf of root (every rbuf when root is
 * -1), in slices of whole cache lines (no two threads write one line). A single
 * slice, or without seats little to read, is folded by the last to arrive inside one
 * barrier; otherwise with seats see seat_reduce, and without them the threads fold
 * their slices between two barriers. */
static void reduce(mpix_tc_act *a, int me, const void *sbuf, void *rbuf, int count, int k, MPI_Op op,
                   int root)
{
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    int n = a->n;
    int64_t esz = fold_esz(k);
    size_t bytes = (size_t)count * (size_t)esz;
    if (a->seats != NULL && bytes <= TC_SEAT_SMALL) {
        seat_small(a, me, mpix_tls_ctx->tc_seat, sbuf, rbuf, count, k, op, root, bytes);
        return;
    }
    /* Slices of at least TC_SLICE_MIN with seats, 1 KiB with barriers (smaller ones
     * cost more in misses than they save). */
    int64_t line = 64 / esz, least = (a->seats != NULL ? TC_SLICE_MIN : 1024) / esz;
    int64_t per = ((int64_t)count + n - 1) / n;
    per = (per + line - 1) / line * line;
    if (per < least)
        per = least;
    if (a->seats != NULL && per < count) {
        seat_reduce(a, me, mpix_tls_ctx->tc_seat, sbuf, rbuf, count, k, op, root, per);
        return;
    }
    a->sbuf[me] = sbuf;
    a->rbuf[me] = rbuf;
    if (per >= count || bytes * (size_t)(n - 1) <= TC_ONE_FOLD) {
        /* One slice, or little to read: the last to arrive folds everything while
         * the others wait; one barrier instead of two around the sliced fold. (Its
         * reads of the others' inputs are what grows with the threads: at 16 threads
         * and 1 Ki ints it would read 60 KiB alone, as OpenMP's serialized merges
         * do, where slices split that.) */
        uint32_t g;
        if (barrier_arrive(a, &g)) {
            if (root >= 0)
                fold(k, op, (const void *const *)a->sbuf, n, (void *const *)&a->rbuf[root], 1, 0, count);
            else
                fold(k, op, (const void *const *)a->sbuf, n, (void *const *)a->rbuf, n, 0, count);
            gen_release(a);
        } else
            gen_wait(a, g);
        return;
    }
    barrier(a);
    int64_t lo = (int64_t)me * per, hi = lo + per;
    if (hi > count)
        hi = count;
    if (lo < hi) {
        if (root >= 0)
            fold(k, op, (const void *const *)a->sbuf, n, (void *const *)&a->rbuf[root], 1, lo, hi);
        else
            fold(k, op, (const void *const *)a->sbuf, n, (void *const *)a->rbuf, n, lo, hi);
    }
    barrier(a);
}

int mpix_fast_MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                         MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || count < 0 || root < 0 || root >= a->n || !fold_ok(datatype, op) ||
        (me == root ? bad_reduce_bufs(sendbuf, recvbuf, count) : sendbuf == MPI_IN_PLACE))
        return MPIX_FAST_MISS;
    reduce(a, me, sendbuf, recvbuf, count, fold_kind(datatype), op, root);
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || count < 0 || !fold_ok(datatype, op) || bad_reduce_bufs(sendbuf, recvbuf, count))
        return MPIX_FAST_MISS;
    reduce(a, me, sendbuf, recvbuf, count, fold_kind(datatype), op, -1);
    return MPI_SUCCESS;
}

/* The posted views: a thread's send view in sbuf[me], its receive view in rbuf[me],
 * read by the others between the two barriers. */
#define SVIEW(a, p) ((const tc_view *)(a)->sbuf[p])
#define RVIEW(a, p) ((const tc_view *)(a)->rbuf[p])

/* all_to_all is Alltoall(v) (each its own blocks), Allgather(v) (one send block each,
 * sent to every rank), Gather(v) and Scatter(v) (root's blocks), by how the views are
 * posted: thread me pulls block me of everyone's send view into its receive view
 * (gathers pull block 0 of a single-block send view). Nobody writes another's buffer,
 * except Gather(v)'s threads, which push their block into the root's view. */
enum { TC_ALLTOALL, TC_ALLGATHER, TC_GATHER, TC_SCATTER };

static void copy_coll(mpix_tc_act *a, int me, int kind, int root, tc_view *s, tc_view *r)
{
    a->sbuf[me] = s;
    a->rbuf[me] = r;
    barrier(a);
    int n = a->n;
    switch (kind) {
    case TC_ALLTOALL:
        for (int p = 0; p < n; p++)
            copy_block(r->blk[p], r->len[p], SVIEW(a, p)->blk[me], SVIEW(a, p)->len[me]);
        break;
    case TC_ALLGATHER: /* in place (no send view), a thread's block is in its receive view */
        for (int p = 0; p < n; p++)
            if (SVIEW(a, p) != NULL)
                copy_block(r->blk[p], r->len[p], SVIEW(a, p)->blk[0], SVIEW(a, p)->len[0]);
            else
                copy_block(r->blk[p], r->len[p], RVIEW(a, p)->blk[p], RVIEW(a, p)->len[p]);
        break;
    case TC_GATHER:
        if (s != NULL)
            copy_block(RVIEW(a, root)->blk[me], RVIEW(a, root)->len[me], s->blk[0], s->len[0]);
        break;
    case TC_SCATTER:
        if (r != NULL)
            copy_block(r->blk[0], r->len[0], SVIEW(a, root)->blk[me], SVIEW(a, root)->len[me]);
        break;
    }
    barrier(a);
}

/* tc_side is a buffer argument of a copying collective before it becomes a view:
 * nblk blocks of count elements of dt (counts[b] at displs[b] in the v-variants). */
typedef struct tc_side {
    const void *buf;
    int nblk, count;
    const int *counts, *displs;
    MPI_Datatype dt;
} tc_side;

/* copy_run is a copying collective for the calling thread: it makes its views of sd
 * and rd (NULL: no view on that side, in place or an argument only the root has;
 * keep: the receive view holds an input), runs copy_coll, and unpacks and frees the
 * views. It returns 0 on bad arguments, before any barrier: the caller goes to Go. */
static int copy_run(mpix_tc_act *a, int me, int kind, int root, const tc_side *sd, const tc_side *rd, int keep)
{
    tc_view s, r;
    if (rd != NULL && !view_init(&r, rd->buf, rd->nblk, rd->count, rd->counts, rd->displs, rd->dt, 1, keep))
        return 0;
    if (sd != NULL && !view_init(&s, sd->buf, sd->nblk, sd->count, sd->counts, sd->displs, sd->dt, 0, 0)) {
        if (rd != NULL)
            view_free(&r);
        return 0;
    }
    copy_coll(a, me, kind, root, sd != NULL ? &s : NULL, rd != NULL ? &r : NULL);
    if (sd != NULL)
        view_finish(&s, 0);
    if (rd != NULL)
        view_finish(&r, 1);
    return 1;
}

/* The entry points below check what Go would refuse (MPI_IN_PLACE where MPI forbids
 * it, a v-variant's missing arrays where they count) and describe the buffers; vv
 * says a v-variant. Allgather(v) and Gather(v) in place: the thread's own block of its
 * receive view is its input, so it posts no send view and keeps its receive view. */
static int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm, int vv)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || recvbuf == MPI_IN_PLACE || (vv && (recvcounts == NULL || displs == NULL)))
        return MPIX_FAST_MISS;
    int inplace = sendbuf == MPI_IN_PLACE;
    tc_side s = {sendbuf, 1, sendcount, NULL, NULL, sendtype};
    tc_side r = {recvbuf, a->n, recvcount, recvcounts, displs, recvtype};
    return copy_run(a, me, TC_ALLGATHER, -1, inplace ? NULL : &s, &r, inplace) ? MPI_SUCCESS : MPIX_FAST_MISS;
}

int mpix_fast_MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, comm, 0);
}

int mpix_fast_MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, comm, 1);
}

static int gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm, int vv)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || root < 0 || root >= a->n || (me == root ? recvbuf : sendbuf) == MPI_IN_PLACE ||
        (vv && me == root && (recvcounts == NULL || displs == NULL)))
        return MPIX_FAST_MISS;
    int inplace = me == root && sendbuf == MPI_IN_PLACE;
    tc_side s = {sendbuf, 1, sendcount, NULL, NULL, sendtype};
    tc_side r = {recvbuf, a->n, recvcount, recvcounts, displs, recvtype};
    return copy_run(a, me, TC_GATHER, root, inplace ? NULL : &s, me == root ? &r : NULL, inplace) ? MPI_SUCCESS
                                                                                                : MPIX_FAST_MISS;
}

int mpix_fast_MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root, comm, 0);
}

int mpix_fast_MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, 1);
}

static int scatter(const void *sendbuf, int sendcount, const int *sendcounts, const int *displs,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, int vv)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || root < 0 || root >= a->n || (me == root ? sendbuf : recvbuf) == MPI_IN_PLACE ||
        (vv && me == root && (sendcounts == NULL || displs == NULL)))
        return MPIX_FAST_MISS;
    int inplace = me == root && recvbuf == MPI_IN_PLACE;
    tc_side s = {sendbuf, a->n, sendcount, sendcounts, displs, sendtype};
    tc_side r = {recvbuf, 1, recvcount, NULL, NULL, recvtype};
    return copy_run(a, me, TC_SCATTER, root, me == root ? &s : NULL, inplace ? NULL : &r, 0) ? MPI_SUCCESS
                                                                                          : MPIX_FAST_MISS;
}

int mpix_fast_MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root, comm, 0);
}

int mpix_fast_MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, 1);
}

/* Alltoall(v) in place (every thread passes MPI_IN_PLACE, or the program is
 * erroneous) goes to Go: each block would be both read and overwritten. */
static int alltoall(const void *sendbuf, int sendcount, const int *sendcounts, const int *sdispls,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, const int *recvcounts, const int *rdispls,
                    MPI_Datatype recvtype, MPI_Comm comm, int vv)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE ||
        (vv && (sendcounts == NULL || sdispls == NULL || recvcounts == NULL || rdispls == NULL)))
        return MPIX_FAST_MISS;
    tc_side s = {sendbuf, a->n, sendcount, sendcounts, sdispls, sendtype};
    tc_side r = {recvbuf, a->n, recvcount, recvcounts, rdispls, recvtype};
    return copy_run(a, me, TC_ALLTOALL, -1, &s, &r, 0) ? MPI_SUCCESS : MPIX_FAST_MISS;
}

int mpix_fast_MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, comm, 0);
}

int mpix_fast_MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    return alltoall(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm, 1);
}

/* Scans and reduce-scatters fold straight from every thread's input. MPI requires
 * the same datatype and op on every thread, so fold_ok answers alike for all. In
 * place, a thread's input is also where it writes, while others read it: it posts
 * a private copy instead. */
enum { TC_SCAN, TC_EXSCAN, TC_REDUCE_SCATTER };

static int fold_coll(int kind, const void *sendbuf, void *recvbuf, int count, const int *recvcounts,
                     MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || count < 0 || !fold_ok(dt, op))
        return MPIX_FAST_MISS;
    int n = a->n, k = fold_kind(dt);
    int64_t esz = fold_esz(k), total = count; /* elements of this thread's input */
    if (kind == TC_REDUCE_SCATTER) {
        total = 0;
        for (int p = 0; p < n; p++) {
            int c = recvcounts != NULL ? recvcounts[p] : count;
            if (c < 0)
                return MPIX_FAST_MISS;
            total += c;
        }
    }
    /* As Go's checks: a scan's aliasing counts when count > 0, a reduce-scatter's always. */
    if (bad_reduce_bufs(sendbuf, recvbuf, kind == TC_REDUCE_SCATTER || count > 0))
        return MPIX_FAST_MISS;
    /* In place: a private copy of the input, on the stack when small (a scalar scan
     * allocates nothing). */
    _Alignas(16) char small[256];
    void *copy = NULL;
    if (sendbuf == MPI_IN_PLACE) {
        size_t bytes = (size_t)(total * esz);
        if (bytes > sizeof small && (copy = malloc(bytes)) == NULL)
            return MPIX_FAST_MISS;
        sendbuf = memcpy(copy != NULL ? copy : small, recvbuf, bytes);
    }
    a->sbuf[me] = sendbuf;
    barrier(a);
    const void *const *in = (const void *const *)a->sbuf;
    if (kind == TC_SCAN)
        fold(k, op, in, me + 1, &recvbuf, 1, 0, count);
    else if (kind == TC_EXSCAN) {
        if (me > 0)
            fold(k, op, in, me, &recvbuf, 1, 0, count);
    } else {
        int64_t lo = 0;
        for (int p = 0; p < me; p++)
            lo += recvcounts != NULL ? recvcounts[p] : count;
        int64_t mine = recvcounts != NULL ? recvcounts[me] : count;
        const void *shifted[n]; /* everyone's slice me */
        for (int p = 0; p < n; p++)
            shifted[p] = (const char *)in[p] + lo * esz;
        fold(k, op, shifted, n, &recvbuf, 1, 0, mine);
    }
    barrier(a);
    free(copy);
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return fold_coll(TC_SCAN, sendbuf, recvbuf, count, NULL, datatype, op, comm);
}

int mpix_fast_MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm)
{
    return fold_coll(TC_EXSCAN, sendbuf, recvbuf, count, NULL, datatype, op, comm);
}

int mpix_fast_MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm)
{
    return fold_coll(TC_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, NULL, datatype, op, comm);
}

int mpix_fast_MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm)
{
    if (recvcounts == NULL)
        return MPIX_FAST_MISS;
    return fold_coll(TC_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, datatype, op, comm);
}

/* ---- activations ---- */

/* Threadcomm handles to their C state, for MPIX_Threadcomm_start (which has no
 * context yet): open addressing, read without a lock, written under one. */
#define TC_TABLE 1024
#define TC_PROBES 64
#define TC_TOMB ((mpix_tc_act *)1)
static mpix_tc_act *tc_table[TC_TABLE];
static pthread_mutex_t tc_table_mu = PTHREAD_MUTEX_INITIALIZER;

static inline uint32_t tc_slot(MPI_Comm h, uint32_t k) { return ((uint32_t)h * 2654435761u + k) % TC_TABLE; }

static mpix_tc_act *act_find(MPI_Comm h)
{
    for (uint32_t k = 0; k < TC_PROBES; k++) {
        mpix_tc_act *a = __atomic_load_n(&tc_table[tc_slot(h, k)], __ATOMIC_ACQUIRE);
        if (a == NULL)
            return NULL;
        if (a != TC_TOMB && a->handle == h)
            return a;
    }
    return NULL;
}

/* act_register publishes a; when the table is crowded the threadcomm simply starts
 * through Go every time. */
static void act_register(mpix_tc_act *a)
{
    pthread_mutex_lock(&tc_table_mu);
    for (uint32_t k = 0; k < TC_PROBES; k++) {
        mpix_tc_act **slot = &tc_table[tc_slot(a->handle, k)];
        if (*slot == NULL || *slot == TC_TOMB) {
            __atomic_store_n(slot, a, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&tc_table_mu);
}

static void act_unregister(mpix_tc_act *a)
{
    pthread_mutex_lock(&tc_table_mu);
    for (uint32_t k = 0; k < TC_PROBES; k++) {
        mpix_tc_act **slot = &tc_table[tc_slot(a->handle, k)];
        if (*slot == a) {
            __atomic_store_n(slot, TC_TOMB, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&tc_table_mu);
}

/* reset_boxes empties the fastboxes (messages nobody received) and their counts. */
static void reset_boxes(mpix_tc_act *a)
{
    if (a->boxes == NULL)
        return;
    memset(a->boxes, 0, (size_t)a->n * a->n * sizeof(tc_box));
    memset(a->own, 0, (size_t)a->n * TC_BOX_MAXN * sizeof(tc_own));
    memset(a->drained, 0, (size_t)a->n * TC_BOX_MAXN * sizeof(uint32_t));
    memset(a->acks, 0, (size_t)a->n * TC_BOX_MAXN * sizeof(uint32_t));
}

/* act_release frees activation a and what it owns (fastboxes and their counts are
 * there together or not at all). */
static void act_release(mpix_tc_act *a)
{
    if (a->boxes != NULL) {
        free(a->boxes);
        free(a->own);
        free(a->drained);
        free(a->acks);
    }
    free(a->seats);
    free(a->bar_nodes);
    free(a->sbuf);
    free(a->rbuf);
    free(a);
}

/* bar_tree lays out the barrier's arrival tree for n threads in nodes (when not
 * NULL), level after level from the leaves, and returns its number of nodes. */
static int32_t bar_tree(tc_bar_node *nodes, int32_t n)
{
    int32_t total = 0;
    for (int32_t width = n; width > 1; width = bar_level(width)) {
        int32_t level = bar_level(width);
        for (int32_t j = 0; nodes != NULL && j < level; j++)
            nodes[total + j] = (tc_bar_node){.members = j < level - 1 ? TC_BAR_FANIN : width - j * TC_BAR_FANIN};
        total += level;
    }
    return total;
}

uint64_t mpix_tc_teams[2];

mpix_tc_act *mpix_tc_act_new(int n, MPI_Comm handle, int base, int ranks)
{
    size_t size = (sizeof(mpix_tc_act) + (size_t)n * sizeof(tc_thread) + 63) / 64 * 64;
    mpix_tc_act *a = aligned_alloc(64, size);
    if (a == NULL)
        return NULL;
    memset(a, 0, size);
    a->n = n;
    a->handle = handle;
    a->base = base;
    a->size = ranks;
    a->spanning = ranks != n;
    a->sbuf = calloc((size_t)n, sizeof *a->sbuf);
    a->rbuf = calloc((size_t)n, sizeof *a->rbuf);
    if (n <= TC_BOX_MAXN) {
        size_t rows = (size_t)n * TC_BOX_MAXN * sizeof(uint32_t);
        a->boxes = aligned_alloc(64, (size_t)n * n * sizeof(tc_box));
        a->own = aligned_alloc(64, (size_t)n * TC_BOX_MAXN * sizeof(tc_own)); /* 320 B a thread */
        a->drained = aligned_alloc(64, rows);
        a->acks = aligned_alloc(64, rows);
        if (a->boxes == NULL || a->own == NULL || a->drained == NULL || a->acks == NULL) {
            free(a->boxes);
            free(a->own);
            free(a->drained);
            free(a->acks);
            a->boxes = NULL;
        }
        /* Not by default with more threads than the process has cores: each round of
         * waiting then costs the sleepers a wake, and one barrier (the last arriver
         * folds) has fewer rounds than seats' two (MPIX_THREADCOMM_SEATS). */
        int32_t want = __atomic_load_n(&mpix_fast_table->seats, __ATOMIC_RELAXED);
        if (!a->spanning && /* (Go's collectives) */
            (want > 0 || (want < 0 && n <= __atomic_load_n(&mpix_fast_table->cores, __ATOMIC_RELAXED))) &&
            (a->seats = aligned_alloc(64, (size_t)n * sizeof(tc_seat))) != NULL)
            memset(a->seats, 0, (size_t)n * sizeof(tc_seat));
    }
    if (n > TC_BAR_FLAT && !a->spanning) { /* (spanning: Go's collectives) */
        if ((a->bar_nodes = aligned_alloc(64, (size_t)bar_tree(NULL, n) * sizeof(tc_bar_node))) == NULL) {
            act_release(a);
            return NULL;
        }
        bar_tree(a->bar_nodes, n);
    }
    if (a->sbuf == NULL || a->rbuf == NULL) {
        act_release(a);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        q_init(&a->th[i], a, i);
    reset_boxes(a);
    act_register(a);
    __atomic_add_fetch(&mpix_tc_teams[a->seats != NULL], 1, __ATOMIC_RELAXED);
    return a;
}

int mpix_tc_act_running(mpix_tc_act *a) { return __atomic_load_n(&a->arrived, __ATOMIC_ACQUIRE) != 0; }

void mpix_tc_act_activate(mpix_tc_act *a, uint64_t key)
{
    /* Every thread of the region stores the same values, before it can finish. */
    a->team.key = key;
    __atomic_store_n(&a->arrived, (uint32_t)a->n, __ATOMIC_RELAXED);
    __atomic_store_n(&a->team.state, MPIX_TC_ACTIVE, __ATOMIC_RELEASE);
}

/* purge drops what a region left behind (messages nobody received, receives nobody
 * matched: an erroneous program's), so that the next region starts empty. It runs
 * when no thread touches the queues: the finish barrier's last arriver, or free. */
static void purge(mpix_tc_act *a)
{
    purge_begin(a, TC_PURGE);
    for (int i = 0; i < a->n; i++) {
        tc_thread *t = &a->th[i];
        /* What this process's threads sent still completes the receives posted for
         * it (a freed receive's data lands: its sender sent before it finished).
         * Receives left then fail (MPI_ERR_PENDING, status cancelled: nothing was
         * received), so that a Wait after the region returns; freed ones go. */
        drain(t);
        for (tc_req *r = t->posted_head, *next; r != NULL; r = next) {
            next = r->next;
            if (r->orphan)
                orphan_done(r);
            else
                recv_none(r, MPI_ANY_SOURCE, MPI_ERR_PENDING, 1);
        }
        t->posted_head = t->posted_tail = NULL;
        for (tc_cell *c = t->unexp_head, *next; c != NULL; c = next) {
            next = c->next;
            if (c->kind == TC_EAGER_CELL)
                free(c);
            else if (c->kind == TC_REMOTE_CELL) {
                mpixTcDropMessage(c->msg);
                free(c);
            } else if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == TC_ORPHAN) {
                free(c->copy);
                free(c);
            }
            /* A direct cell still pending belongs to its sender's request. */
        }
        for (tc_cell *c = t->ret, *next; c != NULL; c = next) {
            next = c->next;
            free(c);
        }
        q_init(t, a, i);
    }
    reset_boxes(a);
    purge_end(a);
}

/* Messages from other processes' threads, pushed by Go's engine under its lock
 * (capi/threadcomm.go: tcSink). */

int mpix_tc_push_eager(mpix_tc_act *a, int thread, int src, int tag, const void *data, int64_t n)
{
    if (n > TC_EAGER)
        return 0;
    tc_cell *c = cell_msg(n, src, tag, n, TC_EAGER_CELL);
    if (n > 0)
        memcpy(cell_data(c), data, (size_t)n);
    q_push(&a->th[thread], c);
    return 1;
}

void mpix_tc_push_msg(mpix_tc_act *a, int thread, int src, int tag, int64_t size, int32_t msg)
{
    tc_cell *c = cell_msg(0, src, tag, size, TC_REMOTE_CELL);
    c->msg = msg;
    q_push(&a->th[thread], c);
}

/* mpix_tc_purge empties the queues of a threadcomm that spans processes before its
 * next activation (its finish is Go's). */
void mpix_tc_purge(mpix_tc_act *a) { purge(a); }

void mpix_tc_act_free(mpix_tc_act *a)
{
    act_unregister(a);
    purge(a);
    act_release(a);
}

/* take_seat claims a seat for the calling thread at its start: the one it asks for
 * (its seat in its previous region, so that it folds the same slices, whose lines
 * its cache holds, whatever its rank now) when free, else the lowest free one. There
 * are as many seats as threads, and the finish's last arriver frees them all. The
 * claims share the arrivals' line, which the thread's arrival has just brought to
 * its core. */
static int take_seat(mpix_tc_act *a, int want)
{
    uint32_t had = __atomic_fetch_or(&a->seat_claims, 1u << want, __ATOMIC_ACQ_REL);
    while (had & (1u << want)) {
        want = __builtin_ctz(~had); /* below n: fewer than n threads have claimed */
        if (want >= a->n)
            return -1; /* only a start racing the previous finish (erroneous) */
        had = __atomic_fetch_or(&a->seat_claims, 1u << want, __ATOMIC_ACQ_REL);
    }
    return want;
}

/* Region entry in C: a threadcomm whose previous region ended in C (PARKED) starts
 * again on Go's kept activation. Everything else (the first start,
 * after a region that needed Go, and every misuse) goes to Go, which reports it.
 * The state stays PARKED through a region run in C (arrived > 0 tells it runs, and
 * each thread's context that it is in it): a start and a finish that write no line
 * the others read save the cores a transfer each. */
static int tc_start(MPI_Comm comm)
{
    mpix_tc_act *a = act_find(comm);
    if (a == NULL || a->spanning) /* spanning: start and finish are Go's */
        return MPIX_FAST_MISS;
    mpix_ctx *x = mpix_ctx_get();
    if (x->threadcomm_key != 0 || __atomic_load_n(&a->team.state, __ATOMIC_ACQUIRE) != MPIX_TC_PARKED)
        return MPIX_FAST_MISS;
    int team = mpix_omp_team_size();
    if (team > 0 && team != a->n)
        return MPIX_FAST_MISS;
    /* Ranks in arrival order, as Go numbers them. A thread beyond n (or any in a
     * region Go started, where arrived is n) goes to Go, which refuses it. */
    uint32_t me = __atomic_fetch_add(&a->arrived, 1, __ATOMIC_ACQ_REL);
    if (me >= (uint32_t)a->n) {
        __atomic_fetch_sub(&a->arrived, 1, __ATOMIC_ACQ_REL);
        return MPIX_FAST_MISS;
    }
    int seat = a->seats == NULL ? 0 : take_seat(a, x->tc_seat_act == a && x->tc_seat < a->n ? x->tc_seat : (int)me);
    if (seat < 0) {
        __atomic_fetch_sub(&a->arrived, 1, __ATOMIC_ACQ_REL);
        return MPIX_FAST_MISS;
    }
    x->threadcomm_key = a->team.key;
    x->threadcomm_thread = (int32_t)me;
    if (a->seats != NULL)
        x->tc_seat = seat;
    x->tc_seat_act = a;
    x->tc_act = a;
    x->tc_handle = comm;
    /* No barrier: the queues and Go's views already exist, a thread that sends to
     * one not yet here only queues, collectives synchronise themselves, and the
     * previous region's finish barrier is behind every thread. */
    return MPI_SUCCESS;
}

/* Region exit in C: a barrier whose last arriver empties the queues and decides. If
 * Go resolved the threadcomm during the region (attributes, duplicates, groups, error
 * handlers, any call C does not serve), every thread goes on to Go's finish, which
 * ends Go's activation and whatever was derived from it; otherwise the activation is
 * parked and the threads leave without entering Go. */
/* leftovers reports whether thread me leaves the queues unclean at its finish: a
 * receive still posted, a message not received or not yet taken, or a message it
 * sent that its receiver has not taken (a message sent to it later is the sender's
 * to report). It reads mostly the thread's own lines; without fastboxes (more than
 * TC_BOX_MAXN threads) there are no counts to tell, and it answers yes. */
static int leftovers(mpix_tc_act *a, int me)
{
    tc_thread *t = &a->th[me];
    if (a->boxes == NULL || t->posted_head != NULL || t->unexp_head != NULL || t->head != &t->stub ||
        __atomic_load_n(&t->stub.next, __ATOMIC_ACQUIRE) != NULL || __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE) != &t->stub)
        return 1;
    tc_box *row = &a->boxes[(size_t)me * a->n];
    tc_own *orow = &a->own[me * TC_BOX_MAXN];
    for (int p = 0; p < a->n; p++) {
        tc_own *o = &orow[p];
        if (__atomic_load_n(&row[p].seq, __ATOMIC_ACQUIRE) != o->seen)
            return 1;
        if (o->queued != o->dcache &&
            (o->dcache = __atomic_load_n(&a->drained[p * TC_BOX_MAXN + me], __ATOMIC_ACQUIRE)) != o->queued)
            return 1;
        if (o->bsent != o->acked &&
            (o->acked = __atomic_load_n(&a->acks[p * TC_BOX_MAXN + me], __ATOMIC_ACQUIRE)) != o->bsent)
            return 1;
    }
    return 0;
}

static int tc_finish(MPI_Comm comm)
{
    mpix_ctx *x = mpix_tls_ctx;
    if (x == NULL || x->tc_act == NULL || x->tc_handle != comm)
        return MPIX_FAST_MISS;
    /* Freed synchronous sends complete before the region ends (their receivers take
     * them before they finish, or the program is erroneous). */
    for (uint32_t i = 0; reap_abandoned(); i++)
        backoff(i);
    mpix_tc_act *a = (mpix_tc_act *)x->tc_act;
    if (a->spanning)
        return MPIX_FAST_MISS;
    /* The queues are purged only when some thread leaves something behind: purging
     * rewrites every thread's queue lines, which the next region then misses on. */
    if (leftovers(a, x->threadcomm_thread))
        __atomic_store_n(&a->stale, 1, __ATOMIC_RELAXED);
    uint32_t g;
    if (barrier_arrive(a, &g)) {
        if (__atomic_load_n(&a->stale, __ATOMIC_RELAXED)) {
            purge(a);
            __atomic_store_n(&a->stale, 0, __ATOMIC_RELAXED);
        }
        /* Claims first: a start that sees no arrivals must see no claims either. */
        __atomic_store_n(&a->seat_claims, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&a->arrived, 0, __ATOMIC_RELEASE);
        /* Read before clearing: the line stays shared with the other threads, which
         * read it at their next start, unless Go marked it. */
        uint32_t dirty = __atomic_load_n(&a->team.dirty, __ATOMIC_ACQUIRE);
        if (dirty)
            __atomic_store_n(&a->team.dirty, 0, __ATOMIC_RELAXED);
        a->go_finish = dirty != 0;
        uint32_t state = dirty ? MPIX_TC_GO : MPIX_TC_PARKED; /* ACTIVE: Go started it */
        if (__atomic_load_n(&a->team.state, __ATOMIC_RELAXED) != state)
            __atomic_store_n(&a->team.state, state, __ATOMIC_RELEASE);
        gen_release(a);
    } else
        gen_wait(a, g);
    if (a->go_finish)
        return MPIX_FAST_MISS; /* the context stays for Go's finish */
    x->threadcomm_key = 0;
    x->threadcomm_thread = -1;
    x->tc_act = NULL;
    x->tc_handle = 0;
    return MPI_SUCCESS;
}

int mpix_fast_MPIX_Threadcomm_start(MPI_Comm threadcomm) { return tc_start(threadcomm); }
int mpix_fast_MPI_Threadcomm_start(MPI_Comm threadcomm) { return tc_start(threadcomm); }
int mpix_fast_MPIX_Threadcomm_finish(MPI_Comm threadcomm) { return tc_finish(threadcomm); }
int mpix_fast_MPI_Threadcomm_finish(MPI_Comm threadcomm) { return tc_finish(threadcomm); }

int mpix_fast_MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int me;
    mpix_tc_act *a;
    if (rank == NULL || (a = tc_self(comm, &me)) == NULL)
        return MPIX_FAST_MISS;
    *rank = a->base + me;
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Comm_size(MPI_Comm comm, int *size)
{
    int me;
    mpix_tc_act *a;
    if (size == NULL || (a = tc_self(comm, &me)) == NULL)
        return MPIX_FAST_MISS;
    *size = a->size;
    return MPI_SUCCESS;
}
