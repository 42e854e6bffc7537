/* The barrier of a single-process activation (one counter up to TC_BAR_FLAT threads, a
 * tree of counters above) and the per-thread seat words the reductions wait on. */
#include "tc.h"

/* ---- collectives of a single-process activation ---- */

#define TC_BAR_GEN ((uint64_t)1 << 32)


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
void gen_wait(mpix_tc_act *a, uint32_t g)
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
void gen_release(mpix_tc_act *a)
{
    /* (With a tree, bar holds only the generation.) */
    __atomic_fetch_add(&a->bar, TC_BAR_GEN - (a->bar_nodes != NULL ? 0 : (uint64_t)a->n), __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&a->sleepers, __ATOMIC_SEQ_CST) != 0)
        syscall(SYS_futex, bar_futex(a), FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}




void tc_barrier(mpix_tc_act *a)
{
    uint32_t g;
    if (barrier_arrive(a, &g))
        gen_release(a);
    else
        gen_wait(a, g);
}


/* seat_wait waits until another rank's seat word reaches generation g (or a later
 * one, see moved). */
void seat_wait(mpix_tc_act *a, uint32_t *w, uint32_t g)
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


int mpix_fast_MPI_Barrier(MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL)
        return MPIX_FAST_MISS;
    tc_barrier(a);
    return MPI_SUCCESS;
}

