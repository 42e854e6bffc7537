/* The point-to-point program of the ICS'20 paper's Figure 9: rank 0 sends
 * synchronously on comm1, then on comm2; rank 1 posts the comm1 receive on one thread,
 * then only its other thread waits, on comm2. Rank 0's first MPI_Ssend can complete
 * only if that wait also progresses comm1's VCI: per-VCI progress alone deadlocks,
 * global progress every MPIX_GLOBAL_PROGRESS_INTERVAL empty polls does not.
 *
 * argv[1] says how thread 1 waits on comm2: "wait" (MPI_Wait, the paper's), "test" (an
 * MPI_Test loop) or "iprobe" (an MPI_Iprobe loop, then MPI_Recv). The loops must make
 * global progress too: a thread testing on one VCI is the only one in MPI, and the
 * standard's progress rule still holds for the other. */
#include <pthread.h>
#include "mpix_test.h"

static MPI_Comm comm1, comm2;
static pthread_barrier_t barrier;
static MPI_Request req1;
static int got1 = -1, got2 = -1;
static const char *how = "wait";

static void *thread0(void *arg)
{
    (void)arg;
    MPI_Irecv(&got1, 1, MPI_INT, 0, 0, comm1, &req1);
    pthread_barrier_wait(&barrier); /* comm1's receive is posted */
    pthread_barrier_wait(&barrier); /* thread 1 finished waiting on comm2 */
    MPI_Wait(&req1, MPI_STATUS_IGNORE);
    return NULL;
}

static void *thread1(void *arg)
{
    (void)arg;
    MPI_Request req2;
    int flag = 0;
    pthread_barrier_wait(&barrier);
    if (strcmp(how, "iprobe") == 0) {
        while (!flag)
            CHECK_OK(MPI_Iprobe(0, 0, comm2, &flag, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Recv(&got2, 1, MPI_INT, 0, 0, comm2, MPI_STATUS_IGNORE));
    } else {
        CHECK_OK(MPI_Irecv(&got2, 1, MPI_INT, 0, 0, comm2, &req2));
        if (strcmp(how, "test") == 0)
            while (!flag)
                CHECK_OK(MPI_Test(&req2, &flag, MPI_STATUS_IGNORE));
        else
            CHECK_OK(MPI_Wait(&req2, MPI_STATUS_IGNORE));
    }
    pthread_barrier_wait(&barrier);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1)
        how = argv[1];
    CHECK(strcmp(how, "wait") == 0 || strcmp(how, "test") == 0 || strcmp(how, "iprobe") == 0,
          "unknown mode %s (wait, test or iprobe)", how);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm1);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm2);
    if (rank == 0) {
        int one = 1, two = 2;
        MPI_Ssend(&one, 1, MPI_INT, 1, 0, comm1);
        MPI_Ssend(&two, 1, MPI_INT, 1, 0, comm2);
    } else if (rank == 1) {
        pthread_t t0, t1;
        pthread_barrier_init(&barrier, NULL, 2);
        pthread_create(&t0, NULL, thread0, NULL);
        pthread_create(&t1, NULL, thread1, NULL);
        pthread_join(t0, NULL);
        pthread_join(t1, NULL);
        CHECK(got1 == 1 && got2 == 2, "received %d and %d", got1, got2);
    }
    MPI_Comm_free(&comm1);
    MPI_Comm_free(&comm2);
    MPI_Finalize();
    if (rank == 0)
        printf("figure 9 completed (%s)\n", how);
    return 0;
}
