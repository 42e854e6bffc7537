/* overlap: nonblocking collectives in flight together with point-to-point traffic
 * (eager and rendezvous) and with each other on one communicator, completed in another
 * order than they started (MPI_Waitall on a reversed array, MPI_Waitany, MPI_Testsome
 * loops); persistent collectives restarted while others run; collectives on
 * communicators made by MPI_Comm_split (key reversing the rank order, checked with a
 * non-commutative op), MPI_Comm_dup and MPI_Comm_idup (used while the parent runs a
 * nonblocking collective), with ranks starting collectives on different communicators
 * in different orders. */
#include "coll_util.h"

#define BIG 100000

static void matmul_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    (void)dt;
    double *a = invec, *b = inoutvec;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        double r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                       a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

static void mat_of(int it, int who, long e, double m[4])
{
    for (int j = 0; j < 4; j++)
        m[j] = (double)val(it, who, e, j);
}

static void mat_mul(double a[4], const double b[4])
{
    double r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                   a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(a, r, sizeof r);
}

/* Everything at once on MPI_COMM_WORLD: a ring of rendezvous and eager messages,
 * Ibcast, Iallreduce (large: Rabenseifner), Iscan with a non-commutative op,
 * Ialltoall, Ibarrier, Igatherv and a persistent Allgather started twice. */
