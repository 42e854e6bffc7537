/* [TC] Listing 3 (MPI_Barrier in place of #pragma omp barrier), unchanged except for
 * #include <omp.h>, inside a test program: both variants run, and a shared counter
 * shows that no thread passes the barrier before all have arrived. */
#include <mpi.h>
#include <stdio.h>
#include <omp.h>

static int arrived, violations;

static void region(MPI_Comm comm, int use_mpi)
{
    arrived = 0;
    if (use_mpi) {
#define USE_MPI
#pragma omp parallel
{
    MPI_Threadcomm_start(comm);
#pragma omp atomic
    arrived++;
#ifdef USE_MPI
    MPI_Barrier(comm);
#else
    #pragma omp barrier
#endif
    int seen;
#pragma omp atomic read
    seen = arrived;
    if (seen != omp_get_num_threads())
#pragma omp atomic
        violations++;
    MPI_Threadcomm_finish(comm);
}
#undef USE_MPI
    } else {
#pragma omp parallel
{
    MPI_Threadcomm_start(comm);
#pragma omp atomic
    arrived++;
#ifdef USE_MPI
    MPI_Barrier(comm)
#else
    #pragma omp barrier
#endif
    int seen;
#pragma omp atomic read
    seen = arrived;
    if (seen != omp_get_num_threads())
#pragma omp atomic
        violations++;
    MPI_Threadcomm_finish(comm);
}
    }
}

int main(void)
{
    MPI_Comm comm;
    MPI_Init(NULL, NULL);
    MPI_Threadcomm_init(MPI_COMM_WORLD, omp_get_max_threads(), &comm);
    for (int i = 0; i < 50; i++) {
        region(comm, 1);
        region(comm, 0);
    }
    MPI_Threadcomm_free(&comm);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (violations)
        fprintf(stderr, "FAIL: %d threads passed the barrier early\n", violations);
    else if (rank == 0)
        printf("listing 3 ok\n");
    MPI_Finalize();
    return violations != 0;
}
