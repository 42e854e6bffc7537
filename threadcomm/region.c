/* Regions: an activation's C state (mpix_tc_act), made at the first start through Go
 * and kept until free; starts and finishes that stay in C; purging the queues between
 * regions; taking messages while a thread waits for something else. */
#include "tc.h"

/* ---- taking messages while waiting for something else ----
 *
 * A thread with receives posted takes what arrives for them while it waits in a
 * barrier, in the finish or in Go (MPI's progress rule: a synchronous or rendezvous
 * sender may be waiting for it before it can arrive). A purge drains every thread's
 * queue itself; the two announce themselves in sequentially consistent order
 * (t->busy, a->purging), so that one queue never has two consumers. */


/* own_drain drains thread t's queue for t itself, unless a purge runs; it reports
 * whether anything arrived. */
int own_drain(tc_thread *t)
{
    /* Set already: this call is nested in the thread's own drain (a Go wait inside
     * it, e.g. for a freed receive's rendezvous), which stays the queue's consumer. */
    if (t->busy)
        return 0;
    __atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
    int any = 0;
    if (__atomic_load_n(&t->act->purging, __ATOMIC_SEQ_CST) == 0)
        any = tc_drain(t);
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
        tc_drain(&a->th[i]);
    __atomic_store_n(&a->purging, TC_PURGE, __ATOMIC_SEQ_CST);
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
    /* Every thread of the region stores the same values, before it can finish; atomic
     * stores, since they are concurrent (ThreadSanitizer saw them race as plain ones). */
    __atomic_store_n(&a->team.key, key, __ATOMIC_RELAXED);
    __atomic_store_n(&a->arrived, (uint32_t)a->n, __ATOMIC_RELAXED);
    __atomic_store_n(&a->team.state, MPIX_TC_ACTIVE, __ATOMIC_RELEASE);
}

/* purge drops what a region left behind (messages nobody received, receives nobody
 * matched: an erroneous program's), so that the next region starts empty. It runs
 * when no thread touches the queues: the finish barrier's last arriver, or free. */
static void tc_purge(mpix_tc_act *a)
{
    purge_begin(a, TC_PURGE);
    for (int i = 0; i < a->n; i++) {
        tc_thread *t = &a->th[i];
        /* What this process's threads sent still completes the receives posted for
         * it (a freed receive's data lands: its sender sent before it finished).
         * Receives left then fail (MPI_ERR_PENDING, status cancelled: nothing was
         * received), so that a Wait after the region returns; freed ones go. */
        tc_drain(t);
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
void mpix_tc_purge(mpix_tc_act *a) { tc_purge(a); }

void mpix_tc_act_free(mpix_tc_act *a)
{
    act_unregister(a);
    tc_purge(a);
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
    mpix_tc_self *x = &mpix_tc_tls;
    if (x->key != 0 || __atomic_load_n(&a->team.state, __ATOMIC_ACQUIRE) != MPIX_TC_PARKED)
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
    int seat = a->seats == NULL ? 0 : take_seat(a, x->seat_act == a && x->seat < a->n ? x->seat : (int)me);
    if (seat < 0) {
        __atomic_fetch_sub(&a->arrived, 1, __ATOMIC_ACQ_REL);
        return MPIX_FAST_MISS;
    }
    x->key = __atomic_load_n(&a->team.key, __ATOMIC_RELAXED);
    x->thread = (int32_t)me;
    if (a->seats != NULL)
        x->seat = seat;
    x->seat_act = a;
    x->act = a;
    x->handle = comm;
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
    mpix_tc_self *x = &mpix_tc_tls;
    if (x->act == NULL || x->handle != comm)
        return MPIX_FAST_MISS;
    /* Freed synchronous sends complete before the region ends (their receivers take
     * them before they finish, or the program is erroneous). */
    for (uint32_t i = 0; reap_abandoned(); i++)
        backoff(i);
    mpix_tc_act *a = (mpix_tc_act *)x->act;
    if (a->spanning)
        return MPIX_FAST_MISS;
    /* The queues are purged only when some thread leaves something behind: purging
     * rewrites every thread's queue lines, which the next region then misses on. */
    if (leftovers(a, x->thread))
        __atomic_store_n(&a->stale, 1, __ATOMIC_RELAXED);
    uint32_t g;
    if (barrier_arrive(a, &g)) {
        if (__atomic_load_n(&a->stale, __ATOMIC_RELAXED)) {
            tc_purge(a);
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
    x->key = 0;
    x->thread = -1;
    x->act = NULL;
    x->handle = 0;
    return MPI_SUCCESS;
}

int mpix_fast_MPIX_Threadcomm_start(MPI_Comm threadcomm) { return tc_start(threadcomm); }
int mpix_fast_MPI_Threadcomm_start(MPI_Comm threadcomm) { return tc_start(threadcomm); }
int mpix_fast_MPIX_Threadcomm_finish(MPI_Comm threadcomm) { return tc_finish(threadcomm); }
int mpix_fast_MPI_Threadcomm_finish(MPI_Comm threadcomm) { return tc_finish(threadcomm); }

int mpix_tc_fast_comm_rank(MPI_Comm comm, int *rank)
{
    int me;
    mpix_tc_act *a;
    if (rank == NULL || (a = tc_self(comm, &me)) == NULL)
        return MPIX_FAST_MISS;
    *rank = a->base + me;
    return MPI_SUCCESS;
}

int mpix_tc_fast_comm_size(MPI_Comm comm, int *size)
{
    int me;
    mpix_tc_act *a;
    if (size == NULL || (a = tc_self(comm, &me)) == NULL)
        return MPIX_FAST_MISS;
    *size = a->size;
    return MPI_SUCCESS;
}


MPIX_TLS mpix_tc_self mpix_tc_tls = {.thread = -1};