static void test_world_mix(MPI_Op matmul)
{
    int me = g_rank, n = g_size, right = (me + 1) % n, left = (me + n - 1) % n;
    for (int round = 0; round < 3; round++) {
        int *ring_out = malloc(BIG * sizeof(int)), *ring_in = malloc(BIG * sizeof(int));
        int small_out[4], small_in[4];
        int *bc = malloc(BIG * sizeof(int));
        int *ar_in = malloc(1000 * sizeof(int)), *ar_out = malloc(1000 * sizeof(int));
        double sc_in[3][4], sc_out[3][4];
        int *a2a_in = malloc(n * 5 * sizeof(int)), *a2a_out = malloc(n * 5 * sizeof(int));
        int gv_in[3], *gv_out = malloc(n * 3 * sizeof(int) + 1), gv_cnt[64], gv_dsp[64];
        int ag_in[2], *ag_out = malloc(n * 2 * sizeof(int));
        for (long i = 0; i < BIG; i++) {
            ring_out[i] = (int)val(round, me, i, 0);
            ring_in[i] = -1;
            bc[i] = me == round % n ? (int)val(round, 99, i, 1) : -1;
        }
        for (int i = 0; i < 4; i++)
            small_out[i] = me * 10 + i + round, small_in[i] = -1;
        for (int i = 0; i < 1000; i++)
            ar_in[i] = (int)val(round, me, i, 2), ar_out[i] = -1;
        for (int e = 0; e < 3; e++)
            mat_of(round, me, e, sc_in[e]);
        for (int i = 0; i < n * 5; i++)
            a2a_in[i] = me * 1000 + (i / 5) * 10 + i % 5 + round, a2a_out[i] = -1;
        for (int i = 0; i < 3; i++)
            gv_in[i] = me * 100 + i + round;
        int gtotal = 0;
        for (int i = 0; i < n; i++) {
            gv_cnt[i] = i % 3 + 1 > 3 ? 3 : i % 3 + 1;
            gv_dsp[i] = gtotal;
            gtotal += gv_cnt[i];
        }
        for (int i = 0; i < gtotal; i++)
            gv_out[i] = -1;
        int groot = (round + 1) % n;

        MPI_Request rq[10];
        MPI_Request pers;
        CHECK_OK(MPI_Allgather_init(ag_in, 2, MPI_INT, ag_out, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &pers));
        CHECK_OK(MPI_Irecv(ring_in, BIG, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]));
        CHECK_OK(MPI_Ibcast(bc, BIG, MPI_INT, round % n, MPI_COMM_WORLD, &rq[1]));
        CHECK_OK(MPI_Isend(ring_out, BIG, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[2]));
        CHECK_OK(MPI_Iallreduce(ar_in, ar_out, 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[3]));
        CHECK_OK(MPI_Irecv(small_in, 4, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &rq[4]));
        CHECK_OK(MPI_Iscan(sc_in, sc_out, 3, lays[L_MAT].type, matmul, MPI_COMM_WORLD, &rq[5]));
        CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[6]));
        CHECK_OK(MPI_Ialltoall(a2a_in, 5, MPI_INT, a2a_out, 5, MPI_INT, MPI_COMM_WORLD, &rq[7]));
        CHECK_OK(MPI_Igatherv(gv_in, gv_cnt[me], MPI_INT, gv_out, gv_cnt, gv_dsp, MPI_INT, groot, MPI_COMM_WORLD, &rq[8]));
        CHECK_OK(MPI_Send(small_out, 4, MPI_INT, left, 8, MPI_COMM_WORLD));
        /* The persistent allgather runs twice while the others are in flight. */
        for (int it = 0; it < 2; it++) {
            ag_in[0] = me + it * 100, ag_in[1] = -me - round;
            CHECK_OK(MPI_Start(&pers));
            CHECK_OK(MPI_Wait(&pers, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++)
                CHECK(ag_out[2 * i] == i + it * 100 && ag_out[2 * i + 1] == -i - round, "persistent allgather run %d", it);
        }
        CHECK_OK(MPI_Request_free(&pers));
        rq[9] = MPI_REQUEST_NULL;
        switch (round) {
        case 0: { /* Waitall over the requests in reverse order */
            MPI_Request rev[10];
            for (int i = 0; i < 10; i++)
                rev[i] = rq[9 - i];
            MPI_Status sts[10];
            CHECK_OK(MPI_Waitall(10, rev, sts));
            for (int i = 0; i < 10; i++)
                CHECK(rev[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);
            break;
        }
        case 1: /* Waitany until none is left */
            for (;;) {
                int idx;
                MPI_Status st;
                CHECK_OK(MPI_Waitany(10, rq, &idx, &st));
                if (idx == MPI_UNDEFINED)
                    break;
                CHECK(rq[idx] == MPI_REQUEST_NULL, "Waitany left request %d", idx);
            }
            break;
        default: { /* Testsome loops */
            int left_ = 9;
            while (left_ > 0) {
                int outcount, idx[10];
                MPI_Status sts[10];
                CHECK_OK(MPI_Testsome(10, rq, &outcount, idx, sts));
                if (outcount != MPI_UNDEFINED)
                    left_ -= outcount;
            }
        }
        }
        /* Check every result. */
        for (long i = 0; i < BIG; i++) {
            CHECK(ring_in[i] == (int)val(round, left, i, 0), "ring message word %ld", i);
            CHECK(bc[i] == (int)val(round, 99, i, 1), "ibcast word %ld", i);
        }
        for (int i = 0; i < 4; i++)
            CHECK(small_in[i] == right * 10 + i + round, "eager message word %d", i);
        for (int i = 0; i < 1000; i++) {
            long s = 0;
            for (int r = 0; r < n; r++)
                s += val(round, r, i, 2);
            CHECK(ar_out[i] == s, "iallreduce element %d: %d, want %ld", i, ar_out[i], s);
        }
        for (int e = 0; e < 3; e++) {
            double w[4], x[4];
            mat_of(round, 0, e, w);
            for (int r = 1; r <= me; r++) {
                mat_of(round, r, e, x);
                mat_mul(w, x);
            }
            for (int j = 0; j < 4; j++)
                CHECK(sc_out[e][j] == w[j], "iscan matrix %d entry %d: %g, want %g", e, j, sc_out[e][j], w[j]);
        }
        for (int i = 0; i < n * 5; i++)
            CHECK(a2a_out[i] == (i / 5) * 1000 + me * 10 + i % 5 + round, "ialltoall word %d", i);
        if (me == groot)
            for (int i = 0; i < n; i++)
                for (int k = 0; k < gv_cnt[i]; k++)
                    CHECK(gv_out[gv_dsp[i] + k] == i * 100 + k + round, "igatherv block %d word %d", i, k);
        free(ring_out), free(ring_in), free(bc), free(ar_in), free(ar_out), free(a2a_in), free(a2a_out);
        free(gv_out), free(ag_out);
    }
}

/* Collectives on derived communicators: split into two halves with the rank order
 * reversed (a non-commutative allreduce shows it), dup, and idup completed while a
 * nonblocking collective runs on the parent; ranks start collectives on different
 * communicators in different orders. */
