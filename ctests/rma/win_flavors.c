/* win_flavors: every way to make a window, and what a window reports about itself.
 *   - MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared (and their _c forms),
 *     MPI_Win_create_dynamic with MPI_Win_attach / MPI_Win_detach of several regions;
 *   - the predefined attributes MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
 *     MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL (MPI_WIN_UNIFIED);
 *   - MPI_Win_get_group against the communicator's group, MPI_Win_set_name/get_name;
 *   - displacement units that differ between processes, sizes of 0 on some ranks, a
 *     window over a split communicator;
 *   - MPI_Win_shared_query / _c: contiguous segments (base of rank r+1 = base of r +
 *     size of r), MPI_PROC_NULL (the lowest rank with size > 0), all sizes 0,
 *     alloc_shared_noncontig, loads and stores through the returned pointers;
 *   - MPI_Win_free sets the handle to MPI_WIN_NULL.
 * MPIX_RMA_STRICT=1 adds what MPICH 4.0.2 (the reference) gets wrong: MPI-4.1's
 * MPI_Win_shared_query on created and allocated windows (MPICH implements MPI-4.0,
 * where it is MPI_ERR_RMA_FLAVOR), the address of an empty contiguous shared segment,
 * and allocated windows whose sizes are not multiples of 16 bytes. */
#include "rma_util.h"

static long nchecks;
static int rank, nproc;

/* check_attrs checks the five predefined attributes of win. */
static void check_attrs(MPI_Win win, const char *what, void *base, MPI_Aint size, int disp_unit, int flavor)
{
    void *b = NULL;
    MPI_Aint *sz = NULL;
    int *du = NULL, *fl = NULL, *model = NULL, f1, f2, f3, f4, f5;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &f1));
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &f2));
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &f3));
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &f4));
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &f5));
    CHECK(f1 && f2 && f3 && f4 && f5, "%s: a predefined attribute is missing (%d %d %d %d %d)", what, f1, f2, f3, f4, f5);
    if (size > 0 || flavor == MPI_WIN_FLAVOR_DYNAMIC)
        CHECK(b == base, "%s: MPI_WIN_BASE %p, want %p", what, b, base);
    CHECK(*sz == size, "%s: MPI_WIN_SIZE %ld, want %ld", what, (long)*sz, (long)size);
    CHECK(*du == disp_unit, "%s: MPI_WIN_DISP_UNIT %d, want %d", what, *du, disp_unit);
    CHECK(*fl == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d, want %d", what, *fl, flavor);
    CHECK(*model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d, want MPI_WIN_UNIFIED", what, *model);
    nchecks += 5;
}

static void check_group(MPI_Win win, MPI_Comm comm, const char *what)
{
    MPI_Group wg, cg;
    int res;
    CHECK_OK(MPI_Win_get_group(win, &wg));
    CHECK_OK(MPI_Comm_group(comm, &cg));
    CHECK_OK(MPI_Group_compare(wg, cg, &res));
    CHECK(res == MPI_IDENT, "%s: the window's group compares %d with the communicator's", what, res);
    /* The Fortran handle converts back to the same window. */
    CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win, "%s: MPI_Win_f2c(MPI_Win_c2f(win)) is another window", what);
    CHECK_OK(MPI_Group_free(&wg));
    CHECK_OK(MPI_Group_free(&cg));
    nchecks++;
}

static void check_name(MPI_Win win, const char *what)
{
    char name[MPI_MAX_OBJECT_NAME], want[64];
    int len = -1;
    CHECK_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0 && name[0] == 0, "%s: a new window is named \"%s\" (%d)", what, name, len);
    snprintf(want, sizeof want, "rma %s window of rank %d", what, rank);
    CHECK_OK(MPI_Win_set_name(win, want));
    CHECK_OK(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, want) == 0 && len == (int)strlen(want), "%s: name \"%s\" (%d), want \"%s\"", what, name, len, want);
    CHECK_OK(MPI_Win_set_name(win, "renamed"));
    CHECK_OK(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "renamed") == 0 && len == 7, "%s: renamed to \"%s\"", what, name);
    nchecks += 3;
}

