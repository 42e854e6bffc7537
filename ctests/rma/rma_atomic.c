/* rma_atomic: accumulates from every rank at once on the same locations, inside one
 * MPI_Win_lock_all (shared) epoch, on every window kind; the results are exact.
 *   - MPI_Accumulate(MPI_SUM): every rank adds 1 (int) ITER times to a counter at rank
 *     0, rank+1 (long long) and 1.0 (double) every fourth time to two others, and 1 to
 *     a counter at rank i % n;
 *   - MPI_Fetch_and_op(MPI_SUM, +1) and MPI_Get_accumulate(MPI_SUM, +1) on two counters
 *     at rank 0: the values fetched by all ranks are exactly 0 .. n*FETCH-1, each rank's
 *     increasing;
 *   - a mutex made of MPI_Compare_and_swap (acquire 0 -> rank+1, release rank+1 -> 0)
 *     guarding a plain MPI_Get / MPI_Put increment and a holder word;
 *   - a ticket lock: the ticket taken by a compare-and-swap loop on "next", the turn
 *     awaited with MPI_Fetch_and_op(MPI_NO_OP) on "serving", released with
 *     MPI_Accumulate(+1); it guards another plain get/put increment.
 * Arguments: ITER (default 1000), FETCH (default 100), LOCKS (critical sections per
 * rank and lock, default 15). */
#include "rma_util.h"

#define O_ACC_INT 0
#define O_ACC_LL 8
#define O_ACC_DBL 16
#define O_FAO 24
#define O_GACC 32
#define O_MUTEX 40 /* int lock word */
#define O_X 48     /* counter under the mutex */
#define O_NEXT 56
#define O_SERVING 64
#define O_Y 72     /* counter under the ticket lock */
#define O_SPREAD 80 /* int counter at every rank */
#define O_HOLDER 88 /* who holds the mutex */
#define WSIZE 128

static long nchecks;

