/* The C fast path of MPI_Send/MPI_Recv (shm/fast.c) and the Go engine share one
 * stream of messages: this test interleaves calls that take the fast path with calls
 * that cannot (MPI_Isend, MPI_Ssend, messages larger than a fastbox, MPI_ANY_SOURCE,
 * a receive posted before the message, truncation) and checks that every message
 * arrives once, in order, with the right status. The MPI_T counter
 * mpix_fastpath_messages shows that the fast path did run: more than a threshold with
 * the default settings, zero with MPIX_FASTPATH=0 (argument "off"), and zero when
 * everything goes through libfabric (argument "ofi"). Ranks pair up (0-1, 2-3, ...).
 */
#include "mpix_test.h"

#define ROUNDS 400

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle;
static int nvcis;

static unsigned long long fast_messages(void) { return mpix_test_pvar_total(session, handle, nvcis); }

/* one_round sends (or receives) the messages of round i, each carrying i*10+k. */
static void one_round(int i, int me, int peer, MPI_Comm comm, char *big, int bigsize)
{
    int v[4];
    MPI_Status st;
    MPI_Request rq;
    if (me < peer) {
        v[0] = i * 10;
        CHECK_OK(MPI_Send(v, 1, MPI_INT, peer, 1, comm));         /* fast */
        v[0] = i * 10 + 1;
        CHECK_OK(MPI_Isend(v, 1, MPI_INT, peer, 1, comm, &rq));   /* Go */
        CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        v[0] = i * 10 + 2;
        CHECK_OK(MPI_Send(v, 1, MPI_INT, peer, 1, comm));         /* fast unless the fastbox is busy */
        big[0] = (char)i;
        big[bigsize - 1] = (char)(i + 1);
        CHECK_OK(MPI_Send(big, bigsize, MPI_CHAR, peer, 1, comm)); /* rendezvous, Go */
        v[0] = i * 10 + 3;
        CHECK_OK(MPI_Ssend(v, 1, MPI_INT, peer, 2, comm));        /* synchronous, Go */
        v[0] = i * 10 + 4;
        v[1] = i;
        CHECK_OK(MPI_Send(v, 2, MPI_INT, peer, 3, comm));         /* truncated at the receiver */
        v[0] = i * 10 + 5;
        CHECK_OK(MPI_Send(v, 1, MPI_INT, peer, 4, comm));
        CHECK_OK(MPI_Recv(v, 1, MPI_INT, peer, 5, comm, &st));    /* reply: fast both ways */
        CHECK(v[0] == -i, "round %d: reply %d", i, v[0]);
        return;
    }
    /* A receive posted before the messages come: Go holds it, so the fast path stays
     * off until it is matched. */
    int first = -1;
    CHECK_OK(MPI_Irecv(&first, 1, MPI_INT, peer, 1, comm, &rq));
    CHECK_OK(MPI_Wait(&rq, &st));
    CHECK(first == i * 10, "round %d: first message %d", i, first);
    CHECK_OK(MPI_Recv(v, 1, MPI_INT, peer, 1, comm, &st));
    CHECK(v[0] == i * 10 + 1, "round %d: second message %d", i, v[0]);
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 1, "round %d: status %d/%d", i, st.MPI_SOURCE, st.MPI_TAG);
    CHECK_OK(MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
    CHECK(v[0] == i * 10 + 2 && st.MPI_SOURCE == peer, "round %d: third message %d from %d", i, v[0], st.MPI_SOURCE);
    memset(big, 0, bigsize);
    CHECK_OK(MPI_Recv(big, bigsize, MPI_CHAR, peer, 1, comm, &st));
    CHECK(big[0] == (char)i && big[bigsize - 1] == (char)(i + 1), "round %d: large message", i);
    int count;
    CHECK_OK(MPI_Recv(v, 1, MPI_INT, peer, MPI_ANY_TAG, comm, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(v[0] == i * 10 + 3 && st.MPI_TAG == 2 && count == 1, "round %d: ssend %d tag %d count %d", i, v[0], st.MPI_TAG, count);
    CHECK_CLASS(MPI_Recv(v, 1, MPI_INT, peer, 3, comm, &st), MPI_ERR_TRUNCATE);
    CHECK_OK(MPI_Recv(v, 1, MPI_INT, peer, 4, comm, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(v[0] == i * 10 + 5 && st.MPI_TAG == 4 && count == 1, "round %d: last %d", i, v[0]);
    v[0] = -i;
    CHECK_OK(MPI_Send(v, 1, MPI_INT, peer, 5, comm));
}

/* completed_sends: MPI_Isend of a small message completes at once in C and returns
 * the pre-completed lightweight request; every request procedure accepts it. */
static void completed_sends(int me, int peer, MPI_Comm comm)
{
    int v = 0, flag = 0, idx = -1;
    MPI_Status st;
    MPI_Request rq[3];
    if (me < peer) {
        for (int k = 0; k < 8; k++) {
            v = 100 + k;
            CHECK_OK(MPI_Isend(&v, 1, MPI_INT, peer, 7, comm, &rq[0]));
            CHECK(rq[0] != MPI_REQUEST_NULL, "Isend returned MPI_REQUEST_NULL");
            switch (k) {
            case 0:
                st.MPI_SOURCE = st.MPI_TAG = 12345;
                CHECK_OK(MPI_Wait(&rq[0], &st));
                CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "send status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
                break;
            case 1:
                CHECK_OK(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE));
                CHECK(flag, "Test of a small Isend: not complete");
                break;
            case 2:
                CHECK_OK(MPI_Request_get_status(rq[0], &flag, &st));
                CHECK(flag && rq[0] != MPI_REQUEST_NULL, "Request_get_status: flag %d", flag);
                CHECK_OK(MPI_Request_free(&rq[0]));
                break;
            case 3:
                rq[1] = MPI_REQUEST_NULL;
                CHECK_OK(MPI_Waitany(2, rq, &idx, &st));
                CHECK(idx == 0, "Waitany index %d", idx);
                break;
            case 4:
                /* The cancel of a send may succeed (MPI 4.0, 3.8.4): then nothing
                 * arrived, and the same message goes again, in its place. */
                CHECK_OK(MPI_Cancel(&rq[0]));
                CHECK_OK(MPI_Wait(&rq[0], &st));
                CHECK_OK(MPI_Test_cancelled(&st, &flag));
                if (flag)
                    CHECK_OK(MPI_Send(&v, 1, MPI_INT, peer, 7, comm));
                break;
            default: {
                /* Mixed with a Go request: Waitall goes to Go, which knows both. */
                int w = -1;
                CHECK_OK(MPI_Irecv(&w, 1, MPI_INT, peer, 8, comm, &rq[1]));
                rq[2] = MPI_REQUEST_NULL;
                MPI_Status sts[3];
                CHECK_OK(MPI_Waitall(3, rq, sts));
                CHECK(w == k && sts[1].MPI_SOURCE == peer && sts[1].MPI_TAG == 8, "reply %d", w);
                CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "Waitall left handles");
            }
            }
            CHECK(rq[0] == MPI_REQUEST_NULL, "round %d: handle not null after completion", k);
        }
        return;
    }
    for (int k = 0; k < 8; k++) {
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, peer, 7, comm, &st));
        CHECK(v == 100 + k, "completed send %d carried %d", k, v);
        if (k >= 5)
            CHECK_OK(MPI_Send(&k, 1, MPI_INT, peer, 8, comm));
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "on";
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int idx;
    CHECK_OK(MPI_T_pvar_get_index("mpix_fastpath_messages", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_OK(MPI_T_pvar_session_create(&session));
    CHECK_OK(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle, &nvcis));

    int peer = rank ^ 1;
    const int bigsize = 100000;
    char *big = malloc(bigsize);
    /* The same traffic on MPI_COMM_WORLD, on a duplicate (another VCI) and on a
     * communicator whose ranks are not world ranks (reversed order). */
    MPI_Comm dup, rev;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
    int rrank;
    MPI_Comm_rank(rev, &rrank);
    unsigned long long before = fast_messages();
    if (peer < size) {
        for (int i = 0; i < ROUNDS; i++) {
            one_round(i, rank, peer, MPI_COMM_WORLD, big, bigsize);
            one_round(i, rank, peer, dup, big, bigsize);
            /* In rev, world rank r is size-1-r: the pairs are the same processes. */
            one_round(i, rrank, size - 1 - peer, rev, big, bigsize);
        }
    }
    if (peer < size)
        completed_sends(rank, peer, MPI_COMM_WORLD);
    unsigned long long fast = fast_messages() - before;
    if (peer < size) {
        if (strcmp(mode, "on") == 0)
            CHECK(fast >= ROUNDS, "only %llu messages took the fast path", fast);
        else
            CHECK(fast == 0, "%llu messages took the fast path with it off (%s)", fast, mode);
    }
    /* A freed communicator's handle no longer reaches the fast path: MPI_Send on it is
     * an error of class MPI_ERR_COMM, not a message. */
    MPI_Comm gone = dup;
    CHECK_OK(MPI_Comm_free(&dup));
    int x = 1;
    if (peer < size)
        CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, peer, 1, gone), MPI_ERR_COMM);
    CHECK_OK(MPI_Comm_free(&rev));
    CHECK_OK(MPI_T_pvar_handle_free(session, &handle));
    CHECK_OK(MPI_T_pvar_session_free(&session));
    CHECK_OK(MPI_T_finalize());
    free(big);
    MPI_Finalize();
    return 0;
}
