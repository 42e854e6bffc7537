/* stencil: the 5-point stencil benchmark of the scalable-endpoints paper (ICPADS'18
 * §VII, Figure 13) over MPI: a 1-D partition of the grid into tiles, THREADS threads
 * per process, each owning a subtile and exchanging its two halo rows with the
 * matching thread of the neighbouring processes (a ring over the ranks), through a
 * communicator of its own (so a VCI of its own, which MPIX_EP_SHARING maps onto the
 * network's resources).
 *
 *     stencil THREADS [ITERS [COLS [ROWS]]]      (defaults 200, 256, 64)
 *
 * Each iteration a thread posts its two halo receives and sends, waits for them and
 * updates its ROWS x COLS tile (Jacobi). Rank 0 prints
 * "stencil THREADS NP MILLION_HALO_MESSAGES_PER_SECOND SECONDS CHECKSUM": all threads'
 * halo messages over the slowest process's time between two barriers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define MAXT 64

static int rank, size, threads, iters = 200, cols = 256, rows = 64;
static MPI_Comm comms[MAXT];
static double sums[MAXT];
static pthread_barrier_t line;

static void *run(void *arg)
{
    int t = (int)(long)arg;
    int up = (rank + size - 1) % size, down = (rank + 1) % size;
    // The tile with a halo row above and below.
    double *a = calloc((size_t)(rows + 2) * cols, sizeof *a), *b = calloc((size_t)(rows + 2) * cols, sizeof *b);
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < cols; j++)
            a[i * cols + j] = rank * 1000 + t * 10 + (i + j) % 7;
    pthread_barrier_wait(&line);
    for (int it = 0; it < iters; it++) {
        MPI_Request rq[4];
        MPI_Irecv(&a[0], cols, MPI_DOUBLE, up, 1, comms[t], &rq[0]);
        MPI_Irecv(&a[(rows + 1) * cols], cols, MPI_DOUBLE, down, 0, comms[t], &rq[1]);
        MPI_Isend(&a[1 * cols], cols, MPI_DOUBLE, up, 0, comms[t], &rq[2]);
        MPI_Isend(&a[rows * cols], cols, MPI_DOUBLE, down, 1, comms[t], &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        for (int i = 1; i <= rows; i++)
            for (int j = 0; j < cols; j++) {
                double l = a[i * cols + (j + cols - 1) % cols], r = a[i * cols + (j + 1) % cols];
                b[i * cols + j] = 0.2 * (a[i * cols + j] + a[(i - 1) * cols + j] + a[(i + 1) * cols + j] + l + r);
            }
        double *x = a;
        a = b;
        b = x;
    }
    double s = 0;
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < cols; j++)
            s += a[i * cols + j];
    sums[t] = s;
    free(a);
    free(b);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: stencil THREADS [ITERS [COLS [ROWS]]]\n");
        return 2;
    }
    threads = atoi(argv[1]);
    if (argc > 2)
        iters = atoi(argv[2]);
    if (argc > 3)
        cols = atoi(argv[3]);
    if (argc > 4)
        rows = atoi(argv[4]);
    if (threads < 1 || threads > MAXT || iters < 1 || cols < 1 || rows < 1) {
        fprintf(stderr, "stencil: bad arguments\n");
        return 2;
    }
    int provided;
    MPI_Init_thread(&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < threads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_barrier_init(&line, NULL, (unsigned)threads);
    pthread_t th[MAXT];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int t = 0; t < threads; t++)
        pthread_create(&th[t], NULL, run, (void *)(long)t);
    for (int t = 0; t < threads; t++)
        pthread_join(th[t], NULL);
    double el = MPI_Wtime() - t0, worst = 0, sum = 0, all = 0;
    for (int t = 0; t < threads; t++)
        sum += sums[t];
    MPI_Reduce(&el, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stencil %d %d %.4f %.3f %.6e\n", threads, size, 2.0 * threads * size * iters / worst / 1e6, worst, all);
    for (int t = 0; t < threads; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
