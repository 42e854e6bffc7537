/* rma_threads: one-sided communication from 4 threads per process under
 * MPI_THREAD_MULTIPLE, on every window kind.
 *   - one shared window, inside one MPI_Win_lock_all of the main thread: each thread
 *     puts its own slot at a target that changes every iteration (itself included),
 *     flushes it and gets it back, accumulates into a per-thread counter there, takes a
 *     number from a global MPI_Fetch_and_op counter at rank 0 (each thread's numbers
 *     increasing), and does an MPI_Rput / MPI_Rget pair completed by MPI_Wait; the
 *     threads flush with MPI_Win_flush, flush_local and flush_all concurrently;
 *   - a private window per thread, created by the threads at the same time over their
 *     own duplicate of MPI_COMM_WORLD, used with exclusive locks and freed by them.
 * At the end every window holds what the last writer of each slot put, and the
 * counters are exact. Argument: iterations per thread (default 30). */
#include <pthread.h>
#include "rma_util.h"

#define NT 4
#define SLOTN 64 /* ints per (rank, thread) slot */

static int rank, nproc, iters = 30;
static long nchecks;

/* the shared window: NPROC x NT slots, then NT counters, then the global counter,
 * then NPROC x NT ints read back by MPI_Rget */
static MPI_Aint off_slot(int r, int t) { return ((MPI_Aint)r * NT + t) * SLOTN * sizeof(int); }
static MPI_Aint off_counter(int t) { return off_slot(nproc, 0) + t * sizeof(int); }
static MPI_Aint off_global(void) { return off_counter(NT); }
static MPI_Aint off_rput(int r, int t) { return off_global() + sizeof(long long) + ((MPI_Aint)r * NT + t) * sizeof(int); }
/* rounded up to 64 bytes: MPICH 4.0.2 misplaces operations on MPI_Win_allocate
 * windows whose size is not a multiple of 16 (win_flavors checks odd sizes under
 * MPIX_RMA_STRICT=1) */
static MPI_Aint shared_size(void) { return (off_rput(nproc, 0) + 63) & ~(MPI_Aint)63; }

static int val(int r, int t, int it, int i) { return ((r * NT + t) * 100000 + it) * 64 + i; }

typedef struct {
    int tid;
    rma_win *w;    /* the shared window */
    int kind;      /* the kind of the private window */
    MPI_Comm comm; /* the thread's duplicate for the private window */
} targ;

static void *shared_worker(void *p)
{
    targ *a = p;
    rma_win *w = a->w;
    MPI_Win win = w->win;
    int t = a->tid, buf[SLOTN], back[SLOTN], one = 1;
    long long inc = 1, got, last = -1;
    for (int it = 0; it < iters; it++) {
        int tgt = (rank + 1 + it) % nproc;
        for (int i = 0; i < SLOTN; i++)
            buf[i] = val(rank, t, it, i);
        CHECK_OK(MPI_Put(buf, SLOTN, MPI_INT, tgt, rma_disp(w, tgt, off_slot(rank, t)), SLOTN, MPI_INT, win));
        CHECK_OK(MPI_Win_flush(tgt, win));
        CHECK_OK(MPI_Get(back, SLOTN, MPI_INT, tgt, rma_disp(w, tgt, off_slot(rank, t)), SLOTN, MPI_INT, win));
        CHECK_OK(MPI_Win_flush_local(tgt, win));
        CHECK(memcmp(back, buf, sizeof buf) == 0, "%s: thread %d iteration %d: the get after a flush does not see the put",
              rma_kind_name[w->kind], t, it);
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, tgt, rma_disp(w, tgt, off_counter(t)), 1, MPI_INT, MPI_SUM, win));
        CHECK_OK(MPI_Fetch_and_op(&inc, &got, MPI_LONG_LONG, 0, rma_disp(w, 0, off_global()), MPI_SUM, win));
        CHECK_OK(MPI_Win_flush(0, win));
        CHECK(got > last, "%s: thread %d fetched %lld after %lld", rma_kind_name[w->kind], t, got, last);
        last = got;
        MPI_Request rq;
        int mark = it, seen = -1;
        CHECK_OK(MPI_Rput(&mark, 1, MPI_INT, tgt, rma_disp(w, tgt, off_rput(rank, t)), 1, MPI_INT, win, &rq));
        CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Win_flush(tgt, win));
        CHECK_OK(MPI_Rget(&seen, 1, MPI_INT, tgt, rma_disp(w, tgt, off_rput(rank, t)), 1, MPI_INT, win, &rq));
        CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(seen == it, "%s: thread %d: MPI_Rget after MPI_Rput and a flush reads %d, want %d", rma_kind_name[w->kind],
              t, seen, it);
        if (it % 10 == 9)
            CHECK_OK(MPI_Win_flush_all(win));
    }
    return NULL;
}

