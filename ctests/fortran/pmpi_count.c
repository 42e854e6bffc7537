/* A profiling library's Fortran side, as a tool writes one: it defines mpi_barrier_
 * and mpi_comm_rank_ (taking precedence over libmpixfort.so's weak ones), counts the
 * calls and forwards them to pmpi_barrier_ / pmpi_comm_rank_. f90_pmpi checks the
 * counts through pmpi_counts_. */
#include <mpi.h>

void pmpi_barrier_(MPI_Fint *comm, MPI_Fint *ierror);
void pmpi_comm_rank_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *ierror);

static int barriers, ranks;

void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierror)
{
    barriers++;
    pmpi_barrier_(comm, ierror);
}

void mpi_comm_rank_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *ierror)
{
    ranks++;
    pmpi_comm_rank_(comm, rank, ierror);
}

void pmpi_counts_(MPI_Fint *b, MPI_Fint *r)
{
    *b = barriers;
    *r = ranks;
}
