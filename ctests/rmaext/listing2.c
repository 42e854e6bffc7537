/* listing2: [RMA] Listing 2, operation ordering (sec. 2.2). Every window kind
 * (ctests/rma/rma_util.h) is created with the info key mpi_win_order=true, and
 * MPI_Win_get_info must report it "true" (mpix honours it, so anything else fails).
 *   - the listing: every process is the origin for the next rank (a ring): MPI_Put of
 *     the data, then at once, with no flush, MPI_Raccumulate of one onto the target's
 *     counter and an MPI_Test loop. The target polls its counter (MPI_Fetch_and_op
 *     with MPI_NO_OP on itself, or on unified windows MPI_Win_sync and atomic loads)
 *     and, once the signal is there, the data must be there too;
 *   - a stress phase: each iteration every process sends to every other process
 *     (several targets at 4 processes) a message of a size that varies between 1 byte
 *     and 64 KiB, as two puts (most of it, then the tail), followed by its signal with
 *     no flush; each target waits for the signal of every source and checks every
 *     byte. The signal never arrives before the data, or the test fails saying which.
 * A barrier ends each iteration, so no put overwrites data not yet checked.
 * Argument: iterations of the stress phase per window kind (default 100). */
#include "rmaext.h"

#define N 1024          /* ints of data in the listing */
#define OFF_COUNTER 0   /* the listing's signal counter */
#define OFF_DATA 64
#define MAXS 65536      /* the stress phase's largest message */

static int rank, nproc, stress_iters = 100, listing_iters = 10;
static long nchecks, nbytes;

/* open_ordered opens a zeroed window of kind with mpi_win_order=true, checks that
 * MPI_Win_get_info reports it, and says whether the window is unified. */
static int open_ordered(rma_win *w, int kind, MPI_Aint size, int disp_unit, const char *phase)
{
    char what[128];
    MPI_Info info = rmaext_info(MPIX_INFO_WIN_ORDER, MPIX_INFO_TRUE, NULL);
    rmaext_open_zeroed(w, kind, size, disp_unit, info);
    CHECK_OK(MPI_Info_free(&info));
    snprintf(what, sizeof what, "listing2 %s%s window", phase, rma_kind_name[kind]);
    RMAEXT_CHECK_INFO(w->win, MPIX_INFO_WIN_ORDER, "true", what);
    return rmaext_unified(w->win);
}

static void listing(int kind)
{
    rma_win w;
    int target = (rank + 1) % nproc, source = (rank + nproc - 1) % nproc;
    int *buf = malloc(N * sizeof(int));
    char what[128];
    int unified = open_ordered(&w, kind, OFF_DATA + N * sizeof(int), sizeof(int), "");
    MPI_Win win = w.win;

    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int it = 0; it < listing_iters; it++) {
        snprintf(what, sizeof what, "listing2 %s: rank %d iteration %d", rma_kind_name[kind], rank, it);
        for (int i = 0; i < N; i++)
            buf[i] = rmaext_val(rank, it, i);

        /* ---- [RMA] Listing 2 ---- */
        /* (its loop "do { do_useful_work(); MPI_Test(...); } while (!flag)" is
         * rmaext_test_loop) */
        int one = 1;
        MPI_Request req;
        CHECK_OK(MPI_Put(buf, N, MPI_INT, target, rma_disp(&w, target, OFF_DATA), N, MPI_INT, win));
        /* Signal that the data has been written by
         * incrementing a counter at the target */
        CHECK_OK(MPI_Raccumulate(&one, 1, MPI_INT, target, rma_disp(&w, target, OFF_COUNTER), 1, MPI_INT, MPI_SUM,
                                 win, &req));
        rmaext_test_loop(&req);
        /* ---- end of Listing 2 ---- */

        rmaext_wait_data(&w, OFF_COUNTER, it + 1, unified && (it % 2 == 1), OFF_DATA, N, source, it, what,
                         "with mpi_win_order=true the signal arrived before the data");
        nchecks++;
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    rma_close(&w);
    free(buf);
}