/* exchange: each rank puts 1000 + its rank at long long element (rank + 1) of the
 * right neighbour's window (the displacement in that neighbour's disp_unit) under a
 * fence, and checks what its left neighbour put. Ranks whose window holds fewer than
 * 16 long longs are skipped as targets. */
static void exchange(MPI_Win win, MPI_Comm comm, long long *mine, MPI_Aint myelems, const int *units_of,
                     const MPI_Aint *disp0, const char *what)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long long v = 1000 + me;
    MPI_Aint *sizes = malloc(n * sizeof(MPI_Aint));
    CHECK_OK(MPI_Allgather(&myelems, 1, MPI_AINT, sizes, 1, MPI_AINT, comm));
    CHECK_OK(MPI_Win_fence(0, win));
    if (sizes[right] >= 16) {
        /* one long long spans units_of[right] bytes per unit: disp = index * 8 / unit */
        MPI_Aint d = disp0[right] + (MPI_Aint)(me + 1) * 8 / units_of[right];
        CHECK_OK(MPI_Put(&v, 1, MPI_LONG_LONG, right, d, 1, MPI_LONG_LONG, win));
    }
    CHECK_OK(MPI_Win_fence(0, win));
    if (myelems >= 16) {
        CHECK(mine[left + 1] == 1000 + left, "%s: element %d is %lld, want %d", what, left + 1, mine[left + 1],
              1000 + left);
        nchecks++;
    }
    free(sizes);
}

static void test_create(MPI_Comm comm, int use_c)
{
    const char *what = use_c ? "MPI_Win_create_c" : "MPI_Win_create";
    /* rank 1 exposes nothing; the others 32 long longs with disp_unit 8 or 4 */
    int du = rank % 2 ? 4 : 8;
    MPI_Aint size = rank == 1 ? 0 : 32 * sizeof(long long);
    long long *buf = size ? calloc(32, sizeof(long long)) : NULL;
    MPI_Win win;
    if (use_c)
        CHECK_OK(MPI_Win_create_c(buf, size, (MPI_Aint)du, MPI_INFO_NULL, comm, &win));
    else
        CHECK_OK(MPI_Win_create(buf, size, du, MPI_INFO_NULL, comm, &win));
    check_attrs(win, what, buf, size, du, MPI_WIN_FLAVOR_CREATE);
    check_group(win, comm, what);
    check_name(win, what);
    int *units = malloc(nproc * sizeof(int));
    MPI_Aint *d0 = calloc(nproc, sizeof(MPI_Aint));
    CHECK_OK(MPI_Allgather(&du, 1, MPI_INT, units, 1, MPI_INT, comm));
    exchange(win, comm, buf, size / (MPI_Aint)sizeof(long long), units, d0, what);
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "%s: MPI_Win_free did not set MPI_WIN_NULL", what);
    free(units);
    free(d0);
    free(buf);
}

