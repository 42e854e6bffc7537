/* pbuf: MPIX_Pbuf_prepare and MPIX_Pbuf_prepareall (include/mpix.h section 4, the
 * forum's MPI_Pbuf_prepare proposal), with MPIX_HAVE_PBUF_PREPARE (mpix; required
 * there). In each pair:
 *   - one direction: both sides call MPIX_Pbuf_prepare after MPI_Start, then the
 *     sender marks its partitions ready and both complete; the receiver starts ~50 ms
 *     late, and the sender's MPIX_Pbuf_prepare must not return before the receiver's
 *     MPI_Start (CLOCK_MONOTONIC, compared when both ranks share a node);
 *   - both directions at once: MPIX_Pbuf_prepareall on {send, receive} after
 *     MPI_Startall;
 *   - errors (MPI_ERRORS_RETURN): MPIX_Pbuf_prepare on an inactive (never started,
 *     and completed) partitioned request and on MPI_REQUEST_NULL -> MPI_ERR_REQUEST;
 *     MPIX_Pbuf_prepareall with an inactive request -> MPI_ERR_REQUEST; a correct
 *     round follows each.
 * Data is checked every round. Without MPIX_HAVE_PBUF_PREPARE (MPICH) only the
 * exchanges run. Argument: rounds (default 4). */
#include "part_util.h"

#if defined(MPIX_VERSION) && !defined(MPIX_HAVE_PBUF_PREPARE)
#error "mpix.h does not define MPIX_HAVE_PBUF_PREPARE: MPIX_Pbuf_prepare is required"
#endif

#define TAG 71
enum { P = 8, C = 1000 };

static int sbuf[P * C], rbuf[P * C];

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void recv_check(MPI_Request req, int peer, int round, const char *what)
{
    for (int p = 0; p < P; p++)
        spin_arrived(req, p, what);
    check_ints(rbuf, 0, P * C, round, peer, what);
}

int main(int argc, char **argv)
{
    int nrounds = argc > 1 ? atoi(argv[1]) : 4, same_node = 0;
    char host[MPI_MAX_PROCESSOR_NAME], phost[MPI_MAX_PROCESSOR_NAME];
    int hl;
    part_init(&argc, &argv);
    int peer = pair_peer();
    CHECK_OK(MPI_Get_processor_name(host, &hl));
    if (peer != MPI_PROC_NULL) {
        CHECK_OK(MPI_Sendrecv(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, TAG + 5, phost, MPI_MAX_PROCESSOR_NAME,
                              MPI_CHAR, peer, TAG + 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        same_node = strcmp(host, phost) == 0;

        MPI_Request reqs[2];
        MPI_Status sts[2];
        CHECK_OK(MPI_Psend_init(sbuf, P, C, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
        CHECK_OK(MPI_Precv_init(rbuf, P, C, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
#ifdef MPIX_HAVE_PBUF_PREPARE
        CHECK_CLASS(MPIX_Pbuf_prepare(reqs[0]), MPI_ERR_REQUEST);
        CHECK_CLASS(MPIX_Pbuf_prepare(reqs[1]), MPI_ERR_REQUEST);
        CHECK_CLASS(MPIX_Pbuf_prepareall(2, reqs), MPI_ERR_REQUEST);
        CHECK_CLASS(MPIX_Pbuf_prepare(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
#endif
        /* One direction per round, the roles alternating; the receiver starts late. */
        for (int r = 0; r < nrounds; r++) {
            int sender = (rank + r) % 2 == 0;
            double t = 0, tpeer = 0;
            if (sender) {
                fill_ints(sbuf, P * C, r, rank);
                CHECK_OK(MPI_Start(&reqs[0]));
#ifdef MPIX_HAVE_PBUF_PREPARE
                CHECK_OK(MPIX_Pbuf_prepare(reqs[0]));
#endif
                t = mono();
                CHECK_OK(MPI_Pready_range(0, P - 1, reqs[0]));
                CHECK_OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
            } else {
                for (int i = 0; i < P * C; i++)
                    rbuf[i] = -1;
                sleep_usec(50000);
                t = mono();
                CHECK_OK(MPI_Start(&reqs[1]));
#ifdef MPIX_HAVE_PBUF_PREPARE
                CHECK_OK(MPIX_Pbuf_prepare(reqs[1]));
#endif
                recv_check(reqs[1], peer, r, "pbuf: one direction");
                CHECK_OK(MPI_Wait(&reqs[1], &sts[1]));
                check_recv_status(&sts[1], MPI_INT, peer, TAG, P * C, "pbuf: one direction");
            }
            CHECK_OK(MPI_Sendrecv(&t, 1, MPI_DOUBLE, peer, TAG + 6, &tpeer, 1, MPI_DOUBLE, peer, TAG + 6, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
#ifdef MPIX_HAVE_PBUF_PREPARE
            if (sender && same_node)
                CHECK(t >= tpeer, "MPIX_Pbuf_prepare returned %.6f s before the receiver's MPI_Start", tpeer - t);
            /* Completed: inactive again. */
            CHECK_CLASS(MPIX_Pbuf_prepare(reqs[sender ? 0 : 1]), MPI_ERR_REQUEST);
#else
            (void)tpeer;
            (void)same_node;
#endif
        }
        /* Both directions at once. */
        for (int r = 0; r < nrounds; r++) {
            int rr = 100 + r;
            fill_ints(sbuf, P * C, rr, rank);
            for (int i = 0; i < P * C; i++)
                rbuf[i] = -1;
            CHECK_OK(MPI_Startall(2, reqs));
#ifdef MPIX_HAVE_PBUF_PREPARE
            CHECK_OK(MPIX_Pbuf_prepareall(2, reqs));
#endif
            for (int p = P - 1; p >= 0; p--)
                CHECK_OK(MPI_Pready(p, reqs[0]));
            recv_check(reqs[1], peer, rr, "pbuf: both directions");
            CHECK_OK(MPI_Waitall(2, reqs, sts));
            check_recv_status(&sts[1], MPI_INT, peer, TAG, P * C, "pbuf: both directions");
#ifdef MPIX_HAVE_PBUF_PREPARE
            if (r == 0) {
                /* One active, one inactive request: the call fails. */
                fill_ints(sbuf, P * C, rr + 50, rank);
                for (int i = 0; i < P * C; i++)
                    rbuf[i] = -1;
                CHECK_OK(MPI_Start(&reqs[1]));
                CHECK_CLASS(MPIX_Pbuf_prepareall(2, reqs), MPI_ERR_REQUEST);
                CHECK_OK(MPI_Start(&reqs[0]));
                CHECK_OK(MPI_Pready_range(0, P - 1, reqs[0]));
                recv_check(reqs[1], peer, rr + 50, "pbuf: after MPIX_Pbuf_prepareall failed");
                CHECK_OK(MPI_Waitall(2, reqs, sts));
            }
#endif
        }
        CHECK_OK(MPI_Request_free(&reqs[0]));
        CHECK_OK(MPI_Request_free(&reqs[1]));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("part pbuf: %d rounds, %d processes: OK\n", nrounds, nproc);
    CHECK_OK(MPI_Finalize());
    return 0;
}
