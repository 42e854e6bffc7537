/* Calls into user reduction functions (MPI_User_function(s)). */
#ifndef MPIX_CAPI_OP_H
#define MPIX_CAPI_OP_H

#include <stdint.h>
#include "mpi.h"

void mpix_call_user_op(void *fn, void *in, void *inout, int len, MPI_Datatype dt);
void mpix_call_user_op_c(void *fn, void *in, void *inout, MPI_Count len, MPI_Datatype dt);

#endif
