/* The gathers, scatters, all-to-alls, scans and reduce-scatters on a threadcomm, in
 * the forms coll.c leaves out: in place (every other round), v-variants with zero
 * counts and gaps between blocks, a root that moves, derived datatypes on some ranks
 * only (odd ranks send and receive pairs of ints as one contiguous element, even
 * ranks as two MPI_INTs: same signatures, as MPI allows), a strided receive type
 * whose gaps must stay untouched, MINLOC scans, and misuse that must still get Go's
 * error classes (uncommitted datatype, misplaced MPI_IN_PLACE, aliased buffers).
 * Single-process these run in C
 * (threadcomm/coll.c: copy collectives; derived datatypes travel packed), across
 * processes in Go: the same answers either way.
 * Argument: threads per process (default 3). */
#include <omp.h>
#include "mpix_test.h"
#include <mpix.h>

#define ROUNDS 12
#define MAXR 64 /* ranks in all */
#define UNTOUCHED (-7)

static MPI_Comm tc;
static MPI_Datatype pair, strided; /* 2 contiguous ints; 2 ints with one int between */
static MPI_Datatype spaced;         /* a pair resized to 12 bytes: pairs one int apart */

/* The two ints a rank contributes to block q (q: the receiver, or 0). */
static int item(int rank, int q, int j) { return rank * 1000 + q * 10 + j; }

static void fill(int *buf, int n, int v)
{
    for (int i = 0; i < n; i++)
        buf[i] = v;
}

/* pairs(n) is how a rank describes n pairs of ints: odd ranks as n pair elements,
 * even ranks as 2n MPI_INTs. */
#define PCOUNT(n) (rank % 2 ? (n) : 2 * (n))
#define PTYPE (rank % 2 ? pair : MPI_INT)

