/* Threadcomm regions entered and left in C (threadcomm/region.c: tc_start, tc_finish): a
 * single-process threadcomm whose region used only C calls parks Go's activation at
 * finish, and the next start is a C barrier. This test runs many regions and checks
 * that every one behaves as if Go had started and finished it:
 *   - ranks are a permutation of 0..n-1 in every region, p2p and collectives work;
 *   - regions that use Go (attributes, duplicates, derived datatypes, error handlers) are
 *     interleaved with C-only ones, and what they derived dies at their finish
 *     (delete callbacks once per thread, duplicates freed, attributes gone next time);
 *   - the misuse errors keep their classes once C has taken over: inactive use
 *     between regions, start twice, nested start, free while active, a wrong team
 *     size, finish outside a region;
 *   - bursts of messages of mixed sizes and modes from every thread to one arrive in
 *     order per sender (fastboxes, queued cells and direct copies mix);
 *   - collectives above the one-barrier size (sliced folds), in place too, and
 *     reductions of counts around the slices' edges, and back to back;
 *   - messages a region leaves unreceived do not reach the next one; receives it
 *     leaves posted fail at their Wait after it (MPI_ERR_PENDING) or, freed, go;
 *   - MPI_Request_free of a posted receive returns at once and the message still
 *     lands (every size class and a derived datatype);
 *   - MPIX_ and MPI_ spellings mix, and free after C regions, then a new threadcomm
 *     (whose handle may be the freed one's) starts cleanly.
 * Argument: threads per process (default 4). At two processes the threadcomm spans
 * both and everything goes through Go: the same checks hold. */
#include <omp.h>
#include <string.h>
#include "mpix_test.h"
#include <mpix.h>

#define ROUNDS 300
#define MAXT 64

static int deletes;

static int del_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
#pragma omp atomic
    deletes++;
    return MPI_SUCCESS;
}

/* What a region does with Go: chosen per round. */
enum { USE_C_ONLY, USE_ATTR, USE_DUP, USE_TYPED, USE_ERRH, USE_KINDS };

static MPI_Datatype pair_type;

static int seen[MAXT];
static MPI_Request pending[MAXT]; /* receives an erroneous region leaves posted */

/* region_body checks ranks, p2p and collectives on an active threadcomm; it returns
 * the thread's rank. */
static int region_body(MPI_Comm tc, int nt, int round)
{
    int rank, size;
    CHECK_OK(MPI_Comm_rank(tc, &rank));
    CHECK_OK(MPI_Comm_size(tc, &size));
    CHECK(size == nt, "round %d: size %d, want %d", round, size, nt);
    CHECK(rank >= 0 && rank < nt, "round %d: rank %d", round, rank);
#pragma omp atomic
    seen[rank]++;
    /* A ring with the round in the payload. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got[2] = {-1, -1}, msg[2] = {rank, round};
    MPI_Request rq;
    CHECK_OK(MPI_Irecv(got, 2, MPI_INT, prev, round, tc, &rq));
    CHECK_OK(MPI_Send(msg, 2, MPI_INT, next, round, tc));
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(got[0] == prev && got[1] == round, "round %d: ring got (%d,%d) from %d", round, got[0], got[1], prev);
    /* Collectives against serial references. */
    int v[40], sum[40];
    for (int i = 0; i < 40; i++)
        v[i] = rank * 100 + i + round;
    CHECK_OK(MPI_Allreduce(v, sum, 40, MPI_INT, MPI_SUM, tc));
    for (int i = 0; i < 40; i++)
        CHECK(sum[i] == 100 * size * (size - 1) / 2 + size * (i + round), "round %d: allreduce[%d] = %d", round, i,
              sum[i]);
    int root = round % size, mx = -1;
    CHECK_OK(MPI_Reduce(&rank, &mx, 1, MPI_INT, MPI_MAX, root, tc));
    if (rank == root)
        CHECK(mx == size - 1, "round %d: reduce max %d", round, mx);
    int b = rank == root ? round * 7 : -1;
    CHECK_OK(MPI_Bcast(&b, 1, MPI_INT, root, tc));
    CHECK(b == round * 7, "round %d: bcast %d", round, b);
    CHECK_OK(MPI_Barrier(tc));
    return rank;
}

