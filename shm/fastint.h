/* Helpers of the C fast paths over fastabi.h: shm's (fast.c, lite.c) and the
 * threadcomm C, which uses the same communicator table, VCI lock and spinning rules. */
#ifndef MPIX_FASTINT_H
#define MPIX_FASTINT_H

#include <sched.h>
#include <string.h>
#include "fastabi.h"

/* enter and leave bracket the fast path's work on a VCI: the lock, counted, unless
 * a single-thread communicator owns the VCI (mpix_assert_single_thread), whose one
 * thread is the caller, as Go's Engine.enter does. */
static inline int enter(mpix_vci_shared *v)
{
    if (__atomic_load_n(&v->owned, __ATOMIC_ACQUIRE))
        return 0;
    mpix_vci_lock(v);
    v->locks++;
    return 1;
}

static inline void leave(mpix_vci_shared *v, int locked)
{
    if (locked)
        mpix_vci_unlock(v);
}

/* fast_comm returns comm's descriptor when the fast path may use it. */
static inline mpix_comm_shared *fast_comm(MPI_Comm comm)
{
    mpix_fast_header *h = mpix_fast_table;
    if (h == NULL || !__atomic_load_n(&h->enabled, __ATOMIC_ACQUIRE))
        return NULL;
    uint32_t u = (uint32_t)comm, i;
    if (comm == MPI_COMM_WORLD)
        i = 0;
    else if (comm == MPI_COMM_SELF)
        i = 1;
    else if ((u & 0xfc000000u) == 0x84000000u && (u & 0x03ffffffu) < h->max)
        i = 2 + (u & 0x03ffffffu);
    else
        return NULL;
    mpix_comm_shared *c = (mpix_comm_shared *)(h + 1) + i;
    return __atomic_load_n(&c->live, __ATOMIC_ACQUIRE) ? c : NULL;
}

/* dt_size is the size of a builtin contiguous datatype, or 0. */
static inline uint32_t dt_size(MPI_Datatype dt)
{
    uint32_t i = (uint32_t)dt & 0xff;
    return mpix_fast_dthandle[i] == dt ? mpix_fast_dtsize[i] : 0;
}

/* peer_index is the local index on the node of rank r of c, or -1 when the peer is
 * not reached through this shared-memory endpoint (or is this process). */
static inline int peer_index(const mpix_comm_shared *c, const mpix_shm_view *sv, int r)
{
    int32_t w = c->peers ? ((const int32_t *)c->peers)[r] : r;
    int64_t k = (int64_t)w - sv->min_rank;
    if (k < 0 || k >= sv->span)
        return -1;
    int li = ((const int32_t *)sv->local_of)[k];
    return li == (int)sv->me ? -1 : li;
}

/* empty_status is what a wait reports for a completed send or MPI_REQUEST_NULL. */
static inline void empty_status(MPI_Status *st)
{
    st->count_lo = 0;
    st->count_hi_and_cancelled = 0;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
}

static inline int fast_enabled(void)
{
    return mpix_fast_table != NULL && __atomic_load_n(&mpix_fast_table->enabled, __ATOMIC_ACQUIRE);
}

/* wait_begin and wait_end bracket a thread's spinning wait, and crowded reports
 * whether more threads wait than the process has cores: a spinning waiter then only
 * keeps a core from the thread that would make its message, so it yields between
 * polls (Go's Engine.wait counts itself in the same word). */
static inline void wait_begin(void) { __atomic_add_fetch(&mpix_fast_table->waiters, 1, __ATOMIC_RELAXED); }
static inline void wait_end(void) { __atomic_sub_fetch(&mpix_fast_table->waiters, 1, __ATOMIC_RELAXED); }
static inline int crowded(void)
{
    return __atomic_load_n(&mpix_fast_table->waiters, __ATOMIC_RELAXED) >
           __atomic_load_n(&mpix_fast_table->cores, __ATOMIC_RELAXED);
}

/* CROWDED_POLLS: empty polls before a crowded wait yields (Go's crowdedPolls). */
#define CROWDED_POLLS 16

/* spin_pause is a waiting thread's pause after its polls-th empty poll: it counts the
 * thread among the waiters the first time (*waiting) and yields once crowded;
 * spin_done ends the count. */
static inline void spin_pause(int *waiting, uint32_t polls)
{
    if (!*waiting) {
        wait_begin();
        *waiting = 1;
    }
    if (polls > CROWDED_POLLS && crowded())
        sched_yield();
    else
        cpu_relax();
}

static inline void spin_done(int waiting)
{
    if (waiting)
        wait_end();
}

/* fastbox_plain reports whether fastbox fb, whose flag is f, holds the next message
 * from local peer li as plain eager data, which C may deliver (under the VCI lock). */
static inline int fastbox_plain(const mpix_shm_view *sv, int li, const mpix_fastbox *fb, uint64_t f)
{
    const mpix_wire_header *h = &fb->hdr;
    return f != 0 && f - 1 == ((const uint64_t *)sv->recv_seq)[li] && h->kind == MPIX_KIND_EAGER &&
           h->flags == 0 && h->recv_req == 0 && (int64_t)fb->len == h->size;
}

/* fastbox_take copies that message to buf and hands the fastbox back to its sender. */
static inline void fastbox_take(const mpix_shm_view *sv, int li, mpix_fastbox *fb, uint64_t f, void *buf)
{
    if (fb->hdr.size > 0)
        memcpy(buf, (const char *)fb + sizeof *fb, (size_t)fb->hdr.size);
    ((uint64_t *)sv->recv_seq)[li] = f;
    ((uint8_t *)sv->pending)[li] = 0;
    __atomic_store_n(&fb->flag, 0, __ATOMIC_RELEASE);
}

/* world_of is the world rank of rank r of c. */
static inline int32_t world_of(const mpix_comm_shared *c, int r)
{
    return c->peers ? ((const int32_t *)c->peers)[r] : r;
}

#endif
