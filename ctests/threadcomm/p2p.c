/* Point-to-point on a threadcomm: every src->dst pair (between threads of one process
 * and of different processes) with sizes across the eager/single-copy threshold,
 * blocking and nonblocking, with status checks; MPI_ANY_SOURCE/MPI_ANY_TAG across
 * processes; MPI_TAG_UB; Ssend, Sendrecv, Probe/Iprobe/Mprobe and persistent requests.
 * Usage: tc_p2p THREADS [uneven]  (uneven: rank r runs THREADS+r threads). */
#include <omp.h>
#include <stdint.h>
#include "mpix_test.h"
#include <mpix.h>

/* 300001 and 1 MiB are copied by both threads (above 256 KiB, in 64 KiB chunks: a
 * short last one, and whole ones). */
static const int sizes[] = {0, 1, 8, 1000, 4096, 4097, 70000, 300001, 1 << 20};
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))

static unsigned char val(int src, int dst, int i, int k) { return (unsigned char)(src * 31 + dst * 7 + i * 3 + k); }

static void fill(unsigned char *b, int n, int src, int dst, int k)
{
    for (int i = 0; i < n; i++)
        b[i] = val(src, dst, i, k);
}

static void verify(const unsigned char *b, int n, int src, int dst, int k)
{
    for (int i = 0; i < n; i++)
        if (b[i] != val(src, dst, i, k)) {
            fprintf(stderr, "FAIL: %d->%d size %d byte %d: got %d want %d\n", src, dst, n, i, b[i], val(src, dst, i, k));
            exit(1);
        }
}

static void pairs(MPI_Comm tc, int rank, int size, int nonblocking)
{
    int maxn = sizes[NSIZES - 1];
    unsigned char *sb = malloc((size_t)maxn * size), *rb = malloc((size_t)maxn * size);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * size);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * 2 * size);
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int p = 0; p < size; p++)
            fill(sb + (size_t)p * maxn, n, rank, p, k);
        memset(rb, 0xee, (size_t)maxn * size);
        if (nonblocking) {
            for (int p = 0; p < size; p++)
                CHECK_OK(MPI_Irecv(rb + (size_t)p * maxn, n, MPI_BYTE, p, k, tc, &reqs[p]));
            for (int p = 0; p < size; p++)
                CHECK_OK(MPI_Isend(sb + (size_t)p * maxn, n, MPI_BYTE, p, k, tc, &reqs[size + p]));
            /* A completion of several that succeeds leaves MPI_ERROR alone (MPI 4.1
             * 3.2.5): Waitall, or Testall until done. */
            for (int i = 0; i < 2 * size; i++)
                sts[i].MPI_ERROR = 4242;
            if (k % 2 == 0)
                CHECK_OK(MPI_Waitall(2 * size, reqs, sts));
            else
                for (int done = 0; !done;)
                    CHECK_OK(MPI_Testall(2 * size, reqs, &done, sts));
            for (int i = 0; i < 2 * size; i++)
                CHECK(sts[i].MPI_ERROR == 4242, "%s wrote MPI_ERROR %d on success", k % 2 ? "Testall" : "Waitall",
                      sts[i].MPI_ERROR);
        } else {
            /* Pairwise exchange in rounds: in round s, send to rank+s, receive from rank-s. */
            for (int s = 0; s < size; s++) {
                int to = (rank + s) % size, from = (rank - s + size) % size;
                CHECK_OK(MPI_Sendrecv(sb + (size_t)to * maxn, n, MPI_BYTE, to, k, rb + (size_t)from * maxn, n,
                                      MPI_BYTE, from, k, tc, &sts[from]));
            }
        }
        for (int p = 0; p < size; p++) {
            int count;
            CHECK(sts[p].MPI_SOURCE == p, "source %d want %d", sts[p].MPI_SOURCE, p);
            CHECK(sts[p].MPI_TAG == k, "tag %d want %d", sts[p].MPI_TAG, k);
            MPI_Get_count(&sts[p], MPI_BYTE, &count);
            CHECK(count == n, "count %d want %d", count, n);
            verify(rb + (size_t)p * maxn, n, p, rank, k);
        }
    }
    free(sb), free(rb), free(reqs), free(sts);
}

/* Blocking Send/Recv ring in both directions, with Ssend and large messages. */
static void ring(MPI_Comm tc, int rank, int size)
{
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        unsigned char *b = malloc(n + 1);
        int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
        MPI_Status st;
        if (rank % 2 == 0) {
            fill(b, n, rank, next, k);
            CHECK_OK(MPI_Ssend(b, n, MPI_BYTE, next, 100 + k, tc));
            CHECK_OK(MPI_Recv(b, n, MPI_BYTE, prev, 100 + k, tc, &st));
        } else {
            CHECK_OK(MPI_Recv(b, n, MPI_BYTE, prev, 100 + k, tc, &st));
            verify(b, n, prev, rank, k);
            fill(b, n, rank, next, k);
            CHECK_OK(MPI_Send(b, n, MPI_BYTE, next, 100 + k, tc));
            continue;
        }
        verify(b, n, prev, rank, k);
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 100 + k, "ring status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        free(b);
    }
}

