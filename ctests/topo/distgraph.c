/* Distributed graph topologies: MPI_Dist_graph_create_adjacent weighted, unweighted
 * (MPI_UNWEIGHTED) and with no incoming edges (MPI_WEIGHTS_EMPTY), and
 * MPI_Dist_graph_create with all edges given by rank 0 and with each process giving
 * edges between other processes; MPI_Dist_graph_neighbors(_count) and MPI_Topo_test
 * checked against lists computed here by replaying the same edge lists. */
#include "mpix_test.h"

#define MAXE 64

static int rank, size;

/* check_neighbors compares the topology's lists with the expected ones (weights
 * NULL: the graph is unweighted). */
static void check_neighbors(MPI_Comm g, int nin, const int *in, const int *inw, int nout, const int *out, const int *outw)
{
    int status, gin, gout, weighted;
    CHECK_OK(MPI_Topo_test(g, &status));
    CHECK(status == MPI_DIST_GRAPH, "Topo_test = %d, want MPI_DIST_GRAPH", status);
    CHECK_OK(MPI_Dist_graph_neighbors_count(g, &gin, &gout, &weighted));
    CHECK(gin == nin && gout == nout, "rank %d: Dist_graph_neighbors_count = %d in, %d out; want %d, %d", rank, gin, gout, nin, nout);
    CHECK(!weighted == !inw, "weighted flag %d", weighted);
    int s[MAXE], sw[MAXE], d[MAXE], dw[MAXE];
    for (int i = 0; i < MAXE; i++)
        sw[i] = dw[i] = -5;
    CHECK_OK(MPI_Dist_graph_neighbors(g, MAXE, s, sw, MAXE, d, dw));
    for (int i = 0; i < nin; i++) {
        CHECK(s[i] == in[i], "rank %d: source %d is %d, want %d", rank, i, s[i], in[i]);
        CHECK(sw[i] == (inw ? inw[i] : -5), "rank %d: source weight %d is %d", rank, i, sw[i]);
    }
    for (int i = 0; i < nout; i++) {
        CHECK(d[i] == out[i], "rank %d: destination %d is %d, want %d", rank, i, d[i], out[i]);
        CHECK(dw[i] == (outw ? outw[i] : -5), "rank %d: destination weight %d is %d", rank, i, dw[i]);
    }
    /* MPI_UNWEIGHTED for the weights: only the ranks */
    CHECK_OK(MPI_Dist_graph_neighbors(g, MAXE, s, MPI_UNWEIGHTED, MAXE, d, MPI_UNWEIGHTED));
    /* traffic along every edge: each destination receives one message per edge */
    MPI_Request reqs[2 * MAXE];
    int got[MAXE];
    for (int i = 0; i < nin; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, in[i], 9, g, &reqs[i]);
    for (int i = 0; i < nout; i++)
        MPI_Isend(&rank, 1, MPI_INT, out[i], 9, g, &reqs[nin + i]);
    MPI_Status sts[2 * MAXE];
    CHECK_OK(MPI_Waitall(nin + nout, reqs, sts));
    for (int i = 0; i < nin; i++)
        CHECK(got[i] == in[i], "edge from %d delivered %d", in[i], got[i]);
}

/* An edge list as MPI_Dist_graph_create takes it from one process. */
struct contrib {
    int n, sources[MAXE], degrees[MAXE], dests[MAXE], weights[MAXE];
};

/* replay computes this process's incoming and outgoing edges from every process's
 * contribution, in the order the library promises: by contributing rank, then in
 * the order given. */
