/* Every collective on a threadcomm, blocking and nonblocking, against a serial
 * reference computed from the deterministic inputs. Usage: tc_coll THREADS [uneven]. */
#include <omp.h>
#include "mpix_test.h"
#include <mpix.h>

#define C 5 /* elements per block */
#define G 4 /* guard words past every receive buffer's last element */
#define SENT ((int)0xA5A5A5A5) /* what no collective here leaves in a received word */

static int in(int rank, int i) { return rank * 1000 + i; }

/* fill writes the sentinel over len words and the G guard words after them, before a
 * collective receives into b; guard checks that the collective left the guard words. */
static void fill(int *b, int len)
{
    for (int i = 0; i < len + G; i++)
        b[i] = SENT;
}
static void guard(const int *b, int len, const char *what)
{
    for (int i = len; i < len + G; i++)
        CHECK(b[i] == SENT, "%s wrote past its %d elements: [%d]=%d", what, len, i, b[i]);
}

/* wait completes a nonblocking collective's request, or does nothing for blocking. */
static void wait(MPI_Request *r, int nb)
{
    if (nb)
        CHECK_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static void run(MPI_Comm tc, int rank, int n, int nb)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int *sb = malloc(sizeof(int) * (C * n + G)), *rb = malloc(sizeof(int) * (C * n + G));
    int *cnt = malloc(sizeof(int) * n), *dsp = malloc(sizeof(int) * n);
    int *rcnt = malloc(sizeof(int) * n), *rdsp = malloc(sizeof(int) * n);
    for (int root = 0; root < n; root += (n > 3 ? n / 3 : 1)) {
        /* Barrier */
        CHECK_OK(nb ? MPI_Ibarrier(tc, &r) : MPI_Barrier(tc));
        wait(&r, nb);
        /* Bcast */
        fill(sb, C);
        for (int i = 0; i < C; i++)
            sb[i] = rank == root ? in(root, i) : SENT;
        CHECK_OK(nb ? MPI_Ibcast(sb, C, MPI_INT, root, tc, &r) : MPI_Bcast(sb, C, MPI_INT, root, tc));
        wait(&r, nb);
        for (int i = 0; i < C; i++)
            CHECK(sb[i] == in(root, i), "bcast root %d [%d]=%d", root, i, sb[i]);
        guard(sb, C, "bcast");
        /* Reduce / Allreduce (sum) */
        fill(rb, C);
        for (int i = 0; i < C; i++)
            sb[i] = in(rank, i);
        CHECK_OK(nb ? MPI_Ireduce(sb, rb, C, MPI_INT, MPI_SUM, root, tc, &r) : MPI_Reduce(sb, rb, C, MPI_INT, MPI_SUM, root, tc));
        wait(&r, nb);
        if (rank == root)
            for (int i = 0; i < C; i++) {
                int want = 0;
                for (int p = 0; p < n; p++)
                    want += in(p, i);
                CHECK(rb[i] == want, "reduce [%d]=%d want %d", i, rb[i], want);
            }
        guard(rb, C, "reduce");
        fill(rb, C);
        CHECK_OK(nb ? MPI_Iallreduce(sb, rb, C, MPI_INT, MPI_MAX, tc, &r) : MPI_Allreduce(sb, rb, C, MPI_INT, MPI_MAX, tc));
        wait(&r, nb);
        for (int i = 0; i < C; i++)
            CHECK(rb[i] == in(n - 1, i), "allreduce max [%d]=%d", i, rb[i]);
        guard(rb, C, "allreduce");
        /* Gather / Scatter */
        fill(rb, C * n);
        CHECK_OK(nb ? MPI_Igather(sb, C, MPI_INT, rb, C, MPI_INT, root, tc, &r) : MPI_Gather(sb, C, MPI_INT, rb, C, MPI_INT, root, tc));
        wait(&r, nb);
        if (rank == root)
            for (int p = 0; p < n; p++)
                for (int i = 0; i < C; i++)
                    CHECK(rb[p * C + i] == in(p, i), "gather [%d][%d]=%d", p, i, rb[p * C + i]);
        guard(rb, C * n, "gather");
        for (int p = 0; p < n; p++)
            for (int i = 0; i < C; i++)
                sb[p * C + i] = in(p, i) + root;
        fill(rb, C);
        CHECK_OK(nb ? MPI_Iscatter(sb, C, MPI_INT, rb, C, MPI_INT, root, tc, &r) : MPI_Scatter(sb, C, MPI_INT, rb, C, MPI_INT, root, tc));
        wait(&r, nb);
        for (int i = 0; i < C; i++)
            CHECK(rb[i] == in(rank, i) + root, "scatter [%d]=%d", i, rb[i]);
        guard(rb, C, "scatter");
        /* Gatherv / Scatterv: rank p contributes p%C+1 elements */
        int tot = 0;
        for (int p = 0; p < n; p++)
            cnt[p] = p % C + 1, dsp[p] = tot, tot += cnt[p];
        int *big = malloc(sizeof(int) * (tot + G));
        fill(big, tot);
        for (int i = 0; i < cnt[rank]; i++)
            sb[i] = in(rank, i);
        CHECK_OK(nb ? MPI_Igatherv(sb, cnt[rank], MPI_INT, big, cnt, dsp, MPI_INT, root, tc, &r)
                    : MPI_Gatherv(sb, cnt[rank], MPI_INT, big, cnt, dsp, MPI_INT, root, tc));
        wait(&r, nb);
        if (rank == root)
            for (int p = 0; p < n; p++)
                for (int i = 0; i < cnt[p]; i++)
                    CHECK(big[dsp[p] + i] == in(p, i), "gatherv [%d][%d]=%d", p, i, big[dsp[p] + i]);
        guard(big, tot, "gatherv");
        fill(rb, cnt[rank]);
        CHECK_OK(nb ? MPI_Iscatterv(big, cnt, dsp, MPI_INT, rb, cnt[rank], MPI_INT, root, tc, &r)
                    : MPI_Scatterv(big, cnt, dsp, MPI_INT, rb, cnt[rank], MPI_INT, root, tc));
        wait(&r, nb);
        /* The root scatters what it gathered: everyone gets its own data back. */
        for (int i = 0; i < cnt[rank]; i++)
            CHECK(rb[i] == in(rank, i), "scatterv [%d]=%d", i, rb[i]);
        guard(rb, cnt[rank], "scatterv");
        free(big);
    }
    /* Allgather / Allgatherv */
    for (int i = 0; i < C; i++)
        sb[i] = in(rank, i);
    fill(rb, C * n);
    CHECK_OK(nb ? MPI_Iallgather(sb, C, MPI_INT, rb, C, MPI_INT, tc, &r) : MPI_Allgather(sb, C, MPI_INT, rb, C, MPI_INT, tc));
    wait(&r, nb);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < C; i++)
            CHECK(rb[p * C + i] == in(p, i), "allgather [%d][%d]=%d", p, i, rb[p * C + i]);
    guard(rb, C * n, "allgather");
    for (int p = 0; p < n; p++)
        cnt[p] = C, dsp[p] = p * C;
    fill(rb, C * n);
    CHECK_OK(nb ? MPI_Iallgatherv(sb, C, MPI_INT, rb, cnt, dsp, MPI_INT, tc, &r) : MPI_Allgatherv(sb, C, MPI_INT, rb, cnt, dsp, MPI_INT, tc));
    wait(&r, nb);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < C; i++)
            CHECK(rb[p * C + i] == in(p, i), "allgatherv [%d][%d]=%d", p, i, rb[p * C + i]);
    guard(rb, C * n, "allgatherv");
    /* Alltoall / Alltoallv / Alltoallw: block p of rank q carries q*n+p */
    for (int p = 0; p < n; p++)
        for (int i = 0; i < C; i++)
            sb[p * C + i] = (rank * n + p) * 10 + i;
    fill(rb, C * n);
    CHECK_OK(nb ? MPI_Ialltoall(sb, C, MPI_INT, rb, C, MPI_INT, tc, &r) : MPI_Alltoall(sb, C, MPI_INT, rb, C, MPI_INT, tc));
    wait(&r, nb);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < C; i++)
            CHECK(rb[p * C + i] == (p * n + rank) * 10 + i, "alltoall [%d][%d]=%d", p, i, rb[p * C + i]);
    guard(rb, C * n, "alltoall");
    fill(rb, C * n);
    CHECK_OK(nb ? MPI_Ialltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, tc, &r)
                : MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, tc));
    wait(&r, nb);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < C; i++)
            CHECK(rb[p * C + i] == (p * n + rank) * 10 + i, "alltoallv [%d][%d]=%d", p, i, rb[p * C + i]);
    guard(rb, C * n, "alltoallv");
    {
        MPI_Datatype *ts = malloc(sizeof(MPI_Datatype) * n);
        for (int p = 0; p < n; p++)
            ts[p] = MPI_INT, rdsp[p] = dsp[p] * (int)sizeof(int), rcnt[p] = C;
        fill(rb, C * n);
        CHECK_OK(nb ? MPI_Ialltoallw(sb, rcnt, rdsp, ts, rb, rcnt, rdsp, ts, tc, &r)
                    : MPI_Alltoallw(sb, rcnt, rdsp, ts, rb, rcnt, rdsp, ts, tc));
        wait(&r, nb);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < C; i++)
                CHECK(rb[p * C + i] == (p * n + rank) * 10 + i, "alltoallw [%d][%d]=%d", p, i, rb[p * C + i]);
        guard(rb, C * n, "alltoallw");
        free(ts);
    }
    /* Reduce_scatter_block / Reduce_scatter: block p of the sum goes to rank p */
    for (int p = 0; p < n; p++)
        for (int i = 0; i < C; i++)
            sb[p * C + i] = in(rank, p * C + i);
    fill(rb, C);
    CHECK_OK(nb ? MPI_Ireduce_scatter_block(sb, rb, C, MPI_INT, MPI_SUM, tc, &r) : MPI_Reduce_scatter_block(sb, rb, C, MPI_INT, MPI_SUM, tc));
    wait(&r, nb);
    for (int i = 0; i < C; i++) {
        int want = 0;
        for (int q = 0; q < n; q++)
            want += in(q, rank * C + i);
        CHECK(rb[i] == want, "reduce_scatter_block [%d]=%d want %d", i, rb[i], want);
    }
    guard(rb, C, "reduce_scatter_block");
    fill(rb, cnt[rank]);
    CHECK_OK(nb ? MPI_Ireduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, tc, &r) : MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, tc));
    wait(&r, nb);
    for (int i = 0; i < cnt[rank]; i++) {
        int want = 0;
        for (int q = 0; q < n; q++)
            want += in(q, dsp[rank] + i);
        CHECK(rb[i] == want, "reduce_scatter [%d]=%d want %d", i, rb[i], want);
    }
    guard(rb, cnt[rank], "reduce_scatter");
    /* Scan / Exscan */
    sb[0] = rank + 1;
    fill(rb, 1);
    CHECK_OK(nb ? MPI_Iscan(sb, rb, 1, MPI_INT, MPI_SUM, tc, &r) : MPI_Scan(sb, rb, 1, MPI_INT, MPI_SUM, tc));
    wait(&r, nb);
    CHECK(rb[0] == (rank + 1) * (rank + 2) / 2, "scan %d", rb[0]);
    guard(rb, 1, "scan");
    fill(rb, 1);
    CHECK_OK(nb ? MPI_Iexscan(sb, rb, 1, MPI_INT, MPI_SUM, tc, &r) : MPI_Exscan(sb, rb, 1, MPI_INT, MPI_SUM, tc));
    wait(&r, nb);
    if (rank > 0)
        CHECK(rb[0] == rank * (rank + 1) / 2, "exscan %d", rb[0]);
    guard(rb, 1, "exscan");
    /* In-place allreduce, and a noncommutative-order check with MPI_Reduce of ranks. */
    fill(rb, 1);
    rb[0] = rank;
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, tc));
    CHECK(rb[0] == n * (n - 1) / 2, "in-place allreduce %d", rb[0]);
    guard(rb, 1, "in-place allreduce");
    free(sb), free(rb), free(cnt), free(dsp), free(rcnt), free(rdsp);
}

int main(int argc, char **argv)
{
    int provided, wrank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int nt = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2)
        nt += wrank;
    MPI_Comm tc;
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, nt, &tc));
#pragma omp parallel num_threads(nt)
    {
        int rank, size;
        CHECK_OK(MPIX_Threadcomm_start(tc));
        MPI_Comm_rank(tc, &rank);
        MPI_Comm_size(tc, &size);
        run(tc, rank, size, 0);
        run(tc, rank, size, 1);
        CHECK_OK(MPIX_Threadcomm_finish(tc));
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    if (wrank == 0)
        printf("tc_coll ok\n");
    MPI_Finalize();
    return 0;
}
