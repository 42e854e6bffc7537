/* errors: bad collective arguments under MPI_ERRORS_RETURN give the right error class
 * in the blocking, nonblocking and persistent forms (a persistent collective reports
 * them at initialization): invalid roots, negative counts, MPI_OP_NULL and ops not
 * defined on the datatype, uncommitted and null datatypes where they are significant,
 * MPI_IN_PLACE where the standard does not allow it, a send buffer that is also the
 * receive buffer, MPI_COMM_NULL, and MPI_Start of an active persistent collective.
 * Errors detected at every rank are provoked at every rank; those detected only at the
 * root, only there. Afterwards the communicator still works. */
#include "coll_util.h"

int main(int argc, char **argv)
{
    coll_init(&argc, &argv);
    int me = g_rank, n = g_size;
    MPI_Comm w = MPI_COMM_WORLD;
    int a[64] = {0}, b[64] = {0}, cnt[64], dsp[64];
    for (int i = 0; i < 64; i++)
        cnt[i] = 1, dsp[i] = i;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Datatype unc;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &unc)); /* never committed */

    /* Invalid roots: every rank detects them. */
    int bad_roots[] = {n, -1, -3, -7, n + 5};
    for (int k = 0; k < 5; k++) {
        int root = bad_roots[k];
        CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, root, w), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Ibcast(a, 1, MPI_INT, root, w, &req), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Bcast_init(a, 1, MPI_INT, root, w, MPI_INFO_NULL, &req), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, root, w), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Ireduce_c(a, b, 1, MPI_INT, MPI_SUM, root, w, &req), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, root, w), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Igatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, root, w, &req), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Scatter_init(a, 1, MPI_INT, b, 1, MPI_INT, root, w, MPI_INFO_NULL, &req), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Scatterv(a, cnt, dsp, MPI_INT, b, 1, MPI_INT, root, w), MPI_ERR_ROOT);
        CHECK(req == MPI_REQUEST_NULL, "a failed call set its request");
    }

    /* Negative counts. */
    CHECK_CLASS(MPI_Bcast(a, -1, MPI_INT, 0, w), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Allreduce_c(a, b, -2, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Iallgather(a, -1, MPI_INT, b, 1, MPI_INT, w, &req), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Alltoall_init(a, 1, MPI_INT, b, -1, MPI_INT, w, MPI_INFO_NULL, &req), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    cnt[n - 1] = -1;
    CHECK_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, w), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, w), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    if (me == 0) /* significant at the root only */
        CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, 0, w), MPI_ERR_COUNT);
    cnt[n - 1] = 1;

    /* MPI_OP_NULL, and ops not defined on the datatype. */
    CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_OP_NULL, 0, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Iscan(a, b, 1, MPI_INT, MPI_OP_NULL, w, &req), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_scatter_block_init(a, b, 1, MPI_INT, MPI_OP_NULL, w, MPI_INFO_NULL, &req), MPI_ERR_OP);
    CHECK_CLASS(MPI_Exscan_c(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_2INT, MPI_SUM, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_MINLOC, w, &req), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_init(a, b, 1, MPI_DOUBLE, MPI_BAND, 0, w, MPI_INFO_NULL, &req), MPI_ERR_OP);
    CHECK_CLASS(MPI_Scan(a, b, 1, MPI_FLOAT, MPI_LXOR, w), MPI_ERR_OP);

    /* Uncommitted and null datatypes where they are significant. */
    CHECK_CLASS(MPI_Bcast(a, 1, unc, 0, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Iallreduce(a, b, 1, unc, MPI_SUM, w, &req), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Allgather_init(a, 1, unc, b, 1, MPI_INT, w, MPI_INFO_NULL, &req), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Allgather(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Gather(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, 0, w), MPI_ERR_TYPE);
    MPI_Datatype types[64];
    for (int i = 0; i < 64; i++)
        types[i] = MPI_INT;
    types[n - 1] = MPI_DATATYPE_NULL;
    CHECK_CLASS(MPI_Alltoallw(a, cnt, dsp, types, b, cnt, dsp, types, w), MPI_ERR_TYPE);
    types[n - 1] = unc;
    CHECK_CLASS(MPI_Ialltoallw(a, cnt, dsp, types, b, cnt, dsp, types, w, &req), MPI_ERR_TYPE);
    if (me == 0) {
        CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, 0, w), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Scatter(a, 1, unc, b, 1, MPI_INT, 0, w), MPI_ERR_TYPE);
    }

    /* MPI_IN_PLACE where it is not allowed, and aliased buffers. */
    CHECK_CLASS(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Iscan(a, a, 3, MPI_INT, MPI_SUM, w, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Alltoall_init(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w, MPI_INFO_NULL, &req), MPI_ERR_BUFFER);
    if (me == 0) {
        CHECK_CLASS(MPI_Reduce(a, a, 1, MPI_INT, MPI_SUM, 0, w), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, w), MPI_ERR_BUFFER);
    }
    if (n > 1 && me == 1) { /* significant only away from the root */
        CHECK_CLASS(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, 0, w), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, w, &req), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Scatter(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER);
    }

    /* NULL per-process arrays where the call reads them (MPI_IN_PLACE makes the send
     * side's insignificant). */
    CHECK_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, dsp, MPI_INT, w), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Ialltoallv(a, cnt, NULL, MPI_INT, b, cnt, dsp, MPI_INT, w, &req), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Alltoallw_init_c(a, NULL, NULL, types, b, NULL, NULL, types, w, MPI_INFO_NULL, &req), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, w), MPI_ERR_ARG);
    if (me == 0) {
        CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, cnt, NULL, MPI_INT, 0, w), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Scatterv_init(a, NULL, dsp, MPI_INT, b, 1, MPI_INT, 0, w, MPI_INFO_NULL, &req), MPI_ERR_ARG);
    }
    {
        int sa[64], ra[64];
        for (int i = 0; i < n; i++)
            sa[i] = me * 100 + i;
        memcpy(ra, sa, sizeof sa);
        CHECK_OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ra, cnt, dsp, MPI_INT, w));
        for (int i = 0; i < n; i++)
            CHECK(ra[i] == i * 100 + me, "in-place alltoallv with NULL send arrays: slot %d is %d", i, ra[i]);
    }

    /* MPI_COMM_NULL. */
    CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Ibcast(a, 1, MPI_INT, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
    CHECK(req == MPI_REQUEST_NULL, "a failed call set its request");

    /* MPI_Start of an active persistent collective: rank 0 starts a barrier the
     * others join only after its second start failed. */
    MPI_Request bar;
    CHECK_OK(MPI_Barrier_init(w, MPI_INFO_NULL, &bar));
    if (me == 0) {
        CHECK_OK(MPI_Start(&bar));
        if (n > 1)
            CHECK_CLASS(MPI_Start(&bar), MPI_ERR_REQUEST);
        for (int r = 1; r < n; r++)
            CHECK_OK(MPI_Send(NULL, 0, MPI_INT, r, 5, w));
    } else {
        CHECK_OK(MPI_Recv(NULL, 0, MPI_INT, 0, 5, w, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Start(&bar));
    }
    CHECK_OK(MPI_Wait(&bar, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Request_free(&bar));

    /* An error handler on a duplicate sees the errors raised on it. */
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(w, &d));
    CHECK_OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, -5, d), MPI_ERR_ROOT);

    /* The communicators still work: none of the failed calls left a trace. */
    int x = me + 1, y = 0;
    CHECK_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, w));
    CHECK(y == n * (n + 1) / 2, "allreduce after errors: %d", y);
    y = 0;
    CHECK_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, d));
    CHECK(y == n * (n + 1) / 2, "allreduce on a dup after errors: %d", y);
    CHECK_OK(MPI_Comm_free(&d));
    CHECK_OK(MPI_Type_free(&unc));
    lays_free();
    CHECK_OK(MPI_Finalize());
    return 0;
}
