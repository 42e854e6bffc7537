/* MPIX_Comm_create_endpoints (MPI Endpoints proposal): process p asks for 1 + p % 3
 * endpoints, so counts differ between processes. One thread per endpoint checks its
 * rank (ordered by process, then endpoint), point-to-point with every other endpoint
 * (specific sources, then MPI_ANY_SOURCE with the status telling endpoints apart),
 * and collectives over all endpoints. Also: bad arguments, the MPI_ spelling, and
 * that constructors on an endpoints communicator fail cleanly. */
#include <pthread.h>
#include "mpix_test.h"

static int nep, total, first; /* local endpoints, all endpoints, my first rank */

static void *worker(void *p)
{
    MPI_Comm ep = *(MPI_Comm *)p;
    int r, n;
    CHECK_OK(MPI_Comm_rank(ep, &r));
    CHECK_OK(MPI_Comm_size(ep, &n));
    CHECK(n == total, "size %d, want %d", n, total);
    CHECK(r >= first && r < first + nep, "rank %d outside [%d, %d)", r, first, first + nep);

    /* Every endpoint sends its rank (tag = its rank) to every other endpoint. */
    int *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    MPI_Request *rq = malloc(2 * n * sizeof *rq);
    int k = 0;
    for (int s = 0; s < n; s++)
        if (s != r)
            CHECK_OK(MPI_Irecv(&in[s], 1, MPI_INT, s, s, ep, &rq[k++]));
    for (int d = 0; d < n; d++)
        if (d != r) {
            out[d] = r * 1000 + d;
            CHECK_OK(MPI_Isend(&out[d], 1, MPI_INT, d, r, ep, &rq[k++]));
        }
    CHECK_OK(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE));
    for (int s = 0; s < n; s++)
        if (s != r)
            CHECK(in[s] == s * 1000 + r, "endpoint %d from %d: got %d", r, s, in[s]);

    /* MPI_ANY_SOURCE: the status names the sending endpoint. */
    CHECK_OK(MPI_Barrier(ep));
    int seen = 0;
    for (int d = 0; d < n; d++)
        if (d != r)
            CHECK_OK(MPI_Send(&r, 1, MPI_INT, d, 7, ep));
    for (int i = 0; i < n - 1; i++) {
        int v;
        MPI_Status st;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, ep, &st));
        CHECK(st.MPI_SOURCE == v && v != r, "status source %d, sender says %d", st.MPI_SOURCE, v);
        seen++;
    }
    CHECK(seen == n - 1, "seen %d", seen);

    /* Collectives over all endpoints. */
    int sum = -1;
    CHECK_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, ep));
    CHECK(sum == n * (n - 1) / 2, "allreduce %d", sum);
    int root = n - 1, b = r == root ? 4242 : -1;
    CHECK_OK(MPI_Bcast(&b, 1, MPI_INT, root, ep));
    CHECK(b == 4242, "bcast %d", b);
    CHECK_OK(MPI_Allgather(&r, 1, MPI_INT, in, 1, MPI_INT, ep));
    for (int i = 0; i < n; i++)
        CHECK(in[i] == i, "allgather[%d] = %d", i, in[i]);
    CHECK_OK(MPI_Barrier(ep));
    free(in);
    free(out);
    free(rq);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    nep = 1 + rank % 3;
    total = first = 0;
    for (int p = 0; p < size; p++) {
        if (p == rank)
            first = total;
        total += 1 + p % 3;
    }

    MPI_Comm eps[3];
    CHECK_CLASS(MPIX_Comm_create_endpoints(MPI_COMM_WORLD, 0, MPI_INFO_NULL, eps), MPI_ERR_ARG);
    CHECK_OK(MPIX_Comm_create_endpoints(MPI_COMM_WORLD, nep, MPI_INFO_NULL, eps));
    pthread_t th[3];
    for (int i = 0; i < nep; i++)
        pthread_create(&th[i], NULL, worker, &eps[i]);
    for (int i = 0; i < nep; i++)
        pthread_join(th[i], NULL);

    /* Endpoints inherit the parent's error handler; constructors fail cleanly. */
    MPI_Comm d;
    CHECK_CLASS(MPI_Comm_dup(eps[0], &d), MPI_ERR_COMM);
    for (int i = 0; i < nep; i++)
        CHECK_OK(MPI_Comm_free(&eps[i]));

    /* The spelling of the threadcomm paper, one endpoint each: a plain duplicate. */
    MPI_Comm one;
    CHECK_OK(MPI_Comm_create_endpoints(MPI_COMM_WORLD, 1, MPI_INFO_NULL, &one));
    int r, n, v = rank, w = -1;
    MPI_Comm_rank(one, &r);
    MPI_Comm_size(one, &n);
    CHECK(r == rank && n == size, "one endpoint each: rank %d size %d", r, n);
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % n, 0, &w, 1, MPI_INT, (r - 1 + n) % n, 0, one, MPI_STATUS_IGNORE));
    CHECK(w == (rank - 1 + size) % size, "ring got %d", w);
    CHECK_OK(MPI_Comm_free(&one));
    MPI_Finalize();
    if (rank == 0)
        printf("endpoints: %d endpoints over %d processes\n", total, size);
    return 0;
}
