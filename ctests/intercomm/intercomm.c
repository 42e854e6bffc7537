/* Intercommunicators: every collective the standard defines on them, in blocking,
 * nonblocking and persistent form (persistent ones started twice with different
 * data), with the root in either group; MPI_Comm_create and MPI_Comm_split on an
 * intercommunicator; MPI_Intercomm_create_from_groups; and the errors (Scan/Exscan on
 * an intercommunicator, MPI_IN_PLACE, bad roots).
 *
 * Group A is the even world ranks, group B the odd ones (uneven at 3 processes). Every
 * process knows every world rank's contribution (val), so it checks what it received
 * against a serial computation over the other group. */
#include <unistd.h>
#include "mpix_test.h"

#define MAXP 64
#define POISON (-77777)

static int wrank, wsize, inA;
static MPI_Comm inter;
static int lsize, rsize, lrank;
static int lw[MAXP], rw[MAXP]; /* world ranks of the local and remote groups */

static int val(int iter, int w, int i) { return iter * 1000 + w * 37 + i + 1; }

static void poison(int *b, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = POISON;
}

/* FORMS runs one collective in its three forms: BLOCK, NB (which sets req_) and INIT
 * (likewise; then started twice). FILL and CHECK run before and after each call with
 * iter set. */
#define FORMS(FILL, CHECK, BLOCK, NB, INIT)                                        \
    do {                                                                           \
        for (int form_ = 0; form_ < 3; form_++) {                                  \
            MPI_Request req_ = MPI_REQUEST_NULL;                                   \
            if (form_ == 2)                                                        \
                CHECK_OK(INIT);                                                    \
            for (int it_ = 0; it_ < (form_ == 2 ? 2 : 1); it_++) {                 \
                int iter = 10 * form_ + it_;                                       \
                FILL;                                                              \
                if (form_ == 0) {                                                  \
                    CHECK_OK(BLOCK);                                               \
                } else {                                                           \
                    if (form_ == 1)                                                \
                        CHECK_OK(NB);                                              \
                    else                                                           \
                        CHECK_OK(MPI_Start(&req_));                                \
                    CHECK_OK(MPI_Wait(&req_, MPI_STATUS_IGNORE));                  \
                }                                                                  \
                CHECK;                                                             \
            }                                                                      \
            if (form_ == 2)                                                        \
                CHECK_OK(MPI_Request_free(&req_));                                 \
        }                                                                          \
    } while (0)

/* ---- rooted collectives ---- */

static int root, rootWorld; /* this process's root argument; the root's world rank */

/* set_root picks the root: local rank rl of group A (rootInA) or of group B. */
static void set_root(int rootInA, int rl)
{
    if (inA == rootInA) {
        root = lrank == rl ? MPI_ROOT : MPI_PROC_NULL;
        rootWorld = lw[rl];
    } else {
        root = rl;
        rootWorld = rw[rl];
    }
}

#define N 6
static int sbuf[MAXP * 8], rbuf[MAXP * 8 + 64];
static int counts[MAXP], displs[MAXP], rcnts[MAXP], rdispls[MAXP];

static void fill_bcast(int iter)
{
    for (int i = 0; i < N; i++)
        rbuf[i] = root == MPI_ROOT ? val(iter, wrank, i) : POISON;
}

static void check_bcast(int iter)
{
    for (int i = 0; i < N; i++) {
        int want = root == MPI_PROC_NULL ? POISON : val(iter, rootWorld, i);
        CHECK(rbuf[i] == want, "bcast iter %d: [%d] = %d, want %d", iter, i, rbuf[i], want);
    }
}

static void fill_mine(int iter, int n)
{
    for (int i = 0; i < n; i++)
        sbuf[i] = val(iter, wrank, i);
    poison(rbuf, MAXP * 8);
}

static void check_reduce(int iter, int all, MPI_Op op)
{
    if (!all && root != MPI_ROOT) {
        CHECK(rbuf[0] == POISON, "reduce wrote to a non-root's buffer");
        return;
    }
    for (int i = 0; i < N; i++) {
        int want = val(iter, rw[0], i);
        for (int j = 1; j < rsize; j++) {
            int x = val(iter, rw[j], i);
            want = op == MPI_SUM ? want + x : (x > want ? x : want);
        }
        CHECK(rbuf[i] == want, "%s iter %d: [%d] = %d, want %d", all ? "allreduce" : "reduce", iter, i, rbuf[i], want);
    }
}

