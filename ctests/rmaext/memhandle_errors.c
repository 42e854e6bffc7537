/* memhandle_errors: erroneous uses of memory handles ([RMA] sec. 4.2, Listing 5) under
 * MPI_ERRORS_RETURN (on MPI_COMM_WORLD, the parent windows and each memory-handle
 * window as soon as it exists) return errors, and never touch the exposed memory.
 * Rank 0 (A) exposes a region of R bytes followed by a canary; rank 1 (B) gets its
 * handle and tries:
 *   - a forged handle (random bytes, all zero, all 0xff), a corrupted one (every
 *     single byte position flipped in turn), a truncated one (only the first 8 bytes
 *     sent, the rest zero), a handle A released before sending it, and one A
 *     released and then replaced by a new handle of the same memory (the stale
 *     handle must not reach the memory the new one exposes);
 *   - the genuine handle with another dynamic window as parent (foreign), with a
 *     target rank that is not the handle's owner (B itself; and the rank count:
 *     MPI_ERR_RANK), with a parent that is not dynamic (MPI_ERR_RMA_FLAVOR), with a
 *     window size larger than the region, a disp_unit of 0 (MPI_ERR_DISP) and a
 *     negative size;
 *   - MPIX_Memhandle_release of A's handle by B (only the creator may release it);
 *   - on a window made from the genuine handle: put, get and accumulate at and past
 *     the end of the window, straddling it, and at a negative displacement
 *     (MPI_ERR_RMA_RANGE, from the operation or from the flush that completes it),
 *     also on a window smaller than the region; the window still works afterwards.
 * For the handles that are bad in themselves (forged, corrupted, truncated, released,
 * foreign, wrong target), an implementation may fail MPIX_Win_from_memhandle (it is
 * local) or, if it cannot tell yet, the first put through the window or the flush
 * after it: either counts, but one of them must fail.
 * A checks afterwards that its region and the canary are untouched, then that a
 * put through a good window lands (the positive control). A also tries
 * MPIX_Memhandle_create with a parent that is not dynamic (MPI_ERR_RMA_FLAVOR) and a
 * negative size, and MPIX_Memhandle_release twice (the second fails) and with a
 * foreign parent. */
#include "rmaext.h"

#define R 1024          /* bytes of A's exposed region */
#define CANARY 64       /* bytes after it */
#define TAG 7
#define PAT 0xa5
#define CAN 0xcc
#define RPAT 0x3c       /* the released region */

static int rank, nproc;
static long nchecks;

static void set_return(MPI_Win w) { CHECK_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN)); }

/* try_bad: a handle that must not give access to A's memory. Either
 * MPIX_Win_from_memhandle fails, or an int put at displacement 0 to target (under a
 * shared lock on lockwin; A's rank if target is not a valid rank) or the flush after
 * it fails. Returns the error class seen. */
static int try_bad(const void *h, MPI_Aint size, int du, int target, MPI_Win parent, MPI_Win lockwin, int a,
                   const char *what)
{
    MPI_Win w = MPI_WIN_NULL;
    int rc = MPIX_Win_from_memhandle(h, size, du, MPI_INFO_NULL, target, parent, &w);
    nchecks++;
    if (rc != MPI_SUCCESS) {
        CHECK(w == MPI_WIN_NULL, "%s: MPIX_Win_from_memhandle failed but returned a window", what);
        return rmaext_class(rc);
    }
    set_return(w);
    int lt = target >= 0 && target < nproc ? target : a, v = 0x5a5a5a5a;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, lt, 0, lockwin));
    int rp = MPI_Put(&v, 1, MPI_INT, target, 0, 1, MPI_INT, w);
    int rf = MPI_Win_flush(target, w);
    MPI_Win_unlock(lt, lockwin); /* may report the error again */
    CHECK_OK(MPI_Win_free(&w));
    CHECK(rp != MPI_SUCCESS || rf != MPI_SUCCESS,
          "%s: MPIX_Win_from_memhandle accepted it, and a put through the window and its flush succeeded", what);
    return rmaext_class(rp != MPI_SUCCESS ? rp : rf);
}

/* first_error: of an operation and the flush that completes it, the first failure must
 * have class want (alt too when alt >= 0). */
static void first_error(int rc_op, int rc_flush, int want, int alt, const char *what)
{
    int c1 = rmaext_class(rc_op), c2 = rmaext_class(rc_flush);
    int first = c1 != MPI_SUCCESS ? c1 : c2;
    CHECK(first == want || (alt >= 0 && first == alt), "%s: class %d (operation) then %d (flush), want %d", what, c1,
          c2, want);
    nchecks++;
}

