/* rma_errors: erroneous RMA calls under MPI_ERRORS_RETURN (set on the windows and on
 * MPI_COMM_WORLD / MPI_COMM_SELF) return the right error class, and leave memory and
 * windows intact: the windows still work afterwards.
 *   - MPI_ERR_RMA_RANGE: target displacements past the end of created (a canary after
 *     the window), allocated and shared windows (the next rank's contiguous segment is
 *     untouched), straddling the end, reached through a derived target type, an
 *     overflowing displacement; on dynamic windows, memory never attached, running
 *     past an attached region, and a region after MPI_Win_detach. The error is
 *     returned by the operation or by the MPI_Win_flush that completes it;
 *   - negative displacements: MPI_ERR_RMA_RANGE or MPI_ERR_DISP;
 *   - MPI_ERR_RMA_SYNC: every operation and flush outside an epoch, unlock without a
 *     lock, unlock_all without lock_all, complete / wait / test without start / post, a
 *     second lock of one target, lock or lock_all or start or fence inside lock_all,
 *     an access to a rank outside the start group, a second start, a request-based
 *     operation in a fence epoch;
 *   - MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT (asserts a call does not accept);
 *   - MPI_ERR_RMA_FLAVOR: MPI_Win_shared_query on a dynamic window (erroneous in
 *     MPI-4.1, which allows created and allocated windows), MPI_Win_attach and
 *     MPI_Win_detach on windows that are not dynamic;
 *   - MPI_ERR_WIN: MPI_WIN_NULL; MPI_ERR_DISP: disp_unit of -1 and 0 at creation (every
 *     creation call and _c form); MPI_ERR_SIZE: a negative size;
 *   - MPI_ERR_RANK, MPI_ERR_COUNT, MPI_ERR_TYPE (MPI_DATATYPE_NULL, compare-and-swap on
 *     a double, fetch-and-op on a derived type, origin and target elements of different
 *     basic types), MPI_ERR_OP (a user-defined op, MPI_NO_OP in MPI_Accumulate).
 * MPICH 4.0.2, the reference, deviates in places; those assertions run only with
 * MPIX_RMA_STRICT=1 (mpix's ctests set it), each marked where it is made:
 *   - it does not check target displacements at all (a put past a created window's end
 *     writes the memory after it; a put to unattached memory of a dynamic window
 *     writes it), so every MPI_ERR_RMA_RANGE case is strict;
 *   - it returns MPI_ERR_ARG for a bad lock type and for asserts a call does not
 *     accept (the standard's classes are MPI_ERR_LOCKTYPE and MPI_ERR_ASSERT);
 *   - it accepts MPI_Rput in a fence epoch (request-based operations are valid only
 *     in passive-target epochs) and accumulates whose origin and target elements are
 *     different basic types (int into float). */
#include "rma_util.h"

static long nchecks;
static int rank, nproc;