/* gatherv: remote process j contributes j+1 ints, placed with a one-int gap. */
static void gatherv_layout(void)
{
    int off = 0;
    for (int j = 0; j < rsize; j++) {
        counts[j] = j + 1;
        displs[j] = off + 1;
        off += counts[j] + 1;
    }
}

static void check_gather(int iter, int v)
{
    if (root != MPI_ROOT)
        return;
    for (int j = 0; j < rsize; j++) {
        int n = v ? counts[j] : 3, off = v ? displs[j] : 3 * j;
        for (int i = 0; i < n; i++)
            CHECK(rbuf[off + i] == val(iter, rw[j], i), "gather%s iter %d: block %d [%d] = %d", v ? "v" : "", iter, j, i, rbuf[off + i]);
        if (v)
            CHECK(rbuf[off - 1] == POISON, "gatherv wrote into a gap");
    }
}

static void fill_scatter(int iter, int v)
{
    poison(sbuf, MAXP * 8);
    poison(rbuf, MAXP * 8);
    if (root != MPI_ROOT)
        return;
    for (int j = 0; j < rsize; j++) {
        int n = v ? counts[j] : 3, off = v ? displs[j] : 3 * j;
        for (int i = 0; i < n; i++)
            sbuf[off + i] = val(iter, rw[j], i);
    }
}

static void check_scatter(int iter, int v)
{
    if (root < 0)
        return;
    int n = v ? lrank + 1 : 3;
    for (int i = 0; i < n; i++)
        CHECK(rbuf[i] == val(iter, wrank, i), "scatter%s iter %d: [%d] = %d", v ? "v" : "", iter, i, rbuf[i]);
    CHECK(rbuf[n] == POISON, "scatter wrote past the block");
}

static void rooted(int rootInA, int rl)
{
    set_root(rootInA, rl);
    MPI_Datatype pair;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_OK(MPI_Type_commit(&pair));

    FORMS(fill_bcast(iter), check_bcast(iter),
          MPI_Bcast(rbuf, N, MPI_INT, root, inter),
          MPI_Ibcast(rbuf, N, MPI_INT, root, inter, &req_),
          MPI_Bcast_init(rbuf, N, MPI_INT, root, inter, MPI_INFO_NULL, &req_));

    MPI_Op ops[2] = {MPI_SUM, MPI_MAX};
    for (int k = 0; k < 2; k++) {
        MPI_Op op = ops[k];
        FORMS(fill_mine(iter, N), check_reduce(iter, 0, op),
              MPI_Reduce(sbuf, rbuf, N, MPI_INT, op, root, inter),
              MPI_Ireduce(sbuf, rbuf, N, MPI_INT, op, root, inter, &req_),
              MPI_Reduce_init(sbuf, rbuf, N, MPI_INT, op, root, inter, MPI_INFO_NULL, &req_));
    }

    /* gather: 3 ints sent, received as one int and one pair per block */
    MPI_Datatype three;
    CHECK_OK(MPI_Type_contiguous(3, MPI_INT, &three));
    CHECK_OK(MPI_Type_commit(&three));
    FORMS(fill_mine(iter, 3), check_gather(iter, 0),
          MPI_Gather(sbuf, 3, MPI_INT, rbuf, 1, three, root, inter),
          MPI_Igather(sbuf, 3, MPI_INT, rbuf, 1, three, root, inter, &req_),
          MPI_Gather_init(sbuf, 3, MPI_INT, rbuf, 1, three, root, inter, MPI_INFO_NULL, &req_));
    gatherv_layout();
    int mycount = root >= 0 ? lrank + 1 : 0;
    FORMS(fill_mine(iter, mycount), check_gather(iter, 1),
          MPI_Gatherv(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter),
          MPI_Igatherv(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter, &req_),
          MPI_Gatherv_init(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter, MPI_INFO_NULL, &req_));

    FORMS(fill_scatter(iter, 0), check_scatter(iter, 0),
          MPI_Scatter(sbuf, 1, three, rbuf, 3, MPI_INT, root, inter),
          MPI_Iscatter(sbuf, 1, three, rbuf, 3, MPI_INT, root, inter, &req_),
          MPI_Scatter_init(sbuf, 1, three, rbuf, 3, MPI_INT, root, inter, MPI_INFO_NULL, &req_));
    FORMS(fill_scatter(iter, 1), check_scatter(iter, 1),
          MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, mycount, MPI_INT, root, inter),
          MPI_Iscatterv(sbuf, counts, displs, MPI_INT, rbuf, mycount, MPI_INT, root, inter, &req_),
          MPI_Scatterv_init(sbuf, counts, displs, MPI_INT, rbuf, mycount, MPI_INT, root, inter, MPI_INFO_NULL, &req_));

    /* Buffers and types are not significant at MPI_PROC_NULL, nor the send side at
     * MPI_ROOT for a gather. */
    if (root == MPI_PROC_NULL)
        CHECK_OK(MPI_Gather(NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, root, inter));
    else if (root == MPI_ROOT)
        CHECK_OK(MPI_Gather(NULL, 0, MPI_DATATYPE_NULL, rbuf, 3, MPI_INT, root, inter));
    else
        CHECK_OK(MPI_Gather(sbuf, 3, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, inter));
    MPI_Type_free(&three);
    MPI_Type_free(&pair);
}