static void test_allocate(MPI_Comm comm, int use_c)
{
    const char *what = use_c ? "MPI_Win_allocate_c" : "MPI_Win_allocate";
    int du = rank % 2 ? 8 : 1;
    MPI_Aint size = rank == nproc - 1 ? 0 : (rank + 1) * 256;
    long long *buf = NULL;
    MPI_Win win;
    if (use_c)
        CHECK_OK(MPI_Win_allocate_c(size, (MPI_Aint)du, MPI_INFO_NULL, comm, &buf, &win));
    else
        CHECK_OK(MPI_Win_allocate(size, du, MPI_INFO_NULL, comm, &buf, &win));
    if (size > 0) {
        CHECK(buf != NULL, "%s returned no memory", what);
        CHECK(((uintptr_t)buf & 7) == 0, "%s: memory %p is not aligned for a long long", what, (void *)buf);
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
        memset(buf, 0, size); /* the whole segment is writable */
        CHECK_OK(MPI_Win_unlock(rank, win));
    }
    check_attrs(win, what, buf, size, du, MPI_WIN_FLAVOR_ALLOCATE);
    check_group(win, comm, what);
    check_name(win, what);
    int *units = malloc(nproc * sizeof(int));
    MPI_Aint *d0 = calloc(nproc, sizeof(MPI_Aint));
    CHECK_OK(MPI_Allgather(&du, 1, MPI_INT, units, 1, MPI_INT, comm));
    exchange(win, comm, buf, size / (MPI_Aint)sizeof(long long), units, d0, what);
    if (rma_strict()) {
        CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        /* MPI-4.1: MPI_Win_shared_query is valid on an allocated window; the memory of
         * a rank is either shared (size and a usable pointer) or reported as size 0. */
        for (int r = 0; r < nproc; r++) {
            MPI_Aint qs = -1;
            int qd = -1;
            long long *qb = NULL;
            CHECK_OK(MPI_Win_shared_query(win, r, &qs, &qd, &qb));
            MPI_Aint want = r == nproc - 1 ? 0 : (r + 1) * 256;
            CHECK(qs == 0 || (qs == want && qd == (r % 2 ? 8 : 1) && qb != NULL),
                  "%s: MPI_Win_shared_query(%d) gave size %ld unit %d, want 0 or %ld", what, r, (long)qs, qd, (long)want);
            if (r == rank)
                CHECK(qs == size && (size == 0 || qb == buf), "%s: MPI_Win_shared_query of itself gave %ld %p, want %ld %p",
                      what, (long)qs, (void *)qb, (long)size, (void *)buf);
            nchecks++;
        }
    }
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "%s: MPI_Win_free did not set MPI_WIN_NULL", what);
    free(units);
    free(d0);
}

/* Sizes that are not a multiple of 16: every rank puts its rank into the first and
 * the last int of its right neighbour's window. MPICH 4.0.2 misplaces these on ranks
 * above 0 (by the rounding of the sizes before them), so MPIX_RMA_STRICT=1 only. */
static void test_allocate_odd(MPI_Comm comm)
{
    if (!rma_strict())
        return;
    for (int shared = 0; shared < 2; shared++) {
        MPI_Aint size = 100 + 4 * rank; /* 25, 26, ... ints */
        int *buf;
        MPI_Win win;
        if (shared)
            CHECK_OK(MPI_Win_allocate_shared(size, sizeof(int), MPI_INFO_NULL, comm, &buf, &win));
        else
            CHECK_OK(MPI_Win_allocate(size, sizeof(int), MPI_INFO_NULL, comm, &buf, &win));
        int right = (rank + 1) % nproc, left = (rank + nproc - 1) % nproc, n = (int)(size / sizeof(int));
        int rn = (100 + 4 * right) / sizeof(int), v = 7000 + rank;
        CHECK_OK(MPI_Win_fence(0, win));
        for (int i = 0; i < n; i++)
            buf[i] = -1;
        CHECK_OK(MPI_Win_fence(0, win));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, rn - 1, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_fence(0, win));
        for (int i = 0; i < n; i++)
            CHECK(buf[i] == (i == 0 || i == n - 1 ? 7000 + left : -1),
                  "MPI_Win_allocate%s of %ld bytes: int %d is %d", shared ? "_shared" : "", (long)size, i, buf[i]);
        CHECK_OK(MPI_Win_fence(0, win));
        CHECK_OK(MPI_Win_free(&win));
        nchecks++;
    }
}

