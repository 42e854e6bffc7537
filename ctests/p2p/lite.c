/* Lite requests (shm/lite.c): MPI_Irecv posted in C, sends to oneself matched in C,
 * and waits that complete them without Go, interleaved with everything that makes Go
 * take the requests over (a wildcard receive posted after them, a message queued
 * ahead, truncation, Test, Request_get_status, Cancel, Request_free, Waitany,
 * Testall, Waitsome, Testany). Every message is checked for content, order and status.
 * With 2 processes the ranks also stream windows of mixed sizes to each other (fastbox,
 * queue cells and rendezvous), and threads run self-loops on private communicators
 * and on MPI_COMM_WORLD at once. Argument "on": the MPI_T counter
 * mpix_fastpath_messages must show that C moved messages; "off" (MPIX_FASTPATH=0): it
 * must stay 0. */
#include <pthread.h>
#include "mpix_test.h"

#define W 32
#define ROUNDS 200

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle;
static int nvcis, rank, size;

static unsigned long long fast_messages(void) { return mpix_test_pvar_total(session, handle, nvcis); }

/* self_windows: windows of receives then sends to oneself on comm, tags repeating so
 * that the order among equal tags is checked. */
static void self_windows(MPI_Comm comm, int rounds, int salt)
{
    int me, in[W], out[W];
    MPI_Comm_rank(comm, &me);
    MPI_Request rq[2 * W];
    MPI_Status st[2 * W];
    for (int r = 0; r < rounds; r++) {
        for (int w = 0; w < W; w++) {
            in[w] = -1;
            CHECK_OK(MPI_Irecv(&in[w], 1, MPI_INT, me, w % 4, comm, &rq[w]));
        }
        for (int w = 0; w < W; w++) {
            out[w] = salt + r * 1000 + w;
            CHECK_OK(MPI_Isend(&out[w], 1, MPI_INT, me, w % 4, comm, &rq[W + w]));
        }
        CHECK_OK(MPI_Waitall(2 * W, rq, st));
        for (int w = 0; w < W; w++) {
            int n = -1;
            MPI_Get_count(&st[w], MPI_INT, &n);
            CHECK(in[w] == salt + r * 1000 + w, "round %d slot %d got %d", r, w, in[w]);
            CHECK(st[w].MPI_SOURCE == me && st[w].MPI_TAG == w % 4 && n == 1, "round %d slot %d: status %d/%d/%d", r,
                  w, st[w].MPI_SOURCE, st[w].MPI_TAG, n);
            CHECK(rq[w] == MPI_REQUEST_NULL && rq[W + w] == MPI_REQUEST_NULL, "requests not freed");
        }
    }
}