static void test_comms(MPI_Op matmul)
{
    int me = g_rank, n = g_size;
    MPI_Comm half, dup, idup;
    int color = me % 2, key = n - me;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, color, key, &half));
    CHECK_OK(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    /* World ranks of the half, in its rank order: descending. */
    int members[64], nm = 0;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2 == color)
            members[nm++] = r;
    CHECK(nm == hs && members[hr] == me, "split: rank %d of %d, want rank of %d among %d", hr, hs, me, nm);

    /* Non-commutative allreduce on the half: the product in the half's rank order. */
    double mine[2][4], out[2][4];
    for (int e = 0; e < 2; e++)
        mat_of(5, me, e, mine[e]);
    CHECK_OK(MPI_Allreduce(mine, out, 2, lays[L_MAT].type, matmul, half));
    for (int e = 0; e < 2; e++) {
        double w[4], x[4];
        mat_of(5, members[0], e, w);
        for (int k = 1; k < nm; k++) {
            mat_of(5, members[k], e, x);
            mat_mul(w, x);
        }
        for (int j = 0; j < 4; j++)
            CHECK(out[e][j] == w[j], "allreduce on split comm: matrix %d entry %d: %g, want %g", e, j, out[e][j], w[j]);
    }

    /* MPI_Comm_idup while an Iallreduce on the parent is in flight. */
    long s = 0, ps = 0;
    int x = me + 1, y = -1;
    MPI_Request rq[2];
    CHECK_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
    CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &rq[1]));
    MPI_Status sts[2];
    CHECK_OK(MPI_Waitall(2, rq, sts));
    for (int r = 0; r < n; r++)
        s += r + 1;
    CHECK(y == s, "iallreduce beside comm_idup: %d, want %ld", y, s);
    CHECK_OK(MPI_Comm_set_errhandler(idup, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));

    /* Even ranks start on dup, then idup, then half; odd ranks the other way round:
     * each communicator's collectives still match. Bcast roots differ per comm. */
    int b1[600], b2[600], b3[7];
    for (int i = 0; i < 600; i++) {
        b1[i] = me == 0 ? i * 3 : -1;
        b2[i] = me == n - 1 ? i * 5 : -1;
    }
    for (int i = 0; i < 7; i++)
        b3[i] = hr == hs - 1 ? i + 100 * color : -1;
    MPI_Request r3[3];
    if (me % 2 == 0) {
        CHECK_OK(MPI_Ibcast(b1, 600, MPI_INT, 0, dup, &r3[0]));
        CHECK_OK(MPI_Ibcast(b2, 600, MPI_INT, n - 1, idup, &r3[1]));
        CHECK_OK(MPI_Ibcast(b3, 7, MPI_INT, hs - 1, half, &r3[2]));
    } else {
        CHECK_OK(MPI_Ibcast(b3, 7, MPI_INT, hs - 1, half, &r3[2]));
        CHECK_OK(MPI_Ibcast(b2, 600, MPI_INT, n - 1, idup, &r3[1]));
        CHECK_OK(MPI_Ibcast(b1, 600, MPI_INT, 0, dup, &r3[0]));
    }
    MPI_Status sts3[3];
    CHECK_OK(MPI_Waitall(3, r3, sts3));
    for (int i = 0; i < 600; i++)
        CHECK(b1[i] == i * 3 && b2[i] == i * 5, "bcast on dup/idup word %d", i);
    for (int i = 0; i < 7; i++)
        CHECK(b3[i] == i + 100 * color, "bcast on split comm word %d", i);

    /* Exscan on the half in its (reversed) rank order, blocking and persistent. */
    MPI_Request pr;
    int ex_in, ex_out = -1;
    CHECK_OK(MPI_Exscan_init(&ex_in, &ex_out, 1, MPI_INT, MPI_SUM, half, MPI_INFO_NULL, &pr));
    for (int it = 0; it < 3; it++) {
        ex_in = me * (it + 1);
        CHECK_OK(MPI_Start(&pr));
        CHECK_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        ps = 0;
        for (int k = 0; k < hr; k++)
            ps += members[k] * (it + 1);
        if (hr > 0)
            CHECK(ex_out == ps, "persistent exscan on split comm, start %d: %d, want %ld", it, ex_out, ps);
    }
    CHECK_OK(MPI_Request_free(&pr));

    /* Reduce_scatter_block on dup and a gather on idup with every root. */
    int *rs_in = malloc(n * 3 * sizeof(int)), rs_out[3];
    for (int i = 0; i < n * 3; i++)
        rs_in[i] = i * (me + 1);
    CHECK_OK(MPI_Reduce_scatter_block(rs_in, rs_out, 3, MPI_INT, MPI_SUM, dup));
    for (int k = 0; k < 3; k++)
        CHECK(rs_out[k] == (me * 3 + k) * (int)s, "reduce_scatter_block on dup element %d", k);
    for (int root = 0; root < n; root++) {
        int g[64];
        CHECK_OK(MPI_Gather(&me, 1, MPI_INT, g, 1, MPI_INT, root, idup));
        if (me == root)
            for (int i = 0; i < n; i++)
                CHECK(g[i] == i, "gather on idup root %d slot %d", root, i);
    }
    free(rs_in);
    CHECK_OK(MPI_Comm_free(&half));
    CHECK_OK(MPI_Comm_disconnect(&dup)); /* no communication pending on it */
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle");
    CHECK_OK(MPI_Comm_free(&idup));
}

