/* special.c -- the storage of Fortran's special constants and what has no C
 * procedure. MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE,
 * MPI_ARGV(S)_NULL, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are variables in the COMMON
 * blocks mpif.h and module mpi declare (MPICH's names and layout); defining them here
 * gives them one address in the whole program, which the wrappers compare against
 * (mpixf.h). */
#include "mpixf.h"

struct mpixf_priv1 mpipriv1_;
struct mpixf_priv2 mpipriv2_;
struct mpixf_privc mpiprivc_;
MPI_Fint mpifcmb5_;
MPI_Fint mpifcmb9_;

/* C code that receives a Fortran status (MPI_Status_f2c) compares it with
 * MPI_F_STATUS(ES)_IGNORE, which libmpix.so defines as placeholders: once the Fortran
 * library is loaded they name the Fortran constants' storage. The references go
 * through the GOT, so a program whose own COMMON definition of the block took
 * precedence is named, not this file's. */
__attribute__((constructor)) static void mpixf_init_ignores(void)
{
    MPI_F_STATUS_IGNORE = mpipriv1_.status_ignore;
    MPI_F_STATUSES_IGNORE = mpipriv2_.statuses_ignore;
}

/* MPI_F_sync_reg(buf): the standard's way to stop the compiler from keeping buf in a
 * register across a nonblocking operation. An external call it cannot see into does
 * that; nothing else is needed. */
void pmpi_f_sync_reg_(void *buf)
{
    (void)buf;
}
#pragma weak mpi_f_sync_reg_ = pmpi_f_sync_reg_
