/* Lock acquisitions on the critical path (ICS'20 Table 1, "FG + per-VCI request
 * cache"): MPI_Isend takes its VCI's lock once, MPI_Wait on a request that already
 * completed takes none. Read through the MPI_T counter mpix_vci_lock_acquisitions,
 * one element per VCI; each communicator made by MPI_Comm_dup gets a VCI of its own. */
#include "mpix_test.h"

static int nvcis;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle;

static unsigned long long total(void) { return mpix_test_pvar_total(session, handle, nvcis); }

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int idx;
    CHECK_OK(MPI_T_pvar_get_index("mpix_vci_lock_acquisitions", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_OK(MPI_T_pvar_session_create(&session));
    CHECK_OK(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle, &nvcis));
    CHECK(nvcis >= 1 && nvcis <= 256, "%d VCIs", nvcis);

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    int out = rank, in = -1;
    MPI_Request r;

    /* A small send completes at once (eager): one lock to start it, none to wait. */
    unsigned long long t0 = total();
    CHECK_OK(MPI_Isend(&out, 1, MPI_INT, peer, 0, comm, &r));
    unsigned long long t1 = total();
    int done = 0;
    CHECK_OK(MPI_Request_get_status(r, &done, MPI_STATUS_IGNORE));
    unsigned long long t2 = total();
    if (done) {
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        unsigned long long t3 = total();
        CHECK(t3 == t2, "MPI_Wait on a completed request took %llu locks", t3 - t2);
    } else {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    CHECK(t1 - t0 == 1, "MPI_Isend took %llu locks, want 1", t1 - t0);
    CHECK(done, "an 8-byte send did not complete at once");

    /* The receive: once it completed, waiting on it takes no lock either. */
    CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, from, 0, comm, &r));
    unsigned long long t4 = total();
    CHECK(t4 - t2 <= 1 + 0, "MPI_Irecv took %llu locks, want 1", t4 - t2);
    for (done = 0; !done;)
        MPI_Request_get_status(r, &done, MPI_STATUS_IGNORE);
    unsigned long long t5 = total();
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(total() == t5, "MPI_Wait on a completed receive took locks");
    CHECK(in == from, "received %d", in);

    MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
