/* listing6: [RMA] Listing 6 and the remote-completing request-based operations of
 * sec. 5.2, on every window kind (ctests/rma/rma_util.h), inside one
 * MPI_Win_lock_all:
 *   - the listing: every process is the origin for the next rank (a ring): MPI_Rrput
 *     of the data (1 int to 16 Ki ints), an MPI_Test loop with useful work, then
 *     MPI_Allreduce and no flush: once the collective returns, the target's memory
 *     holds the data (it calls MPI_Win_sync, which is local, and reads it). The data
 *     alternates between two slots, so the next iteration's put never overwrites data
 *     not yet checked (the origin only passes the next collective after the target
 *     checked). MPIX_Rrput and the MPI_Rrput spelling alternate;
 *   - MPIX_Rraccumulate and MPI_Rraccumulate: every process adds to a counter on
 *     every process, waits for its requests, MPI_Allreduce, and every counter has the
 *     exact sum, with no flush;
 *   - MPIX_Rrget_accumulate and MPI_Rrget_accumulate: every process takes numbers
 *     from a counter on rank 0 (MPI_SUM of 1) and gets the counter's old values; the
 *     numbers taken are all different and cover 0..n-1, and after MPI_Allreduce the
 *     counter is n, read at rank 0 from memory and by everyone through
 *     MPIX_Rrget_accumulate with MPI_NO_OP; MPI_REPLACE returns the old value;
 *   - MPIX_Rrget reads back what MPIX_Rrput wrote;
 *   - the Rr operations outside a passive-target epoch fail with MPI_ERR_RMA_SYNC
 *     (under MPI_ERRORS_RETURN on the window).
 * Argument: iterations of the listing per window kind (default 20). */
#include "rmaext.h"

#define MAXN 16384       /* ints in a data slot */
#define OFF_SUM 0        /* int64: the Rraccumulate counter */
#define OFF_TICKET 8     /* int64: the Rrget_accumulate counter (used on rank 0) */
#define OFF_REPL 16      /* int64: for MPI_REPLACE */
#define OFF_DATA 64      /* two slots of MAXN ints */
#define NTICKETS 20      /* numbers each process takes per spelling */

static int rank, nproc, iters = 20;
static long nchecks;

static MPI_Aint off_slot(int it) { return OFF_DATA + (MPI_Aint)(it % 2) * MAXN * sizeof(int); }
static int count_of(int it)
{
    static const int counts[] = {1, 1000, MAXN, 7, 4096, 16383};
    return counts[it % 6];
}

