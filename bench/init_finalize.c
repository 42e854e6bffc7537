/* init_finalize: times MPI_Init + MPI_Finalize inside each process (CLOCK_MONOTONIC),
 * printing "init_finalize_us RANK MICROSECONDS". Built once per MPI implementation. */
#include <stdio.h>
#include <time.h>
#include <mpi.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    int rank;
    double t0 = now_us();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    printf("init_finalize_us %d %.0f\n", rank, now_us() - t0);
    return 0;
}
