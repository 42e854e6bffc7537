/* gatile: the global-array DGEMM tile benchmark of the scalable-endpoints paper
 * (ICPADS'18 §VII, after NWChem): the matrices A, B and C = A x B live on a server
 * process (rank 0) and the client (rank 1) computes C tile by tile with THREADS threads,
 * each fetching the tiles of A and B it needs with MPI_Get and writing its C tile back
 * with MPI_Put, through a window of its own on a communicator of its own (so a VCI of
 * its own, which MPIX_EP_SHARING maps onto the network's resources).
 *
 *     gatile THREADS [N [TILE]]      (defaults 256 and 32; TILE divides N)
 *
 * Rank 0 checks C against its own product and prints
 * "gatile THREADS TILES_PER_SECOND MILLION_GETS_AND_PUTS_PER_SECOND SECONDS": tiles of
 * C over the client's time between two barriers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define MAXT 64

static int rank, threads, n = 256, tile = 32;
static double *A, *B, *C; // on the server; NULL on the client
static MPI_Comm comms[MAXT];
static MPI_Win wins[MAXT];

static double a_at(int i, int j) { return (double)((i + 2 * j) % 5) - 2; }
static double b_at(int i, int j) { return (double)((3 * i + j) % 7) - 3; }

// Each window exposes A, then B, then C (n*n doubles each) on the server.
static void *client(void *arg)
{
    int t = (int)(long)arg, tiles = n / tile;
    double *ta = malloc(sizeof(double) * tile * tile), *tb = malloc(sizeof(double) * tile * tile),
           *tc = malloc(sizeof(double) * tile * tile);
    MPI_Datatype tt;
    MPI_Type_vector(tile, tile, n, MPI_DOUBLE, &tt);
    MPI_Type_commit(&tt);
    MPI_Win_lock_all(0, wins[t]);
    for (int id = t; id < tiles * tiles; id += threads) {
        int ti = id / tiles, tj = id % tiles;
        memset(tc, 0, sizeof(double) * tile * tile);
        for (int tk = 0; tk < tiles; tk++) {
            MPI_Get(ta, tile * tile, MPI_DOUBLE, 0, (MPI_Aint)(ti * tile) * n + tk * tile, 1, tt, wins[t]);
            MPI_Get(tb, tile * tile, MPI_DOUBLE, 0, (MPI_Aint)n * n + (MPI_Aint)(tk * tile) * n + tj * tile, 1,
                    tt, wins[t]);
            MPI_Win_flush(0, wins[t]);
            for (int i = 0; i < tile; i++)
                for (int k = 0; k < tile; k++) {
                    double aik = ta[i * tile + k];
                    for (int j = 0; j < tile; j++)
                        tc[i * tile + j] += aik * tb[k * tile + j];
                }
        }
        MPI_Put(tc, tile * tile, MPI_DOUBLE, 0, 2 * (MPI_Aint)n * n + (MPI_Aint)(ti * tile) * n + tj * tile, 1, tt,
                wins[t]);
        MPI_Win_flush(0, wins[t]);
    }
    MPI_Win_unlock_all(wins[t]);
    MPI_Type_free(&tt);
    free(ta);
    free(tb);
    free(tc);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gatile THREADS [N [TILE]]\n");
        return 2;
    }
    threads = atoi(argv[1]);
    if (argc > 2)
        n = atoi(argv[2]);
    if (argc > 3)
        tile = atoi(argv[3]);
    if (threads < 1 || threads > MAXT || n < 1 || tile < 1 || n % tile) {
        fprintf(stderr, "gatile: bad arguments\n");
        return 2;
    }
    int provided, size;
    MPI_Init_thread(&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "gatile: run with 2 processes (server and client)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Aint bytes = rank == 0 ? (MPI_Aint)sizeof(double) * 3 * n * n : 0;
    double *mem = NULL;
    if (rank == 0) {
        MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem);
        A = mem, B = mem + (size_t)n * n, C = mem + 2 * (size_t)n * n;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                A[i * n + j] = a_at(i, j);
                B[i * n + j] = b_at(i, j);
                C[i * n + j] = -1;
            }
    }
    for (int t = 0; t < threads; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
        MPI_Win_create(mem, bytes, sizeof(double), MPI_INFO_NULL, comms[t], &wins[t]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 1) {
        pthread_t th[MAXT];
        for (int t = 0; t < threads; t++)
            pthread_create(&th[t], NULL, client, (void *)(long)t);
        for (int t = 0; t < threads; t++)
            pthread_join(th[t], NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double el = MPI_Wtime() - t0;
    for (int t = 0; t < threads; t++) {
        MPI_Win_free(&wins[t]);
        MPI_Comm_free(&comms[t]);
    }
    int bad = 0;
    if (rank == 0) {
        for (int i = 0; i < n && !bad; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++)
                    s += a_at(i, k) * b_at(k, j);
                if (C[i * n + j] != s) {
                    fprintf(stderr, "gatile: C[%d][%d] = %g, want %g\n", i, j, C[i * n + j], s);
                    bad = 1;
                    break;
                }
            }
        int tiles = (n / tile) * (n / tile);
        double ops = (double)tiles * (2.0 * (n / tile) + 1); // gets and puts
        if (!bad)
            printf("gatile %d %.1f %.4f %.3f\n", threads, tiles / el, ops / el / 1e6, el);
        MPI_Free_mem(mem);
    }
    MPI_Finalize();
    return bad;
}