static void test_create_query(MPI_Comm comm)
{
    if (!rma_strict())
        return;
    /* MPI-4.1: MPI_Win_shared_query on a created window (MPI-4.0 and MPICH 4.0.2: an
     * error of class MPI_ERR_RMA_FLAVOR) */
    long long buf[8];
    MPI_Win win;
    for (int i = 0; i < 8; i++)
        buf[i] = rank * 100 + i;
    CHECK_OK(MPI_Win_create(buf, sizeof buf, sizeof(long long), MPI_INFO_NULL, comm, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Win_fence(0, win));
    for (int r = 0; r < nproc; r++) {
        MPI_Aint qs = -1;
        int qd = -1;
        long long *qb = NULL;
        CHECK_OK(MPI_Win_shared_query(win, r, &qs, &qd, &qb));
        CHECK(qs == 0 || (qs == (MPI_Aint)sizeof buf && qd == (int)sizeof(long long) && qb != NULL),
              "MPI_Win_create: MPI_Win_shared_query(%d) gave size %ld unit %d", r, (long)qs, qd);
        if (qs > 0)
            for (int i = 0; i < 8; i++)
                CHECK(qb[i] == r * 100 + i, "MPI_Win_create: shared memory of rank %d holds %lld at %d", r, qb[i], i);
        nchecks++;
    }
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Win_free(&win));
}

