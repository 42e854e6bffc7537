/* pmpi_app: calls MPI_Comm_rank three times; the PMPI tool must count exactly these. */
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    return 0;
}
