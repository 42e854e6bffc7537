/* Every call from the library into user code: error handlers, attribute copy and
 * delete callbacks, user reduction functions, generalized requests' callbacks. Go cannot call a C function pointer, so
 * it calls these with the pointer the user registered. */
#include <string.h>
#include "capi.h"

void mpix_call_comm_errhandler(void *fn, MPI_Comm comm, int code)
{
    ((MPI_Comm_errhandler_function *)fn)(&comm, &code);
}

void mpix_call_session_errhandler(void *fn, MPI_Session session, int code)
{
    ((MPI_Session_errhandler_function *)fn)(&session, &code);
}

void mpix_call_win_errhandler(void *fn, MPI_Win win, int code)
{
    ((MPI_Win_errhandler_function *)fn)(&win, &code);
}

/* The file is its C handle's address (MPI_File is a pointer, which Go holds as an
 * integer). */
void mpix_call_file_errhandler(void *fn, uintptr_t file, int code)
{
    MPI_File fh = (MPI_File)file;
    ((MPI_File_errhandler_function *)fn)(&fh, &code);
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

/* Generalized requests (MPI_Grequest_start): query_fn fills a status that starts
 * empty (MPI_ANY_SOURCE, MPI_ANY_TAG, count 0, not cancelled), on the C stack, so the
 * user's MPI_Status_set_* calls inside it see C memory; extra_state crosses as an
 * integer, like attribute values. */
int mpix_call_grequest_query(void *fn, uintptr_t extra, MPI_Status *out)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = MPI_ANY_SOURCE;
    st.MPI_TAG = MPI_ANY_TAG;
    int rc = ((MPI_Grequest_query_function *)fn)((void *)extra, &st);
    *out = st;
    return rc;
}

int mpix_call_grequest_free(void *fn, uintptr_t extra)
{
    return ((MPI_Grequest_free_function *)fn)((void *)extra);
}

int mpix_call_grequest_cancel(void *fn, uintptr_t extra, int complete)
{
    return ((MPI_Grequest_cancel_function *)fn)((void *)extra, complete);
}
