/* Graph topologies: MPI_Graph_create over every process (a ring with self-loops,
 * so with 1 or 2 processes a node lists a neighbour several times) and over fewer
 * (the rest get MPI_COMM_NULL) and over none, and every query (Graphdims_get,
 * Graph_get, Graph_neighbors(_count), Graph_map, Topo_test). */
#include "mpix_test.h"

#define MAXN 64

/* ring_graph fills index/edges for n nodes: node i's neighbours are i+1, i-1 and i. */
static int ring_graph(int n, int *index, int *edges)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        edges[k++] = (i + 1) % n;
        edges[k++] = (i - 1 + n) % n;
        edges[k++] = i;
        index[i] = k;
    }
    return k;
}

static void check_graph(MPI_Comm g, int n, const int *index, const int *edges)
{
    int status, nnodes, nedges, rank, size;
    MPI_Comm_rank(g, &rank);
    MPI_Comm_size(g, &size);
    CHECK(size == n, "graph communicator has %d processes, want %d", size, n);
    CHECK_OK(MPI_Topo_test(g, &status));
    CHECK(status == MPI_GRAPH, "Topo_test = %d, want MPI_GRAPH", status);
    CHECK_OK(MPI_Graphdims_get(g, &nnodes, &nedges));
    CHECK(nnodes == n && nedges == index[n - 1], "Graphdims_get = %d, %d", nnodes, nedges);

    int gi[MAXN], ge[3 * MAXN];
    CHECK_OK(MPI_Graph_get(g, MAXN, 3 * MAXN, gi, ge));
    for (int i = 0; i < n; i++)
        CHECK(gi[i] == index[i], "Graph_get index[%d] = %d, want %d", i, gi[i], index[i]);
    for (int i = 0; i < nedges; i++)
        CHECK(ge[i] == edges[i], "Graph_get edges[%d] = %d, want %d", i, ge[i], edges[i]);
    /* short arrays get what fits */
    int one = -1, first = -1;
    CHECK_OK(MPI_Graph_get(g, 1, 1, &one, &first));
    CHECK(one == index[0] && first == edges[0], "Graph_get with room for one = %d, %d", one, first);

    for (int r = 0; r < n; r++) {
        int cnt, nb[3 * MAXN];
        CHECK_OK(MPI_Graph_neighbors_count(g, r, &cnt));
        int lo = r ? index[r - 1] : 0;
        CHECK(cnt == index[r] - lo, "Graph_neighbors_count(%d) = %d", r, cnt);
        CHECK_OK(MPI_Graph_neighbors(g, r, 3 * MAXN, nb));
        for (int i = 0; i < cnt; i++)
            CHECK(nb[i] == edges[lo + i], "Graph_neighbors(%d)[%d] = %d, want %d", r, i, nb[i], edges[lo + i]);
        int two[3] = {-1, -1, -7};
        CHECK_OK(MPI_Graph_neighbors(g, r, 2, two));
        CHECK(two[0] == edges[lo] && two[1] == edges[lo + 1] && two[2] == -7, "Graph_neighbors with room for two");
    }

    /* traffic to the first neighbour, back from the second (a ring both ways) */
    int got = -1;
    CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, edges[index[rank] - 3], 3, &got, 1, MPI_INT,
                          edges[index[rank] - 2], 3, g, MPI_STATUS_IGNORE));
    CHECK(got == (rank - 1 + n) % n, "ring traffic got %d", got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size, mapped;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= MAXN, "test written for at most %d processes", MAXN);

    int index[MAXN], edges[3 * MAXN];
    for (int n = size; n >= 1 && n >= size - 1; n--) {
        ring_graph(n, index, edges);
        MPI_Comm g;
        CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &g));
        CHECK_OK(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &mapped));
        if (rank < n) {
            CHECK(g != MPI_COMM_NULL, "rank %d of a %d-node graph got MPI_COMM_NULL", rank, n);
            CHECK(mapped == rank, "Graph_map = %d", mapped);
            check_graph(g, n, index, edges);
            CHECK_OK(MPI_Comm_free(&g));
        } else {
            CHECK(g == MPI_COMM_NULL, "rank %d outside a %d-node graph got a communicator", rank, n);
            CHECK(mapped == MPI_UNDEFINED, "Graph_map outside the graph = %d", mapped);
        }
    }

    /* a graph of no nodes: everyone gets MPI_COMM_NULL */
    MPI_Comm none;
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, 0, index, edges, 0, &none));
    CHECK(none == MPI_COMM_NULL, "a graph of no nodes gave a communicator");

    MPI_Finalize();
    return 0;
}
