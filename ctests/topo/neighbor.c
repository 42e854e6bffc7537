/* Neighbourhood collectives: every MPI_Neighbor_* procedure in its blocking,
 * nonblocking and persistent (started twice) forms, with int and MPI_Count
 * arguments, over Cartesian grids (periodic dimensions of size 1 and 2, where one
 * process is both neighbours, and open edges, whose blocks must stay untouched),
 * a graph with self-loops and distributed graphs with repeated edges. Every block
 * carries (sender, sender's block, iteration), so a block that lands in the wrong
 * place is caught; for a Cartesian grid block s of the sender must land in block s^1
 * (MPI-4.1 §8.6), for a graph the k-th edge p->q in the k-th edge from p at q. */
#include "mpix_test.h"

#define MAXN 16 /* neighbours */
#define W 2     /* ints per block */

enum { BLOCKING, NONBLOCKING, PERSISTENT };

struct hood {
    const char *name;
    MPI_Comm comm;
    int rank, in, out;
    int src[MAXN], dst[MAXN];
    int sblk[MAXN]; /* receive block j holds the sender's block sblk[j] */
};

static int val(int sender, int blk, int it, int e) { return sender * 100000 + blk * 1000 + it * 10 + e; }

/* kth_of returns the index of the k-th (from 0) occurrence of x in v[0..n). */
static int kth_of(const int *v, int n, int x, int k)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x && k-- == 0)
            return i;
    return -1;
}

static int count_before(const int *v, int j, int x)
{
    int k = 0;
    for (int i = 0; i < j; i++)
        k += v[i] == x;
    return k;
}

static void cart_hood(struct hood *h)
{
    int nd;
    CHECK_OK(MPI_Cartdim_get(h->comm, &nd));
    h->in = h->out = 2 * nd;
    for (int d = 0; d < nd; d++) {
        int lo, hi;
        CHECK_OK(MPI_Cart_shift(h->comm, d, 1, &lo, &hi));
        h->src[2 * d] = h->dst[2 * d] = lo;
        h->src[2 * d + 1] = h->dst[2 * d + 1] = hi;
        h->sblk[2 * d] = 2 * d + 1;
        h->sblk[2 * d + 1] = 2 * d;
    }
}

static void graph_hood(struct hood *h)
{
    CHECK_OK(MPI_Graph_neighbors_count(h->comm, h->rank, &h->in));
    CHECK_OK(MPI_Graph_neighbors(h->comm, h->rank, MAXN, h->src));
    h->out = h->in;
    memcpy(h->dst, h->src, sizeof(h->src));
    for (int j = 0; j < h->in; j++) {
        int q = h->src[j], theirs[MAXN], n;
        CHECK_OK(MPI_Graph_neighbors_count(h->comm, q, &n));
        CHECK_OK(MPI_Graph_neighbors(h->comm, q, MAXN, theirs));
        h->sblk[j] = kth_of(theirs, n, h->rank, count_before(h->src, j, q));
        CHECK(h->sblk[j] >= 0, "graph is not symmetric");
    }
}

/* dist_hood learns every process's destinations with an allgather to know which of
 * its blocks the sender sends along each incoming edge. */
static void dist_hood(struct hood *h)
{
    int weighted, size;
    MPI_Comm_size(h->comm, &size);
    CHECK_OK(MPI_Dist_graph_neighbors_count(h->comm, &h->in, &h->out, &weighted));
    CHECK_OK(MPI_Dist_graph_neighbors(h->comm, MAXN, h->src, MPI_UNWEIGHTED, MAXN, h->dst, MPI_UNWEIGHTED));
    int mine[MAXN + 1], *all = malloc(sizeof(int) * (MAXN + 1) * size);
    mine[0] = h->out;
    memcpy(mine + 1, h->dst, sizeof(int) * MAXN);
    CHECK_OK(MPI_Allgather(mine, MAXN + 1, MPI_INT, all, MAXN + 1, MPI_INT, h->comm));
    for (int j = 0; j < h->in; j++) {
        int q = h->src[j];
        int *theirs = all + q * (MAXN + 1);
        h->sblk[j] = kth_of(theirs + 1, theirs[0], h->rank, count_before(h->src, j, q));
        CHECK(h->sblk[j] >= 0, "edge from %d not among its destinations", q);
    }
    free(all);
}

/* wait_or_start completes the call just made in the given mode (the persistent
 * request is started here). */
