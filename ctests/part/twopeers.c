/* twopeers (3 or more processes): partitioned requests with several peers and
 * several requests per peer.
 *   1. ring, both directions, one tag: every rank has a partitioned send to rank+1
 *      and one to rank-1, a partitioned receive from rank-1 and one from rank+1, all
 *      with tag TAG on MPI_COMM_WORLD; rounds of MPI_Startall / Pready / Parrived /
 *      MPI_Waitall, data (round, source, direction) checked;
 *   2. ordering (pairs 0-1, 2-3): two partitioned sends to the same peer with the same
 *      (comm, tag) and two receives; they match in the order of the init calls
 *      (MPI-4.1 sec. 4.2.2), whatever the order of the starts: the first receive gets
 *      the first send's data, the second the second's, over several rounds (the
 *      sender starts them in reverse order in odd rounds, the receiver in even
 *      ones);
 *   3. init and start do not wait for the peer: the sender calls MPI_Psend_init,
 *      MPI_Start and marks every partition ready before a barrier that the receiver
 *      passes before its MPI_Precv_init; then the reverse (MPI_Precv_init and
 *      MPI_Start before the barrier, MPI_Psend_init after). A blocking init or start
 *      deadlocks there.
 * Argument: rounds (default 6). */
#include "part_util.h"

#define TAG 81
enum { P = 4, C = 120 };

static int val(int round, int src, int which, long i) { return pval(round * 4 + which, src, i); }

