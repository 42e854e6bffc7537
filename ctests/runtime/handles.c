/* handles: Fortran handle conversion, communicator names, the MPI-1 error-handler
 * names MPICH still exports, and MPI_Pcontrol. */
#include "mpix_test.h"

static int calls;
static void handler(MPI_Comm *comm, int *code, ...) { (void)comm; (void)code; calls++; }

int main(int argc, char **argv)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Errhandler eh, got;
    MPI_Info info;

    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* Handles are ints: Fortran and C values agree, both ways. */
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "comm c2f/f2c");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL, "null comm c2f/f2c");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "errhandler c2f/f2c");
    CHECK_OK(MPI_Info_create(&info));
    CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info, "info c2f/f2c");
    CHECK_OK(MPI_Info_free(&info));

    /* Names. */
    CHECK_OK(MPI_Comm_set_name(MPI_COMM_SELF, "my self"));
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "my self") == 0 && len == 7, "name '%s' len %d", name, len);
    char toolong[MPI_MAX_OBJECT_NAME + 8];
    memset(toolong, 'n', sizeof toolong - 1);
    toolong[sizeof toolong - 1] = 0;
    CHECK_CLASS(MPI_Comm_set_name(MPI_COMM_SELF, toolong), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_set_name(MPI_COMM_SELF, NULL), MPI_ERR_ARG);

    /* MPI-1 names. */
    CHECK_OK(MPI_Errhandler_create(handler, &eh));
    CHECK_OK(MPI_Errhandler_set(MPI_COMM_SELF, eh));
    CHECK_OK(MPI_Errhandler_get(MPI_COMM_SELF, &got));
    CHECK(got == eh, "MPI_Errhandler_get 0x%x, want 0x%x", got, eh);
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER));
    CHECK(calls == 1, "handler calls %d", calls);
    CHECK_OK(MPI_Errhandler_free(&got));
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* MPI_Pcontrol is for tools: the library accepts any level and extra arguments. */
    CHECK_OK(MPI_Pcontrol(0));
    CHECK_OK(MPI_Pcontrol(2, "extra", 3));

    CHECK_OK(MPI_Finalize());
    return 0;
}