static void finish(int mode, MPI_Request *req)
{
    if (mode == PERSISTENT)
        CHECK_OK(MPI_Start(req));
    if (mode != BLOCKING)
        CHECK_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (mode == NONBLOCKING)
        CHECK(*req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
}

static void done(int mode, MPI_Request *req)
{
    if (mode == PERSISTENT) {
        CHECK(*req != MPI_REQUEST_NULL, "persistent request freed by MPI_Wait");
        CHECK_OK(MPI_Request_free(req));
    }
}

/* check_block checks n ints at p from sender's block blk (MPI_PROC_NULL: untouched),
 * then the rest up to m ints untouched. */
static void check_block(struct hood *h, const char *op, int j, const int *p, int n, int m, int sender, int blk, int it)
{
    for (int e = 0; e < m; e++) {
        int want = (sender == MPI_PROC_NULL || e >= n) ? -1 : val(sender, blk, it, e);
        CHECK(p[e] == want, "%s on %s: rank %d block %d element %d = %d, want %d (from %d)", op, h->name, h->rank, j,
              e, p[e], want, sender);
    }
}

static void t_allgather(struct hood *h, int mode, int large)
{
    int sbuf[W], rbuf[MAXN * W];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int it = 0; it < 2; it++) {
        for (int e = 0; e < W; e++)
            sbuf[e] = val(h->rank, 0, it, e);
        for (int i = 0; i < MAXN * W; i++)
            rbuf[i] = -1;
        if (mode == BLOCKING && large)
            CHECK_OK(MPI_Neighbor_allgather_c(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm));
        else if (mode == BLOCKING)
            CHECK_OK(MPI_Neighbor_allgather(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm));
        else if (mode == NONBLOCKING && large)
            CHECK_OK(MPI_Ineighbor_allgather_c(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, &req));
        else if (mode == NONBLOCKING)
            CHECK_OK(MPI_Ineighbor_allgather(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, &req));
        else if (it == 0 && large)
            CHECK_OK(MPI_Neighbor_allgather_init_c(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, MPI_INFO_NULL, &req));
        else if (it == 0)
            CHECK_OK(MPI_Neighbor_allgather_init(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, MPI_INFO_NULL, &req));
        finish(mode, &req);
        for (int j = 0; j < h->in; j++)
            check_block(h, "allgather", j, rbuf + j * W, W, W, h->src[j], 0, it);
        check_block(h, "allgather", h->in, rbuf + h->in * W, 0, (MAXN - h->in) * W, 0, 0, it);
    }
    done(mode, &req);
}

/* allgatherv: blocks in reverse order with a gap of one int after each */
static void t_allgatherv(struct hood *h, int mode, int large)
{
    int sbuf[W], rbuf[MAXN * (W + 1)], counts[MAXN], displs[MAXN];
    MPI_Count ccounts[MAXN];
    MPI_Aint cdispls[MAXN];
    for (int j = 0; j < h->in; j++) {
        ccounts[j] = counts[j] = W;
        cdispls[j] = displs[j] = (h->in - 1 - j) * (W + 1);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    for (int it = 0; it < 2; it++) {
        for (int e = 0; e < W; e++)
            sbuf[e] = val(h->rank, 0, it, e);
        for (int i = 0; i < MAXN * (W + 1); i++)
            rbuf[i] = -1;
        if (mode == BLOCKING && large)
            CHECK_OK(MPI_Neighbor_allgatherv_c(sbuf, W, MPI_INT, rbuf, ccounts, cdispls, MPI_INT, h->comm));
        else if (mode == BLOCKING)
            CHECK_OK(MPI_Neighbor_allgatherv(sbuf, W, MPI_INT, rbuf, counts, displs, MPI_INT, h->comm));
        else if (mode == NONBLOCKING && large)
            CHECK_OK(MPI_Ineighbor_allgatherv_c(sbuf, W, MPI_INT, rbuf, ccounts, cdispls, MPI_INT, h->comm, &req));
        else if (mode == NONBLOCKING)
            CHECK_OK(MPI_Ineighbor_allgatherv(sbuf, W, MPI_INT, rbuf, counts, displs, MPI_INT, h->comm, &req));
        else if (it == 0 && large)
            CHECK_OK(MPI_Neighbor_allgatherv_init_c(sbuf, W, MPI_INT, rbuf, ccounts, cdispls, MPI_INT, h->comm,
                                                   MPI_INFO_NULL, &req));
        else if (it == 0)
            CHECK_OK(MPI_Neighbor_allgatherv_init(sbuf, W, MPI_INT, rbuf, counts, displs, MPI_INT, h->comm,
                                                 MPI_INFO_NULL, &req));
        finish(mode, &req);
        for (int j = 0; j < h->in; j++)
            check_block(h, "allgatherv", j, rbuf + displs[j], W, W + 1, h->src[j], 0, it);
    }
    done(mode, &req);
}

static void t_alltoall(struct hood *h, int mode, int large)
{
    int sbuf[MAXN * W], rbuf[MAXN * W];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int it = 0; it < 2; it++) {
        for (int b = 0; b < h->out; b++)
            for (int e = 0; e < W; e++)
                sbuf[b * W + e] = val(h->rank, b, it, e);
        for (int i = 0; i < MAXN * W; i++)
            rbuf[i] = -1;
        if (mode == BLOCKING && large)
            CHECK_OK(MPI_Neighbor_alltoall_c(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm));
        else if (mode == BLOCKING)
            CHECK_OK(MPI_Neighbor_alltoall(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm));
        else if (mode == NONBLOCKING && large)
            CHECK_OK(MPI_Ineighbor_alltoall_c(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, &req));
        else if (mode == NONBLOCKING)
            CHECK_OK(MPI_Ineighbor_alltoall(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, &req));
        else if (it == 0 && large)
            CHECK_OK(MPI_Neighbor_alltoall_init_c(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, MPI_INFO_NULL, &req));
        else if (it == 0)
            CHECK_OK(MPI_Neighbor_alltoall_init(sbuf, W, MPI_INT, rbuf, W, MPI_INT, h->comm, MPI_INFO_NULL, &req));
        finish(mode, &req);
        for (int j = 0; j < h->in; j++)
            check_block(h, "alltoall", j, rbuf + j * W, W, W, h->src[j], h->sblk[j], it);
    }
    done(mode, &req);
}

