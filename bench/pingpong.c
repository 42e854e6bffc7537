/* pingpong: one-way latency between ranks 0 and 1 (half the round-trip time), for
 * message sizes from 1 byte to 4 MiB; prints "latency SIZE MICROSECONDS". Built once
 * against each MPI (mpixcc, mpicc.mpich, mpicc.openmpi) by bench/p2p.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    long maxsize = argc > 1 ? atol(argv[1]) : 4 << 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = malloc(maxsize);
    memset(buf, rank, maxsize);
    for (long size = 1; size <= maxsize; size *= (size < 64 ? 8 : 4)) {
        int iters = size <= 65536 ? 20000 : 400, warm = iters / 10;
        double t0 = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm) {
                t0 = MPI_Wtime();
            }
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
