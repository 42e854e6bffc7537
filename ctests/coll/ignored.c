/* Arguments the standard says are not significant must not be checked (issue 29 item
 * 9): with MPI_IN_PLACE at the root of a gather, the root's sendcount and sendtype are
 * ignored; the receive arguments of a gather matter only at the root; with
 * MPI_IN_PLACE at the root of a scatter, its recvcount and recvtype are ignored; the
 * send arguments of a scatter matter only at the root; with MPI_IN_PLACE, an allgather's
 * and an all-to-all's send arguments are ignored. Each collective runs in its blocking,
 * nonblocking and persistent forms with deliberately invalid ignored arguments (count
 * -1, MPI_DATATYPE_NULL, NULL arrays) and must succeed with the right data; a negative
 * count where it is significant is still MPI_ERR_COUNT. */
#include "mpix_test.h"

#define BAD_COUNT (-1)
#define BAD_TYPE MPI_DATATYPE_NULL

static int rank, size;

enum { BLOCKING, NONBLOCKING, PERSISTENT, NFORMS };
static const char *form_name[NFORMS] = {"blocking", "nonblocking", "persistent"};

/* finish completes a nonblocking or persistent operation's request. */
static void finish(int form, MPI_Request *req)
{
    if (form == BLOCKING)
        return;
    if (form == PERSISTENT) {
        CHECK_OK(MPI_Start(req));
        CHECK_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Request_free(req));
        return;
    }
    CHECK_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
}