/* alltoallv: block b carries 1 + b%2 ints; send blocks in reverse order, receive
 * blocks with a gap */
static int vcount(int b) { return 1 + b % 2; }

static void t_alltoallv(struct hood *h, int mode, int large)
{
    int sbuf[MAXN * W], rbuf[MAXN * (W + 1)];
    int sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN];
    MPI_Count csc[MAXN], crc[MAXN];
    MPI_Aint csd[MAXN], crd[MAXN];
    for (int b = 0; b < h->out; b++) {
        csc[b] = sc[b] = vcount(b);
        csd[b] = sd[b] = (h->out - 1 - b) * W;
    }
    for (int j = 0; j < h->in; j++) {
        crc[j] = rc[j] = vcount(h->sblk[j]);
        crd[j] = rd[j] = j * (W + 1);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    for (int it = 0; it < 2; it++) {
        for (int b = 0; b < h->out; b++)
            for (int e = 0; e < W; e++)
                sbuf[sd[b] + e] = val(h->rank, b, it, e);
        for (int i = 0; i < MAXN * (W + 1); i++)
            rbuf[i] = -1;
        if (mode == BLOCKING && large)
            CHECK_OK(MPI_Neighbor_alltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT, h->comm));
        else if (mode == BLOCKING)
            CHECK_OK(MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, h->comm));
        else if (mode == NONBLOCKING && large)
            CHECK_OK(MPI_Ineighbor_alltoallv_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT, h->comm, &req));
        else if (mode == NONBLOCKING)
            CHECK_OK(MPI_Ineighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, h->comm, &req));
        else if (it == 0 && large)
            CHECK_OK(MPI_Neighbor_alltoallv_init_c(sbuf, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT, h->comm,
                                                  MPI_INFO_NULL, &req));
        else if (it == 0)
            CHECK_OK(MPI_Neighbor_alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, h->comm, MPI_INFO_NULL,
                                                &req));
        finish(mode, &req);
        for (int j = 0; j < h->in; j++)
            check_block(h, "alltoallv", j, rbuf + rd[j], rc[j], W + 1, h->src[j], h->sblk[j], it);
    }
    done(mode, &req);
}

/* alltoallw: sends W MPI_INTs per block, receives one contiguous type of W ints,
 * with byte displacements (receive blocks in reverse order) */
