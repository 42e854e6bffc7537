/* Objects that MPICH-built binaries reference by name besides the MPI_ and PMPI_
 * functions (see the list at the top of include/mpi.h). Defining them here lets such
 * binaries bind to mpix when it is preloaded or found first as libmpich.so.12. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include "capi.h"

static int unweighted_sentinel, weights_empty_sentinel;
static MPI_Fint f_status_ignore[MPI_F_STATUS_SIZE], f_statuses_ignore[MPI_F_STATUS_SIZE];

int * const MPI_UNWEIGHTED = &unweighted_sentinel;
int * const MPI_WEIGHTS_EMPTY = &weights_empty_sentinel;
MPI_Fint *MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore;
MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;

/* This library binds its own references to these objects locally (Go links it
 * -Bsymbolic), but a program compiled as PIE that names them (Fortran's `use mpi_f08`
 * passes MPI_STATUS_IGNORE, C code MPI_F08_STATUS_IGNORE) gets copies of them in the
 * executable by copy relocation, and every other reference binds to those. After the
 * relocations, point both MPI_F08_STATUS(ES)_IGNORE (ours and the program's) at the
 * objects the program sees, so that C, module mpi_f08 and MPI_Status_f082c agree
 * (MPI_F_STATUS(ES)_IGNORE, which libmpixfort.so points at its COMMON blocks, is
 * left as it is). */
__attribute__((constructor)) static void rebind_f08_ignores(void)
{
    /* The program's scope (executable first): RTLD_DEFAULT would search this
     * -Bsymbolic library first and find our own objects. */
    void *prog = dlopen(NULL, RTLD_LAZY);
    if (prog == NULL)
        return;
    MPI_F08_status *one = dlsym(prog, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
    MPI_F08_status *many = dlsym(prog, "MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
    MPI_F08_status **pone = dlsym(prog, "MPI_F08_STATUS_IGNORE");
    MPI_F08_status **pmany = dlsym(prog, "MPI_F08_STATUSES_IGNORE");
    if (one != NULL) {
        MPI_F08_STATUS_IGNORE = one;
        if (pone != NULL)
            *pone = one;
    }
    if (many != NULL) {
        MPI_F08_STATUSES_IGNORE = many;
        if (pmany != NULL)
            *pmany = many;
    }
    dlclose(prog);
}

/* The address of an object of ours, so no pvar handle ever equals it. Not a small
 * integer such as 1: handles reach Go as pointer-typed arguments, and the Go runtime
 * aborts when it finds a value below 4096 in a pointer slot while moving a stack. */
static char all_pvar_handles;
struct MPIR_T_pvar_handle_s * const MPI_T_PVAR_ALL_HANDLES = (struct MPIR_T_pvar_handle_s *)&all_pvar_handles;

/* MPIR_Dup_fn is the attribute copy callback behind MPI_COMM_DUP_FN and friends:
 * the new attribute gets the same value. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}
