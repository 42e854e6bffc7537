/* win_dup: MPIX_Win_dup_with_info ([RMA] sec. 3, Listing 4) and the accumulate
 * intrinsics query ([RMA] sec. 2.3, Listing 3), on an MPI_Win_allocate window:
 *   - info: a duplicate with mpi_win_scope=thread reports "thread" while the parent
 *     keeps "process"; a duplicate with MPI_INFO_NULL keeps the parent's keys; a
 *     duplicate of the duplicate with mpi_win_order=true has both keys, and the parent
 *     does not have mpi_win_order=true; duplicates have the parent's group, base,
 *     size, displacement unit, flavour and model; MPI_WIN_NULL fails with MPI_ERR_WIN;
 *   - synchronization is shared: under a lock on the parent, operations and flushes
 *     through the duplicate succeed; MPI_Win_lock through the duplicate of the rank
 *     already locked, and MPI_Win_lock_all through it, fail with MPI_ERR_RMA_SYNC; an
 *     unlock through the duplicate ends the parent's epoch (a second unlock through
 *     the parent fails with MPI_ERR_RMA_SYNC); an operation through the duplicate
 *     outside any epoch fails with MPI_ERR_RMA_SYNC;
 *   - a fence on one handle is a fence on the other: puts through the duplicate are
 *     completed by fences on the parent and the other way round;
 *   - accumulates through both handles (neither sets mpi_assert_accumulate_intrinsic)
 *     to one counter stay atomic: MPI_Fetch_and_op through alternating handles hands
 *     out every number exactly once, and MPI_Accumulate sums are exact;
 *   - MPIX_Win_op_intrinsic / MPI_Win_op_intrinsic: "sum" on one MPI_INT64_T is
 *     intrinsic (1) when every process is on one node and shared memory is on (with
 *     MPIX_SHM=0 or across nodes the answer is printed, not asserted); both spellings
 *     agree; an unknown op name fails with MPI_ERR_ARG or MPI_ERR_OP; on a duplicate
 *     with mpi_assert_accumulate_intrinsic=true, an accumulate of an op and type the
 *     query reports as not intrinsic fails with MPI_ERR_OP or MPI_ERR_ARG, and one it
 *     reports as intrinsic succeeds;
 *   - the parent freed first: the duplicate still works (puts land, gets read them),
 *     then it is freed. */
#include <complex.h>
#include "rmaext.h"

#define SIZE 4096
#define OFF_CNT 0        /* int64: the fetch-and-op counter (rank 0) */
#define OFF_ACC 8        /* int64: the accumulate counter (rank 0) */
#define OFF_SCRATCH 64   /* 64 bytes written by the previous rank's intrinsic tests */
#define OFF_EPOCH 256    /* an int per source */
#define OFF_FENCE 1024   /* an int per source */
#define OFF_FENCE2 1536  /* an int per source */
#define OFF_AFTER 2048   /* an int per source */
#define NFETCH 200

static int rank, nproc;
static long nchecks;
static MPI_Win parent, dup_t;
static unsigned char *base;

static MPI_Win dup_with(MPI_Win w, const char *key, const char *val)
{
    MPI_Win d = MPI_WIN_NULL;
    MPI_Info info = key ? rmaext_info(key, val, NULL) : MPI_INFO_NULL;
    CHECK_OK(MPIX_Win_dup_with_info(w, info, &d));
    CHECK(d != MPI_WIN_NULL && d != w, "MPIX_Win_dup_with_info returned %#x for %#x", (unsigned)d, (unsigned)w);
    if (info != MPI_INFO_NULL)
        CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Win_set_errhandler(d, MPI_ERRORS_RETURN));
    return d;
}

