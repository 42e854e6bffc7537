/* basic: every partitioned-communication call, over rounds of MPI_Start on the same
 * persistent requests.
 *   - each rank has a partitioned send to its pair partner and a partitioned receive
 *     from it (tag TAG, P partitions of C ints); every round the data changes and is
 *     checked partition by partition as MPI_Parrived reports it, then in full;
 *   - the rounds cycle through the starts (MPI_Start in either order, MPI_Startall),
 *     the ways to mark partitions ready (MPI_Pready in reverse order, two
 *     MPI_Pready_range halves, two scrambled MPI_Pready_list halves) and the
 *     completions (MPI_Wait, MPI_Waitall, MPI_Testall, MPI_Waitany, MPI_Testany,
 *     MPI_Waitsome, MPI_Testsome, MPI_Test, MPI_Request_get_status then MPI_Wait);
 *     Waitany / Testany / Waitsome / Testsome must report each request once, then
 *     MPI_UNDEFINED once both are inactive again;
 *   - the receive status: MPI_SOURCE, MPI_TAG, MPI_Get_count = P * C;
 *   - MPI_Parrived is true on MPI_REQUEST_NULL and on an inactive receive request
 *     (before its first start and after a completed round), MPI-4.1 sec. 4.2.3;
 *   - count 0 per partition: the rounds complete, every partition arrives, count 0;
 *   - MPI_PROC_NULL as the peer: the receive is complete at once (first MPI_Test),
 *     every partition has arrived, empty status, buffer untouched; the send completes
 *     at once once its partitions are ready;
 *   - MPI_Request_free of the inactive requests sets the handles to MPI_REQUEST_NULL.
 * Argument: rounds (default 27, a multiple of the 9 completion kinds). */
#include "part_util.h"

#define TAG 11
enum { P = 8, C = 37 };

static int sbuf[P * C], rbuf[P * C];

static void mark_ready(MPI_Request sreq, int round)
{
    int perm[P];
    switch (round % 3) {
    case 0:
        for (int p = P - 1; p >= 0; p--)
            CHECK_OK(MPI_Pready(p, sreq));
        break;
    case 1:
        CHECK_OK(MPI_Pready_range(P / 2, P - 1, sreq));
        CHECK_OK(MPI_Pready_range(0, P / 2 - 1, sreq));
        break;
    default:
        scramble(perm, P, round);
        CHECK_OK(MPI_Pready_list(P / 2, perm, sreq));
        CHECK_OK(MPI_Pready_list(P - P / 2, perm + P / 2, sreq));
        break;
    }
}

