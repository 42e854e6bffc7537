/* Threadcomm messages between threads of one process take the C queues (capi/
 * threadcomm/) for builtin datatypes and the Go path for the rest (derived datatypes,
 * Sendrecv_replace, Bsend, large-count calls); both must deliver in order on one pair.
 * Each thread sends its ring successor a sequence of messages mixing both paths and
 * sizes across the 16 KiB eager threshold, and the receiver takes them mixing both
 * paths too, checking order and contents. Then: a sender that completes while its
 * receiver sleeps (the heap-copy fallback of a single-copy send), pre-posted and
 * wildcard receives, Waitall over C and Go requests, truncation reported through
 * MPI_ERRORS_RETURN, and Barrier/Bcast/Reduce/Allreduce checked against their
 * definitions. With MPIX_FASTPATH=0 (a second test) the same runs through the engine.
 * Usage: tc_fastpath THREADS */
#include <omp.h>
#include <stdint.h>
#include <unistd.h>
#include "mpix_test.h"
#include <mpix.h>

#define BIG (16 << 10)
static const int sizes[] = {8, BIG, BIG + 1, 200000};
#define NSIZES 4

static int val(int src, int seq, int i) { return src * 1000003 + seq * 7919 + i; }

static void fill(int *b, int n, int src, int seq)
{
    for (int i = 0; i < n; i++)
        b[i] = val(src, seq, i);
}

static void verify(const int *b, int n, int src, int seq, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(b[i] == val(src, seq, i), "%s: message %d from %d word %d: got %d want %d", what, seq, src, i, b[i],
              val(src, seq, i));
}

/* Ordered traffic on one pair across both paths. Message seq has sizes[seq % NSIZES]
 * bytes (rounded to ints); even seq go by MPI_Send/Isend/Ssend (C), odd by a vector
 * type (Go path) or MPI_Bsend-like Go calls. */
static void ordered(MPI_Comm tc, int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    enum { NMSG = 12 };
    int maxw = sizes[NSIZES - 1] / 4 + 1;
    int *sb = malloc(sizeof(int) * maxw * NMSG), *rb = malloc(sizeof(int) * maxw);
    MPI_Datatype vec; /* maxw ints as a strided vector of blocks of 1: packed by Go */
    MPI_Request sreq[NMSG];
    int nsreq = 0;
    /* Even ranks send first and odd ranks receive first, then the other way round: a
     * valid program even where a blocking send waits for its receiver. */
    for (int phase = 0; phase < 2; phase++) {
    if ((rank % 2 == 0) != (phase == 0))
        goto receive;
    for (int seq = 0; seq < NMSG; seq++) {
        int n = sizes[seq % NSIZES] / 4;
        int *b = sb + (size_t)seq * maxw;
        fill(b, n, rank, seq);
        switch (seq % 4) {
        case 0:
            CHECK_OK(MPI_Send(b, n, MPI_INT, next, seq, tc));
            break;
        case 1: /* Go path: a derived type */
            CHECK_OK(MPI_Type_contiguous(n, MPI_INT, &vec));
            CHECK_OK(MPI_Type_commit(&vec));
            CHECK_OK(MPI_Send(b, 1, vec, next, seq, tc));
            CHECK_OK(MPI_Type_free(&vec));
            break;
        case 2:
            CHECK_OK(MPI_Isend(b, n, MPI_INT, next, seq, tc, &sreq[nsreq++]));
            break;
        case 3: /* Go path: MPI_Rsend has no C fast path */
            CHECK_OK(MPI_Rsend(b, n, MPI_INT, next, seq, tc));
            break;
        }
    }
    continue;
receive:
    for (int seq = 0; seq < NMSG; seq++) {
        int n = sizes[seq % NSIZES] / 4;
        MPI_Status st;
        int count;
        /* Probe (C) first, then receive by one path or the other, with ANY_TAG:
         * order alone decides which message comes. */
        CHECK_OK(MPI_Probe(prev, MPI_ANY_TAG, tc, &st));
        CHECK(st.MPI_TAG == seq, "probe found tag %d, want %d", st.MPI_TAG, seq);
        if (seq % 3 == 0) {
            MPI_Datatype t;
            CHECK_OK(MPI_Type_contiguous(maxw, MPI_INT, &t));
            CHECK_OK(MPI_Type_commit(&t));
            /* Count 1 of a derived type: the Go path. */
            CHECK_OK(MPI_Recv(rb, 1, t, prev, MPI_ANY_TAG, tc, &st));
            CHECK_OK(MPI_Type_free(&t));
        } else
            CHECK_OK(MPI_Recv(rb, maxw, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, tc, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_TAG == seq && st.MPI_SOURCE == prev && count == 4 * n, "message %d: tag %d source %d bytes %d", seq,
              st.MPI_TAG, st.MPI_SOURCE, count);
        verify(rb, n, prev, seq, "ordered");
    }
    }
    CHECK_OK(MPI_Waitall(nsreq, sreq, MPI_STATUSES_IGNORE));
    /* Ssend (C, synchronous) and Sendrecv_replace (Go path) between C sends. */
    int x = rank, y = -1;
    CHECK_OK(MPI_Send(&x, 1, MPI_INT, next, 50, tc));
    if (rank % 2 == 0) {
        CHECK_OK(MPI_Ssend(&x, 1, MPI_INT, next, 51, tc));
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, prev, 50, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, prev, 51, tc, MPI_STATUS_IGNORE));
    } else {
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, prev, 50, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, prev, 51, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Ssend(&x, 1, MPI_INT, next, 51, tc));
    }
    CHECK(y == prev, "ssend got %d want %d", y, prev);
    int z = rank;
    CHECK_OK(MPI_Sendrecv_replace(&z, 1, MPI_INT, next, 52, prev, 52, tc, MPI_STATUS_IGNORE));
    CHECK(z == prev, "sendrecv_replace got %d want %d", z, prev);
    free(sb);
    free(rb);
}

