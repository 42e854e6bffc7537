/* Topology errors under MPI_ERRORS_RETURN: bad dimensions and grids, bad
 * coordinates, ranks and directions, malformed graphs and edge lists, topology
 * queries and neighbourhood collectives on a communicator without (the right)
 * topology, and MPI_IN_PLACE in a neighbourhood collective. Every call must fail
 * with the documented class, leave the program running, and not hang the others
 * (all processes make the same bad calls). */
#include "mpix_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size, x, y, z;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm w = MPI_COMM_WORLD, c = MPI_COMM_WORLD;

    /* MPI_Dims_create */
    int d2[2] = {0, 3};
    CHECK_CLASS(MPI_Dims_create(7, 2, d2), MPI_ERR_DIMS);
    int dneg[2] = {-1, 0};
    CHECK_CLASS(MPI_Dims_create(4, 2, dneg), MPI_ERR_DIMS);
    CHECK_CLASS(MPI_Dims_create(4, -1, d2), MPI_ERR_DIMS);
    int dfull[2] = {2, 2};
    CHECK_CLASS(MPI_Dims_create(6, 2, dfull), MPI_ERR_DIMS);
    CHECK_CLASS(MPI_Dims_create(0, 2, dfull), MPI_ERR_ARG);

    /* MPI_Cart_create and MPI_Cart_map: bad dims, too big a grid; the new
     * communicator is MPI_COMM_NULL after a failure */
    int zero[1] = {0}, big[2] = {size, 2}, per[2] = {0, 0};
    CHECK_CLASS(MPI_Cart_create(w, 1, zero, per, 0, &c), MPI_ERR_DIMS);
    CHECK(c == MPI_COMM_NULL, "failed Cart_create left a communicator");
    CHECK_CLASS(MPI_Cart_create(w, -1, zero, per, 0, &c), MPI_ERR_DIMS);
    CHECK_CLASS(MPI_Cart_create(w, 2, big, per, 0, &c), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_map(w, 2, big, per, &x), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_map(w, 1, zero, per, &x), MPI_ERR_DIMS);

    /* queries on a communicator without a topology */
    int buf[8] = {0}, rbuf[8];
    CHECK_CLASS(MPI_Cartdim_get(w, &x), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_get(w, 8, buf, buf, buf), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_coords(w, 0, 8, buf), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_rank(w, buf, &x), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_shift(w, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Cart_sub(w, buf, &c), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Graphdims_get(w, &x, &y), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Graph_get(w, 8, 8, buf, buf), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Graph_neighbors_count(w, 0, &x), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Graph_neighbors(w, 0, 8, buf), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Dist_graph_neighbors_count(w, &x, &y, &z), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Dist_graph_neighbors(w, 8, buf, MPI_UNWEIGHTED, 8, buf, MPI_UNWEIGHTED), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Neighbor_allgather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, w), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Neighbor_alltoall(buf, 1, MPI_INT, rbuf, 1, MPI_INT, w), MPI_ERR_TOPOLOGY);
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_CLASS(MPI_Ineighbor_alltoallv(buf, buf, buf, MPI_INT, rbuf, buf, buf, MPI_INT, w, &req), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Neighbor_allgatherv_init(buf, 1, MPI_INT, rbuf, buf, buf, MPI_INT, w, MPI_INFO_NULL, &req),
                MPI_ERR_TOPOLOGY);
    CHECK(req == MPI_REQUEST_NULL, "failed call returned a request");

    /* a 1-D open grid of every process */
    int dims[1] = {size}, open[1] = {0};
    MPI_Comm cart;
    CHECK_OK(MPI_Cart_create(w, 1, dims, open, 0, &cart));
    CHECK_CLASS(MPI_Cart_coords(cart, size, 1, buf), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Cart_coords(cart, -1, 1, buf), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Cart_coords(cart, 0, 0, buf), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Cart_get(cart, 0, buf, buf, buf), MPI_ERR_ARG);
    int off[1] = {size};
    CHECK_CLASS(MPI_Cart_rank(cart, off, &x), MPI_ERR_ARG);
    off[0] = -1;
    CHECK_CLASS(MPI_Cart_rank(cart, off, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Cart_shift(cart, 1, 1, &x, &y), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Cart_shift(cart, -1, 1, &x, &y), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graphdims_get(cart, &x, &y), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Dist_graph_neighbors_count(cart, &x, &y, &z), MPI_ERR_TOPOLOGY);
    /* the grid's error handler is the parent's, so these returned too */
    CHECK_CLASS(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, rbuf, 1, MPI_INT, cart), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Neighbor_allgather(buf, -1, MPI_INT, rbuf, 1, MPI_INT, cart), MPI_ERR_COUNT);
    MPI_Comm_free(&cart);

    /* malformed graphs */
    int index[2] = {1, 2}, edges[2] = {1, 2};
    int n2 = size >= 2 ? 2 : 1;
    int index1[1] = {1}, edges1[1] = {1};
    if (n2 == 2)
        CHECK_CLASS(MPI_Graph_create(w, 2, index, edges, 0, &c), MPI_ERR_RANK); /* node 2 of 2 */
    else
        CHECK_CLASS(MPI_Graph_create(w, 1, index1, edges1, 0, &c), MPI_ERR_RANK); /* node 1 of 1 */
    CHECK(c == MPI_COMM_NULL, "failed Graph_create left a communicator");
    int dec[2] = {2, 1}, e2[2] = {0, 0};
    if (n2 == 2)
        CHECK_CLASS(MPI_Graph_create(w, 2, dec, e2, 0, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Graph_create(w, -1, index, edges, 0, &c), MPI_ERR_ARG);
    int many[65], none[1] = {0};
    for (int i = 0; i <= size; i++)
        many[i] = 0;
    CHECK_CLASS(MPI_Graph_create(w, size + 1, many, none, 0, &c), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Graph_map(w, size + 1, many, none, &x), MPI_ERR_TOPOLOGY);

    /* a graph of one self-loop per node: bad ranks in queries */
    for (int i = 0; i < size; i++) {
        many[i] = i + 1;
        buf[i] = i;
    }
    MPI_Comm g;
    CHECK_OK(MPI_Graph_create(w, size, many, buf, 0, &g));
    CHECK_CLASS(MPI_Graph_neighbors_count(g, size, &x), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Graph_neighbors(g, -1, 8, rbuf), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Cart_shift(g, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&g);

    /* distributed graphs: bad ranks, negative degrees and weights, mixed weighting */
    int bad[1] = {size}, me[1] = {rank}, one[1] = {1}, neg[1] = {-1}, wt[1] = {1};
    CHECK_CLASS(MPI_Dist_graph_create_adjacent(w, 1, bad, MPI_UNWEIGHTED, 1, me, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                MPI_ERR_RANK);
    CHECK(c == MPI_COMM_NULL, "failed Dist_graph_create_adjacent left a communicator");
    CHECK_CLASS(MPI_Dist_graph_create_adjacent(w, 1, me, neg, 1, me, wt, MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Dist_graph_create_adjacent(w, 1, me, MPI_UNWEIGHTED, 1, me, wt, MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Dist_graph_create_adjacent(w, 1, me, MPI_WEIGHTS_EMPTY, 1, me, wt, MPI_INFO_NULL, 0, &c),
                MPI_ERR_ARG);
    CHECK_CLASS(MPI_Dist_graph_create_adjacent(w, -1, me, wt, 1, me, wt, MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Dist_graph_create(w, 1, me, neg, me, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Dist_graph_create(w, 1, me, one, bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Dist_graph_create(w, 1, bad, one, me, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Dist_graph_create(w, 1, me, one, me, neg, MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
    CHECK(c == MPI_COMM_NULL, "failed Dist_graph_create left a communicator");

    /* the library still works: a good distributed graph after the bad ones */
    MPI_Comm dg;
    CHECK_OK(MPI_Dist_graph_create(w, 1, me, one, me, wt, MPI_INFO_NULL, 0, &dg));
    CHECK_OK(MPI_Dist_graph_neighbors_count(dg, &x, &y, &z));
    CHECK(x == 1 && y == 1 && z == 1, "self-loop graph: %d in, %d out, weighted %d", x, y, z);
    int got = -1;
    CHECK_OK(MPI_Neighbor_allgather(&rank, 1, MPI_INT, &got, 1, MPI_INT, dg));
    CHECK(got == rank, "self-loop allgather got %d", got);
    MPI_Comm_free(&dg);

    MPI_Finalize();
    return 0;
}
