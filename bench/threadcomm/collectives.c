/* collectives: the cost of threadcomm collectives inside one parallel region, back to
 * back, in µs per call (median of 5 batches of ITERS calls, as rank 0 times them), with
 * OpenMP's barrier and an OpenMP "allreduce" of one int (an atomic add between two
 * barriers) beside them (docs/performance.md, "Thread communicators"):
 *
 *     mpixcc -O2 -fopenmp -o collectives bench/threadcomm/collectives.c
 *     mpixexec -n 1 -env OMP_NUM_THREADS 16 ./collectives [ITERS]
 *
 * ITERS defaults to 2000. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <mpix.h>
#include "figure5.h"

#define N 1024
#define BATCHES 5

enum { BARRIER, BCAST, ALLREDUCE, ALLREDUCE_1KI, REDUCE_1KI, ALLGATHER, ALLTOALL, SCAN, OMP_BARRIER, OMP_SUM, CASES };
static const char *const names[CASES] = {"Barrier",      "Bcast_int",     "Allreduce_int", "Allreduce_1Ki",
                                         "Reduce_1Ki",   "Allgather_int", "Alltoall_int",  "Scan_int",
                                         "omp_barrier",  "omp_atomic_sum_int"};

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 2000;
    if (iters < 1)
        iters = 2000;
    int nt = omp_get_max_threads();
    MPI_Init(&argc, &argv);
    MPI_Comm tc;
    MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &tc);
    static double took[CASES][BATCHES];
    static int shared;
#pragma omp parallel num_threads(nt)
    {
        MPIX_Threadcomm_start(tc);
        int rank;
        MPI_Comm_rank(tc, &rank);
        int in[N], out[N], *mine = malloc(sizeof(int) * nt), *theirs = malloc(sizeof(int) * nt);
        for (int i = 0; i < N; i++)
            in[i] = rank + i;
        for (int i = 0; i < nt; i++)
            mine[i] = rank;
        for (int c = 0; c < CASES; c++)
            for (int b = 0; b < BATCHES; b++) {
                MPI_Barrier(tc);
                double t0 = MPI_Wtime();
                for (long it = 0; it < iters; it++)
                    switch (c) {
                    case BARRIER: MPI_Barrier(tc); break;
                    case BCAST: MPI_Bcast(out, 1, MPI_INT, (int)(it % nt), tc); break;
                    case ALLREDUCE: MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, tc); break;
                    case ALLREDUCE_1KI: MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, tc); break;
                    case REDUCE_1KI: MPI_Reduce(in, out, N, MPI_INT, MPI_SUM, 0, tc); break;
                    case ALLGATHER: MPI_Allgather(in, 1, MPI_INT, theirs, 1, MPI_INT, tc); break;
                    case ALLTOALL: MPI_Alltoall(mine, 1, MPI_INT, theirs, 1, MPI_INT, tc); break;
                    case SCAN: MPI_Scan(in, out, 1, MPI_INT, MPI_SUM, tc); break;
                    case OMP_BARRIER: {
#pragma omp barrier
                    } break;
                    case OMP_SUM: {
                        __atomic_fetch_add(&shared, in[0], __ATOMIC_RELAXED);
#pragma omp barrier
                        out[0] = __atomic_load_n(&shared, __ATOMIC_RELAXED);
#pragma omp barrier
                    } break;
                    }
                if (rank == 0)
                    took[c][b] = (MPI_Wtime() - t0) / iters * 1e6;
            }
        free(mine);
        free(theirs);
        MPIX_Threadcomm_finish(tc);
    }
    printf("collectives threads %d:", nt);
    for (int c = 0; c < CASES; c++) {
        qsort(took[c], BATCHES, sizeof(double), by_value);
        printf(" %s=%.3f", names[c], took[c][BATCHES / 2]);
    }
    printf("\n");
    MPIX_Threadcomm_free(&tc);
    MPI_Finalize();
    return 0;
}
