/* msgrate: message rate of one sender/receiver pair (osu_mbw_mr style with one pair):
 * rank 0 posts a window of WINDOW nonblocking sends of SIZE bytes (default 64 and 8),
 * rank 1 a window of matching receives, both wait for all, then rank 1 sends a
 * zero-byte acknowledgement; prints "msgrate SIZE MILLION_MESSAGES_PER_SECOND" on rank 0.
 *
 *     msgrate [SIZE [WINDOW [SECONDS [MAXITERS]]]]
 *
 * After 20 warm-up windows, windows are timed in chunks of 16 until SECONDS (default
 * 0.3) have passed or MAXITERS windows (default 100000) were sent: after each chunk
 * rank 0 tells rank 1 whether to go on (one extra message per 1024). Ranks other than
 * 0 and 1 only initialize and finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static long size;
static int window, rank;
static char *buf;
static MPI_Request *reqs;

static void windows(long count)
{
    for (long i = 0; i < count; i++) {
        if (rank == 0) {
            for (int w = 0; w < window; w++)
                MPI_Isend(buf + w * size, size, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int w = 0; w < window; w++)
                MPI_Irecv(buf + w * size, size, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    size = argc > 1 ? atol(argv[1]) : 8;
    window = argc > 2 ? atoi(argv[2]) : 64;
    double target = argc > 3 ? atof(argv[3]) : 0.3;
    long maxiters = argc > 4 ? atol(argv[4]) : 100000, iters = 0;
    const long warm = 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf = malloc(size * window + 1);
    memset(buf, 1, size * window + 1);
    reqs = malloc(window * sizeof *reqs);
    const long chunk = 16;
    windows(warm);
    double t0 = MPI_Wtime(), secs = 0;
    for (int more = 1; more;) {
        windows(chunk);
        iters += chunk;
        if (rank == 0) {
            secs = MPI_Wtime() - t0;
            more = secs < target && iters < maxiters;
            MPI_Send(&more, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&more, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            more = 0;
        }
    }
    if (rank == 0)
        printf("msgrate %ld %.4f\n", size, (double)iters * window / secs / 1e6);
    free(reqs);
    free(buf);
    MPI_Finalize();
    return 0;
}
