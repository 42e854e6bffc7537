/* [TC] Listing 4 (MPI_Reduce against OpenMP's reduction clause), unchanged except for
 * #include <omp.h>, in a test program that checks both give the same sum. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <omp.h>

#define N 1024

int main(void)
{
    MPI_Comm comm;
    MPI_Init(NULL, NULL);
    int nprocs, prank;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &prank);
    MPI_Threadcomm_init(MPI_COMM_WORLD, omp_get_max_threads(), &comm);
    int ref[N];
    {
int sum[N];
#undef USE_MPI
#ifdef USE_MPI
#pragma omp parallel
{
    MPI_Threadcomm_start(comm);
    int my[N];
    int tid = omp_get_thread_num();
    for (int i = 0; i < N; i++) my[i] = tid;
    MPI_Reduce(my, sum, N, MPI_INT, MPI_SUM, 0,
               comm);
    MPI_Threadcomm_finish(comm);
}
#else
memset(sum, 0, sizeof sum);
#pragma omp parallel reduction(+:sum[:N])
{
    int tid = omp_get_thread_num();
    for (int i = 0; i < N; i++) sum[i] = tid;
}
#endif
        memcpy(ref, sum, sizeof sum);
    }
    {
int sum[N];
#define USE_MPI
#ifdef USE_MPI
#pragma omp parallel
{
    MPI_Threadcomm_start(comm);
    int my[N];
    int tid = omp_get_thread_num();
    for (int i = 0; i < N; i++) my[i] = tid;
    MPI_Reduce(my, sum, N, MPI_INT, MPI_SUM, 0,
               comm);
    MPI_Threadcomm_finish(comm);
}
#else
#pragma omp parallel reduction(+:sum[:N])
{
    int tid = omp_get_thread_num();
    for (int i = 0; i < N; i++) sum[i] = tid;
}
#endif
        /* Rank 0 of the threadcomm is a thread of process 0; every process gave the
         * same thread ids, so the MPI sum is nprocs times one process's OpenMP sum. */
        int bad = 0;
        if (prank == 0)
            for (int i = 0; i < N; i++)
                if (sum[i] != nprocs * ref[i])
                    bad++;
        if (bad) {
            fprintf(stderr, "FAIL: %d elements differ (sum[0]=%d, want %d)\n", bad, sum[0], nprocs * ref[0]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Threadcomm_free(&comm);
    if (prank == 0)
        printf("listing 4 ok: sum[0]=%d\n", ref[0] * nprocs);
    MPI_Finalize();
    return 0;
}
