/* pingpong: one-way latency between ranks 0 and 1 (half the round-trip time of a
 * blocking send/receive pair), for message sizes from 1 byte to MAXSIZE (default 4 MiB);
 * prints "latency SIZE MICROSECONDS" on rank 0.
 *
 *     pingpong [MAXSIZE [ITERS]]
 *
 * ITERS (default 10000) round trips are timed for sizes up to 4 KiB, proportionally
 * fewer above (at least 20), after 10% warm-up round trips. Built once against each MPI
 * (mpixcc, mpicc.mpich, mpicc.openmpi) and run by bench/driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    long maxsize = argc > 1 ? atol(argv[1]) : 4 << 20;
    long base = argc > 2 ? atol(argv[2]) : 10000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = malloc(maxsize);
    memset(buf, rank, maxsize);
    for (long size = 1; size <= maxsize; size *= (size < 64 ? 8 : 4)) {
        long iters = size <= 4096 ? base : base * 4096 / size;
        if (iters < 20)
            iters = 20;
        long warm = iters / 10;
        double t0 = 0;
        for (long i = 0; i < iters + warm; i++) {
            if (i == warm)
                t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        double us = (MPI_Wtime() - t0) * 1e6 / iters / 2;
        if (rank == 0)
            printf("latency %ld %.3f\n", size, us);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
