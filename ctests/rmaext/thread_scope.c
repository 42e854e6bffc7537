/* thread_scope: thread-scope flushes ([RMA] sec. 2.1) under MPI_THREAD_MULTIPLE with
 * 4 pthreads per process. An MPI_Win_allocate window is duplicated with
 * mpi_win_scope=thread (MPIX_Win_dup_with_info; MPI_Win_get_info must say "thread"),
 * the main thread opens MPI_Win_lock_all on the duplicate, and every thread,
 * repeatedly, on a target that changes every iteration (itself included):
 *   - puts its own slot at the target through the duplicate and flushes that target
 *     (with thread scope the flush completes the calling thread's operations, which
 *     is all the thread relies on), then gets the slot back (MPI_Win_flush_local) and
 *     finds its data;
 *   - adds one to its own counter at the target with MPI_Accumulate, completed by
 *     MPI_Win_flush_all, MPI_Win_flush, or MPI_Win_flush_local_all and a later flush;
 *   - every third iteration an MPI_Rput completed by MPI_Wait and a flush;
 * and at the end puts a final value into its slot at every process and calls
 * MPI_Win_flush_all. After MPI_Win_unlock_all and a barrier each process finds in its
 * window the final value of every (rank, thread) slot and exact counters.
 * Argument: iterations per thread (default 30). */
#include <pthread.h>
#include "rmaext.h"

#define NT 4
#define SLOTN 64 /* ints per (rank, thread) slot */

static int rank, nproc, iters = 30;
static long nchecks;
static MPI_Win dupwin;

static MPI_Aint off_slot(int r, int t) { return ((MPI_Aint)r * NT + t) * SLOTN * sizeof(int); }
static MPI_Aint off_count(int r, int t) { return off_slot(nproc, 0) + ((MPI_Aint)r * NT + t) * sizeof(int); }
static MPI_Aint off_rput(int r, int t) { return off_count(nproc, 0) + ((MPI_Aint)r * NT + t) * sizeof(int); }
static MPI_Aint win_size(void) { return off_rput(nproc, 0); }

static int val(int r, int t, int it, int i) { return ((r * NT + t) * 10000 + it) * 64 + i; }
static int target_of(int r, int t, int it) { return (r + 1 + it + t) % nproc; }

static void *worker(void *p)
{
    int t = (int)(intptr_t)p, buf[SLOTN], back[SLOTN], one = 1;
    long checks = 0;
    for (int it = 0; it < iters; it++) {
        int tgt = target_of(rank, t, it);
        for (int i = 0; i < SLOTN; i++)
            buf[i] = val(rank, t, it, i);
        CHECK_OK(MPI_Put(buf, SLOTN, MPI_INT, tgt, off_slot(rank, t), SLOTN, MPI_INT, dupwin));
        CHECK_OK(MPI_Win_flush(tgt, dupwin));
        CHECK_OK(MPI_Get(back, SLOTN, MPI_INT, tgt, off_slot(rank, t), SLOTN, MPI_INT, dupwin));
        CHECK_OK(MPI_Win_flush_local(tgt, dupwin));
        CHECK(memcmp(back, buf, sizeof buf) == 0,
              "rank %d thread %d iteration %d: a get after the thread-scope flush of the thread's put reads %d at 0, "
              "want %d",
              rank, t, it, back[0], buf[0]);
        checks++;
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, tgt, off_count(rank, t), 1, MPI_INT, MPI_SUM, dupwin));
        switch (it % 3) {
        case 0:
            CHECK_OK(MPI_Win_flush_all(dupwin));
            break;
        case 1:
            CHECK_OK(MPI_Win_flush(tgt, dupwin));
            break;
        default: {
            MPI_Request rq;
            int mark = it, seen = -1;
            CHECK_OK(MPI_Win_flush_local_all(dupwin));
            CHECK_OK(MPI_Rput(&mark, 1, MPI_INT, tgt, off_rput(rank, t), 1, MPI_INT, dupwin, &rq));
            CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK_OK(MPI_Win_flush(tgt, dupwin));
            CHECK_OK(MPI_Get(&seen, 1, MPI_INT, tgt, off_rput(rank, t), 1, MPI_INT, dupwin));
            CHECK_OK(MPI_Win_flush(tgt, dupwin));
            CHECK(seen == it, "rank %d thread %d: a get after MPI_Rput, MPI_Wait and a flush reads %d, want %d", rank,
                  t, seen, it);
            checks++;
        }
        }
    }
    for (int d = 0; d < nproc; d++) {
        for (int i = 0; i < SLOTN; i++)
            buf[i] = val(rank, t, iters, i);
        CHECK_OK(MPI_Put(buf, SLOTN, MPI_INT, d, off_slot(rank, t), SLOTN, MPI_INT, dupwin));
    }
    CHECK_OK(MPI_Win_flush_all(dupwin));
    __atomic_add_fetch(&nchecks, checks, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, want MPI_THREAD_MULTIPLE", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    iters = rmaext_arg(argc, argv, iters);
    double t0 = MPI_Wtime();

    MPI_Win parent;
    unsigned char *base;
    CHECK_OK(MPI_Win_allocate(win_size(), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &parent));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, parent));
    memset(base, 0, win_size());
    CHECK_OK(MPI_Win_unlock(rank, parent));
    MPI_Info info = rmaext_info(MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_THREAD, NULL);
    CHECK_OK(MPIX_Win_dup_with_info(parent, info, &dupwin));
    CHECK_OK(MPI_Info_free(&info));
    RMAEXT_CHECK_INFO(dupwin, MPIX_INFO_WIN_SCOPE, MPIX_WIN_SCOPE_THREAD, "the duplicate with mpi_win_scope=thread");
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    CHECK_OK(MPI_Win_lock_all(0, dupwin));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    CHECK_OK(MPI_Win_unlock_all(dupwin));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* every slot holds its final value, every counter the number of iterations that
     * targeted this process */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, parent));
    for (int r = 0; r < nproc; r++)
        for (int t = 0; t < NT; t++) {
            const int *slot = (const int *)(base + off_slot(r, t));
            for (int i = 0; i < SLOTN; i++)
                CHECK(slot[i] == val(r, t, iters, i), "rank %d: slot of rank %d thread %d holds %d at %d, want %d",
                      rank, r, t, slot[i], i, val(r, t, iters, i));
            int want = 0;
            for (int it = 0; it < iters; it++)
                want += target_of(r, t, it) == rank;
            int got = *(const int *)(base + off_count(r, t));
            CHECK(got == want, "rank %d: the counter of rank %d thread %d is %d, want %d", rank, r, t, got, want);
            nchecks += 2;
        }
    CHECK_OK(MPI_Win_unlock(rank, parent));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_free(&dupwin));
    CHECK_OK(MPI_Win_free(&parent));

    long total = rmaext_total(nchecks);
    if (rank == 0)
        printf("thread_scope: np %d x %d threads, %d iterations through a mpi_win_scope=thread duplicate: %ld checks "
               "passed (%.2f s): PASS\n",
               nproc, NT, iters, total, MPI_Wtime() - t0);
    CHECK_OK(MPI_Finalize());
    return 0;
}
