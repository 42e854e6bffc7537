/* collectives: latency of MPI_Barrier, MPI_Bcast of 8 bytes, MPI_Allreduce of 8 bytes
 * (one double) and of 64 KiB (8192 doubles) on MPI_COMM_WORLD, osu_latency style: the
 * time per call averaged over the timed calls on each rank, then over the ranks. Prints
 * "collective OPERATION MICROSECONDS" on rank 0, one line per operation.
 *
 *     collectives [SECONDS [MAXITERS]]
 *
 * Each operation is warmed up with 10 calls; from their duration rank 0 picks how many
 * calls fill about SECONDS (default 0.2; at least 10, at most MAXITERS, default 10000)
 * and broadcasts the count, so that oversubscribed runs stay short. The bcast root
 * rotates. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

enum { BARRIER, BCAST8, ALLREDUCE8, ALLREDUCE64K, NOPS };
static const char *names[NOPS] = {"barrier", "bcast_8B", "allreduce_8B", "allreduce_64KiB"};

static int size;
static double *in, *out;
static const int n = 65536 / sizeof(double);

static void call(int op, long i)
{
    switch (op) {
    case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case BCAST8:
        MPI_Bcast(in, 1, MPI_DOUBLE, (int)(i % size), MPI_COMM_WORLD);
        break;
    case ALLREDUCE8:
        MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLREDUCE64K:
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
}

int main(int argc, char **argv)
{
    int rank;
    double target = argc > 1 ? atof(argv[1]) : 0.2;
    long maxiters = argc > 2 ? atol(argv[2]) : 10000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in = malloc(n * sizeof *in);
    out = malloc(n * sizeof *out);
    for (int i = 0; i < n; i++)
        in[i] = rank + i;
    for (int op = 0; op < NOPS; op++) {
        const long warm = 10;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < warm; i++)
            call(op, i);
        long iters = (long)(target / ((MPI_Wtime() - t0) / warm));
        if (iters < 10)
            iters = 10;
        if (iters > maxiters)
            iters = maxiters;
        MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++)
            call(op, i);
        double us = (MPI_Wtime() - t0) * 1e6 / iters, sum = 0;
        MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("collective %s %.3f\n", names[op], sum / size);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