/* Many nonblocking collectives of one kind outstanding at once, completed in reverse
 * order: each call is told apart from the others. */
static void test_many_outstanding(void)
{
    enum { K = 40 };
    int in[K], out[K];
    MPI_Request rq[K];
    for (int k = 0; k < K; k++) {
        in[k] = g_rank * K + k;
        out[k] = -1;
        if (k % 2)
            CHECK_OK(MPI_Iallreduce(&in[k], &out[k], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq[k]));
        else
            CHECK_OK(MPI_Ireduce(&in[k], &out[k], 1, MPI_INT, MPI_MAX, k % g_size, MPI_COMM_WORLD, &rq[k]));
    }
    for (int k = K - 1; k >= 0; k--)
        CHECK_OK(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < K; k++)
        if (k % 2 || g_rank == k % g_size)
            CHECK(out[k] == (g_size - 1) * K + k, "outstanding collective %d: %d", k, out[k]);
}

/* A persistent collective that completed before MPI_Wait/MPI_Waitany is still active
 * until one of them reports it, with its status: Waitany returns its index, not
 * MPI_UNDEFINED, and a truncation error reaches the caller. */
static void test_persistent_status(void)
{
    int x = g_rank + 1, y = 0, flag = 0, idx = -1;
    MPI_Request r;
    MPI_Status st;
    CHECK_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int it = 0; it < 3; it++) {
        CHECK_OK(MPI_Start(&r));
        while (!flag)
            CHECK_OK(MPI_Request_get_status(r, &flag, &st));
        flag = 0;
        CHECK_CLASS(MPI_Start(&r), MPI_ERR_REQUEST); /* completed, not yet reported */
        CHECK_OK(MPI_Waitany(1, &r, &idx, &st));
        CHECK(idx == 0, "Waitany on a completed persistent collective returned index %d", idx);
        CHECK(r != MPI_REQUEST_NULL && y == g_size * (g_size + 1) / 2, "persistent allreduce: %d", y);
        CHECK_OK(MPI_Waitany(1, &r, &idx, &st));
        CHECK(idx == MPI_UNDEFINED, "Waitany on an inactive persistent collective returned index %d", idx);
    }
    CHECK_OK(MPI_Request_free(&r));

    /* The root broadcasts 10 ints; rank 1, its child in every tree, expects 5. */
    if (g_size < 2)
        return;
    int b[10] = {0};
    CHECK_OK(MPI_Bcast_init(b, g_rank == 0 ? 10 : 5, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_OK(MPI_Start(&r));
    if (g_rank == 1) {
        int rc = MPI_SUCCESS;
        while (!flag) /* the peek reports the failure too, and leaves the request */
            rc = MPI_Request_get_status(r, &flag, &st);
        CHECK(mpix_test_class(rc) == MPI_ERR_TRUNCATE, "get_status of a truncated bcast: class %d",
              mpix_test_class(rc));
        CHECK_CLASS(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE);
    } else {
        MPI_Wait(&r, &st); /* others may or may not see the truncation */
    }
    CHECK_OK(MPI_Request_free(&r));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    coll_init(&argc, &argv);
    MPI_Op matmul;
    CHECK_OK(MPI_Op_create(matmul_fn, 0, &matmul));
    test_world_mix(matmul);
    test_comms(matmul);
    test_many_outstanding();
    test_persistent_status();
    CHECK_OK(MPI_Op_free(&matmul));
    lays_free();
    CHECK_OK(MPI_Finalize());
    return 0;
}