static void range_errors(const void *h, int a, MPI_Win parent, MPI_Aint size, int du, const char *name)
{
    MPI_Win w;
    char what[160];
    int v[4], g[4];
    memset(v, PAT, sizeof v); /* what the region holds */
    MPI_Aint end = size / du; /* the first displacement past the window */
    CHECK_OK(MPIX_Win_from_memhandle(h, size, du, MPI_INFO_NULL, a, parent, &w));
    set_return(w);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, a, 0, parent));
#define RANGE(call, label)                                                                   \
    do {                                                                                     \
        int rp_ = (call);                                                                    \
        int rf_ = MPI_Win_flush(a, w);                                                       \
        snprintf(what, sizeof what, "%s window (size %ld, disp_unit %d): %s", name, (long)size, du, label); \
        first_error(rp_, rf_, MPI_ERR_RMA_RANGE, -1, what);                                  \
    } while (0)
    RANGE(MPI_Put(v, 1, MPI_INT, a, end, 1, MPI_INT, w), "MPI_Put at the end");
    RANGE(MPI_Put(v, 1, MPI_INT, a, end + 1000, 1, MPI_INT, w), "MPI_Put past the end");
    RANGE(MPI_Put(v, 4, MPI_INT, a, end - 1, 4, MPI_INT, w), "MPI_Put straddling the end");
    RANGE(MPI_Get(g, 1, MPI_INT, a, end, 1, MPI_INT, w), "MPI_Get at the end");
    RANGE(MPI_Accumulate(v, 1, MPI_INT, a, end, 1, MPI_INT, MPI_SUM, w), "MPI_Accumulate at the end");
    RANGE(MPI_Fetch_and_op(v, g, MPI_INT, a, end, MPI_SUM, w), "MPI_Fetch_and_op at the end");
    {
        int rp = MPI_Put(v, 1, MPI_INT, a, -1, 1, MPI_INT, w), rf = MPI_Win_flush(a, w);
        snprintf(what, sizeof what, "%s window: MPI_Put at displacement -1", name);
        first_error(rp, rf, MPI_ERR_RMA_RANGE, MPI_ERR_DISP, what);
    }
#undef RANGE
    /* the window still works: rewrite the first int with what it holds */
    CHECK_OK(MPI_Put(v, 1, MPI_INT, a, 0, 1, MPI_INT, w));
    CHECK_OK(MPI_Get(g, 1, MPI_INT, a, 0, 1, MPI_INT, w));
    CHECK_OK(MPI_Win_flush(a, w));
    CHECK(g[0] == v[0], "%s window: after the range errors a get reads %#x, want %#x", name, (unsigned)g[0],
          (unsigned)v[0]);
    CHECK_OK(MPI_Win_unlock(a, parent));
    CHECK_OK(MPI_Win_free(&w));
}

