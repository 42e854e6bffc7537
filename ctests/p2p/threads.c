/* threads: MPI_THREAD_MULTIPLE point-to-point. Every rank runs 4 threads; thread t
 * exchanges with both neighbours on tag t, with sizes alternating between eager and
 * rendezvous, blocking and nonblocking, checking every byte. Requests are created,
 * completed and recycled concurrently by all threads. */
#include <pthread.h>
#include "p2p_util.h"

#define THREADS 4
#define ITERS 300

static int rank, size;
static int errors[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static const long sizes[] = {8, 1000, 30000, 200000};
    unsigned char *a = malloc(200000), *b = malloc(200000);
    for (int i = 0; i < ITERS; i++) {
        long n = sizes[(i + t) % 4];
        int seed = (rank * THREADS + t) * 1000 + i;
        fill(a, n, seed);
        memset(b, 0, n);
        MPI_Status st;
        if (i % 2) {
            MPI_Request rq[2];
            MPI_Irecv(b, n, MPI_BYTE, left, t, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(a, n, MPI_BYTE, right, t, MPI_COMM_WORLD, &rq[1]);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        } else {
            MPI_Sendrecv(a, n, MPI_BYTE, right, t, b, n, MPI_BYTE, left, t, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG != t || st.MPI_SOURCE != left)
                errors[t]++;
        }
        if (check(b, n, (left * THREADS + t) * 1000 + i) >= 0)
            errors[t]++;
    }
    free(a);
    free(b);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(errors[t] == 0, "thread %d: %d wrong messages", t, errors[t]);
    }
    CHECK_OK(MPI_Finalize());
    return 0;
}