/* order_burst: every thread sends a burst to thread 0 whose sizes go from fastbox
 * size (a few bytes) to queued cells and direct copies, some synchronous, some
 * nonblocking; thread 0 receives them with both wildcards and checks that each
 * sender's messages come in the order sent (the fastboxes and the queue must not
 * reorder them). */
#define BURST 200
static void order_burst(MPI_Comm tc, int rank, int size, int round)
{
    static char big[MAXT][20000];
    int sizes[5] = {12, 40, 100, 4000, 20000}; /* each carries the 12-byte header */
    if (rank != 0) {
        MPI_Request rq[BURST];
        int nrq = 0;
        for (int i = 0; i < BURST; i++) {
            int n = sizes[(i * 7 + rank) % 5];
            char *b = big[rank];
            int *hdr = (int *)b;
            hdr[0] = rank, hdr[1] = i, hdr[2] = round;
            if (i % 9 == 4) {
                CHECK_OK(MPI_Ssend(b, n, MPI_BYTE, 0, i % 3, tc));
            } else if (i % 5 == 1 && n <= 100) {
                /* Nonblocking from a buffer of its own, completed at the end. */
                static char own[MAXT][BURST][100];
                memcpy(own[rank][i], b, 12);
                CHECK_OK(MPI_Isend(own[rank][i], n, MPI_BYTE, 0, i % 3, tc, &rq[nrq++]));
            } else {
                CHECK_OK(MPI_Send(b, n, MPI_BYTE, 0, i % 3, tc));
            }
        }
        CHECK_OK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
        CHECK_OK(MPI_Barrier(tc)); /* nothing else reaches thread 0's wildcards before */
        return;
    }
    int next[MAXT] = {0};
    char buf[20000];
    for (int k = 0; k < (size - 1) * BURST; k++) {
        MPI_Status st;
        CHECK_OK(MPI_Recv(buf, sizeof buf, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, tc, &st));
        int *hdr = (int *)buf, src = st.MPI_SOURCE, n;
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(src > 0 && src < size && hdr[0] == src && hdr[2] == round, "round %d: burst message from %d", round, src);
        CHECK(hdr[1] == next[src], "round %d: from %d got message %d, want %d", round, src, hdr[1], next[src]);
        CHECK(n == sizes[(hdr[1] * 7 + src) % 5] && st.MPI_TAG == hdr[1] % 3, "round %d: size %d tag %d", round, n,
              st.MPI_TAG);
        next[src]++;
    }
    CHECK_OK(MPI_Barrier(tc));
}

/* freed_receives: MPI_Request_free of a posted receive returns at once, even when
 * its sender first waits for this thread (a ring: each thread frees its receive from
 * the left, then passes a token right before sending), and the message still lands
 * in the buffer: fastbox, queued, direct (30000 ints: a rendezvous from another
 * process too) and a derived (strided) datatype. The next message from the same
 * sender finds it delivered. */
static MPI_Datatype strided; /* 4 ints, every other one */
static void freed_receives(MPI_Comm tc, int rank, int size, int round)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static const int counts[] = {2, 100, 30000, 1};
    for (int k = 0; k < 4; k++) {
        int n = k < 3 ? counts[k] : 8;
        int *in = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
        for (int i = 0; i < n; i++)
            in[i] = -1, out[i] = rank * 1000 + i + k + round;
        MPI_Datatype t = k < 3 ? MPI_INT : strided;
        int cnt = k < 3 ? n : 1;
        MPI_Request q, s[2];
        CHECK_OK(MPI_Irecv(in, cnt, t, left, 70 + k, tc, &q));
        CHECK_OK(MPI_Request_free(&q));
        CHECK(q == MPI_REQUEST_NULL, "round %d: Request_free left the handle", round);
        int token = rank, got = -1;
        CHECK_OK(MPI_Sendrecv(&token, 1, MPI_INT, right, 69, &got, 1, MPI_INT, left, 69, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Isend(out, cnt, t, right, 70 + k, tc, &s[0]));
        CHECK_OK(MPI_Isend(&token, 1, MPI_INT, right, 68, tc, &s[1]));
        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, left, 68, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
        /* Matched in order, but MPI lets a freed receive complete after a later
         * message from its sender (the engine, MPIX_FASTPATH=0, streams a large one
         * while the next completes; the C queues finish it first): wait for the data,
         * with MPI calls to move it, for up to 10 s. */
        volatile int *vin = in;
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            int want = k < 3 || i % 2 == 0 ? left * 1000 + i + k + round : -1, flag;
            while (vin[i] != want && MPI_Wtime() - t0 < 10)
                CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, tc, &flag, MPI_STATUS_IGNORE));
            CHECK(vin[i] == want, "round %d: freed receive %d word %d: %d, want %d", round, k, i, vin[i], want);
        }
        free(in);
        free(out);
    }
}

