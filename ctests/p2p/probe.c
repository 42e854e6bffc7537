/* probe: MPI_Probe/Iprobe report source, tag and count without receiving;
 * MPI_Mprobe/Improbe take the message so no other receive can match it;
 * MPI_Mrecv/Imrecv receive it; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC. */
#include "p2p_util.h"

int main(int argc, char **argv)
{
    int rank, size, flag, count;
    MPI_Status st;
    MPI_Message msg;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char a[200000], b[200000];

    for (int round = 0; round < 2; round++) {
        long n = round == 0 ? 100 : sizeof a; /* eager, then rendezvous */
        fill(a, n, rank + round);
        MPI_Request sr;
        CHECK_OK(MPI_Isend(a, n, MPI_BYTE, right, 40 + round, MPI_COMM_WORLD, &sr));
        CHECK_OK(MPI_Probe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 40 + round && count == n, "probe: %d %d %d", st.MPI_SOURCE, st.MPI_TAG, count);
        do {
            CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, 40 + round, MPI_COMM_WORLD, &flag, &st));
        } while (!flag);
        CHECK_OK(MPI_Mprobe(left, 40 + round, MPI_COMM_WORLD, &msg, &st));
        CHECK(msg != MPI_MESSAGE_NULL, "Mprobe gave MPI_MESSAGE_NULL");
        CHECK_OK(MPI_Iprobe(left, 40 + round, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a message taken by MPI_Mprobe is still visible to MPI_Iprobe");
        if (round == 0) {
            CHECK_OK(MPI_Mrecv(b, n, MPI_BYTE, &msg, &st));
        } else {
            MPI_Request r;
            CHECK_OK(MPI_Imrecv(b, n, MPI_BYTE, &msg, &r));
            CHECK_OK(MPI_Wait(&r, &st));
        }
        CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not null the message");
        CHECK(check(b, n, left + round) < 0, "Mrecv data");
        CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }
    /* Improbe with nothing there. */
    CHECK_OK(MPI_Improbe(left, 77, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(!flag, "Improbe found a message nobody sent");
    /* MPI_PROC_NULL. */
    CHECK_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Mprobe PROC_NULL");
    CHECK_OK(MPI_Mrecv(b, 10, MPI_BYTE, &msg, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 0 && st.MPI_SOURCE == MPI_PROC_NULL, "Mrecv of MPI_MESSAGE_NO_PROC");
    CHECK_OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Probe PROC_NULL");
    CHECK_OK(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "Iprobe PROC_NULL");
    CHECK_CLASS(MPI_Iprobe(size, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK);
    CHECK_OK(MPI_Finalize());
    return 0;
}