static void process_b(int a, MPI_Win parent, MPI_Win parent2, MPI_Win allocwin)
{
    MPIX_Memhandle h, hrel, htrunc, hstale, bad;
    int cls;
    char what[128];
    int hs = rmaext_recv_handle(&h, a, TAG);
    rmaext_recv_handle(&hrel, a, TAG);
    rmaext_recv_handle(&htrunc, a, TAG);
    rmaext_recv_handle(&hstale, a, TAG);
    CHECK(hs > 8 && hs <= MPIX_MAX_MEMHANDLE_SIZE, "the handle has %d bytes", hs);

    /* forged: random bytes, all zero, all 0xff */
    srand(12345);
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < MPIX_MAX_MEMHANDLE_SIZE; i++)
            bad.bytes[i] = k == 0 ? 0 : k == 1 ? 0xff : (unsigned char)(rand() >> 7);
        snprintf(what, sizeof what, "a forged handle (%s)", k == 0 ? "all zero" : k == 1 ? "all 0xff" : "random");
        try_bad(bad.bytes, R, 1, a, parent, parent, a, what);
    }
    /* corrupted: each byte of the genuine handle flipped in turn */
    for (int i = 0; i < hs; i++) {
        bad = h;
        bad.bytes[i] ^= 0x5a;
        snprintf(what, sizeof what, "a corrupted handle (byte %d of %d flipped)", i, hs);
        try_bad(bad.bytes, R, 1, a, parent, parent, a, what);
    }
    /* truncated: only its first 8 bytes arrived */
    try_bad(htrunc.bytes, R, 1, a, parent, parent, a, "a truncated handle (the first 8 bytes, then zeros)");
    /* released by A before it was sent */
    try_bad(hrel.bytes, R, 1, a, parent, parent, a, "a handle A released before sending it");
    /* released, and the same memory exposed again under a new handle */
    try_bad(hstale.bytes, R, 1, a, parent, parent, a,
            "a handle A released and replaced by a new handle of the same memory (stale)");
    /* the genuine handle with the wrong parent window */
    try_bad(h.bytes, R, 1, a, parent2, parent2, a, "the handle with another dynamic window as parent (foreign)");
    /* the genuine handle with a target rank that does not own it */
    try_bad(h.bytes, R, 1, rank, parent, parent, a, "the handle with B's own rank as target");
    if (nproc > 2)
        try_bad(h.bytes, R, 1, 2, parent, parent, a, "the handle with rank 2 as target");
    /* argument errors */
    MPI_Win w = MPI_WIN_NULL;
    CHECK_CLASS(MPIX_Win_from_memhandle(h.bytes, R, 1, MPI_INFO_NULL, nproc, parent, &w), MPI_ERR_RANK);
    CHECK_CLASS(MPIX_Win_from_memhandle(h.bytes, R, 1, MPI_INFO_NULL, a, allocwin, &w), MPI_ERR_RMA_FLAVOR);
    CHECK_CLASS(MPIX_Win_from_memhandle(h.bytes, R, 0, MPI_INFO_NULL, a, parent, &w), MPI_ERR_DISP);
    cls = rmaext_class(MPIX_Win_from_memhandle(h.bytes, R + 1, 1, MPI_INFO_NULL, a, parent, &w));
    CHECK(cls != MPI_SUCCESS, "MPIX_Win_from_memhandle with a window size one byte larger than the region succeeded");
    cls = rmaext_class(MPIX_Win_from_memhandle(h.bytes, 2 * R, 4, MPI_INFO_NULL, a, parent, &w));
    CHECK(cls != MPI_SUCCESS, "MPIX_Win_from_memhandle with a window size twice the region succeeded");
    cls = rmaext_class(MPIX_Win_from_memhandle(h.bytes, -1, 1, MPI_INFO_NULL, a, parent, &w));
    CHECK(cls != MPI_SUCCESS, "MPIX_Win_from_memhandle with size -1 succeeded");
    CHECK(w == MPI_WIN_NULL, "a failed MPIX_Win_from_memhandle returned a window");
    /* only the creator releases a handle */
    bad = h;
    cls = rmaext_class(MPIX_Memhandle_release(bad.bytes, parent));
    CHECK(cls != MPI_SUCCESS, "B released A's handle");
    nchecks += 8;

    /* accesses beyond the window: the whole region, and a window of half of it */
    range_errors(h.bytes, a, parent, R, 1, "byte");
    range_errors(h.bytes, a, parent, R, sizeof(int), "int");
    range_errors(h.bytes, a, parent, R / 2, sizeof(int), "half-region int");

    /* A checks its memory, then the positive control */
    CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, a, TAG, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, a, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int v = 0x12345678;
    CHECK_OK(MPIX_Win_from_memhandle(h.bytes, R, sizeof(int), MPI_INFO_NULL, a, parent, &w));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, a, 0, parent));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, a, R / sizeof(int) - 1, 1, MPI_INT, w));
    CHECK_OK(MPI_Win_unlock(a, parent));
    CHECK_OK(MPI_Win_free(&w));
    CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, a, TAG, MPI_COMM_WORLD));
}

static void check_untouched(const unsigned char *m, const unsigned char *rel, int last_int, const char *when)
{
    for (int i = 0; i < R; i++) {
        int want = PAT;
        if (last_int && i >= R - (int)sizeof(int)) {
            int v = 0x12345678;
            want = ((unsigned char *)&v)[i - (R - sizeof(int))];
        }
        CHECK(m[i] == want, "A: %s: byte %d of the exposed region is %#x, want %#x", when, i, m[i], want);
    }
    for (int i = R; i < R + CANARY; i++)
        CHECK(m[i] == CAN, "A: %s: canary byte %d after the region is %#x, want %#x", when, i - R, m[i], CAN);
    for (int i = 0; i < R; i++)
        CHECK(rel[i] == RPAT, "A: %s: byte %d of the released region is %#x, want %#x", when, i, rel[i], RPAT);
    nchecks++;
}