static void round_body(int round)
{
    int rank, size, ip = round % 2, root = round % MAXR;
    CHECK_OK(MPI_Comm_rank(tc, &rank));
    CHECK_OK(MPI_Comm_size(tc, &size));
    root %= size;
    int sb[2 * MAXR], rb[6 * MAXR];

    /* Bcast of three pairs from the root, each rank with its own description; every
     * third round the root's pairs lie 12 bytes apart (a resized type), where the
     * others receive six contiguous ints. */
    int gapped = rank == root && round % 3 == 0;
    if (rank == root)
        for (int j = 0; j < 6; j++)
            rb[gapped ? j / 2 * 3 + j % 2 : j] = item(root, 7, j);
    else
        fill(rb, 6, UNTOUCHED);
    CHECK_OK(MPI_Bcast(rb, gapped ? 3 : PCOUNT(3), gapped ? spaced : PTYPE, root, tc));
    for (int j = 0; j < 6 && rank != root; j++)
        CHECK(rb[j] == item(root, 7, j), "round %d: bcast[%d] = %d", round, j, rb[j]);

    /* Allgather: every rank's pair, in rank order. */
    fill(rb, 2 * size, UNTOUCHED);
    sb[0] = item(rank, 0, 0), sb[1] = item(rank, 0, 1);
    if (ip) {
        rb[2 * rank] = sb[0], rb[2 * rank + 1] = sb[1];
        CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, PCOUNT(1), PTYPE, tc));
    } else
        CHECK_OK(MPI_Allgather(sb, PCOUNT(1), PTYPE, rb, PCOUNT(1), PTYPE, tc));
    for (int p = 0; p < size; p++)
        for (int j = 0; j < 2; j++)
            CHECK(rb[2 * p + j] == item(p, 0, j), "round %d: allgather[%d][%d] = %d", round, p, j, rb[2 * p + j]);

    /* Allgatherv: rank p sends p % 3 pairs, placed with a one-int gap before each block. */
    int counts[MAXR], displs[MAXR], at = 0;
    for (int p = 0; p < size; p++) {
        at += 1;
        displs[p] = at, counts[p] = p % 3;
        at += 2 * counts[p];
    }
    fill(rb, at, UNTOUCHED);
    for (int j = 0; j < 2 * (rank % 3); j++)
        sb[j] = item(rank, 1, j);
    if (ip) {
        memcpy(rb + displs[rank], sb, sizeof(int) * 2 * (rank % 3));
        int c2[MAXR], d2[MAXR];
        for (int p = 0; p < size; p++)
            c2[p] = 2 * counts[p], d2[p] = displs[p];
        CHECK_OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, c2, d2, MPI_INT, tc));
    } else {
        int c2[MAXR], d2[MAXR];
        for (int p = 0; p < size; p++)
            c2[p] = 2 * counts[p], d2[p] = displs[p];
        CHECK_OK(MPI_Allgatherv(sb, PCOUNT(rank % 3), PTYPE, rb, c2, d2, MPI_INT, tc));
    }
    for (int p = 0; p < size; p++) {
        CHECK(rb[displs[p] - 1] == UNTOUCHED, "round %d: allgatherv wrote the gap before %d", round, p);
        for (int j = 0; j < 2 * counts[p]; j++)
            CHECK(rb[displs[p] + j] == item(p, 1, j), "round %d: allgatherv[%d][%d] = %d", round, p, j,
                  rb[displs[p] + j]);
    }

    /* Gather to a moving root, which receives into a strided type: block p's two ints
     * at 3p and 3p+2, with 3p+1 left alone. */
    fill(rb, 3 * size, UNTOUCHED);
    sb[0] = item(rank, 2, 0), sb[1] = item(rank, 2, 1);
    if (ip && rank == root) {
        rb[3 * rank] = sb[0], rb[3 * rank + 2] = sb[1];
        CHECK_OK(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 1, strided, root, tc));
    } else
        CHECK_OK(MPI_Gather(sb, PCOUNT(1), PTYPE, rb, 1, strided, root, tc));
    if (rank == root)
        for (int p = 0; p < size; p++)
            CHECK(rb[3 * p] == item(p, 2, 0) && rb[3 * p + 2] == item(p, 2, 1) && rb[3 * p + 1] == UNTOUCHED,
                  "round %d: gather block %d = %d %d %d", round, p, rb[3 * p], rb[3 * p + 1], rb[3 * p + 2]);

    /* Gatherv: rank p sends p % 3 pairs; the root places them with gaps. */
    fill(rb, at, UNTOUCHED);
    for (int j = 0; j < 2 * (rank % 3); j++)
        sb[j] = item(rank, 3, j);
    {
        int c2[MAXR], d2[MAXR];
        for (int p = 0; p < size; p++)
            c2[p] = 2 * counts[p], d2[p] = displs[p];
        if (ip && rank == root) {
            memcpy(rb + displs[rank], sb, sizeof(int) * 2 * (rank % 3));
            CHECK_OK(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, c2, d2, MPI_INT, root, tc));
        } else
            CHECK_OK(MPI_Gatherv(sb, PCOUNT(rank % 3), PTYPE, rb, c2, d2, MPI_INT, root, tc));
    }
    if (rank == root)
        for (int p = 0; p < size; p++) {
            CHECK(rb[displs[p] - 1] == UNTOUCHED, "round %d: gatherv wrote a gap", round);
            for (int j = 0; j < 2 * counts[p]; j++)
                CHECK(rb[displs[p] + j] == item(p, 3, j), "round %d: gatherv[%d][%d]", round, p, j);
        }

    /* Scatter from the root: pair p to rank p. */
    int big[6 * MAXR];
    if (rank == root)
        for (int p = 0; p < size; p++)
            big[2 * p] = item(root, p, 0), big[2 * p + 1] = item(root, p, 1);
    fill(rb, 2, UNTOUCHED);
    if (ip && rank == root)
        CHECK_OK(MPI_Scatter(big, PCOUNT(1), PTYPE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, tc));
    else
        CHECK_OK(MPI_Scatter(big, 2, MPI_INT, rb, PCOUNT(1), PTYPE, root, tc));
    if (!(ip && rank == root))
        CHECK(rb[0] == item(root, rank, 0) && rb[1] == item(root, rank, 1), "round %d: scatter got %d %d", round,
              rb[0], rb[1]);

    /* Scatterv: rank p gets p % 3 pairs from the root's gapped layout. */
    if (rank == root)
        for (int p = 0; p < size; p++)
            for (int j = 0; j < 2 * counts[p]; j++)
                big[displs[p] + j] = item(root, p, j);
    fill(rb, 6, UNTOUCHED);
    {
        int c2[MAXR], d2[MAXR];
        for (int p = 0; p < size; p++)
            c2[p] = 2 * counts[p], d2[p] = displs[p];
        CHECK_OK(MPI_Scatterv(big, c2, d2, MPI_INT, rb, PCOUNT(rank % 3), PTYPE, root, tc));
    }
    for (int j = 0; j < 2 * (rank % 3); j++)
        CHECK(rb[j] == item(root, rank, j), "round %d: scatterv[%d] = %d", round, j, rb[j]);
    CHECK(rb[2 * (rank % 3)] == UNTOUCHED, "round %d: scatterv wrote past its count", round);

    /* Alltoall: pair q of rank p goes to rank q as its pair p. */
    for (int q = 0; q < size; q++)
        sb[2 * q] = item(rank, q, 0), sb[2 * q + 1] = item(rank, q, 1);
    fill(rb, 2 * size, UNTOUCHED);
    CHECK_OK(MPI_Alltoall(sb, PCOUNT(1), PTYPE, rb, 2, MPI_INT, tc));
    for (int p = 0; p < size; p++)
        CHECK(rb[2 * p] == item(p, rank, 0) && rb[2 * p + 1] == item(p, rank, 1), "round %d: alltoall from %d",
              round, p);

    /* Alltoallv: rank p sends (p + q) % 3 ints to q, packed at the front of its buffer;
     * the receiver places them with a gap before each block. */
    {
        int sc[MAXR], sd[MAXR], rc[MAXR], rd[MAXR], s = 0, r = 0;
        int sbuf[3 * MAXR], rbuf[4 * MAXR];
        for (int q = 0; q < size; q++) {
            sc[q] = (rank + q) % 3, sd[q] = s;
            for (int j = 0; j < sc[q]; j++)
                sbuf[s + j] = item(rank, q, j);
            s += sc[q];
            r += 1;
            rc[q] = (q + rank) % 3, rd[q] = r;
            r += rc[q];
        }
        fill(rbuf, r, UNTOUCHED);
        CHECK_OK(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, tc));
        for (int p = 0; p < size; p++) {
            CHECK(rbuf[rd[p] - 1] == UNTOUCHED, "round %d: alltoallv wrote a gap", round);
            for (int j = 0; j < rc[p]; j++)
                CHECK(rbuf[rd[p] + j] == item(p, rank, j), "round %d: alltoallv from %d [%d] = %d", round, p, j,
                      rbuf[rd[p] + j]);
        }
    }

    /* Scan and Exscan of three ints: sums of the ranks' item(r, 5, j) up to and
     * before this rank. */
    for (int j = 0; j < 3; j++)
        sb[j] = item(rank, 5, j);
    fill(rb, 3, UNTOUCHED);
    if (ip) {
        memcpy(rb, sb, 3 * sizeof(int));
        CHECK_OK(MPI_Scan(MPI_IN_PLACE, rb, 3, MPI_INT, MPI_SUM, tc));
    } else
        CHECK_OK(MPI_Scan(sb, rb, 3, MPI_INT, MPI_SUM, tc));
    for (int j = 0; j < 3; j++) {
        int want = 0;
        for (int p = 0; p <= rank; p++)
            want += item(p, 5, j);
        CHECK(rb[j] == want, "round %d: scan[%d] = %d, want %d", round, j, rb[j], want);
    }
    fill(rb, 3, UNTOUCHED);
    if (ip) {
        memcpy(rb, sb, 3 * sizeof(int));
        CHECK_OK(MPI_Exscan(MPI_IN_PLACE, rb, 3, MPI_INT, MPI_SUM, tc));
    } else
        CHECK_OK(MPI_Exscan(sb, rb, 3, MPI_INT, MPI_SUM, tc));
    for (int j = 0; j < 3 && rank > 0; j++) {
        int want = 0;
        for (int p = 0; p < rank; p++)
            want += item(p, 5, j);
        CHECK(rb[j] == want, "round %d: exscan[%d] = %d, want %d", round, j, rb[j], want);
    }

    /* MINLOC scan: values that tie across ranks; the lower rank wins. */
    struct {
        double v;
        int i;
    } lin = {(double)((rank + round) % 2), rank}, lout = {0, -1};
    CHECK_OK(MPI_Scan(&lin, &lout, 1, MPI_DOUBLE_INT, MPI_MINLOC, tc));
    {
        int best = 0;
        for (int p = 1; p <= rank; p++)
            if ((p + round) % 2 < (best + round) % 2)
                best = p;
        CHECK(lout.v == (best + round) % 2 && lout.i == best, "round %d: minloc scan (%g, %d)", round, lout.v,
              lout.i);
    }

    /* Reduce_scatter_block (two ints a rank) and Reduce_scatter (p % 3 + 1 ints to
     * rank p) of item(r, 6, i) summed over the ranks. */
    int all[4 * MAXR], total = 0;
    for (int p = 0; p < size; p++)
        counts[p] = p % 3 + 1, total += counts[p];
    for (int i = 0; i < (2 * size > total ? 2 * size : total); i++)
        all[i] = item(rank, 6, i);
    int lo = 0;
    for (int p = 0; p < rank; p++)
        lo += counts[p];
    fill(rb, 2, UNTOUCHED);
    if (ip) {
        int inout[4 * MAXR];
        memcpy(inout, all, sizeof(int) * 2 * size);
        CHECK_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, inout, 2, MPI_INT, MPI_SUM, tc));
        memcpy(rb, inout, 2 * sizeof(int));
    } else
        CHECK_OK(MPI_Reduce_scatter_block(all, rb, 2, MPI_INT, MPI_SUM, tc));
    for (int j = 0; j < 2; j++) {
        int want = 0;
        for (int p = 0; p < size; p++)
            want += item(p, 6, 2 * rank + j);
        CHECK(rb[j] == want, "round %d: reduce_scatter_block[%d] = %d, want %d", round, j, rb[j], want);
    }
    fill(rb, 4, UNTOUCHED);
    if (ip) {
        int inout[4 * MAXR];
        memcpy(inout, all, sizeof(int) * total);
        CHECK_OK(MPI_Reduce_scatter(MPI_IN_PLACE, inout, counts, MPI_INT, MPI_SUM, tc));
        memcpy(rb, inout, sizeof(int) * counts[rank]);
    } else
        CHECK_OK(MPI_Reduce_scatter(all, rb, counts, MPI_INT, MPI_SUM, tc));
    for (int j = 0; j < counts[rank]; j++) {
        int want = 0;
        for (int p = 0; p < size; p++)
            want += item(p, 6, lo + j);
        CHECK(rb[j] == want, "round %d: reduce_scatter[%d] = %d, want %d", round, j, rb[j], want);
    }
    CHECK(ip || rb[counts[rank]] == UNTOUCHED, "round %d: reduce_scatter wrote past its count", round);
}

