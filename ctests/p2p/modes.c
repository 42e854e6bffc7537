/* modes: every send mode (standard, synchronous, ready, buffered) blocking and
 * nonblocking, around a ring, for sizes from 0 bytes to 4 MiB (eager and rendezvous). */
#include "p2p_util.h"

static const long sizes[] = {0, 1, 8, 1000, 65536, 100000, 4 << 20};
#define NSIZES (int)(sizeof sizes / sizeof *sizes)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long maxn = 4 << 20;
    unsigned char *sbuf = malloc(maxn), *rbuf = malloc(maxn);
    int bsize = maxn + MPI_BSEND_OVERHEAD;
    void *battach = malloc(bsize);
    CHECK_OK(MPI_Buffer_attach(battach, bsize));

    for (int mode = 0; mode < 8; mode++) {
        for (int k = 0; k < NSIZES; k++) {
            long n = sizes[k];
            int seed = rank * 100 + mode * 10 + k, tag = mode * 100 + k;
            MPI_Request rr, sr;
            MPI_Status st;
            fill(sbuf, n, seed);
            memset(rbuf, 0, n);
            CHECK_OK(MPI_Irecv(rbuf, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &rr));
            /* Ready mode needs the receive posted everywhere first. */
            CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 9999, NULL, 0, MPI_BYTE, right, 9999, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            switch (mode) {
            case 0: CHECK_OK(MPI_Send(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD)); break;
            case 1: CHECK_OK(MPI_Ssend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD)); break;
            case 2: CHECK_OK(MPI_Rsend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD)); break;
            case 3: CHECK_OK(MPI_Bsend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD)); break;
            case 4: CHECK_OK(MPI_Isend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
            case 5: CHECK_OK(MPI_Issend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
            case 6: CHECK_OK(MPI_Irsend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
            case 7: CHECK_OK(MPI_Ibsend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sr)); break;
            }
            if (mode >= 4)
                CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Wait(&rr, &st));
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(st.MPI_SOURCE == left && st.MPI_TAG == tag && count == n,
                  "mode %d size %ld: source %d tag %d count %d", mode, n, st.MPI_SOURCE, st.MPI_TAG, count);
            long bad = check(rbuf, n, left * 100 + mode * 10 + k);
            CHECK(bad < 0, "mode %d size %ld: wrong byte at %ld", mode, n, bad);
            CHECK(rr == MPI_REQUEST_NULL, "request not nulled by MPI_Wait");
        }
    }
    /* Buffered sends need space: too little attached space is MPI_ERR_BUFFER. */
    void *got;
    int gotsize;
    CHECK_OK(MPI_Buffer_detach(&got, &gotsize));
    CHECK(got == battach && gotsize == bsize, "detach returned %p %d", got, gotsize);
    CHECK_OK(MPI_Buffer_attach(battach, 100));
    CHECK_CLASS(MPI_Bsend(sbuf, 1000, MPI_BYTE, right, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_OK(MPI_Buffer_detach(&got, &gotsize));
    CHECK_CLASS(MPI_Bsend(sbuf, 10, MPI_BYTE, right, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* MPI-4.1 automatic buffering: no size limit. */
    CHECK_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    fill(sbuf, 200000, rank);
    CHECK_OK(MPI_Bsend(sbuf, 200000, MPI_BYTE, right, 77, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(rbuf, 200000, MPI_BYTE, left, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(check(rbuf, 200000, left) < 0, "automatic bsend data");
    CHECK_OK(MPI_Buffer_detach(&got, &gotsize));
    CHECK(got == MPI_BUFFER_AUTOMATIC, "detach of the automatic buffer gave %p", got);

    free(battach);
    free(sbuf);
    free(rbuf);
    CHECK_OK(MPI_Finalize());
    return 0;
}