static void process_a(int b, MPI_Win parent, MPI_Win parent2, MPI_Win allocwin)
{
    unsigned char *m, *rel, *stale;
    MPIX_Memhandle h, hrel, hrel_sent, hdup, hstale, hstale_sent, hnew;
    static unsigned char other[64];
    int hs, hsrel, cls;
    CHECK_OK(MPI_Alloc_mem(R + CANARY, MPI_INFO_NULL, &m));
    rel = malloc(R);
    stale = malloc(R);
    memset(stale, RPAT, R);
    memset(m, PAT, R);
    memset(m + R, CAN, CANARY);
    memset(rel, RPAT, R);
    CHECK_OK(MPIX_Memhandle_create(m, R, MPI_INFO_NULL, parent, h.bytes, &hs));
    CHECK_OK(MPIX_Memhandle_create(rel, R, MPI_INFO_NULL, parent, hrel.bytes, &hsrel));
    hrel_sent = hrel; /* as created: the release may change the buffer */
    CHECK_OK(MPIX_Memhandle_release(hrel.bytes, parent));
    /* releasing twice is erroneous */
    cls = rmaext_class(MPIX_Memhandle_release(hrel.bytes, parent));
    CHECK(cls != MPI_SUCCESS, "MPIX_Memhandle_release of a handle released already succeeded");
    CHECK_OK(MPI_Send(h.bytes, hs, MPI_BYTE, b, TAG, MPI_COMM_WORLD));
    CHECK_OK(MPI_Send(hrel_sent.bytes, hsrel, MPI_BYTE, b, TAG, MPI_COMM_WORLD));
    CHECK_OK(MPI_Send(h.bytes, 8, MPI_BYTE, b, TAG, MPI_COMM_WORLD));
    /* a stale handle: released, then the same memory gets a new one (kept until the end) */
    int hsstale, hsnew;
    CHECK_OK(MPIX_Memhandle_create(stale, R, MPI_INFO_NULL, parent, hstale.bytes, &hsstale));
    hstale_sent = hstale;
    CHECK_OK(MPIX_Memhandle_release(hstale.bytes, parent));
    CHECK_OK(MPIX_Memhandle_create(stale, R, MPI_INFO_NULL, parent, hnew.bytes, &hsnew));
    CHECK_OK(MPI_Send(hstale_sent.bytes, hsstale, MPI_BYTE, b, TAG, MPI_COMM_WORLD));

    /* creation errors */
    MPIX_Memhandle x;
    int xs;
    CHECK_CLASS(MPIX_Memhandle_create(m, R, MPI_INFO_NULL, allocwin, x.bytes, &xs), MPI_ERR_RMA_FLAVOR);
    cls = rmaext_class(MPIX_Memhandle_create(m, -1, MPI_INFO_NULL, parent, x.bytes, &xs));
    CHECK(cls != MPI_SUCCESS, "MPIX_Memhandle_create with size -1 succeeded");
    /* releasing with a parent the handle does not belong to */
    CHECK_OK(MPIX_Memhandle_create(other, sizeof other, MPI_INFO_NULL, parent, hdup.bytes, &xs));
    cls = rmaext_class(MPIX_Memhandle_release(hdup.bytes, parent2));
    CHECK(cls != MPI_SUCCESS, "MPIX_Memhandle_release with a foreign parent window succeeded");
    CHECK_OK(MPIX_Memhandle_release(hdup.bytes, parent));
    nchecks += 5;

    CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, b, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_untouched(m, rel, 0, "after B's erroneous calls");
    for (int i = 0; i < R; i++)
        CHECK(stale[i] == RPAT, "A: byte %d of the memory behind the stale handle (now exposed by a new handle) is "
              "%#x, want %#x", i, stale[i], RPAT);
    CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, b, TAG, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, b, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_untouched(m, rel, 1, "after B's good put of the last int");
    CHECK_OK(MPIX_Memhandle_release(h.bytes, parent));
    cls = rmaext_class(MPIX_Memhandle_release(h.bytes, parent));
    CHECK(cls != MPI_SUCCESS, "MPIX_Memhandle_release of a handle released already succeeded");
    nchecks++;
    CHECK_OK(MPIX_Memhandle_release(hnew.bytes, parent));
    CHECK_OK(MPI_Free_mem(m));
    free(rel);
    free(stale);
}

int main(int argc, char **argv)
{
    rmaext_start(&argc, &argv, &rank, &nproc);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Win parent, parent2, allocwin;
    void *abase;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &parent));
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &parent2));
    CHECK_OK(MPI_Win_allocate(R, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &abase, &allocwin));
    set_return(parent);
    set_return(parent2);
    set_return(allocwin);
    if (rank == 0)
        process_a(1, parent, parent2, allocwin);
    else if (rank == 1)
        process_b(0, parent, parent2, allocwin);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_free(&allocwin));
    CHECK_OK(MPI_Win_free(&parent2));
    CHECK_OK(MPI_Win_free(&parent));
    long total = rmaext_total(nchecks);
    if (rank == 0)
        printf("memhandle_errors: np %d, %ld checks passed, the exposed memory untouched: PASS\n", nproc, total);
    CHECK_OK(MPI_Finalize());
    return 0;
}
