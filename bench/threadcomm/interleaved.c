/* interleaved: Figure 5 (MPI_Reduce of 1 Ki ints on a threadcomm, one parallel region
 * per reduction, vs OpenMP's reduction clause) in alternating blocks of R MPI regions
 * and R OpenMP regions, so that both see the same machine state; a noisy machine
 * moves both. Prints the median over blocks of each one's µs per region and of the
 * per-block ratio, with its quartiles (docs/performance.md, sessions 14-15):
 *
 *     mpixcc -O2 -fopenmp -o interleaved bench/threadcomm/interleaved.c
 *     mpixexec -n 1 -env OMP_NUM_THREADS 16 ./interleaved [BLOCKS [R]]
 *
 * BLOCKS defaults to 40 (after 2 not counted), R to 200. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <mpix.h>

#define N 1024

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 40, r = argc > 2 ? atoi(argv[2]) : 200;
    if (blocks < 4)
        blocks = 4;
    if (r < 1)
        r = 200;
    int nt = omp_get_max_threads();
    MPI_Init(&argc, &argv);
    MPI_Comm all;
    MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &all);
    double *mpi = malloc(blocks * sizeof(double)), *omp = malloc(blocks * sizeof(double)),
           *ratio = malloc(blocks * sizeof(double));
    int sum[N];
    for (int b = -2; b < blocks; b++) {
        double t0 = MPI_Wtime();
        for (int it = 0; it < r; it++) {
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
        for (int it = 0; it < r; it++) {
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
        if (b >= 0) {
            mpi[b] = (t1 - t0) / r * 1e6;
            omp[b] = (t2 - t1) / r * 1e6;
            ratio[b] = mpi[b] / omp[b];
        }
    }
    qsort(mpi, blocks, sizeof(double), by_value);
    qsort(omp, blocks, sizeof(double), by_value);
    qsort(ratio, blocks, sizeof(double), by_value);
    printf("interleaved threads %d mpi_us %.3f omp_us %.3f ratio_median %.2f ratio_p25 %.2f ratio_p75 %.2f\n", nt,
           mpi[blocks / 2], omp[blocks / 2], ratio[blocks / 2], ratio[blocks / 4], ratio[3 * blocks / 4]);
    free(mpi);
    free(omp);
    free(ratio);
    MPIX_Threadcomm_free(&all);
    MPI_Finalize();
    return 0;
}
