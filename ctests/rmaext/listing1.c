/* listing1: [RMA] Listing 1 completed into a program. Every process is the origin for
 * the next rank (a ring) and the target of the previous one, on every window kind
 * (ctests/rma/rma_util.h), inside one MPI_Win_lock_all:
 *   origin: MPI_Rput of the data, MPI_Test loop with useful work, MPI_Win_flush for
 *           remote completion, then MPI_Raccumulate of one onto the target's counter
 *           (the signal) and another MPI_Test loop;
 *   target: waits for the counter to reach the iteration's count (by
 *           MPI_Fetch_and_op(MPI_NO_OP) on itself, or on unified windows by
 *           MPI_Win_sync and atomic loads), then checks the data is there.
 * A barrier ends each iteration, so the next put cannot overwrite data not yet
 * checked. This is standard MPI-3 (the paper's starting point): it needs no extension.
 * Argument: iterations per window kind (default 20). */
#include "rmaext.h"

#define N 1024          /* ints of data */
#define OFF_COUNTER 0   /* the signal counter (an int) */
#define OFF_DATA 64     /* the data */

static int rank, nproc, iters = 20;
static long nchecks, nwork;

static int val(int src, int it, int i) { return (src * 1000 + it) * 4096 + i; }

static void run(int kind)
{
    rma_win w;
    int target = (rank + 1) % nproc, source = (rank + nproc - 1) % nproc;
    int *buf = malloc(N * sizeof(int));
    char what[128];
    rma_open(&w, kind, OFF_DATA + N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win win = w.win;
    int unified = rmaext_unified(win);
    rma_local_begin(&w);
    memset(w.base, 0, w.size);
    rma_local_end(&w);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int it = 0; it < iters; it++) {
        snprintf(what, sizeof what, "listing1 %s: rank %d iteration %d", rma_kind_name[kind], rank, it);
        for (int i = 0; i < N; i++)
            buf[i] = val(rank, it, i);

        /* ---- [RMA] Listing 1 ---- */
        int flag, one = 1;
        MPI_Request req;
        CHECK_OK(MPI_Rput(buf, N, MPI_INT, target, rma_disp(&w, target, OFF_DATA), N, MPI_INT, win, &req));
        do {
            do_useful_work();
            nwork++;
            CHECK_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        } while (!flag);
        /* Flush needed for remote completion */
        CHECK_OK(MPI_Win_flush(target, win));
        /* Signal that the data has been written by
         * incrementing a counter at the target */
        CHECK_OK(MPI_Raccumulate(&one, 1, MPI_INT, target, rma_disp(&w, target, OFF_COUNTER), 1, MPI_INT, MPI_SUM,
                                 win, &req));
        do {
            do_useful_work();
            nwork++;
            CHECK_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        } while (!flag);
        /* ---- end of Listing 1 ---- */

        /* the target's side: wait for the signal, then the data must be there */
        rmaext_wait_counter(&w, OFF_COUNTER, it + 1, unified && (it % 2 == 1), 60, what);
        CHECK_OK(MPI_Win_sync(win));
        const int *data = (const int *)(w.base + OFF_DATA);
        for (int i = 0; i < N; i++)
            CHECK(data[i] == val(source, it, i), "%s: data[%d] is %d after the signal, want %d (from rank %d)", what,
                  i, data[i], val(source, it, i), source);
        nchecks++;
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    rma_close(&w);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK(nproc >= 2, "needs at least 2 processes");
    if (argc > 1)
        iters = atoi(argv[1]);
    rmaext_init();
    double t0 = MPI_Wtime();
    for (int k = 0; k < RMA_NKINDS; k++)
        run(k);
    long total, work;
    MPI_Reduce(&nchecks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&nwork, &work, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("listing1: np %d, %d window kinds x %d iterations of Rput+flush+Raccumulate: %ld signals checked, "
               "%ld rounds of useful work (%.2f s): PASS\n",
               nproc, RMA_NKINDS, iters, total, work, MPI_Wtime() - t0);
    rmaext_fini();
    CHECK_OK(MPI_Finalize());
    return 0;
}
