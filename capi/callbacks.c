/* Every call from the library into user code: error handlers, attribute copy and
 * delete callbacks, user reduction functions. Go cannot call a C function pointer, so
 * it calls these with the pointer the user registered. */
#include "capi.h"

void mpix_call_comm_errhandler(void *fn, MPI_Comm comm, int code)
{
    ((MPI_Comm_errhandler_function *)fn)(&comm, &code);
}

void mpix_call_session_errhandler(void *fn, MPI_Session session, int code)
{
    ((MPI_Session_errhandler_function *)fn)(&session, &code);
}

/* mpix_call_user_op calls a user reduction function (MPI_Op_create), and
 * mpix_call_user_op_c one of MPI_Op_create_c. */
void mpix_call_user_op(void *fn, void *in, void *inout, int len, MPI_Datatype dt)
{
    ((MPI_User_function *)fn)(in, inout, &len, &dt);
}

void mpix_call_user_op_c(void *fn, void *in, void *inout, MPI_Count len, MPI_Datatype dt)
{
    ((MPI_User_function_c *)fn)(in, inout, &len, &dt);
}

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
