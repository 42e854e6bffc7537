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

static void run(int kind)
{
    rma_win w;
    int target = (rank + 1) % nproc, source = (rank + nproc - 1) % nproc;
    int *buf = malloc(N * sizeof(int));
    char what[128];
    rmaext_open_zeroed(&w, kind, OFF_DATA + N * sizeof(int), sizeof(int), MPI_INFO_NULL);
    MPI_Win win = w.win;
    int unified = rmaext_unified(win);

    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int it = 0; it < iters; it++) {
        snprintf(what, sizeof what, "listing1 %s: rank %d iteration %d", rma_kind_name[kind], rank, it);
        for (int i = 0; i < N; i++)
            buf[i] = rmaext_val(rank, it, i);

        /* ---- [RMA] Listing 1 ---- */
        /* (its loops "do { do_useful_work(); MPI_Test(...); } while (!flag)" are
         * rmaext_test_loop, which also counts the rounds of work) */
        int one = 1;
        MPI_Request req;
        CHECK_OK(MPI_Rput(buf, N, MPI_INT, target, rma_disp(&w, target, OFF_DATA), N, MPI_INT, win, &req));
        nwork += rmaext_test_loop(&req);
        /* Flush needed for remote completion */
        CHECK_OK(MPI_Win_flush(target, win));
        /* Signal that the data has been written by
         * incrementing a counter at the target */
        CHECK_OK(MPI_Raccumulate(&one, 1, MPI_INT, target, rma_disp(&w, target, OFF_COUNTER), 1, MPI_INT, MPI_SUM,
                                 win, &req));
        nwork += rmaext_test_loop(&req);
        /* ---- end of Listing 1 ---- */

        /* the target's side: wait for the signal, then the data must be there */
        rmaext_wait_data(&w, OFF_COUNTER, it + 1, unified && (it % 2 == 1), OFF_DATA, N, source, it, what,
                         "after the signal");
        nchecks++;
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    rma_close(&w);
    free(buf);
}

int main(int argc, char **argv)
{
    rmaext_start(&argc, &argv, &rank, &nproc);
    iters = rmaext_arg(argc, argv, iters);
    rmaext_init();
    double t0 = MPI_Wtime();
    for (int k = 0; k < RMA_NKINDS; k++)
        run(k);
    long total = rmaext_total(nchecks), work = rmaext_total(nwork);
    if (rank == 0)
        printf("listing1: np %d, %d window kinds x %d iterations of Rput+flush+Raccumulate: %ld signals checked, "
               "%ld rounds of useful work (%.2f s): PASS\n",
               nproc, RMA_NKINDS, iters, total, work, MPI_Wtime() - t0);
    rmaext_fini();
    CHECK_OK(MPI_Finalize());
    return 0;
}