static void listing(rma_win *w, int *buf)
{
    MPI_Win win = w->win;
    int target = (rank + 1) % nproc, source = (rank + nproc - 1) % nproc;
    for (int it = 0; it < iters; it++) {
        int n = count_of(it);
        for (int i = 0; i < n; i++)
            buf[i] = rmaext_val(rank, it, i);

        /* ---- [RMA] Listing 6 ---- */
        int another_variable = it + rank, sum;
        MPI_Request req;
        if (it % 2 == 0)
            CHECK_OK(MPIX_Rrput(buf, n, MPI_INT, target, rma_disp(w, target, off_slot(it)), n, MPI_INT, win, &req));
        else
            CHECK_OK(MPI_Rrput(buf, n, MPI_INT, target, rma_disp(w, target, off_slot(it)), n, MPI_INT, win, &req));
        rmaext_test_loop(&req);
        /* A call to MPI_Win_flush would be required if MPI_Rput was used */
        CHECK_OK(MPI_Allreduce(&another_variable, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        /* ---- end of Listing 6 ---- */

        CHECK(sum == nproc * it + nproc * (nproc - 1) / 2, "MPI_Allreduce gave %d", sum);
        CHECK_OK(MPI_Win_sync(win));
        const int *data = (const int *)(w->base + off_slot(it));
        int nn = count_of(it);
        for (int i = 0; i < nn; i++)
            CHECK(data[i] == rmaext_val(source, it, i),
                  "listing6 %s: rank %d iteration %d: after %s completed and MPI_Allreduce, data[%d] of %d is %d, "
                  "want %d (no flush: the request's completion is remote completion)",
                  rma_kind_name[w->kind], rank, it, it % 2 == 0 ? "MPIX_Rrput" : "MPI_Rrput", i, nn, data[i],
                  rmaext_val(source, it, i));
        nchecks++;
    }
    /* MPIX_Rrget reads back what the last MPIX_Rrput wrote */
    int last = iters - 1, n = count_of(last);
    MPI_Request req;
    CHECK_OK(MPIX_Rrget(buf, n, MPI_INT, target, rma_disp(w, target, off_slot(last)), n, MPI_INT, win, &req));
    rmaext_test_loop(&req);
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == rmaext_val(rank, last, i), "listing6 %s: MPIX_Rrget read %d at %d, want %d",
              rma_kind_name[w->kind], buf[i], i, rmaext_val(rank, last, i));
    nchecks++;
}

static void rraccumulate(rma_win *w)
{
    MPI_Win win = w->win;
    int64_t a = rank + 1, b = 1000 * (int64_t)(rank + 1);
    MPI_Request *reqs = malloc(2 * nproc * sizeof(MPI_Request));
    for (int t = 0; t < nproc; t++) {
        CHECK_OK(MPIX_Rraccumulate(&a, 1, MPI_INT64_T, t, rma_disp(w, t, OFF_SUM), 1, MPI_INT64_T, MPI_SUM, win,
                                   &reqs[2 * t]));
        CHECK_OK(MPI_Rraccumulate(&b, 1, MPI_INT64_T, t, rma_disp(w, t, OFF_SUM), 1, MPI_INT64_T, MPI_SUM, win,
                                  &reqs[2 * t + 1]));
    }
    CHECK_OK(MPI_Waitall(2 * nproc, reqs, MPI_STATUSES_IGNORE));
    int one = 1, all;
    CHECK_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_sync(win));
    int64_t want = 1001 * (int64_t)nproc * (nproc + 1) / 2, got = *(volatile int64_t *)(w->base + OFF_SUM);
    CHECK(got == want,
          "listing6 %s: rank %d: after every MPIX_Rraccumulate/MPI_Rraccumulate completed and MPI_Allreduce, the "
          "counter is %lld, want %lld (no flush)",
          rma_kind_name[w->kind], rank, (long long)got, (long long)want);
    nchecks++;
    free(reqs);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void rrget_accumulate(rma_win *w)
{
    MPI_Win win = w->win;
    int64_t one = 1, mine[2 * NTICKETS];
    MPI_Request req;
    for (int i = 0; i < NTICKETS; i++) {
        mine[2 * i] = mine[2 * i + 1] = -1;
        CHECK_OK(MPIX_Rrget_accumulate(&one, 1, MPI_INT64_T, &mine[2 * i], 1, MPI_INT64_T, 0,
                                       rma_disp(w, 0, OFF_TICKET), 1, MPI_INT64_T, MPI_SUM, win, &req));
        rmaext_test_loop(&req);
        CHECK_OK(MPI_Rrget_accumulate(&one, 1, MPI_INT64_T, &mine[2 * i + 1], 1, MPI_INT64_T, 0,
                                      rma_disp(w, 0, OFF_TICKET), 1, MPI_INT64_T, MPI_SUM, win, &req));
        rmaext_test_loop(&req);
        CHECK(mine[2 * i + 1] > mine[2 * i] && mine[2 * i] >= 0,
              "listing6 %s: rank %d took %lld then %lld from the counter", rma_kind_name[w->kind], rank,
              (long long)mine[2 * i], (long long)mine[2 * i + 1]);
    }
    int64_t total = (int64_t)2 * NTICKETS * nproc;
    int64_t *all = rank == 0 ? malloc(total * sizeof(int64_t)) : NULL;
    /* a gather is also the collective after which rank 0's memory has every update */
    CHECK_OK(MPI_Gather(mine, 2 * NTICKETS, MPI_INT64_T, all, 2 * NTICKETS, MPI_INT64_T, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        qsort(all, total, sizeof(int64_t), cmp_i64);
        for (int64_t i = 0; i < total; i++)
            CHECK(all[i] == i, "listing6 %s: the numbers taken with Rrget_accumulate, sorted, have %lld at %lld "
                  "(not atomic, or a number lost)", rma_kind_name[w->kind], (long long)all[i], (long long)i);
        CHECK_OK(MPI_Win_sync(win));
        int64_t got = *(volatile int64_t *)(w->base + OFF_TICKET);
        CHECK(got == total, "listing6 %s: the counter is %lld after MPI_Gather, want %lld (no flush)",
              rma_kind_name[w->kind], (long long)got, (long long)total);
        free(all);
    }
    /* everyone reads it with MPI_NO_OP, once every process has taken its numbers */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    int64_t seen = -1;
    CHECK_OK(MPIX_Rrget_accumulate(&one, 1, MPI_INT64_T, &seen, 1, MPI_INT64_T, 0, rma_disp(w, 0, OFF_TICKET), 1,
                                   MPI_INT64_T, MPI_NO_OP, win, &req));
    rmaext_test_loop(&req);
    CHECK(seen == total, "listing6 %s: MPIX_Rrget_accumulate(MPI_NO_OP) read %lld, want %lld", rma_kind_name[w->kind],
          (long long)seen, (long long)total);
    /* MPI_REPLACE on one's own word at the next rank returns the old value */
    int t = (rank + 1) % nproc;
    int64_t first = 100 + rank, second = 200 + rank, old = -1;
    CHECK_OK(MPI_Rrget_accumulate(&first, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, t, rma_disp(w, t, OFF_REPL), 1,
                                  MPI_INT64_T, MPI_REPLACE, win, &req));
    rmaext_test_loop(&req);
    CHECK(old == 0, "listing6 %s: MPI_REPLACE returned %lld, want 0", rma_kind_name[w->kind], (long long)old);
    CHECK_OK(MPIX_Rrget_accumulate(&second, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, t, rma_disp(w, t, OFF_REPL), 1,
                                   MPI_INT64_T, MPI_REPLACE, win, &req));
    rmaext_test_loop(&req);
    CHECK(old == first, "listing6 %s: MPI_REPLACE returned %lld, want %lld", rma_kind_name[w->kind], (long long)old,
          (long long)first);
    int x = 0, y;
    CHECK_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_sync(win));
    int from = (rank + nproc - 1) % nproc;
    int64_t repl = *(volatile int64_t *)(w->base + OFF_REPL);
    CHECK(repl == 200 + from, "listing6 %s: rank %d's word holds %lld after two MPI_REPLACE, want %d",
          rma_kind_name[w->kind], rank, (long long)repl, 200 + from);
    nchecks += 4;
}

/* outside a passive-target epoch the Rr operations are erroneous */
static void no_epoch(rma_win *w)
{
    MPI_Win win = w->win;
    int t = (rank + 1) % nproc, v = 1, r;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_CLASS(MPIX_Rrput(&v, 1, MPI_INT, t, rma_disp(w, t, OFF_DATA), 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Rrput(&v, 1, MPI_INT, t, rma_disp(w, t, OFF_DATA), 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPIX_Rrget(&r, 1, MPI_INT, t, rma_disp(w, t, OFF_DATA), 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPIX_Rraccumulate(&v, 1, MPI_INT, t, rma_disp(w, t, OFF_DATA), 1, MPI_INT, MPI_SUM, win, &req),
                MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Rraccumulate(&v, 1, MPI_INT, t, rma_disp(w, t, OFF_DATA), 1, MPI_INT, MPI_SUM, win, &req),
                MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPIX_Rrget_accumulate(&v, 1, MPI_INT, &r, 1, MPI_INT, t, rma_disp(w, t, OFF_DATA), 1, MPI_INT,
                                      MPI_SUM, win, &req),
                MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Rrget_accumulate(&v, 1, MPI_INT, &r, 1, MPI_INT, t, rma_disp(w, t, OFF_DATA), 1, MPI_INT,
                                     MPI_SUM, win, &req),
                MPI_ERR_RMA_SYNC);
    nchecks += 7;
}

static void run(int kind)
{
    rma_win w;
    int *buf = malloc(MAXN * sizeof(int));
    rmaext_open_zeroed(&w, kind, OFF_DATA + 2 * MAXN * sizeof(int), sizeof(int), MPI_INFO_NULL);
    CHECK_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
    no_epoch(&w);
    CHECK_OK(MPI_Win_lock_all(0, w.win));
    listing(&w, buf);
    rraccumulate(&w);
    rrget_accumulate(&w);
    CHECK_OK(MPI_Win_unlock_all(w.win));
    rma_close(&w);
    free(buf);
}

int main(int argc, char **argv)
{
    rmaext_start(&argc, &argv, &rank, &nproc);
    iters = rmaext_arg(argc, argv, iters);
    CHECK(iters >= 1, "needs at least 1 iteration");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    double t0 = MPI_Wtime();
    for (int k = 0; k < RMA_NKINDS; k++)
        run(k);
    long total = rmaext_total(nchecks);
    if (rank == 0)
        printf("listing6: np %d, %d window kinds: Rrput + MPI_Allreduce with no flush, Rraccumulate, "
               "Rrget_accumulate, Rrget: %ld checks passed (%.2f s): PASS\n",
               nproc, RMA_NKINDS, total, MPI_Wtime() - t0);
    CHECK_OK(MPI_Finalize());
    return 0;
}
