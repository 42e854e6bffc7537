/* What the threadcomm benchmarks share (bench/threadcomm/threadcomm.c, interleaved.c,
 * collectives.c): Figure 5's two loops, and a comparison for qsort. */
#ifndef MPIX_BENCH_FIGURE5_H
#define MPIX_BENCH_FIGURE5_H
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include <mpix.h>

#define FIGURE5_N 1024

/* figure5 runs the paper's Listing 4 both ways, regions times each, region entry and
 * exit included: nt threads reduce 1 Ki ints with MPI_Reduce on threadcomm all, then
 * with OpenMP's reduction clause. It stores each way's seconds in *mpi and *omp and
 * reports on stderr if the two sums differ. */
static inline void figure5(MPI_Comm all, int nt, long regions, double *mpi, double *omp)
{
    int sum[FIGURE5_N];
    double t0 = MPI_Wtime();
    for (long it = 0; it < regions; it++) {
#pragma omp parallel num_threads(nt)
        {
            MPIX_Threadcomm_start(all);
            int my[FIGURE5_N];
            int tid = omp_get_thread_num();
            for (int i = 0; i < FIGURE5_N; i++)
                my[i] = tid;
            MPI_Reduce(my, sum, FIGURE5_N, MPI_INT, MPI_SUM, 0, all);
            MPIX_Threadcomm_finish(all);
        }
    }
    double t1 = MPI_Wtime();
    int check = sum[FIGURE5_N - 1];
    for (long it = 0; it < regions; it++) {
        memset(sum, 0, sizeof sum);
#pragma omp parallel num_threads(nt) reduction(+ : sum[:FIGURE5_N])
        {
            int tid = omp_get_thread_num();
            for (int i = 0; i < FIGURE5_N; i++)
                sum[i] = tid;
        }
    }
    double t2 = MPI_Wtime();
    if (check != sum[FIGURE5_N - 1])
        fprintf(stderr, "reduce mismatch: %d vs %d\n", check, sum[FIGURE5_N - 1]);
    *mpi = t1 - t0;
    *omp = t2 - t1;
}

static inline int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
