/* pmpi_tool: a minimal profiling tool. It overrides MPI_Init, MPI_Comm_rank and
 * MPI_Finalize, forwards to the PMPI_ entry points and reports what it saw, the way
 * real tools interpose on an MPI library. */
#include <stdio.h>
#include <mpi.h>

static int rank_calls;

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank); /* the tool's own call is not counted */
    printf("pmpi-tool: rank %d: MPI_Init intercepted\n", rank);
    return rc;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    rank_calls++;
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Finalize(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("pmpi-tool: rank %d: %d MPI_Comm_rank calls\n", rank, rank_calls);
    return PMPI_Finalize();
}