/* Misuse that Go reports (the C paths step aside for it): an uncommitted datatype,
 * MPI_IN_PLACE as a receive buffer, a send buffer that is the receive buffer. Every
 * thread makes the same mistake, so every thread gets the error and none waits. */
static void misuse(void)
{
    int sb[2 * MAXR], rb[6 * MAXR];
    MPI_Datatype raw;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &raw)); /* never committed */
    CHECK_CLASS(MPI_Allgather(sb, 1, raw, rb, 2, MPI_INT, tc), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Bcast(rb, 1, raw, 0, tc), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Allgather(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, tc), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Alltoall(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, tc), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Scan(rb, rb, 1, MPI_INT, MPI_SUM, tc), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allreduce(rb, rb, 1, MPI_INT, MPI_SUM, tc), MPI_ERR_BUFFER);
    MPI_Type_free(&raw);
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 3, provided, wsize;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(nt * wsize <= MAXR, "at most %d ranks", MAXR);
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_OK(MPI_Type_commit(&pair));
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
    CHECK_OK(MPI_Type_commit(&strided));
    CHECK_OK(MPI_Type_create_resized(pair, 0, 3 * sizeof(int), &spaced));
    CHECK_OK(MPI_Type_commit(&spaced));
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, nt, &tc));
    for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel num_threads(nt)
        {
            CHECK_OK(MPIX_Threadcomm_start(tc));
            if (round == ROUNDS / 2) {
                CHECK_OK(MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN));
                misuse();
            }
            round_body(round);
            CHECK_OK(MPIX_Threadcomm_finish(tc));
        }
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    MPI_Type_free(&pair);
    MPI_Type_free(&strided);
    MPI_Type_free(&spaced);
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0)
        printf("tc_copycoll ok\n");
    CHECK_OK(MPI_Finalize());
    return 0;
}