static void t_alltoallw(struct hood *h, int mode, int large)
{
    int sbuf[MAXN * W], rbuf[MAXN * W];
    int sc[MAXN], rc[MAXN];
    MPI_Count csc[MAXN], crc[MAXN];
    MPI_Aint sd[MAXN], rd[MAXN];
    MPI_Datatype st[MAXN], rt[MAXN], pair;
    MPI_Type_contiguous(W, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int b = 0; b < h->out; b++) {
        csc[b] = sc[b] = W;
        sd[b] = b * W * sizeof(int);
        st[b] = MPI_INT;
    }
    for (int j = 0; j < h->in; j++) {
        crc[j] = rc[j] = 1;
        rd[j] = (h->in - 1 - j) * W * sizeof(int);
        rt[j] = pair;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    for (int it = 0; it < 2; it++) {
        for (int b = 0; b < h->out; b++)
            for (int e = 0; e < W; e++)
                sbuf[b * W + e] = val(h->rank, b, it, e);
        for (int i = 0; i < MAXN * W; i++)
            rbuf[i] = -1;
        if (mode == BLOCKING && large)
            CHECK_OK(MPI_Neighbor_alltoallw_c(sbuf, csc, sd, st, rbuf, crc, rd, rt, h->comm));
        else if (mode == BLOCKING)
            CHECK_OK(MPI_Neighbor_alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, h->comm));
        else if (mode == NONBLOCKING && large)
            CHECK_OK(MPI_Ineighbor_alltoallw_c(sbuf, csc, sd, st, rbuf, crc, rd, rt, h->comm, &req));
        else if (mode == NONBLOCKING)
            CHECK_OK(MPI_Ineighbor_alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, h->comm, &req));
        else if (it == 0 && large)
            CHECK_OK(MPI_Neighbor_alltoallw_init_c(sbuf, csc, sd, st, rbuf, crc, rd, rt, h->comm, MPI_INFO_NULL, &req));
        else if (it == 0)
            CHECK_OK(MPI_Neighbor_alltoallw_init(sbuf, sc, sd, st, rbuf, rc, rd, rt, h->comm, MPI_INFO_NULL, &req));
        finish(mode, &req);
        for (int j = 0; j < h->in; j++)
            check_block(h, "alltoallw", j, rbuf + rd[j] / sizeof(int), W, W, h->src[j], h->sblk[j], it);
    }
    done(mode, &req);
    MPI_Type_free(&pair);
}

static void run_all(struct hood *h)
{
    MPI_Comm_rank(h->comm, &h->rank);
    int status;
    CHECK_OK(MPI_Topo_test(h->comm, &status));
    if (status == MPI_CART)
        cart_hood(h);
    else if (status == MPI_GRAPH)
        graph_hood(h);
    else
        dist_hood(h);
    CHECK(h->in <= MAXN && h->out <= MAXN, "too many neighbours");
    for (int mode = BLOCKING; mode <= PERSISTENT; mode++)
        for (int large = 0; large < 2; large++) {
            t_allgather(h, mode, large);
            t_allgatherv(h, mode, large);
            t_alltoall(h, mode, large);
            t_alltoallv(h, mode, large);
            t_alltoallw(h, mode, large);
        }
    CHECK_OK(MPI_Comm_free(&h->comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int prev = (rank - 1 + size) % size, next = (rank + 1) % size;
    struct hood h;

    /* Cartesian: a ring; a 2-D grid with open edges; periodic dimensions of size 1;
     * an open dimension of size 1 beside a periodic one */
    struct {
        const char *name;
        int nd, dims[3], periods[3];
    } grids[] = {
        {"ring", 1, {size}, {1}},
        {"open grid", 2, {0, 0}, {0, 0}},
        {"1x1xN torus", 3, {1, 1, size}, {1, 1, 1}},
        {"Nx1 mixed", 2, {size, 1}, {1, 0}},
    };
    MPI_Dims_create(size, 2, grids[1].dims);
    for (unsigned g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) {
        memset(&h, 0, sizeof(h));
        h.name = grids[g].name;
        CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, grids[g].nd, grids[g].dims, grids[g].periods, 0, &h.comm));
        run_all(&h);
    }

    /* graph: a ring with a self-loop at every node */
    {
        int index[64], edges[192], k = 0;
        for (int i = 0; i < size; i++) {
            edges[k++] = (i + 1) % size;
            edges[k++] = (i - 1 + size) % size;
            edges[k++] = i;
            index[i] = k;
        }
        memset(&h, 0, sizeof(h));
        h.name = "graph ring";
        CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &h.comm));
        run_all(&h);
    }

    /* distributed graph, adjacent: to next twice and to self, from prev twice and self */
    {
        int in[3] = {prev, rank, prev}, out[3] = {next, rank, next};
        memset(&h, 0, sizeof(h));
        h.name = "adjacent multigraph";
        CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, MPI_UNWEIGHTED, 3, out, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 0, &h.comm));
        run_all(&h);
    }

    /* distributed graph, adjacent: a star into rank 0 (the others receive nothing) */
    {
        int in[64], out[1] = {0}, nin = 0;
        if (rank == 0)
            for (int p = 0; p < size; p++)
                in[nin++] = p;
        memset(&h, 0, sizeof(h));
        h.name = "star";
        CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, 1, out, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 0, &h.comm));
        run_all(&h);
    }

    /* distributed graph from edges given by other processes: rank p gives
     * p+1 -> p+2, p+1 -> p, p+1 -> p+2 */
    {
        int src[1] = {next}, deg[1] = {3}, dst[3] = {(rank + 2) % size, rank, (rank + 2) % size};
        memset(&h, 0, sizeof(h));
        h.name = "non-adjacent multigraph";
        CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &h.comm));
        run_all(&h);
    }

    MPI_Finalize();
    return 0;
}
