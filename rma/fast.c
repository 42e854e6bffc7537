/* The fast paths of one-sided operations on ranks this process maps (rma.h): put and
 * get are one memcpy, single-element accumulates, fetch-and-op and compare-and-swap a
 * few instructions under the target's accumulate lock (the lock Go's path takes too,
 * so the two are atomic with each other), flushes a memory fence. Anything else, and
 * any argument that is not plainly right, goes to Go (MPIX_FAST_MISS). */
#include <string.h>
#include "rma.h"

mpix_rma_view *mpix_rma_views[MPIX_RMA_MAX_WINS];

static inline mpix_rma_view *win_of(MPI_Win win)
{
    uint32_t u = (uint32_t)win;
    if ((u & 0xfc000000u) != 0xa0000000u || (u & 0x03ffffffu) >= MPIX_RMA_MAX_WINS)
        return NULL;
    return __atomic_load_n(&mpix_rma_views[u & 0x03ffffffu], __ATOMIC_ACQUIRE);
}

/* ordered keeps an ordered handle's operations in issue order for the target's
 * observers (a no-op on x86, whose stores are ordered; memcpy fences its own
 * non-temporal stores). */
static inline void ordered(const mpix_rma_view *v)
{
    if (v->flags & MPIX_RMA_ORDERED)
        __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* builtin_size is the size of the predefined contiguous types the fast paths take. */
static inline int builtin_size(MPI_Datatype dt)
{
    switch (dt) {
    case MPI_CHAR: case MPI_BYTE: return 1;
    case MPI_SHORT: return 2;
    case MPI_INT: case MPI_UNSIGNED: case MPI_FLOAT: case MPI_INT32_T: case MPI_UINT32_T: return 4;
    case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_DOUBLE:
    case MPI_INT64_T: case MPI_UINT64_T: case MPI_AINT: return 8;
    }
    return 0;
}

/* dynamic_target finds [addr, addr+bytes) of a dynamic window's rank in this process:
 * the rank's attached regions (read consistently from its state page) must hold it,
 * in an MPI_Alloc_mem block this process maps (or in its own memory). */
static char *dynamic_target(mpix_rma_peer *p, uint64_t addr, int64_t bytes, int *atomics)
{
    if (p->state == NULL || bytes < 0)
        return NULL;
    const uint64_t *gen = (const uint64_t *)(p->state + MPIX_RMA_REGION_GEN);
    for (;;) {
        uint64_t g = __atomic_load_n(gen, __ATOMIC_ACQUIRE);
        if (g & 1)
            continue;
        uint64_t n = __atomic_load_n((const uint64_t *)(p->state + MPIX_RMA_REGION_N), __ATOMIC_ACQUIRE);
        char *found = NULL;
        int hit = 0;
        for (uint64_t i = 0; i < n && i < (MPIX_RMA_REGIONS_END - MPIX_RMA_REGIONS) / MPIX_RMA_REGION_LEN; i++) {
            const uint64_t *r = (const uint64_t *)(p->state + MPIX_RMA_REGIONS + MPIX_RMA_REGION_LEN * i);
            uint64_t base = __atomic_load_n(&r[0], __ATOMIC_RELAXED), size = __atomic_load_n(&r[1], __ATOMIC_RELAXED);
            if (addr < base || addr - base > size || (uint64_t)bytes > size - (addr - base))
                continue;
            hit = 1;
            *atomics = __atomic_load_n(&r[2], __ATOMIC_RELAXED) != 0; /* in an MPI_Alloc_mem block */
            if (p->self) {
                found = (char *)(uintptr_t)addr;
                break;
            }
            uint64_t memfd = __atomic_load_n(&r[2], __ATOMIC_RELAXED); /* plus one; 0: no block */
            uint64_t serial = __atomic_load_n(&r[3], __ATOMIC_RELAXED), bbase = __atomic_load_n(&r[4], __ATOMIC_RELAXED);
            if (memfd == 0)
                break;
            uint32_t nb = __atomic_load_n(&p->nblocks, __ATOMIC_ACQUIRE);
            for (uint32_t j = 0; j < nb; j++)
                if (p->blocks[j].serial == serial) {
                    found = p->blocks[j].local + (addr - bbase);
                    break;
                }
            break;
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(gen, __ATOMIC_RELAXED) == g)
            return hit ? found : NULL;
    }
}

/* covered reports whether an epoch of the window covers rank. */
static inline int covered(mpix_rma_win *w, int rank)
{
    return __atomic_load_n(&w->all, __ATOMIC_RELAXED) || __atomic_load_n(&w->peers[rank].access, __ATOMIC_RELAXED);
}

/* memhandle_target is target for a memory-handle window: its one rank, its region. */
static inline char *memhandle_target(mpix_rma_view *v, int rank, MPI_Aint disp, int64_t bytes, mpix_rma_peer **pp,
                                     int *atomics)
{
    mpix_rma_win *w = v->w;
    if (rank != v->mh_rank || v->mh_mem == NULL || disp < 0 || !covered(w, rank))
        return NULL;
    if (__atomic_load_n(v->mh_gen, __ATOMIC_ACQUIRE) != __atomic_load_n(&v->mh_seen, __ATOMIC_RELAXED))
        return NULL; /* the target's regions changed: Go checks the handle is still live */
    if (disp > v->mh_size / v->mh_disp_unit)
        return NULL;
    int64_t off = (int64_t)disp * v->mh_disp_unit;
    if (off > v->mh_size || bytes > v->mh_size - off)
        return NULL;
    *pp = &w->peers[rank];
    *atomics = v->mh_atomics;
    return v->mh_mem + off;
}

/* target finds where count elements of dt at disp of rank's window are in this
 * process, checking the epoch and the window's bounds; NULL sends the call to Go. */
static inline char *target(mpix_rma_view *v, int rank, MPI_Aint disp, int64_t bytes, mpix_rma_peer **pp, int *atomics)
{
    mpix_rma_win *w = v->w;
    if (rank < 0 || rank >= w->nranks)
        return NULL;
    if (v->mh_rank >= 0)
        return memhandle_target(v, rank, disp, bytes, pp, atomics);
    mpix_rma_peer *p = &w->peers[rank];
    if (!covered(w, rank))
        return NULL; /* no epoch: Go reports MPI_ERR_RMA_SYNC */
    if (w->dynamic) {
        *pp = p;
        return dynamic_target(p, (uint64_t)disp, bytes, atomics);
    }
    *atomics = p->atomics;
    if (p->mem == NULL || disp < 0)
        return NULL;
    if (disp > p->size / p->disp_unit)
        return NULL;
    int64_t off = (int64_t)disp * p->disp_unit;
    if (off > p->size || bytes > p->size - off)
        return NULL;
    *pp = p;
    return p->mem + off;
}

static inline void acc_lock(mpix_rma_peer *p)
{
    uint32_t *l = (uint32_t *)(p->state + MPIX_RMA_ACC_LOCK);
    for (;;) {
        uint32_t z = 0;
        if (__atomic_compare_exchange_n(l, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
    }
}

static inline void acc_unlock(mpix_rma_peer *p)
{
    __atomic_store_n((uint32_t *)(p->state + MPIX_RMA_ACC_LOCK), 0, __ATOMIC_RELEASE);
}

static int plain(MPI_Datatype a, int acount, MPI_Datatype b, int bcount, int64_t *bytes)
{
    int s = builtin_size(a);
    if (s == 0 || a != b || acount != bcount || acount < 0)
        return 0;
    *bytes = (int64_t)s * acount;
    return 1;
}

/* contiguous is put (write) and get: one memcpy between the origin's buffer and the
 * target's mapped memory. */
static inline int contiguous(void *origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp, int tcount,
                             MPI_Datatype ttype, MPI_Win win, int write)
{
    mpix_rma_view *v = win_of(win);
    int64_t n;
    mpix_rma_peer *p;
    if (v == NULL || !plain(otype, ocount, ttype, tcount, &n))
        return MPIX_FAST_MISS;
    int atomics;
    char *t = target(v, rank, disp, n, &p, &atomics);
    if (t == NULL)
        return MPIX_FAST_MISS;
    if (write)
        memcpy(t, origin, (size_t)n);
    else
        memcpy(origin, t, (size_t)n);
    ordered(v);
    return MPI_SUCCESS;
}

int mpix_rma_fast_put(const void *origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp, int tcount,
                      MPI_Datatype ttype, MPI_Win win)
{
    return contiguous((void *)origin, ocount, otype, rank, disp, tcount, ttype, win, 1);
}

int mpix_rma_fast_get(void *origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp, int tcount,
                      MPI_Datatype ttype, MPI_Win win)
{
    return contiguous(origin, ocount, otype, rank, disp, tcount, ttype, win, 0);
}

/* apply computes *t = in op *t for one element; it reports 0 for a combination it
 * leaves to Go. */
#define ARITH(T)                                                                                       \
    do {                                                                                               \
        T a = *(const T *)in, *b = (T *)t;                                                             \
        if (op == MPI_SUM) *b = (T)(*b + a);                                                           \
        else if (op == MPI_PROD) *b = (T)(*b * a);                                                     \
        else if (op == MPI_MAX) *b = *b > a ? *b : a;                                                  \
        else if (op == MPI_MIN) *b = *b < a ? *b : a;                                                  \
        else return 0;                                                                                 \
        return 1;                                                                                      \
    } while (0)
#define BITS(T)                                                                                        \
    do {                                                                                               \
        T a = *(const T *)in, *b = (T *)t;                                                             \
        if (op == MPI_BAND) *b &= a;                                                                   \
        else if (op == MPI_BOR) *b |= a;                                                               \
        else if (op == MPI_BXOR) *b ^= a;                                                              \
        else ARITH(T);                                                                                 \
        return 1;                                                                                      \
    } while (0)

static int apply(MPI_Op op, MPI_Datatype dt, const void *in, void *t)
{
    if (op == MPI_REPLACE) {
        memcpy(t, in, (size_t)builtin_size(dt));
        return 1;
    }
    if (op == MPI_NO_OP)
        return 1;
    switch (dt) {
    case MPI_INT: case MPI_INT32_T: BITS(int32_t);
    case MPI_UNSIGNED: case MPI_UINT32_T: BITS(uint32_t);
    case MPI_LONG: case MPI_LONG_LONG: case MPI_INT64_T: case MPI_AINT: BITS(int64_t);
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: BITS(uint64_t);
    case MPI_DOUBLE: ARITH(double);
    case MPI_FLOAT: ARITH(float);
    }
    return 0;
}

/* Atomic forms of apply, for shareable memory (rma/atomic.go decides the same way):
 * one instruction for sum and the bitwise ops on integers, a compare-and-swap loop for
 * the rest; old gets the previous value. */
#define CAS_LOOP(T, U)                                                                                 \
    do {                                                                                               \
        U *w = (U *)t, cur = __atomic_load_n(w, __ATOMIC_RELAXED), next;                               \
        T a, b;                                                                                        \
        memcpy(&a, in, sizeof a);                                                                      \
        do {                                                                                           \
            memcpy(&b, &cur, sizeof b);                                                                \
            if (op == MPI_SUM) b = b + a;                                                              \
            else if (op == MPI_PROD) b = b * a;                                                        \
            else if (op == MPI_MAX) b = b > a ? b : a;                                                 \
            else if (op == MPI_MIN) b = b < a ? b : a;                                                 \
            else return 0;                                                                             \
            memcpy(&next, &b, sizeof next);                                                            \
        } while (!__atomic_compare_exchange_n(w, &cur, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)); \
        memcpy(old, &cur, sizeof cur);                                                                 \
        return 1;                                                                                      \
    } while (0)
#define INT_ATOMIC(T, U)                                                                               \
    do {                                                                                               \
        U *w = (U *)t, a, prev;                                                                        \
        memcpy(&a, in, sizeof a);                                                                      \
        if (op == MPI_SUM) prev = __atomic_fetch_add(w, a, __ATOMIC_ACQ_REL);                          \
        else if (op == MPI_BAND) prev = __atomic_fetch_and(w, a, __ATOMIC_ACQ_REL);                    \
        else if (op == MPI_BOR) prev = __atomic_fetch_or(w, a, __ATOMIC_ACQ_REL);                      \
        else if (op == MPI_BXOR) prev = __atomic_fetch_xor(w, a, __ATOMIC_ACQ_REL);                    \
        else if (op == MPI_REPLACE) prev = __atomic_exchange_n(w, a, __ATOMIC_ACQ_REL);                \
        else CAS_LOOP(T, U);                                                                           \
        memcpy(old, &prev, sizeof prev);                                                               \
        return 1;                                                                                      \
    } while (0)
#define FLOAT_ATOMIC(T, U)                                                                             \
    do {                                                                                               \
        if (op == MPI_REPLACE) {                                                                       \
            U a, prev;                                                                                 \
            memcpy(&a, in, sizeof a);                                                                  \
            prev = __atomic_exchange_n((U *)t, a, __ATOMIC_ACQ_REL);                                   \
            memcpy(old, &prev, sizeof prev);                                                           \
            return 1;                                                                                  \
        }                                                                                              \
        CAS_LOOP(T, U);                                                                                \
    } while (0)

static int apply_atomic(MPI_Op op, MPI_Datatype dt, const void *in, char *t, char *old)
{
    if (op == MPI_NO_OP) {
        if (builtin_size(dt) == 8) {
            uint64_t v = __atomic_load_n((uint64_t *)t, __ATOMIC_ACQUIRE);
            memcpy(old, &v, 8);
        } else {
            uint32_t v = __atomic_load_n((uint32_t *)t, __ATOMIC_ACQUIRE);
            memcpy(old, &v, 4);
        }
        return 1;
    }
    switch (dt) {
    case MPI_INT: case MPI_INT32_T: INT_ATOMIC(int32_t, uint32_t);
    case MPI_UNSIGNED: case MPI_UINT32_T: INT_ATOMIC(uint32_t, uint32_t);
    case MPI_LONG: case MPI_LONG_LONG: case MPI_INT64_T: case MPI_AINT: INT_ATOMIC(int64_t, uint64_t);
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: INT_ATOMIC(uint64_t, uint64_t);
    case MPI_DOUBLE: FLOAT_ATOMIC(double, uint64_t);
    case MPI_FLOAT: FLOAT_ATOMIC(float, uint32_t);
    }
    return 0;
}

static int accumulate(const void *origin, void *result, MPI_Datatype dt, int rank, MPI_Aint disp, MPI_Op op,
                      mpix_rma_view *v)
{
    int s = builtin_size(dt);
    mpix_rma_peer *p;
    if (s == 0 || dt == MPI_CHAR || dt == MPI_BYTE || dt == MPI_SHORT || v->w->netacc)
        return MPIX_FAST_MISS;
    int atomics;
    char *t = target(v, rank, disp, s, &p, &atomics);
    if (t == NULL)
        return MPIX_FAST_MISS;
    char in[8], old[8];
    if (op != MPI_NO_OP)
        memcpy(in, origin, (size_t)s);
    if (atomics) {
        if (!apply_atomic(op, dt, in, t, old))
            return MPIX_FAST_MISS; /* nothing changed: Go does it (or reports the error) */
        if (result != NULL)
            memcpy(result, old, (size_t)s);
        return MPI_SUCCESS;
    }
    if (v->flags & MPIX_RMA_INTRINSIC)
        return MPIX_FAST_MISS; /* asserted intrinsic, but it is not: Go reports the error */
    acc_lock(p);
    memcpy(old, t, (size_t)s);
    int ok = apply(op, dt, in, t);
    acc_unlock(p);
    if (!ok)
        return MPIX_FAST_MISS; /* nothing changed: Go does it (or reports the error) */
    if (result != NULL)
        memcpy(result, old, (size_t)s);
    return MPI_SUCCESS;
}

int mpix_rma_fast_accumulate(const void *origin, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                             int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    mpix_rma_view *v = win_of(win);
    if (v == NULL || ocount != 1 || tcount != 1 || otype != ttype || op == MPI_NO_OP)
        return MPIX_FAST_MISS;
    return accumulate(origin, NULL, ttype, rank, disp, op, v);
}

int mpix_rma_fast_fetch_and_op(const void *origin, void *result, MPI_Datatype dt, int rank, MPI_Aint disp,
                               MPI_Op op, MPI_Win win)
{
    mpix_rma_view *v = win_of(win);
    if (v == NULL || result == NULL || (origin == NULL && op != MPI_NO_OP))
        return MPIX_FAST_MISS;
    return accumulate(origin, result, dt, rank, disp, op, v);
}

int mpix_rma_fast_compare_and_swap(const void *origin, const void *compare, void *result, MPI_Datatype dt,
                                   int rank, MPI_Aint disp, MPI_Win win)
{
    mpix_rma_view *v = win_of(win);
    int s = builtin_size(dt);
    mpix_rma_peer *p;
    if (v == NULL || s == 0 || dt == MPI_FLOAT || dt == MPI_DOUBLE || origin == NULL || compare == NULL ||
        result == NULL || v->w->netacc)
        return MPIX_FAST_MISS;
    int atomics;
    char *t = target(v, rank, disp, s, &p, &atomics);
    if (t == NULL)
        return MPIX_FAST_MISS;
    char old[8];
    if (atomics && (s == 4 || s == 8)) {
        if (s == 8) {
            uint64_t want, next;
            memcpy(&want, compare, 8);
            memcpy(&next, origin, 8);
            __atomic_compare_exchange_n((uint64_t *)t, &want, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            memcpy(old, &want, 8);
        } else {
            uint32_t want, next;
            memcpy(&want, compare, 4);
            memcpy(&next, origin, 4);
            __atomic_compare_exchange_n((uint32_t *)t, &want, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            memcpy(old, &want, 4);
        }
        memcpy(result, old, (size_t)s);
        return MPI_SUCCESS;
    }
    if (atomics || (v->flags & MPIX_RMA_INTRINSIC))
        return MPIX_FAST_MISS; /* a 1- or 2-byte element: Go takes the lock, as its peers do */
    acc_lock(p);
    memcpy(old, t, (size_t)s);
    if (memcmp(old, compare, (size_t)s) == 0)
        memcpy(t, origin, (size_t)s);
    acc_unlock(p);
    memcpy(result, old, (size_t)s);
    return MPI_SUCCESS;
}

/* A flush of a rank whose operations complete in the call (loads and stores,
 * process_vm_writev) has nothing to wait for: the fence orders them before what
 * follows. */
int mpix_rma_fast_flush(int rank, MPI_Win win)
{
    mpix_rma_view *v = win_of(win);
    if (v == NULL || (v->mh_rank >= 0 && rank != v->mh_rank))
        return MPIX_FAST_MISS;
    mpix_rma_win *w = v->w;
    if (rank < 0 || rank >= w->nranks || !w->peers[rank].sync || !w->direct)
        return MPIX_FAST_MISS; /* !direct: some flush must reach Go, whose progress serves peers */
    if (!__atomic_load_n(&w->passive, __ATOMIC_RELAXED) &&
        !(__atomic_load_n(&w->peers[rank].access, __ATOMIC_RELAXED) & MPIX_RMA_LOCKED))
        return MPIX_FAST_MISS;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

int mpix_rma_fast_flush_all(MPI_Win win)
{
    mpix_rma_view *v = win_of(win);
    if (v == NULL)
        return MPIX_FAST_MISS;
    mpix_rma_win *w = v->w;
    if (!w->direct || !__atomic_load_n(&w->passive, __ATOMIC_RELAXED))
        return MPIX_FAST_MISS;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

int mpix_rma_fast_get_accumulate(const void *origin, int ocount, MPI_Datatype otype, void *result, int rcount,
                                 MPI_Datatype rtype, int rank, MPI_Aint disp, int tcount, MPI_Datatype ttype,
                                 MPI_Op op, MPI_Win win)
{
    mpix_rma_view *v = win_of(win);
    if (v == NULL || rcount != 1 || tcount != 1 || rtype != ttype || result == NULL ||
        (op != MPI_NO_OP && (ocount != 1 || otype != ttype || origin == NULL)))
        return MPIX_FAST_MISS;
    return accumulate(origin, result, ttype, rank, disp, op, v);
}
