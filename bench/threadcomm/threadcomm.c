/* threadcomm: the EuroMPI'23 paper's Figures 3-5 on one process.
 *   latency/bandwidth between two threads of a threadcomm (Figure 3), with the sizes,
 *     iterations, warm-up and window of bench/pingpong.c and bench/bandwidth.c, whose
 *     two-process numbers (mpix, MPICH, Open MPI) they compare with,
 *   MPI_Barrier on a threadcomm vs #pragma omp barrier (Figure 4),
 *   MPI_Reduce of 1 Ki ints on a threadcomm vs OpenMP's reduction clause, each
 *     including the parallel region's entry and exit (Figure 5).
 * Prints "latency SIZE US", "bandwidth SIZE MB/s" (1 MB = 10^6 bytes),
 * "barrier mpi|omp THREADS US", "reduce mpi|omp THREADS US", and the ratios the
 * paper's comparison is about: "barrier ratio THREADS X" (mpi/omp, target <= 1.5) and
 * "reduce ratio THREADS X" (mpi/omp, target < 1). The latency and bandwidth targets
 * compare with MPICH's two processes: 8-byte latency <= 0.6x, 1 MiB bandwidth >= 1.5x.
 *
 *     mpixexec -n 1 -env OMP_NUM_THREADS 2 build/bench/threadcomm [ITERS [MAXSIZE]]
 *
 * ITERS (default 10000) is pingpong.c's base iteration count; bandwidth uses ITERS/100
 * windows (bandwidth.c's default 100); MAXSIZE defaults to 1 MiB. (README:
 * "Benchmarks"). Needs mpix (threadcomm is an mpix/MPICH extension). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <mpix.h>
#include "figure5.h"

#define WINDOW 64

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 10000;
    long maxsize = argc > 2 ? atol(argv[2]) : 1 << 20;
    int nt = omp_get_max_threads();
    MPI_Init(&argc, &argv);
    MPI_Comm pair, all;
    MPIX_Threadcomm_init(MPI_COMM_SELF, 2, &pair);
    MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &all);

    /* Figure 3: pingpong, then streaming bandwidth, between two threads. */
    char *sbuf = malloc(maxsize), *rbuf = malloc(maxsize * WINDOW);
    memset(sbuf, 0, maxsize);
    memset(rbuf, 1, maxsize * WINDOW);
    long bwbase = iters / 100 > 0 ? iters / 100 : 1;
#pragma omp parallel num_threads(2)
    {
        int rank;
        MPIX_Threadcomm_start(pair);
        MPI_Comm_rank(pair, &rank);
        char *buf = rank == 0 ? sbuf : rbuf;
        for (long size = 1; size <= maxsize; size *= (size < 64 ? 8 : 4)) {
            long n = size <= 4096 ? iters : iters * 4096 / size;
            if (n < 20)
                n = 20;
            long warm = n / 10;
            double t0 = 0;
            MPI_Barrier(pair);
            for (long i = 0; i < n + warm; i++) {
                if (i == warm)
                    t0 = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(buf, size, MPI_BYTE, 1, 1, pair);
                    MPI_Recv(buf, size, MPI_BYTE, 1, 1, pair, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, size, MPI_BYTE, 0, 1, pair, MPI_STATUS_IGNORE);
                    MPI_Send(buf, size, MPI_BYTE, 0, 1, pair);
                }
            }
            double lat = (MPI_Wtime() - t0) / n / 2;
            /* A window of 64 nonblocking sends into 64 distinct receive buffers, then
             * a zero-byte acknowledgement. */
            MPI_Request rq[WINDOW];
            long w = size <= 65536 ? bwbase : bwbase * 65536 / size;
            if (w < 3)
                w = 3;
            long bwarm = w < 10 ? 1 : 5;
            MPI_Barrier(pair);
            double t1 = 0;
            for (long i = 0; i < w + bwarm; i++) {
                if (i == bwarm)
                    t1 = MPI_Wtime();
                if (rank == 0) {
                    for (int j = 0; j < WINDOW; j++)
                        MPI_Isend(buf, size, MPI_BYTE, 1, 2, pair, &rq[j]);
                    MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
                    MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, pair, MPI_STATUS_IGNORE);
                } else {
                    for (int j = 0; j < WINDOW; j++)
                        MPI_Irecv(buf + j * size, size, MPI_BYTE, 0, 2, pair, &rq[j]);
                    MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 3, pair);
                }
            }
            double bw = (double)size * WINDOW * w / (MPI_Wtime() - t1) / 1e6;
            if (rank == 0)
                printf("latency %ld %.3f\nbandwidth %ld %.1f\n", size, lat * 1e6, size, bw);
        }
        MPIX_Threadcomm_finish(pair);
    }

    /* Figure 4: barrier. */
    double tm = 0, to = 0;
#pragma omp parallel num_threads(nt)
    {
        MPIX_Threadcomm_start(all);
        MPI_Barrier(all);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++)
            MPI_Barrier(all);
        double t1 = MPI_Wtime();
        for (long i = 0; i < iters; i++) {
#pragma omp barrier
        }
        double t2 = MPI_Wtime();
#pragma omp master
        tm = (t1 - t0) / iters, to = (t2 - t1) / iters;
        MPIX_Threadcomm_finish(all);
    }
    printf("barrier mpi %d %.3f\nbarrier omp %d %.3f\nbarrier ratio %d %.2f\n", nt, tm * 1e6, nt, to * 1e6, nt,
           tm / to);

    /* Figure 5: reduce 1 Ki ints, region entry and exit included. */
    long riters = iters / 10 + 1;
    double rm, ro;
    figure5(all, nt, riters, &rm, &ro);
    printf("reduce mpi %d %.3f\nreduce omp %d %.3f\nreduce ratio %d %.2f\n", nt, rm / riters * 1e6, nt,
           ro / riters * 1e6, nt, rm / ro);

    free(sbuf);
    free(rbuf);
    MPIX_Threadcomm_free(&pair);
    MPIX_Threadcomm_free(&all);
    MPI_Finalize();
    return 0;
}