static void complete(MPI_Request *reqs, int mode, int peer)
{
    MPI_Status st, sts[2];
    int idx, flag, out, idxs[2], seen[2] = {0, 0}, ndone = 0;
    double t0 = MPI_Wtime();
    const char *what = "basic";
    switch (mode) {
    case 0:
        CHECK_OK(MPI_Wait(&reqs[0], &st));
        CHECK_OK(MPI_Wait(&reqs[1], &st));
        check_recv_status(&st, MPI_INT, peer, TAG, P * C, "MPI_Wait");
        break;
    case 1:
        CHECK_OK(MPI_Waitall(2, reqs, sts));
        check_recv_status(&sts[1], MPI_INT, peer, TAG, P * C, "MPI_Waitall");
        break;
    case 2:
        /* Strict: MPICH 4.0.2's MPI_Testall fails with MPI_ERR_IN_STATUS (the
         * receive's MPI_ERROR MPI_ERR_PENDING) while a partitioned receive is still
         * incomplete; without MPIX_PART_STRICT this round completes by MPI_Waitall. */
        if (!part_strict) {
            CHECK_OK(MPI_Waitall(2, reqs, sts));
            check_recv_status(&sts[1], MPI_INT, peer, TAG, P * C, "MPI_Waitall (for MPI_Testall)");
            break;
        }
        for (flag = 0; !flag;) {
            CHECK_OK(MPI_Testall(2, reqs, &flag, sts));
            if (!flag)
                spin_pause(t0, "MPI_Testall");
        }
        check_recv_status(&sts[1], MPI_INT, peer, TAG, P * C, "MPI_Testall");
        break;
    case 3:
        for (int k = 0; k < 2; k++) {
            CHECK_OK(MPI_Waitany(2, reqs, &idx, &st));
            CHECK(idx == 0 || idx == 1, "MPI_Waitany index %d", idx);
            CHECK(!seen[idx], "MPI_Waitany reported request %d twice", idx);
            seen[idx] = 1;
            if (idx == 1)
                check_recv_status(&st, MPI_INT, peer, TAG, P * C, "MPI_Waitany");
        }
        CHECK_OK(MPI_Waitany(2, reqs, &idx, &st));
        CHECK(idx == MPI_UNDEFINED, "MPI_Waitany on two inactive requests: index %d", idx);
        break;
    case 4:
        while (ndone < 2) {
            CHECK_OK(MPI_Testany(2, reqs, &idx, &flag, &st));
            if (flag) {
                CHECK(idx == 0 || idx == 1, "MPI_Testany index %d with flag set and %d done", idx, ndone);
                CHECK(!seen[idx], "MPI_Testany reported request %d twice", idx);
                seen[idx] = 1;
                ndone++;
                if (idx == 1)
                    check_recv_status(&st, MPI_INT, peer, TAG, P * C, "MPI_Testany");
            } else {
                CHECK(idx == MPI_UNDEFINED, "MPI_Testany: flag 0 but index %d", idx);
                spin_pause(t0, "MPI_Testany");
            }
        }
        CHECK_OK(MPI_Testany(2, reqs, &idx, &flag, &st));
        CHECK(flag && idx == MPI_UNDEFINED, "MPI_Testany on two inactive requests: flag %d index %d", flag, idx);
        break;
    case 5:
    case 6:
        what = mode == 5 ? "MPI_Waitsome" : "MPI_Testsome";
        while (ndone < 2) {
            if (mode == 5)
                CHECK_OK(MPI_Waitsome(2, reqs, &out, idxs, sts));
            else
                CHECK_OK(MPI_Testsome(2, reqs, &out, idxs, sts));
            CHECK(out >= 0 && out <= 2 - ndone, "%s outcount %d with %d done", what, out, ndone);
            CHECK(mode == 6 || out > 0, "MPI_Waitsome returned no request");
            for (int k = 0; k < out; k++) {
                CHECK(idxs[k] == 0 || idxs[k] == 1, "%s index %d", what, idxs[k]);
                CHECK(!seen[idxs[k]], "%s reported request %d twice", what, idxs[k]);
                seen[idxs[k]] = 1;
                ndone++;
                if (idxs[k] == 1)
                    check_recv_status(&sts[k], MPI_INT, peer, TAG, P * C, what);
            }
            if (out == 0)
                spin_pause(t0, what);
        }
        if (mode == 5)
            CHECK_OK(MPI_Waitsome(2, reqs, &out, idxs, sts));
        else
            CHECK_OK(MPI_Testsome(2, reqs, &out, idxs, sts));
        CHECK(out == MPI_UNDEFINED, "%s on two inactive requests: outcount %d", what, out);
        break;
    case 7:
        for (int k = 0; k < 2; k++) {
            for (flag = 0; !flag;) {
                CHECK_OK(MPI_Test(&reqs[k], &flag, &st));
                if (!flag)
                    spin_pause(t0, "MPI_Test");
            }
        }
        check_recv_status(&st, MPI_INT, peer, TAG, P * C, "MPI_Test");
        break;
    default:
        for (int k = 1; k >= 0; k--) {
            for (flag = 0; !flag;) {
                CHECK_OK(MPI_Request_get_status(reqs[k], &flag, &st));
                if (!flag)
                    spin_pause(t0, "MPI_Request_get_status");
            }
            CHECK(reqs[k] != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
            /* Strict: MPICH 4.0.2 returns an empty status here (count MPI_UNDEFINED). */
            if (k == 1 && part_strict)
                check_recv_status(&st, MPI_INT, peer, TAG, P * C, "MPI_Request_get_status");
        }
        /* Complete; MPI_Test must succeed at once now. */
        for (int k = 0; k < 2; k++) {
            CHECK_OK(MPI_Test(&reqs[k], &flag, &st));
            CHECK(flag, "MPI_Test after MPI_Request_get_status reported completion: flag 0 (request %d)", k);
        }
        check_recv_status(&st, MPI_INT, peer, TAG, P * C, "MPI_Test after MPI_Request_get_status");
        break;
    }
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
          "completing a persistent partitioned request freed it (mode %d)", mode);
}

