/* errors: truncation (MPI_ERR_TRUNCATE with the status filled), zero-byte messages,
 * MPI_PROC_NULL, cancelled receives, bad ranks, tags, counts and requests. */
#include "p2p_util.h"

int main(int argc, char **argv)
{
    int rank, size, count, flag;
    MPI_Status st;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char a[100000], b[100000];

    /* Truncation, eager and rendezvous: the status says what arrived. */
    for (int round = 0; round < 2; round++) {
        long n = round == 0 ? 64 : sizeof a;
        fill(a, n, rank);
        memset(b, 0, sizeof b);
        CHECK_OK(MPI_Isend(a, n, MPI_BYTE, right, 5, MPI_COMM_WORLD, &r));
        int rc = MPI_Recv(b, n / 2, MPI_BYTE, left, 5, MPI_COMM_WORLD, &st);
        CHECK(mpix_test_class(rc) == MPI_ERR_TRUNCATE, "round %d: class %d, want MPI_ERR_TRUNCATE", round, mpix_test_class(rc));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 && count == n / 2, "truncated status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, count);
        CHECK(check(b, n / 2, left) < 0 && b[n / 2] == 0, "truncated data");
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    /* Zero bytes, with a NULL buffer. */
    CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_INT, right, 6, NULL, 0, MPI_INT, left, 6, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0 && st.MPI_SOURCE == left && st.MPI_TAG == 6, "zero-byte status");
    /* MPI_PROC_NULL: immediate, status source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0. */
    CHECK_OK(MPI_Send(a, 10, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(b, 10, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0, "PROC_NULL status");
    /* Cancel a receive that cannot match. */
    CHECK_OK(MPI_Irecv(b, 10, MPI_BYTE, left, 12345, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Cancel(&r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "receive not cancelled");
    /* A send's cancel may succeed or fail (MPI 4.0, 3.8.4), but not both: a cancelled
     * send is sent again, and exactly one message arrives either way. */
    fill(a, 4, rank);
    CHECK_OK(MPI_Isend(a, 4, MPI_BYTE, right, 13, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Cancel(&r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    if (flag)
        CHECK_OK(MPI_Send(a, 4, MPI_BYTE, right, 13, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(b, 4, MPI_BYTE, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(check(b, 4, left) < 0, "data of the send whose cancel %s", flag ? "succeeded" : "failed");
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Iprobe(left, 13, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a cancelled send was delivered too");
    CHECK_CLASS(MPI_Cancel(&r), MPI_ERR_REQUEST); /* r is MPI_REQUEST_NULL now */
    /* Bad arguments. */
    CHECK_CLASS(MPI_Send(a, 1, MPI_BYTE, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(a, 1, MPI_BYTE, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(a, 1, MPI_BYTE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(a, 1, MPI_BYTE, right, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Send(a, 1, MPI_BYTE, right, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Send(a, -1, MPI_BYTE, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Send(a, 1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Send(a, 1, MPI_BYTE, right, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Recv(b, 1, MPI_BYTE, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Irecv(b, 1, MPI_BYTE, left, -3, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    MPI_Request bogus = (MPI_Request)0x12345;
    CHECK_CLASS(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Isend(a, 1, MPI_BYTE, right, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    int tagub, *tagp;
    (void)tagub; (void)tagp; /* MPI_TAG_UB is read through attributes (communicator issue) */
    /* The largest tag works. */
    CHECK_OK(MPI_Sendrecv(a, 1, MPI_BYTE, right, 0x7fffffff, b, 1, MPI_BYTE, left, 0x7fffffff, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == 0x7fffffff, "tag %d", st.MPI_TAG);
    CHECK_OK(MPI_Finalize());
    return 0;
}