/* A large send completes while its receiver sleeps (the sender copies and leaves),
 * and the sender's buffer is reused at once. */
static void orphan(MPI_Comm tc, int rank, int size)
{
    int n = 100000;
    int *b = malloc(sizeof(int) * n), *r = malloc(sizeof(int) * n);
    if (size < 2)
        return;
    if (rank == 0) {
        fill(b, n, rank, 77);
        CHECK_OK(MPI_Send(b, n, MPI_INT, 1, 77, tc));
        memset(b, 0, sizeof(int) * n);
    } else if (rank == 1) {
        usleep(20000);
        CHECK_OK(MPI_Recv(r, n, MPI_INT, 0, 77, tc, MPI_STATUS_IGNORE));
        verify(r, n, 0, 77, "orphan");
    }
    free(b);
    free(r);
}

/* Pre-posted receives (one wildcard) completed in posting order, in a Waitall with a
 * Go request on MPI_COMM_SELF. */
static void preposted(MPI_Comm tc, int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int in[3] = {-1, -1, -1}, out[3] = {rank, rank + 10, rank + 20}, self_in = -1, self_out = rank;
    MPI_Request rq[6];
    MPI_Status st[6];
    CHECK_OK(MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 60, tc, &rq[0]));
    CHECK_OK(MPI_Irecv(&in[1], 1, MPI_INT, prev, MPI_ANY_TAG, tc, &rq[1]));
    CHECK_OK(MPI_Irecv(&self_in, 1, MPI_INT, 0, 1000 + rank, MPI_COMM_SELF, &rq[2]));
    CHECK_OK(MPI_Barrier(tc)); /* every receive is posted before any send */
    CHECK_OK(MPI_Isend(&out[0], 1, MPI_INT, next, 60, tc, &rq[3]));
    CHECK_OK(MPI_Isend(&out[1], 1, MPI_INT, next, 61, tc, &rq[4]));
    CHECK_OK(MPI_Isend(&self_out, 1, MPI_INT, 0, 1000 + rank, MPI_COMM_SELF, &rq[5]));
    CHECK_OK(MPI_Waitall(6, rq, st));
    CHECK(in[0] == prev && in[1] == prev + 10 && self_in == rank, "preposted got %d %d %d", in[0], in[1], self_in);
    CHECK(st[0].MPI_SOURCE == prev && st[1].MPI_TAG == 61, "preposted status %d %d", st[0].MPI_SOURCE, st[1].MPI_TAG);
    for (int i = 0; i < 6; i++)
        CHECK(rq[i] == MPI_REQUEST_NULL, "request %d not reset", i);
    /* Test polls a request to completion. */
    int flag = 0;
    CHECK_OK(MPI_Irecv(&in[2], 1, MPI_INT, prev, 62, tc, &rq[0]));
    CHECK_OK(MPI_Send(&out[2], 1, MPI_INT, next, 62, tc));
    while (!flag)
        CHECK_OK(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE));
    CHECK(in[2] == prev + 20 && rq[0] == MPI_REQUEST_NULL, "test got %d", in[2]);
}

