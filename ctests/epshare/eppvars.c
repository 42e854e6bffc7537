/* MPI_T's mpix_ep_* performance variables under MPIX_EP_SHARING: the category in
 * effect and the resources it opened, against the values the arguments give:
 *   eppvars CATEGORY CONTEXTS QPS CQS STXS
 * (CATEGORY is the index: 0 mpi_everywhere .. 5 mpi_threads). Messages go around
 * the ring first, so the endpoints are in use. */
#include "mpix_test.h"

static unsigned long long readvar(MPI_T_pvar_session s, const char *name, int cls)
{
    int idx = -1, count = 0;
    MPI_T_pvar_handle h;
    unsigned long long v = 0xdeadbeef;
    CHECK(MPI_T_pvar_get_index(name, cls, &idx) == MPI_SUCCESS, "no variable %s of class %d", name, cls);
    CHECK(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count) == MPI_SUCCESS && count == 1, "%s: handle", name);
    CHECK(MPI_T_pvar_read(s, h, &v) == MPI_SUCCESS, "%s: read", name);
    CHECK(MPI_T_pvar_handle_free(s, &h) == MPI_SUCCESS, "%s: free", name);
    return v;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    CHECK(argc == 6, "usage: eppvars CATEGORY CONTEXTS QPS CQS STXS");
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 100; i++) {
        int out = rank * 1000 + i, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, i, &in, 1, MPI_INT, (rank + size - 1) % size, i,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(in == ((rank + size - 1) % size) * 1000 + i, "ring message %d: %d", i, in);
    }
    MPI_T_pvar_session s;
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "session");
    unsigned long long want[5];
    for (int i = 0; i < 5; i++)
        want[i] = strtoull(argv[1 + i], NULL, 10);
    unsigned long long cat = readvar(s, "mpix_ep_category", MPI_T_PVAR_CLASS_STATE);
    unsigned long long ctx = readvar(s, "mpix_ep_contexts", MPI_T_PVAR_CLASS_LEVEL);
    unsigned long long pds = readvar(s, "mpix_ep_pds", MPI_T_PVAR_CLASS_LEVEL);
    unsigned long long qps = readvar(s, "mpix_ep_qps", MPI_T_PVAR_CLASS_LEVEL);
    unsigned long long cqs = readvar(s, "mpix_ep_cqs", MPI_T_PVAR_CLASS_LEVEL);
    unsigned long long stxs = readvar(s, "mpix_ep_stxs", MPI_T_PVAR_CLASS_LEVEL);
    unsigned long long tds = readvar(s, "mpix_ep_tds", MPI_T_PVAR_CLASS_LEVEL);
    unsigned long long mem = readvar(s, "mpix_ep_memory", MPI_T_PVAR_CLASS_SIZE);
    (void)readvar(s, "mpix_ep_mrs", MPI_T_PVAR_CLASS_LEVEL);
    CHECK(cat == want[0], "category %llu, want %llu", cat, want[0]);
    CHECK(ctx == want[1] && pds == want[1], "contexts %llu, PDs %llu, want %llu", ctx, pds, want[1]);
    CHECK(qps == want[2], "QPs %llu, want %llu", qps, want[2]);
    CHECK(cqs == want[3], "CQs %llu, want %llu", cqs, want[3]);
    CHECK(stxs == want[4], "STXs %llu, want %llu", stxs, want[4]);
    CHECK(tds == 0, "libfabric has no thread domains: %llu", tds);
    CHECK(mem > 0 && mem % qps == 0, "memory %llu bytes for %llu endpoints", mem, qps);
    MPI_T_pvar_session_free(&s);
    MPI_T_finalize();
    if (rank == 0)
        printf("eppvars: category %llu, %llu contexts, %llu QPs, %llu CQs, %llu STXs, %llu bytes\n", cat, ctx, qps,
               cqs, stxs, mem);
    MPI_Finalize();
    return 0;
}
