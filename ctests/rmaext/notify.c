/* Completion notification at the target ([RMA] sec. 5.1; include/mpix.h 3.5): every
 * other rank puts a block into rank 0's window with MPIX_Put_notify, one id per
 * origin; rank 0 takes the arrivals with MPIX_Win_wait_notify, MPIX_Win_test_notify
 * and MPI_Waitall on MPIX_Win_iwait_notify requests, and finds the data in place each
 * time, with no flush and no message from the origins. Then MPIX_Get_notify: rank 0
 * learns that an origin has read its block before it overwrites it. And the errors:
 * ids out of range, a window without notifications, MPI_ERR_RMA_SYNC outside an
 * epoch. Both constructors; argv[1] is the number of rounds. */
#include <mpi.h>
#include <mpix.h>
#include "mpix_test.h"

#define BLOCK 64

static void round_trip(MPI_Win win, long *mem, int rank, int size, int round, int how)
{
    if (rank != 0) {
        long data[BLOCK];
        for (int i = 0; i < BLOCK; i++)
            data[i] = (long)round * 1000000 + rank * 1000 + i;
        CHECK_OK(MPIX_Put_notify(data, BLOCK, MPI_LONG, 0, (MPI_Aint)rank * BLOCK, BLOCK, MPI_LONG, win, rank));
        CHECK_OK(MPI_Win_flush(0, win)); /* (the origin's buffer is free before this anyway) */
        return;
    }
    MPI_Request reqs[64];
    int pending = size - 1;
    if (how == 2)
        for (int r = 1; r < size; r++)
            CHECK_OK(MPIX_Win_iwait_notify(win, r, &reqs[r - 1]));
    for (int r = 1; r < size; r++) {
        if (how == 0) {
            CHECK_OK(MPIX_Win_wait_notify(win, r));
        } else if (how == 1) {
            int flag = 0;
            while (!flag)
                CHECK_OK(MPIX_Win_test_notify(win, r, &flag));
        }
    }
    if (how == 2)
        CHECK_OK(MPI_Waitall(pending, reqs, MPI_STATUSES_IGNORE));
    for (int r = 1; r < size; r++)
        for (int i = 0; i < BLOCK; i++)
            CHECK(mem[r * BLOCK + i] == (long)round * 1000000 + r * 1000 + i,
                  "round %d how %d: rank %d's element %d is %ld before its notification", round, how, r, i,
                  mem[r * BLOCK + i]);
    /* one arrival each: nothing more to take */
    for (int r = 1; r < size; r++) {
        int flag = 1;
        CHECK_OK(MPIX_Win_test_notify(win, r, &flag));
        CHECK(!flag, "a second arrival for id %d", r);
    }
}

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int ctor = 0; ctor < 2; ctor++) {
        MPI_Win win;
        long *mem = NULL;
        MPI_Info info;
        CHECK_OK(MPI_Info_create(&info));
        CHECK_OK(MPI_Info_set(info, MPIX_INFO_WIN_NOTIFY_IDS, "65"));
        MPI_Aint bytes = (MPI_Aint)size * BLOCK * sizeof(long);
        if (ctor == 0) {
            CHECK_OK(MPIX_Win_allocate_notify(bytes, sizeof(long), info, MPI_COMM_WORLD, &mem, &win));
        } else {
            CHECK_OK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem));
            CHECK_OK(MPIX_Win_create_notify(mem, bytes, sizeof(long), info, MPI_COMM_WORLD, &win));
        }
        CHECK_OK(MPI_Info_free(&info));
        CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        MPI_Info used;
        char val[32];
        int flag = 0, len = sizeof val - 1;
        CHECK_OK(MPI_Win_get_info(win, &used));
        CHECK_OK(MPI_Info_get_string(used, MPIX_INFO_WIN_NOTIFY_IDS, &len, val, &flag));
        CHECK(flag && atoi(val) == 65, "mpix_win_notify_ids reported as %s", flag ? val : "(absent)");
        CHECK_OK(MPI_Info_free(&used));
        memset(mem, 0, bytes);
        MPI_Barrier(MPI_COMM_WORLD);

        /* outside an epoch */
        long one = 1;
        if (size > 1)
            CHECK_CLASS(MPIX_Put_notify(&one, 1, MPI_LONG, (rank + 1) % size, 0, 1, MPI_LONG, win, 0), MPI_ERR_RMA_SYNC);

        CHECK_OK(MPI_Win_lock_all(0, win));
        CHECK_CLASS(MPIX_Put_notify(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win, 65), MPI_ERR_ARG);
        CHECK_CLASS(MPIX_Put_notify(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win, -1), MPI_ERR_ARG);
        CHECK_CLASS(MPIX_Win_wait_notify(win, 65), MPI_ERR_ARG);
        for (int round = 0; round < rounds; round++) {
            round_trip(win, mem, rank, size, round, round % 3);
            MPI_Barrier(MPI_COMM_WORLD); /* rank 0 has checked: the next round may overwrite */
        }
        /* MPIX_Get_notify: rank 0 hears that each origin has read its block */
        if (rank != 0) {
            long got[BLOCK];
            CHECK_OK(MPIX_Get_notify(got, BLOCK, MPI_LONG, 0, (MPI_Aint)rank * BLOCK, BLOCK, MPI_LONG, win, rank));
            CHECK_OK(MPI_Win_flush(0, win));
            for (int i = 0; i < BLOCK; i++)
                CHECK(got[i] == (long)(rounds - 1) * 1000000 + rank * 1000 + i, "get_notify read %ld", got[i]);
        } else {
            for (int r = 1; r < size; r++) {
                CHECK_OK(MPIX_Win_wait_notify(win, r));
                mem[r * BLOCK] = -1; /* the origin has read it: reuse the memory */
            }
        }
        CHECK_OK(MPI_Win_unlock_all(win));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            /* a pending MPIX_Win_iwait_notify keeps the window: free refuses until it completes */
            MPI_Request req;
            CHECK_OK(MPIX_Win_iwait_notify(win, 0, &req));
            CHECK_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
            CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            CHECK_OK(MPIX_Put_notify(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win, 0));
            CHECK_OK(MPI_Win_unlock(0, win));
            CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK(mem[0] == 1, "the self put_notify left %ld", mem[0]);
        }
        CHECK_OK(MPI_Win_free(&win));
        if (ctor == 1)
            CHECK_OK(MPI_Free_mem(mem));
    }
    /* a window without notifications */
    MPI_Win plain;
    long *pm;
    CHECK_OK(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &pm, &plain));
    CHECK_OK(MPI_Win_set_errhandler(plain, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock_all(0, plain));
    long one = 1;
    CHECK_CLASS(MPIX_Put_notify(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, plain, 0), MPI_ERR_RMA_FLAVOR);
    int flag;
    CHECK_CLASS(MPIX_Win_test_notify(plain, 0, &flag), MPI_ERR_RMA_FLAVOR);
    CHECK_OK(MPI_Win_unlock_all(plain));
    CHECK_OK(MPI_Win_free(&plain));
    if (rank == 0)
        printf("notify: np %d, %d rounds of put_notify (wait, test, iwait) and get_notify on both constructors: PASS\n",
               size, rounds);
    MPI_Finalize();
    return 0;
}
