/* mpixf08.c -- what module mpi_f08's wrappers (zbind_f08.c) share beyond mpixf.h:
 * choice buffers given as CFI descriptors (TS 29113), including non-contiguous
 * array sections, and the errors the wrappers raise themselves. */
#include <stdio.h>
#include <string.h>
#include "mpixf.h"

/* copy walks the elements of d in array element order (the first subscript fastest),
 * copying each elem_len bytes to (to_tmp) or from the packed temporary at *t. */
static void copy(const CFI_cdesc_t *d, int dim, char *at, char **t, int to_tmp)
{
    CFI_index_t n = d->dim[dim].extent;
    for (CFI_index_t i = 0; i < n; i++) {
        char *e = at + i * d->dim[dim].sm;
        if (dim > 0) {
            copy(d, dim - 1, e, t, to_tmp);
            continue;
        }
        if (to_tmp)
            memcpy(*t, e, d->elem_len);
        else
            memcpy(e, *t, d->elem_len);
        *t += d->elem_len;
    }
}

int mpixf08_buf_get(struct mpixf08_buf *b, CFI_cdesc_t *d, int out, int how, const char *fn, const char *arg)
{
    b->p = d->base_addr;
    b->d = d;
    b->tmp = NULL;
    b->out = out;
    if (d->base_addr == (void *)&MPIR_F08_MPI_BOTTOM) {
        b->p = MPI_BOTTOM;
        return MPI_SUCCESS;
    }
    if (d->base_addr == (void *)&MPIR_F08_MPI_IN_PLACE) {
        b->p = MPI_IN_PLACE;
        return MPI_SUCCESS;
    }
    if (how == MPIXF08_ADDRESS || d->rank == 0 || d->base_addr == NULL || CFI_is_contiguous(d))
        return MPI_SUCCESS;
    if (how == MPIXF08_RETAINED) {
        fprintf(stderr,
                "mpix: %s: %s is a non-contiguous array section; module mpi_f08 passes those "
                "only to blocking calls (MPI_SUBARRAYS_SUPPORTED is .FALSE.): pass a "
                "contiguous array or describe the layout with a derived datatype\n",
                fn, arg);
        return MPI_ERR_BUFFER;
    }
    size_t n = d->elem_len;
    for (int i = 0; i < d->rank; i++)
        n *= (size_t)(d->dim[i].extent > 0 ? d->dim[i].extent : 0);
    b->tmp = malloc(n ? n : 1);
    if (b->tmp == NULL)
        return MPI_ERR_NO_MEM;
    char *t = b->tmp;
    /* an output is copied in too: what the datatype skips keeps its value */
    copy(d, d->rank - 1, d->base_addr, &t, 1);
    b->p = b->tmp;
    return MPI_SUCCESS;
}

void mpixf08_buf_put(struct mpixf08_buf *b, int rc)
{
    if (b->tmp == NULL)
        return;
    if (b->out && rc == MPI_SUCCESS) {
        char *t = b->tmp;
        copy(b->d, b->d->rank - 1, b->d->base_addr, &t, 0);
    }
    free(b->tmp);
    b->tmp = NULL;
}

int mpixf08_raise_comm(MPI_Comm comm, int rc)
{
    PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

int mpixf08_raise_win(MPI_Win win, int rc)
{
    PMPI_Win_call_errhandler(win, rc);
    return rc;
}
