/* rma_busy_target: passive-target progress, after Figure 5 of "Quo Vadis MPI RMA?"
 * (Schuchart et al., EuroMPI'21). On each window kind, inside MPI_Win_lock_all, rank 0
 * does N single-byte MPI_Put + MPI_Win_flush pairs to rank 1:
 *   busy: while rank 1 is outside MPI for BUSY seconds (a loop on clock_gettime, no
 *         MPI call);
 *   idle: while rank 1 waits in MPI_Barrier.
 * Rank 0 prints the latency per put+flush in microseconds for both; a busy figure
 * above BUSY / N means the origin could not progress until the target entered MPI. As
 * a test it checks only that every byte arrived: the timings are a benchmark figure,
 * not an assertion. Other ranks wait in the barriers.
 * Arguments: N (default 20000), BUSY in seconds (default 3). */
#include <time.h>
#include "rma_util.h"

#define W 4096 /* bytes per window: the busy phase writes the first half, idle the second */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned char val(long i, int phase, int kind) { return (unsigned char)(i * 7 + phase * 31 + kind * 5 + 1); }

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 processes");
    long n = argc > 1 ? atol(argv[1]) : 20000;
    double busy = argc > 2 ? atof(argv[2]) : 3.0;
    CHECK(n > 0 && busy >= 0, "usage: rma_busy_target [N [BUSY_SECONDS]]");
    double lat[RMA_NKINDS][2];
    int progressed[RMA_NKINDS];
    for (int k = 0; k < RMA_NKINDS; k++) {
        rma_win w;
        rma_open(&w, k, W, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
        CHECK_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        rma_local_begin(&w);
        memset(w.base, 0, W);
        rma_local_end(&w);
        /* before anyone's lock_all: it may hold a shared lock on a rank still waiting
         * for its exclusive lock on itself */
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Win_lock_all(0, w.win));
        for (int phase = 0; phase < 2; phase++) {
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 0) {
                double t0 = now();
                for (long i = 0; i < n; i++) {
                    unsigned char v = val(i, phase, k);
                    MPI_Aint off = phase * (W / 2) + i % (W / 2);
                    CHECK_OK(MPI_Put(&v, 1, MPI_BYTE, 1, rma_disp(&w, 1, off), 1, MPI_BYTE, w.win));
                    CHECK_OK(MPI_Win_flush(1, w.win));
                }
                double t = now() - t0;
                lat[k][phase] = t / n * 1e6;
                if (phase == 0)
                    progressed[k] = t < busy;
            } else if (rank == 1 && phase == 0) {
                double t0 = now();
                while (now() - t0 < busy)
                    ; /* outside MPI */
            }
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
        if (rank == 1) {
            CHECK_OK(MPI_Win_sync(w.win));
            for (int phase = 0; phase < 2; phase++)
                for (long o = 0; o < W / 2 && o < n; o++) {
                    long last = o + ((n - 1 - o) / (W / 2)) * (W / 2); /* the last i that wrote o */
                    unsigned char got = w.base[phase * (W / 2) + o];
                    CHECK(got == val(last, phase, k), "%s: %s phase: byte %ld is %#x, want %#x (put %ld)", rma_kind_name[k],
                          phase ? "idle" : "busy", o, got, val(last, phase, k), last);
                }
        }
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Win_unlock_all(w.win));
        rma_close(&w);
    }
    if (rank == 0) {
        printf("rma_busy_target: np %d, %ld single-byte put+flush per phase, target busy %.1f s; us per put+flush:\n", size,
               n, busy);
        for (int k = 0; k < RMA_NKINDS; k++)
            printf("  %-17s busy %9.3f  idle %9.3f  %s\n", rma_kind_name[k], lat[k][0], lat[k][1],
                   progressed[k] ? "(progress while the target was busy)"
                                 : "(no progress: finished after the target's busy period)");
        printf("rma_busy_target: data arrived on %d window kinds\n", RMA_NKINDS);
    }
    CHECK_OK(MPI_Finalize());
    return 0;
}
