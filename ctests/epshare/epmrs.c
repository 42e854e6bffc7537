/* MPI_T's mpix_ep_mrs counts the memory registrations open now: a window over
 * libfabric registers its memory (one registration; none under mpi_threads, whose
 * endpoints offer no RMA, so its operations take active messages), and freeing the
 * window releases it.
 *     epmrs WANT      (registrations while the window exists, beyond those before) */
#include "mpix_test.h"

static unsigned long long mrs(MPI_T_pvar_session s, int idx)
{
    MPI_T_pvar_handle h;
    int count;
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count) == MPI_SUCCESS, "handle");
    CHECK(MPI_T_pvar_read(s, h, &v) == MPI_SUCCESS, "read");
    MPI_T_pvar_handle_free(s, &h);
    return v;
}

int main(int argc, char **argv)
{
    int provided, idx, rank;
    CHECK(argc == 2, "usage: epmrs WANT");
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_T_pvar_session s;
    MPI_T_pvar_session_create(&s);
    CHECK(MPI_T_pvar_get_index("mpix_ep_mrs", MPI_T_PVAR_CLASS_LEVEL, &idx) == MPI_SUCCESS, "no mpix_ep_mrs");
    unsigned long long before = mrs(s, idx), want = strtoull(argv[1], NULL, 10);
    double *buf;
    MPI_Win w;
    MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &buf);
    MPI_Win_create(buf, 1 << 20, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    unsigned long long with = mrs(s, idx);
    MPI_Win_free(&w);
    unsigned long long after = mrs(s, idx);
    CHECK(with - before == want, "rank %d: %llu registrations with the window, %llu before, want %llu more", rank,
          with, before, want);
    CHECK(after == before, "rank %d: %llu registrations after freeing the window, %llu before", rank, after, before);
    MPI_Free_mem(buf);
    MPI_T_pvar_session_free(&s);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