/* big_collectives: counts above the one-barrier limit (64 KiB in all), where the
 * threads fold slices between two barriers; in-place at the root too. */
#define BIG 40000
static void big_collectives(MPI_Comm tc, int rank, int size, int round)
{
    static int in[MAXT][BIG], out[MAXT][BIG];
    static double din[MAXT][BIG];
    int *x = in[rank], *y = out[rank];
    for (int i = 0; i < BIG; i++)
        x[i] = rank + i % 1000, din[rank][i] = rank == i % size ? 2.0 : 1.0;
    CHECK_OK(MPI_Allreduce(x, y, BIG, MPI_INT, MPI_SUM, tc));
    for (int i = 0; i < BIG; i++)
        CHECK(y[i] == size * (size - 1) / 2 + size * (i % 1000), "round %d: big allreduce[%d] = %d", round, i, y[i]);
    int root = round % size;
    if (rank == root)
        memcpy(y, x, sizeof in[0]);
    CHECK_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : x, y, BIG, MPI_INT, MPI_MAX, root, tc));
    if (rank == root)
        for (int i = 0; i < BIG; i++)
            CHECK(y[i] == size - 1 + i % 1000, "round %d: big reduce max[%d] = %d", round, i, y[i]);
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, din[rank], BIG, MPI_DOUBLE, MPI_PROD, tc));
    for (int i = 0; i < BIG; i++)
        CHECK(din[rank][i] == 2.0, "round %d: big prod[%d] = %g", round, i, din[rank][i]);
    for (int i = 0; i < BIG; i++)
        x[i] = rank == root ? i * 3 + round : -1;
    CHECK_OK(MPI_Bcast(x, BIG, MPI_INT, root, tc));
    for (int i = 0; i < BIG; i++)
        CHECK(x[i] == i * 3 + round, "round %d: big bcast[%d] = %d", round, i, x[i]);
}

/* slice_counts: reductions of counts around the slices' edges (threadcomm/coll.c cuts
 * whole cache lines, at least 512 bytes with seats and 1 KiB without, so with few
 * elements some threads fold nothing) and around the 16 bytes that travel on the
 * seats themselves, on ints and doubles, to the root, to everyone and in place;
 * nothing past count is written. */
