/* threadcomm: the EuroMPI'23 paper's Figures 3-5 on one process.
 *   latency/bandwidth between two threads of a threadcomm (Figure 3; compare with
 *     bench/pingpong and bench/bandwidth on two processes),
 *   MPI_Barrier on a threadcomm vs #pragma omp barrier (Figure 4),
 *   MPI_Reduce of 1 Ki ints on a threadcomm vs OpenMP's reduction clause, each
 *     including the parallel region's entry and exit (Figure 5).
 * Prints "latency SIZE US", "bandwidth SIZE MBPS", "barrier mpi|omp THREADS US",
 * "reduce mpi|omp THREADS US".
 *
 *     mpixexec -n 1 -env OMP_NUM_THREADS 2 build/bench/threadcomm [ITERS]
 *
 * (README: "Benchmarks"). Needs mpix (threadcomm is an mpix/MPICH extension). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <mpix.h>

#define N 1024

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 10000;
    int nt = omp_get_max_threads();
    MPI_Init(&argc, &argv);
    MPI_Comm pair, all;
    MPIX_Threadcomm_init(MPI_COMM_SELF, 2, &pair);
    MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &all);

    /* Figure 3: pingpong between two threads. */
    long maxsize = 1 << 20;
    char *bufs[2] = {malloc(maxsize), malloc(maxsize)};
#pragma omp parallel num_threads(2)
    {
        int rank;
        MPIX_Threadcomm_start(pair);
        MPI_Comm_rank(pair, &rank);
        char *buf = bufs[rank];
        memset(buf, rank, maxsize);
        for (long size = 8; size <= maxsize; size *= 4) {
            long n = size <= 4096 ? iters : iters * 4096 / size;
            if (n < 20)
                n = 20;
            MPI_Barrier(pair);
            double t0 = MPI_Wtime();
            for (long i = 0; i < n; i++) {
                if (rank == 0) {
                    MPI_Send(buf, size, MPI_BYTE, 1, 1, pair);
                    MPI_Recv(buf, size, MPI_BYTE, 1, 1, pair, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, size, MPI_BYTE, 0, 1, pair, MPI_STATUS_IGNORE);
                    MPI_Send(buf, size, MPI_BYTE, 0, 1, pair);
                }
            }
            double lat = (MPI_Wtime() - t0) / n / 2;
            /* Bandwidth: a window of 64 nonblocking sends, then one acknowledgement. */
            MPI_Request rq[64];
            long w = n / 8 + 1;
            MPI_Barrier(pair);
            double t1 = MPI_Wtime();
            for (long i = 0; i < w; i++) {
                int k = size <= 65536 ? 64 : 8;
                for (int j = 0; j < k; j++) {
                    if (rank == 0)
                        MPI_Isend(buf, size, MPI_BYTE, 1, 2, pair, &rq[j]);
                    else
                        MPI_Irecv(buf, size, MPI_BYTE, 0, 2, pair, &rq[j]);
                }
                MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
                if (i == w - 1)
                    MPI_Sendrecv(NULL, 0, MPI_BYTE, 1 - rank, 3, NULL, 0, MPI_BYTE, 1 - rank, 3, pair, MPI_STATUS_IGNORE);
            }
            double bw = (double)size * w * (size <= 65536 ? 64 : 8) / (MPI_Wtime() - t1) / 1e6;
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
    printf("barrier mpi %d %.3f\nbarrier omp %d %.3f\n", nt, tm * 1e6, nt, to * 1e6);

    /* Figure 5: reduce 1 Ki ints, region entry and exit included. */
    int sum[N];
    long riters = iters / 10 + 1;
    double t0 = MPI_Wtime();
    for (long it = 0; it < riters; it++) {
#pragma omp parallel num_threads(nt)
        {
            MPIX_Threadcomm_start(all);
            int my[N];
            int tid = omp_get_thread_num();
            for (int i = 0; i < N; i++)
                my[i] = tid;
            MPI_Reduce(my, sum, N, MPI_INT, MPI_SUM, 0, all);
            MPIX_Threadcomm_finish(all);
        }
    }
    double t1 = MPI_Wtime();
    int check = sum[N - 1];
    for (long it = 0; it < riters; it++) {
        memset(sum, 0, sizeof sum);
#pragma omp parallel num_threads(nt) reduction(+ : sum[:N])
        {
            int tid = omp_get_thread_num();
            for (int i = 0; i < N; i++)
                sum[i] = tid;
        }
    }
    double t2 = MPI_Wtime();
    if (check != sum[N - 1])
        fprintf(stderr, "reduce mismatch: %d vs %d\n", check, sum[N - 1]);
    printf("reduce mpi %d %.3f\nreduce omp %d %.3f\n", nt, (t1 - t0) / riters * 1e6, nt, (t2 - t1) / riters * 1e6);

    MPIX_Threadcomm_free(&pair);
    MPIX_Threadcomm_free(&all);
    MPI_Finalize();
    return 0;
}