/* test_shared: contiguous segments of different sizes (rank 0's is empty). */
static void test_shared(MPI_Comm shm, int use_c, int noncontig)
{
    char what[96];
    snprintf(what, sizeof what, "MPI_Win_allocate_shared%s%s", use_c ? "_c" : "",
             noncontig ? " (alloc_shared_noncontig)" : "");
    int me, n;
    MPI_Comm_rank(shm, &me);
    MPI_Comm_size(shm, &n);
    int du = me % 2 ? 4 : 1;
    MPI_Aint size = me == 0 ? 0 : 1000 * me + 24;
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        CHECK_OK(MPI_Info_create(&info));
        CHECK_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    }
    unsigned char *base = NULL;
    MPI_Win win;
    if (use_c)
        CHECK_OK(MPI_Win_allocate_shared_c(size, (MPI_Aint)du, info, shm, &base, &win));
    else
        CHECK_OK(MPI_Win_allocate_shared(size, du, info, shm, &base, &win));
    if (info != MPI_INFO_NULL)
        CHECK_OK(MPI_Info_free(&info));
    check_attrs(win, what, base, size, du, MPI_WIN_FLAVOR_SHARED);
    check_group(win, shm, what);
    check_name(win, what);

    unsigned char **segs = calloc(n, sizeof *segs);
    MPI_Aint *sizes = calloc(n, sizeof *sizes);
    for (int r = 0; r < n; r++) {
        MPI_Aint qs = -1, qd = -1;
        int qdi = -1;
        if (use_c)
            CHECK_OK(MPI_Win_shared_query_c(win, r, &qs, &qd, &segs[r]));
        else {
            CHECK_OK(MPI_Win_shared_query(win, r, &qs, &qdi, &segs[r]));
            qd = qdi;
        }
        sizes[r] = qs;
        CHECK(qs == (r == 0 ? 0 : 1000 * r + 24), "%s: rank %d's segment has size %ld", what, r, (long)qs);
        CHECK(qd == (r % 2 ? 4 : 1), "%s: rank %d's segment has disp_unit %ld", what, r, (long)qd);
        if (r == me && size > 0)
            CHECK(segs[r] == base, "%s: the query of itself gave %p, the allocation %p", what, (void *)segs[r], (void *)base);
        nchecks += 2;
    }
    if (!noncontig) {
        /* contiguous by default: each segment starts where the previous one ends */
        for (int r = 1; r + 1 < n; r++) {
            CHECK(segs[r + 1] == segs[r] + sizes[r], "%s: segment %d at %p, want %p (segment %d + %ld)", what, r + 1,
                  (void *)segs[r + 1], (void *)(segs[r] + sizes[r]), r, (long)sizes[r]);
            nchecks++;
        }
        /* A zero-size segment sits where the next one starts: the memory is
         * contiguous across ranks (MPI-4.1 12.2.3), so the baseptr of rank 0 computes
         * the others' addresses, as Open MPI returns it. MPICH 4.0.2 returns NULL:
         * checked under MPIX_RMA_STRICT=1 only. */
        if (size == 0 && n > 1 && rma_strict())
            CHECK(base == segs[1], "%s: rank 0's empty segment at %p, rank 1's at %p", what, (void *)base,
                  (void *)segs[1]);
    }
    /* MPI_PROC_NULL: the segment of the lowest rank with size > 0 (rank 1) */
    if (n > 1) {
        MPI_Aint qs = -1;
        int qd = -1;
        unsigned char *qb = NULL;
        CHECK_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &qd, &qb));
        CHECK(qs == sizes[1] && qd == 4 && qb == segs[1], "%s: MPI_PROC_NULL gave size %ld unit %d %p, want rank 1's", what,
              (long)qs, qd, (void *)qb);
        MPI_Aint qdc = -1;
        qb = NULL;
        CHECK_OK(MPI_Win_shared_query_c(win, MPI_PROC_NULL, &qs, &qdc, &qb));
        CHECK(qs == sizes[1] && qdc == 4 && qb == segs[1], "%s: MPI_PROC_NULL (_c) gave size %ld unit %ld", what, (long)qs,
              (long)qdc);
        nchecks += 2;
    }
    /* loads and stores through the pointers: each rank fills its own segment, then
     * writes one byte into every other segment, then everyone reads everything */
    CHECK_OK(MPI_Win_lock_all(0, win));
    if (size > 0)
        memset(base, 0x10 + me, size);
    CHECK_OK(MPI_Win_sync(win));
    CHECK_OK(MPI_Barrier(shm));
    CHECK_OK(MPI_Win_sync(win));
    for (int r = 0; r < n; r++)
        if (sizes[r] > me)
            segs[r][me] = (unsigned char)(0x80 + me);
    CHECK_OK(MPI_Win_sync(win));
    CHECK_OK(MPI_Barrier(shm));
    CHECK_OK(MPI_Win_sync(win));
    for (int r = 0; r < n; r++)
        for (MPI_Aint i = 0; i < sizes[r]; i++) {
            unsigned char want = i < n ? (unsigned char)(0x80 + i) : (unsigned char)(0x10 + r);
            CHECK(segs[r][i] == want, "%s: rank %d reads byte %ld of rank %d's segment as %#x, want %#x", what, me,
                  (long)i, r, segs[r][i], want);
        }
    nchecks++;
    CHECK_OK(MPI_Barrier(shm));
    /* RMA on the same memory: put into the right neighbour's segment, read by load */
    if (n > 1) {
        int right = (me + 1) % n, left = (me + n - 1) % n;
        int v = 0x5000 + me;
        if (sizes[right] >= 8) {
            CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win)); /* displacement 0 in any unit */
            CHECK_OK(MPI_Win_flush(right, win));
        }
        CHECK_OK(MPI_Barrier(shm));
        CHECK_OK(MPI_Win_sync(win));
        if (size >= 8) {
            int got;
            memcpy(&got, base, sizeof got);
            CHECK(got == 0x5000 + left, "%s: the put from %d reads as %#x", what, left, got);
        }
        nchecks++;
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "%s: MPI_Win_free did not set MPI_WIN_NULL", what);
    free(segs);
    free(sizes);
}