/* ---- collectives both ways ---- */

static void check_allgather(int iter, int v)
{
    for (int j = 0; j < rsize; j++) {
        int n = v ? rw[j] % 3 + 1 : 2, off = v ? rdispls[j] : 2 * j;
        for (int i = 0; i < n; i++)
            CHECK(rbuf[off + i] == val(iter, rw[j], i), "allgather%s iter %d: block %d [%d] = %d", v ? "v" : "", iter, j, i, rbuf[off + i]);
    }
}

/* alltoall: the block from world rank s to world rank d has size(s, d) ints. */
static int a2a(int iter, int s, int d, int k) { return iter * 7919 + s * 101 + d * 13 + k; }
static int a2size(int v, int s, int d) { return v ? (s + d) % 3 + 1 : 2; }
static int sdis[MAXP], rdis[MAXP], scnt[MAXP], rcnt[MAXP];
static MPI_Datatype types[MAXP];

static void a2a_layout(int v, int bytes)
{
    int so = 0, ro = 0;
    for (int j = 0; j < rsize; j++) {
        scnt[j] = a2size(v, wrank, rw[j]);
        rcnt[j] = a2size(v, rw[j], wrank);
        sdis[j] = v ? so : 2 * j;
        rdis[j] = v ? ro + 1 : 2 * j;
        so += scnt[j];
        ro += rcnt[j] + 1;
        types[j] = MPI_INT;
    }
    if (bytes)
        for (int j = 0; j < rsize; j++) {
            sdis[j] *= sizeof(int);
            rdis[j] *= sizeof(int);
        }
}

static void fill_a2a(int iter, int v, int unit)
{
    poison(rbuf, MAXP * 8);
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < a2size(v, wrank, rw[j]); k++)
            sbuf[sdis[j] / unit + k] = a2a(iter, wrank, rw[j], k);
}

static void check_a2a(int iter, int v, int unit)
{
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < a2size(v, rw[j], wrank); k++) {
            int got = rbuf[rdis[j] / unit + k];
            CHECK(got == a2a(iter, rw[j], wrank, k), "alltoall(%d) iter %d: from %d [%d] = %d", v, iter, rw[j], k, got);
        }
}

/* reduce_scatter: both groups reduce lsizeA*lsizeB ints; block gives each local
 * process rsize of them, v an uneven share. */
static int rsc[MAXP];

static void check_rs(int iter, int v)
{
    int off = 0, mine = rsize;
    if (v) {
        for (int i = 0; i < lrank; i++)
            off += rsc[i];
        mine = rsc[lrank];
    } else {
        off = lrank * rsize;
    }
    for (int i = 0; i < mine; i++) {
        int want = 0;
        for (int j = 0; j < rsize; j++)
            want += val(iter, rw[j], off + i);
        CHECK(rbuf[i] == want, "reduce_scatter%s iter %d: [%d] = %d, want %d", v ? "" : "_block", iter, i, rbuf[i], want);
    }
    CHECK(rbuf[mine] == POISON, "reduce_scatter wrote past the block");
}