/* handovers: the cases in which Go takes lite requests over. */
static void handovers(MPI_Comm comm)
{
    int me, a = -1, b = -1, c = -1, v1 = 1, v2 = 2, flag;
    MPI_Comm_rank(comm, &me);
    MPI_Request r[3];
    MPI_Status st;

    /* A wildcard receive (Go) posted after a lite one: the lite one matches first. */
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, MPI_ANY_TAG, comm, &r[0]));
    CHECK_OK(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 7, comm, &r[1]));
    CHECK_OK(MPI_Send(&v1, 1, MPI_INT, me, 7, comm));
    CHECK_OK(MPI_Send(&v2, 1, MPI_INT, me, 7, comm));
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(a == 1 && b == 2, "wildcard order: %d %d", a, b);

    /* A message sent before its receive (Go queues it): still found, in order. */
    CHECK_OK(MPI_Isend(&v1, 1, MPI_INT, me, 8, comm, &r[0]));
    CHECK_OK(MPI_Isend(&v2, 1, MPI_INT, me, 8, comm, &r[1]));
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 8, comm, &r[2]));
    CHECK_OK(MPI_Wait(&r[2], &st));
    CHECK_OK(MPI_Irecv(&b, 1, MPI_INT, me, 8, comm, &r[2]));
    CHECK_OK(MPI_Wait(&r[2], &st));
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(a == 1 && b == 2 && st.MPI_TAG == 8, "queued order: %d %d", a, b);

    /* Truncation: the send cannot complete in C; Go reports it on the receive. */
    int two[2] = {5, 6};
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 9, comm, &r[0]));
    CHECK_OK(MPI_Send(two, 2, MPI_INT, me, 9, comm));
    CHECK_CLASS(MPI_Wait(&r[0], &st), MPI_ERR_TRUNCATE);
    CHECK(a == 5, "truncated receive got %d", a);

    /* Test on a receive nothing has matched: not done; then the send completes it. */
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 10, comm, &r[0]));
    CHECK_OK(MPI_Test(&r[0], &flag, &st));
    CHECK(!flag, "Test of an unmatched receive says done");
    CHECK_OK(MPI_Send(&v2, 1, MPI_INT, me, 10, comm));
    CHECK_OK(MPI_Wait(&r[0], &st));
    CHECK(a == 2 && st.MPI_TAG == 10 && st.MPI_SOURCE == me, "after Test: %d", a);

    /* Completed in C, then inspected and reported by Go. */
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 11, comm, &r[0]));
    CHECK_OK(MPI_Send(&v1, 1, MPI_INT, me, 11, comm));
    for (flag = 0; !flag;)
        CHECK_OK(MPI_Request_get_status(r[0], &flag, &st));
    CHECK(st.MPI_TAG == 11 && r[0] != MPI_REQUEST_NULL, "get_status: tag %d", st.MPI_TAG);
    CHECK_OK(MPI_Test(&r[0], &flag, &st));
    CHECK(flag && a == 1 && r[0] == MPI_REQUEST_NULL && st.MPI_TAG == 11, "Test after get_status");

    /* Cancel a posted receive; the next one still works. */
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 12, comm, &r[0]));
    CHECK_OK(MPI_Cancel(&r[0]));
    CHECK_OK(MPI_Wait(&r[0], &st));
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "receive not cancelled");

    /* Request_free on a posted receive: the message it matches is consumed by it. */
    c = -1;
    CHECK_OK(MPI_Irecv(&c, 1, MPI_INT, me, 13, comm, &r[0]));
    CHECK_OK(MPI_Request_free(&r[0]));
    CHECK(r[0] == MPI_REQUEST_NULL, "freed handle not null");
    CHECK_OK(MPI_Send(&v2, 1, MPI_INT, me, 13, comm));
    CHECK_OK(MPI_Irecv(&b, 1, MPI_INT, me, 13, comm, &r[0]));
    CHECK_OK(MPI_Send(&v1, 1, MPI_INT, me, 13, comm));
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(b == 1, "after Request_free the next receive got %d", b);
    CHECK(c == 2, "the freed receive got %d", c); /* it completed before the next send */

    /* Waitany, Testall, Waitsome and Testany over lite and completed-send requests. */
    int idx, outcount, idxs[3];
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 14, comm, &r[0]));
    CHECK_OK(MPI_Isend(&v1, 1, MPI_INT, me, 14, comm, &r[1]));
    CHECK_OK(MPI_Waitany(2, r, &idx, &st));
    CHECK_OK(MPI_Waitany(2, r, &idx, &st));
    CHECK_OK(MPI_Waitany(2, r, &idx, &st));
    CHECK(idx == MPI_UNDEFINED && a == 1, "Waitany: %d %d", idx, a);
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 15, comm, &r[0]));
    CHECK_OK(MPI_Isend(&v2, 1, MPI_INT, me, 15, comm, &r[1]));
    for (flag = 0; !flag;)
        CHECK_OK(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(a == 2 && r[0] == MPI_REQUEST_NULL, "Testall");
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, me, 16, comm, &r[0]));
    CHECK_OK(MPI_Irecv(&b, 1, MPI_INT, me, 17, comm, &r[1]));
    CHECK_OK(MPI_Send(&v2, 1, MPI_INT, me, 17, comm));
    CHECK_OK(MPI_Waitsome(2, r, &outcount, idxs, MPI_STATUSES_IGNORE));
    CHECK(outcount == 1 && idxs[0] == 1 && b == 2, "Waitsome: %d", outcount);
    CHECK_OK(MPI_Send(&v1, 1, MPI_INT, me, 16, comm));
    for (flag = 0; !flag;)
        CHECK_OK(MPI_Testany(2, r, &idx, &flag, &st));
    CHECK(idx == 0 && a == 1 && st.MPI_TAG == 16, "Testany: %d", idx);
}

/* stream: rank 0 sends windows of messages of mixed sizes (fastbox, queue cells,
 * rendezvous) to rank 1, which pre-posts its receives; then the other way. */
static void stream(MPI_Comm comm)
{
    enum { N = 64, BIG = 40000 };
    static int buf[N][BIG / 4];
    int sizes[] = {1, 2, 16, 300, 1, BIG / 4, 1, 3};
    for (int dir = 0; dir < 2; dir++) {
        int sender = dir, peer = 1 - rank;
        for (int r = 0; r < 20; r++) {
            MPI_Request rq[N];
            MPI_Status st[N];
            for (int i = 0; i < N; i++) {
                int n = sizes[(i + r) % 8];
                if (rank == sender) {
                    for (int k = 0; k < n; k++)
                        buf[i][k] = r * 100000 + i * 10 + k;
                    CHECK_OK(MPI_Isend(buf[i], n, MPI_INT, peer, i % 3, comm, &rq[i]));
                } else {
                    buf[i][0] = -1;
                    CHECK_OK(MPI_Irecv(buf[i], BIG / 4, MPI_INT, peer, i % 3, comm, &rq[i]));
                }
            }
            CHECK_OK(MPI_Waitall(N, rq, st));
            if (rank != sender)
                for (int i = 0; i < N; i++) {
                    int n = sizes[(i + r) % 8], got;
                    MPI_Get_count(&st[i], MPI_INT, &got);
                    CHECK(got == n && st[i].MPI_TAG == i % 3 && st[i].MPI_SOURCE == peer, "stream %d/%d: count %d",
                          r, i, got);
                    CHECK(buf[i][0] == r * 100000 + i * 10 && buf[i][n - 1] == r * 100000 + i * 10 + n - 1,
                          "stream %d/%d: data %d", r, i, buf[i][0]);
                }
            CHECK_OK(MPI_Barrier(comm));
        }
    }
}