/* Truncation is an error of class MPI_ERR_TRUNCATE, by both paths. */
static void truncation(MPI_Comm tc, int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int out[4] = {1, 2, 3, 4}, in[2];
    MPI_Request r;
    CHECK_OK(MPI_Send(out, 4, MPI_INT, next, 70, tc));
    CHECK_CLASS(MPI_Recv(in, 2, MPI_INT, prev, 70, tc, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
    CHECK_OK(MPI_Send(out, 4, MPI_INT, next, 71, tc));
    CHECK_OK(MPI_Irecv(in, 2, MPI_INT, prev, 71, tc, &r));
    CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
}

static void collectives(MPI_Comm tc, int rank, int size)
{
    enum { N = 1000 };
    int a[N], s[N];
    double d[N], dmax[N];
    for (int i = 0; i < N; i++) {
        a[i] = rank + i;
        d[i] = (double)((rank * 7 + i) % size);
    }
    CHECK_OK(MPI_Allreduce(a, s, N, MPI_INT, MPI_SUM, tc));
    for (int i = 0; i < N; i++)
        CHECK(s[i] == size * (size - 1) / 2 + size * i, "allreduce[%d] = %d", i, s[i]);
    int root = size - 1;
    CHECK_OK(MPI_Reduce(d, dmax, N, MPI_DOUBLE, MPI_MAX, root, tc));
    if (rank == root)
        for (int i = 0; i < N; i++)
            CHECK(dmax[i] == (double)(size - 1 < N ? size - 1 : 0) || size == 1 || dmax[i] == size - 1,
                  "reduce max[%d] = %g", i, dmax[i]);
    /* In place at the root. */
    for (int i = 0; i < N; i++)
        s[i] = 1;
    CHECK_OK(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : s, s, N, MPI_INT, MPI_SUM, 0, tc));
    if (rank == 0)
        for (int i = 0; i < N; i++)
            CHECK(s[i] == size, "in-place reduce[%d] = %d", i, s[i]);
    long v[3] = {0, 0, 0};
    if (rank == 1 % size)
        v[0] = 11, v[1] = 22, v[2] = 33;
    CHECK_OK(MPI_Bcast(v, 3, MPI_LONG, 1 % size, tc));
    CHECK(v[0] == 11 && v[1] == 22 && v[2] == 33, "bcast got %ld %ld %ld", v[0], v[1], v[2]);
    for (int i = 0; i < 100; i++)
        CHECK_OK(MPI_Barrier(tc));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpix_test_path_begin();
    int nt = argc > 1 ? atoi(argv[1]) : 4;
    MPI_Comm tc;
    /* The engine path reports a failed MPI_Wait through MPI_COMM_WORLD's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &tc));
    int failed = 0;
    for (int round = 0; round < 2; round++) {
#pragma omp parallel num_threads(nt)
        {
            int rank, size;
            CHECK_OK(MPIX_Threadcomm_start(tc));
            MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN);
            CHECK_OK(MPI_Comm_rank(tc, &rank));
            CHECK_OK(MPI_Comm_size(tc, &size));
            ordered(tc, rank, size);
            orphan(tc, rank, size);
            preposted(tc, rank, size);
            truncation(tc, rank, size);
            collectives(tc, rank, size);
            int flag = 1;
            MPI_Status st;
            CHECK_OK(MPI_Barrier(tc));
            CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, tc, &flag, &st));
            CHECK(!flag, "a message from %d tag %d is left over", st.MPI_SOURCE, st.MPI_TAG);
            CHECK_OK(MPIX_Threadcomm_finish(tc));
        }
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    if (!failed)
        printf("tc_fastpath ok: %d threads\n", nt);
    mpix_test_path_end();
    MPI_Finalize();
    return 0;
}