static void both_ways(void)
{
    FORMS((void)iter, (void)0,
          MPI_Barrier(inter), MPI_Ibarrier(inter, &req_), MPI_Barrier_init(inter, MPI_INFO_NULL, &req_));

    MPI_Op ops[2] = {MPI_SUM, MPI_MAX};
    for (int k = 0; k < 2; k++) {
        MPI_Op op = ops[k];
        FORMS(fill_mine(iter, N), check_reduce(iter, 1, op),
              MPI_Allreduce(sbuf, rbuf, N, MPI_INT, op, inter),
              MPI_Iallreduce(sbuf, rbuf, N, MPI_INT, op, inter, &req_),
              MPI_Allreduce_init(sbuf, rbuf, N, MPI_INT, op, inter, MPI_INFO_NULL, &req_));
    }

    MPI_Datatype pair;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_OK(MPI_Type_commit(&pair));
    FORMS(fill_mine(iter, 2), check_allgather(iter, 0),
          MPI_Allgather(sbuf, 2, MPI_INT, rbuf, 1, pair, inter),
          MPI_Iallgather(sbuf, 2, MPI_INT, rbuf, 1, pair, inter, &req_),
          MPI_Allgather_init(sbuf, 2, MPI_INT, rbuf, 1, pair, inter, MPI_INFO_NULL, &req_));
    int off = 0;
    for (int j = 0; j < rsize; j++) {
        rcnts[j] = rw[j] % 3 + 1;
        rdispls[j] = off + 1;
        off += rcnts[j] + 1;
    }
    int mine = wrank % 3 + 1;
    FORMS(fill_mine(iter, mine), check_allgather(iter, 1),
          MPI_Allgatherv(sbuf, mine, MPI_INT, rbuf, rcnts, rdispls, MPI_INT, inter),
          MPI_Iallgatherv(sbuf, mine, MPI_INT, rbuf, rcnts, rdispls, MPI_INT, inter, &req_),
          MPI_Allgatherv_init(sbuf, mine, MPI_INT, rbuf, rcnts, rdispls, MPI_INT, inter, MPI_INFO_NULL, &req_));
    MPI_Type_free(&pair);

    a2a_layout(0, 0);
    FORMS(fill_a2a(iter, 0, 1), check_a2a(iter, 0, 1),
          MPI_Alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter),
          MPI_Ialltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter, &req_),
          MPI_Alltoall_init(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter, MPI_INFO_NULL, &req_));
    a2a_layout(1, 0);
    FORMS(fill_a2a(iter, 1, 1), check_a2a(iter, 1, 1),
          MPI_Alltoallv(sbuf, scnt, sdis, MPI_INT, rbuf, rcnt, rdis, MPI_INT, inter),
          MPI_Ialltoallv(sbuf, scnt, sdis, MPI_INT, rbuf, rcnt, rdis, MPI_INT, inter, &req_),
          MPI_Alltoallv_init(sbuf, scnt, sdis, MPI_INT, rbuf, rcnt, rdis, MPI_INT, inter, MPI_INFO_NULL, &req_));
    a2a_layout(1, 1);
    int unit = sizeof(int);
    FORMS(fill_a2a(iter, 1, unit), check_a2a(iter, 1, unit),
          MPI_Alltoallw(sbuf, scnt, sdis, types, rbuf, rcnt, rdis, types, inter),
          MPI_Ialltoallw(sbuf, scnt, sdis, types, rbuf, rcnt, rdis, types, inter, &req_),
          MPI_Alltoallw_init(sbuf, scnt, sdis, types, rbuf, rcnt, rdis, types, inter, MPI_INFO_NULL, &req_));

    int total = lsize * rsize;
    FORMS(fill_mine(iter, total), check_rs(iter, 0),
          MPI_Reduce_scatter_block(sbuf, rbuf, rsize, MPI_INT, MPI_SUM, inter),
          MPI_Ireduce_scatter_block(sbuf, rbuf, rsize, MPI_INT, MPI_SUM, inter, &req_),
          MPI_Reduce_scatter_block_init(sbuf, rbuf, rsize, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req_));
    for (int i = 0; i < lsize; i++)
        rsc[i] = rsize + (i % 2 == 0 && i + 1 < lsize ? 1 : i % 2 == 1 ? -1 : 0);
    FORMS(fill_mine(iter, total), check_rs(iter, 1),
          MPI_Reduce_scatter(sbuf, rbuf, rsc, MPI_INT, MPI_SUM, inter),
          MPI_Ireduce_scatter(sbuf, rbuf, rsc, MPI_INT, MPI_SUM, inter, &req_),
          MPI_Reduce_scatter_init(sbuf, rbuf, rsc, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req_));
}

