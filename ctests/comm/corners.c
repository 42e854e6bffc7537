/* Conformance corners of issue 29 (items 7 and 9) that an independent test suite found:
 * MPI_Comm_get_parent in a process that was not spawned, MPI_Comm_spawn's clear
 * refusal, MPI_Comm_group's handles each valid until freed (also from several threads
 * at once), the empty status of MPI_REQUEST_NULL, and MPI_Comm_split_type with the
 * MPI-4 hardware split types. */
#include <pthread.h>
#include "mpix_test.h"

static int rank, size;

static void test_parent(void)
{
    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent: 0x%x, want MPI_COMM_NULL", (unsigned)parent);

    /* Spawning is not supported: a clear MPI_ERR_SPAWN, MPI_COMM_NULL, and the root's
     * error codes say why. */
    MPI_Comm inter = MPI_COMM_WORLD;
    int codes[2] = {0, 0};
    char *args[] = {NULL};
    CHECK_CLASS(MPI_Comm_spawn("/bin/true", args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes), MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "spawn's intercomm is 0x%x", (unsigned)inter);
    if (rank == 0)
        CHECK(mpix_test_class(codes[0]) == MPI_ERR_SPAWN && mpix_test_class(codes[1]) == MPI_ERR_SPAWN,
              "spawn's errcodes %d %d", codes[0], codes[1]);
    char *cmds[] = {"/bin/true", "/bin/false"};
    int maxprocs[] = {1, 1};
    MPI_Info infos[] = {MPI_INFO_NULL, MPI_INFO_NULL};
    CHECK_CLASS(MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
                                        MPI_ERRCODES_IGNORE), MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "spawn_multiple's intercomm is 0x%x", (unsigned)inter);
}

/* group_check: g is a valid group of the world's size. */
static void group_check(MPI_Group g, const char *what)
{
    int n = -1;
    CHECK_OK(MPI_Group_size(g, &n));
    CHECK(n == size, "%s: size %d, want %d", what, n, size);
}

#define THREADS 4
#define ROUNDS 200
static MPI_Comm dup_comm;

static void *group_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Group a, b;
        CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &a));
        CHECK_OK(MPI_Comm_group(dup_comm, &b));
        CHECK_OK(MPI_Group_free(&a));
        group_check(b, "thread's second group after freeing the first");
        CHECK_OK(MPI_Group_free(&b));
        CHECK(a == MPI_GROUP_NULL && b == MPI_GROUP_NULL, "freed handles are MPI_GROUP_NULL");
    }
    return NULL;
}

static void test_groups(void)
{
    MPI_Group a, b, c, d;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &b));
    CHECK_OK(MPI_Comm_group(dup_comm, &c));
    int cmp;
    CHECK_OK(MPI_Group_compare(a, b, &cmp));
    CHECK(cmp == MPI_IDENT, "two groups of one communicator compare %d", cmp);
    /* Freeing one leaves the others valid, in any order. */
    CHECK_OK(MPI_Group_free(&a));
    group_check(b, "the second group after freeing the first");
    group_check(c, "the dup's group after freeing the world's");
    CHECK_OK(MPI_Group_free(&c));
    group_check(b, "the second group after freeing the dup's");
    /* Group_incl of identical ranks, twice: two groups, each freed on its own. */
    int all[64];
    for (int i = 0; i < size && i < 64; i++)
        all[i] = i;
    CHECK_OK(MPI_Group_incl(b, size, all, &c));
    CHECK_OK(MPI_Group_incl(b, size, all, &d));
    CHECK_OK(MPI_Group_free(&c));
    group_check(d, "a second identical Group_incl after freeing the first");
    CHECK_OK(MPI_Group_free(&d));
    CHECK_OK(MPI_Group_free(&b));
    /* A freed handle is MPI_GROUP_NULL and using a stale copy is an error, not a crash. */
    CHECK(b == MPI_GROUP_NULL, "freed group handle 0x%x", (unsigned)b);

    /* Several threads at once. */
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, group_thread, NULL) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(MPI_Comm_free(&dup_comm));
}

/* An empty status: source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0, not cancelled,
 * and error want_error: MPI_SUCCESS from MPI_Request_get_status (the standard's empty
 * status, as MPICH gives it); a wait or test leaves MPI_ERROR as it was (MPI-4.1
 * §3.2.5: only a multiple completion returning MPI_ERR_IN_STATUS writes it). */
#define UNTOUCHED 12345
static void check_empty(const MPI_Status *st, const char *what, int want_error)
{
    int count = -1, cancelled = 1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && st->MPI_ERROR == want_error,
          "%s: source %d tag %d error %d", what, st->MPI_SOURCE, st->MPI_TAG, st->MPI_ERROR);
    CHECK_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(count == 0, "%s: count %d", what, count);
    CHECK_OK(MPI_Test_cancelled(st, &cancelled));
    CHECK(!cancelled, "%s: cancelled", what);
}