/* Everyone sends its rank to rank 0 with tag = MPI_TAG_UB - rank; rank 0 receives with
 * both wildcards (across processes) and checks each sender once. */
static void wildcards(MPI_Comm tc, int rank, int size)
{
    int *tagub, flag;
    CHECK_OK(MPI_Comm_get_attr(tc, MPI_TAG_UB, &tagub, &flag));
    CHECK(flag && *tagub == 2147483647, "MPI_TAG_UB %d", flag ? *tagub : -1);
    if (rank != 0) {
        int v = rank;
        CHECK_OK(MPI_Send(&v, 1, MPI_INT, 0, *tagub - rank, tc));
        return;
    }
    char *seen = calloc(size, 1);
    for (int i = 1; i < size; i++) {
        int v = -1;
        MPI_Status st;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, tc, &st));
        CHECK(v == st.MPI_SOURCE && st.MPI_TAG == *tagub - v && !seen[v], "wildcard got %d from %d tag %d", v, st.MPI_SOURCE, st.MPI_TAG);
        seen[v] = 1;
    }
    free(seen);
}

/* Probe, Iprobe and Mprobe/Mrecv; the message comes from the rank before (any process). */
static void probes(MPI_Comm tc, int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int out[3] = {rank, rank * 2, rank * 3}, in[3];
    MPI_Request r;
    MPI_Status st;
    CHECK_OK(MPI_Isend(out, 3, MPI_INT, next, 7, tc, &r));
    CHECK_OK(MPI_Probe(MPI_ANY_SOURCE, 7, tc, &st));
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == prev && count == 3, "probe source %d count %d", st.MPI_SOURCE, count);
    int flag = 0;
    while (!flag)
        CHECK_OK(MPI_Iprobe(prev, MPI_ANY_TAG, tc, &flag, &st));
    CHECK(st.MPI_TAG == 7, "iprobe tag %d", st.MPI_TAG);
    MPI_Message m;
    CHECK_OK(MPI_Mprobe(prev, 7, tc, &m, &st));
    CHECK_OK(MPI_Mrecv(in, 3, MPI_INT, &m, &st));
    CHECK(in[0] == prev && in[2] == 3 * prev && st.MPI_SOURCE == prev, "mrecv got %d", in[0]);
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

/* Persistent send and receive to the neighbours, started several times. */
static void persistent(MPI_Comm tc, int rank, int size, int first)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int out, in;
    MPI_Request rq[2];
    MPI_Status st[2];
    CHECK_OK(MPI_Recv_init(&in, 1, MPI_INT, prev, 9, tc, &rq[0]));
    CHECK_OK(MPI_Send_init(&out, 1, MPI_INT, next, 9, tc, &rq[1]));
    for (int it = 0; it < 5; it++) {
        out = rank * 100 + it;
        CHECK_OK(MPI_Startall(2, rq));
        CHECK_OK(MPI_Waitall(2, rq, st));
        CHECK(in == prev * 100 + it && st[0].MPI_SOURCE == prev, "persistent got %d", in);
    }
    /* A bad request anywhere in Startall starts none of them: an active one below
     * would fail the next Startall. */
    MPI_Request bad[3] = {rq[0], MPI_REQUEST_NULL, rq[1]};
    CHECK_CLASS(MPI_Startall(3, bad), MPI_ERR_REQUEST);
    if (rank == first) {
        /* Mixed with a request of another communicator (Go's), valid or not. */
        int x = 5, y = 0;
        MPI_Request g, mix[3];
        CHECK_OK(MPI_Send_init(&x, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &g));
        mix[0] = rq[0], mix[1] = g, mix[2] = MPI_REQUEST_NULL;
        CHECK_CLASS(MPI_Startall(3, mix), MPI_ERR_REQUEST);
        CHECK_OK(MPI_Start(&g)); /* still inactive */
        mix[2] = g;
        CHECK_CLASS(MPI_Startall(3, mix), MPI_ERR_REQUEST); /* g is active now */
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&g, MPI_STATUS_IGNORE));
        CHECK(y == 5, "self message got %d", y);
        MPI_Request_free(&g);
    }
    out = rank * 100 + 99;
    CHECK_OK(MPI_Startall(2, rq));
    CHECK_OK(MPI_Waitall(2, rq, st));
    CHECK(in == prev * 100 + 99, "persistent after a failed Startall got %d", in);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
}

/* A truncated receive: the status peeks (MPI_Request_get_status and its MPI-4.1
 * forms) report MPI_ERR_TRUNCATE as the completions do, and leave the request. */