static void same_attr(MPI_Win a, MPI_Win b, int key, const char *name)
{
    void *va = NULL, *vb = NULL;
    int fa = 0, fb = 0;
    CHECK_OK(MPI_Win_get_attr(a, key, &va, &fa));
    CHECK_OK(MPI_Win_get_attr(b, key, &vb, &fb));
    CHECK(fa && fb, "%s: the attribute is missing on %s", name, fa ? "the duplicate" : "the parent");
    if (key == MPI_WIN_BASE)
        CHECK(va == vb, "%s: %p on the parent, %p on the duplicate", name, va, vb);
    else if (key == MPI_WIN_SIZE)
        CHECK(*(MPI_Aint *)va == *(MPI_Aint *)vb, "%s: %ld on the parent, %ld on the duplicate", name,
              (long)*(MPI_Aint *)va, (long)*(MPI_Aint *)vb);
    else
        CHECK(*(int *)va == *(int *)vb, "%s: %d on the parent, %d on the duplicate", name, *(int *)va, *(int *)vb);
    nchecks++;
}

static void test_info(void)
{
    char v[MPI_MAX_INFO_VAL + 1];
    RMAEXT_CHECK_INFO(parent, MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_PROCESS, "the parent window");
    RMAEXT_CHECK_INFO(dup_t, MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_THREAD, "the duplicate with mpi_win_scope=thread");
    /* the parent is unchanged by the duplication */
    RMAEXT_CHECK_INFO(parent, MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_PROCESS, "the parent window after the duplication");
    MPI_Win d_null = dup_with(parent, NULL, NULL);
    RMAEXT_CHECK_INFO(d_null, MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_PROCESS, "a duplicate with MPI_INFO_NULL");
    MPI_Win d_ord = dup_with(dup_t, MPIX_INFO_WIN_ORDER, MPIX_INFO_TRUE);
    RMAEXT_CHECK_INFO(d_ord, MPIX_INFO_WIN_ORDER, MPIX_INFO_TRUE, "a duplicate of the duplicate with mpi_win_order=true");
    RMAEXT_CHECK_INFO(d_ord, MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_THREAD,
                      "a duplicate of the thread-scope duplicate (keys are inherited)");
    int has = rmaext_win_info(parent, MPIX_INFO_WIN_ORDER, v, sizeof v);
    CHECK(!has || strcmp(v, "true") != 0, "the parent reports mpi_win_order=true after a duplicate set it");
    nchecks += 6;

    /* the duplicates share the parent's group and attributes */
    MPI_Group g1, g2;
    int cmp;
    CHECK_OK(MPI_Win_get_group(parent, &g1));
    CHECK_OK(MPI_Win_get_group(dup_t, &g2));
    CHECK_OK(MPI_Group_compare(g1, g2, &cmp));
    CHECK(cmp == MPI_IDENT, "the duplicate's group compares %d to the parent's, want MPI_IDENT", cmp);
    CHECK_OK(MPI_Group_free(&g1));
    CHECK_OK(MPI_Group_free(&g2));
    same_attr(parent, dup_t, MPI_WIN_BASE, "MPI_WIN_BASE");
    same_attr(parent, dup_t, MPI_WIN_SIZE, "MPI_WIN_SIZE");
    same_attr(parent, dup_t, MPI_WIN_DISP_UNIT, "MPI_WIN_DISP_UNIT");
    same_attr(parent, dup_t, MPI_WIN_CREATE_FLAVOR, "MPI_WIN_CREATE_FLAVOR");
    same_attr(parent, dup_t, MPI_WIN_MODEL, "MPI_WIN_MODEL");
    same_attr(parent, d_ord, MPI_WIN_BASE, "MPI_WIN_BASE (duplicate of a duplicate)");
    MPI_Win bad = MPI_WIN_NULL;
    CHECK_CLASS(MPIX_Win_dup_with_info(MPI_WIN_NULL, MPI_INFO_NULL, &bad), MPI_ERR_WIN);
    CHECK_OK(MPI_Win_free(&d_null));
    CHECK_OK(MPI_Win_free(&d_ord));
    CHECK(d_null == MPI_WIN_NULL && d_ord == MPI_WIN_NULL, "MPI_Win_free left the handles");
    nchecks += 3;
}