static void replay(struct contrib *all, int *nin, int *in, int *inw, int *nout, int *out, int *outw)
{
    *nin = *nout = 0;
    for (int p = 0; p < size; p++) {
        int k = 0;
        for (int i = 0; i < all[p].n; i++)
            for (int j = 0; j < all[p].degrees[i]; j++, k++) {
                int s = all[p].sources[i], d = all[p].dests[k], w = all[p].weights[k];
                if (s == rank) {
                    out[*nout] = d;
                    outw[(*nout)++] = w;
                }
                if (d == rank) {
                    in[*nin] = s;
                    inw[(*nin)++] = w;
                }
            }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 8, "test written for at most 8 processes");
    int prev = (rank - 1 + size) % size, next = (rank + 1) % size;

    /* adjacent, weighted: to next twice (a multigraph) and to self, so from prev
     * twice and from self */
    {
        int in[3] = {prev, rank, prev}, inw[3] = {1, 2, 3};
        int out[3] = {next, rank, next}, outw[3] = {10 * rank + next, 0, 7};
        MPI_Comm g;
        CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, inw, 3, out, outw, MPI_INFO_NULL, 0, &g));
        CHECK(g != MPI_COMM_NULL, "no communicator");
        check_neighbors(g, 3, in, inw, 3, out, outw);
        MPI_Comm_free(&g);
    }

    /* adjacent, unweighted */
    {
        int in[1] = {prev}, out[1] = {next};
        MPI_Comm g;
        CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, in, MPI_UNWEIGHTED, 1, out, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 1, &g));
        check_neighbors(g, 1, in, NULL, 1, out, NULL);
        MPI_Comm_free(&g);
    }

    /* adjacent, weighted, a star into rank 0: only rank 0 has incoming edges, the
     * others pass MPI_WEIGHTS_EMPTY for theirs */
    {
        int in[8], inw[8], out[1] = {0}, outw[1] = {rank + 1};
        int nin = 0;
        if (rank == 0)
            for (int p = 0; p < size; p++) {
                in[nin] = p;
                inw[nin++] = p + 1;
            }
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_assert_no_any_source", "true");
        MPI_Comm g;
        CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, nin ? inw : MPI_WEIGHTS_EMPTY, 1, out, outw,
                                                info, 0, &g));
        MPI_Info_free(&info);
        check_neighbors(g, nin, in, inw, 1, out, outw);
        MPI_Comm_free(&g);
    }

    struct contrib all[8];
    int nin, in[MAXE], inw[MAXE], nout, out[MAXE], outw[MAXE];

    /* non-adjacent: rank 0 gives every edge r -> r+1 and r -> r+2 */
    memset(all, 0, sizeof(all));
    for (int r = 0; r < size; r++) {
        struct contrib *c = &all[0];
        c->sources[c->n] = r;
        c->degrees[c->n++] = 2;
        for (int j = 1; j <= 2; j++) {
            int k = 2 * r + j - 1;
            c->dests[k] = (r + j) % size;
            c->weights[k] = 100 * r + (r + j) % size;
        }
    }
    for (int weighted = 0; weighted < 2; weighted++) {
        struct contrib *c = &all[rank];
        MPI_Comm g;
        CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, c->n, c->sources, c->degrees, c->dests,
                                       weighted ? (c->n ? c->weights : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, weighted, &g));
        replay(all, &nin, in, inw, &nout, out, outw);
        check_neighbors(g, nin, in, weighted ? inw : NULL, nout, out, weighted ? outw : NULL);
        MPI_Comm_free(&g);
    }

    /* non-adjacent, each process gives edges it is not an end of (when size > 2):
     * rank p gives next(p) -> next(next(p)) twice with different weights, and
     * next(p) -> p */
    memset(all, 0, sizeof(all));
    for (int p = 0; p < size; p++) {
        struct contrib *c = &all[p];
        int a = (p + 1) % size, b = (p + 2) % size;
        c->n = 1;
        c->sources[0] = a;
        c->degrees[0] = 3;
        c->dests[0] = b;
        c->dests[1] = p;
        c->dests[2] = b;
        c->weights[0] = 1000 + p;
        c->weights[1] = 2000 + p;
        c->weights[2] = 3000 + p;
    }
    {
        struct contrib *c = &all[rank];
        MPI_Comm g;
        CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, c->n, c->sources, c->degrees, c->dests, c->weights,
                                       MPI_INFO_NULL, 0, &g));
        replay(all, &nin, in, inw, &nout, out, outw);
        check_neighbors(g, nin, in, inw, nout, out, outw);
        MPI_Comm_free(&g);
    }

    MPI_Finalize();
    return 0;
}