static void truncated(MPI_Comm tc, int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int out[8] = {0}, in[2], flag = 0, index, outcount, idx, rc = MPI_SUCCESS;
    MPI_Request r;
    MPI_Status st;
    CHECK_OK(MPI_Irecv(in, 2, MPI_INT, prev, 31, tc, &r));
    CHECK_OK(MPI_Send(out, 8, MPI_INT, next, 31, tc));
    while (!flag && rc == MPI_SUCCESS)
        rc = MPI_Request_get_status(r, &flag, &st);
    CHECK(flag && mpix_test_class(rc) == MPI_ERR_TRUNCATE, "get_status: class %d", mpix_test_class(rc));
    rc = MPI_Request_get_status_all(1, &r, &flag, &st);
    CHECK(flag && mpix_test_class(rc) == MPI_ERR_IN_STATUS && st.MPI_ERROR == MPI_ERR_TRUNCATE,
          "get_status_all: class %d, error %d", mpix_test_class(rc), st.MPI_ERROR);
    rc = MPI_Request_get_status_any(1, &r, &index, &flag, &st);
    CHECK(flag && index == 0 && mpix_test_class(rc) == MPI_ERR_TRUNCATE, "get_status_any: class %d",
          mpix_test_class(rc));
    rc = MPI_Request_get_status_some(1, &r, &outcount, &idx, &st);
    CHECK(outcount == 1 && mpix_test_class(rc) == MPI_ERR_IN_STATUS && st.MPI_ERROR == MPI_ERR_TRUNCATE,
          "get_status_some: %d, class %d", outcount, mpix_test_class(rc));
    CHECK(r != MPI_REQUEST_NULL, "a peek completed the request");
    /* A single-status completion leaves the status's MPI_ERROR alone (MPI 4.1 3.2.5). */
    st.MPI_ERROR = 4242;
    rc = MPI_Testany(1, &r, &index, &flag, &st);
    CHECK(flag && index == 0 && mpix_test_class(rc) == MPI_ERR_TRUNCATE && r == MPI_REQUEST_NULL &&
              st.MPI_ERROR == 4242,
          "Testany: class %d, MPI_ERROR %d", mpix_test_class(rc), st.MPI_ERROR);
    /* A Waitall with one truncated receive among good ones, one of them on
     * MPI_COMM_SELF (a Go request, completed after the threadcomm's): every status's
     * MPI_ERROR is set, MPI_SUCCESS for the good ones, whichever completes first. */
    int good[3][2] = {{0}};
    MPI_Request rs[4];
    MPI_Status sts[4];
    CHECK_OK(MPI_Irecv(good[0], 2, MPI_INT, prev, 32, tc, &rs[0]));
    CHECK_OK(MPI_Irecv(in, 2, MPI_INT, prev, 33, tc, &rs[1]));
    CHECK_OK(MPI_Irecv(good[1], 2, MPI_INT, 0, 35 + rank, MPI_COMM_SELF, &rs[2]));
    CHECK_OK(MPI_Irecv(good[2], 2, MPI_INT, prev, 34, tc, &rs[3]));
    CHECK_OK(MPI_Send(out, 2, MPI_INT, next, 32, tc));
    CHECK_OK(MPI_Send(out, 8, MPI_INT, next, 33, tc));
    CHECK_OK(MPI_Send(out, 2, MPI_INT, 0, 35 + rank, MPI_COMM_SELF));
    CHECK_OK(MPI_Send(out, 2, MPI_INT, next, 34, tc));
    for (int i = 0; i < 4; i++)
        sts[i].MPI_ERROR = 4242;
    rc = MPI_Waitall(4, rs, sts);
    CHECK(mpix_test_class(rc) == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_SUCCESS &&
              sts[1].MPI_ERROR == MPI_ERR_TRUNCATE && sts[2].MPI_ERROR == MPI_SUCCESS &&
              sts[3].MPI_ERROR == MPI_SUCCESS,
          "Waitall: class %d, errors %d %d %d %d", mpix_test_class(rc), sts[0].MPI_ERROR, sts[1].MPI_ERROR,
          sts[2].MPI_ERROR, sts[3].MPI_ERROR);
}

int main(int argc, char **argv)
{
    int provided, wrank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int nt = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2)
        nt += wrank;
    int total;
    MPI_Allreduce(&nt, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int first;
    MPI_Exscan(&nt, &first, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        first = 0;
    MPI_Comm tc;
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, nt, &tc));
    /* Errors of calls with no communicator (MPI_Startall) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int failed = 0;
#pragma omp parallel num_threads(nt)
    {
        int rank, size;
        CHECK_OK(MPIX_Threadcomm_start(tc));
        MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN);
        CHECK_OK(MPI_Comm_rank(tc, &rank));
        CHECK_OK(MPI_Comm_size(tc, &size));
        CHECK(size == total && rank >= first && rank < first + nt, "rank %d size %d", rank, size);
        pairs(tc, rank, size, 0);
        pairs(tc, rank, size, 1);
        ring(tc, rank, size);
        wildcards(tc, rank, size);
        CHECK_OK(MPI_Barrier(tc)); /* no later message may meet the wildcard receives */
        probes(tc, rank, size);
        persistent(tc, rank, size, first);
        truncated(tc, rank, size);
        CHECK_OK(MPIX_Threadcomm_finish(tc));
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    CHECK(tc == MPI_COMM_NULL, "free did not reset the handle");
    if (wrank == 0 && !failed)
        printf("tc_p2p ok: %d ranks\n", total);
    MPI_Finalize();
    return 0;
}