/* the stress phase's layout: a counter per source, then a MAXS-byte slot per source */
static MPI_Aint off_count(int src) { return (MPI_Aint)src * sizeof(int); }
static MPI_Aint off_slot(int src) { return (((MPI_Aint)nproc * sizeof(int) + 63) & ~(MPI_Aint)63) + (MPI_Aint)src * MAXS; }

/* the size of source src's message in iteration it: from 1 byte to 64 KiB */
static MPI_Aint msg_size(int src, int it)
{
    static const MPI_Aint sizes[] = {1, 8, 100, 4096, 4097, 65536, 16384, 33333, 65535, 12, 1500, 60000, 4, 64};
    const int n = sizeof sizes / sizeof sizes[0];
    return sizes[(it * 5 + src * 3) % n];
}

static unsigned char pat(int src, int it, MPI_Aint j) { return (unsigned char)(src * 31 + it * 7 + j * 13 + 1); }

static void stress(int kind)
{
    rma_win w;
    char what[160];
    unsigned char *buf = malloc(MAXS);
    MPI_Request *reqs = malloc(nproc * sizeof(MPI_Request));
    int one = 1;
    int unified = open_ordered(&w, kind, off_slot(nproc), 1, "stress ");
    MPI_Win win = w.win;

    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int it = 0; it < stress_iters; it++) {
        /* origin: to every other process, the data in two puts, then the signal */
        MPI_Aint s = msg_size(rank, it), head = s * 3 / 4;
        for (MPI_Aint j = 0; j < s; j++)
            buf[j] = pat(rank, it, j);
        int nreq = 0;
        for (int d = 1; d < nproc; d++) {
            int t = (rank + d) % nproc;
            if (head > 0)
                CHECK_OK(MPI_Put(buf, (int)head, MPI_BYTE, t, rma_disp(&w, t, off_slot(rank)), (int)head, MPI_BYTE,
                                 win));
            CHECK_OK(MPI_Put(buf + head, (int)(s - head), MPI_BYTE, t, rma_disp(&w, t, off_slot(rank) + head),
                             (int)(s - head), MPI_BYTE, win));
            CHECK_OK(MPI_Raccumulate(&one, 1, MPI_INT, t, rma_disp(&w, t, off_count(rank)), 1, MPI_INT, MPI_SUM, win,
                                     &reqs[nreq++]));
        }
        /* target: as soon as a source's signal is seen, its data must be complete */
        for (int d = 1; d < nproc; d++) {
            int src = (rank + nproc - d) % nproc;
            MPI_Aint ss = msg_size(src, it);
            snprintf(what, sizeof what, "listing2 stress %s: rank %d, iteration %d, %ld bytes from rank %d",
                     rma_kind_name[kind], rank, it, (long)ss, src);
            rmaext_wait_counter(&w, off_count(src), it + 1, unified && (it % 2 == 0), 60, what);
            CHECK_OK(MPI_Win_sync(win));
            const unsigned char *slot = w.base + off_slot(src);
            for (MPI_Aint j = 0; j < ss; j++)
                CHECK(slot[j] == pat(src, it, j),
                      "%s: the signal arrived before the data (mpi_win_order=true): byte %ld is %d, want %d",
                      what, (long)j, slot[j], pat(src, it, j));
            nchecks++;
            nbytes += ss;
        }
        CHECK_OK(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    rma_close(&w);
    free(buf);
    free(reqs);
}

int main(int argc, char **argv)
{
    rmaext_start(&argc, &argv, &rank, &nproc);
    stress_iters = rmaext_arg(argc, argv, stress_iters);
    rmaext_init();
    double t0 = MPI_Wtime();
    for (int k = 0; k < RMA_NKINDS; k++)
        listing(k);
    for (int k = 0; k < RMA_NKINDS; k++)
        stress(k);
    long total = rmaext_total(nchecks), bytes = rmaext_total(nbytes);
    if (rank == 0)
        printf("listing2: np %d, %d window kinds with mpi_win_order=true: %ld signals checked, %ld bytes, the signal "
               "never arrived before the data (%.2f s): PASS\n",
               nproc, RMA_NKINDS, total, bytes, MPI_Wtime() - t0);
    rmaext_fini();
    CHECK_OK(MPI_Finalize());
    return 0;
}
