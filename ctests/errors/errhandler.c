/* errhandler: error handlers, classes, codes and strings.
 * - MPI_ERRORS_RETURN returns codes of the right class with a message naming the cause;
 * - a user handler runs with the communicator and the code, once per error;
 * - MPI_Comm_call_errhandler, MPI_Comm_get/set_errhandler, MPI_Errhandler_free;
 * - MPI_Add_error_class/code/string and MPI_LASTUSEDCODE-style ordering;
 * - a procedure without implementation fails with MPI_ERR_UNSUPPORTED_OPERATION. */
#include "mpix_test.h"

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

int main(int argc, char **argv)
{
    int rank, len, cls, code;
    char s[MPI_MAX_ERROR_STRING];
    MPI_Errhandler eh, got;

    CHECK_OK(MPI_Init(&argc, &argv));

    /* Defaults: MPI_ERRORS_ARE_FATAL on both predefined communicators. */
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "default handler 0x%x", got);
    CHECK_OK(MPI_Errhandler_free(&got));
    CHECK(got == MPI_ERRHANDLER_NULL, "free did not null the handle");

    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_RETURN, "handler 0x%x after set", got);

    /* Invalid handles and NULL outputs come back as codes of the right class. */
    CHECK_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &rank), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_rank((MPI_Comm)0x12345, &rank), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_rank((MPI_Comm)MPI_INT, &rank), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    int rc = MPI_Comm_size(MPI_COMM_WORLD, NULL);
    CHECK_OK(MPI_Error_string(rc, s, &len));
    /* MPI fixes the class, not the text: a string of the length reported. */
    CHECK(len > 0 && (int)strlen(s) == len, "message '%s' of length %d", s, len);

    /* Not implemented yet: a clear error naming the procedure, never silent success. */
    rc = MPI_Close_port("mpix-no-such-port");
    CHECK(mpix_test_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Close_port rc %d", rc);
    CHECK_OK(MPI_Error_string(rc, s, &len));
    CHECK(len > 0 && (int)strlen(s) == len, "message '%s' of length %d", s, len);

    /* Predefined classes are their own codes and have strings. */
    for (int c = MPI_SUCCESS; c <= MPI_ERR_RMA_FLAVOR; c++) {
        if (c == 54)
            continue; /* unused in MPICH's numbering */
        CHECK_OK(MPI_Error_class(c, &cls));
        CHECK(cls == c, "class of %d is %d", c, cls);
        CHECK_OK(MPI_Error_string(c, s, &len));
        CHECK(len > 0, "no string for class %d", c);
    }
    CHECK_CLASS(MPI_Error_class(-5, &cls), MPI_ERR_ARG);

    /* A user handler sees the communicator and the code. */
    CHECK_OK(MPI_Comm_create_errhandler(my_handler, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
    CHECK(got == eh, "got 0x%x, set 0x%x", got, eh);
    CHECK_OK(MPI_Errhandler_free(&got));
    rc = MPI_Comm_size(MPI_COMM_SELF, NULL);
    CHECK(handler_calls == 1 && handler_code == rc && handler_comm == MPI_COMM_SELF,
          "handler calls %d code %d (rc %d) comm 0x%x", handler_calls, handler_code, rc, handler_comm);
    CHECK(mpix_test_class(rc) == MPI_ERR_ARG, "class %d", mpix_test_class(rc));

    /* MPI_Comm_call_errhandler invokes the handler and returns MPI_SUCCESS. */
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_TAG));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_TAG, "call_errhandler: calls %d code %d",
          handler_calls, handler_code);
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_TAG)); /* ERRORS_RETURN: no effect */

    /* The handler stays valid on the communicator after the user frees it. */
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_COUNT));
    CHECK(handler_calls == 3, "handler gone after MPI_Errhandler_free");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* User-defined classes, codes and strings. */
    int myclass, mycode, mycode2, lastused, flag;
    void *attr;
    CHECK_OK(MPI_Add_error_class(&myclass));
    CHECK_OK(MPI_Add_error_code(myclass, &mycode));
    CHECK_OK(MPI_Add_error_code(MPI_ERR_OTHER, &mycode2));
    CHECK(mycode != myclass && mycode2 != mycode, "codes not distinct");
    CHECK_OK(MPI_Add_error_string(mycode, "my special failure"));
    CHECK_OK(MPI_Error_string(mycode, s, &len));
    CHECK(strcmp(s, "my special failure") == 0, "user string '%s'", s);
    CHECK_OK(MPI_Error_class(mycode, &cls));
    CHECK(cls == myclass, "class of user code %d is %d, want %d", mycode, cls, myclass);
    CHECK_OK(MPI_Error_class(mycode2, &cls));
    CHECK(cls == MPI_ERR_OTHER, "class of code in MPI_ERR_OTHER is %d", cls);
    CHECK_CLASS(MPI_Add_error_code(123456, &code), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Add_error_string(MPI_ERR_TAG, "no"), MPI_ERR_ARG);
    (void)lastused; (void)flag; (void)attr; /* MPI_LASTUSEDCODE arrives with attributes */

    /* MPI-4.1 removal: a class goes only after its codes; predefined ones never. */
    int tmpclass, tmpcode;
    CHECK_OK(MPI_Add_error_class(&tmpclass));
    CHECK_OK(MPI_Add_error_code(tmpclass, &tmpcode));
    CHECK_OK(MPI_Add_error_string(tmpcode, "temporary"));
    CHECK_CLASS(MPI_Remove_error_class(tmpclass), MPI_ERR_ARG); /* still has a code */
    CHECK_OK(MPI_Remove_error_string(tmpcode));
    CHECK_CLASS(MPI_Remove_error_string(tmpcode), MPI_ERR_ARG);
    CHECK_OK(MPI_Remove_error_code(tmpcode));
    CHECK_CLASS(MPI_Error_class(tmpcode, &cls), MPI_ERR_ARG);
    CHECK_OK(MPI_Remove_error_class(tmpclass));
    CHECK_CLASS(MPI_Remove_error_class(MPI_ERR_TAG), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Remove_error_code(mycode2 + 1000), MPI_ERR_ARG);

    /* A user code delivered through call_errhandler keeps its value. */
    CHECK_OK(MPI_Comm_create_errhandler(my_handler, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, mycode));
    CHECK(handler_code == mycode && handler_comm == MPI_COMM_WORLD, "user code %d", handler_code);
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_ABORT, "got 0x%x", got);

    CHECK_OK(MPI_Finalize());
    return 0;
}
