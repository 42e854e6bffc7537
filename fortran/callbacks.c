/* callbacks.c -- the predefined callbacks with their Fortran names and convention
 * (everything by reference, IERROR last), for keyvals created from Fortran
 * (attr.c's adapters call them like any Fortran callback): MPI_COMM_NULL_COPY_FN,
 * MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, the TYPE_ and WIN_ ones, the MPI-1
 * MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN with INTEGER values, and
 * MPI_CONVERSION_FN_NULL. */
#include "mpixf.h"

/* copy callbacks: (old, keyval, extra_state, value_in, value_out, flag, ierror) */
#define NULL_COPY(name, T)                                                            \
    void name(MPI_Fint *old, MPI_Fint *keyval, T *extra, T *in, T *out, MPI_Fint *flag, \
              MPI_Fint *ierror)                                                       \
    {                                                                                 \
        (void)old, (void)keyval, (void)extra, (void)in, (void)out;                    \
        *flag = MPIXF_FALSE;                                                          \
        *ierror = MPI_SUCCESS;                                                        \
    }
#define DUP(name, T)                                                                  \
    void name(MPI_Fint *old, MPI_Fint *keyval, T *extra, T *in, T *out, MPI_Fint *flag, \
              MPI_Fint *ierror)                                                       \
    {                                                                                 \
        (void)old, (void)keyval, (void)extra;                                         \
        *out = *in;                                                                   \
        *flag = MPIXF_TRUE;                                                           \
        *ierror = MPI_SUCCESS;                                                        \
    }
/* delete callbacks: (object, keyval, value, extra_state, ierror) */
#define NULL_DELETE(name, T)                                                          \
    void name(MPI_Fint *obj, MPI_Fint *keyval, T *val, T *extra, MPI_Fint *ierror)    \
    {                                                                                 \
        (void)obj, (void)keyval, (void)val, (void)extra;                              \
        *ierror = MPI_SUCCESS;                                                        \
    }

NULL_COPY(mpi_comm_null_copy_fn_, MPI_Aint)
DUP(mpi_comm_dup_fn_, MPI_Aint)
NULL_DELETE(mpi_comm_null_delete_fn_, MPI_Aint)
NULL_COPY(mpi_type_null_copy_fn_, MPI_Aint)
DUP(mpi_type_dup_fn_, MPI_Aint)
NULL_DELETE(mpi_type_null_delete_fn_, MPI_Aint)
NULL_COPY(mpi_win_null_copy_fn_, MPI_Aint)
DUP(mpi_win_dup_fn_, MPI_Aint)
NULL_DELETE(mpi_win_null_delete_fn_, MPI_Aint)
NULL_COPY(mpi_null_copy_fn_, MPI_Fint)
DUP(mpi_dup_fn_, MPI_Fint)
NULL_DELETE(mpi_null_delete_fn_, MPI_Fint)

/* MPI_CONVERSION_FN_NULL(userbuf, datatype, count, filebuf, position, extra_state,
 * ierror): named so programs that pass it link; user data representations have no
 * Fortran binding yet (MPI_Register_datarep), so nothing calls it. */
void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                             MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra;
    *ierror = MPI_SUCCESS;
}