/* A barrier on an intercommunicator lets no process of group A out before every one
 * of group B is in: B enters 0.2 s after a world barrier, so A's wait is at least
 * that long. */
static void barrier_waits(void)
{
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    if (!inA)
        usleep(200000);
    CHECK_OK(MPI_Barrier(inter));
    double dt = MPI_Wtime() - t0;
    if (inA)
        CHECK(dt > 0.15, "group A left the barrier after %.3f s, before group B entered", dt);
}

/* ---- errors ---- */

static void errors(void)
{
    int x[4] = {0}, y[4];
    MPI_Request req;
    CHECK_CLASS(MPI_Scan(x, y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Exscan(x, y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Iscan(x, y, 1, MPI_INT, MPI_SUM, inter, &req), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Exscan_init(x, y, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Allreduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, y, 1, MPI_INT, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, y, 1, MPI_INT, inter, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_scatter_block(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, 0, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Bcast(x, 1, MPI_INT, rsize, inter), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_INT, -7, inter), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Reduce(x, y, 1, MPI_INT, MPI_OP_NULL, MPI_ROOT, inter), MPI_ERR_OP);
}

/* ---- communicator constructors ---- */

/* remote_worlds fills out with the world ranks of c's remote group. */
static int remote_worlds(MPI_Comm c, int *out)
{
    MPI_Group rg, wg;
    int n;
    CHECK_OK(MPI_Comm_remote_group(c, &rg));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_Group_size(rg, &n);
    int idx[MAXP];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_OK(MPI_Group_translate_ranks(rg, n, idx, wg, out));
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    return n;
}

/* check_link checks that c joins the processes with world ranks lo[0..nl) (local, in
 * rank order) and re[0..nr) (remote) and that an allreduce over it works. */
static void check_link(MPI_Comm c, const int *lo, int nl, const int *re, int nr, const char *what)
{
    int flag, n, r, got[MAXP];
    CHECK_OK(MPI_Comm_test_inter(c, &flag));
    CHECK(flag, "%s: not an intercommunicator", what);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    CHECK(n == nl, "%s: local size %d, want %d", what, n, nl);
    CHECK(lo[r] == wrank, "%s: rank %d is world rank %d, not me (%d)", what, r, lo[r], wrank);
    CHECK(remote_worlds(c, got) == nr, "%s: remote size differs", what);
    int want = 0;
    for (int i = 0; i < nr; i++) {
        CHECK(got[i] == re[i], "%s: remote rank %d is world rank %d, want %d", what, i, got[i], re[i]);
        want += re[i] + 1;
    }
    int mine = wrank + 1, sum;
    CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "%s: allreduce gave %d, want %d", what, sum, want);
}

static void create(void)
{
    /* A keeps all but its last process (all if alone); B keeps its first. */
    int na = inA ? lsize : rsize, nb = inA ? rsize : lsize;
    int *wa = inA ? lw : rw, *wb = inA ? rw : lw;
    int keepA = na > 1 ? na - 1 : 1, keepB = 1;
    MPI_Group lg, sub;
    CHECK_OK(MPI_Comm_group(inter, &lg));
    int idx[MAXP];
    for (int i = 0; i < MAXP; i++)
        idx[i] = i;
    CHECK_OK(MPI_Group_incl(lg, inA ? keepA : keepB, idx, &sub));
    MPI_Comm c;
    CHECK_OK(MPI_Comm_create(inter, sub, &c));
    int member = inA ? lrank < keepA : lrank < keepB;
    if (!member) {
        CHECK(c == MPI_COMM_NULL, "comm_create: a process outside the group got a communicator");
    } else {
        CHECK(c != MPI_COMM_NULL, "comm_create: a member got MPI_COMM_NULL");
        if (inA)
            check_link(c, wa, keepA, wb, keepB, "comm_create");
        else
            check_link(c, wb, keepB, wa, keepA, "comm_create");
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&sub);
    (void)nb;

    /* B passes an empty group: nobody gets a communicator. */
    CHECK_OK(MPI_Comm_create(inter, inA ? lg : MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL, "comm_create with an empty side must give MPI_COMM_NULL");
    MPI_Group_free(&lg);
}

static void split(void)
{
    /* color: local rank % 2 (group A's last process, when A has more than one, opts
     * out); key: reverse local rank order. */
    int color = lrank % 2;
    if (inA && lsize > 1 && lrank == lsize - 1)
        color = MPI_UNDEFINED;
    MPI_Comm c;
    CHECK_OK(MPI_Comm_split(inter, color, -lrank, &c));
    /* What each side's members with color col are, in new rank order. */
    int lo[MAXP], re[MAXP], nl = 0, nr = 0;
    int na = inA ? lsize : rsize, nb = inA ? rsize : lsize;
    for (int i = (inA ? lsize : rsize) - 1; i >= 0; i--) {
        int ci = i % 2;
        if (na > 1 && i == na - 1)
            ci = MPI_UNDEFINED;
        if (ci == color)
            (inA ? lo : re)[inA ? nl++ : nr++] = (inA ? lw : rw)[i];
    }
    for (int i = (inA ? rsize : lsize) - 1; i >= 0; i--)
        if (i % 2 == color)
            (inA ? re : lo)[inA ? nr++ : nl++] = (inA ? rw : lw)[i];
    (void)nb;
    if (color == MPI_UNDEFINED || nr == 0) {
        CHECK(c == MPI_COMM_NULL, "comm_split: color %d should give MPI_COMM_NULL", color);
        return;
    }
    CHECK(c != MPI_COMM_NULL, "comm_split: color %d gave MPI_COMM_NULL", color);
    check_link(c, lo, nl, re, nr, "comm_split");
    MPI_Comm_free(&c);
}

static void from_groups(void)
{
    MPI_Group wg, mine, other;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_OK(MPI_Group_incl(wg, lsize, lw, &mine));
    CHECK_OK(MPI_Group_incl(wg, rsize, rw, &other));
    MPI_Comm c;
    /* Leaders: each group's last process. */
    CHECK_OK(MPI_Intercomm_create_from_groups(mine, lsize - 1, other, rsize - 1, "mpix intercomm test", MPI_INFO_NULL,
                                              MPI_ERRORS_RETURN, &c));
    check_link(c, lw, lsize, rw, rsize, "intercomm_create_from_groups");
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(c, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "intercomm_create_from_groups: the error handler was not attached");
    MPI_Errhandler_free(&eh);
    int res;
    MPI_Group rg;
    CHECK_OK(MPI_Comm_remote_group(c, &rg));
    MPI_Group_compare(rg, other, &res);
    CHECK(res == MPI_IDENT, "intercomm_create_from_groups: remote group differs (%d)", res);
    MPI_Group_free(&rg);
    MPI_Comm_free(&c);

    /* The caller must be in the local group. */
    CHECK_CLASS(MPI_Intercomm_create_from_groups(other, 0, mine, 0, "bad", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Intercomm_create_from_groups(mine, lsize, other, 0, "bad", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                MPI_ERR_RANK);
    MPI_Group_free(&mine);
    MPI_Group_free(&other);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2 || wsize > MAXP) {
        if (wrank == 0)
            printf("intercomm: needs 2 to %d processes\n", MAXP);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    inA = wrank % 2 == 0;
    MPI_Comm half;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, !inA, wrank, &half));
    CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, inA ? 1 : 0, 99, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    for (int i = 0; i < lsize; i++)
        lw[i] = 2 * i + !inA;
    for (int i = 0; i < rsize; i++)
        rw[i] = 2 * i + inA;
    int got[MAXP];
    CHECK(remote_worlds(inter, got) == rsize && got[rsize - 1] == rw[rsize - 1], "unexpected remote group");

    rooted(1, (inA ? lsize : rsize) - 1); /* root: group A's last process */
    rooted(0, 0);                         /* root: group B's first */
    both_ways();
    barrier_waits();
    errors();
    create();
    split();
    from_groups();

    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("intercomm: ok at %d processes\n", wsize);
    MPI_Finalize();
    return 0;
}
