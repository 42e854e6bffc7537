/* grequest.c -- MPI_Grequest_start from Fortran: the query, free and cancel
 * procedures take extra_state by reference (an INTEGER(KIND=MPI_ADDRESS_KIND)), the
 * status as an INTEGER array, cancel's complete as a LOGICAL and return their error
 * in a trailing IERROR, so C adapters call them, with a record of the procedures and
 * extra_state as C's extra_state (freed after the free procedure ran). */
#include "mpixf.h"

typedef void fquery(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void ffree(MPI_Aint *, MPI_Fint *);
typedef void fcancel(MPI_Aint *, MPI_Fint *, MPI_Fint *);

struct fgreq {
    fquery *query;
    ffree *free;
    fcancel *cancel;
    MPI_Aint extra;
};

static int query_adapter(void *extra, MPI_Status *status)
{
    struct fgreq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)status, &ierr);
    return ierr;
}

static int free_adapter(void *extra)
{
    struct fgreq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int cancel_adapter(void *extra, int complete)
{
    struct fgreq *g = extra;
    MPI_Fint c = complete ? MPIXF_TRUE : MPIXF_FALSE, ierr = MPI_SUCCESS;
    g->cancel(&g->extra, &c, &ierr);
    return ierr;
}

void pmpi_grequest_start_(fquery *query, ffree *freefn, fcancel *cancel, const MPI_Aint *extra,
                          MPI_Fint *request, MPI_Fint *ierror)
{
    struct fgreq *g = malloc(sizeof *g);
    if (g == NULL) {
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    *g = (struct fgreq){query, freefn, cancel, *extra};
    *ierror = PMPI_Grequest_start(query_adapter, free_adapter, cancel_adapter, g, request);
    if (*ierror != MPI_SUCCESS)
        free(g);
}
#pragma weak mpi_grequest_start_ = pmpi_grequest_start_
