/* ring: a token travels around all ranks with MPI_Send/MPI_Recv, and every rank then
 * exchanges 4 MiB with its neighbours with MPI_Sendrecv (a rendezvous through a single
 * copy on one node), checking the data. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, token;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    if (rank == 0) {
        token = 1;
        MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("ring: the token came back to rank 0 after visiting %d ranks\n", token);
    } else {
        MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token++;
        MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    }
    const int n = 1 << 20;
    int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        out[i] = rank * n + i;
    double t0 = MPI_Wtime();
    MPI_Sendrecv(out, n, MPI_INT, right, 1, in, n, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t = MPI_Wtime() - t0;
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= in[i] == left * n + i;
    printf("ring: rank %d received 4 MiB from rank %d in %.2f ms: %s\n", rank, left, t * 1e3, ok ? "correct" : "WRONG");
    free(out);
    free(in);
    MPI_Finalize();
    return !ok;
}