#define SLICE_MAX 4099
static void slice_counts(MPI_Comm tc, int rank, int size, int round)
{
    static const int counts[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 127, 128, 129, 255, 256, 257, 300, 1000, 1024, 1031, 2049, SLICE_MAX};
    static int x[MAXT][SLICE_MAX + 1], y[MAXT][SLICE_MAX + 1];
    static double dx[MAXT][SLICE_MAX + 1], dy[MAXT][SLICE_MAX + 1];
    int *xs = x[rank], *ys = y[rank];
    double *dxs = dx[rank], *dys = dy[rank];
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int c = counts[k], root = (int)((round + k) % (size_t)size);
        for (int i = 0; i <= c; i++)
            xs[i] = rank * 7 + i, ys[i] = -1, dxs[i] = rank + 0.5 * i, dys[i] = -1;
        CHECK_OK(MPI_Reduce(xs, ys, c, MPI_INT, MPI_SUM, root, tc));
        if (rank == root)
            for (int i = 0; i < c; i++)
                CHECK(ys[i] == 7 * size * (size - 1) / 2 + size * i, "round %d: reduce of %d: [%d] = %d", round, c,
                      i, ys[i]);
        CHECK(ys[c] == -1, "round %d: reduce of %d wrote past the end", round, c);
        CHECK_OK(MPI_Allreduce(dxs, dys, c, MPI_DOUBLE, MPI_MAX, tc));
        for (int i = 0; i < c; i++)
            CHECK(dys[i] == size - 1 + 0.5 * i, "round %d: allreduce of %d: [%d] = %g", round, c, i, dys[i]);
        CHECK(dys[c] == -1, "round %d: allreduce of %d wrote past the end", round, c);
        CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, dxs, c, MPI_DOUBLE, MPI_SUM, tc));
        for (int i = 0; i < c; i++)
            CHECK(dxs[i] == size * (size - 1) / 2 + size * 0.5 * i, "round %d: in-place allreduce of %d doubles: [%d] = %g",
                  round, c, i, dxs[i]);
        CHECK(dxs[c] == rank + 0.5 * c, "round %d: in-place allreduce of %d doubles wrote past the end", round, c);
        /* In place: everyone's, then the root's (MIN, with the others' inputs). */
        CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, xs, c, MPI_INT, MPI_SUM, tc));
        for (int i = 0; i < c; i++)
            CHECK(xs[i] == 7 * size * (size - 1) / 2 + size * i, "round %d: in-place allreduce of %d: [%d] = %d",
                  round, c, i, xs[i]);
        for (int i = 0; i < c; i++)
            xs[i] = (rank + 1) * 3 + i;
        CHECK_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : xs, xs, c, MPI_INT, MPI_MIN, root, tc));
        if (rank == root)
            for (int i = 0; i < c; i++)
                CHECK(xs[i] == 3 + i, "round %d: in-place reduce of %d: [%d] = %d", round, c, i, xs[i]);
        CHECK(xs[c] == rank * 7 + c, "round %d: in-place reduce of %d wrote past the end", round, c);
    }
}

/* reduce_stream: reductions back to back with nothing between them, where a fast
 * thread starts the next one while a slow one still reads the last: scalars (one
 * round on the seats), every 7th a sliced one, every 11th a reduce to a root. */
static void reduce_stream(MPI_Comm tc, int rank, int size, int round)
{
    static int big[MAXT][300], bigsum[MAXT][300];
    for (int i = 0; i < 5000; i++) {
        int x = rank + i, s = -1;
        CHECK_OK(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, tc));
        CHECK(s == size * (size - 1) / 2 + size * i, "round %d: stream %d: sum %d", round, i, s);
        if (i % 7 == 3) {
            for (int k = 0; k < 300; k++)
                big[rank][k] = rank * k + i;
            CHECK_OK(MPI_Allreduce(big[rank], bigsum[rank], 300, MPI_INT, MPI_MAX, tc));
            for (int k = 0; k < 300; k++)
                CHECK(bigsum[rank][k] == (size - 1) * k + i, "round %d: stream %d: max[%d] %d", round, i, k,
                      bigsum[rank][k]);
        }
        if (i % 11 == 5) {
            double d[2] = {rank + i, -rank - i}, m[2] = {-1, -1};
            int root = i % size;
            CHECK_OK(MPI_Reduce(d, m, 2, MPI_DOUBLE, MPI_MIN, root, tc));
            CHECK(rank == root ? m[0] == i && m[1] == -(size - 1) - i : m[0] == -1 && m[1] == -1,
                  "round %d: stream %d: rank %d root %d: min %g %g", round, i, rank, root, m[0], m[1]);
        }
    }
}