static void ll_at(const unsigned char *b, int off, long long *v) { memcpy(v, b + off, sizeof *v); }

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static void round_on(rma_win *w, int iter, int fetch, int locks)
{
    const char *what = rma_kind_name[w->kind];
    MPI_Win win = w->win;
    int me = w->rank, n = w->nproc;
    rma_local_begin(w);
    memset(w->base, 0, WSIZE);
    rma_local_end(w);
    CHECK_OK(MPI_Barrier(w->comm));
    CHECK_OK(MPI_Win_lock_all(0, win));

    /* accumulates */
    int one = 1;
    long long mine = me + 1;
    double done = 1.0;
    for (int i = 0; i < iter; i++) {
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, rma_disp(w, 0, O_ACC_INT), 1, MPI_INT, MPI_SUM, win));
        if (i % 4 == 0) {
            CHECK_OK(MPI_Accumulate(&mine, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_ACC_LL), 1, MPI_LONG_LONG, MPI_SUM,
                                    win));
            CHECK_OK(MPI_Accumulate(&done, 1, MPI_DOUBLE, 0, rma_disp(w, 0, O_ACC_DBL), 1, MPI_DOUBLE, MPI_SUM, win));
        }
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, i % n, rma_disp(w, i % n, O_SPREAD), 1, MPI_INT, MPI_SUM, win));
        if (i % 100 == 99)
            CHECK_OK(MPI_Win_flush_all(win));
    }

    /* fetching increments */
    long long inc = 1, *got = malloc(2 * fetch * sizeof(long long));
    for (int i = 0; i < fetch; i++) {
        CHECK_OK(MPI_Fetch_and_op(&inc, &got[i], MPI_LONG_LONG, 0, rma_disp(w, 0, O_FAO), MPI_SUM, win));
        CHECK_OK(MPI_Win_flush(0, win));
        CHECK_OK(MPI_Get_accumulate(&inc, 1, MPI_LONG_LONG, &got[fetch + i], 1, MPI_LONG_LONG, 0,
                                    rma_disp(w, 0, O_GACC), 1, MPI_LONG_LONG, MPI_SUM, win));
        CHECK_OK(MPI_Win_flush_local(0, win));
        if (i > 0)
            CHECK(got[i] > got[i - 1] && got[fetch + i] > got[fetch + i - 1],
                  "%s: rank %d fetched %lld then %lld (get_accumulate %lld then %lld)", what, me, got[i - 1], got[i],
                  got[fetch + i - 1], got[fetch + i]);
    }

    /* the compare-and-swap mutex */
    int free_ = 0, tag = me + 1, prev;
    for (int i = 0; i < locks; i++) {
        do {
            CHECK_OK(MPI_Compare_and_swap(&tag, &free_, &prev, MPI_INT, 0, rma_disp(w, 0, O_MUTEX), win));
            CHECK_OK(MPI_Win_flush(0, win));
            CHECK(prev >= 0 && prev <= n, "%s: the mutex word reads %d", what, prev);
        } while (prev != 0);
        long long x, holder;
        long long who = me;
        CHECK_OK(MPI_Put(&who, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_HOLDER), 1, MPI_LONG_LONG, win));
        CHECK_OK(MPI_Get(&x, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_X), 1, MPI_LONG_LONG, win));
        CHECK_OK(MPI_Win_flush(0, win));
        x++;
        CHECK_OK(MPI_Put(&x, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_X), 1, MPI_LONG_LONG, win));
        CHECK_OK(MPI_Win_flush(0, win));
        CHECK_OK(MPI_Get(&holder, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_HOLDER), 1, MPI_LONG_LONG, win));
        CHECK_OK(MPI_Win_flush(0, win));
        CHECK(holder == me, "%s: rank %d holds the mutex, but rank %lld wrote the holder word", what, me, holder);
        /* release with a compare-and-swap too: with the default accumulate_ops
         * (same_op_no_op) concurrent accumulates on one location use one op */
        CHECK_OK(MPI_Compare_and_swap(&free_, &tag, &prev, MPI_INT, 0, rma_disp(w, 0, O_MUTEX), win));
        CHECK_OK(MPI_Win_flush(0, win));
        CHECK(prev == tag, "%s: rank %d released a mutex word of %d", what, me, prev);
    }

    /* the ticket lock */
    for (int i = 0; i < locks; i++) {
        long long next, ticket, serving, y, plus = 1, nop = 0;
        CHECK_OK(MPI_Fetch_and_op(&nop, &next, MPI_LONG_LONG, 0, rma_disp(w, 0, O_NEXT), MPI_NO_OP, win));
        CHECK_OK(MPI_Win_flush(0, win));
        for (;;) {
            long long want = next + 1;
            CHECK_OK(MPI_Compare_and_swap(&want, &next, &ticket, MPI_LONG_LONG, 0, rma_disp(w, 0, O_NEXT), win));
            CHECK_OK(MPI_Win_flush(0, win));
            if (ticket == next)
                break;
            next = ticket; /* someone took it: try the value it holds now */
        }
        do {
            CHECK_OK(MPI_Fetch_and_op(&nop, &serving, MPI_LONG_LONG, 0, rma_disp(w, 0, O_SERVING), MPI_NO_OP, win));
            CHECK_OK(MPI_Win_flush(0, win));
            CHECK(serving <= ticket, "%s: serving %lld passed ticket %lld", what, serving, ticket);
        } while (serving != ticket);
        CHECK_OK(MPI_Get(&y, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_Y), 1, MPI_LONG_LONG, win));
        CHECK_OK(MPI_Win_flush(0, win));
        CHECK(y == ticket, "%s: ticket %lld found the counter at %lld", what, ticket, y);
        y++;
        CHECK_OK(MPI_Put(&y, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_Y), 1, MPI_LONG_LONG, win));
        CHECK_OK(MPI_Win_flush(0, win));
        CHECK_OK(MPI_Accumulate(&plus, 1, MPI_LONG_LONG, 0, rma_disp(w, 0, O_SERVING), 1, MPI_LONG_LONG, MPI_SUM, win));
        CHECK_OK(MPI_Win_flush(0, win));
    }

    CHECK_OK(MPI_Win_flush_all(win));
    CHECK_OK(MPI_Barrier(w->comm));
    CHECK_OK(MPI_Win_sync(win));
    const unsigned char *b = w->base;
    int spread, want_spread = 0;
    memcpy(&spread, b + O_SPREAD, sizeof spread);
    for (int i = 0; i < iter; i++)
        want_spread += i % n == me;
    want_spread *= n;
    CHECK(spread == want_spread, "%s: the counter at rank %d is %d, want %d", what, me, spread, want_spread);
    nchecks++;
    if (me == 0) {
        int ai;
        long long all, fao, gacc, x, nx, sv, y;
        double ad;
        memcpy(&ai, b + O_ACC_INT, sizeof ai);
        memcpy(&ad, b + O_ACC_DBL, sizeof ad);
        ll_at(b, O_ACC_LL, &all);
        ll_at(b, O_FAO, &fao);
        ll_at(b, O_GACC, &gacc);
        ll_at(b, O_X, &x);
        ll_at(b, O_NEXT, &nx);
        ll_at(b, O_SERVING, &sv);
        ll_at(b, O_Y, &y);
        CHECK(ai == n * iter, "%s: int counter %d, want %d", what, ai, n * iter);
        long long q = (iter + 3) / 4; /* the iterations that add to them */
        CHECK(all == q * n * (n + 1) / 2, "%s: long long counter %lld, want %lld", what, all, q * n * (n + 1) / 2);
        CHECK(ad == (double)n * q, "%s: double counter %g, want %lld", what, ad, n * q);
        CHECK(fao == (long long)n * fetch && gacc == (long long)n * fetch,
              "%s: fetch_and_op counter %lld, get_accumulate counter %lld, want %d", what, fao, gacc, n * fetch);
        CHECK(x == (long long)n * locks, "%s: the mutex-guarded counter is %lld, want %d", what, x, n * locks);
        CHECK(nx == (long long)n * locks && sv == nx && y == nx, "%s: ticket lock next %lld serving %lld counter %lld, want %d",
              what, nx, sv, y, n * locks);
        nchecks += 6;
    }
    CHECK_OK(MPI_Barrier(w->comm));
    CHECK_OK(MPI_Win_unlock_all(win));

    /* every fetched value once */
    long long *all = me == 0 ? malloc((size_t)2 * n * fetch * sizeof(long long)) : NULL;
    CHECK_OK(MPI_Gather(got, 2 * fetch, MPI_LONG_LONG, all, 2 * fetch, MPI_LONG_LONG, 0, w->comm));
    if (me == 0) {
        for (int which = 0; which < 2; which++) {
            long long *v = malloc((size_t)n * fetch * sizeof(long long));
            for (int r = 0; r < n; r++)
                memcpy(v + (size_t)r * fetch, all + (size_t)r * 2 * fetch + (size_t)which * fetch, fetch * sizeof(long long));
            qsort(v, (size_t)n * fetch, sizeof(long long), cmp_ll);
            for (long i = 0; i < (long)n * fetch; i++)
                CHECK(v[i] == i, "%s: %s: the %ld-th smallest fetched value is %lld (duplicates or gaps)", what,
                      which ? "get_accumulate" : "fetch_and_op", i, v[i]);
            free(v);
            nchecks++;
        }
        free(all);
    }
    free(got);
}

