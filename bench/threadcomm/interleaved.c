/* interleaved: Figure 5 (MPI_Reduce of 1 Ki ints on a threadcomm, one parallel region
 * per reduction, vs OpenMP's reduction clause) in alternating blocks of R MPI regions
 * and R OpenMP regions, so that both see the same machine state; a noisy machine
 * moves both. Prints the median over blocks of each one's µs per region and of the
 * per-block ratio, with its quartiles (docs/performance.md, "Thread communicators"):
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
#include "figure5.h"

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
    for (int b = -2; b < blocks; b++) {
        double tm, to;
        figure5(all, nt, r, &tm, &to);
        if (b >= 0) {
            mpi[b] = tm / r * 1e6;
            omp[b] = to / r * 1e6;
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
