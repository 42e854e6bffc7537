/* badinput: bad addresses come back as MPICH's error classes under MPI_ERRORS_RETURN,
 * on the C fast paths and in Go, never as a crash or a hang (issue 29 item 5).
 * - a NULL buffer with a positive count of a predefined datatype: MPI_ERR_BUFFER
 *   (point-to-point, at once, with no partner; collectives, intra- and
 *   intercommunicator, where the buffer counts; neighbourhood collectives, per
 *   neighbour's block, NULL valid without neighbours);
 *   NULL with count 0, MPI_BOTTOM with an absolute datatype and a NULL receive
 *   buffer at a gather's non-root are valid;
 * - v/w collectives with MPI_BOTTOM and absolute displacements (MPI_Get_address)
 *   are valid: MPICH checks NULL only for entries at displacement 0;
 * - a NULL status, NULL completion arrays with a positive count: MPI_ERR_ARG;
 * - MPI_Error_string/class of a code MPI never returned: MPI_ERR_ARG;
 * - MPI_Free_mem of an address MPI_Alloc_mem did not return: MPI_ERR_BASE.
 * Run with 2 processes (over shm, with MPIX_SHM=0 and with MPIX_FASTPATH=0). */
#include "mpix_test.h"
#include <stdint.h>
#include <sys/mman.h>

/* The address of p in units of unit (MPI_BOTTOM-relative displacement). */
static MPI_Aint absolute(void *p, MPI_Aint unit)
{
    MPI_Aint a;
    CHECK_OK(MPI_Get_address(p, &a));
    return a / unit;
}

/* v/w collectives with MPI_BOTTOM and absolute displacements move the data (ints
 * are 4-byte aligned, so an address in ints is exact). at: two ints per side, at
 * any address (the _c forms take MPI_Aint displacements). */