static int klass(int rc)
{
    int c = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

/* first_error: of an operation's return code and the return code of the flush that
 * completes it, the first failure must have class want (or alt, when alt >= 0), and
 * the flush may not report another one. */
static void first_error(int rc_op, int rc_flush, int want, int alt, const char *what)
{
    int c1 = klass(rc_op), c2 = klass(rc_flush);
    int first = c1 != MPI_SUCCESS ? c1 : c2;
    CHECK(first == want || (alt >= 0 && first == alt), "%s: class %d (operation) then %d (flush), want %d", what, c1, c2,
          want);
    CHECK(c1 == MPI_SUCCESS || c2 == MPI_SUCCESS || c2 == c1, "%s: the operation failed with %d, its flush with %d", what,
          c1, c2);
    nchecks++;
}

/* The operation runs before its flush: C leaves the order of a call's arguments open. */
#define RANGE(call, t, win)                                                             \
    do {                                                                                \
        int rc_op_ = (call);                                                            \
        first_error(rc_op_, MPI_Win_flush((t), (win)), MPI_ERR_RMA_RANGE, -1, #call);   \
    } while (0)
#define EXPECT(call, want) \
    do {                   \
        CHECK_CLASS(call, want); \
        nchecks++;         \
    } while (0)
#define EXPECT_MPICH(call, want, mpich) \
    do {                                \
        CHECK_CLASS_MPICH(call, want, mpich); \
        nchecks++;                      \
    } while (0)

/* put_get_works: a put to the right neighbour and a get back, under a lock_all */
static void put_get_works(MPI_Win win, MPI_Aint disp_right, const char *what)
{
    int right = (rank + 1) % nproc, v = 4242 + rank, back = -1;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank has checked its window */
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, disp_right, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_flush(right, win));
    CHECK_OK(MPI_Get(&back, 1, MPI_INT, right, disp_right, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_flush(right, win));
    CHECK(back == v, "%s: after the errors, a put and get give %d, want %d", what, back, v);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    nchecks++;
}

/* out-of-range operations on a window of 64 bytes at target t, inside a lock epoch */
static void range_ops(MPI_Win win, int t, int strict)
{
    int x[4] = {1, 2, 3, 4}, y[4];
    if (strict) {
        MPI_Datatype far; /* 1 int at 0 and 1 int at byte 64 */
        CHECK_OK(MPI_Type_vector(2, 1, 16, MPI_INT, &far));
        CHECK_OK(MPI_Type_commit(&far));
        RANGE(MPI_Put(x, 1, MPI_INT, t, 64, 1, MPI_INT, win), t, win);
        RANGE(MPI_Put(x, 2, MPI_INT, t, 60, 2, MPI_INT, win), t, win);
        RANGE(MPI_Put_c(x, 1, MPI_INT, t, 64, 1, MPI_INT, win), t, win);
        RANGE(MPI_Get(y, 1, MPI_INT, t, 1000, 1, MPI_INT, win), t, win);
        RANGE(MPI_Accumulate(x, 1, MPI_INT, t, 64, 1, MPI_INT, MPI_SUM, win), t, win);
        RANGE(MPI_Get_accumulate(x, 1, MPI_INT, y, 1, MPI_INT, t, 62, 1, MPI_INT, MPI_SUM, win), t, win);
        RANGE(MPI_Fetch_and_op(x, y, MPI_INT, t, 64, MPI_SUM, win), t, win);
        RANGE(MPI_Compare_and_swap(x, x + 1, y, MPI_INT, t, 62, win), t, win);
        RANGE(MPI_Put(x, 2, MPI_INT, t, 0, 1, far, win), t, win);
        RANGE(MPI_Put(x, 1, MPI_INT, t, (MPI_Aint)1 << 62, 1, MPI_INT, win), t, win);
        RANGE(MPI_Get(y, 1, MPI_INT, t, ((MPI_Aint)1 << 62) - 2, 1, MPI_INT, win), t, win);
        CHECK_OK(MPI_Type_free(&far));
    }
    /* a negative displacement: MPI_ERR_RMA_RANGE, or MPI_ERR_DISP (MPICH) */
    first_error(MPI_Put(x, 1, MPI_INT, t, -4, 1, MPI_INT, win), MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE, MPI_ERR_DISP,
                "MPI_Put at displacement -4");
}

static void test_range_create(int strict)
{
    /* a 64-byte window over a 128-byte buffer: 0x11 inside, a 0xcc canary after */
    unsigned char *buf = malloc(128);
    MPI_Win win;
    memset(buf, 0x11, 64);
    memset(buf + 64, 0xcc, 64);
    CHECK_OK(MPI_Win_create(buf, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int t = (rank + 1) % nproc;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    range_ops(win, t, strict);
    CHECK_OK(MPI_Win_unlock(t, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int i = 0; i < 128; i++)
        CHECK(buf[i] == (i < 64 ? 0x11 : 0xcc), "MPI_Win_create: byte %d %s the window is %#x after the erroneous operations",
              i, i < 64 ? "in" : "after", buf[i]);
    CHECK_OK(MPI_Win_unlock(rank, win));
    nchecks++;
    put_get_works(win, 0, "MPI_Win_create");
    CHECK_OK(MPI_Win_free(&win));
    free(buf);
}

static void test_range_allocate(int shared, int strict)
{
    const char *what = shared ? "MPI_Win_allocate_shared" : "MPI_Win_allocate";
    unsigned char *base;
    MPI_Win win;
    if (shared)
        CHECK_OK(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    else
        CHECK_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(base, 0x20 + rank, 64);
    CHECK_OK(MPI_Win_unlock(rank, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int t = (rank + 1) % nproc;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    range_ops(win, t, strict);
    CHECK_OK(MPI_Win_unlock(t, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* a shared window is contiguous: a put past rank t's end would land in rank t+1's
     * segment, which every rank's own check covers */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int i = 0; i < 64; i++)
        CHECK(base[i] == 0x20 + rank, "%s: byte %d of rank %d's window is %#x after the erroneous operations", what, i,
              rank, base[i]);
    CHECK_OK(MPI_Win_unlock(rank, win));
    nchecks++;
    put_get_works(win, 0, what);
    CHECK_OK(MPI_Win_free(&win));
}

/* dynamic windows: memory that is not attached (all strict: MPICH writes it) */
static void test_range_dynamic(void)
{
    MPI_Win win;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    unsigned char *att = malloc(64), *notatt = malloc(64);
    memset(att, 0x33, 64);
    memset(notatt, 0x44, 64);
    CHECK_OK(MPI_Win_attach(win, att, 64));
    MPI_Aint mine[2], theirs[2];
    MPI_Get_address(att, &mine[0]);
    MPI_Get_address(notatt, &mine[1]);
    int t = (rank + 1) % nproc, l = (rank + nproc - 1) % nproc;
    CHECK_OK(MPI_Sendrecv(mine, 2, MPI_AINT, l, 0, theirs, 2, MPI_AINT, t, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int x[2] = {7, 8}, y[2];
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    RANGE(MPI_Put(x, 1, MPI_INT, t, theirs[1], 1, MPI_INT, win), t, win);
    RANGE(MPI_Get(y, 1, MPI_INT, t, theirs[1] + 8, 1, MPI_INT, win), t, win);
    RANGE(MPI_Accumulate(x, 1, MPI_INT, t, theirs[1], 1, MPI_INT, MPI_SUM, win), t, win);
    RANGE(MPI_Fetch_and_op(x, y, MPI_INT, t, theirs[1], MPI_SUM, win), t, win);
    RANGE(MPI_Put(x, 2, MPI_INT, t, theirs[0] + 60, 2, MPI_INT, win), t, win);
    RANGE(MPI_Put(x, 1, MPI_INT, t, 0, 1, MPI_INT, win), t, win);
    /* the attached region itself works */
    CHECK_OK(MPI_Put(x, 2, MPI_INT, t, theirs[0], 2, MPI_INT, win));
    CHECK_OK(MPI_Win_unlock(t, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    int head[2];
    memcpy(head, att, sizeof head);
    CHECK(head[0] == 7 && head[1] == 8, "dynamic: the valid put gave %d %d", head[0], head[1]);
    for (int i = 8; i < 64; i++)
        CHECK(att[i] == 0x33, "dynamic: byte %d of the attached region is %#x", i, att[i]);
    for (int i = 0; i < 64; i++)
        CHECK(notatt[i] == 0x44, "dynamic: byte %d of memory never attached is %#x", i, notatt[i]);
    CHECK_OK(MPI_Win_unlock(rank, win));
    nchecks += 2;
    /* once detached, the region is out of range */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_detach(win, att));
    memset(att, 0x55, 64);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    RANGE(MPI_Put(x, 1, MPI_INT, t, theirs[0], 1, MPI_INT, win), t, win);
    CHECK_OK(MPI_Win_unlock(t, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 64; i++)
        CHECK(att[i] == 0x55, "dynamic: byte %d of a detached region is %#x", i, att[i]);
    nchecks++;
    CHECK_OK(MPI_Win_free(&win));
    free(att);
    free(notatt);
}

static void test_sync(rma_win *w, int strict)
{
    MPI_Win win = w->win;
    int t = (rank + 1) % nproc, l = (rank + nproc - 1) % nproc, flag;
    int x[2] = {1, 2}, y[2];
    MPI_Aint d = rma_disp(w, t, 0);
    MPI_Request rq;
    /* outside any epoch */
    EXPECT(MPI_Put(x, 1, MPI_INT, t, d, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Get(y, 1, MPI_INT, t, d, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Accumulate(x, 1, MPI_INT, t, d, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Get_accumulate(x, 1, MPI_INT, y, 1, MPI_INT, t, d, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Fetch_and_op(x, y, MPI_INT, t, d, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Compare_and_swap(x, x + 1, y, MPI_INT, t, d, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Rput(x, 1, MPI_INT, t, d, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Rget(y, 1, MPI_INT, t, d, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_local(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC);
    /* a second lock of one target */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_unlock(t, win));
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    /* inside lock_all */
    CHECK_OK(MPI_Win_lock_all(0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    MPI_Group wg, gt, gl;
    CHECK_OK(MPI_Win_get_group(win, &wg));
    CHECK_OK(MPI_Group_incl(wg, 1, &t, &gt));
    CHECK_OK(MPI_Group_incl(wg, 1, &l, &gl));
    EXPECT(MPI_Win_start(gt, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* post/start: a rank outside the start group, a second start */
    CHECK_OK(MPI_Win_post(gl, 0, win));
    CHECK_OK(MPI_Win_start(gt, 0, win));
    EXPECT(MPI_Put(x, 1, MPI_INT, rank, rma_disp(w, rank, 0), 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_start(gt, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    if (strict) /* request-based operations are for passive-target epochs (MPICH accepts them) */
        EXPECT(MPI_Rput(x, 1, MPI_INT, t, d, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_complete(win));
    CHECK_OK(MPI_Win_wait(win));
    /* a request-based operation in a fence epoch */
    CHECK_OK(MPI_Win_fence(0, win));
    if (strict)
        EXPECT(MPI_Rget(y, 1, MPI_INT, t, d, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_OK(MPI_Group_free(&wg));
    CHECK_OK(MPI_Group_free(&gt));
    CHECK_OK(MPI_Group_free(&gl));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_locktype_assert(rma_win *w)
{
    MPI_Win win = w->win;
    int t = (rank + 1) % nproc, l = (rank + nproc - 1) % nproc;
    EXPECT_MPICH(MPI_Win_lock(12345, t, 0, win), MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    EXPECT_MPICH(MPI_Win_lock(-1, t, 0, win), MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    EXPECT_MPICH(MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOPUT, win), MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT_MPICH(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 1 << 24, win), MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT_MPICH(MPI_Win_lock_all(MPI_MODE_NOSTORE, win), MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT_MPICH(MPI_Win_fence(1 << 24, win), MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT_MPICH(MPI_Win_fence(MPI_MODE_NOCHECK, win), MPI_ERR_ASSERT, MPI_ERR_ARG);
    MPI_Group wg, gt, gl;
    CHECK_OK(MPI_Win_get_group(win, &wg));
    CHECK_OK(MPI_Group_incl(wg, 1, &t, &gt));
    CHECK_OK(MPI_Group_incl(wg, 1, &l, &gl));
    EXPECT_MPICH(MPI_Win_post(gl, MPI_MODE_NOPRECEDE, win), MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT_MPICH(MPI_Win_start(gt, MPI_MODE_NOPUT, win), MPI_ERR_ASSERT, MPI_ERR_ARG);
    CHECK_OK(MPI_Group_free(&wg));
    CHECK_OK(MPI_Group_free(&gt));
    CHECK_OK(MPI_Group_free(&gl));
    /* the asserts each call does accept */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOCHECK, win));
    CHECK_OK(MPI_Win_unlock(t, win));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    CHECK(0, "a user-defined op ran in an accumulate");
}

static void test_args(rma_win *w, int strict)
{
    MPI_Win win = w->win;
    int t = (rank + 1) % nproc;
    int x[4] = {1, 2, 3, 4}, y[4];
    MPI_Aint d = rma_disp(w, t, 0);
    MPI_Op uop;
    MPI_Datatype pair;
    CHECK_OK(MPI_Op_create(user_op, 1, &uop));
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_OK(MPI_Type_commit(&pair));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT(MPI_Put(x, 1, MPI_INT, nproc, d, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Get(y, 1, MPI_INT, -5, d, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(x, -1, MPI_INT, t, d, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Get(y, 1, MPI_INT, t, d, -1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(x, 1, MPI_DATATYPE_NULL, t, d, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT(MPI_Accumulate(x, 1, MPI_INT, t, d, 1, MPI_INT, uop, win), MPI_ERR_OP);
    EXPECT(MPI_Accumulate(x, 1, MPI_INT, t, d, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
    EXPECT(MPI_Compare_and_swap(x, x + 1, y, MPI_DOUBLE, t, d, win), MPI_ERR_TYPE);
    EXPECT(MPI_Fetch_and_op(x, y, pair, t, d, MPI_SUM, win), MPI_ERR_TYPE);
    if (strict) /* MPICH accumulates an int into a float without a word */
        EXPECT(MPI_Accumulate(x, 1, MPI_INT, t, d, 1, MPI_FLOAT, MPI_SUM, win), MPI_ERR_TYPE);
    CHECK_OK(MPI_Win_unlock(t, win));
    CHECK_OK(MPI_Type_free(&pair));
    CHECK_OK(MPI_Op_free(&uop));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_flavor(void)
{
    MPI_Win dyn, win;
    int buf[4], x[4];
    void *mem;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    CHECK_OK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
    MPI_Aint size;
    int du;
    EXPECT(MPI_Win_shared_query(dyn, 0, &size, &du, &mem), MPI_ERR_RMA_FLAVOR);
    EXPECT(MPI_Win_shared_query(dyn, MPI_PROC_NULL, &size, &du, &mem), MPI_ERR_RMA_FLAVOR);
    MPI_Aint duc;
    EXPECT(MPI_Win_shared_query_c(dyn, 0, &size, &duc, &mem), MPI_ERR_RMA_FLAVOR);
    CHECK_OK(MPI_Win_free(&dyn));
    for (int f = 0; f < 3; f++) {
        if (f == 0)
            CHECK_OK(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        else if (f == 1)
            CHECK_OK(MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        else
            CHECK_OK(MPI_Win_allocate_shared(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        EXPECT(MPI_Win_attach(win, x, sizeof x), MPI_ERR_RMA_FLAVOR);
        EXPECT(MPI_Win_detach(win, x), MPI_ERR_RMA_FLAVOR);
        CHECK_OK(MPI_Win_free(&win));
    }
}

static void test_win_null(void)
{
    MPI_Win null = MPI_WIN_NULL;
    MPI_Group g;
    int x = 0, flag;
    void *v;
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_flush_all(MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_get_group(MPI_WIN_NULL, &g), MPI_ERR_WIN);
    EXPECT(MPI_Win_set_name(MPI_WIN_NULL, "x"), MPI_ERR_WIN);
    EXPECT(MPI_Win_get_attr(MPI_WIN_NULL, MPI_WIN_BASE, &v, &flag), MPI_ERR_WIN);
    EXPECT(MPI_Win_free(&null), MPI_ERR_WIN);
}

static void test_create_args(void)
{
    int buf[16];
    void *mem;
    MPI_Win win = MPI_WIN_NULL;
    for (int du = -1; du <= 0; du++) {
        EXPECT(MPI_Win_create(buf, sizeof buf, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
        EXPECT(MPI_Win_create_c(buf, sizeof buf, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
        EXPECT(MPI_Win_allocate(64, du, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_DISP);
        EXPECT(MPI_Win_allocate_c(64, du, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_DISP);
        EXPECT(MPI_Win_allocate_shared(64, du, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_DISP);
        EXPECT(MPI_Win_allocate_shared_c(64, du, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_DISP);
    }
    EXPECT(MPI_Win_create(buf, -64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE);
    EXPECT(MPI_Win_allocate(-64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_SIZE);
    EXPECT(MPI_Win_allocate_shared(-64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_SIZE);
    CHECK(win == MPI_WIN_NULL, "a failed creation returned a window");
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK(nproc >= 2, "needs at least 2 processes");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int strict = rma_strict();
    test_range_create(strict);
    test_range_allocate(0, strict);
    test_range_allocate(1, strict);
    if (strict)
        test_range_dynamic();
    for (int k = 0; k < RMA_NKINDS; k++) {
        rma_win w;
        rma_open(&w, k, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
        CHECK_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        test_sync(&w, strict);
        test_locktype_assert(&w);
        test_args(&w, strict);
        put_get_works(w.win, rma_disp(&w, (rank + 1) % nproc, 0), rma_kind_name[k]);
        rma_close(&w);
    }
    test_flavor();
    test_win_null();
    test_create_args();
    long total;
    MPI_Reduce(&nchecks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_errors: np %d, %ld checks passed%s\n", nproc, total,
               strict ? " (strict: with the range checks MPICH does not make)" : "");
    CHECK_OK(MPI_Finalize());
    return 0;
}
