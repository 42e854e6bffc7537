/* order: messages between a pair never overtake each other within a communicator and
 * tag; MPI_ANY_SOURCE / MPI_ANY_TAG receive them in arrival order per sender; tags
 * select; eager and rendezvous messages interleave without reordering. */
#include "p2p_util.h"

#define N 200

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static unsigned char big[300000];
    if (rank != 0) {
        for (int i = 0; i < N; i++) {
            long n = (i % 10 == 0) ? sizeof big : 8; /* every tenth is a rendezvous */
            fill(big, n, i);
            big[0] = (unsigned char)i;
            MPI_Send(big, n, MPI_BYTE, 0, i % 4, MPI_COMM_WORLD);
        }
        /* Tag selection: send tags 1 then 2; the receiver takes tag 2 first. They go
         * after rank 0's go-ahead so that its wildcard loop cannot take them. */
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int v = 1;
        MPI_Send(&v, 1, MPI_INT, 0, 1001, MPI_COMM_WORLD);
        v = 2;
        MPI_Send(&v, 1, MPI_INT, 0, 1002, MPI_COMM_WORLD);
    } else {
        int next[64] = {0};
        static unsigned char buf[300000];
        for (int k = 0; k < N * (size - 1); k++) {
            MPI_Status st;
            MPI_Recv(buf, sizeof buf, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int src = st.MPI_SOURCE, i = next[src]++;
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(buf[0] == (unsigned char)i, "from %d: message %d arrived as number %d", src, buf[0], i);
            CHECK(st.MPI_TAG == i % 4, "from %d message %d: tag %d", src, i, st.MPI_TAG);
            CHECK(count == ((i % 10 == 0) ? (int)sizeof big : 8), "count %d", count);
        }
        for (int src = 1; src < size; src++)
            MPI_Send(NULL, 0, MPI_BYTE, src, 999, MPI_COMM_WORLD);
        for (int src = 1; src < size; src++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, src, 1002, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == 2, "tag 1002 gave %d", v);
            MPI_Recv(&v, 1, MPI_INT, src, 1001, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == 1, "tag 1001 gave %d", v);
        }
    }
    MPI_Finalize();
    return 0;
}
