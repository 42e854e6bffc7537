/* The thread communicator's C data plane: what its files share (internal header).
 *
 * Threadcomm messages between the threads of one process run in C.
 *
 * The point-to-point traffic between threads of one process, and when every rank of
 * an active threadcomm is a thread of this process their Barrier, Bcast, Reduce and
 * Allreduce of builtin types, never enter Go: each costs a cgo crossing (100-220 ns)
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
#ifndef MPIX_THREADCOMM_TC_H
#define MPIX_THREADCOMM_TC_H

#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fastint.h"
#include "threadcomm.h"
#include "kernels.h"
#include "_cgo_export.h"

/* Nothing of the data plane is exported from libmpix.so but the entries threadcomm.h
 * declares. */
#pragma GCC visibility push(hidden)


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
        mpixTcProgress();
}


/* ---- shared between the files of the data plane ---- */


tc_cell *cell_get(struct tc_thread *home, int64_t payload);
tc_cell *cell_msg(int64_t payload, int src, int tag, int64_t size, uint32_t kind);
void cell_put(tc_cell *c);
void q_init(tc_thread *t, struct mpix_tc_act *a, int me);
void coop_help(tc_cell *c);
int64_t tc_take(tc_cell *c, void *buf, int64_t cap, int *err, int32_t *rdv);
void recv_none(tc_req *r, int src, int err, int cancelled);
void tc_unpost(tc_thread *t, tc_req **pp, tc_req *prev);
void complete_recv(tc_req *r, tc_cell *c);
int tc_drain(tc_thread *t);
tc_cell *unexp_find(tc_thread *t, int src, int tag, int take_it);
void tc_post(tc_thread *t, tc_req *r);
tc_req *req_new(int is_send, int persistent);
tc_req *req_lookup(MPI_Request h);
int partner_done(tc_req *r, int32_t *h, int block);
void put_status(MPI_Status *st, int src, int tag, int64_t bytes, int cancelled);
void orphan_done(tc_req *r);
int req_finish(tc_req *r, MPI_Request *h, MPI_Status *st);
int reap_abandoned(void);
int send_test(tc_cell *c, int force);
void gen_wait(mpix_tc_act *a, uint32_t g);
void gen_release(mpix_tc_act *a);
void tc_barrier(mpix_tc_act *a);
void seat_wait(mpix_tc_act *a, uint32_t *w, uint32_t g);
int own_drain(tc_thread *t);

static inline void q_push(tc_thread *t, tc_cell *c)
{
    __atomic_store_n(&c->next, NULL, __ATOMIC_RELAXED);
    tc_cell *prev = __atomic_exchange_n(&t->tail, c, __ATOMIC_ACQ_REL);
    __atomic_store_n(&prev->next, c, __ATOMIC_RELEASE);
}

/* tc_self returns the activation when comm is the calling thread's active threadcomm
 * and its messages run here, with the thread's rank. */
static inline mpix_tc_act *tc_self(MPI_Comm comm, int *me)
{
    mpix_tc_self *x = &mpix_tc_tls;
    if (x->act == NULL || x->handle != comm)
        return NULL;
    *me = x->thread;
    return (mpix_tc_act *)x->act;
}

/* is_local reports whether threadcomm rank r is a thread of this process. */
static inline int is_local(const mpix_tc_act *a, int r) { return (unsigned)(r - a->base) < (unsigned)a->n; }

/* poll_remote lets Go move what other processes sent to this process's threads into
 * their queues (mpix_tc_push_*), when a threadcomm spans processes and a receive
 * from src may come from another process. A receive from this process does not: the
 * cgo callback (100-220 ns, and a wait for one of Go's Ps when threads outnumber cores)
 * would cost more than its message, and backoff's rounds of global progress move the
 * engine's other traffic. */
static inline void poll_remote(const mpix_tc_act *a, int src)
{
    if (a->spanning && (src == MPI_ANY_SOURCE || !is_local(a, src)))
        mpixTcPoll(a->handle);
}