/* recv_after_irecv: a blocking receive after a posted one gets the second message
 * (the C fast path of MPI_Recv must not take the first from under the C list). */
static void recv_after_irecv(MPI_Comm comm)
{
    int a = -1, b = -1, peer = 1 - rank;
    for (int r = 0; r < 50; r++) {
        if (rank == 0) {
            int v1 = 2 * r, v2 = 2 * r + 1;
            CHECK_OK(MPI_Send(&v1, 1, MPI_INT, peer, 1, comm));
            CHECK_OK(MPI_Send(&v2, 1, MPI_INT, peer, 1, comm));
        } else {
            MPI_Request rq;
            CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, peer, 1, comm, &rq));
            CHECK_OK(MPI_Recv(&b, 1, MPI_INT, peer, 1, comm, MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK(a == 2 * r && b == 2 * r + 1, "round %d: Irecv got %d, Recv got %d", r, a, b);
        }
        CHECK_OK(MPI_Barrier(comm));
    }
}

/* free_pending: MPI_Comm_free with a receive still pending; it completes later. */
static void free_pending(void)
{
    MPI_Comm c2;
    int v = -1;
    MPI_Comm_dup(MPI_COMM_WORLD, &c2);
    if (rank == 1) {
        MPI_Request rq;
        MPI_Status st;
        CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, 0, 4, c2, &rq));
        CHECK_OK(MPI_Comm_free(&c2));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&rq, &st));
        CHECK(v == 44 && st.MPI_TAG == 4 && st.MPI_SOURCE == 0, "receive after MPI_Comm_free got %d", v);
    } else {
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        v = 44;
        CHECK_OK(MPI_Send(&v, 1, MPI_INT, 1, 4, c2));
        CHECK_OK(MPI_Comm_free(&c2));
    }
}

static MPI_Comm thread_comm[4];

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    self_windows(thread_comm[t], 50, t * 100000000);
    return NULL;
}

/* world_self_loop: threads exchange with themselves on MPI_COMM_WORLD, tag by thread. */
static void *world_thread(void *arg)
{
    int t = (int)(long)arg, in, out;
    for (int r = 0; r < 300; r++) {
        MPI_Request rq[2];
        MPI_Status st[2];
        out = t * 1000 + r;
        CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, rank, 100 + t, MPI_COMM_WORLD, &rq[0]));
        CHECK_OK(MPI_Isend(&out, 1, MPI_INT, rank, 100 + t, MPI_COMM_WORLD, &rq[1]));
        CHECK_OK(MPI_Waitall(2, rq, st));
        CHECK(in == out && st[0].MPI_TAG == 100 + t, "thread %d round %d: %d", t, r, in);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int idx;
    CHECK_OK(MPI_T_pvar_get_index("mpix_fastpath_messages", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_OK(MPI_T_pvar_session_create(&session));
    CHECK_OK(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle, &nvcis));
    unsigned long long before = fast_messages();

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    self_windows(comm, ROUNDS, 0);
    unsigned long long self_fast = fast_messages() - before;
    /* Nothing from the peer may arrive on comm's VCI during the counted self-loop
     * (Go would take it, and the receives after it): wait for each other. */
    CHECK_OK(MPI_Barrier(comm));
    handovers(comm);
    self_windows(comm, 10, 7); /* the C path works again after Go took over */
    handovers(MPI_COMM_WORLD);
    unsigned long long stream_fast = fast_messages();
    if (size == 2) {
        stream(comm);
        recv_after_irecv(comm);
        free_pending();
    }
    stream_fast = fast_messages() - stream_fast;

    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]);
        pthread_create(&th[t], NULL, thread_main, (void *)(long)t);
    }
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, world_thread, (void *)(long)t);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < 4; t++)
        MPI_Comm_free(&thread_comm[t]);

    if (argc > 1 && strcmp(argv[1], "on") == 0)
        /* Every message of the first self-loop windows can be delivered in C. */
        CHECK(self_fast >= ROUNDS * W / 2, "only %llu of %d self-loop messages went through C", self_fast, ROUNDS * W);
    if (argc > 1 && strcmp(argv[1], "off") == 0)
        CHECK(fast_messages() == before, "the fast path ran with MPIX_FASTPATH=0");

    MPI_Comm_free(&comm);
    MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("lite: ok (%llu self-loop messages in C, %llu of the stream's on rank 0)\n", self_fast, stream_fast);
    MPI_Finalize();
    return 0;
}
