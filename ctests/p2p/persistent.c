/* persistent: MPI_Send_init / Ssend_init / Rsend_init / Bsend_init / Recv_init with
 * MPI_Start and MPI_Startall, restarted many times; MPI_Request_get_status;
 * MPI_Request_free of inactive and active requests. */
#include "p2p_util.h"

int main(int argc, char **argv)
{
    int rank, size, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char a[4][100000], b[4][100000];
    static char bbuf[4 * 100000 + 4 * MPI_BSEND_OVERHEAD];
    MPI_Buffer_attach(bbuf, sizeof bbuf);
    MPI_Request s[4], r[4];
    long n[4] = {16, 100000, 16, 1000};
    CHECK_OK(MPI_Send_init(a[0], n[0], MPI_BYTE, right, 0, MPI_COMM_WORLD, &s[0]));
    CHECK_OK(MPI_Ssend_init(a[1], n[1], MPI_BYTE, right, 1, MPI_COMM_WORLD, &s[1]));
    CHECK_OK(MPI_Rsend_init(a[2], n[2], MPI_BYTE, right, 2, MPI_COMM_WORLD, &s[2]));
    CHECK_OK(MPI_Bsend_init(a[3], n[3], MPI_BYTE, right, 3, MPI_COMM_WORLD, &s[3]));
    for (int k = 0; k < 4; k++)
        CHECK_OK(MPI_Recv_init(b[k], n[k], MPI_BYTE, left, k, MPI_COMM_WORLD, &r[k]));
    /* Inactive persistent requests complete at once with an empty status. */
    MPI_Status st;
    CHECK_OK(MPI_Test(&s[0], &flag, &st));
    CHECK(flag && s[0] != MPI_REQUEST_NULL, "inactive request: flag %d", flag);

    /* A bad request anywhere in Startall starts none: the loop below starts them. */
    MPI_Request bad[3] = {r[0], MPI_REQUEST_NULL, r[1]};
    CHECK_CLASS(MPI_Startall(3, bad), MPI_ERR_REQUEST);

    for (int iter = 0; iter < 50; iter++) {
        for (int k = 0; k < 4; k++)
            fill(a[k], n[k], rank * 1000 + iter * 4 + k);
        CHECK_OK(MPI_Startall(4, r));
        /* Everyone's receives are posted before the ready send starts. */
        CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 99, NULL, 0, MPI_BYTE, right, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (iter % 2) {
            CHECK_OK(MPI_Startall(4, s));
        } else {
            for (int k = 0; k < 4; k++)
                CHECK_OK(MPI_Start(&s[k]));
        }
        /* The synchronous rendezvous send cannot finish before this process polls for
         * its Fin, so it is still active here. */
        CHECK_CLASS(MPI_Start(&s[1]), MPI_ERR_REQUEST);
        CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        CHECK_OK(MPI_Waitall(4, s, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 4; k++) {
            CHECK(r[k] != MPI_REQUEST_NULL && s[k] != MPI_REQUEST_NULL, "persistent request freed by Wait");
            CHECK(check(b[k], n[k], left * 1000 + iter * 4 + k) < 0, "iter %d req %d data", iter, k);
        }
        CHECK_OK(MPI_Request_get_status(r[0], &flag, &st));
        CHECK(flag, "get_status of an inactive request");
    }
    for (int k = 0; k < 4; k++) {
        CHECK_OK(MPI_Request_free(&s[k]));
        CHECK_OK(MPI_Request_free(&r[k]));
        CHECK(s[k] == MPI_REQUEST_NULL && r[k] == MPI_REQUEST_NULL, "free did not null");
    }
    /* Freeing an active request: the operation still completes. */
    MPI_Request fr;
    fill(a[0], 16, rank);
    CHECK_OK(MPI_Isend(a[0], 16, MPI_BYTE, right, 50, MPI_COMM_WORLD, &fr));
    CHECK_OK(MPI_Request_free(&fr));
    CHECK_OK(MPI_Recv(b[0], 16, MPI_BYTE, left, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(check(b[0], 16, left) < 0, "data of a freed send");
    void *p;
    int ps;
    MPI_Buffer_detach(&p, &ps);
    CHECK_OK(MPI_Finalize());
    return 0;
}
