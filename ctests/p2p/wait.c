/* wait: every completion call (Wait/Test and their all/any/some forms, MPI-4.1
 * MPI_Request_get_status_all/any/some) with real statuses and MPI_STATUSES_IGNORE,
 * MPI_REQUEST_NULL entries, and MPI_ERR_IN_STATUS when one request fails; Sendrecv,
 * Sendrecv_replace and the nonblocking MPI_Isendrecv(_replace). */
#include "p2p_util.h"

#define K 6

static void post(int left, int right, unsigned char (*a)[64], unsigned char (*b)[64], MPI_Request *rs, int tagbase)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int k = 0; k < K; k++) {
        fill(a[k], 64, rank * 10 + k);
        MPI_Irecv(b[k], 64, MPI_BYTE, left, tagbase + k, MPI_COMM_WORLD, &rs[k]);
    }
    for (int k = 0; k < K; k++)
        MPI_Send(a[k], 64, MPI_BYTE, right, tagbase + k, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, flag, index, outcount, indices[K];
    MPI_Status sts[K], st;
    MPI_Request rs[K];
    unsigned char a[K][64], b[K][64];
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Waitall with statuses, then with MPI_STATUSES_IGNORE. */
    for (int ign = 0; ign < 2; ign++) {
        post(left, right, a, b, rs, 100);
        CHECK_OK(MPI_Waitall(K, rs, ign ? MPI_STATUSES_IGNORE : sts));
        for (int k = 0; k < K; k++) {
            CHECK(rs[k] == MPI_REQUEST_NULL, "Waitall left a request");
            CHECK(check(b[k], 64, left * 10 + k) < 0, "Waitall data %d", k);
            CHECK(ign || (sts[k].MPI_SOURCE == left && sts[k].MPI_TAG == 100 + k), "Waitall status %d", k);
        }
    }
    /* Testall until done. */
    post(left, right, a, b, rs, 200);
    do {
        CHECK_OK(MPI_Testall(K, rs, &flag, sts));
    } while (!flag);
    for (int k = 0; k < K; k++)
        CHECK(rs[k] == MPI_REQUEST_NULL && sts[k].MPI_TAG == 200 + k, "Testall %d", k);
    /* Waitany / Testany: each request exactly once, then MPI_UNDEFINED. */
    post(left, right, a, b, rs, 300);
    int seen = 0;
    for (int k = 0; k < K; k++) {
        CHECK_OK(MPI_Waitany(K, rs, &index, &st));
        CHECK(index >= 0 && index < K && !(seen & (1 << index)) && st.MPI_TAG == 300 + index, "Waitany %d", index);
        seen |= 1 << index;
    }
    CHECK_OK(MPI_Waitany(K, rs, &index, &st));
    CHECK(index == MPI_UNDEFINED, "Waitany on no active request gave %d", index);
    post(left, right, a, b, rs, 400);
    seen = 0;
    while (seen != (1 << K) - 1) {
        CHECK_OK(MPI_Testany(K, rs, &index, &flag, MPI_STATUS_IGNORE));
        if (flag) {
            CHECK(index != MPI_UNDEFINED && !(seen & (1 << index)), "Testany %d", index);
            seen |= 1 << index;
        }
    }
    CHECK_OK(MPI_Testany(K, rs, &index, &flag, &st));
    CHECK(flag && index == MPI_UNDEFINED, "Testany on no active request");
    /* Waitsome / Testsome. */
    for (int which = 0; which < 2; which++) {
        post(left, right, a, b, rs, 500 + which * 10);
        int total = 0;
        while (total < K) {
            if (which == 0)
                CHECK_OK(MPI_Waitsome(K, rs, &outcount, indices, sts));
            else
                CHECK_OK(MPI_Testsome(K, rs, &outcount, indices, MPI_STATUSES_IGNORE));
            for (int j = 0; j < outcount; j++)
                CHECK(which || sts[j].MPI_TAG == 500 + indices[j], "Waitsome status");
            total += outcount;
        }
        CHECK_OK(MPI_Waitsome(K, rs, &outcount, indices, sts));
        CHECK(outcount == MPI_UNDEFINED, "Waitsome on no active request gave %d", outcount);
    }
    /* MPI-4.1 status peeks leave requests alone. */
    post(left, right, a, b, rs, 600);
    do {
        CHECK_OK(MPI_Request_get_status_all(K, rs, &flag, sts));
    } while (!flag);
    for (int k = 0; k < K; k++)
        CHECK(rs[k] != MPI_REQUEST_NULL && sts[k].MPI_TAG == 600 + k, "get_status_all %d", k);
    CHECK_OK(MPI_Request_get_status_any(K, rs, &index, &flag, &st));
    CHECK(flag && index >= 0, "get_status_any");
    CHECK_OK(MPI_Request_get_status_some(K, rs, &outcount, indices, sts));
    CHECK(outcount == K, "get_status_some gave %d", outcount);
    CHECK_OK(MPI_Waitall(K, rs, MPI_STATUSES_IGNORE));

    /* One truncated receive among several: MPI_ERR_IN_STATUS, per-request errors. */
    for (int k = 0; k < K; k++) {
        fill(a[k], 64, k);
        MPI_Irecv(b[k], k == 2 ? 10 : 64, MPI_BYTE, left, 700 + k, MPI_COMM_WORLD, &rs[k]);
    }
    for (int k = 0; k < K; k++)
        MPI_Send(a[k], 64, MPI_BYTE, right, 700 + k, MPI_COMM_WORLD);
    /* The peeks report the failure as the completions do, and leave the requests. */
    int rc;
    do
        rc = MPI_Request_get_status_all(K, rs, &flag, sts);
    while (!flag && rc == MPI_SUCCESS);
    CHECK(flag && mpix_test_class(rc) == MPI_ERR_IN_STATUS, "get_status_all with a truncation: class %d",
          mpix_test_class(rc));
    for (int k = 0; k < K; k++)
        CHECK(sts[k].MPI_ERROR == (k == 2 ? MPI_ERR_TRUNCATE : MPI_SUCCESS), "get_status_all status %d error %d", k,
              sts[k].MPI_ERROR);
    rc = MPI_Request_get_status(rs[2], &flag, &st);
    CHECK(flag && mpix_test_class(rc) == MPI_ERR_TRUNCATE, "get_status of a truncated receive: class %d",
          mpix_test_class(rc));
    rc = MPI_Request_get_status_any(1, &rs[2], &index, &flag, &st);
    CHECK(flag && index == 0 && mpix_test_class(rc) == MPI_ERR_TRUNCATE, "get_status_any: class %d",
          mpix_test_class(rc));
    rc = MPI_Request_get_status_some(K, rs, &outcount, indices, sts);
    CHECK(outcount == K && mpix_test_class(rc) == MPI_ERR_IN_STATUS, "get_status_some: %d, class %d", outcount,
          mpix_test_class(rc));
    for (int j = 0; j < outcount; j++)
        CHECK(sts[j].MPI_ERROR == (indices[j] == 2 ? MPI_ERR_TRUNCATE : MPI_SUCCESS), "get_status_some status %d", j);
    rc = MPI_Waitall(K, rs, sts);
    CHECK(mpix_test_class(rc) == MPI_ERR_IN_STATUS, "Waitall with a truncation: class %d", mpix_test_class(rc));
    for (int k = 0; k < K; k++)
        CHECK(sts[k].MPI_ERROR == (k == 2 ? MPI_ERR_TRUNCATE : MPI_SUCCESS), "status %d error %d", k, sts[k].MPI_ERROR);
    rs[0] = MPI_REQUEST_NULL;
    CHECK_OK(MPI_Waitall(1, rs, sts)); /* MPI_REQUEST_NULL entries are fine */

    /* Sendrecv, Sendrecv_replace, Isendrecv, Isendrecv_replace. */
    static unsigned char big[100000], big2[100000];
    for (int n = 16; n <= 100000; n *= 50) {
        fill(big, n, rank);
        CHECK_OK(MPI_Sendrecv(big, n, MPI_BYTE, right, 1, big2, n, MPI_BYTE, left, 1, MPI_COMM_WORLD, &st));
        CHECK(check(big2, n, left) < 0 && st.MPI_SOURCE == left, "Sendrecv %d", n);
        CHECK_OK(MPI_Sendrecv_replace(big, n, MPI_BYTE, right, 2, left, 2, MPI_COMM_WORLD, &st));
        CHECK(check(big, n, left) < 0, "Sendrecv_replace %d", n);
        MPI_Request r;
        fill(big, n, rank + 7);
        CHECK_OK(MPI_Isendrecv(big, n, MPI_BYTE, right, 3, big2, n, MPI_BYTE, left, 3, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK(check(big2, n, left + 7) < 0 && st.MPI_TAG == 3, "Isendrecv %d", n);
        CHECK_OK(MPI_Isendrecv_replace(big, n, MPI_BYTE, right, 4, left, 4, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK(check(big, n, left + 7) < 0, "Isendrecv_replace %d", n);
    }
    CHECK_OK(MPI_Finalize());
    return 0;
}