static void test_epochs(void)
{
    int t = (rank + 1) % nproc, from = (rank + nproc - 1) % nproc, x = 1000 + rank, y = -1;
    /* no epoch on either handle */
    CHECK_CLASS(MPI_Put(&x, 1, MPI_INT, t, OFF_EPOCH + rank * 4, 1, MPI_INT, dup_t), MPI_ERR_RMA_SYNC);
    /* a lock on the parent is a lock on the duplicate */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, parent));
    CHECK_OK(MPI_Put(&x, 1, MPI_INT, t, OFF_EPOCH + rank * 4, 1, MPI_INT, dup_t));
    CHECK_OK(MPI_Win_flush(t, dup_t));
    CHECK_OK(MPI_Get(&y, 1, MPI_INT, t, OFF_EPOCH + rank * 4, 1, MPI_INT, dup_t));
    CHECK_OK(MPI_Win_flush_local(t, parent));
    CHECK(y == x, "a get through the duplicate after a flush reads %d, want %d", y, x);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, dup_t), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, dup_t), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_lock_all(0, dup_t), MPI_ERR_RMA_SYNC);
    /* the unlock through the duplicate ends the parent's epoch */
    CHECK_OK(MPI_Win_unlock(t, dup_t));
    CHECK_CLASS(MPI_Win_unlock(t, parent), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Put(&x, 1, MPI_INT, t, OFF_EPOCH + rank * 4, 1, MPI_INT, parent), MPI_ERR_RMA_SYNC);
    /* and the other way round, with lock_all */
    CHECK_OK(MPI_Win_lock_all(0, dup_t));
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, parent), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_unlock_all(dup_t));
    nchecks += 11;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int got = *(volatile int *)(base + OFF_EPOCH + from * 4);
    CHECK(got == 1000 + from, "rank %d's put through the duplicate left %d, want %d", from, got, 1000 + from);
    nchecks++;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_fence(void)
{
    int t = (rank + 1) % nproc, from = (rank + nproc - 1) % nproc, x = 2000 + rank, z = 3000 + rank;
    CHECK_OK(MPI_Win_fence(0, parent));
    CHECK_OK(MPI_Put(&x, 1, MPI_INT, t, OFF_FENCE + rank * 4, 1, MPI_INT, dup_t));
    CHECK_OK(MPI_Win_fence(0, dup_t));
    int got = *(volatile int *)(base + OFF_FENCE + from * 4);
    CHECK(got == 2000 + from, "a put through the duplicate, fenced on the parent then on the duplicate, left %d, "
          "want %d", got, 2000 + from);
    /* another word: the previous rank may be putting already while this one reads */
    CHECK_OK(MPI_Put(&z, 1, MPI_INT, t, OFF_FENCE2 + rank * 4, 1, MPI_INT, parent));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, dup_t));
    got = *(volatile int *)(base + OFF_FENCE2 + from * 4);
    CHECK(got == 3000 + from, "a put through the parent, completed by a fence on the duplicate, left %d, want %d", got,
          3000 + from);
    nchecks += 2;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_atomic(void)
{
    int64_t one = 1, mine[NFETCH];
    CHECK_OK(MPI_Win_lock_all(0, parent));
    for (int i = 0; i < NFETCH; i++) {
        MPI_Win h = i % 2 ? dup_t : parent;
        CHECK_OK(MPI_Fetch_and_op(&one, &mine[i], MPI_INT64_T, 0, OFF_CNT, MPI_SUM, h));
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, OFF_ACC, 1, MPI_INT64_T, MPI_SUM, i % 3 ? parent : dup_t));
        CHECK_OK(MPI_Win_flush(0, h));
    }
    CHECK_OK(MPI_Win_unlock_all(parent));
    int64_t total = (int64_t)NFETCH * nproc;
    int64_t *all = rank == 0 ? malloc(total * sizeof(int64_t)) : NULL;
    CHECK_OK(MPI_Gather(mine, NFETCH, MPI_INT64_T, all, NFETCH, MPI_INT64_T, 0, MPI_COMM_WORLD));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        qsort(all, total, sizeof(int64_t), cmp_i64);
        for (int64_t i = 0; i < total; i++)
            CHECK(all[i] == i, "MPI_Fetch_and_op through the parent and the duplicate, sorted, gave %lld at %lld: "
                  "not atomic across the handles", (long long)all[i], (long long)i);
        int64_t acc = *(volatile int64_t *)(base + OFF_ACC);
        CHECK(acc == total, "MPI_Accumulate through both handles summed to %lld, want %lld", (long long)acc,
              (long long)total);
        free(all);
        nchecks += 2;
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_intrinsic(void)
{
    int flag = -1, flag2 = -1, t = (rank + 1) % nproc;
    int same_node = rmaext_same_node(), shm = rmaext_shm_on();
    CHECK_OK(MPIX_Win_op_intrinsic("sum", 1, MPI_INT64_T, parent, &flag));
    CHECK(flag == 0 || flag == 1, "MPIX_Win_op_intrinsic set the flag to %d", flag);
    CHECK_OK(MPI_Win_op_intrinsic("sum", 1, MPI_INT64_T, parent, &flag2));
    CHECK(flag2 == flag, "MPI_Win_op_intrinsic says %d, MPIX_Win_op_intrinsic %d", flag2, flag);
    if (same_node && shm)
        CHECK(flag == 1, "MPIX_Win_op_intrinsic(\"sum\", 1, MPI_INT64_T) on an allocated window of one node with "
              "shared memory says %d, want 1", flag);
    else if (rank == 0)
        printf("win_dup: \"sum\" on MPI_INT64_T is %sintrinsic (%s, %s)\n", flag ? "" : "not ",
               same_node ? "one node" : "several nodes", shm ? "shared memory on" : "MPIX_SHM=0");
    int f = -1;
    CHECK_OK(MPIX_Win_op_intrinsic("sum,replace,no_op,cas", 1, MPI_INT64_T, parent, &f));
    CHECK(f == 0 || f == 1, "the flag is %d", f);
    if (rank == 0)
        printf("win_dup: \"sum,replace,no_op,cas\" on MPI_INT64_T: %d\n", f);
    int cls = rmaext_class(MPIX_Win_op_intrinsic("frobnicate", 1, MPI_INT64_T, parent, &f));
    CHECK(cls == MPI_ERR_ARG || cls == MPI_ERR_OP, "MPIX_Win_op_intrinsic(\"frobnicate\") returned class %d, want "
          "MPI_ERR_ARG or MPI_ERR_OP", cls);
    cls = rmaext_class(MPIX_Win_op_intrinsic("sum,frobnicate", 1, MPI_INT64_T, parent, &f));
    CHECK(cls == MPI_ERR_ARG || cls == MPI_ERR_OP, "MPIX_Win_op_intrinsic(\"sum,frobnicate\") returned class %d, "
          "want MPI_ERR_ARG or MPI_ERR_OP", cls);
    cls = rmaext_class(MPI_Win_op_intrinsic("frobnicate", 1, MPI_INT64_T, parent, &f));
    CHECK(cls == MPI_ERR_ARG || cls == MPI_ERR_OP, "MPI_Win_op_intrinsic(\"frobnicate\") returned class %d", cls);
    nchecks += 5;

    /* the assertion: accumulates the query calls not intrinsic are refused */
    MPI_Win d = dup_with(parent, MPIX_INFO_ASSERT_ACCUMULATE_INTRINSIC, MPIX_INFO_TRUE);
    RMAEXT_CHECK_INFO(d, MPIX_INFO_ASSERT_ACCUMULATE_INTRINSIC, MPIX_INFO_TRUE,
                      "a duplicate with mpi_assert_accumulate_intrinsic=true");
    static const struct {
        const char *op;
        MPI_Op mop;
        const char *type;
        MPI_Datatype dt;
    } cand[] = {
        {"prod", MPI_PROD, "MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX},
        {"prod", MPI_PROD, "MPI_DOUBLE", MPI_DOUBLE},
        {"max", MPI_MAX, "MPI_LONG_DOUBLE", MPI_LONG_DOUBLE},
        {"prod", MPI_PROD, "MPI_INT64_T", MPI_INT64_T},
        {"lxor", MPI_LXOR, "MPI_INT", MPI_INT},
    };
    int found = -1;
    for (int i = 0; i < (int)(sizeof cand / sizeof cand[0]) && found < 0; i++) {
        CHECK_OK(MPIX_Win_op_intrinsic(cand[i].op, 1, cand[i].dt, d, &f));
        if (f == 0)
            found = i;
    }
    union {
        double complex z;
        long double ld;
        double d;
        int64_t i;
        int n;
    } one;
    memset(&one, 0, sizeof one);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, d));
    if (found >= 0) {
        int rp = MPI_Accumulate(&one, 1, cand[found].dt, t, OFF_SCRATCH, 1, cand[found].dt, cand[found].mop, d);
        int rf = MPI_Win_flush(t, d);
        int c = rmaext_class(rp != MPI_SUCCESS ? rp : rf);
        CHECK(c == MPI_ERR_OP || c == MPI_ERR_ARG,
              "with mpi_assert_accumulate_intrinsic=true, MPI_Accumulate(\"%s\", %s), which MPIX_Win_op_intrinsic "
              "reports as not intrinsic, returned class %d (operation %d, flush %d), want MPI_ERR_OP or MPI_ERR_ARG",
              cand[found].op, cand[found].type, c, rmaext_class(rp), rmaext_class(rf));
        nchecks++;
    } else if (rank == 0) {
        printf("win_dup: every candidate op/type is intrinsic here; the refused-accumulate check is skipped\n");
    }
    int fd = -1;
    CHECK_OK(MPIX_Win_op_intrinsic("sum", 1, MPI_INT64_T, d, &fd));
    CHECK(fd == flag, "\"sum\" on MPI_INT64_T is %d on the duplicate, %d on the parent", fd, flag);
    if (fd) {
        int64_t inc = 1;
        CHECK_OK(MPI_Accumulate(&inc, 1, MPI_INT64_T, t, OFF_SCRATCH + 32, 1, MPI_INT64_T, MPI_SUM, d));
        CHECK_OK(MPI_Win_flush(t, d));
        nchecks++;
    }
    CHECK_OK(MPI_Win_unlock(t, d));
    CHECK_OK(MPI_Win_free(&d));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_parent_freed(void)
{
    int t = (rank + 1) % nproc, from = (rank + nproc - 1) % nproc, x = 4000 + rank, y = -1;
    CHECK_OK(MPI_Win_free(&parent));
    CHECK(parent == MPI_WIN_NULL, "MPI_Win_free left the parent's handle");
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, dup_t));
    CHECK_OK(MPI_Put(&x, 1, MPI_INT, t, OFF_AFTER + rank * 4, 1, MPI_INT, dup_t));
    CHECK_OK(MPI_Win_unlock(t, dup_t));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, dup_t));
    CHECK_OK(MPI_Get(&y, 1, MPI_INT, rank, OFF_AFTER + from * 4, 1, MPI_INT, dup_t));
    CHECK_OK(MPI_Win_unlock(rank, dup_t));
    CHECK(y == 4000 + from, "after the parent was freed, the duplicate reads %d where rank %d put %d", y, from,
          4000 + from);
    void *b = NULL;
    int fl = 0;
    CHECK_OK(MPI_Win_get_attr(dup_t, MPI_WIN_BASE, &b, &fl));
    CHECK(fl && b == base && *(volatile int *)(base + OFF_AFTER + from * 4) == 4000 + from,
          "after the parent was freed the duplicate's memory is not the parent's");
    nchecks += 2;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_free(&dup_t));
    CHECK(dup_t == MPI_WIN_NULL, "MPI_Win_free left the duplicate's handle");
}

int main(int argc, char **argv)
{
    rmaext_start(&argc, &argv, &rank, &nproc);
    CHECK(OFF_EPOCH + 4 * nproc <= OFF_FENCE && OFF_FENCE + 4 * nproc <= OFF_FENCE2 && OFF_AFTER + 4 * nproc <= SIZE, "too many processes");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_allocate(SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &parent));
    CHECK_OK(MPI_Win_set_errhandler(parent, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, parent));
    memset(base, 0, SIZE);
    CHECK_OK(MPI_Win_unlock(rank, parent));
    dup_t = dup_with(parent, MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_THREAD);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    test_info();
    test_epochs();
    test_fence();
    test_atomic();
    test_intrinsic();
    test_parent_freed();

    long total = rmaext_total(nchecks);
    if (rank == 0)
        printf("win_dup: np %d, %ld checks passed: PASS\n", nproc, total);
    CHECK_OK(MPI_Finalize());
    return 0;
}
