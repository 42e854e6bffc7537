/* The storage behind the predefined attributes' values. */
#include "capi.h"

/* MPI_Comm_get_attr gives C programs the address of a predefined attribute's value.
 * Each value lives in its own static int, updated atomically for the few that change
 * (MPI_LASTUSEDCODE), so the address stays valid for the whole run. */
static int attr_values[16];

void *mpix_attr_value(int slot, int value)
{
    __atomic_store_n(&attr_values[slot], value, __ATOMIC_RELAXED);
    return &attr_values[slot];
}
