/* memhandle_fig6: [RMA] Figure 6, memory handles (sec. 4.2-4.3, Listing 5). The
 * processes pair up (0 with 1, 2 with 3, ...; an odd last one only takes part in the
 * collectives); in each pair process A exposes memory and process B works on it:
 *   A: MPI_Win_create_dynamic (the parent window, collective), MPIX_Memhandle_create on
 *      two regions (MPI_Alloc_mem memory, and malloc'd memory of an odd size), sends
 *      each handle's bytes with MPI_Send(MPI_BYTE) using the size the call returned;
 *   B: MPI_Recv of the handles, MPIX_Win_from_memhandle (disp_unit sizeof(int) on the
 *      first, 1 on the second), MPI_WIN_CREATE_FLAVOR is MPIX_WIN_FLAVOR_MEMHANDLE and
 *      MPI_WIN_SIZE / MPI_WIN_DISP_UNIT are what B asked for; MPI_Win_lock
 *      (MPI_LOCK_SHARED, A, parentwin), then puts, gets, accumulates, fetch-and-op,
 *      compare-and-swap and get-accumulate on the new windows with flushes (gets
 *      checked), MPI_Win_unlock(A, parentwin), a message to A, MPI_Win_free of the
 *      memory-handle windows; before that it creates and frees 100 windows from one
 *      handle (creation is local and cheap);
 *   A: after B's message, every byte of both regions is what B's operations made it,
 *      then MPIX_Memhandle_release of both handles.
 * A also uses a handle locally (a window from its own handle, target itself). */
#include "rmaext.h"

#define R1 4096                 /* bytes of region 1 (MPI_Alloc_mem) */
#define R2 (65536 + 24 + 3)     /* bytes of region 2 (malloc) */
#define R3 256                  /* bytes of region 3 (A's local use) */
#define TAG_HANDLE 1
#define TAG_DONE 2

static int rank, nproc;
static long nchecks;

/* region 1, as ints: what B puts there, and what its accumulates make of it */
#define N1 (R1 / (int)sizeof(int))
static int put1(int i) { return 7000000 + i; }
static int want1(int i)
{
    if (i >= N1 - 16)
        return put1(i) + 1000;    /* MPI_Accumulate(MPI_SUM) of 1000 */
    switch (i) {
    case 1: return put1(1) + 5;   /* MPI_Fetch_and_op(MPI_SUM) of 5 */
    case 2: return -2;            /* MPI_Compare_and_swap of put1(2) into -2 */
    case 3: return put1(3) * 3;   /* MPI_Get_accumulate(MPI_PROD) by 3 */
    case 4: return 44;            /* MPI_Accumulate(MPI_REPLACE) */
    }
    return put1(i);
}
static unsigned char pat2(long j) { return (unsigned char)(j * 7 + 3); }

static void check_attrs(MPI_Win win, MPI_Aint size, int du, const char *what)
{
    int *flavor = NULL, *dup = NULL, flag = 0;
    MPI_Aint *sz = NULL;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPIX_WIN_FLAVOR_MEMHANDLE, "%s: MPI_WIN_CREATE_FLAVOR is %d, want %d (MPIX_WIN_FLAVOR_MEMHANDLE)",
          what, flag ? *flavor : -1, MPIX_WIN_FLAVOR_MEMHANDLE);
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == size, "%s: MPI_WIN_SIZE is %ld, want %ld", what, flag ? (long)*sz : -1L, (long)size);
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &dup, &flag));
    CHECK(flag && *dup == du, "%s: MPI_WIN_DISP_UNIT is %d, want %d", what, flag ? *dup : -1, du);
    nchecks += 3;
}

