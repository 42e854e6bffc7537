/* Bad addresses on a thread communicator's C paths (threadcomm/) come back as
 * MPICH's classes under MPI_ERRORS_RETURN, never as a crash: a NULL buffer with a
 * positive count of a predefined datatype (MPI_ERR_BUFFER) in point-to-point calls and
 * in the collectives where the buffer is significant (every thread passes the same
 * bad argument, so every thread fails), a NULL status (MPI_ERR_ARG). A NULL receive
 * buffer at a gather's non-root stays valid. Usage: tc_badinput THREADS */
#include <omp.h>
#include "mpix_test.h"
#include <mpix.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int nt = argc > 1 ? atoi(argv[1]) : 4;
    MPI_Comm tc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &tc));
#pragma omp parallel num_threads(nt)
    {
        int rank, size, x = 1, y = 0;
        MPI_Request req = MPI_REQUEST_NULL;
        CHECK_OK(MPIX_Threadcomm_start(tc));
        MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN);
        CHECK_OK(MPI_Comm_rank(tc, &rank));
        CHECK_OK(MPI_Comm_size(tc, &size));
        int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
        CHECK_CLASS(MPI_Send(NULL, 4, MPI_INT, next, 0, tc), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Isend(NULL, 4, MPI_INT, next, 0, tc, &req), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Ssend(NULL, 4, MPI_INT, next, 0, tc), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Recv(NULL, 4, MPI_INT, prev, 0, tc, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Irecv(NULL, 4, MPI_INT, prev, 0, tc, &req), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Sendrecv(&x, 1, MPI_INT, next, 0, NULL, 1, MPI_INT, prev, 0, tc, MPI_STATUS_IGNORE),
                    MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Recv(&y, 1, MPI_INT, prev, 0, tc, NULL), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Probe(prev, 0, tc, NULL), MPI_ERR_ARG);
        CHECK(req == MPI_REQUEST_NULL, "a failed call set the request");
        CHECK_CLASS(MPI_Bcast(NULL, 4, MPI_INT, 0, tc), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Allreduce(NULL, &y, 1, MPI_INT, MPI_SUM, tc), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Allgather(&x, 1, MPI_INT, NULL, 1, MPI_INT, tc), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Alltoall(NULL, 1, MPI_INT, &y, 1, MPI_INT, tc), MPI_ERR_BUFFER);
        CHECK_CLASS(MPI_Scan(&x, NULL, 1, MPI_INT, MPI_SUM, tc), MPI_ERR_BUFFER);
        /* Valid: what still works after the errors. */
        int *all = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
        CHECK_OK(MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, 0, tc));
        if (rank == 0) {
            for (int i = 0; i < size; i++)
                CHECK(all[i] == 1, "gather block %d is %d", i, all[i]);
            free(all);
        }
        CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, next, 1, &y, 1, MPI_INT, prev, 1, tc, MPI_STATUS_IGNORE));
        CHECK(y == 1, "sendrecv got %d", y);
        CHECK_OK(MPI_Barrier(tc));
        CHECK_OK(MPIX_Threadcomm_finish(tc));
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    printf("tc_badinput ok: %d threads\n", nt);
    MPI_Finalize();
    return 0;
}
