/* threads: partitioned communication driven by OpenMP threads (MPI_THREAD_MULTIPLE).
 * Team size T = omp_get_max_threads() clamped to 4..8 (num_threads(T), so at least 4
 * threads share the cores even where OpenMP would give one; the program checks the
 * team really has T threads). Per round, in each pair:
 *   - sender: 2T partitions; thread t fills partitions 2t and 2t+1 and marks each
 *     ready with MPI_Pready right after filling it, concurrently with the others;
 *   - receiver: T partitions (a different partitioning of the same message); thread t
 *     spins on MPI_Parrived for its own partition and checks its data as soon as it
 *     has arrived, concurrently with the others;
 *   - the main thread starts and completes the requests outside the region.
 * The roles swap every round. Argument: rounds (default 10). */
#include "part_util.h"
#include <omp.h>

#define TAG 51
enum { C = 300 }; /* ints per receive partition */

int main(int argc, char **argv)
{
    int nrounds = argc > 1 ? atoi(argv[1]) : 10, provided = 0;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d", provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &nproc));
    const char *e = getenv("MPIX_PART_STRICT");
    part_strict = e != NULL && *e != 0 && strcmp(e, "0") != 0;

    int T = omp_get_max_threads();
    T = T < 4 ? 4 : T > 8 ? 8 : T;
    int peer = pair_peer();
    long total = (long)T * C;
    int *sbuf = malloc(total * sizeof(int)), *rbuf = malloc(total * sizeof(int));
    MPI_Request sreq, rreq;
    if (peer != MPI_PROC_NULL) {
        CHECK_OK(MPI_Psend_init(sbuf, 2 * T, C / 2, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
        CHECK_OK(MPI_Precv_init(rbuf, T, C, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
        for (int r = 0; r < nrounds; r++) {
            int sender = (rank + r) % 2 == 0, bad = 0, team = 0;
            MPI_Status st;
            if (sender) {
                CHECK_OK(MPI_Start(&sreq));
            } else {
                for (long i = 0; i < total; i++)
                    rbuf[i] = -1;
                CHECK_OK(MPI_Start(&rreq));
            }
#pragma omp parallel num_threads(T) reduction(+ : bad) reduction(max : team)
            {
                int t = omp_get_thread_num();
                team = omp_get_num_threads();
                if (sender) {
                    for (int p = 2 * t; p < 2 * t + 2; p++) {
                        for (long i = 0; i < C / 2; i++)
                            sbuf[(long)p * (C / 2) + i] = pval(r, rank, (long)p * (C / 2) + i);
                        if (MPI_Pready(p, sreq) != MPI_SUCCESS)
                            bad++;
                    }
                } else {
                    int flag = 0;
                    double t0 = MPI_Wtime();
                    while (!flag && !bad) {
                        if (MPI_Parrived(rreq, t, &flag) != MPI_SUCCESS)
                            bad++;
                        else if (!flag && MPI_Wtime() - t0 > PART_SPIN_LIMIT)
                            bad++;
                        else if (!flag)
                            sched_yield();
                    }
                    for (long i = (long)t * C; i < (long)(t + 1) * C && !bad; i++)
                        if (rbuf[i] != pval(r, peer, i)) {
                            fprintf(stderr, "rank %d thread %d round %d: element %ld is %d, want %d\n", rank, t, r, i,
                                    rbuf[i], pval(r, peer, i));
                            bad++;
                        }
                }
            }
            CHECK(team == T, "the parallel region has %d threads, want %d", team, T);
            CHECK(bad == 0, "round %d: %d threads failed (%s side)", r, bad, sender ? "send" : "receive");
            if (sender) {
                CHECK_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
            } else {
                CHECK_OK(MPI_Wait(&rreq, &st));
                check_recv_status(&st, MPI_INT, peer, TAG, (int)total, "threads");
                check_ints(rbuf, 0, total, r, peer, "threads: after MPI_Wait");
            }
        }
        CHECK_OK(MPI_Request_free(&sreq));
        CHECK_OK(MPI_Request_free(&rreq));
    }
    free(sbuf);
    free(rbuf);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("part threads: %d threads, %d rounds, %d processes: OK\n", T, nrounds, nproc);
    CHECK_OK(MPI_Finalize());
    return 0;
}
