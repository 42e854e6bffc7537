/* regions: where a threadcomm region's time goes, against OpenMP's (the reduce ratio
 * that docs/performance.md reports). Rounds of five loops of parallel regions, each
 * region:
 *   empty      fills a 1 Ki-int array (as the reduce loops do), nothing else;
 *   start+fin  the same between MPIX_Threadcomm_start and _finish;
 *   s+bar+f    plus an MPI_Barrier;
 *   s+red+f    plus MPI_Reduce of the array to rank 0 (bench/threadcomm's Figure 5);
 *   omp-red    OpenMP's reduction(+ : sum[:1024]) instead.
 * Prints the median over rounds of each loop's time per region and the reduce
 * ratio; subtract "empty" to get each part's cost.
 *
 *     mpixcc -O2 -fopenmp -o regions bench/threadcomm/regions.c
 *     mpixexec -n 1 -env OMP_NUM_THREADS 2 ./regions [REGIONS [ROUNDS]]
 *
 * Compare two builds by alternating runs with -env LD_PRELOAD. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <mpix.h>

#define N 1024
#define MAXROUNDS 64
enum { EMPTY, START_FINISH, BARRIER, REDUCE, OMP_REDUCE, LOOPS };
static const char *names[LOOPS] = {"empty", "start+fin", "s+bar+f", "s+red+f", "omp-red"};

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* fill writes the thread's array, and keeps the compiler from dropping it. */
static void fill(int *my, int tid)
{
    for (int i = 0; i < N; i++)
        my[i] = tid;
    __asm__ volatile("" : : "r"(my) : "memory");
}

int main(int argc, char **argv)
{
    int nt = omp_get_max_threads();
    long regions = argc > 1 ? atol(argv[1]) : 2000;
    int rounds = argc > 2 ? atoi(argv[2]) : 15;
    if (rounds < 1 || rounds > MAXROUNDS)
        rounds = 15;
    MPI_Init(&argc, &argv);
    MPI_Comm all;
    MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &all);
    int sum[N];
    double t[LOOPS][MAXROUNDS];
    for (int r = 0; r < rounds; r++) {
        for (int loop = 0; loop < LOOPS; loop++) {
            double t0 = MPI_Wtime();
            for (long it = 0; it < regions; it++) {
                if (loop == OMP_REDUCE) {
                    memset(sum, 0, sizeof sum);
#pragma omp parallel num_threads(nt) reduction(+ : sum[:N])
                    fill(sum, omp_get_thread_num());
                    continue;
                }
#pragma omp parallel num_threads(nt)
                {
                    int my[N];
                    if (loop != EMPTY)
                        MPIX_Threadcomm_start(all);
                    fill(my, omp_get_thread_num());
                    if (loop == BARRIER)
                        MPI_Barrier(all);
                    if (loop == REDUCE)
                        MPI_Reduce(my, sum, N, MPI_INT, MPI_SUM, 0, all);
                    if (loop != EMPTY)
                        MPIX_Threadcomm_finish(all);
                }
            }
            t[loop][r] = (MPI_Wtime() - t0) / regions;
        }
    }
    for (int loop = 0; loop < LOOPS; loop++) {
        qsort(t[loop], rounds, sizeof(double), cmp);
        printf("%-10s %.3f us\n", names[loop], t[loop][rounds / 2] * 1e6);
    }
    printf("ratio red/omp %.3f\n", t[REDUCE][rounds / 2] / t[OMP_REDUCE][rounds / 2]);
    MPIX_Threadcomm_free(&all);
    MPI_Finalize();
    return 0;
}