int main(int argc, char **argv)
{
    int provided, nprocs;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpix_test_path_begin();
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int per = argc > 1 ? atoi(argv[1]) : 4;
    CHECK(per >= 2 && per * nprocs <= MAXT, "threads per process %d", per);
    int nt = per * nprocs;
    MPI_Comm tc, other;
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, per, &tc));
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, per, &other));
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair_type));
    CHECK_OK(MPI_Type_commit(&pair_type));
    CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &strided));
    CHECK_OK(MPI_Type_commit(&strided));
    int keyval;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, &keyval, NULL));

    int me, prev_use = USE_C_ONLY;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int round = 0; round < ROUNDS; round++) {
        /* Mostly C-only regions, with a Go-using one every few rounds, sometimes
         * twice in a row. */
        int use = round % 7 == 3 ? 1 + round / 7 % (USE_KINDS - 1) : round % 11 == 4 ? USE_ATTR : USE_C_ONLY;
        int paper = round % 5 == 2; /* MPI_Threadcomm_* spelling */
        memset(seen, 0, sizeof seen);
        deletes = 0;
        MPI_Comm dups[MAXT];
#pragma omp parallel num_threads(per)
        {
            CHECK_OK(paper ? MPI_Threadcomm_start(tc) : MPIX_Threadcomm_start(tc));
            int rank = region_body(tc, nt, round), f = 0;
            /* Messages a region left unreceived (tag 999, below) are gone. */
            int left = -1;
            CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, tc, &left, MPI_STATUS_IGNORE));
            CHECK(!left, "round %d: a message of an earlier region is still there", round);
            CHECK_OK(MPI_Barrier(tc)); /* everyone probed before the leftovers go */
            if (round % 50 == 30 && rank == 0) {
                /* An erroneous program's leftovers: a fastbox message and a cell in
                 * C's queues; through the engine (another process, or
                 * MPIX_FASTPATH=0) two eager messages of an older activation. */
                char junk[100] = {0};
                CHECK_OK(MPI_Send(junk, 8, MPI_BYTE, nt - 1, 999, tc));
                CHECK_OK(MPI_Send(junk, 100, MPI_BYTE, nt - 1, 999, tc));
            }
            if (round % 10 == 5 && nprocs == 1)
                order_burst(tc, rank, nt, round);
            if (round % 25 == 7)
                big_collectives(tc, rank, nt, round);
            if (round % 25 == 19)
                slice_counts(tc, rank, nt, round);
            if (round % 100 == 42)
                reduce_stream(tc, rank, nt, round);
            if (round % 25 == 12)
                freed_receives(tc, rank, nt, round);
            if (round % 50 == 37) {
                /* An erroneous program's receives still posted at finish: one kept,
                 * whose Wait after the region fails (MPI_ERR_PENDING, cancelled), and
                 * one freed, which simply goes. */
                static int never[MAXT][2];
                MPI_Request f;
                CHECK_OK(MPI_Irecv(&never[rank][0], 1, MPI_INT, MPI_ANY_SOURCE, 998, tc, &pending[rank]));
                CHECK_OK(MPI_Irecv(&never[rank][1], 1, MPI_INT, (rank + 1) % nt, 997, tc, &f));
                CHECK_OK(MPI_Request_free(&f));
            }
            int *val;
            /* What the previous region set is gone (asking is Go's business, so this
             * region ends through Go too). */
            if (prev_use == USE_ATTR) {
                CHECK_OK(MPI_Comm_get_attr(tc, keyval, &val, &f));
                CHECK(!f, "round %d: an attribute survived its region", round);
            }
            if (use == USE_ATTR) {
                CHECK_OK(MPI_Comm_set_attr(tc, keyval, &seen[rank]));
            } else if (use == USE_DUP) {
                MPI_Comm d;
                CHECK_OK(MPI_Comm_dup(tc, &d));
                CHECK_OK(MPI_Comm_set_attr(d, keyval, &seen[rank]));
                region_body(d, nt, round);
                dups[rank] = d; /* left to finish */
            } else if (use == USE_TYPED) {
                /* A derived datatype: Go packs it onto the C queues. */
                int pair[2] = {rank, round}, in[2] = {-1, -1}, size = nt;
                CHECK_OK(MPI_Sendrecv(pair, 1, pair_type, (rank + 1) % size, 1, in, 1, pair_type,
                                      (rank + size - 1) % size, 1, tc, MPI_STATUS_IGNORE));
                CHECK(in[0] == (rank + size - 1) % size && in[1] == round, "round %d: typed sendrecv", round);
            } else if (use == USE_ERRH) {
                CHECK_OK(MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN));
            }
            CHECK_OK(paper ? MPI_Threadcomm_finish(tc) : MPIX_Threadcomm_finish(tc));
            /* Inactive for this thread now, however the region ended. */
            CHECK_CLASS(MPI_Comm_rank(tc, &rank), MPI_ERR_COMM);
        }
        prev_use = use;
        if (round % 50 == 37)
            for (int r = me * per; r < (me + 1) * per; r++) {
                MPI_Status st;
                int cancelled = 0;
                CHECK_CLASS(MPI_Wait(&pending[r], &st), MPI_ERR_PENDING);
                MPI_Test_cancelled(&st, &cancelled);
                CHECK(cancelled && pending[r] == MPI_REQUEST_NULL, "round %d: receive left at finish: cancelled %d",
                      round, cancelled);
            }
        for (int r = me * per; r < (me + 1) * per; r++) /* this process's ranks, once each */
            CHECK(seen[r] == (use == USE_DUP ? 2 : 1), "round %d: rank %d seen %d times", round, r, seen[r]);
        int want = use == USE_ATTR || use == USE_DUP ? per : 0;
        CHECK(deletes == want, "round %d: %d delete callbacks, want %d", round, deletes, want);
        if (use == USE_DUP) {
            int s;
            CHECK_CLASS(MPI_Comm_size(dups[0], &s), MPI_ERR_COMM); /* died at finish */
        }

        /* Between regions (after a C-only one the activation is parked): inactive. */
        if (round % 50 == 10) {
            int x = 0, s;
            CHECK_CLASS(MPI_Comm_size(tc, &s), MPI_ERR_COMM);
            CHECK_CLASS(MPI_Comm_rank(tc, &s), MPI_ERR_COMM);
            CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 0, tc), MPI_ERR_COMM);
            CHECK_CLASS(MPI_Barrier(tc), MPI_ERR_COMM);
            CHECK_CLASS(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, tc), MPI_ERR_COMM);
            CHECK_CLASS(MPIX_Threadcomm_finish(tc), MPI_ERR_COMM);
            CHECK_CLASS(MPI_Comm_free(&tc), MPI_ERR_COMM);
            /* A wrong team size is refused, a team of one included, and the next
             * region still works. */
            int wrong = 0;