static void process_a(MPI_Win parent, int b)
{
    /* region 1 from MPI_Alloc_mem, region 2 from malloc, both zeroed */
    unsigned char *m1, *m2 = malloc(R2);
    CHECK_OK(MPI_Alloc_mem(R1, MPI_INFO_NULL, &m1));
    memset(m1, 0, R1);
    memset(m2, 0, R2);
    MPIX_Memhandle h1, h2;
    int hs1 = -1, hs2 = -1;
    CHECK_OK(MPIX_Memhandle_create(m1, R1, MPI_INFO_NULL, parent, h1.bytes, &hs1));
    CHECK(hs1 > 0 && hs1 <= MPI_MAX_MEMORY_HANDLE_SIZE, "MPIX_Memhandle_create returned a handle of %d bytes", hs1);
    CHECK_OK(MPIX_Memhandle_create(m2, R2, MPI_INFO_NULL, parent, h2.bytes, &hs2));
    CHECK(hs2 > 0 && hs2 <= MPI_MAX_MEMORY_HANDLE_SIZE, "MPIX_Memhandle_create returned a handle of %d bytes", hs2);
    CHECK_OK(MPI_Send(h1.bytes, hs1, MPI_BYTE, b, TAG_HANDLE, MPI_COMM_WORLD));
    CHECK_OK(MPI_Send(h2.bytes, hs2, MPI_BYTE, b, TAG_HANDLE, MPI_COMM_WORLD));

    /* meanwhile, a handle used locally: a window on A's own memory */
    static int m3[R3 / sizeof(int)];
    MPIX_Memhandle h3;
    int hs3, n3 = R3 / sizeof(int), back[R3 / sizeof(int)], src[R3 / sizeof(int)];
    MPI_Win w3;
    CHECK_OK(MPIX_Memhandle_create(m3, R3, MPI_INFO_NULL, parent, h3.bytes, &hs3));
    CHECK_OK(MPIX_Win_from_memhandle(h3.bytes, R3, sizeof(int), MPI_INFO_NULL, rank, parent, &w3));
    check_attrs(w3, R3, sizeof(int), "A's window from its own handle");
    for (int i = 0; i < n3; i++)
        src[i] = -i - 1;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, parent));
    CHECK_OK(MPI_Put(src, n3, MPI_INT, rank, 0, n3, MPI_INT, w3));
    CHECK_OK(MPI_Win_flush(rank, w3));
    CHECK_OK(MPI_Get(back, n3, MPI_INT, rank, 0, n3, MPI_INT, w3));
    CHECK_OK(MPI_Win_flush(rank, w3));
    CHECK_OK(MPI_Win_unlock(rank, parent));
    CHECK(memcmp(back, src, sizeof src) == 0, "A's local memory-handle window: the get does not return the put");
    CHECK(memcmp(m3, src, sizeof src) == 0, "A's local memory-handle window: the memory does not hold the put");
    CHECK_OK(MPI_Win_free(&w3));
    CHECK(w3 == MPI_WIN_NULL, "MPI_Win_free left the handle");
    CHECK_OK(MPIX_Memhandle_release(h3.bytes, parent));
    nchecks += 2;

    /* B is done: the memory holds what its operations made */
    CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, b, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    const int *v1 = (const int *)m1;
    for (int i = 0; i < N1; i++)
        CHECK(v1[i] == want1(i), "A (rank %d): region 1 (MPI_Alloc_mem) int %d is %d after B's operations, want %d",
              rank, i, v1[i], want1(i));
    for (long j = 0; j < R2; j++)
        CHECK(m2[j] == pat2(j), "A (rank %d): region 2 (malloc) byte %ld is %d after B's put, want %d", rank, j, m2[j],
              pat2(j));
    nchecks += 2;
    CHECK_OK(MPIX_Memhandle_release(h1.bytes, parent));
    CHECK_OK(MPIX_Memhandle_release(h2.bytes, parent));
    CHECK_OK(MPI_Free_mem(m1));
    free(m2);
}

