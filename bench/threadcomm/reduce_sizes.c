/* reduce_sizes: MPI_Reduce on a threadcomm, back to back inside one region, across
 * sizes (docs/performance.md, "Reductions inside one region"). Unlike Figure 5's
 * loop (bench/threadcomm/threadcomm.c, one region per reduction), the threads arrive
 * at each reduction together, as in an iterative solver. Each thread rewrites one
 * int per cache line of its input between reductions, so that the input lives in its
 * own core's cache as a freshly computed one would. Prints the best of ROUNDS rounds
 * per size, in µs per reduction, then a scalar MPI_Allreduce's next to MPI_Barrier's:
 *
 *     mpixcc -O2 -fopenmp -o reduce_sizes bench/threadcomm/reduce_sizes.c
 *     mpixexec -n 1 -env OMP_NUM_THREADS 2 ./reduce_sizes [ROUNDS]
 *
 * Compare builds by alternating runs with -env LD_PRELOAD. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <mpix.h>

#define MAXN 65536

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1)
        rounds = 5;
    MPI_Init(&argc, &argv);
    int nt = omp_get_max_threads();
    MPI_Comm all;
    MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &all);
    static const int sizes[] = {256, 1024, 2048, 4096, 8192, 16384, MAXN};
    static int sum[MAXN];
    int bad = 0;
    for (unsigned si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int n = sizes[si];
        int reps = 4000000 / n;
        if (reps > 20000)
            reps = 20000;
        if (reps < 200)
            reps = 200;
        double best = 1e30;
        for (int round = 0; round < rounds; round++) {
            double t0 = 0, t1 = 0;
#pragma omp parallel num_threads(nt)
            {
                MPIX_Threadcomm_start(all);
                int rank;
                MPI_Comm_rank(all, &rank);
                int *my = malloc((size_t)n * sizeof *my);
                for (int i = 0; i < n; i++)
                    my[i] = rank;
                MPI_Barrier(all);
                if (rank == 0)
                    t0 = MPI_Wtime();
                for (int r = 0; r < reps; r++) {
                    for (int i = 0; i < n; i += 16)
                        my[i] = rank + r;
                    MPI_Reduce(my, sum, n, MPI_INT, MPI_SUM, 0, all);
                }
                MPI_Barrier(all);
                if (rank == 0) {
                    t1 = MPI_Wtime();
                    /* the last reduction: element 0 is sum(rank + reps - 1), the others sum(rank) */
                    long want0 = (long)nt * (nt - 1) / 2 + (long)nt * (reps - 1), want1 = (long)nt * (nt - 1) / 2;
                    if (sum[0] != want0 || (n > 1 && sum[1] != want1))
                        bad = 1;
                }
                free(my);
                MPIX_Threadcomm_finish(all);
            }
            double us = (t1 - t0) / reps * 1e6;
            if (us < best)
                best = us;
        }
        printf("reduce %d threads %6d ints %7d bytes %.3f us\n", nt, n, n * 4, best);
    }
    /* A scalar MPI_Allreduce (a dot product's), back to back, against MPI_Barrier: the
     * seats' one round (threadcomm/coll.c: seat_small) should cost about a barrier. */
    double best_ar = 1e30, best_bar = 1e30;
    for (int round = 0; round < rounds; round++) {
        double t0 = 0, t1 = 0, t2 = 0;
#pragma omp parallel num_threads(nt)
        {
            MPIX_Threadcomm_start(all);
            int rank;
            MPI_Comm_rank(all, &rank);
            double x = rank, s = 0;
            MPI_Barrier(all);
            if (rank == 0)
                t0 = MPI_Wtime();
            for (int r = 0; r < 20000; r++) {
                x += 1;
                MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, all);
            }
            if (rank == 0)
                t1 = MPI_Wtime();
            for (int r = 0; r < 20000; r++)
                MPI_Barrier(all);
            if (rank == 0)
                t2 = MPI_Wtime();
            /* the last: sum(rank + 20000) */
            if (s != (double)nt * (nt - 1) / 2 + (double)nt * 20000) {
#pragma omp atomic write
                bad = 1;
            }
            MPIX_Threadcomm_finish(all);
        }
        if ((t1 - t0) / 20000 * 1e6 < best_ar)
            best_ar = (t1 - t0) / 20000 * 1e6;
        if ((t2 - t1) / 20000 * 1e6 < best_bar)
            best_bar = (t2 - t1) / 20000 * 1e6;
    }
    printf("allreduce %d threads 1 double %.3f us (barrier %.3f us)\n", nt, best_ar, best_bar);
    if (bad)
        fprintf(stderr, "reduce_sizes: wrong sum\n");
    MPIX_Threadcomm_free(&all);
    MPI_Finalize();
    return bad;
}