#pragma omp parallel num_threads(per - 1)
            {
                if (mpix_test_class(MPIX_Threadcomm_start(tc)) == MPI_ERR_OTHER)
#pragma omp atomic
                    wrong++;
            }
            CHECK(wrong == per - 1, "round %d: %d of %d threads refused a wrong team size", round, wrong, per - 1);
        }
        /* Misuse inside a region that C started. */
        if (round % 50 == 20) {
#pragma omp parallel num_threads(per)
            {
                CHECK_OK(MPIX_Threadcomm_start(tc));
                CHECK_CLASS(MPIX_Threadcomm_start(tc), MPI_ERR_OTHER);    /* twice on one thread */
                CHECK_CLASS(MPI_Threadcomm_start(other), MPI_ERR_OTHER);  /* nested threadcomm */
#pragma omp barrier
                if (omp_get_thread_num() == 0) {
                    MPI_Comm copy = tc;
                    CHECK_CLASS(MPIX_Threadcomm_free(&copy), MPI_ERR_COMM); /* free while active */
                    CHECK(copy == tc, "a refused free keeps the handle");
                }
                region_body(tc, nt, round);
                CHECK_OK(MPIX_Threadcomm_finish(tc));
            }
        }
    }

    /* Free after C regions, then a new threadcomm starts and parks like the first. */
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    CHECK(tc == MPI_COMM_NULL, "free resets the handle");
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, per, &tc));
    for (int round = 0; round < 50; round++) {
#pragma omp parallel num_threads(per)
        {
            CHECK_OK(MPIX_Threadcomm_start(tc));
            region_body(tc, nt, round);
            CHECK_OK(MPIX_Threadcomm_finish(tc));
        }
    }
    /* The other threadcomm, never started, and this one, parked, both free. */
    CHECK_OK(MPI_Threadcomm_free(&other));
    CHECK_OK(MPI_Threadcomm_free(&tc));
    CHECK_CLASS(MPIX_Threadcomm_free(&tc), MPI_ERR_COMM);
    MPI_Comm_free_keyval(&keyval);
    MPI_Type_free(&pair_type);
    MPI_Type_free(&strided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("tc_region ok\n");
    mpix_test_path_end();
    MPI_Finalize();
    return 0;
}