static void *private_worker(void *p)
{
    targ *a = p;
    rma_win w;
    int t = a->tid, n = 256;
    rma_open(&w, a->kind, n * sizeof(int), sizeof(int), MPI_INFO_NULL, a->comm);
    CHECK_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
    int *mine = (int *)w.base;
    rma_local_begin(&w);
    for (int i = 0; i < n; i++)
        mine[i] = -1;
    rma_local_end(&w);
    CHECK_OK(MPI_Barrier(a->comm));
    int right = (rank + 1) % nproc, *buf = malloc(n * sizeof(int)), back[8];
    for (int it = 0; it < iters / 4 + 1; it++) {
        for (int i = 0; i < n; i++)
            buf[i] = val(rank, t, it, i);
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win));
        CHECK_OK(MPI_Put(buf, n - 8, MPI_INT, right, rma_disp(&w, right, 0), n - 8, MPI_INT, w.win));
        CHECK_OK(MPI_Accumulate(buf, 8, MPI_INT, right, rma_disp(&w, right, (n - 8) * sizeof(int)), 8, MPI_INT,
                                MPI_REPLACE, w.win));
        CHECK_OK(MPI_Win_flush(right, w.win));
        CHECK_OK(MPI_Get(back, 8, MPI_INT, right, rma_disp(&w, right, 0), 8, MPI_INT, w.win));
        CHECK_OK(MPI_Win_unlock(right, w.win));
        CHECK(memcmp(back, buf, sizeof back) == 0, "%s: thread %d's private window: the get reads %d, want %d",
              rma_kind_name[a->kind], t, back[0], buf[0]);
    }
    CHECK_OK(MPI_Barrier(a->comm));
    int left = (rank + nproc - 1) % nproc, last = iters / 4;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w.win));
    for (int i = 0; i < n; i++)
        CHECK(mine[i] == val(left, t, last, i < n - 8 ? i : i - (n - 8)), "%s: thread %d's private window: int %d is %d",
              rma_kind_name[a->kind], t, i, mine[i]);
    CHECK_OK(MPI_Win_unlock(rank, w.win));
    rma_close(&w);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (argc > 1)
        iters = atoi(argv[1]);
    double t0 = MPI_Wtime();
    MPI_Comm comms[NT];
    for (int t = 0; t < NT; t++)
        CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    for (int k = 0; k < RMA_NKINDS; k++) {
        rma_win w;
        rma_open(&w, k, shared_size(), 1, MPI_INFO_NULL, MPI_COMM_WORLD);
        CHECK_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        rma_local_begin(&w);
        memset(w.base, 0, shared_size());
        rma_local_end(&w);
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        pthread_t th[NT];
        targ a[NT];
        CHECK_OK(MPI_Win_lock_all(0, w.win));
        for (int t = 0; t < NT; t++) {
            a[t] = (targ){.tid = t, .w = &w, .kind = k, .comm = comms[t]};
            CHECK(pthread_create(&th[t], NULL, shared_worker, &a[t]) == 0, "pthread_create");
        }
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
        CHECK_OK(MPI_Win_flush_all(w.win));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Win_sync(w.win));
        /* the last iteration of (r, t) that targeted this rank */
        for (int r = 0; r < nproc; r++)
            for (int t = 0; t < NT; t++) {
                int last = -1, count = 0;
                for (int it = 0; it < iters; it++)
                    if ((r + 1 + it) % nproc == rank)
                        last = it, count++;
                int *slot = (int *)(w.base + off_slot(r, t)), c, m;
                memcpy(&c, w.base + off_counter(t), sizeof c);
                memcpy(&m, w.base + off_rput(r, t), sizeof m);
                for (int i = 0; i < SLOTN && last >= 0; i++)
                    CHECK(slot[i] == val(r, t, last, i), "%s: slot of rank %d thread %d: int %d is %d, want %d",
                          rma_kind_name[k], r, t, i, slot[i], val(r, t, last, i));
                CHECK(last < 0 || m == last, "%s: the Rput mark of rank %d thread %d is %d, want %d", rma_kind_name[k], r,
                      t, m, last);
                (void)count;
            }
        for (int t = 0; t < NT; t++) {
            int c, want = 0;
            memcpy(&c, w.base + off_counter(t), sizeof c);
            for (int r = 0; r < nproc; r++)
                for (int it = 0; it < iters; it++)
                    want += (r + 1 + it) % nproc == rank;
            CHECK(c == want, "%s: thread %d's counter at rank %d is %d, want %d", rma_kind_name[k], t, rank, c, want);
        }
        if (rank == 0) {
            long long g;
            memcpy(&g, w.base + off_global(), sizeof g);
            CHECK(g == (long long)nproc * NT * iters, "%s: the global counter is %lld, want %d", rma_kind_name[k], g,
                  nproc * NT * iters);
        }
        nchecks += 3;
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_OK(MPI_Win_unlock_all(w.win));
        rma_close(&w);

        /* private windows, made and freed by the threads */
        for (int t = 0; t < NT; t++)
            CHECK(pthread_create(&th[t], NULL, private_worker, &a[t]) == 0, "pthread_create");
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
        nchecks += NT;
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int t = 0; t < NT; t++)
        CHECK_OK(MPI_Comm_free(&comms[t]));
    long total;
    MPI_Reduce(&nchecks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_threads: np %d x %d threads, %d window kinds, %d iterations: %ld checks passed (%.2f s)\n", nproc, NT,
               RMA_NKINDS, iters, total, MPI_Wtime() - t0);
    CHECK_OK(MPI_Finalize());
    return 0;
}
