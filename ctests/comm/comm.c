/* Communicator constructors and queries: dup (blocking, nonblocking, with info),
 * split and split_type, create and create_group, compare, names, info, intercommunicators
 * (create, remote size and group, merge, dup), and traffic on each result. */
#include "mpix_test.h"

/* ring_check sends each rank's id around comm and checks what arrives. */
static void ring_check(MPI_Comm comm, int tag)
{
    int rank, size;
    CHECK_OK(MPI_Comm_rank(comm, &rank));
    CHECK_OK(MPI_Comm_size(comm, &size));
    int got = -1, mine = rank * 1000 + tag;
    CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, (rank + 1) % size, tag, &got, 1, MPI_INT,
                          (rank - 1 + size) % size, tag, comm, MPI_STATUS_IGNORE));
    CHECK(got == ((rank - 1 + size) % size) * 1000 + tag, "ring got %d", got);
    int sum = 0;
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size * (size - 1) / 2, "allreduce on comm gave %d", sum);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rank, size, res, flag;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* dup: congruent, independent traffic, inherits the error handler */
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK(res == MPI_CONGRUENT, "compare world/dup = %d", res);
    CHECK_OK(MPI_Comm_compare(dup, dup, &res));
    CHECK(res == MPI_IDENT, "compare dup/dup = %d", res);
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "dup did not inherit MPI_ERRORS_RETURN");
    CHECK_OK(MPI_Errhandler_free(&eh));
    /* a message on world must not match a receive on dup */
    if (size > 1) {
        int a = 1, b = 2, got;
        if (rank == 0) {
            CHECK_OK(MPI_Send(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
            CHECK_OK(MPI_Send(&b, 1, MPI_INT, 1, 5, dup));
        } else if (rank == 1) {
            CHECK_OK(MPI_Recv(&got, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE));
            CHECK(got == 2, "receive on dup got the world message (%d)", got);
            CHECK_OK(MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(got == 1, "receive on world got %d", got);
        }
    }
    ring_check(dup, 1);

    /* idup and idup_with_info, overlapped with traffic on the parent */
    MPI_Comm idup, idup2;
    MPI_Request reqs[2];
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &reqs[0]));
    CHECK_OK(MPI_Comm_idup_with_info(dup, info, &idup2, &reqs[1]));
    ring_check(MPI_COMM_WORLD, 2);
    CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    ring_check(idup, 3);
    ring_check(idup2, 4);
    MPI_Info used;
    char val[64];
    int vlen = sizeof val;
    CHECK_OK(MPI_Comm_get_info(idup2, &used));
    CHECK_OK(MPI_Info_get_string(used, "mpi_assert_no_any_tag", &vlen, val, &flag));
    CHECK(flag && strcmp(val, "true") == 0, "idup_with_info lost its hint");
    CHECK_OK(MPI_Info_free(&used));

    /* dup_with_info and set_info/get_info */
    MPI_Comm dupi;
    CHECK_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dupi));
    CHECK_OK(MPI_Info_set(info, "mpix_test_key", "v1"));
    CHECK_OK(MPI_Comm_set_info(dupi, info));
    CHECK_OK(MPI_Comm_get_info(dupi, &used));
    vlen = sizeof val;
    CHECK_OK(MPI_Info_get_string(used, "mpix_test_key", &vlen, val, &flag));
    CHECK(flag && strcmp(val, "v1") == 0, "set_info lost its key");
    CHECK_OK(MPI_Info_free(&used));
    CHECK_OK(MPI_Info_free(&info));

    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_OK(MPI_Comm_set_name(dup, "my dup"));
    CHECK_OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "name %s", name);

    /* split by parity, key reversing the order */
    MPI_Comm half;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    int hr, hs;
    CHECK_OK(MPI_Comm_rank(half, &hr));
    CHECK_OK(MPI_Comm_size(half, &hs));
    int want_hs = (size + 1 - rank % 2) / 2;
    CHECK(hs == want_hs, "split size %d, want %d", hs, want_hs);
    /* members of my color in reverse world order: my rank is how many have a larger world rank */
    int want_hr = 0;
    for (int r = rank + 2; r < size; r += 2)
        want_hr++;
    CHECK(hr == want_hr, "split rank %d, want %d", hr, want_hr);
    ring_check(half, 6);
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, half, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare world/half = %d", res);

    /* split with MPI_UNDEFINED, and a split of a split */
    MPI_Comm none;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
    CHECK((rank == 0) == (none == MPI_COMM_NULL), "MPI_UNDEFINED color gave %s", none == MPI_COMM_NULL ? "null" : "a comm");
    if (none != MPI_COMM_NULL) {
        ring_check(none, 7);
        MPI_Comm sub;
        CHECK_OK(MPI_Comm_split(none, 0, 0, &sub));
        ring_check(sub, 8);
        CHECK_OK(MPI_Comm_free(&sub));
        CHECK_OK(MPI_Comm_free(&none));
    }
    CHECK_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &none), MPI_ERR_ARG);

    /* split_type: all processes of this test share a node */
    MPI_Comm node, hw;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int ns;
    CHECK_OK(MPI_Comm_size(node, &ns));
    CHECK(ns == size, "node communicator has %d of %d processes", ns, size);
    ring_check(node, 9);
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &hw));
    CHECK(hw != MPI_COMM_NULL, "hw-guided shared memory split gave MPI_COMM_NULL");
    CHECK_OK(MPI_Comm_free(&hw));
    CHECK_OK(MPI_Info_set(info, "mpi_hw_resource_type", "no_such_resource"));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &hw));
    CHECK(hw == MPI_COMM_NULL, "unknown hw resource type did not give MPI_COMM_NULL");
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, rank, MPI_INFO_NULL, &hw));
    CHECK(hw == MPI_COMM_NULL, "MPI_UNDEFINED split type");

    /* create from the even ranks; create_group from the odd ones */
    MPI_Group world, evens, odds;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int range[1][3] = {{0, size - 1, 2}};
    CHECK_OK(MPI_Group_range_incl(world, 1, range, &evens));
    CHECK_OK(MPI_Group_difference(world, evens, &odds));
    MPI_Comm ce;
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &ce));
    CHECK((rank % 2 == 0) == (ce != MPI_COMM_NULL), "Comm_create membership");
    if (ce != MPI_COMM_NULL) {
        CHECK_OK(MPI_Comm_rank(ce, &hr));
        CHECK(hr == rank / 2, "rank in created comm %d", hr);
        ring_check(ce, 10);
        CHECK_OK(MPI_Comm_free(&ce));
    }
    if (rank % 2 == 1) {
        MPI_Comm co;
        CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 42, &co));
        CHECK_OK(MPI_Comm_rank(co, &hr));
        CHECK(hr == rank / 2, "rank in create_group comm %d", hr);
        ring_check(co, 11);
        CHECK_OK(MPI_Comm_free(&co));
    }

    /* intercommunicator between evens and odds */
    if (size >= 2) {
        MPI_Comm inter, merged, interdup;
        /* each half's rank 0 is its highest world rank: the remote leader is the other's */
        int leader_even = size % 2 == 0 ? size - 2 : size - 1, leader_odd = size % 2 == 0 ? size - 1 : size - 2;
        CHECK_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? leader_odd : leader_even, 77, &inter));
        CHECK_OK(MPI_Comm_test_inter(inter, &flag));
        CHECK(flag, "intercomm is not inter");
        CHECK_OK(MPI_Comm_test_inter(half, &flag));
        CHECK(!flag, "intracomm is inter");
        int rs, ls;
        CHECK_OK(MPI_Comm_remote_size(inter, &rs));
        CHECK_OK(MPI_Comm_size(inter, &ls));
        CHECK(ls == hs && rs == size - hs, "intercomm sizes %d/%d", ls, rs);
        MPI_Group rg;
        CHECK_OK(MPI_Comm_remote_group(inter, &rg));
        int first = 0, wfirst;
        CHECK_OK(MPI_Group_translate_ranks(rg, 1, &first, world, &wfirst));
        /* the remote group is the other parity ordered by reversed world rank */
        int want_first = (rank % 2 == 0) ? (size % 2 == 0 ? size - 1 : size - 2) : (size % 2 == 1 ? size - 1 : size - 2);
        CHECK(wfirst == want_first, "remote rank 0 is world %d, want %d", wfirst, want_first);
        CHECK_OK(MPI_Group_free(&rg));
        /* point-to-point across: local rank i talks to remote rank i when both exist */
        CHECK_OK(MPI_Comm_rank(inter, &hr));
        if (hr < rs) {
            int mine = rank, got = -1;
            CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, hr, 3, &got, 1, MPI_INT, hr, 3, inter, MPI_STATUS_IGNORE));
            CHECK(got % 2 != rank % 2, "intercomm partner %d has my parity", got);
        }
        CHECK_OK(MPI_Comm_dup(inter, &interdup));
        CHECK_OK(MPI_Comm_compare(inter, interdup, &res));
        CHECK(res == MPI_CONGRUENT, "compare inter/dup = %d", res);
        if (hr < rs) {
            int mine = rank, got = -1;
            MPI_Status st;
            CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, hr, 4, &got, 1, MPI_INT, MPI_ANY_SOURCE, 4, interdup, &st));
            CHECK(st.MPI_SOURCE == hr, "status source %d on intercomm", st.MPI_SOURCE);
        }
        CHECK_OK(MPI_Intercomm_merge(inter, rank % 2, &merged));
        CHECK_OK(MPI_Comm_size(merged, &ls));
        CHECK(ls == size, "merged size %d", ls);
        CHECK_OK(MPI_Comm_rank(merged, &hr));
        /* evens (high=0) first, each group in its local order */
        int want_mr = rank % 2 == 0 ? want_hr : (size + 1) / 2 + want_hr;
        CHECK(hr == want_mr, "merged rank %d, want %d", hr, want_mr);
        ring_check(merged, 12);
        CHECK_CLASS(MPI_Intercomm_merge(half, 0, &merged), MPI_ERR_COMM);
        CHECK_OK(MPI_Comm_free(&merged));
        CHECK_OK(MPI_Comm_free(&interdup));
        CHECK_OK(MPI_Comm_free(&inter));
    }

    /* errors */
    MPI_Comm bad = MPI_COMM_NULL;
    CHECK_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &bad), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_free(&bad), MPI_ERR_COMM);
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Comm_free(&w), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_remote_size(dup, &res), MPI_ERR_COMM);

    CHECK_OK(MPI_Group_free(&evens));
    CHECK_OK(MPI_Group_free(&odds));
    CHECK_OK(MPI_Group_free(&world));
    MPI_Comm all[] = {dup, idup, idup2, dupi, half, node};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
        CHECK_OK(MPI_Comm_free(&all[i]));
        CHECK(all[i] == MPI_COMM_NULL, "free did not set MPI_COMM_NULL");
    }
    CHECK_OK(MPI_Finalize());
    return 0;
}
