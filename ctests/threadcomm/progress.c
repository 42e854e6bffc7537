/* Progress while a thread waits elsewhere (MPI's progress rule on a threadcomm): a
 * thread with a receive posted, or freed with MPI_Request_free, keeps taking its
 * messages while it waits in a barrier (C's or Go's), in the finish, or in Go's
 * engine, so that a sender that waits for that message before it can arrive there
 * completes:
 *   0. MPI_Irecv, MPI_Barrier, MPI_Wait against a synchronous sender of this process;
 *   1. MPI_Irecv freed, then the finish, against a synchronous sender of this
 *      process, with the data landing;
 *   2. as 0 with a 240 KB message from another process's thread (a rendezvous);
 *   3. as 1 with that message;
 *   4. as 3 with two such messages (a freed receive's rendezvous waits inside the
 *      thread's drain while the other receive is still posted).
 * Each case runs three regions. Usage: tc_progress THREADS */
#include <omp.h>
#include "mpix_test.h"
#include <mpix.h>

#define BIG 60000
#define SENT ((int)0xA5A5A5A5)
static int landed[2][BIG + 1]; /* a message and one guard word each */

/* word is what word i of message m of a round carries. */
static int word(int i, int m, int round) { return i + round + m * 1000003; }

static void one_case(MPI_Comm tc, int kind, int round)
{
    int rank, size;
    CHECK_OK(MPI_Comm_rank(tc, &rank));
    CHECK_OK(MPI_Comm_size(tc, &size));
    int remote = kind >= 2, freed = kind % 2 == 1 || kind == 4, msgs = kind == 4 ? 2 : 1;
    int src = remote ? size - 1 : 1; /* a thread of the last process, or of this one */
    int n = remote ? BIG : 1;
    static int out[BIG];
    if (rank == 0) {
        MPI_Request q;
        for (int m = 0; m < msgs; m++)
            for (int i = 0; i <= n; i++)
                landed[m][i] = SENT;
        CHECK_OK(MPI_Irecv(landed[0], n, MPI_INT, src, 5, tc, &q));
        if (freed) {
            CHECK_OK(MPI_Request_free(&q));
            if (msgs == 2) {
                CHECK_OK(MPI_Irecv(landed[1], n, MPI_INT, src, 6, tc, &q));
                CHECK_OK(MPI_Request_free(&q));
            }
        } else {
            CHECK_OK(MPI_Barrier(tc));
            CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
    } else if (rank == src) {
        for (int m = 0; m < msgs; m++) {
            for (int i = 0; i < n; i++)
                out[i] = word(i, m, round);
            if (remote)
                CHECK_OK(MPI_Send(out, n, MPI_INT, 0, 5 + m, tc));
            else
                CHECK_OK(MPI_Ssend(out, n, MPI_INT, 0, 5, tc));
        }
        if (!freed)
            CHECK_OK(MPI_Barrier(tc));
    } else if (!freed) {
        CHECK_OK(MPI_Barrier(tc));
    }
    CHECK_OK(MPIX_Threadcomm_finish(tc));
    /* Every word of every message, and the word after it untouched. */
    for (int m = 0; rank == 0 && m < msgs; m++) {
        for (int i = 0; i < n; i++)
            CHECK(landed[m][i] == word(i, m, round), "case %d round %d message %d word %d: got %d, want %d", kind,
                  round, m, i, landed[m][i], word(i, m, round));
        CHECK(landed[m][n] == SENT, "case %d round %d message %d: written past its %d words", kind, round, m, n);
    }
}

int main(int argc, char **argv)
{
    int provided, nprocs, me;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int per = argc > 1 ? atoi(argv[1]) : 2;
    CHECK(per >= 2, "at least 2 threads per process");
    MPI_Comm tc;
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, per, &tc));
    for (int kind = 0; kind < 5; kind++) {
        if (kind >= 2 && nprocs == 1)
            break; /* needs another process */
        for (int round = 0; round < 3; round++) {
#pragma omp parallel num_threads(per)
            {
                CHECK_OK(MPIX_Threadcomm_start(tc));
                one_case(tc, kind, round);
            }
        }
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    if (me == 0)
        printf("tc_progress ok\n");
    MPI_Finalize();
    return 0;
}