/* cur_comm is the calling thread's active threadcomm, whose handler reports errors of
 * its requests. */
static inline MPI_Comm cur_comm(void)
{
    mpix_tc_self *x = &mpix_tc_tls;
    return x->act != NULL ? x->handle : MPI_COMM_WORLD;
}

static inline int64_t dt_bytes(MPI_Datatype dt)
{
    uint32_t i = (uint32_t)dt & 0xff;
    return mpix_fast_dthandle[i] == dt ? (int64_t)mpix_fast_dtsize[i] : 0;
}

/* A node of the barrier's arrival tree, on a line of its own. */
typedef struct tc_bar_node {
    uint32_t count; /* atomic: arrivals in this generation */
    int32_t members;
} __attribute__((aligned(64))) tc_bar_node;

static inline uint32_t bar_gen(const mpix_tc_act *a)
{
    return (uint32_t)(__atomic_load_n(&a->bar, __ATOMIC_ACQUIRE) >> 32);
}

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
    int32_t i = mpix_tc_tls.thread, width = a->n;
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

/* seat_post sets a seat word to generation g. An exchange rather than a store: it
 * returns the waiter bit that a sleeper set before the new generation, so no wake is
 * lost (a sleeper sets it with a compare-and-swap on the generation it saw, and the
 * kernel sleeps only while the word still holds that). */
static inline void seat_post(uint32_t *w, uint32_t g)
{
    if (__atomic_exchange_n(w, g, __ATOMIC_SEQ_CST) & TC_SEAT_WAITER)
        syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The collectives here are a single-process activation's; Go composes those of a
 * threadcomm that spans processes. */
static inline mpix_tc_act *coll_self(MPI_Comm comm, int *me)
{
    mpix_tc_act *a = tc_self(comm, me);
    return a != NULL && !a->spanning ? a : NULL;
}

/* posting_self is the calling thread's queue in its active threadcomm when it has
 * receives posted (NULL otherwise). */
static inline tc_thread *posting_self(void)
{
    mpix_tc_self *x = &mpix_tc_tls;
    if (x->act == NULL)
        return NULL;
    tc_thread *t = &((mpix_tc_act *)x->act)->th[x->thread];
    return t->posted_head != NULL ? t : NULL;
}

/* fold_ok says whether the C reductions serve dt and op; the size table must be there
 * too, as a sign that the fast paths run at all. */
static inline int fold_ok(MPI_Datatype dt, MPI_Op op) { return dt_bytes(MPI_INT) > 0 && mpix_fold_ok(dt, op); }

/* bad_reduce_bufs is what Go's reductions refuse with MPI_ERR_BUFFER, so that they
 * report it: MPI_IN_PLACE as the receive buffer, or the send buffer passed as the
 * receive buffer (count > 0; MPI_IN_PLACE is the way to reduce in place). */
static inline int bad_reduce_bufs(const void *sbuf, const void *rbuf, int count)
{
    return rbuf == MPI_IN_PLACE || (sbuf == rbuf && sbuf != NULL && count > 0);
}

/* null_buf says a significant buffer is NULL with a positive count of a predefined
 * datatype: MPI_ERR_BUFFER in Go (core/userbuf.go, MPICH's rule), never a copy here.
 * null_bufv is the same for a v-variant's counts (n of them; NULL counts: none). */
static inline int null_buf(const void *buf, int count, MPI_Datatype dt)
{
    return __builtin_expect(buf == NULL, 0) && count > 0 && dt_bytes(dt) > 0;
}

static inline int null_bufv(const void *buf, int n, const int *counts, MPI_Datatype dt)
{
    if (__builtin_expect(buf != NULL, 1) || counts == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        if (null_buf(buf, counts[i], dt))
            return 1;
    return 0;
}

#pragma GCC visibility pop

#endif
