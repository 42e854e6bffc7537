/* bandwidth: streaming bandwidth from rank 0 to rank 1 (osu_bw style): a window of
 * 64 nonblocking sends into 64 distinct receive buffers, then a zero-byte
 * acknowledgement; for sizes from 1 byte to MAXSIZE (default 4 MiB) prints
 * "bandwidth SIZE MB/s" (1 MB = 10^6 bytes) on rank 0.
 *
 *     bandwidth [MAXSIZE [ITERS]]
 *
 * ITERS (default 100) windows are timed for sizes up to 64 KiB, proportionally fewer
 * above (at least 3), after a few warm-up windows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define WINDOW 64

int main(int argc, char **argv)
{
    int rank;
    long maxsize = argc > 1 ? atol(argv[1]) : 4 << 20;
    long base = argc > 2 ? atol(argv[2]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = malloc(maxsize * (rank == 1 ? WINDOW : 1));
    memset(buf, 1, maxsize * (rank == 1 ? WINDOW : 1));
    MPI_Request reqs[WINDOW];
    for (long size = 1; size <= maxsize; size *= (size < 64 ? 8 : 4)) {
        long iters = size <= 65536 ? base : base * 65536 / size;
        if (iters < 3)
            iters = 3;
        long warm = iters < 10 ? 1 : 5;
        double t0 = 0;
        for (long i = 0; i < iters + warm; i++) {
            if (i == warm)
                t0 = MPI_Wtime();
            if (rank == 0) {
                for (int w = 0; w < WINDOW; w++)
                    MPI_Isend(buf, size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[w]);
                MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (int w = 0; w < WINDOW; w++)
                    MPI_Irecv(buf + w * size, size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[w]);
                MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
            }
        }
        double secs = MPI_Wtime() - t0;
        if (rank == 0)
            printf("bandwidth %ld %.3f\n", size, (double)size * WINDOW * iters / secs / 1e6);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
