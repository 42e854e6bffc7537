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

/* File handles: C's MPI_File is a pointer, Fortran's an INTEGER; files are converted
 * by identity until MPI_File_c2f/f2c give them a table. */
static inline MPI_File mpixf_file_f2c(MPI_Fint f) { return (MPI_File)(intptr_t)f; }
static inline MPI_Fint mpixf_file_c2f(MPI_File f) { return (MPI_Fint)(intptr_t)f; }

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