/* every rank allocates 0 bytes: the query of MPI_PROC_NULL gives size 0 */
static void test_shared_empty(MPI_Comm shm)
{
    void *base = NULL, *qb = NULL;
    MPI_Win win;
    MPI_Aint qs = -1;
    int qd = -1;
    CHECK_OK(MPI_Win_allocate_shared(0, 1, MPI_INFO_NULL, shm, &base, &win));
    CHECK_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &qd, &qb));
    CHECK(qs == 0, "all-empty shared window: MPI_PROC_NULL gave size %ld", (long)qs);
    CHECK_OK(MPI_Win_shared_query(win, 0, &qs, &qd, &qb));
    CHECK(qs == 0 && qd == 1, "all-empty shared window: rank 0 gave size %ld unit %d", (long)qs, qd);
    check_attrs(win, "empty MPI_Win_allocate_shared", base, 0, 1, MPI_WIN_FLAVOR_SHARED);
    CHECK_OK(MPI_Win_free(&win));
    nchecks += 2;
}

static void test_dynamic(MPI_Comm comm)
{
    const char *what = "MPI_Win_create_dynamic";
    MPI_Win win;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win));
    check_attrs(win, what, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    check_group(win, comm, what);
    check_name(win, what);
    int right = (rank + 1) % nproc, left = (rank + nproc - 1) % nproc;
    /* three regions: malloc'd, MPI_Alloc_mem'd, and a stack array */
    enum { N0 = 64, N1 = 4096, N2 = 16 };
    int *r0 = calloc(N0, sizeof(int)), *r1, r2[N2];
    CHECK_OK(MPI_Alloc_mem(N1 * sizeof(int), MPI_INFO_NULL, &r1));
    memset(r1, 0, N1 * sizeof(int));
    memset(r2, 0, sizeof r2);
    CHECK_OK(MPI_Win_attach(win, r0, N0 * sizeof(int)));
    CHECK_OK(MPI_Win_attach(win, r1, N1 * sizeof(int)));
    CHECK_OK(MPI_Win_attach(win, r2, sizeof r2));
    MPI_Aint mine[3], theirs[3];
    MPI_Get_address(r0, &mine[0]);
    MPI_Get_address(r1, &mine[1]);
    MPI_Get_address(r2, &mine[2]);
    MPI_Request rq[2];
    CHECK_OK(MPI_Irecv(theirs, 3, MPI_AINT, right, 7, comm, &rq[0]));
    CHECK_OK(MPI_Isend(mine, 3, MPI_AINT, left, 7, comm, &rq[1]));
    CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    /* the attributes do not change with what is attached */
    check_attrs(win, "MPI_Win_create_dynamic after attach", MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);

    int *src = malloc(N1 * sizeof(int));
    for (int i = 0; i < N1; i++)
        src[i] = rank * 100000 + i;
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Put(src, N0, MPI_INT, right, theirs[0], N0, MPI_INT, win));
    CHECK_OK(MPI_Put(src, N1, MPI_INT, right, theirs[1], N1, MPI_INT, win));
    CHECK_OK(MPI_Put(src + 5, N2 - 2, MPI_INT, right, theirs[2] + 2 * sizeof(int), N2 - 2, MPI_INT, win));
    CHECK_OK(MPI_Win_flush(right, win));
    CHECK_OK(MPI_Barrier(comm));
    CHECK_OK(MPI_Win_sync(win));
    for (int i = 0; i < N1; i++) {
        if (i < N0)
            CHECK(r0[i] == left * 100000 + i, "%s: region 0 element %d is %d", what, i, r0[i]);
        CHECK(r1[i] == left * 100000 + i, "%s: region 1 element %d is %d", what, i, r1[i]);
        if (i < N2)
            CHECK(r2[i] == (i < 2 ? 0 : left * 100000 + i + 3), "%s: region 2 element %d is %d", what, i, r2[i]);
    }
    nchecks += 3;
    CHECK_OK(MPI_Barrier(comm));
    CHECK_OK(MPI_Win_unlock_all(win));

    /* detach region 0 and attach a new one in its place; the others keep working */
    CHECK_OK(MPI_Win_detach(win, r0));
    int *r3 = calloc(256, sizeof(int));
    CHECK_OK(MPI_Win_attach(win, r3, 256 * sizeof(int)));
    MPI_Get_address(r3, &mine[0]);
    CHECK_OK(MPI_Irecv(theirs, 3, MPI_AINT, right, 8, comm, &rq[0]));
    CHECK_OK(MPI_Isend(mine, 3, MPI_AINT, left, 8, comm, &rq[1]));
    CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_OK(MPI_Win_fence(0, win));
    int one = 1;
    CHECK_OK(MPI_Put(src, 256, MPI_INT, right, theirs[0], 256, MPI_INT, win));
    CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, right, theirs[1] + 10 * sizeof(int), 1, MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 256; i++)
        CHECK(r3[i] == left * 100000 + i, "%s: the region attached later holds %d at %d", what, r3[i], i);
    CHECK(r1[10] == left * 100000 + 10 + 1, "%s: accumulate into region 1 gave %d", what, r1[10]);
    nchecks += 2;
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Barrier(comm));
    CHECK_OK(MPI_Win_detach(win, r1));
    CHECK_OK(MPI_Win_detach(win, r2));
    CHECK_OK(MPI_Win_detach(win, r3));
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "%s: MPI_Win_free did not set MPI_WIN_NULL", what);
    CHECK_OK(MPI_Free_mem(r1));
    free(r0);
    free(r3);
    free(src);
}

