/* MPI-4 sessions without MPI_Init: process sets, groups, a communicator from a group,
 * traffic and collectives on it, errors through the session's handler. */
#include "mpix_test.h"

static int handler_calls;
static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
    handler_calls++;
}

int main(void)
{
    int flag;
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(!flag, "MPI_Initialized before anything");
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE"));
    MPI_Session s;
    CHECK_OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(!flag, "a session must not initialize the world model");

    MPI_Info used;
    char val[64];
    int vlen = sizeof val;
    CHECK_OK(MPI_Session_get_info(s, &used));
    CHECK_OK(MPI_Info_get_string(used, "thread_level", &vlen, val, &flag));
    CHECK(flag && strcmp(val, "MPI_THREAD_MULTIPLE") == 0, "thread_level %s", val);
    CHECK_OK(MPI_Info_free(&used));

    int n;
    CHECK_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d process sets", n);
    int found_world = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        char *name = malloc(len);
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) + 1 == len, "pset name length");
        if (strcmp(name, "mpi://WORLD") == 0)
            found_world = 1;
        free(name);
    }
    CHECK(found_world, "no mpi://WORLD");

    MPI_Group g, gself;
    CHECK_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    CHECK_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &gself));
    int size, rank, selfsize;
    CHECK_OK(MPI_Group_size(g, &size));
    CHECK_OK(MPI_Group_rank(g, &rank));
    CHECK_OK(MPI_Group_size(gself, &selfsize));
    CHECK(selfsize == 1, "mpi://SELF has %d members", selfsize);
    MPI_Info pinfo;
    CHECK_OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo));
    vlen = sizeof val;
    CHECK_OK(MPI_Info_get_string(pinfo, "mpi_size", &vlen, val, &flag));
    CHECK(flag && atoi(val) == size, "mpi_size %s, want %d", val, size);
    CHECK_OK(MPI_Info_free(&pinfo));

    MPI_Comm comm;
    CHECK_OK(MPI_Comm_create_from_group(g, "org.mpix.test", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
    int crank, csize;
    CHECK_OK(MPI_Comm_rank(comm, &crank));
    CHECK_OK(MPI_Comm_size(comm, &csize));
    CHECK(crank == rank && csize == size, "comm from group %d/%d", crank, csize);
    int sum = 0;
    CHECK_OK(MPI_Allreduce(&crank, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
    int got = -1;
    CHECK_OK(MPI_Sendrecv(&crank, 1, MPI_INT, (crank + 1) % size, 0, &got, 1, MPI_INT,
                          (crank - 1 + size) % size, 0, comm, MPI_STATUS_IGNORE));
    CHECK(got == (crank - 1 + size) % size, "ring got %d", got);
    MPI_Comm self;
    CHECK_OK(MPI_Comm_create_from_group(gself, "org.mpix.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &self));
    CHECK_OK(MPI_Comm_size(self, &csize));
    CHECK(csize == 1, "self comm size %d", csize);

    /* errors go to the session's handler */
    MPI_Group bad;
    CHECK_CLASS(MPI_Group_from_session_pset(s, "mpi://nowhere", &bad), MPI_ERR_ARG);
    MPI_Errhandler eh;
    CHECK_OK(MPI_Session_create_errhandler(on_error, &eh));
    CHECK_OK(MPI_Session_set_errhandler(s, eh));
    MPI_Errhandler cur;
    CHECK_OK(MPI_Session_get_errhandler(s, &cur));
    CHECK(cur == eh, "get_errhandler");
    CHECK_OK(MPI_Errhandler_free(&cur));
    /* The handler returns, so the call returns the error (MPI 4.0, 9.3). */
    CHECK_CLASS(MPI_Group_from_session_pset(s, "mpi://nowhere", &bad), MPI_ERR_ARG);
    CHECK(handler_calls == 1, "session handler called %d times", handler_calls);
    CHECK_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(handler_calls == 2, "call_errhandler did not call it");
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    MPI_Fint f = MPI_Session_c2f(s);
    CHECK(MPI_Session_f2c(f) == s, "c2f/f2c");

    CHECK_OK(MPI_Comm_free(&self));
    CHECK_OK(MPI_Comm_free(&comm));
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Group_free(&gself));
    CHECK_OK(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "finalize did not set MPI_SESSION_NULL");
    return 0;
}
