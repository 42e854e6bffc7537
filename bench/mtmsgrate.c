/* mtmsgrate: multithreaded 8-byte MPI_Isend/MPI_Irecv message rate in the shape of
 * ICS'20 Figures 10 and 12 (Zambre et al.).
 *
 *     mtmsgrate MODE THREADS LEVEL [WINDOWS [WINDOW]]
 *
 * MODE       everywhere  one thread per process (run THREADS*2 processes, or 1)
 *            ser_comm    THREADS threads per process, all on MPI_COMM_WORLD (tag = thread)
 *            par_comm    a communicator (MPI_Comm_dup) per thread
 *            par_comm_st par_comm with the hint mpix_assert_single_thread: mpix then
 *                        skips the VCI locks (Figure 12's "no locks"); other
 *                        libraries ignore the hint
 *            endpoints   an endpoint (MPIX_Comm_create_endpoints) per thread; mpix only
 * LEVEL      single or multiple: the level asked of MPI_Init_thread (single only with
 *            one thread)
 * WINDOWS    windows per thread (default 3000), WINDOW messages each (default 64)
 *
 * With 2+ processes, stream i runs from a thread of the lower half of the ranks to
 * the matching thread of the upper half: the sender posts WINDOW Isends, the receiver
 * WINDOW Irecvs, both Waitall, then the receiver returns a zero-byte acknowledgement
 * (osu_mbw_mr style). With one process each thread sends to itself (a self-loop:
 * Irecv and Isend windows on the same rank), which isolates the library's software
 * contention from how many cores the machine has.
 *
 * Rank 0 prints "mtrate MODE THREADS LEVEL NP MILLION_MESSAGES_PER_SECOND": all
 * streams' messages over the slowest process's time between two barriers, after 10
 * warm-up windows. Modes a library does not offer print nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define MAXT 64
#define SIZE 8

static int rank, size, threads, windows = 3000, window = 64, self_loop;
static const char *mode;
static MPI_Comm comms[MAXT];
static pthread_barrier_t start_line;
static double t_start, t_end;

static void run_windows(MPI_Comm c, int peer, int tag, int sender, long count, char *buf, MPI_Request *rq)
{
    for (long i = 0; i < count; i++) {
        if (self_loop) {
            for (int w = 0; w < window; w++)
                MPI_Irecv(buf + (window + w) * SIZE, SIZE, MPI_BYTE, peer, tag, c, &rq[w]);
            for (int w = 0; w < window; w++)
                MPI_Isend(buf + w * SIZE, SIZE, MPI_BYTE, peer, tag, c, &rq[window + w]);
            MPI_Waitall(2 * window, rq, MPI_STATUSES_IGNORE);
        } else if (sender) {
            for (int w = 0; w < window; w++)
                MPI_Isend(buf + w * SIZE, SIZE, MPI_BYTE, peer, tag, c, &rq[w]);
            MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, tag, c, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < window; w++)
                MPI_Irecv(buf + w * SIZE, SIZE, MPI_BYTE, peer, tag, c, &rq[w]);
            MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, peer, tag, c);
        }
    }
}

/* stream is one thread's communicator, peer and tag. */
struct stream {
    int id;
};

static void *worker(void *arg)
{
    int id = ((struct stream *)arg)->id;
    MPI_Comm c = comms[id];
    int half = size / 2, sender = rank < half || self_loop;
    int peer = self_loop ? 0 : (sender ? rank + half : rank - half), tag = id;
    if (strcmp(mode, "endpoints") == 0) {
        int r, n;
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &n);
        /* endpoint i of process p pairs with endpoint i of the partner process */
        peer = self_loop ? r : (sender ? r + n / 2 : r - n / 2);
        tag = 0;
    }
    char *buf = calloc(2 * window, SIZE);
    MPI_Request *rq = malloc(2 * window * sizeof *rq);
    run_windows(c, peer, tag, sender, 10, buf, rq);
    pthread_barrier_wait(&start_line);
    if (id == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        t_start = MPI_Wtime();
    }
    pthread_barrier_wait(&start_line);
    run_windows(c, peer, tag, sender, windows, buf, rq);
    pthread_barrier_wait(&start_line);
    if (id == 0)
        t_end = MPI_Wtime();
    free(buf);
    free(rq);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mtmsgrate MODE THREADS LEVEL [WINDOWS [WINDOW]]\n");
        return 2;
    }
    mode = argv[1];
    threads = atoi(argv[2]);
    int want = strcmp(argv[3], "single") == 0 ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
    if (argc > 4)
        windows = atoi(argv[4]);
    if (argc > 5)
        window = atoi(argv[5]);
    if (threads < 1 || threads > MAXT || (want == MPI_THREAD_SINGLE && threads > 1)) {
        fprintf(stderr, "mtmsgrate: bad thread count %d for level %s\n", threads, argv[3]);
        return 2;
    }
    int provided;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    self_loop = size == 1;
    if (!self_loop && size % 2) {
        if (rank == 0)
            fprintf(stderr, "mtmsgrate: needs 1 or an even number of processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (threads > 1 && provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "mtmsgrate: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int supported = 1;
    if (strcmp(mode, "everywhere") == 0 || strcmp(mode, "ser_comm") == 0) {
        for (int i = 0; i < threads; i++)
            comms[i] = MPI_COMM_WORLD;
    } else if (strcmp(mode, "par_comm") == 0) {
        for (int i = 0; i < threads; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    } else if (strcmp(mode, "par_comm_st") == 0) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpix_assert_single_thread", "true");
        for (int i = 0; i < threads; i++)
            MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comms[i]);
        MPI_Info_free(&info);
    } else if (strcmp(mode, "endpoints") == 0) {
#ifdef MPIX_HAVE_ENDPOINTS
        MPIX_Comm_create_endpoints(MPI_COMM_WORLD, threads, MPI_INFO_NULL, comms);
#else
        supported = 0;
#endif
    } else {
        if (rank == 0)
            fprintf(stderr, "mtmsgrate: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (supported) {
        pthread_t th[MAXT];
        struct stream st[MAXT];
        pthread_barrier_init(&start_line, NULL, threads);
        for (int i = 1; i < threads; i++) {
            st[i].id = i;
            pthread_create(&th[i], NULL, worker, &st[i]);
        }
        st[0].id = 0;
        worker(&st[0]); /* the main thread is stream 0 (MPI_THREAD_SINGLE needs it) */
        for (int i = 1; i < threads; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&start_line);
        double secs = t_end - t_start, slowest = 0;
        MPI_Reduce(&secs, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        long streams = self_loop ? threads : (long)threads * size / 2;
        if (rank == 0)
            printf("mtrate %s %d %s %d %.4f\n", mode, threads, argv[3], size,
                   (double)streams * windows * window / slowest / 1e6);
        if (strncmp(mode, "par_comm", 8) == 0 || strcmp(mode, "endpoints") == 0)
            for (int i = 0; i < threads; i++)
                MPI_Comm_free(&comms[i]);
    }
    MPI_Finalize();
    return 0;
}
