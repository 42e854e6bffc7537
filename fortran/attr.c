/* attr.c -- attributes from Fortran (MPI-4.1 §19.3.7). A Fortran attribute is an
 * integer value, INTEGER(KIND=MPI_ADDRESS_KIND) (INTEGER for the MPI-1 MPI_Attr_put/
 * get): it is stored as C's void * attribute itself, not as a pointer to it, and read
 * back the same way, except for the predefined attributes, which C returns as pointers
 * to their values (their Fortran keyvals are C's + 1: mpixf.h). A keyval created from Fortran gets C adapters as its callbacks,
 * with a record of the Fortran procedures and extra_state as the C extra_state; the
 * adapters call the Fortran procedures with Fortran's convention. */
#include "mpixf.h"

typedef void fcopy_aint(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void fdelete_aint(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *);
typedef void fcopy_int(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void fdelete_int(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* One per keyval created from Fortran. Never freed: C does not tell the library when
 * a keyval's last attribute is gone, and a keyval is a few bytes for the program's
 * lifetime. */
struct fkeyval {
    void (*copy)(void);
    void (*del)(void);
    MPI_Aint extra; /* Fortran's extra_state, by value */
    int legacy;     /* MPI_Keyval_create: INTEGER values and extra_state */
};

/* The C copy callback of every Fortran keyval (the communicator, datatype and window
 * callback types differ only in the handle's C type, an int in all three). */
static int copy_adapter(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct fkeyval *k = extra;
    MPI_Fint fold = old, fkey = keyval, fflag = MPIXF_FALSE, ierr = MPI_SUCCESS;
    if (k->legacy) {
        MPI_Fint e = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in, vout = 0;
        ((fcopy_int *)k->copy)(&fold, &fkey, &e, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)(intptr_t)vout;
    } else {
        MPI_Aint e = k->extra, vin = (MPI_Aint)in, vout = 0;
        ((fcopy_aint *)k->copy)(&fold, &fkey, &e, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)vout;
    }
    *flag = fflag != MPIXF_FALSE;
    return ierr;
}

static int delete_adapter(int obj, int keyval, void *val, void *extra)
{
    struct fkeyval *k = extra;
    MPI_Fint fobj = obj, fkey = keyval, ierr = MPI_SUCCESS;
    if (k->legacy) {
        MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)val;
        ((fdelete_int *)k->del)(&fobj, &fkey, &v, &e, &ierr);
    } else {
        MPI_Aint e = k->extra, v = (MPI_Aint)val;
        ((fdelete_aint *)k->del)(&fobj, &fkey, &v, &e, &ierr);
    }
    return ierr;
}

static struct fkeyval *new_keyval(void (*copy)(void), void (*del)(void), MPI_Aint extra, int legacy)
{
    struct fkeyval *k = malloc(sizeof *k);
    if (k != NULL)
        *k = (struct fkeyval){copy, del, extra, legacy};
    return k;
}

#define CREATE_KEYVAL(fname, cfn, copyT, deleteT)                                          \
    void p##fname(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, const MPI_Aint *extra, \
                  MPI_Fint *ierror)                                                        \
    {                                                                                      \
        struct fkeyval *k = new_keyval(copy, del, *extra, 0);                              \
        if (k == NULL) {                                                                   \
            *ierror = MPI_ERR_NO_MEM;                                                      \
            return;                                                                        \
        }                                                                                  \
        *ierror = cfn((copyT *)copy_adapter, (deleteT *)delete_adapter, keyval, k);        \
        if (*ierror != MPI_SUCCESS)                                                        \
            free(k);                                                                       \
    }                                                                                      \
    _Pragma(MPIXF_STR(weak fname = p##fname))
#define MPIXF_STR(x) #x

CREATE_KEYVAL(mpi_comm_create_keyval_, PMPI_Comm_create_keyval, MPI_Comm_copy_attr_function,
              MPI_Comm_delete_attr_function)
CREATE_KEYVAL(mpi_type_create_keyval_, PMPI_Type_create_keyval, MPI_Type_copy_attr_function,
              MPI_Type_delete_attr_function)
CREATE_KEYVAL(mpi_win_create_keyval_, PMPI_Win_create_keyval, MPI_Win_copy_attr_function,
              MPI_Win_delete_attr_function)

void pmpi_keyval_create_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, const MPI_Fint *extra,
                         MPI_Fint *ierror)
{
    struct fkeyval *k = new_keyval(copy, del, *extra, 1);
    if (k == NULL) {
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    *ierror = PMPI_Keyval_create((MPI_Copy_function *)copy_adapter, (MPI_Delete_function *)delete_adapter,
                                 keyval, k);
    if (*ierror != MPI_SUCCESS)
        free(k);
}
#pragma weak mpi_keyval_create_ = pmpi_keyval_create_

/* The value Fortran reads for an attribute C returned as v (keyval is C's): the
 * predefined ones are pointers to their values (an int, MPI_WIN_SIZE an MPI_Aint;
 * MPI_WIN_BASE is the address itself), everything else was stored as the value. */
static MPI_Aint fortran_value(int keyval, void *v)
{
    switch (keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
    case MPI_APPNUM:
    case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR:
    case MPI_WIN_MODEL:
        return v != NULL ? *(int *)v : 0;
    case MPI_WIN_SIZE:
        return v != NULL ? *(MPI_Aint *)v : 0;
    }
    return (MPI_Aint)v;
}

#define SET_ATTR(fname, cfn)                                                               \
    void p##fname(const MPI_Fint *obj, const MPI_Fint *keyval, const MPI_Aint *val, MPI_Fint *ierror) \
    {                                                                                      \
        *ierror = cfn(*obj, mpixf_keyval(*keyval), (void *)*val);                          \
    }                                                                                      \
    _Pragma(MPIXF_STR(weak fname = p##fname))
#define GET_ATTR(fname, cfn)                                                               \
    void p##fname(const MPI_Fint *obj, const MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag, \
                  MPI_Fint *ierror)                                                        \
    {                                                                                      \
        void *v = NULL;                                                                    \
        int f = 0;                                                                         \
        int rc = cfn(*obj, mpixf_keyval(*keyval), &v, &f);                                 \
        if (rc == MPI_SUCCESS && f)                                                        \
            *val = fortran_value(mpixf_keyval(*keyval), v);                                \
        *flag = f ? MPIXF_TRUE : MPIXF_FALSE;                                              \
        *ierror = rc;                                                                      \
    }                                                                                      \
    _Pragma(MPIXF_STR(weak fname = p##fname))

SET_ATTR(mpi_comm_set_attr_, PMPI_Comm_set_attr)
SET_ATTR(mpi_type_set_attr_, PMPI_Type_set_attr)
SET_ATTR(mpi_win_set_attr_, PMPI_Win_set_attr)
GET_ATTR(mpi_comm_get_attr_, PMPI_Comm_get_attr)
GET_ATTR(mpi_type_get_attr_, PMPI_Type_get_attr)
GET_ATTR(mpi_win_get_attr_, PMPI_Win_get_attr)

/* MPI-1's MPI_Attr_put / MPI_Attr_get: INTEGER values. */
void pmpi_attr_put_(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Fint *val, MPI_Fint *ierror)
{
    *ierror = PMPI_Attr_put(*comm, mpixf_keyval(*keyval), (void *)(intptr_t)*val);
}
#pragma weak mpi_attr_put_ = pmpi_attr_put_

void pmpi_attr_get_(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierror)
{
    void *v = NULL;
    int f = 0;
    int rc = PMPI_Attr_get(*comm, mpixf_keyval(*keyval), &v, &f);
    if (rc == MPI_SUCCESS && f)
        *val = (MPI_Fint)fortran_value(mpixf_keyval(*keyval), v);
    *flag = f ? MPIXF_TRUE : MPIXF_FALSE;
    *ierror = rc;
}
#pragma weak mpi_attr_get_ = pmpi_attr_get_
