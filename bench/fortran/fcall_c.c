/* The C half of bench/fcall.f90: the same loops as its Fortran functions, called
 * through BIND(C), so that C and Fortran are timed in one process and one run. */
#include <mpi.h>

double fcall_c_comm_rank(int n)
{
    int r;
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return MPI_Wtime() - t0;
}

double fcall_c_pingpong(int n)
{
    int me;
    double x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (me == 0) {
            MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}
