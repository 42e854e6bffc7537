/* mpixf.h -- what libmpixfort.so's wrappers share (internal; not installed): the
 * COMMON blocks that hold Fortran's special addresses, gfortran's LOGICAL values, and
 * the conversions of buffers, statuses, weights, strings and file handles that the
 * generated wrappers (zbind.c) and the hand-written ones (attr.c, grequest.c) call. */
#ifndef MPIX_FORTRAN_MPIXF_H
#define MPIX_FORTRAN_MPIXF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "mpi.h"

/* gfortran's LOGICAL: .TRUE. is 1, .FALSE. is 0; anything else reads as true. */
#define MPIXF_TRUE 1
#define MPIXF_FALSE 0

/* The COMMON blocks of mpif.h and module mpi, with MPICH's names and layout
 * (gfortran: lowercase name, one underscore). The library defines them; a program's
 * COMMON declarations of the same blocks bind to one storage, so the wrappers know
 * the special constants by their addresses. */
struct mpixf_priv1 {
    MPI_Fint bottom;
    MPI_Fint in_place;
    MPI_Fint status_ignore[MPI_F_STATUS_SIZE];
};
struct mpixf_priv2 {
    MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE];
    MPI_Fint errcodes_ignore[1];
};
struct mpixf_privc {
    char argvs_null[1];
    char argv_null[1];
};
extern struct mpixf_priv1 mpipriv1_;
extern struct mpixf_priv2 mpipriv2_;
extern struct mpixf_privc mpiprivc_;
extern MPI_Fint mpifcmb5_; /* MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_; /* MPI_WEIGHTS_EMPTY */

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE become C's. */
static inline void *mpixf_buf(const void *p)
{
    if (p == (const void *)&mpipriv1_.bottom)
        return MPI_BOTTOM;
    if (p == (const void *)&mpipriv1_.in_place)
        return MPI_IN_PLACE;
    return (void *)p;
}

/* A status or array of statuses: MPI_STATUS(ES)_IGNORE become C's; otherwise the
 * five INTEGERs are C's MPI_Status. */
static inline MPI_Status *mpixf_status(const MPI_Fint *p)
{
    if (p == mpipriv1_.status_ignore)
        return MPI_STATUS_IGNORE;
    if (p == mpipriv2_.statuses_ignore)
        return MPI_STATUSES_IGNORE;
    return (MPI_Status *)p;
}

/* Graph weights: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become C's. */
static inline int *mpixf_weights(const MPI_Fint *p)
{
    if (p == &mpifcmb5_)
        return MPI_UNWEIGHTED;
    if (p == &mpifcmb9_)
        return MPI_WEIGHTS_EMPTY;
    return (int *)p;
}

/* A keyval from Fortran: mpif.h's predefined attribute keyvals are C's + 1 (even,
 * where C's are odd; MPICH's values), so that the library knows to return the value
 * rather than C's pointer to it; mpixf_keyval gives C's. Other keyvals are C's. */
static inline int mpixf_is_fortran_keyval(MPI_Fint k)
{
    unsigned v = (unsigned)k;
    return v >> 30 == 1 && ((v >> 26) & 0xf) == 9 && (v & 1) == 0;
}
static inline int mpixf_keyval(MPI_Fint k) { return mpixf_is_fortran_keyval(k) ? k - 1 : k; }

/* Indices of completed requests count from 1 in Fortran: n of them (n may be
 * MPI_UNDEFINED, and an index may be MPI_UNDEFINED: neither counts). */
static inline void mpixf_indices_c2f(int *idx, int n)
{
    for (int i = 0; i < n; i++)
        if (idx[i] >= 0)
            idx[i]++;
}

/* File handles: C's MPI_File is a pointer, Fortran's an INTEGER; they convert through
 * C's MPI_File_c2f and MPI_File_f2c, which keep a table of the open files (MPI_FILE_NULL
 * is 0 on both sides; an integer that names no open file gives an invalid handle the
 * C side reports). */
static inline MPI_File mpixf_file_f2c(MPI_Fint f) { return PMPI_File_f2c(f); }
static inline MPI_Fint mpixf_file_c2f(MPI_File f) { return PMPI_File_c2f(f); }

/* module mpi_f08 (mpixf08.c, zbind_f08.c). Its special objects are C's MPIR_F08_*
 * (include/mpi.h): a wrapper compares a status's or a buffer's address with them. */
#include <ISO_Fortran_binding.h>

static inline MPI_Status *mpixf08_status(MPI_Status *p)
{
    if ((void *)p == (void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ)
        return MPI_STATUS_IGNORE;
    if ((void *)p == (void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ)
        return MPI_STATUSES_IGNORE;
    return p;
}

/* A choice buffer passed as a CFI descriptor (TS 29113 assumed-type assumed-rank).
 * mpixf08_buf_get sets b->p to what C gets: MPI_BOTTOM or MPI_IN_PLACE for the
 * special objects, the base address of a contiguous array; a non-contiguous one
 * (an array section) is, by how:
 *   MPIXF08_COPY     copied into a contiguous temporary (and back after the call by
 *                    mpixf08_buf_put when out is set): blocking calls;
 *   MPIXF08_RETAINED refused with MPI_ERR_BUFFER and a message on stderr (nonblocking,
 *                    persistent and one-sided calls, which use the buffer after they
 *                    return, when no copy would still be there);
 *   MPIXF08_ADDRESS  its first element's address (MPI_Get_address).
 * mpixf08_buf_put frees the temporary, copying it back first if the call succeeded. */
enum { MPIXF08_COPY, MPIXF08_RETAINED, MPIXF08_ADDRESS };
struct mpixf08_buf {
    void *p;
    CFI_cdesc_t *d;
    char *tmp;
    int out;
};
int mpixf08_buf_get(struct mpixf08_buf *b, CFI_cdesc_t *d, int out, int how, const char *fn, const char *arg);
void mpixf08_buf_put(struct mpixf08_buf *b, int rc);
/* The error a wrapper found itself, raised as C's would be: through the error handler
 * of the call's communicator or window (MPI_COMM_SELF's where it has neither). */
int mpixf08_raise_comm(MPI_Comm comm, int rc);
int mpixf08_raise_win(MPI_Win win, int rc);

/* Strings (strings.c). mpixf_cstr copies a Fortran string without its trailing
 * blanks into a new NUL-terminated one (NULL when out of memory: the C function then
 * reports the argument); mpixf_cstr_info also drops leading blanks, as info keys and
 * values do. mpixf_obuf allocates a C output buffer of flen + extra + 1 bytes, empty;
 * mpixf_fstr copies it into the Fortran string, blank-padded or truncated to flen, and
 * frees it; mpixf_fstr_if only when copy is true (it frees it either way). */
char *mpixf_cstr(const char *f, size_t flen);
char *mpixf_cstr_info(const char *f, size_t flen);
char *mpixf_obuf(size_t flen, size_t extra);
void mpixf_fstr(char *c, char *f, size_t flen);
void mpixf_fstr_if(int copy, char *c, char *f, size_t flen);

#endif
