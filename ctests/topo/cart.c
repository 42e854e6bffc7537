/* Cartesian topologies: MPI_Dims_create, MPI_Cart_create over all processes and over
 * fewer (the rest get MPI_COMM_NULL) and with no dimension, the queries (Cart_get,
 * Cartdim_get, Cart_coords, Cart_rank, Cart_shift, Cart_map), MPI_Cart_sub, and
 * MPI_Topo_test, each checked against coordinates computed here in row-major order. */
#include "mpix_test.h"

/* coords_of computes rank's coordinates in a row-major grid. */
static void coords_of(int rank, int ndims, const int *dims, int *coords)
{
    for (int i = ndims - 1; i >= 0; i--) {
        coords[i] = rank % dims[i];
        rank /= dims[i];
    }
}

/* rank_of is the inverse of coords_of; periodic coordinates wrap, others off the grid
 * give MPI_PROC_NULL. */
static int rank_of(int ndims, const int *dims, const int *periods, const int *coords)
{
    int r = 0;
    for (int i = 0; i < ndims; i++) {
        int c = coords[i];
        if (c < 0 || c >= dims[i]) {
            if (!periods[i])
                return MPI_PROC_NULL;
            c = ((c % dims[i]) + dims[i]) % dims[i];
        }
        r = r * dims[i] + c;
    }
    return r;
}

