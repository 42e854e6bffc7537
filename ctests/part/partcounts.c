/* partcounts: the send and receive sides partition the same message differently
 * (MPI-4.1 sec. 4.2.2: only the type signatures of the whole messages must match):
 * 8 x 64 ints against 4 x 128, 4 x 256 against 16 x 64 and the reverse, 3 x 200
 * against 6 x 100, non-dividing 5 x 7 against 7 x 5, one partition against six.
 * Each round, in each pair (the even rank sends in even configurations, the odd one
 * in odd configurations):
 *   1. the sender marks the first half of its partitions ready (scrambled order),
 *      then tells the receiver with an ordinary message;
 *   2. the receiver: every receive partition that needs an element of a send
 *      partition not yet ready must report MPI_Parrived false; with
 *      MPIX_PART_STRICT=1, every receive partition whose elements all lie in ready
 *      send partitions must arrive before the rest is ready (MPI_Parrived spins
 *      until true; its data is checked). The standard does not promise such early
 *      arrival (MPICH 4.0.2 transfers nothing before the last MPI_Pready); mpix's
 *      default strategy (timer_ploggp) sends what is ready after its delta. Then it
 *      tells the sender to go on;
 *   3. the sender marks the rest ready; every receive partition arrives, data checked,
 *      both complete; the status counts the whole message.
 * Argument: rounds per configuration (default 3). */
#include "part_util.h"

#define TAG 21
struct cfg {
    int sp, sc, rp, rc;
};
static const struct cfg cfgs[] = {
    {8, 64, 4, 128}, {4, 128, 8, 64}, {4, 256, 16, 64}, {16, 64, 4, 256}, {3, 200, 6, 100},
    {6, 100, 3, 200}, {5, 7, 7, 5},   {1, 96, 6, 16},   {6, 16, 1, 96},
};

static void run(const struct cfg *c, int nrounds, int ci, int sender)
{
    int peer = pair_peer(), note = 0;
    long total = (long)c->sp * c->sc;
    int *buf = malloc(total * sizeof(int));
    MPI_Request req;
    MPI_Status st;
    CHECK(total == (long)c->rp * c->rc, "configuration %d: sizes differ", ci);
    if (peer == MPI_PROC_NULL) {
        free(buf);
        return;
    }
    if (sender)
        CHECK_OK(MPI_Psend_init(buf, c->sp, c->sc, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    else
        CHECK_OK(MPI_Precv_init(buf, c->rp, c->rc, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int r = 0; r < nrounds; r++) {
        int half = c->sp / 2, perm[16];
        long ready_elems = (long)half * c->sc;
        if (sender) {
            fill_ints(buf, total, r + ci * 100, rank);
            CHECK_OK(MPI_Start(&req));
            scramble(perm, c->sp, r + ci);
            for (int i = 0; i < c->sp; i++)
                if (perm[i] < half) {
                    CHECK_OK(MPI_Pready(perm[i], req));
                }
            CHECK_OK(MPI_Send(&r, 1, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD));
            CHECK_OK(MPI_Recv(&note, 1, MPI_INT, peer, TAG + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (half < c->sp)
                CHECK_OK(MPI_Pready_range(half, c->sp - 1, req));
            CHECK_OK(MPI_Wait(&req, &st));
        } else {
            char what[96];
            snprintf(what, sizeof what, "%d x %d sent as %d x %d, round %d", c->rp, c->rc, c->sp, c->sc, r);
            for (long i = 0; i < total; i++)
                buf[i] = -1;
            CHECK_OK(MPI_Start(&req));
            CHECK_OK(MPI_Recv(&note, 1, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(note == r, "%s: sender is in round %d", what, note);
            for (int p = 0; p < c->rp; p++) {
                long hi = (long)(p + 1) * c->rc;
                if (hi <= ready_elems) {
                    if (!part_strict)
                        continue;
                    spin_arrived(req, p, what);
                    check_ints(buf, (long)p * c->rc, hi, r + ci * 100, peer, what);
                } else {
                    int flag = 1;
                    CHECK_OK(MPI_Parrived(req, p, &flag));
                    CHECK(!flag, "%s: receive partition %d (elements up to %ld) arrived, but only %ld elements are ready",
                          what, p, hi, ready_elems);
                }
            }
            CHECK_OK(MPI_Send(&r, 1, MPI_INT, peer, TAG + 2, MPI_COMM_WORLD));
            for (int p = c->rp - 1; p >= 0; p--) {
                spin_arrived(req, p, what);
                check_ints(buf, (long)p * c->rc, (long)(p + 1) * c->rc, r + ci * 100, peer, what);
            }
            CHECK_OK(MPI_Wait(&req, &st));
            check_recv_status(&st, MPI_INT, peer, TAG, (int)total, what);
            check_ints(buf, 0, total, r + ci * 100, peer, what);
        }
    }
    CHECK_OK(MPI_Request_free(&req));
    free(buf);
}

int main(int argc, char **argv)
{
    int nrounds = argc > 1 ? atoi(argv[1]) : 3;
    part_init(&argc, &argv);
    for (int ci = 0; ci < (int)(sizeof cfgs / sizeof cfgs[0]); ci++) {
        /* The roles swap every other configuration. */
        run(&cfgs[ci], nrounds, ci, (rank + ci) % 2 == 0);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("part partcounts: %d configurations, %d rounds each, %d processes: OK\n",
               (int)(sizeof cfgs / sizeof cfgs[0]), nrounds, nproc);
    CHECK_OK(MPI_Finalize());
    return 0;
}
