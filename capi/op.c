/* Calls into user reduction functions (MPI_Op_create). */
#include <string.h>
#include "op.h"

void mpix_call_user_op(void *fn, void *in, void *inout, int len, MPI_Datatype dt)
{
    ((MPI_User_function *)fn)(in, inout, &len, &dt);
}

void mpix_call_user_op_c(void *fn, void *in, void *inout, MPI_Count len, MPI_Datatype dt)
{
    ((MPI_User_function_c *)fn)(in, inout, &len, &dt);
}