/* With MPIX_TEST_NET_ATOMICS set (to the element types mpix's window info
 * mpix_accumulate_net_atomics must list, such as int32,uint32,int64,uint64,float32,float64)
 * the run asserts that the accumulates took the transport's atomics: every window but
 * the dynamic one lists them, and the MPI_T counter mpix_rma_net_atomics grew during
 * its round. (MPIX_RMA_NET_ATOMICS=1 with MPIX_SHM=0 makes tcp;ofi_rxm's software
 * atomics serve.) */
static unsigned long long net_atomics_posted(void)
{
    static MPI_T_pvar_session session;
    static MPI_T_pvar_handle handle;
    static int ready;
    if (!ready) {
        int provided, idx, count;
        CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
        CHECK_OK(MPI_T_pvar_get_index("mpix_rma_net_atomics", MPI_T_PVAR_CLASS_COUNTER, &idx));
        CHECK_OK(MPI_T_pvar_session_create(&session));
        CHECK_OK(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle, &count));
        ready = 1;
    }
    unsigned long long v = 0;
    CHECK_OK(MPI_T_pvar_read(session, handle, &v));
    return v;
}

static void check_net_atomics(rma_win *w, unsigned long long before)
{
    const char *want = getenv("MPIX_TEST_NET_ATOMICS");
    if (!want)
        return;
    int dynamic = rma_kind_flavor[w->kind] == MPI_WIN_FLAVOR_DYNAMIC;
    MPI_Info info;
    char got[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK_OK(MPI_Win_get_info(w->win, &info));
    CHECK_OK(MPI_Info_get(info, "mpix_accumulate_net_atomics", MPI_MAX_INFO_VAL, got, &flag));
    CHECK_OK(MPI_Info_free(&info));
    CHECK(flag, "%s: no mpix_accumulate_net_atomics in the window's info", rma_kind_name[w->kind]);
    CHECK(strcmp(got, dynamic ? "none" : want) == 0, "%s: mpix_accumulate_net_atomics is %s, want %s",
          rma_kind_name[w->kind], got, dynamic ? "none" : want);
    unsigned long long after = net_atomics_posted();
    CHECK(dynamic ? after == before : after > before, "%s: %llu atomics through the transport during the round",
          rma_kind_name[w->kind], after - before);
    nchecks += 2;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iter = argc > 1 ? atoi(argv[1]) : 1000, fetch = argc > 2 ? atoi(argv[2]) : 100,
        locks = argc > 3 ? atoi(argv[3]) : 15;
    double t0 = MPI_Wtime();
    for (int k = 0; k < RMA_NKINDS; k++) {
        rma_win w;
        rma_open(&w, k, WSIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
        CHECK_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        unsigned long long before = getenv("MPIX_TEST_NET_ATOMICS") ? net_atomics_posted() : 0;
        round_on(&w, iter, fetch, locks);
        check_net_atomics(&w, before);
        rma_close(&w);
    }
    long total;
    MPI_Reduce(&nchecks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_atomic: np %d, %d window kinds, %d accumulates, %d fetches, %d critical sections per rank: %ld checks "
               "passed (%.2f s)\n",
               size, RMA_NKINDS, iter, fetch, 2 * locks, total, MPI_Wtime() - t0);
    CHECK_OK(MPI_Finalize());
    return 0;
}