/* check_grid checks every query on a Cartesian communicator of the given shape. */
static void check_grid(MPI_Comm cart, int ndims, const int *dims, const int *periods)
{
    int rank, size, status, nd;
    MPI_Comm_rank(cart, &rank);
    MPI_Comm_size(cart, &size);
    int n = 1;
    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    CHECK(size == n, "grid communicator has %d processes, want %d", size, n);
    CHECK_OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "Topo_test = %d, want MPI_CART", status);
    CHECK_OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == ndims, "Cartdim_get = %d, want %d", nd, ndims);

    int gd[8], gp[8], gc[8], want[8];
    CHECK_OK(MPI_Cart_get(cart, 8, gd, gp, gc));
    coords_of(rank, ndims, dims, want);
    for (int i = 0; i < ndims; i++) {
        CHECK(gd[i] == dims[i], "Cart_get dims[%d] = %d, want %d", i, gd[i], dims[i]);
        CHECK(!gp[i] == !periods[i], "Cart_get periods[%d] = %d, want %d", i, gp[i], periods[i]);
        CHECK(gc[i] == want[i], "Cart_get coords[%d] = %d, want %d", i, gc[i], want[i]);
    }

    for (int r = 0; r < size; r++) {
        int c[8], back;
        CHECK_OK(MPI_Cart_coords(cart, r, ndims, c));
        coords_of(r, ndims, dims, want);
        for (int i = 0; i < ndims; i++)
            CHECK(c[i] == want[i], "Cart_coords(%d)[%d] = %d, want %d", r, i, c[i], want[i]);
        CHECK_OK(MPI_Cart_rank(cart, c, &back));
        CHECK(back == r, "Cart_rank(coords of %d) = %d", r, back);
    }

    /* periodic coordinates wrap in Cart_rank */
    coords_of(rank, ndims, dims, gc);
    for (int i = 0; i < ndims; i++) {
        if (!periods[i])
            continue;
        int c[8], got;
        memcpy(c, gc, sizeof(c));
        c[i] -= dims[i] + 1;
        CHECK_OK(MPI_Cart_rank(cart, c, &got));
        int w = rank_of(ndims, dims, periods, c);
        CHECK(got == w, "Cart_rank with wrapped coordinate in dim %d = %d, want %d", i, got, w);
    }

    /* shifts by -2..2 in every direction, against the coordinates */
    for (int d = 0; d < ndims; d++) {
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst, c[8];
            CHECK_OK(MPI_Cart_shift(cart, d, disp, &src, &dst));
            memcpy(c, gc, sizeof(c));
            c[d] = gc[d] + disp;
            int wd = rank_of(ndims, dims, periods, c);
            c[d] = gc[d] - disp;
            int ws = rank_of(ndims, dims, periods, c);
            CHECK(src == ws && dst == wd, "Cart_shift(%d, %d) = %d, %d; want %d, %d", d, disp, src, dst, ws, wd);
        }
        /* traffic along the shift: what arrives is the source's rank */
        int src, dst, got = -1;
        CHECK_OK(MPI_Cart_shift(cart, d, 1, &src, &dst));
        CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 7, &got, 1, MPI_INT, src, 7, cart, MPI_STATUS_IGNORE));
        CHECK(got == (src == MPI_PROC_NULL ? -1 : src), "shift traffic in dim %d got %d from %d", d, got, src);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size, status;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* MPI_Dims_create: balanced, non-increasing, keeping given entries */
    static const int want2[5][2] = {{0, 0}, {1, 1}, {2, 1}, {3, 1}, {2, 2}};
    int dims[3] = {0, 0, 0};
    CHECK_OK(MPI_Dims_create(size, 2, dims));
    CHECK(dims[0] == want2[size][0] && dims[1] == want2[size][1], "Dims_create(%d, 2) = %d x %d", size, dims[0], dims[1]);
    int d3[3] = {0, 1, 0};
    CHECK_OK(MPI_Dims_create(size * 6, 3, d3));
    CHECK(d3[1] == 1 && d3[0] * d3[2] == size * 6 && d3[0] >= d3[2], "Dims_create(%d, 3, {0,1,0}) = %d %d %d", size * 6, d3[0], d3[1], d3[2]);
    int d4[4] = {0, 0, 0, 0};
    CHECK_OK(MPI_Dims_create(24, 4, d4));
    CHECK(d4[0] == 3 && d4[1] == 2 && d4[2] == 2 && d4[3] == 2, "Dims_create(24, 4) = %d %d %d %d", d4[0], d4[1], d4[2], d4[3]);
    int fixed[2] = {size, 1};
    CHECK_OK(MPI_Dims_create(size, 2, fixed));
    CHECK(fixed[0] == size && fixed[1] == 1, "Dims_create changed given entries");

    CHECK_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK(status == MPI_UNDEFINED, "Topo_test(world) = %d, want MPI_UNDEFINED", status);

    /* a 2-D grid over every process: periodic in the first dimension or not */
    for (int per = 0; per < 2; per++) {
        int periods[2] = {per, 0};
        MPI_Comm cart;
        CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, per, &cart));
        CHECK(cart != MPI_COMM_NULL, "every process is in the grid");
        int crank;
        MPI_Comm_rank(cart, &crank);
        CHECK(crank == rank, "rank %d in the grid, want %d (no reordering)", crank, rank);
        check_grid(cart, 2, dims, periods);
        /* duplicates (blocking and nonblocking) keep the topology */
        MPI_Comm dup, idup;
        MPI_Request dreq;
        CHECK_OK(MPI_Comm_dup(cart, &dup));
        CHECK_OK(MPI_Comm_idup(cart, &idup, &dreq));
        CHECK_OK(MPI_Wait(&dreq, MPI_STATUS_IGNORE));
        check_grid(dup, 2, dims, periods);
        check_grid(idup, 2, dims, periods);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&idup);
        int mapped;
        CHECK_OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &mapped));
        CHECK(mapped == rank, "Cart_map = %d, want %d", mapped, rank);

        /* Cart_sub: rows, columns and a single process */
        int c[2];
        MPI_Cart_coords(cart, rank, 2, c);
        int keep[3][2] = {{0, 1}, {1, 0}, {0, 0}};
        for (int k = 0; k < 3; k++) {
            MPI_Comm sub;
            CHECK_OK(MPI_Cart_sub(cart, keep[k], &sub));
            CHECK(sub != MPI_COMM_NULL, "Cart_sub gave MPI_COMM_NULL");
            int sd[2], sp[2], nd = 0;
            for (int i = 0; i < 2; i++)
                if (keep[k][i]) {
                    sd[nd] = dims[i];
                    sp[nd] = periods[i];
                    nd++;
                }
            check_grid(sub, nd, sd, sp);
            int srank, want = 0;
            MPI_Comm_rank(sub, &srank);
            for (int i = 0; i < 2; i++)
                if (keep[k][i])
                    want = want * dims[i] + c[i];
            CHECK(srank == want, "rank %d in sub-grid %d, want %d", srank, k, want);
            MPI_Comm_free(&sub);
        }

        /* a communicator split from a grid has no topology */
        MPI_Comm plain;
        CHECK_OK(MPI_Comm_split(cart, 0, rank, &plain));
        CHECK_OK(MPI_Topo_test(plain, &status));
        CHECK(status == MPI_UNDEFINED, "Topo_test(split of a grid) = %d", status);
        MPI_Comm_free(&plain);
        CHECK_OK(MPI_Comm_free(&cart));
    }

    /* a grid of fewer processes: the last one gets MPI_COMM_NULL */
    int n = size > 1 ? size - 1 : 1;
    int dims3[3] = {1, n, 1}, periods3[3] = {1, 0, 1};
    MPI_Comm small;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, periods3, 0, &small));
    int mapped;
    CHECK_OK(MPI_Cart_map(MPI_COMM_WORLD, 3, dims3, periods3, &mapped));
    if (rank >= n) {
        CHECK(small == MPI_COMM_NULL, "rank %d outside a grid of %d got a communicator", rank, n);
        CHECK(mapped == MPI_UNDEFINED, "Cart_map outside the grid = %d", mapped);
    } else {
        CHECK(small != MPI_COMM_NULL, "rank %d inside a grid of %d got MPI_COMM_NULL", rank, n);
        CHECK(mapped == rank, "Cart_map = %d", mapped);
        check_grid(small, 3, dims3, periods3);
        MPI_Comm_free(&small);
    }

    /* zero dimensions: a grid of one process */
    MPI_Comm zero;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &zero));
    if (rank == 0) {
        CHECK(zero != MPI_COMM_NULL, "rank 0 did not get the zero-dimensional grid");
        check_grid(zero, 0, NULL, NULL);
        MPI_Comm_free(&zero);
    } else {
        CHECK(zero == MPI_COMM_NULL, "rank %d got a zero-dimensional grid", rank);
    }

    MPI_Finalize();
    return 0;
}