/* a window over half of the processes: its group is the split communicator's */
static void test_subcomm(void)
{
    MPI_Comm half;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, nproc - rank, &half));
    int buf[4] = {0};
    MPI_Win win;
    CHECK_OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, half, &win));
    check_group(win, half, "window over a split communicator");
    MPI_Group wg, world;
    int res;
    CHECK_OK(MPI_Win_get_group(win, &wg));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_OK(MPI_Group_compare(wg, world, &res));
    CHECK(res == MPI_UNEQUAL || nproc == 1, "the split window's group compares %d with the world's", res);
    int hr, hn;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    /* everyone adds its world rank at element 0 of half-rank 0 */
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Accumulate(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Win_fence(0, win));
    if (hr == 0) {
        int want = 0;
        for (int r = rank % 2; r < nproc; r += 2)
            want += r;
        CHECK(buf[0] == want, "split window: sum %d, want %d", buf[0], want);
    }
    CHECK_OK(MPI_Group_free(&wg));
    CHECK_OK(MPI_Group_free(&world));
    CHECK_OK(MPI_Win_free(&win));
    CHECK_OK(MPI_Comm_free(&half));
    nchecks += 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm shm;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    for (int c = 0; c < 2; c++) {
        test_create(MPI_COMM_WORLD, c);
        test_allocate(MPI_COMM_WORLD, c);
        test_shared(shm, c, 0);
        test_shared(shm, c, 1);
    }
    test_create_query(MPI_COMM_WORLD);
    test_allocate_odd(MPI_COMM_WORLD);
    test_shared_empty(shm);
    test_dynamic(MPI_COMM_WORLD);
    test_subcomm();
    /* the helper's six kinds, with a size of 0 on rank 0 */
    for (int k = 0; k < RMA_NKINDS; k++) {
        rma_win w;
        rma_open(&w, k, rank == 0 ? 0 : 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
        int *fl = NULL, f = 0;
        CHECK_OK(MPI_Win_get_attr(w.win, MPI_WIN_CREATE_FLAVOR, &fl, &f));
        CHECK(f && *fl == rma_kind_flavor[k], "%s: flavor %d", rma_kind_name[k], f ? *fl : -1);
        rma_close(&w);
        nchecks++;
    }
    CHECK_OK(MPI_Comm_free(&shm));
    long total;
    MPI_Reduce(&nchecks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("win_flavors: np %d, %ld checks passed%s\n", nproc, total,
               rma_strict() ? " (strict: with MPI-4.1 shared queries of created and allocated windows)" : "");
    CHECK_OK(MPI_Finalize());
    return 0;
}