static void bottom_vw(int rank, int *at, int int_forms)
{
    int *sb = at, *rb = at + 2;
    MPI_Count one[2] = {1, 1};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    MPI_Aint sd[2], rd[2];

    /* Alltoallw: byte displacements. */
    for (int i = 0; i < 2; i++) {
        sb[i] = 10 * rank + i, rb[i] = -1;
        sd[i] = absolute(&sb[i], 1), rd[i] = absolute(&rb[i], 1);
    }
    CHECK_OK(MPI_Alltoallw_c(MPI_BOTTOM, one, sd, ints, MPI_BOTTOM, one, rd, ints, MPI_COMM_WORLD));
    CHECK(rb[0] == rank && rb[1] == 10 + rank, "alltoallw at MPI_BOTTOM got %d %d", rb[0], rb[1]);

    /* Alltoallv: displacements in elements. */
    for (int i = 0; i < 2; i++) {
        sb[i] = 20 * rank + i, rb[i] = -1;
        sd[i] = absolute(&sb[i], sizeof(int)), rd[i] = absolute(&rb[i], sizeof(int));
    }
    CHECK_OK(MPI_Alltoallv_c(MPI_BOTTOM, one, sd, MPI_INT, MPI_BOTTOM, one, rd, MPI_INT, MPI_COMM_WORLD));
    CHECK(rb[0] == rank && rb[1] == 20 + rank, "alltoallv at MPI_BOTTOM got %d %d", rb[0], rb[1]);

    /* Gatherv to rank 0, Scatterv from rank 0, Allgatherv. */
    int mine = 30 + rank;
    rb[0] = rb[1] = -1;
    rd[0] = absolute(&rb[0], sizeof(int)), rd[1] = absolute(&rb[1], sizeof(int));
    CHECK_OK(MPI_Gatherv_c(&mine, 1, MPI_INT, MPI_BOTTOM, one, rd, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(rb[0] == 30 && rb[1] == 31, "gatherv at MPI_BOTTOM got %d %d", rb[0], rb[1]);
    sb[0] = 40, sb[1] = 41, mine = -1;
    sd[0] = absolute(&sb[0], sizeof(int)), sd[1] = absolute(&sb[1], sizeof(int));
    CHECK_OK(MPI_Scatterv_c(MPI_BOTTOM, one, sd, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(mine == 40 + rank, "scatterv from MPI_BOTTOM got %d", mine);
    mine = 50 + rank, rb[0] = rb[1] = -1;
    CHECK_OK(MPI_Allgatherv_c(&mine, 1, MPI_INT, MPI_BOTTOM, one, rd, MPI_INT, MPI_COMM_WORLD));
    CHECK(rb[0] == 50 && rb[1] == 51, "allgatherv at MPI_BOTTOM got %d %d", rb[0], rb[1]);

    /* The int forms, where the buffers' addresses fit an int at every rank. */
    if (int_forms) {
        int c[2] = {1, 1}, isd[2], ird[2];
        for (int i = 0; i < 2; i++) {
            sb[i] = 60 * rank + i, rb[i] = -1;
            isd[i] = (int)absolute(&sb[i], 1), ird[i] = (int)absolute(&rb[i], 1);
        }
        CHECK_OK(MPI_Alltoallw(MPI_BOTTOM, c, isd, ints, MPI_BOTTOM, c, ird, ints, MPI_COMM_WORLD));
        CHECK(rb[0] == rank && rb[1] == 60 + rank, "int alltoallw at MPI_BOTTOM got %d %d", rb[0], rb[1]);
        mine = 70 + rank, rb[0] = rb[1] = -1;
        for (int i = 0; i < 2; i++)
            ird[i] = (int)absolute(&rb[i], sizeof(int));
        CHECK_OK(MPI_Gatherv(&mine, 1, MPI_INT, MPI_BOTTOM, c, ird, MPI_INT, 0, MPI_COMM_WORLD));
        if (rank == 0)
            CHECK(rb[0] == 70 && rb[1] == 71, "int gatherv at MPI_BOTTOM got %d %d", rb[0], rb[1]);
    }
}

int main(int argc, char **argv)
{
    int rank, size, x = 7, y = 0, flag, idx, outcount, indices[2], count;
    MPI_Request req = MPI_REQUEST_NULL, reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st;
    char s[MPI_MAX_ERROR_STRING];

    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 processes, not %d", size);
    int peer = 1 - rank;

    /* Point-to-point: a NULL buffer with a positive count fails at once (a receive
     * with no sender must not wait), on every form. */
    CHECK_CLASS(MPI_Send(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Isend(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Ssend(NULL, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Send_c(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Recv(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Recv(NULL, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Irecv(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Send_init(NULL, 3, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Sendrecv(NULL, 1, MPI_INT, peer, 0, &y, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &st),
                MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Sendrecv(&x, 1, MPI_INT, peer, 0, NULL, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &st),
                MPI_ERR_BUFFER);
    CHECK(req == MPI_REQUEST_NULL, "a failed call set the request to 0x%x", req);

    /* Valid NULLs: count 0, and MPI_BOTTOM with a datatype of absolute addresses. */
    CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 1, NULL, 0, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
    MPI_Aint addr;
    MPI_Datatype abs_t;
    int one = 1;
    MPI_Get_address(rank == 0 ? &x : &y, &addr);
    CHECK_OK(MPI_Type_create_struct(1, &one, &addr, (MPI_Datatype[]){MPI_INT}, &abs_t));
    CHECK_OK(MPI_Type_commit(&abs_t));
    if (rank == 0)
        CHECK_OK(MPI_Send(MPI_BOTTOM, 1, abs_t, 1, 2, MPI_COMM_WORLD));
    else {
        CHECK_OK(MPI_Recv(MPI_BOTTOM, 1, abs_t, 0, 2, MPI_COMM_WORLD, &st));
        CHECK(y == 7, "MPI_BOTTOM receive got %d", y);
    }
    CHECK_OK(MPI_Type_free(&abs_t));

    /* Collectives: where the buffer is significant. */
    CHECK_CLASS(MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allreduce(NULL, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allreduce(&x, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Iallreduce(&x, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allgather(&x, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Alltoall(NULL, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Scan(NULL, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    if (rank == 0) /* the root's receive buffer */
        CHECK_CLASS(MPI_Gather(&x, 1, MPI_INT, NULL, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* A non-root's receive buffer is not significant: NULL is valid there. */
    int both[2] = {0, 0}, sum = 0;
    CHECK_OK(MPI_Gather(&x, 1, MPI_INT, rank == 0 ? both : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK_OK(MPI_Reduce(&x, rank == 0 ? &sum : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(both[0] == 7 && both[1] == 7 && sum == 14, "gather %d %d, reduce %d", both[0], both[1], sum);

    /* MPI_BOTTOM with absolute displacements: on the stack (the _c forms), and in a
     * page mapped low if the kernel grants the hint (the int forms too). */
    int at[4];
    bottom_vw(rank, at, 0);
    void *low = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fits = low != MAP_FAILED && (uintptr_t)low + 4096 <= INT32_MAX, all_fit;
    CHECK_OK(MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (all_fit)
        bottom_vw(rank, low, 1);
    if (low != MAP_FAILED)
        munmap(low, 4096);

    /* The same on an intercommunicator (one process in each group). */
    MPI_Comm half, inter;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &half));
    CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, peer, 9, &inter));
    CHECK_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    int root = rank == 0 ? MPI_ROOT : 0;
    CHECK_CLASS(MPI_Bcast(NULL, 4, MPI_INT, root, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allgather(&x, 1, MPI_INT, NULL, 1, MPI_INT, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allreduce(NULL, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    y = 0;
    CHECK_OK(MPI_Gather(&x, 1, MPI_INT, rank == 0 ? &y : NULL, 1, MPI_INT, root, inter));
    if (rank == 0)
        CHECK(y == 7, "intercommunicator gather got %d", y);
    int rc1 = 1;
    CHECK_CLASS(MPI_Reduce_scatter(NULL, &y, &rc1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_scatter(&x, NULL, &rc1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_scatter_block(NULL, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Ireduce_scatter_block(&x, NULL, 1, MPI_INT, MPI_SUM, inter, &req), MPI_ERR_BUFFER);
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Comm_free(&half));

    /* Neighbourhood collectives: each neighbour's block counts (a line of two: one
     * neighbour and one MPI_PROC_NULL each); without neighbours NULL is valid. */
    MPI_Comm line, lonely;
    int dim = 2, period = 0, nb[2] = {-1, -1}, two[2] = {1, 1}, d01[2] = {0, 1};
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &dim, &period, 0, &line));
    CHECK_OK(MPI_Comm_set_errhandler(line, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_Neighbor_allgather(NULL, 1, MPI_INT, nb, 1, MPI_INT, line), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Neighbor_allgather(&x, 1, MPI_INT, NULL, 1, MPI_INT, line), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Neighbor_allgatherv(&x, 1, MPI_INT, NULL, two, d01, MPI_INT, line), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Ineighbor_allgather(&x, 1, MPI_INT, NULL, 1, MPI_INT, line, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Neighbor_alltoall(NULL, 1, MPI_INT, nb, 1, MPI_INT, line), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Neighbor_alltoall(both, 1, MPI_INT, NULL, 1, MPI_INT, line), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Neighbor_alltoallv(both, two, d01, MPI_INT, NULL, two, d01, MPI_INT, line), MPI_ERR_BUFFER);
    MPI_Aint b01[2] = {0, sizeof(int)};
    MPI_Datatype ints2[2] = {MPI_INT, MPI_INT};
    CHECK_CLASS(MPI_Neighbor_alltoallw(NULL, two, b01, ints2, nb, two, b01, ints2, line), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Neighbor_alltoall_init(both, 1, MPI_INT, NULL, 1, MPI_INT, line, MPI_INFO_NULL, &req),
                MPI_ERR_BUFFER);
    CHECK(req == MPI_REQUEST_NULL, "a failed neighbourhood call set the request to 0x%x", req);
    /* Valid: the exchange itself, and NULL on a distributed graph with no edges. */
    nb[0] = nb[1] = -1;
    CHECK_OK(MPI_Neighbor_allgather(&x, 1, MPI_INT, nb, 1, MPI_INT, line));
    CHECK(nb[rank == 0 ? 1 : 0] == 7, "neighbour allgather got %d %d", nb[0], nb[1]);
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                            MPI_INFO_NULL, 0, &lonely));
    CHECK_OK(MPI_Comm_set_errhandler(lonely, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Neighbor_allgather(NULL, 1, MPI_INT, NULL, 1, MPI_INT, lonely));
    CHECK_OK(MPI_Neighbor_alltoall(NULL, 1, MPI_INT, NULL, 1, MPI_INT, lonely));
    CHECK_OK(MPI_Comm_free(&lonely));
    CHECK_OK(MPI_Comm_free(&line));

    /* Completion calls: NULL arrays with a positive count, NULL statuses. */
    CHECK_CLASS(MPI_Waitall(2, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Testall(2, NULL, &flag, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Waitsome(2, NULL, &outcount, indices, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Testsome(2, NULL, &outcount, indices, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Waitany(2, NULL, &idx, MPI_STATUS_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Testany(2, NULL, &idx, &flag, MPI_STATUS_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Startall(2, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Waitall(2, reqs, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Testall(2, reqs, &flag, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Waitsome(2, reqs, &outcount, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    /* MPI-4.1's MPI_Request_get_status_all/any/some, like MPI_Testall/any/some. */
    CHECK_CLASS(MPI_Request_get_status_all(2, NULL, &flag, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Request_get_status_all(2, reqs, &flag, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Request_get_status_any(2, NULL, &idx, &flag, MPI_STATUS_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Request_get_status_some(2, NULL, &outcount, indices, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Request_get_status_some(2, reqs, &outcount, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Request_get_status_some(2, reqs, &outcount, indices, NULL), MPI_ERR_ARG);
    CHECK_OK(MPI_Request_get_status_all(0, NULL, &flag, NULL));
    CHECK(flag, "MPI_Request_get_status_all of no requests: flag %d", flag);
    CHECK_OK(MPI_Waitall(0, NULL, NULL)); /* nothing to wait for */
    CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK_CLASS(MPI_Wait(&req, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Test(&req, &flag, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Waitany(2, reqs, &idx, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Request_get_status(req, &flag, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Recv(&y, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Probe(peer, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Iprobe(peer, 0, MPI_COMM_WORLD, &flag, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Sendrecv(&x, 1, MPI_INT, peer, 0, &y, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Get_count(NULL, MPI_INT, &count), MPI_ERR_ARG);
    /* MPI_STATUS_IGNORE is (MPI_Status *)1, not NULL: it stays valid. */
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, peer, 3, &y, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(y == 7, "sendrecv got %d", y);

    /* Error codes MPI never returned. */
    int len, cls;
    CHECK_CLASS(MPI_Error_string(0x7fff06, s, &len), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Error_class(0x7fff06, &cls), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Error_string(-5, s, &len), MPI_ERR_ARG);
    CHECK_OK(MPI_Error_string(MPI_ERR_RANK, s, &len)); /* a class is a code */
    int code = MPI_Send(NULL, 1, MPI_INT, peer, 0, MPI_COMM_WORLD); /* an issued code */
    CHECK_OK(MPI_Error_string(code, s, &len));
    CHECK(strstr(s, "NULL") != NULL, "the message of a NULL-buffer error: %s", s);

    /* MPI_Free_mem takes only what MPI_Alloc_mem returned, once. */
    void *mem;
    CHECK_CLASS(MPI_Free_mem(&x), MPI_ERR_BASE);
    CHECK_OK(MPI_Alloc_mem(64, MPI_INFO_NULL, &mem));
    CHECK_CLASS(MPI_Free_mem((char *)mem + 8), MPI_ERR_BASE);
    CHECK_OK(MPI_Free_mem(mem));
    CHECK_CLASS(MPI_Free_mem(mem), MPI_ERR_BASE);
    CHECK_OK(MPI_Free_mem(NULL));

    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("badinput: all checks passed\n");
    CHECK_OK(MPI_Finalize());
    return 0;
}
