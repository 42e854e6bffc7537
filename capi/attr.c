/* Attribute callbacks into user code, and the storage behind the predefined
 * attributes' values. */
#include "capi.h"

/* mpix_attr_copy calls a copy callback (MPI_Comm_copy_attr_function,
 * MPI_Type_copy_attr_function, MPI_Win_copy_attr_function and MPI_Copy_function all
 * have this shape, since MPI_Comm, MPI_Datatype and MPI_Win are ints). Values cross as
 * integers: they are the user's void *, which Go must never take for its own pointers. */
int mpix_attr_copy(void *fn, int obj, int keyval, uintptr_t extra, uintptr_t in,
                   uintptr_t *out, int *flag)
{
    void *v = NULL;
    int f = 0;
    int rc = ((MPI_Comm_copy_attr_function *)fn)((MPI_Comm)obj, keyval, (void *)extra,
                                                 (void *)in, &v, &f);
    *out = (uintptr_t)v;
    *flag = f;
    return rc;
}

/* mpix_attr_delete calls a delete callback (any of the four kinds). */
int mpix_attr_delete(void *fn, int obj, int keyval, uintptr_t val, uintptr_t extra)
{
    return ((MPI_Comm_delete_attr_function *)fn)((MPI_Comm)obj, keyval, (void *)val,
                                                   (void *)extra);
}

/* MPI_Comm_get_attr gives C programs the address of a predefined attribute's value.
 * Each value lives in its own static int, updated atomically for the few that change
 * (MPI_LASTUSEDCODE), so the address stays valid for the whole run. */
static int attr_values[16];

void *mpix_attr_value(int slot, int value)
{
    __atomic_store_n(&attr_values[slot], value, __ATOMIC_RELAXED);
    return &attr_values[slot];
}
