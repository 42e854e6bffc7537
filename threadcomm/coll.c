/* Collectives of a single-process activation: Barrier, Bcast, Reduce and Allreduce
 * (on seats or one shared buffer), and the copying collectives (gathers, scatters,
 * all-to-all, scans, reduce-scatter) over views of every thread's buffers. */
#include "tc.h"

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
    if (size == 0 && !mpixTcTypeView(dt, &ext, &packed))
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
            if (!mpixTcPackData(0, (char *)buf + at * ext, c, dt, v->blk[b], (int64_t)v->len[b]))
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
 * passed mpixTcTypeView and the sizes are its own: it cannot refuse), and frees the
 * view. */
static void view_finish(tc_view *v, int recv)
{
    if (recv && v->tmp != NULL)
        for (int b = 0; b < v->nblk; b++) {
            int c = v->counts != NULL ? v->counts[b] : v->count;
            int64_t at = v->displs != NULL ? v->displs[b] : (int64_t)b * v->count;
            mpixTcPackData(1, (char *)v->user + at * v->ext, c, v->dt, v->blk[b], (int64_t)v->len[b]);
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
    if (a == NULL || root < 0 || root >= a->n || null_buf(buffer, count, datatype) ||
        !view_init(&v, buffer, 1, count, NULL, NULL, datatype, me != root, 0))
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
        tc_barrier(a);
        if (me != root)
            memcpy(v.blk[0], a->rbuf[root], bytes);
        tc_barrier(a); /* the root's buffer is read until here */
    }
    view_finish(&v, me != root);
    return MPI_SUCCESS;
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
            mpix_fold(k, op, in, n, &out[root], 1, lo, hi);
        else
            mpix_fold(k, op, in, n, out, n, lo, hi);
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
        mpix_fold(k, op, in, n, &rbuf, 1, 0, count);
}

/* reduce folds every thread's sbuf into the rbuf of root (every rbuf when root is
 * -1), in slices of whole cache lines (no two threads write one line). A single
 * slice, or without seats little to read, is folded by the last to arrive inside one
 * barrier; otherwise with seats see seat_reduce, and without them the threads fold
 * their slices between two barriers. */
static void tc_reduce(mpix_tc_act *a, int me, const void *sbuf, void *rbuf, int count, int k, MPI_Op op,
                   int root)
{
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    int n = a->n;
    int64_t esz = mpix_fold_esz(k);
    size_t bytes = (size_t)count * (size_t)esz;
    if (a->seats != NULL && bytes <= TC_SEAT_SMALL) {
        seat_small(a, me, mpix_tc_tls.seat, sbuf, rbuf, count, k, op, root, bytes);
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
        seat_reduce(a, me, mpix_tc_tls.seat, sbuf, rbuf, count, k, op, root, per);
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
                mpix_fold(k, op, (const void *const *)a->sbuf, n, (void *const *)&a->rbuf[root], 1, 0, count);
            else
                mpix_fold(k, op, (const void *const *)a->sbuf, n, (void *const *)a->rbuf, n, 0, count);
            gen_release(a);
        } else
            gen_wait(a, g);
        return;
    }
    tc_barrier(a);
    int64_t lo = (int64_t)me * per, hi = lo + per;
    if (hi > count)
        hi = count;
    if (lo < hi) {
        if (root >= 0)
            mpix_fold(k, op, (const void *const *)a->sbuf, n, (void *const *)&a->rbuf[root], 1, lo, hi);
        else
            mpix_fold(k, op, (const void *const *)a->sbuf, n, (void *const *)a->rbuf, n, lo, hi);
    }
    tc_barrier(a);
}

int mpix_fast_MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                         MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || count < 0 || root < 0 || root >= a->n || !fold_ok(datatype, op) ||
        (me == root ? bad_reduce_bufs(sendbuf, recvbuf, count) : sendbuf == MPI_IN_PLACE) ||
        null_buf(sendbuf, count, datatype) || (me == root && null_buf(recvbuf, count, datatype)))
        return MPIX_FAST_MISS;
    tc_reduce(a, me, sendbuf, recvbuf, count, mpix_fold_kind(datatype), op, root);
    return MPI_SUCCESS;
}

int mpix_fast_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm)
{
    int me;
    mpix_tc_act *a = coll_self(comm, &me);
    if (a == NULL || count < 0 || !fold_ok(datatype, op) || bad_reduce_bufs(sendbuf, recvbuf, count) ||
        null_buf(sendbuf, count, datatype) || null_buf(recvbuf, count, datatype))
        return MPIX_FAST_MISS;
    tc_reduce(a, me, sendbuf, recvbuf, count, mpix_fold_kind(datatype), op, -1);
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
    tc_barrier(a);
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
    tc_barrier(a);
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
    if (a == NULL || recvbuf == MPI_IN_PLACE || (vv && (recvcounts == NULL || displs == NULL)) ||
        null_buf(sendbuf, sendcount, sendtype) ||
        (vv ? null_bufv(recvbuf, a->n, recvcounts, recvtype) : null_buf(recvbuf, recvcount, recvtype)))
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
        (vv && me == root && (recvcounts == NULL || displs == NULL)) || null_buf(sendbuf, sendcount, sendtype) ||
        (me == root && (vv ? null_bufv(recvbuf, a->n, recvcounts, recvtype) : null_buf(recvbuf, recvcount, recvtype))))
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
        (vv && me == root && (sendcounts == NULL || displs == NULL)) || null_buf(recvbuf, recvcount, recvtype) ||
        (me == root && (vv ? null_bufv(sendbuf, a->n, sendcounts, sendtype) : null_buf(sendbuf, sendcount, sendtype))))
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
        (vv && (sendcounts == NULL || sdispls == NULL || recvcounts == NULL || rdispls == NULL)) ||
        (vv ? null_bufv(sendbuf, a->n, sendcounts, sendtype) || null_bufv(recvbuf, a->n, recvcounts, recvtype)
            : null_buf(sendbuf, sendcount, sendtype) || null_buf(recvbuf, recvcount, recvtype)))
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
    int n = a->n, k = mpix_fold_kind(dt);
    int64_t esz = mpix_fold_esz(k), total = count; /* elements of this thread's input */
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
    if (bad_reduce_bufs(sendbuf, recvbuf, kind == TC_REDUCE_SCATTER || count > 0) ||
        null_buf(sendbuf, (int)total, dt) ||
        null_buf(recvbuf, kind != TC_REDUCE_SCATTER ? count : recvcounts != NULL ? recvcounts[me] : count, dt))
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
    tc_barrier(a);
    const void *const *in = (const void *const *)a->sbuf;
    if (kind == TC_SCAN)
        mpix_fold(k, op, in, me + 1, &recvbuf, 1, 0, count);
    else if (kind == TC_EXSCAN) {
        if (me > 0)
            mpix_fold(k, op, in, me, &recvbuf, 1, 0, count);
    } else {
        int64_t lo = 0;
        for (int p = 0; p < me; p++)
            lo += recvcounts != NULL ? recvcounts[p] : count;
        int64_t mine = recvcounts != NULL ? recvcounts[me] : count;
        const void *shifted[n]; /* everyone's slice me */
        for (int p = 0; p < n; p++)
            shifted[p] = (const char *)in[p] + lo * esz;
        mpix_fold(k, op, shifted, n, &recvbuf, 1, 0, mine);
    }
    tc_barrier(a);
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