static void process_b(MPI_Win parent, int a)
{
    MPIX_Memhandle h1, h2;
    int hs1 = rmaext_recv_handle(&h1, a, TAG_HANDLE), hs2 = rmaext_recv_handle(&h2, a, TAG_HANDLE);
    CHECK(hs1 > 0 && hs2 > 0, "received handles of %d and %d bytes", hs1, hs2);

    /* creation is local and cheap: make and free windows from one handle */
    for (int i = 0; i < 100; i++) {
        MPI_Win w;
        CHECK_OK(MPIX_Win_from_memhandle(h1.bytes, R1, sizeof(int), MPI_INFO_NULL, a, parent, &w));
        CHECK_OK(MPI_Win_free(&w));
    }

    MPI_Win w1, w2;
    CHECK_OK(MPIX_Win_from_memhandle(h1.bytes, R1, sizeof(int), MPI_INFO_NULL, a, parent, &w1));
    CHECK_OK(MPIX_Win_from_memhandle(h2.bytes, R2, 1, MPI_INFO_NULL, a, parent, &w2));
    check_attrs(w1, R1, sizeof(int), "B's window from A's MPI_Alloc_mem handle");
    check_attrs(w2, R2, 1, "B's window from A's malloc handle");

    /* ---- Figure 6, process B: lock the parent, RMA operations, flush, unlock ---- */
    int *buf = malloc(R1), *back = malloc(R1);
    for (int i = 0; i < N1; i++)
        buf[i] = put1(i);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, a, 0, parent));
    CHECK_OK(MPI_Put(buf, N1, MPI_INT, a, 0, N1, MPI_INT, w1));
    CHECK_OK(MPI_Win_flush(a, w1));
    CHECK_OK(MPI_Get(back, N1, MPI_INT, a, 0, N1, MPI_INT, w1));
    CHECK_OK(MPI_Win_flush(a, w1));
    CHECK(memcmp(back, buf, R1) == 0, "B: the get through the memory-handle window does not return the put");
    int add[16], one5 = 5, old = -1, cmp = put1(2), neww = -2, three = 3, r44 = 44;
    for (int i = 0; i < 16; i++)
        add[i] = 1000;
    CHECK_OK(MPI_Accumulate(add, 16, MPI_INT, a, N1 - 16, 16, MPI_INT, MPI_SUM, w1));
    CHECK_OK(MPI_Fetch_and_op(&one5, &old, MPI_INT, a, 1, MPI_SUM, w1));
    CHECK_OK(MPI_Win_flush(a, w1));
    CHECK(old == put1(1), "B: MPI_Fetch_and_op returned %d, want %d", old, put1(1));
    CHECK_OK(MPI_Compare_and_swap(&neww, &cmp, &old, MPI_INT, a, 2, w1));
    CHECK_OK(MPI_Win_flush_local(a, w1));
    CHECK(old == put1(2), "B: MPI_Compare_and_swap returned %d, want %d", old, put1(2));
    CHECK_OK(MPI_Get_accumulate(&three, 1, MPI_INT, &old, 1, MPI_INT, a, 3, 1, MPI_INT, MPI_PROD, w1));
    CHECK_OK(MPI_Accumulate(&r44, 1, MPI_INT, a, 4, 1, MPI_INT, MPI_REPLACE, w1));
    CHECK_OK(MPI_Win_flush_all(w1));
    CHECK(old == put1(3), "B: MPI_Get_accumulate returned %d, want %d", old, put1(3));
    CHECK_OK(MPI_Get(back, N1, MPI_INT, a, 0, N1, MPI_INT, w1));
    CHECK_OK(MPI_Win_flush(a, w1));
    for (int i = 0; i < N1; i++)
        CHECK(back[i] == want1(i), "B: int %d of region 1 reads %d after the accumulates, want %d", i, back[i],
              want1(i));
    /* region 2: the whole odd-sized region in one put, read back at an odd offset */
    unsigned char *b2 = malloc(R2), *g2 = malloc(R2);
    for (long j = 0; j < R2; j++)
        b2[j] = pat2(j);
    CHECK_OK(MPI_Put(b2, R2, MPI_BYTE, a, 0, R2, MPI_BYTE, w2));
    CHECK_OK(MPI_Win_flush(a, w2));
    CHECK_OK(MPI_Get(g2, R2 - 11, MPI_BYTE, a, 11, R2 - 11, MPI_BYTE, w2));
    CHECK_OK(MPI_Win_flush(a, w2));
    CHECK(memcmp(g2, b2 + 11, R2 - 11) == 0, "B: the get from region 2 at offset 11 does not return the put");
    CHECK_OK(MPI_Win_unlock(a, parent));
    /* ---- then tell A, and free the memory-handle windows ---- */
    CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, a, TAG_DONE, MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_free(&w1));
    CHECK_OK(MPI_Win_free(&w2));
    CHECK(w1 == MPI_WIN_NULL && w2 == MPI_WIN_NULL, "MPI_Win_free left the handles");
    nchecks += 7;
    free(buf);
    free(back);
    free(b2);
    free(g2);
}

int main(int argc, char **argv)
{
    rmaext_start(&argc, &argv, &rank, &nproc);
    double t0 = MPI_Wtime();

    /* ---- Figure 6: the parent window, collective over the group ---- */
    MPI_Win parent;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &parent));
    if (rank % 2 == 0 && rank + 1 < nproc)
        process_a(parent, rank + 1);
    else if (rank % 2 == 1)
        process_b(parent, rank - 1);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_free(&parent));

    long total = rmaext_total(nchecks);
    if (rank == 0)
        printf("memhandle_fig6: np %d, %d pairs: handles of MPI_Alloc_mem and malloc'd memory sent with MPI_Send, "
               "windows from them under a shared lock on the parent: %ld checks passed (%.2f s): PASS\n",
               nproc, nproc / 2, total, MPI_Wtime() - t0);
    CHECK_OK(MPI_Finalize());
    return 0;
}
