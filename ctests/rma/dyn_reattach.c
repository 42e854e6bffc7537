/* A dynamic window whose target detaches memory and attaches other memory, often at
 * the same address (freed and allocated again), between the origins' accesses: every
 * put and get must reach the memory attached now. Over libfabric (MPIX_SHM=0) the
 * origins keep the keys of the regions they reached; a key of a region detached since
 * must never be used (it would write the old pages, or make the provider drop the
 * connection), so this checks that the origins see the table change. Also a get of
 * memory detached since fails at the origin's flush or the call, never touching it.
 * argv[1]: rounds. */
#include <stdint.h>
#include <mpi.h>
#include "mpix_test.h"

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    for (int round = 0; round < rounds; round++) {
        int n = 64 + (round % 3) * 64; /* ints; sizes repeat, so malloc hands addresses back */
        int *mem = NULL;
        MPI_Aint addr = 0;
        if (rank == 0) {
            if (round % 2)
                CHECK_OK(MPI_Alloc_mem(n * sizeof(int), MPI_INFO_NULL, &mem));
            else
                mem = malloc(n * sizeof(int));
            for (int i = 0; i < n; i++)
                mem[i] = -1;
            CHECK_OK(MPI_Win_attach(win, mem, n * sizeof(int)));
            CHECK_OK(MPI_Get_address(mem, &addr));
        }
        CHECK_OK(MPI_Bcast(&addr, 1, MPI_AINT, 0, MPI_COMM_WORLD));
        if (rank != 0) {
            int v[4] = {round, rank, round * 7, rank * 11}, got[4];
            MPI_Aint at = addr + (MPI_Aint)(rank * 4 % n) * sizeof(int);
            CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            CHECK_OK(MPI_Put(v, 4, MPI_INT, 0, at, 4, MPI_INT, win));
            CHECK_OK(MPI_Win_flush(0, win));
            CHECK_OK(MPI_Get(got, 4, MPI_INT, 0, at, 4, MPI_INT, win));
            CHECK_OK(MPI_Win_unlock(0, win));
            for (int i = 0; i < 4; i++)
                CHECK(got[i] == v[i], "round %d: read back %d at %d, put %d", round, got[i], i, v[i]);
        }
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            for (int r = 1; r < size; r++)
                for (int i = 0; i < 4; i++) {
                    int want[4] = {round, r, round * 7, r * 11};
                    CHECK(mem[(r * 4 % n) + i] == want[i], "round %d: rank %d's element %d is %d, want %d", round, r,
                          i, mem[(r * 4 % n) + i], want[i]);
                }
            CHECK_OK(MPI_Win_detach(win, mem));
            if (round % 2)
                CHECK_OK(MPI_Free_mem(mem));
            else
                free(mem);
        }
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1 && round == rounds - 1) {
            /* the last region is detached now: a put there fails, at the call or the flush */
            int v = 42;
            CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            int rc = MPI_Put(&v, 1, MPI_INT, 0, addr, 1, MPI_INT, win);
            int rc2 = MPI_Win_flush(0, win);
            CHECK(rc != MPI_SUCCESS || rc2 != MPI_SUCCESS, "a put to detached memory succeeded");
            CHECK_OK(MPI_Win_unlock(0, win));
        }
    }
    CHECK_OK(MPI_Win_free(&win));
    if (rank == 0)
        printf("dyn_reattach: np %d, %d rounds of attach, put, get, detach: PASS\n", size, rounds);
    MPI_Finalize();
    return 0;
}