static void rounds(int nrounds)
{
    int peer = pair_peer(), flag = 0;
    MPI_Request reqs[2];
    CHECK_OK(MPI_Psend_init(sbuf, P, C, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    CHECK_OK(MPI_Precv_init(rbuf, P, C, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL, "init returned MPI_REQUEST_NULL");

    /* Inactive (never started) receive: every partition reports arrived. Strict:
     * MPICH 4.0.2 fails MPI_Parrived on an inactive request with MPI_ERR_REQUEST. */
    for (int p = 0; p < P && part_strict; p++) {
        flag = 0;
        CHECK_OK(MPI_Parrived(reqs[1], p, &flag));
        CHECK(flag, "MPI_Parrived on an inactive receive request (partition %d): flag 0", p);
    }
    /* Strict: MPICH 4.0.2 crashes (SIGSEGV) in MPI_Parrived(MPI_REQUEST_NULL). */
    if (part_strict) {
        flag = 0;
        CHECK_OK(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
        CHECK(flag, "MPI_Parrived(MPI_REQUEST_NULL): flag 0");
    }

    for (int r = 0; r < nrounds; r++) {
        int mode = r % 9, done[P] = {0}, left = P;
        double t0 = MPI_Wtime();
        fill_ints(sbuf, P * C, r, rank);
        for (int i = 0; i < P * C; i++)
            rbuf[i] = -1;
        if (mode == 1 || mode == 2 || mode == 5) {
            CHECK_OK(MPI_Startall(2, reqs));
        } else if (r % 2) {
            CHECK_OK(MPI_Start(&reqs[1]));
            CHECK_OK(MPI_Start(&reqs[0]));
        } else {
            CHECK_OK(MPI_Start(&reqs[0]));
            CHECK_OK(MPI_Start(&reqs[1]));
        }
        mark_ready(reqs[0], r);
        /* Each partition is checked as soon as it has arrived. */
        while (left > 0) {
            for (int p = 0; p < P; p++) {
                if (done[p])
                    continue;
                CHECK_OK(MPI_Parrived(reqs[1], p, &flag));
                if (!flag)
                    continue;
                if (peer != MPI_PROC_NULL)
                    check_ints(rbuf, (long)p * C, (long)(p + 1) * C, r, peer, "partition after MPI_Parrived");
                done[p] = 1;
                left--;
            }
            if (left > 0)
                spin_pause(t0, "MPI_Parrived");
        }
        complete(reqs, mode, peer);
        if (peer != MPI_PROC_NULL)
            check_ints(rbuf, 0, P * C, r, peer, "buffer after completion");
        /* Inactive again: MPI_Parrived reports every partition (strict, as above). */
        if (part_strict) {
            CHECK_OK(MPI_Parrived(reqs[1], P - 1 - r % P, &flag));
            CHECK(flag, "MPI_Parrived on a completed (inactive) receive request: flag 0");
        }
    }
    CHECK_OK(MPI_Request_free(&reqs[0]));
    CHECK_OK(MPI_Request_free(&reqs[1]));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "MPI_Request_free left the handles set");
}

/* zero_count: P partitions of 0 ints each way. */
static void zero_count(void)
{
    int peer = pair_peer(), zs[1] = {5}, zr[1] = {-7}, flag;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    CHECK_OK(MPI_Psend_init(zs, P, 0, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    CHECK_OK(MPI_Precv_init(zr, P, 0, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    for (int r = 0; r < 3; r++) {
        CHECK_OK(MPI_Startall(2, reqs));
        CHECK_OK(MPI_Pready_range(0, P - 1, reqs[0]));
        for (int p = 0; p < P; p++)
            spin_arrived(reqs[1], p, "count 0: MPI_Parrived");
        CHECK_OK(MPI_Waitall(2, reqs, sts));
        check_recv_status(&sts[1], MPI_INT, peer, TAG + 1, 0, "count 0");
        CHECK(zr[0] == -7, "count 0: the receive buffer was written (%d)", zr[0]);
        if (part_strict) {
            CHECK_OK(MPI_Parrived(reqs[1], 0, &flag));
            CHECK(flag, "count 0: MPI_Parrived on the completed request: flag 0");
        }
    }
    CHECK_OK(MPI_Request_free(&reqs[0]));
    CHECK_OK(MPI_Request_free(&reqs[1]));
}

/* proc_null: partitioned requests with MPI_PROC_NULL complete at once. */
static void proc_null(void)
{
    int s[4 * 3], r[4 * 3], flag;
    MPI_Request sreq, rreq;
    MPI_Status st;
    for (int i = 0; i < 12; i++) {
        s[i] = i;
        r[i] = -3;
    }
    CHECK_OK(MPI_Psend_init(s, 4, 3, MPI_INT, MPI_PROC_NULL, TAG + 2, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_OK(MPI_Precv_init(r, 4, 3, MPI_INT, MPI_PROC_NULL, TAG + 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    for (int round = 0; round < 2; round++) {
        CHECK_OK(MPI_Start(&rreq));
        for (int p = 0; p < 4; p++) {
            flag = 0;
            CHECK_OK(MPI_Parrived(rreq, p, &flag));
            CHECK(flag, "MPI_PROC_NULL receive: partition %d not arrived at once", p);
        }
        flag = 0;
        CHECK_OK(MPI_Test(&rreq, &flag, &st));
        CHECK(flag, "MPI_PROC_NULL receive: not complete at once");
        check_recv_status(&st, MPI_INT, MPI_PROC_NULL, TAG + 2, 0, "MPI_PROC_NULL receive");
        for (int i = 0; i < 12; i++)
            CHECK(r[i] == -3, "MPI_PROC_NULL receive wrote element %d", i);

        CHECK_OK(MPI_Start(&sreq));
        if (round == 0) {
            CHECK_OK(MPI_Pready_range(0, 3, sreq));
        } else {
            int list[4] = {2, 0, 3, 1};
            CHECK_OK(MPI_Pready_list(4, list, sreq));
        }
        flag = 0;
        CHECK_OK(MPI_Test(&sreq, &flag, &st));
        CHECK(flag, "MPI_PROC_NULL send: not complete at once after its partitions are ready");
    }
    CHECK_OK(MPI_Request_free(&sreq));
    CHECK_OK(MPI_Request_free(&rreq));
    CHECK(sreq == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL, "MPI_Request_free left the handles set");
}

int main(int argc, char **argv)
{
    int nrounds = argc > 1 ? atoi(argv[1]) : 27;
    part_init(&argc, &argv);
    /* Strict: MPICH 4.0.2 crashes (SIGSEGV in ucp_am_send_nbx) in MPI_Psend_init to
     * MPI_PROC_NULL; so does the last rank of an odd process count, whose peer is
     * MPI_PROC_NULL. */
    if (part_strict || pair_peer() != MPI_PROC_NULL) {
        rounds(nrounds);
        zero_count();
    }
    if (part_strict)
        proc_null();
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("part basic: %d rounds, %d processes: OK\n", nrounds, nproc);
    CHECK_OK(MPI_Finalize());
    return 0;
}
