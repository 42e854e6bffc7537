/* Every MPI_Group_* procedure against hand-computed expectations. */
#include "mpix_test.h"

static void check_ranks(MPI_Group g, MPI_Group world, int n, const int *want_world)
{
    int size;
    CHECK_OK(MPI_Group_size(g, &size));
    CHECK(size == n, "group size %d, want %d", size, n);
    int idx[64], out[64];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_OK(MPI_Group_translate_ranks(g, n, idx, world, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == want_world[i], "member %d is world rank %d, want %d", i, out[i], want_world[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int gs, gr;
    MPI_Group_size(world, &gs);
    MPI_Group_rank(world, &gr);
    CHECK(gs == size && gr == rank, "world group %d/%d", gr, gs);

    /* incl in reverse order, excl of rank 0 */
    int rev[64], want[64];
    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i;
    MPI_Group grev;
    CHECK_OK(MPI_Group_incl(world, size, rev, &grev));
    check_ranks(grev, world, size, rev);
    MPI_Group_rank(grev, &gr);
    CHECK(gr == size - 1 - rank, "rank in reversed group %d", gr);
    int res;
    MPI_Group_compare(world, grev, &res);
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare world/reversed = %d", res);
    MPI_Group_compare(world, world, &res);
    CHECK(res == MPI_IDENT, "compare world/world = %d", res);

    MPI_Group gex;
    int zero = 0;
    CHECK_OK(MPI_Group_excl(world, 1, &zero, &gex));
    for (int i = 1; i < size; i++)
        want[i - 1] = i;
    check_ranks(gex, world, size - 1, want);
    MPI_Group_rank(gex, &gr);
    CHECK(gr == (rank == 0 ? MPI_UNDEFINED : rank - 1), "rank in excl group %d", gr);
    MPI_Group_compare(world, gex, &res);
    CHECK(res == MPI_UNEQUAL, "compare world/excl = %d", res);

    /* range incl: even ranks; range excl: even ranks leaves odd ones */
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Group geven, godd;
    CHECK_OK(MPI_Group_range_incl(world, 1, range, &geven));
    int n = 0;
    for (int i = 0; i < size; i += 2)
        want[n++] = i;
    check_ranks(geven, world, n, want);
    CHECK_OK(MPI_Group_range_excl(world, 1, range, &godd));
    n = 0;
    for (int i = 1; i < size; i += 2)
        want[n++] = i;
    check_ranks(godd, world, n, want);
    /* a descending range */
    int down[1][3] = {{size - 1, 0, -1}};
    MPI_Group gdown;
    CHECK_OK(MPI_Group_range_incl(world, 1, down, &gdown));
    check_ranks(gdown, world, size, rev);

    /* set operations */
    MPI_Group gu, gi, gd;
    CHECK_OK(MPI_Group_union(godd, geven, &gu));
    n = 0;
    for (int i = 1; i < size; i += 2)
        want[n++] = i;
    for (int i = 0; i < size; i += 2)
        want[n++] = i;
    check_ranks(gu, world, size, want);
    CHECK_OK(MPI_Group_intersection(world, godd, &gi));
    n = 0;
    for (int i = 1; i < size; i += 2)
        want[n++] = i;
    check_ranks(gi, world, n, want);
    CHECK_OK(MPI_Group_difference(world, godd, &gd));
    n = 0;
    for (int i = 0; i < size; i += 2)
        want[n++] = i;
    check_ranks(gd, world, n, want);
    MPI_Group gempty;
    CHECK_OK(MPI_Group_difference(world, world, &gempty));
    CHECK(gempty == MPI_GROUP_EMPTY, "empty difference is not MPI_GROUP_EMPTY");
    MPI_Group_size(gempty, &gs);
    CHECK(gs == 0, "empty group size %d", gs);

    /* translate with MPI_PROC_NULL and absent ranks */
    int in[2] = {MPI_PROC_NULL, 0}, out[2];
    CHECK_OK(MPI_Group_translate_ranks(world, 2, in, godd, out));
    CHECK(out[0] == MPI_PROC_NULL && out[1] == MPI_UNDEFINED, "translate got %d %d", out[0], out[1]);

    /* errors */
    int bad = size;
    MPI_Group gbad;
    CHECK_CLASS(MPI_Group_incl(world, 1, &bad, &gbad), MPI_ERR_RANK);
    int dup2[2] = {0, 0};
    if (size >= 2)
        CHECK_CLASS(MPI_Group_incl(world, 2, dup2, &gbad), MPI_ERR_RANK);
    int badrange[1][3] = {{0, size - 1, 0}};
    CHECK_CLASS(MPI_Group_range_incl(world, 1, badrange, &gbad), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Group_size(MPI_GROUP_NULL, &gs), MPI_ERR_GROUP);

    MPI_Group all[] = {grev, gex, geven, godd, gdown, gu, gi, gd, gempty, world};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
        CHECK_OK(MPI_Group_free(&all[i]));
        CHECK(all[i] == MPI_GROUP_NULL, "free did not set MPI_GROUP_NULL");
    }
    MPI_Finalize();
    return 0;
}