static void garbage(MPI_Status *st)
{
    memset(st, 0x5a, sizeof *st);
    st->MPI_ERROR = UNTOUCHED;
}

static void test_null_status(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 0;
    garbage(&st);
    CHECK_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag, "MPI_Request_get_status(MPI_REQUEST_NULL): flag false");
    check_empty(&st, "MPI_Request_get_status(MPI_REQUEST_NULL)", MPI_SUCCESS);
    garbage(&st);
    flag = 0;
    CHECK_OK(MPI_Test(&req, &flag, &st));
    CHECK(flag, "MPI_Test(MPI_REQUEST_NULL): flag false");
    check_empty(&st, "MPI_Test(MPI_REQUEST_NULL)", UNTOUCHED);
    garbage(&st);
    CHECK_OK(MPI_Wait(&req, &st));
    check_empty(&st, "MPI_Wait(MPI_REQUEST_NULL)", UNTOUCHED);
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status sts[2];
    garbage(&sts[0]);
    garbage(&sts[1]);
    CHECK_OK(MPI_Waitall(2, reqs, sts));
    check_empty(&sts[0], "MPI_Waitall([MPI_REQUEST_NULL])", UNTOUCHED);
    int idx = 0;
    garbage(&st);
    CHECK_OK(MPI_Waitany(2, reqs, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany of nulls: index %d", idx);
    check_empty(&st, "MPI_Waitany of nulls", UNTOUCHED);
}

static void test_split_type(void)
{
    MPI_Comm node, sub;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int nsize;
    MPI_Comm_size(node, &nsize);

    /* HW_GUIDED: mpi_shared_memory is the node; an unknown resource or no key gives
     * MPI_COMM_NULL. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &sub));
    CHECK(sub != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
    int res;
    MPI_Comm_compare(sub, node, &res);
    CHECK(res == MPI_CONGRUENT, "HW_GUIDED mpi_shared_memory: compare with the node's %d", res);
    MPI_Comm_free(&sub);
    MPI_Info_set(info, "mpi_hw_resource_type", "no such resource");
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &sub));
    CHECK(sub == MPI_COMM_NULL, "HW_GUIDED with an unknown resource gave a communicator");
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, MPI_INFO_NULL, &sub));
    CHECK(sub == MPI_COMM_NULL, "HW_GUIDED without the info key gave a communicator");
    MPI_Info_free(&info);

    /* HW_UNGUIDED: a strict subset of the parent, named by its info key, or
     * MPI_COMM_NULL. On the node communicator of unbound processes nothing divides
     * it, so MPI_COMM_NULL everywhere; a single process has no strict subset. */
    MPI_Comm parents[3] = {MPI_COMM_WORLD, node, MPI_COMM_SELF};
    for (int p = 0; p < 3; p++) {
        int psize;
        MPI_Comm_size(parents[p], &psize);
        CHECK_OK(MPI_Comm_split_type(parents[p], MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &sub));
        if (psize == 1)
            CHECK(sub == MPI_COMM_NULL, "HW_UNGUIDED of one process gave a communicator");
        if (sub == MPI_COMM_NULL)
            continue;
        int ssize, flag;
        char val[MPI_MAX_INFO_VAL];
        MPI_Comm_size(sub, &ssize);
        CHECK(ssize < psize, "HW_UNGUIDED: %d of %d is not a strict subset", ssize, psize);
        MPI_Info got;
        CHECK_OK(MPI_Comm_get_info(sub, &got));
        int len = sizeof val;
        CHECK_OK(MPI_Info_get_string(got, "mpi_hw_resource_type", &len, val, &flag));
        CHECK(flag, "HW_UNGUIDED: no mpi_hw_resource_type on the new communicator");
        if (rank == 0)
            printf("HW_UNGUIDED split %d processes at %s into %d\n", psize, val, ssize);
        MPI_Info_free(&got);
        MPI_Comm_free(&sub);
    }
    /* The result of HW_UNGUIDED may itself be split further, down to MPI_COMM_NULL. */
    MPI_Comm cur;
    MPI_Comm_dup(MPI_COMM_WORLD, &cur);
    for (int depth = 0; cur != MPI_COMM_NULL && depth < 8; depth++) {
        CHECK_OK(MPI_Comm_split_type(cur, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &sub));
        MPI_Comm_free(&cur);
        cur = sub;
    }
    CHECK(cur == MPI_COMM_NULL, "HW_UNGUIDED never reached MPI_COMM_NULL");
    /* An invalid split type is still refused. */
    CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL, &sub), MPI_ERR_ARG);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_parent();
    test_groups();
    test_null_status();
    test_split_type();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm corners: ok on %d processes\n", size);
    MPI_Finalize();
    return 0;
}
