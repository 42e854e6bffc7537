/* Many threads per process (oversubscribed): a ring of messages through every rank,
 * a wildcard gather to rank 0, barrier, bcast and allreduce.  Usage: tc_scale THREADS. */
#include <omp.h>
#include "mpix_test.h"
#include <mpix.h>

int main(int argc, char **argv)
{
    int provided, wrank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int nt = argc > 1 ? atoi(argv[1]) : 64;
    MPI_Comm tc;
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, nt, &tc));
#pragma omp parallel num_threads(nt)
    {
        int rank, size, v, sum;
        CHECK_OK(MPIX_Threadcomm_start(tc));
        MPI_Comm_rank(tc, &rank);
        MPI_Comm_size(tc, &size);
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        MPI_Status st;
        CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, next, rank, &v, 1, MPI_INT, prev, prev, tc, &st));
        CHECK(v == prev && st.MPI_SOURCE == prev && st.MPI_TAG == prev, "ring got %d", v);
        if (rank == 0) {
            long total = 0;
            for (int i = 1; i < size; i++) {
                CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, tc, &st));
                CHECK(st.MPI_SOURCE == v && st.MPI_TAG == v, "wildcard");
                total += v;
            }
            CHECK(total == (long)size * (size - 1) / 2, "wildcard total %ld", total);
        } else {
            CHECK_OK(MPI_Send(&rank, 1, MPI_INT, 0, rank, tc));
        }
        CHECK_OK(MPI_Barrier(tc));
        v = rank == size - 1 ? 4242 : 0;
        CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, size - 1, tc));
        CHECK(v == 4242, "bcast %d", v);
        CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, tc));
        CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
        CHECK_OK(MPIX_Threadcomm_finish(tc));
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    if (wrank == 0)
        printf("tc_scale ok: %d threads per process\n", nt);
    MPI_Finalize();
    return 0;
}