static int gather(int form, const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Gather(sb, sc, st, rb, rc, rt, root, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Igather(sb, sc, st, rb, rc, rt, root, MPI_COMM_WORLD, req);
    default: return MPI_Gather_init(sb, sc, st, rb, rc, rt, root, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

static int scatter(int form, const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Scatter(sb, sc, st, rb, rc, rt, root, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Iscatter(sb, sc, st, rb, rc, rt, root, MPI_COMM_WORLD, req);
    default: return MPI_Scatter_init(sb, sc, st, rb, rc, rt, root, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

static int allgather(int form, const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Allgather(sb, sc, st, rb, rc, rt, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Iallgather(sb, sc, st, rb, rc, rt, MPI_COMM_WORLD, req);
    default: return MPI_Allgather_init(sb, sc, st, rb, rc, rt, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

static int alltoall(int form, const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Alltoall(sb, sc, st, rb, rc, rt, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Ialltoall(sb, sc, st, rb, rc, rt, MPI_COMM_WORLD, req);
    default: return MPI_Alltoall_init(sb, sc, st, rb, rc, rt, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

static int gatherv(int form, const void *sb, int sc, MPI_Datatype st, void *rb, const int *rcs, const int *dis, MPI_Datatype rt, int root, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Gatherv(sb, sc, st, rb, rcs, dis, rt, root, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Igatherv(sb, sc, st, rb, rcs, dis, rt, root, MPI_COMM_WORLD, req);
    default: return MPI_Gatherv_init(sb, sc, st, rb, rcs, dis, rt, root, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

static int scatterv(int form, const void *sb, const int *scs, const int *dis, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Scatterv(sb, scs, dis, st, rb, rc, rt, root, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Iscatterv(sb, scs, dis, st, rb, rc, rt, root, MPI_COMM_WORLD, req);
    default: return MPI_Scatterv_init(sb, scs, dis, st, rb, rc, rt, root, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

static int allgatherv(int form, const void *sb, int sc, MPI_Datatype st, void *rb, const int *rcs, const int *dis, MPI_Datatype rt, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Allgatherv(sb, sc, st, rb, rcs, dis, rt, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Iallgatherv(sb, sc, st, rb, rcs, dis, rt, MPI_COMM_WORLD, req);
    default: return MPI_Allgatherv_init(sb, sc, st, rb, rcs, dis, rt, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

static int alltoallv(int form, const void *sb, const int *scs, const int *sds, MPI_Datatype st, void *rb, const int *rcs, const int *rds, MPI_Datatype rt, MPI_Request *req)
{
    switch (form) {
    case BLOCKING: return MPI_Alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, MPI_COMM_WORLD);
    case NONBLOCKING: return MPI_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, MPI_COMM_WORLD, req);
    default: return MPI_Alltoallv_init(sb, scs, sds, st, rb, rcs, rds, rt, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    }
}

#define MAXP 64
static int buf[MAXP * 2], mine[2];
static int counts[MAXP], displs[MAXP];

/* Rank r's contribution is {100r, 100r+1}. */
static void check_gathered(const char *what, int form)
{
    for (int r = 0; r < size; r++)
        CHECK(buf[2 * r] == 100 * r && buf[2 * r + 1] == 100 * r + 1, "%s (%s): block %d is {%d,%d}", what,
              form_name[form], r, buf[2 * r], buf[2 * r + 1]);
}

static void fill_all(void)
{
    for (int r = 0; r < size; r++)
        buf[2 * r] = 100 * r, buf[2 * r + 1] = 100 * r + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= MAXP, "at most %d processes", MAXP);
    for (int r = 0; r < size; r++)
        counts[r] = 2, displs[r] = 2 * r;
    mine[0] = 100 * rank, mine[1] = 100 * rank + 1;
    int root = size - 1;
    for (int form = 0; form < NFORMS; form++) {
        MPI_Request req = MPI_REQUEST_NULL;

        /* Gather: in place at the root (its send arguments ignored), the receive
         * arguments ignored elsewhere. */
        memset(buf, 0xff, sizeof buf);
        if (rank == root) {
            buf[2 * root] = mine[0], buf[2 * root + 1] = mine[1];
            CHECK_OK(gather(form, MPI_IN_PLACE, BAD_COUNT, BAD_TYPE, buf, 2, MPI_INT, root, &req));
        } else {
            CHECK_OK(gather(form, mine, 2, MPI_INT, NULL, BAD_COUNT, BAD_TYPE, root, &req));
        }
        finish(form, &req);
        if (rank == root)
            check_gathered("gather in place", form);

        /* Gatherv: the same, and the non-roots' recvcounts and displs may be NULL. */
        memset(buf, 0xff, sizeof buf);
        if (rank == root) {
            buf[2 * root] = mine[0], buf[2 * root + 1] = mine[1];
            CHECK_OK(gatherv(form, MPI_IN_PLACE, BAD_COUNT, BAD_TYPE, buf, counts, displs, MPI_INT, root, &req));
        } else {
            CHECK_OK(gatherv(form, mine, 2, MPI_INT, NULL, NULL, NULL, BAD_TYPE, root, &req));
        }
        finish(form, &req);
        if (rank == root)
            check_gathered("gatherv in place", form);

        /* Scatter: in place at the root (its receive arguments ignored), the send
         * arguments ignored elsewhere. */
        int got[2] = {-1, -1};
        if (rank == root) {
            fill_all();
            CHECK_OK(scatter(form, buf, 2, MPI_INT, MPI_IN_PLACE, BAD_COUNT, BAD_TYPE, root, &req));
        } else {
            CHECK_OK(scatter(form, NULL, BAD_COUNT, BAD_TYPE, got, 2, MPI_INT, root, &req));
        }
        finish(form, &req);
        if (rank != root)
            CHECK(got[0] == 100 * rank && got[1] == 100 * rank + 1, "scatter (%s): {%d,%d}", form_name[form], got[0], got[1]);
        else
            check_gathered("scatter in place leaves the root's buffer", form);

        /* Scatterv: the non-roots' sendcounts and displs may be NULL. */
        got[0] = got[1] = -1;
        if (rank == root) {
            fill_all();
            CHECK_OK(scatterv(form, buf, counts, displs, MPI_INT, MPI_IN_PLACE, BAD_COUNT, BAD_TYPE, root, &req));
        } else {
            CHECK_OK(scatterv(form, NULL, NULL, NULL, BAD_TYPE, got, 2, MPI_INT, root, &req));
        }
        finish(form, &req);
        if (rank != root)
            CHECK(got[0] == 100 * rank && got[1] == 100 * rank + 1, "scatterv (%s): {%d,%d}", form_name[form], got[0], got[1]);

        /* Allgather(v) in place: the send arguments are ignored everywhere. */
        memset(buf, 0xff, sizeof buf);
        buf[2 * rank] = mine[0], buf[2 * rank + 1] = mine[1];
        CHECK_OK(allgather(form, MPI_IN_PLACE, BAD_COUNT, BAD_TYPE, buf, 2, MPI_INT, &req));
        finish(form, &req);
        check_gathered("allgather in place", form);
        memset(buf, 0xff, sizeof buf);
        buf[2 * rank] = mine[0], buf[2 * rank + 1] = mine[1];
        CHECK_OK(allgatherv(form, MPI_IN_PLACE, BAD_COUNT, BAD_TYPE, buf, counts, displs, MPI_INT, &req));
        finish(form, &req);
        check_gathered("allgatherv in place", form);

        /* Alltoall(v) in place: block r of rank q is 1000q + r before, 1000r + q after. */
        for (int r = 0; r < size; r++)
            buf[r] = 1000 * rank + r;
        CHECK_OK(alltoall(form, MPI_IN_PLACE, BAD_COUNT, BAD_TYPE, buf, 1, MPI_INT, &req));
        finish(form, &req);
        for (int r = 0; r < size; r++)
            CHECK(buf[r] == 1000 * r + rank, "alltoall in place (%s): block %d is %d", form_name[form], r, buf[r]);
        int ones[MAXP], idx[MAXP];
        for (int r = 0; r < size; r++)
            buf[r] = 1000 * rank + r, ones[r] = 1, idx[r] = r;
        CHECK_OK(alltoallv(form, MPI_IN_PLACE, NULL, NULL, BAD_TYPE, buf, ones, idx, MPI_INT, &req));
        finish(form, &req);
        for (int r = 0; r < size; r++)
            CHECK(buf[r] == 1000 * r + rank, "alltoallv in place (%s): block %d is %d", form_name[form], r, buf[r]);
    }

    /* MPI_Reduce: the receive buffer matters only at the root (NULL elsewhere); a
     * datatype handle that is not even a datatype, where ignored. */
    int sum = -1;
    CHECK_OK(MPI_Reduce(&mine[0], rank == root ? &sum : NULL, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root)
        CHECK(sum == 100 * size * (size - 1) / 2, "reduce to the root: %d", sum);
    memset(buf, 0xff, sizeof buf);
    buf[2 * rank] = mine[0], buf[2 * rank + 1] = mine[1];
    CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 12345, (MPI_Datatype)0x12345, buf, 2, MPI_INT, MPI_COMM_WORLD));
    check_gathered("allgather in place with a garbage send type", 0);

    /* Alltoallw in place: the send counts, displacements and types are ignored. */
    {
        int ones[MAXP], bdis[MAXP];
        MPI_Datatype ints[MAXP];
        for (int r = 0; r < size; r++)
            buf[r] = 1000 * rank + r, ones[r] = 1, bdis[r] = r * (int)sizeof(int), ints[r] = MPI_INT;
        CHECK_OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, ones, bdis, ints, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++)
            CHECK(buf[r] == 1000 * r + rank, "alltoallw in place: block %d is %d", r, buf[r]);
    }

    /* Intercommunicator gather and scatter: at MPI_ROOT the send (gather) or receive
     * (scatter) arguments are ignored, at MPI_PROC_NULL all of them. Group A is rank
     * 0 (the root) and, from 4 processes, rank 1 (MPI_PROC_NULL); group B the others. */
    if (size >= 3) {
        MPI_Comm half, inter;
        int na = size >= 4 ? 2 : 1, inA = rank < na;
        CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, inA, rank, &half));
        CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, inA ? na : 0, 5, &inter));
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        int hr, hn, rsize;
        MPI_Comm_rank(half, &hr);
        MPI_Comm_size(half, &hn);
        MPI_Comm_remote_size(inter, &rsize);
        int got[MAXP];
        if (inA && hr == 1) {
            CHECK_OK(MPI_Gather(NULL, BAD_COUNT, BAD_TYPE, NULL, BAD_COUNT, BAD_TYPE, MPI_PROC_NULL, inter));
            CHECK_OK(MPI_Scatter(NULL, BAD_COUNT, BAD_TYPE, NULL, BAD_COUNT, BAD_TYPE, MPI_PROC_NULL, inter));
        } else if (inA) {
            memset(got, 0xff, sizeof got);
            CHECK_OK(MPI_Gather(NULL, BAD_COUNT, BAD_TYPE, got, 1, MPI_INT, MPI_ROOT, inter));
            for (int r = 0; r < rsize; r++)
                CHECK(got[r] == 7 * r, "intercomm gather: %d from %d", got[r], r);
            for (int r = 0; r < rsize; r++)
                got[r] = 9 * r;
            CHECK_OK(MPI_Scatter(got, 1, MPI_INT, NULL, BAD_COUNT, BAD_TYPE, MPI_ROOT, inter));
        } else {
            int v = 7 * hr, w = -1;
            CHECK_OK(MPI_Gather(&v, 1, MPI_INT, NULL, BAD_COUNT, BAD_TYPE, 0, inter));
            CHECK_OK(MPI_Scatter(NULL, BAD_COUNT, BAD_TYPE, &w, 1, MPI_INT, 0, inter));
            CHECK(w == 9 * hr, "intercomm scatter: %d", w);
        }
        (void)hn;
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

    /* Where a count is significant, a negative one is still refused, on every rank
     * alike (so no rank waits for a refused one). */
    MPI_Request req;
    CHECK_CLASS(MPI_Allgather(mine, BAD_COUNT, MPI_INT, buf, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_INT, buf, BAD_COUNT, MPI_INT, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Alltoall(mine, 1, MPI_INT, buf, BAD_COUNT, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Igather(mine, BAD_COUNT, MPI_INT, buf, 2, MPI_INT, root, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Allgather(mine, 2, BAD_TYPE, buf, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE);
    if (rank == root)
        CHECK_CLASS(MPI_Gather(mine, 2, MPI_INT, buf, BAD_COUNT, MPI_INT, root, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll ignored: every form accepted invalid ignored arguments on %d processes\n", size);
    MPI_Finalize();
    return 0;
}