static void ring(int nrounds)
{
    int next = (rank + 1) % nproc, prev = (rank + nproc - 1) % nproc;
    int *bufs[4];
    MPI_Request reqs[4];
    MPI_Status sts[4];
    for (int k = 0; k < 4; k++)
        bufs[k] = malloc(P * C * sizeof(int));
    /* 0: send to next (direction 0), 1: send to prev (direction 1),
     * 2: receive from prev (its direction 0), 3: receive from next (its direction 1). */
    CHECK_OK(MPI_Psend_init(bufs[0], P, C, MPI_INT, next, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    CHECK_OK(MPI_Psend_init(bufs[1], P, C, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    CHECK_OK(MPI_Precv_init(bufs[2], P, C, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
    CHECK_OK(MPI_Precv_init(bufs[3], P, C, MPI_INT, next, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[3]));
    for (int r = 0; r < nrounds; r++) {
        for (long i = 0; i < P * C; i++) {
            bufs[0][i] = val(r, rank, 0, i);
            bufs[1][i] = val(r, rank, 1, i);
            bufs[2][i] = bufs[3][i] = -1;
        }
        CHECK_OK(MPI_Startall(4, reqs));
        CHECK_OK(MPI_Pready_range(0, P - 1, reqs[r % 2]));
        CHECK_OK(MPI_Pready_range(0, P - 1, reqs[1 - r % 2]));
        for (int p = 0; p < P; p++) {
            spin_arrived(reqs[2], p, "ring: from prev");
            spin_arrived(reqs[3], p, "ring: from next");
        }
        CHECK_OK(MPI_Waitall(4, reqs, sts));
        check_recv_status(&sts[2], MPI_INT, prev, TAG, P * C, "ring: from prev");
        check_recv_status(&sts[3], MPI_INT, next, TAG, P * C, "ring: from next");
        for (long i = 0; i < P * C; i++) {
            CHECK(bufs[2][i] == val(r, prev, 0, i), "ring round %d: element %ld from rank %d is %d, want %d", r, i,
                  prev, bufs[2][i], val(r, prev, 0, i));
            CHECK(bufs[3][i] == val(r, next, 1, i), "ring round %d: element %ld from rank %d is %d, want %d", r, i,
                  next, bufs[3][i], val(r, next, 1, i));
        }
    }
    for (int k = 0; k < 4; k++) {
        CHECK_OK(MPI_Request_free(&reqs[k]));
        free(bufs[k]);
    }
}

static void ordering(int nrounds)
{
    int peer = pair_peer(), sender = rank % 2 == 0;
    static int a[P * C], b[P * C];
    MPI_Request reqs[2];
    MPI_Status sts[2];
    if (peer == MPI_PROC_NULL)
        return;
    if (sender) {
        CHECK_OK(MPI_Psend_init(a, P, C, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
        CHECK_OK(MPI_Psend_init(b, P, C, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    } else {
        CHECK_OK(MPI_Precv_init(a, P, C, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
        CHECK_OK(MPI_Precv_init(b, P, C, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    }
    for (int r = 0; r < nrounds; r++) {
        int first = (r + sender) % 2; /* started first */
        for (long i = 0; i < P * C; i++) {
            a[i] = sender ? val(r, rank, 2, i) : -1;
            b[i] = sender ? val(r, rank, 3, i) : -1;
        }
        CHECK_OK(MPI_Start(&reqs[first]));
        CHECK_OK(MPI_Start(&reqs[1 - first]));
        if (sender) {
            CHECK_OK(MPI_Pready_range(0, P - 1, reqs[1]));
            CHECK_OK(MPI_Pready_range(0, P - 1, reqs[0]));
        }
        CHECK_OK(MPI_Waitall(2, reqs, sts));
        if (!sender) {
            check_recv_status(&sts[0], MPI_INT, peer, TAG + 1, P * C, "ordering: first");
            check_recv_status(&sts[1], MPI_INT, peer, TAG + 1, P * C, "ordering: second");
            for (long i = 0; i < P * C; i++) {
                CHECK(a[i] == val(r, peer, 2, i), "ordering round %d: the first receive has %d at %ld, want %d (%s)", r,
                      a[i], i, val(r, peer, 2, i), a[i] == val(r, peer, 3, i) ? "the second send's data" : "garbage");
                CHECK(b[i] == val(r, peer, 3, i), "ordering round %d: the second receive has %d at %ld, want %d (%s)", r,
                      b[i], i, val(r, peer, 3, i), b[i] == val(r, peer, 2, i) ? "the first send's data" : "garbage");
            }
        }
    }
    CHECK_OK(MPI_Request_free(&reqs[0]));
    CHECK_OK(MPI_Request_free(&reqs[1]));
}

/* early: one side inits, starts (and the sender marks ready) before a barrier the
 * other side passes before its init. */
static void early(int send_first)
{
    int peer = pair_peer(), sender = rank % 2 == 0;
    static int buf[P * C];
    int early_side = sender == send_first;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    for (int round = 0; round < 2; round++) {
        if (peer != MPI_PROC_NULL) {
            int rr = 200 + 2 * send_first + round;
            if (sender)
                fill_ints(buf, P * C, rr, rank);
            else
                for (long i = 0; i < P * C; i++)
                    buf[i] = -1;
            if (early_side || round > 0) {
                if (round == 0) {
                    if (sender)
                        CHECK_OK(MPI_Psend_init(buf, P, C, MPI_INT, peer, TAG + 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                    else
                        CHECK_OK(MPI_Precv_init(buf, P, C, MPI_INT, peer, TAG + 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                }
                CHECK_OK(MPI_Start(&req));
                if (sender)
                    CHECK_OK(MPI_Pready_range(0, P - 1, req));
            }
        }
        /* In round 1 both sides start before the barrier: the early side's next
         * round must not need the late side's start either. */
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (peer == MPI_PROC_NULL)
            continue;
        if (!early_side && round == 0) {
            if (sender) {
                CHECK_OK(MPI_Psend_init(buf, P, C, MPI_INT, peer, TAG + 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                CHECK_OK(MPI_Start(&req));
                CHECK_OK(MPI_Pready_list(1, (int[]){2}, req));
                CHECK_OK(MPI_Pready_range(0, 1, req));
                CHECK_OK(MPI_Pready(3, req));
            } else {
                CHECK_OK(MPI_Precv_init(buf, P, C, MPI_INT, peer, TAG + 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                CHECK_OK(MPI_Start(&req));
            }
        }
        CHECK_OK(MPI_Wait(&req, &st));
        if (!sender) {
            check_recv_status(&st, MPI_INT, peer, TAG + 2, P * C, send_first ? "send init first" : "receive init first");
            check_ints(buf, 0, P * C, 200 + 2 * send_first + round, peer,
                       send_first ? "send init first" : "receive init first");
        }
    }
    if (peer != MPI_PROC_NULL)
        CHECK_OK(MPI_Request_free(&req));
}

int main(int argc, char **argv)
{
    int nrounds = argc > 1 ? atoi(argv[1]) : 6;
    part_init(&argc, &argv);
    CHECK(nproc >= 3, "twopeers needs at least 3 processes, has %d", nproc);
    ring(nrounds);
    ordering(nrounds);
    early(1);
    early(0);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("part twopeers: %d rounds, %d processes: OK\n", nrounds, nproc);
    CHECK_OK(MPI_Finalize());
    return 0;
}
